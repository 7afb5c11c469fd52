// TableAnimator with a scroll effect: every visible row of every frame of a fling against
// the reference (`ScrollEffect.evaluate(cell:scroll:)` on the row's layout place, wrapped
// around the same row's time-driven state from an animator without the effect), reduce
// motion, and the combinations refused.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel
@testable import CellMotionTable
@testable import CellMotionTableModel

/// The largest entry error of `k` against `r`, the translation row divided by `s` and the
/// perspective column multiplied by it (the kernel tests' normalisation); NaN is infinite.
func normalisedMatrixError(_ k: Transform3D, _ r: Transform3D, scale s: Double) -> Double {
  var worst = 0.0
  for i in 0..<4 {
    for j in 0..<4 {
      var e = abs(k[i, j] - r[i, j])
      if i == 3 { e /= s }
      if j == 3 { e *= s }
      worst = worstOf(worst, e)
    }
  }
  return worst
}

@Suite("TableAnimator: scroll effects")
struct TableScrollEffectTests {
  static let viewport = 700.0, width = 390.0

  func animator(
    _ recipe: Recipe, effect: ScrollEffect?, layout: MatrixLayout = .transform3D, motion: MotionPolicy? = nil,
    rowHeights: [Double]? = nil, axis: ScrollAxis = .vertical, viewport: Double = TableScrollEffectTests.viewport
  ) throws -> TableAnimator {
    let table = try rowHeights.map { try TableLayout(rowHeights: $0) } ?? TableLayout(rowCount: 2000, rowHeight: 72)
    let fling = try ScrollTrajectory.fling(
      from: 0, velocity: 4000, startTime: 0.05, limits: table.scrollRange(viewportHeight: viewport))
    let sim = try TableSimulation(
      layout: table, viewportHeight: viewport, scroll: fling, rule: .firstAppearanceOnly, overscan: 120)
    return try TableAnimator(
      simulation: sim, recipes: TableRecipes(first: recipe), cellWidth: Self.width, layout: layout, motion: motion,
      scrollEffect: effect, axis: axis)
  }

  /// Steps `with` (an effect) and `without` (none) together through a fling and checks every
  /// visible row: matrix = A x S x T(0, y) for the row's animation A (from `without`), the
  /// reference effect S at the row's layout place and its place y; opacity = the product.
  /// Horizontal (`axis`): the same along x, rows `width` tall in a viewport `viewport` wide.
  /// Returns (rows compared, rows animating, rows the effect changed).
  func compare(
    _ recipe: Recipe, _ effect: ScrollEffect, reference: ScrollEffect, motion: MotionPolicy? = nil,
    rowHeights: [Double]? = nil, axis: ScrollAxis = .vertical, layout: MatrixLayout = .transform3D,
    updates: Bool = false, viewport: Double = TableScrollEffectTests.viewport,
    skipped: ((_ cells: Int, _ quiet: Int) -> Void)? = nil
  ) throws -> (Int, Int, Int) {
    var with = try animator(
      recipe, effect: effect, layout: layout, motion: motion, rowHeights: rowHeights, axis: axis, viewport: viewport)
    var without = try animator(
      recipe, effect: nil, layout: layout, motion: motion, rowHeights: rowHeights, axis: axis, viewport: viewport)
    let horizontal = axis == .horizontal
    func place(_ p: Double) -> Transform3D { horizontal ? .translation(p, 0, 0) : .translation(0, p, 0) }
    var compared = 0, animating = 0, changed = 0
    var worstMatrix = 0.0, worstOpacity = 0.0
    var updateRows = 0
    for n in 0..<150 {
      let t = Double(n) / 60
      if updates && n % 30 == 5 {
        // The same batch in view on both tables: its rows animate through the update
        // pass, the effect between their animation and their place as for the others.
        let top = with.frame.rows.lowerBound
        let styles: [RowAnimation] = [.fade, .right, .top, .middle, .automatic]
        var u = RowUpdate()
        u.deleteRows(at: [top + 2], with: styles[(n / 30) % styles.count])
        u.reloadRows(at: [top + 4], height: 60, with: styles[(n / 30 + 1) % styles.count])
        u.insertRows(at: [top + 6, top + 7], height: 50, with: styles[(n / 30 + 2) % styles.count])
        try with.performBatchUpdates(u, at: t)
        try without.performBatchUpdates(u, at: t)
      }
      try with.step(to: t)
      try without.step(to: t)
      if let batch = with.scrollStage?.batch { skipped?(batch.skippedCells, batch.quietRuns.reduce(0) { $0 + $1.count }) }
      let a = with.frame, b = without.frame
      #expect(a.rows == b.rows)
      let scroll =
        horizontal
        ? try ScrollState(
          offsetX: a.events.scrollOffset, viewportWidth: viewport, viewportHeight: Self.width,
          contentWidth: a.events.contentHeight)
        : try ScrollState(
          offsetY: a.events.scrollOffset, viewportWidth: Self.width, viewportHeight: viewport,
          contentHeight: a.events.contentHeight)
      for i in 0..<a.rows.count {
        let row = a.rows.lowerBound + i
        let y = a.events.rowPositions[i], h = a.events.rowHeights[i]
        let cell =
          horizontal
          ? try ScrollCell(x: y + a.events.scrollOffset, width: h, height: Self.width)
          : try ScrollCell(y: y + a.events.scrollOffset, width: Self.width, height: h)
        let s = reference.evaluate(cell: cell, scroll: scroll)
        // Row vectors: the row's matrix is A x T(0, y); A = that x T(0, -y).
        let time = b.transform(ofRow: row)!.concatenating(place(-y))
        let expected = time.concatenating(s.transform).concatenating(place(y))
        let e = normalisedMatrixError(a.transform(ofRow: row)!, expected, scale: max(Self.width, h))
        worstMatrix = worstOf(worstMatrix, e)
        worstOpacity = worstOf(worstOpacity, abs(Double(a.opacity[i]) - Double(b.opacity[i]) * s.opacity))
        compared += 1
        if a.events.updateCells.contains(where: { $0.cell.row == row && $0.cell.kind != .reloadedOld }) { updateRows += 1 }
        if a.animating[i] { animating += 1 }
        if s.transform != .identity || s.opacity != 1 { changed += 1 }
      }
    }
    print("\(effect.name) on \(recipe.name): \(compared) rows, worst matrix \(worstMatrix), opacity \(worstOpacity)")
    #expect(worstMatrix <= 2e-5, "\(effect.name): normalised matrix error \(worstMatrix)")
    #expect(worstOpacity <= 1e-5, "\(effect.name): opacity error \(worstOpacity)")
    if updates { #expect(updateRows > 50, "\(effect.name): \(updateRows) rows drawn by batch updates") }
    return (compared, animating, changed)
  }

  static let effects: [String] = ["edgeFadeScale", "coverFlow", "wheelPicker", "reveal", "carouselKeylines", "parallax"]

  static func effect(_ name: String) throws -> ScrollEffect {
    switch name {
    case "edgeFadeScale": return try .edgeFadeScale()
    case "coverFlow": return try .coverFlow(pitch: 72, axis: .vertical)
    case "wheelPicker": return try .wheelPicker(viewportExtent: viewport, itemExtent: 72)
    case "reveal": return try .reveal()
    case "carouselKeylines": return try .carouselKeylines(pitch: 72, axis: .vertical)
    default: return try .parallaxContent(overflow: 40)
    }
  }

  @Test("Rows animated by batch updates take the effect between their animation and their place")
  func effectsOnUpdatedRows() throws {
    for effect in [try ScrollEffect.edgeFadeScale(), try .coverFlow(pitch: 72, axis: .vertical)] {
      for layout in [MatrixLayout.transform3D, .affine2D] where layout == .transform3D || effect.name == "edgeFadeScale" {
        let (compared, animating, _) = try compare(.tipIn, effect, reference: effect, layout: layout, updates: true)
        #expect(compared > 1000 && animating > 100, "\(effect.name): \(compared) rows, \(animating) animating")
      }
    }
  }

  @Test("A tall viewport: rows the effect leaves as they are (the middle under an edge fade, revealed rows) keep their place")
  func identityRows() throws {
    for axis in ScrollAxis.allCases {
      for effect in [try ScrollEffect.edgeFadeScale(axis: axis), try .reveal(axis: axis)] {
        for layout in [MatrixLayout.transform3D, .affine2D] {
          var skippedCells = 0, quietCells = 0
          // About 50 rows of 40 points in view. (Not a longer viewport: the timeline's Float
          // multiply-add of a row's place relative to the viewport loses about 1e-7 of
          // progress per ramp length of place; 2,000 points down a 40-point ramp is within
          // 6e-6 of the reference.)
          let (compared, animating, changed) = try compare(
            .tipIn, effect, reference: effect, rowHeights: [Double](repeating: 40, count: 3000), axis: axis,
            layout: layout, updates: axis == .vertical, viewport: 2_000
          ) { skippedCells += $0; quietCells += $1 }
          let label = "\(axis) \(effect.name) \(layout)"
          #expect(compared > 5000 && animating > 500 && changed > 300, "\(label): \(compared) \(animating) \(changed)")
          #expect(skippedCells > 2000, "\(label): \(skippedCells) cells skipped")
          // The edge fade's fully visible rows are its quiet runs (`ScrollEffectBatch.quietRuns`),
          // which the animator places without reading their kinds.
          if effect.name == "edgeFadeScale" { #expect(quietCells > 2000, "\(label): \(quietCells) cells in quiet runs") }
        }
      }
    }
  }

  @Test("Every visible row of a fling: the reference effect around the row's animation", arguments: effects)
  func matchesReference(name: String) throws {
    let effect = try Self.effect(name)
    let (compared, animating, changed) = try compare(.tipIn, effect, reference: effect)
    #expect(compared > 1500 && animating > 500 && changed > 300, "\(compared) \(animating) \(changed)")
  }

  static let horizontalEffects: [String] = [
    "coverFlow", "carouselKeylines", "edgeFadeScale", "depthPage", "zoomOutPage", "reveal", "parallax",
  ]

  static func horizontalEffect(_ name: String) throws -> ScrollEffect {
    switch name {
    case "coverFlow": return try .coverFlow(pitch: 72, axis: .horizontal)
    case "carouselKeylines": return try .carouselKeylines(pitch: 72, axis: .horizontal)
    case "edgeFadeScale": return try .edgeFadeScale(axis: .horizontal)
    case "depthPage": return try .depthPage()
    case "zoomOutPage": return try .zoomOutPage()
    case "reveal": return try .reveal(axis: .horizontal)
    default: return try .parallaxContent(overflow: 40, axis: .horizontal)
    }
  }

  @Test("A horizontal table: every visible column of a fling, the reference effect along x", arguments: horizontalEffects)
  func horizontalMatchesReference(name: String) throws {
    let effect = try Self.horizontalEffect(name)
    #expect(effect.timeline.axis == .horizontal)
    let (compared, animating, changed) = try compare(.tipIn, effect, reference: effect, axis: .horizontal)
    #expect(compared > 1500 && animating > 500 && changed > 300, "\(compared) \(animating) \(changed)")
  }

  @Test("The affine layout on both axes: planar effects around tip-in against the reference")
  func affineBothAxes() throws {
    for axis in ScrollAxis.allCases {
      for effect in [try ScrollEffect.edgeFadeScale(axis: axis), try .parallaxContent(overflow: 40, axis: axis)] {
        let (compared, animating, changed) = try compare(.tipIn, effect, reference: effect, axis: axis, layout: .affine2D)
        #expect(compared > 1500 && animating > 500 && changed > 300, "\(axis) \(effect.name): \(compared) \(animating) \(changed)")
      }
    }
  }

  @Test("A refused frame under an effect still draws every row at its place")
  func refusedFramePlacesRows() throws {
    for axis in ScrollAxis.allCases {
      var a = try animator(.tipIn, effect: try .edgeFadeScale(axis: axis), axis: axis)
      try a.step(to: 0)
      try a.step(to: 1)  // tip-in (0.4 s) has ended on the first screen
      a.options.threads = 0  // the kernel refuses the next frame
      #expect(throws: CellMotionError.self) { try a.step(to: 1.5) }
      let f = a.frame
      for (i, row) in f.rows.enumerated() {
        let p = Double(Float(f.events.rowPositions[i]))
        let want = axis == .horizontal ? Transform3D.translation(p, 0, 0) : .translation(0, p, 0)
        #expect(f.transform(ofRow: row) == want, "\(axis) row \(row)")
      }
      #expect(f.rows.count > 5, "\(axis): \(f.rows.count) rows")
    }
  }

  @Test("Rows of varied heights, including rows taller than the viewport")
  func variedHeights() throws {
    var g = SeededGenerator(seed: 33)
    let heights = (0..<600).map { i in i % 97 == 5 ? 900 : g.uniform(20...180) }
    let effect = try ScrollEffect.coverFlow(pitch: 90, axis: .vertical)
    let (compared, _, changed) = try compare(.moveUpFade, effect, reference: effect, rowHeights: heights)
    #expect(compared > 1000 && changed > 300, "\(compared) \(changed)")
  }

  @Test("Reduce motion: the effect's opacity only; its transform is the identity")
  func reducedMotion() throws {
    for name in Self.effects {
      let effect = try Self.effect(name)
      let flat = effect.withoutMotion
      // Against the reference of the effect without motion ...
      _ = try compare(.tipIn, effect, reference: flat, motion: .reduced)
      // ... which keeps the full effect's opacity at every place and moves nothing.
      let scroll = try ScrollState(offsetY: 300, viewportWidth: Self.width, viewportHeight: Self.viewport)
      for y in stride(from: -200.0, through: 1100, by: 13) {
        let cell = try ScrollCell(y: y, width: Self.width, height: 72)
        let full = effect.evaluate(cell: cell, scroll: scroll), reduced = flat.evaluate(cell: cell, scroll: scroll)
        #expect(reduced.transform == .identity, "\(name) at \(y)")
        #expect(abs(reduced.opacity - full.opacity) <= 1e-12, "\(name) at \(y): \(reduced.opacity) vs \(full.opacity)")
      }
    }
  }

  @Test("An affine layout takes a planar effect and refuses a 3D one; each axis refuses the other's effects")
  func combinations() throws {
    var planar = try animator(.fadeIn, effect: .edgeFadeScale(), layout: .affine2D)
    var full = try animator(.fadeIn, effect: .edgeFadeScale(), layout: .transform3D)
    for n in 0..<60 {
      try planar.step(to: Double(n) / 60)
      try full.step(to: Double(n) / 60)
      let a = planar.frame, b = full.frame
      for i in 0..<a.rows.count {
        let m = b.matrices[(16 * i)..<(16 * i + 16)].map { $0 }
        let six = [m[0], m[1], m[4], m[5], m[12], m[13]]
        for k in 0..<6 {
          #expect(abs(a.matrices[6 * i + k] - six[k]) <= 1e-4 * (1 + abs(six[k])), "frame \(n) row \(i) entry \(k)")
        }
      }
    }
    #expect(throws: CellMotionError.self) { try animator(.fadeIn, effect: .coverFlow(pitch: 72, axis: .vertical), layout: .affine2D) }
    #expect(throws: CellMotionError.self) { try animator(.fadeIn, effect: .coverFlow(pitch: 72)) }
    // And a horizontal table refuses a vertical effect.
    #expect(throws: CellMotionError.self) { try animator(.fadeIn, effect: .edgeFadeScale(), axis: .horizontal) }
    _ = try animator(.fadeIn, effect: .edgeFadeScale(axis: .horizontal), axis: .horizontal)
    // Setting and clearing it later.
    var a = try animator(.fadeIn, effect: nil)
    try a.setScrollEffect(.edgeFadeScale())
    #expect(a.scrollEffect?.name == "edgeFadeScale")
    try a.setScrollEffect(nil)
    #expect(a.scrollEffect == nil)
  }
}
