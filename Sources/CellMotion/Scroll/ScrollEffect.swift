// A scroll effect: a timeline that maps a cell's layout to a value, and a recipe driven by
// that value (`ProgressSource.progress`). The recipe is evaluated by the existing
// `ReferenceEvaluator.evaluate(_:geometry:progress:)`, so curves, keyframes, matrices,
// perspective and anchors mean exactly what they mean for time-driven recipes, and the
// kernel can evaluate a scroll effect as a progress column plus its progress path.

/// The state a scroll effect gives one cell: a transform and an opacity, in the cell's own
/// space as `CellState`'s (points; the anchor sandwich and the recipe's perspective
/// included).
public struct ScrollEffectState: Sendable, Hashable {
  /// Maps a point of the cell's bounds to where it is drawn relative to the cell's resting
  /// frame origin (its layout position).
  public var transform: Transform3D
  /// In [0, 1]; 0 when the timeline hides the cell.
  public var opacity: Double
  /// What the timeline gave.
  public var output: ScrollTimelineOutput

  public init(transform: Transform3D, opacity: Double, output: ScrollTimelineOutput) {
    self.transform = transform
    self.opacity = opacity
    self.output = output
  }

  /// The cell with no scroll effect: identity, opacity 1.
  public static let noEffect = ScrollEffectState(transform: .identity, opacity: 1, output: .noEffect)

  /// A time-driven state with this scroll effect around it. The scroll effect is the outer
  /// layer (as a container view around the animated content): a point goes through the
  /// time-driven transform first, then the scroll effect's (row vectors:
  /// `time.transform * transform`); opacities multiply; the shadow and the fold are the
  /// time-driven state's.
  public func applied(to time: CellState) -> CellState {
    var state = time
    state.transform = time.transform.concatenating(transform)
    state.opacity = time.opacity * opacity
    return state
  }
}

/// A scroll-driven cell effect: `timeline` gives each cell a value, `domain` maps the value
/// linearly onto `recipe`'s progress (domain.lowerBound to 0, upperBound to 1), and the
/// recipe, driven by progress, gives the transform and opacity.
///
/// Outside the domain the progress is clamped to [0, 1] (a progress-driven recipe holds
/// its ends, `ProgressSource.progress`); the timeline's fill has already said whether the
/// cell shows there (`noEffect`: identity and opacity 1; `hidden`: opacity 0). A domain
/// wider than the timeline's range lets an `extend` fill run on exactly over it (parallax).
///
/// Only the recipe's transform and opacity are read (not its shadow opacity); a recipe with
/// a fold, a zero or infinite active duration, or that does not validate, is refused.
/// Reduce motion is the caller's: a scroll effect has no end state to hold, so under
/// reduced motion a table should leave moving scroll effects out (Apple's Human Interface
/// Guidelines, "Motion").
public struct ScrollEffect: Sendable, Hashable {
  public let name: String
  public let timeline: ScrollTimeline
  public let recipe: Recipe
  /// The timeline values mapped to recipe progress 0 and 1; finite, lower < upper.
  public let domain: ClosedRange<Double>
  /// Whether the recipe reads the value's magnitude |value| (an effect symmetric about 0,
  /// such as SwiftUI's phase rule, one curve from the centre out to either edge).
  public let foldsValue: Bool

  /// - Parameters:
  ///   - name: names the effect in errors.
  ///   - timeline: gives each cell its value.
  ///   - recipe: the recipe the value drives (`ProgressSource.progress`).
  ///   - domain: the values mapped to progress 0 and 1; nil for the timeline's own
  ///     `domain` (which must then be finite).
  ///   - foldsValue: the recipe reads |value| (`foldsValue`).
  /// - Throws: what `recipe.validate()` throws; `.invalidCombination` for a fold recipe, an
  ///   infinite domain or a recipe without a finite, positive active duration;
  ///   `.notFinite` / `.outOfRange` for a domain that is not finite with lower < upper.
  public init(
    name: String, timeline: ScrollTimeline, recipe: Recipe, domain: ClosedRange<Double>? = nil, foldsValue: Bool = false
  ) throws(CellMotionError) {
    try recipe.validate()
    guard recipe.fold == nil else {
      throw .invalidCombination(field: "\(name).recipe", reason: "a fold recipe cannot be a scroll effect")
    }
    let span = recipe.activeDuration
    guard span.isFinite, span > 0 else {
      throw .invalidCombination(
        field: "\(name).recipe", reason: "a progress-driven recipe needs a finite, positive active duration, got \(span)")
    }
    let d = domain ?? timeline.domain
    guard d.lowerBound.isFinite, d.upperBound.isFinite else {
      throw .invalidCombination(field: "\(name).domain", reason: "the timeline's values are unbounded: give a finite domain")
    }
    guard d.lowerBound < d.upperBound else {
      throw .outOfRange(field: "\(name).domain", value: d.upperBound, expected: "above its lower bound \(d.lowerBound)")
    }
    self.name = name
    self.timeline = timeline
    self.recipe = recipe
    self.domain = d
    self.foldsValue = foldsValue
  }

  /// The effect under reduced motion (Reduce Motion, `MotionPolicy.reduced` or `.none`):
  /// the same timeline and domain with only the recipe's opacity, as a time-driven recipe
  /// under `.reduced` keeps its opacity and holds what moves. What moves (translation,
  /// rotation, scale channels and the matrix animation) is left out, so the cell stays at
  /// its layout place (identity transform) and only fades where the effect fades: an edge
  /// fade and scale keeps its fade, a cover flow or a wheel stays flat, a reveal that
  /// slides in only fades in. There is no cross-fade (a scroll effect has no start in time
  /// to fade in from).
  ///
  /// The recipe keeps its active duration (a held shadow-opacity channel spans the part
  /// that ended last, which a scroll effect never reads), so the opacity sees the same
  /// progress at every place as in the full effect.
  public var withoutMotion: ScrollEffect {
    var r = recipe
    r.channels = recipe.channels.filter { !$0.channel.movesTransform }
    r.matrix = nil
    r.perspectiveDistance = nil  // flat cells: the transform is exactly the identity
    var last: (delay: Double, duration: Double)? = nil
    var end = -Double.infinity
    for c in recipe.channels where c.delay + recipe.timing.activeDuration(c.duration) > end {
      end = c.delay + recipe.timing.activeDuration(c.duration)
      last = (c.delay, c.duration)
    }
    if let m = recipe.matrix, m.delay + recipe.timing.activeDuration(m.duration) > end { last = (m.delay, m.duration) }
    if let last {
      r.channels.append(
        ChannelAnimation(.shadowOpacity, from: 0, to: 0, curve: .bezier(.linear), duration: last.duration, delay: last.delay))
    }
    // Cannot throw: the recipe validated with these parts, and its active duration is
    // unchanged.
    guard let e = try? ScrollEffect(name: name, timeline: timeline, recipe: r, domain: domain, foldsValue: foldsValue)
    else { preconditionFailure("\(name): the effect without motion failed to validate") }
    return e
  }

  /// The recipe progress for a timeline value: (value - lower) / (upper - lower), of
  /// |value| when `foldsValue`, clamped to [0, 1].
  public func recipeProgress(_ value: Double) -> Double {
    let v = foldsValue ? abs(value) : value
    return min(max((v - domain.lowerBound) / (domain.upperBound - domain.lowerBound), 0), 1)
  }

  /// The effect on a cell laid out at `cell` in a scroll view at `scroll` (points): the
  /// reference, `(cell geometry, scroll state) -> (transform, opacity)`.
  ///
  /// The recipe reads the cell's size and, as its table width, the viewport's width
  /// (`ScrollCell.geometry(in:)`).
  /// - Complexity: one timeline output and one recipe evaluation.
  public func evaluate(cell: ScrollCell, scroll: ScrollState) -> ScrollEffectState {
    let output = timeline.output(cell: cell, scroll: scroll)
    return state(for: output, geometry: cell.geometry(in: scroll))
  }

  /// The state for a timeline output and a cell geometry, both trusted to come from
  /// validated inputs (`evaluate(cell:scroll:)` is the public entry point).
  package func state(for output: ScrollTimelineOutput, geometry: CellGeometry) -> ScrollEffectState {
    let value: Double
    switch output {
    case .noEffect: return .noEffect
    case .progress(let v), .hidden(let v): value = v
    }
    // Cannot throw: the progress is in [0, 1] and the active duration was checked in init.
    guard let s = try? ReferenceEvaluator.evaluate(recipe, geometry: geometry, progress: recipeProgress(value)) else {
      preconditionFailure("\(name): a validated progress-driven recipe failed to evaluate")
    }
    if case .hidden = output { return ScrollEffectState(transform: s.transform, opacity: 0, output: output) }
    return ScrollEffectState(transform: s.transform, opacity: s.opacity, output: output)
  }
}
