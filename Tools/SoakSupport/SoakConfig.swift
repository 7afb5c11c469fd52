// A soak session's table: rows, heights, viewport, recipes, display rule, reduce-motion
// policy, and whether rows expand (toggles) or take batch updates, all drawn from one seed.
//
// Goals, in priority order:
// 1. Reproducible: `SessionConfig(seed:maxRows:)` draws the same table every time, so a
//    replay script names a session by its seed alone.
// 2. Every configuration the table accepts is reachable: uniform and varied heights from
//    a few rows to `maxRows`, every display rule, presets and random recipes, both matrix
//    layouts, every retarget policy, UIKit's and RecyclerView's update timing.

import CellMotion
import CellMotionKernel
import CellMotionTable
import _TestSupport

/// How rows expand in an expansion session.
public struct ExpansionConfig: Sendable {
  /// Whether one or many rows may be expanded.
  public var policy: ExpansionPolicy
  /// Uniform detail height in points, or nil for per-row heights (drawn from the seed).
  public var uniformDetail: Double?
  /// Seconds.
  public var heightDuration: Double
  /// Seconds.
  public var foldDuration: Double
  /// The height's curve and retarget policy; nil: the plain linear form (reversal).
  public var animation: (curve: AnimationCurve, retarget: RetargetPolicy?)?
}

/// One session's table, drawn from a seed.
public struct SessionConfig: Sendable, CustomStringConvertible {
  /// The seed everything here is drawn from.
  public let seed: UInt64
  /// The most rows the soak allows.
  public let maxRows: Int
  /// Rows at the start.
  public let rows: Int
  /// Uniform row height in points, or nil for varied heights in `variedHeights`.
  public let uniformHeight: Double?
  /// Range of varied heights, points.
  public let variedHeights: ClosedRange<Double>
  /// Viewport height, points.
  public let viewport: Double
  /// Points past each edge of the viewport that count as visible.
  public let overscan: Double
  /// Cell width, points.
  public let cellWidth: Double
  /// Table width, points (at least the cell width).
  public let tableWidth: Double
  /// Which appearances animate.
  public let rule: DisplayRule
  /// A row's first appearance.
  public let first: Recipe
  /// Later appearances, or nil (none animate).
  public let repeatAppearance: Recipe?
  /// The motion policy, or nil for each recipe's own.
  public let motion: MotionPolicy?
  /// The frame's matrix layout.
  public let layout: MatrixLayout
  /// Whether interrupted appearances resume.
  public let resumes: Bool
  /// The kernel's lane width at the start.
  public let lanes: LaneWidth
  /// Rows expand and collapse (toggles; batch updates are refused), or nil: batch updates.
  public let expansion: ExpansionConfig?
  /// Durations, order and curve of batch-update animations.
  public let updateTiming: UpdateTiming
  /// A custom row animation recipe, when drawn.
  public let customRowAnimation: (key: RowAnimationKey, recipe: Recipe)?
  /// Seconds; the session's first frame.
  public let startTime: Double
  /// The axis the rows are laid out and scroll along (`TableAnimator.axis`): horizontal for
  /// a quarter of the tables without expanding rows, from its own generator (the rest of a
  /// seed's session is what it was before tables had an axis).
  public let axis: ScrollAxis
  /// A scroll effect on every visible row (`TableAnimator.setScrollEffect`), or nil. Drawn
  /// from its own generator, so the rest of a seed's session is what it was without it.
  public let scrollEffect: ScrollEffect?

  /// Draws a session. `largest` forces `maxRows` rows of varied heights (the soak's first
  /// session, so memory peaks during warm-up).
  public init(seed: UInt64, maxRows: Int, largest: Bool = false) {
    var g = SeededGenerator(seed: seed ^ 0xC0F1_6000_0000_0001)
    self.seed = seed
    self.maxRows = max(1, maxRows)
    // Row counts spread over orders of magnitude: a few, a screenful, thousands, the most.
    let scale = g.next() % 5
    let drawn: Int
    switch scale {
    case 0: drawn = 1 + Int(g.next() % 8)
    case 1: drawn = 8 + Int(g.next() % 40)
    case 2: drawn = 48 + Int(g.next() % 1000)
    case 3: drawn = 1000 + Int(g.next() % 100_000)
    default: drawn = self.maxRows
    }
    rows = largest ? self.maxRows : min(self.maxRows, drawn)
    uniformHeight = !largest && g.next() % 2 == 0 ? [44, 80, 1, 0.5, 120, 300][Int(g.next() % 6)] : nil
    let lo = g.uniform(2...60)
    variedHeights = lo...(lo + g.uniform(0...200))
    viewport = [640, 812, 320, 1024, 200][Int(g.next() % 5)]
    overscan = g.next() % 3 == 0 ? g.uniform(0...200) : 0
    cellWidth = [375, 414, 320, 768][Int(g.next() % 4)]
    tableWidth = g.next() % 4 == 0 ? cellWidth + g.uniform(0...200) : cellWidth
    rule = [DisplayRule.always, .firstAppearanceOnly, .firstScreenfulOnly][Int(g.next() % 3)]
    let presets = SoakRecipes.appearancePresets
    let affine = g.next() % 5 == 0
    func pick(_ g: inout SeededGenerator, _ name: String) -> Recipe {
      g.next() % 2 == 0
        ? presets[Int(g.next() % UInt64(presets.count))]
        : SoakRecipes.recipe(&g, name: name, affineOnly: affine)
    }
    first = pick(&g, "random-first")
    repeatAppearance = g.next() % 2 == 0 ? pick(&g, "random-repeat") : nil
    motion = [Optional<MotionPolicy>.none, .full, .reduced, MotionPolicy.none][Int(g.next() % 4)]
    layout = affine ? .affine2D : .transform3D
    resumes = g.next() % 4 != 0
    lanes = g.next() % 2 == 0 ? .simd8 : .simd4
    // A spring curve stops at its duration (`AnimationCurve.spring`: the value snaps to its
    // end, as UIKit removes the animation), a documented jump. Durations of spring-timed
    // heights, slides and retargets are stretched to the spring's settling time, so the
    // snap is at most `Spring.settlingEpsilon` of the distance (the continuity check
    // allows that much).
    func fitted(_ curve: AnimationCurve, _ d: Double) -> Double { Self.fitted(curve, d) }
    if g.next() % 2 == 0 {
      let animation: (curve: AnimationCurve, retarget: RetargetPolicy?)?
      switch g.next() % 5 {
      case 0: animation = nil
      case 1: animation = (SoakRecipes.curve(&g), nil)
      case 2:
        animation = (SoakRecipes.curve(&g), .additive(curve: SoakRecipes.bezier(&g), duration: g.uniform(0.1...0.6)))
      case 3:
        if let spring = try? Spring.swiftUI(response: g.uniform(0.2...0.8), dampingFraction: g.uniform(0.3...1.2)) {
          animation = (SoakRecipes.curve(&g), .carryVelocity(spring: spring, dropsOpposingVelocity: g.next() % 2 == 0))
        } else {
          animation = (SoakRecipes.curve(&g), nil)
        }
      default:
        let c = SoakRecipes.curve(&g)
        animation = (SoakRecipes.curve(&g), .fromCurrentState(curve: c, duration: fitted(c, g.uniform(0.1...0.6))))
      }
      expansion = ExpansionConfig(
        policy: g.next() % 2 == 0 ? .multiple : .single,
        uniformDetail: g.next() % 3 == 0 ? nil : g.uniform(20...400),
        heightDuration: animation.map { fitted($0.curve, g.uniform(0.1...0.6)) } ?? g.uniform(0.1...0.6),
        foldDuration: g.uniform(0.1...0.6), animation: animation)
    } else {
      expansion = nil
    }
    switch g.next() % 3 {
    case 0: updateTiming = .uiKit
    case 1: updateTiming = .recyclerView
    default:
      let c = SoakRecipes.curve(&g)
      updateTiming =
        (try? UpdateTiming(
          order: g.next() % 2 == 0 ? .simultaneous : .phased, removeDuration: fitted(c, g.uniform(0.05...0.6)),
          moveDuration: fitted(c, g.uniform(0.05...0.6)), changeDuration: fitted(c, g.uniform(0.05...0.6)),
          addDuration: fitted(c, g.uniform(0.05...0.6)), curve: c,
          insertionStagger: g.next() % 2 == 0 ? .none : Stagger(step: g.uniform(0...0.03), base: .batchPosition)))
        ?? .uiKit
    }
    if g.next() % 4 == 0 {
      let styles = RowAnimation.allCases.filter { $0 != .automatic }
      let key = RowAnimationKey(
        style: styles[Int(g.next() % UInt64(styles.count))], change: g.next() % 2 == 0 ? .insertion : .deletion,
        reload: g.next() % 2 == 0)
      customRowAnimation = (key, SoakRecipes.recipe(&g, name: "random-row", affineOnly: affine))
    } else {
      customRowAnimation = nil
    }
    startTime = [0, 0, 12.5, 86_400, 3.6e6][Int(g.next() % 5)]
    // A third of the tables without expanding rows get a scroll effect: the presets along
    // the table's axis, sized for the table; 3D ones only with the 4x4 layout.
    var ga = SeededGenerator(seed: seed ^ 0xA815_0000_0000_0001)
    let axis: ScrollAxis = expansion == nil && ga.next() % 4 == 0 ? .horizontal : .vertical
    self.axis = axis
    var ge = SeededGenerator(seed: seed ^ 0x5C50_11EF_FEC7_0001)
    let h = uniformHeight ?? (variedHeights.lowerBound + variedHeights.upperBound) / 2
    if expansion == nil, ge.next() % 3 == 0 {
      let planar: [ScrollEffect?] = [
        try? .reveal(axis: axis), try? .edgeFadeScale(axis: axis), try? .edgeFadeScale(threshold: .centered, axis: axis),
        try? .parallaxContent(overflow: h / 2, axis: axis), try? .stickyHeader(axis: axis),
        try? .stretchyHeader(height: max(h, 1), axis: axis),
      ]
      // Android's page transformers read the horizontal axis.
      let pages: [ScrollEffect?] = axis == .horizontal ? [try? .depthPage(), try? .zoomOutPage()] : []
      let solid: [ScrollEffect?] = [
        try? .coverFlow(pitch: max(h, 1), axis: axis),
        try? .wheelPicker(viewportExtent: viewport, itemExtent: max(h, 1), axis: axis),
        try? .carouselKeylines(pitch: max(h, 1), axis: axis),
      ] + pages
      let choices = (affine ? planar : planar + solid).compactMap { $0 }
      scrollEffect = choices.isEmpty ? nil : choices[Int(ge.next() % UInt64(choices.count))]
    } else {
      scrollEffect = nil
    }
  }

  /// `d` seconds, or for a spring its settling time if longer (at most 20 s).
  public static func fitted(_ curve: AnimationCurve, _ d: Double) -> Double {
    guard case .spring(let s) = curve else { return d }
    // Core Animation's settlingDuration treats an over-damped spring as critically damped
    // (DESIGN.md), which settles sooner than the spring itself: take the motion's own rest
    // time too (either sign of its initial velocity, to be safe).
    let eps = Spring.settlingEpsilon
    let settle = max(
      s.settlingDuration, s.restTime(displacement: 1, velocity: s.initialVelocity, tolerance: eps),
      s.restTime(displacement: 1, velocity: -s.initialVelocity, tolerance: eps))
    return settle.isFinite ? max(d, min(settle, 20)) : d
  }

  /// Whether heights or slides of this session move on a spring (whose end snaps by up to
  /// `Spring.settlingEpsilon` of the distance).
  public var springTimed: Bool {
    if case .spring = updateTiming.curve { return true }
    guard let a = expansion?.animation else { return false }
    if case .spring = a.curve { return true }
    switch a.retarget {
    case .carryVelocity?: return true
    case .fromCurrentState(.spring, _)?: return true
    default: return false
    }
  }

  /// The collapsed row heights (points), or nil for a uniform layout.
  public func rowHeights() -> [Double]? {
    guard uniformHeight == nil else { return nil }
    var g = SeededGenerator(seed: seed ^ 0x4E16_4750_0000_0002)
    return (0..<rows).map { _ in g.uniform(variedHeights) }
  }

  /// The detail heights of an expansion session (points).
  public func detailHeights() -> DetailHeights {
    if let h = expansion?.uniformDetail { return .uniform(h) }
    var g = SeededGenerator(seed: seed ^ 0xDE7A_1100_0000_0003)
    return .perRow((0..<rows).map { _ in g.uniform(20...400) })
  }

  /// One line naming the table's configuration.
  public var description: String {
    var s = "rows \(rows) ("
    s += uniformHeight.map { "uniform \($0) pt" } ?? "varied \(variedHeights.lowerBound)...\(variedHeights.upperBound) pt"
    s += "), viewport \(viewport) pt, overscan \(overscan), width \(cellWidth)/\(tableWidth), rule \(rule)"
    s += ", first \(first.name), repeat \(repeatAppearance?.name ?? "-"), motion \(motion.map { "\($0)" } ?? "recipe's")"
    s += ", layout \(layout), resumes \(resumes), lanes \(lanes), start \(startTime) s, axis \(axis)"
    if let e = scrollEffect { s += ", scroll effect \(e.name)" }
    if let e = expansion {
      s += ", expansion \(e.policy) detail \(e.uniformDetail.map { "\($0)" } ?? "per row") heights \(e.heightDuration) s"
      s += " fold \(e.foldDuration) s"
      if let a = e.animation { s += " curve \(a.curve) retarget \(a.retarget.map { "\($0)" } ?? "none")" }
    } else {
      s += ", updates \(updateTiming.order) remove \(updateTiming.removeDuration) move \(updateTiming.moveDuration)"
      s += " change \(updateTiming.changeDuration) add \(updateTiming.addDuration) curve \(updateTiming.curve)"
      if let c = customRowAnimation { s += " custom \(c.key.style)/\(c.key.change)/reload \(c.key.reload)" }
    }
    return s
  }

  /// The longest any one batch update's slides and row animations can run, seconds (a
  /// bound: every part in sequence, plus the stagger of up to 64 insertions).
  public var updateSpan: Double {
    let t = updateTiming
    var rowAnimation = 0.0
    if let c = customRowAnimation, c.recipe.activeDuration.isFinite { rowAnimation = c.recipe.activeDuration }
    return t.removeDuration + t.moveDuration + t.changeDuration + t.addDuration + rowAnimation + 64 * t.insertionStagger.step
      + 2
  }

  /// Builds the session's animator.
  ///
  /// - Throws: the table's errors (a configuration it refuses; the soak then redraws).
  public func makeAnimator(
    rows model: (heights: [Double]?, count: Int)? = nil, scrollOffset: Double? = nil
  ) throws(CellMotionError) -> TableAnimator {
    let count = model?.count ?? rows
    let rowLayout: TableLayout
    if let hs = model?.heights ?? (model == nil ? rowHeights() : nil) {
      rowLayout = try TableLayout(rowHeights: hs)
    } else {
      rowLayout = try TableLayout(rowCount: count, rowHeight: uniformHeight ?? 44)
    }
    var expansionState: ExpansionState? = nil
    if let e = expansion {
      if let a = e.animation {
        expansionState = try ExpansionState(
          rowCount: count, detailHeights: detailHeights(), policy: e.policy, heightDuration: e.heightDuration,
          foldDuration: e.foldDuration, heightAnimation: a.curve, retarget: a.retarget)
      } else {
        expansionState = try ExpansionState(
          rowCount: count, detailHeights: detailHeights(), policy: e.policy, heightDuration: e.heightDuration,
          foldDuration: e.foldDuration)
      }
    }
    var recipes = RowAnimationRecipes(timing: updateTiming)
    if let c = customRowAnimation { recipes.custom[c.key] = c.recipe }
    let sim = try TableSimulation(
      layout: rowLayout, viewportHeight: viewport, scroll: .stationary(at: scrollOffset ?? 0), rule: rule,
      expansion: expansionState, overscan: overscan, updateRecipes: recipes)
    var a = try TableAnimator(
      simulation: sim, recipes: TableRecipes(first: first, repeatAppearance: repeatAppearance), cellWidth: cellWidth,
      tableWidth: tableWidth, capacity: 256, options: KernelOptions(lanes: lanes), layout: layout, motion: motion,
      axis: axis)
    a.resumesInterruptedAppearances = resumes
    try a.setScrollEffect(scrollEffect)
    return a
  }
}
