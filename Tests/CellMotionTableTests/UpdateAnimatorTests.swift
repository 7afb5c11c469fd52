// Batch updates through the frame stepper: every drawn row animation (inserted rows,
// reloaded rows' old and new contents, deleted rows until they are gone) against the scalar
// reference on sampled frames, for every style, both phase orders and both matrix layouts.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel
@testable import CellMotionTable
@testable import CellMotionTableModel

@Suite("TableAnimator with batch updates")
struct UpdateAnimatorTests {
  /// With `axis` `.horizontal` the rows run along x: each cell is its row's extent wide and
  /// 375 points tall, its table width the viewport's (640), and its place a move right.
  func run(
    seed: UInt64, timing: UpdateTiming, layout matrixLayout: MatrixLayout, lanes: LaneWidth,
    axis: ScrollAxis = .vertical
  ) throws
    -> (ErrorTracker, ErrorTracker, [UpdateCell.Kind: Int])
  {
    let horizontal = axis == .horizontal
    func place(_ p: Double) -> Transform3D { horizontal ? .translation(p, 0, 0) : .translation(0, p, 0) }
    var rng = SeededGenerator(seed: seed)
    let heights = (0..<400).map { _ in rng.uniform(30...90) }
    let sim = try TableSimulation(
      layout: try TableLayout(rowHeights: heights), viewportHeight: 640,
      scroll: try .constantVelocity(from: 0, velocity: 300, startTime: 0.5, limits: 0...20_000),
      rule: .firstAppearanceOnly, updateRecipes: RowAnimationRecipes(timing: timing))
    var animator = try TableAnimator(
      simulation: sim, recipes: TableRecipes(first: .fadeIn), cellWidth: 375, capacity: 64,
      options: KernelOptions(lanes: lanes), layout: matrixLayout, axis: axis)
    var transform = ErrorTracker("row animations vs reference (points, scale 640)", tolerance: 2e-5 * 640)
    var opacity = ErrorTracker("row animations vs reference opacity", tolerance: 1e-5)
    var seen: [UpdateCell.Kind: Int] = [:]
    let styles = RowAnimation.allCases
    for n in 0..<300 {
      let t = Double(n) / 100
      if n % 40 == 5 {
        // A batch in view: rows near the top of the visible range, every style in turn.
        let top = animator.frame.rows.lowerBound
        let count = animator.simulation.layout.rowCount
        var u = RowUpdate()
        let style = styles[(n / 40) % styles.count]
        u.deleteRows(at: [top + 1, top + 4].filter { $0 < count }, with: style)
        u.reloadRows(at: [top + 2].filter { $0 < count }, height: 70, with: styles[(n / 40 + 3) % styles.count])
        u.insertRows(at: [top + 3, top + 6], height: rng.uniform(30...80), with: styles[(n / 40 + 5) % styles.count])
        if top + 8 < count { u.moveRow(at: top + 8, to: top + 300) }
        try animator.performBatchUpdates(u, at: t)
      }
      try animator.step(to: t)
      guard n % 3 == 0 else { continue }
      let f = animator.frame
      let floats = matrixLayout.floatsPerCell
      var extra = 0
      for c in f.events.updateCells {
        seen[c.cell.kind, default: 0] += 1
        let recipe = animator.simulation.updates.recipes.recipe(c.cell.key.style, c.cell.key.change, reload: c.cell.key.reload)
        let state = ReferenceEvaluator.evaluate(
          recipe,
          geometry: horizontal
            ? CellGeometry(width: c.height, height: 375, tableWidth: 640)
            : CellGeometry(width: 375, height: c.height, tableWidth: 375), row: c.cell.row ?? 0,
          batchPosition: c.cell.batchPosition, batchCount: c.cell.batchCount, startTime: c.cell.beginTime, time: t)
        let want = state.transform.concatenating(place(c.y))
        let got: [Float]
        let gotOpacity: Float
        if let row = c.cell.row, c.cell.kind != .reloadedOld, f.rows.contains(row) {
          let slot = row - f.rows.lowerBound
          got = Array(f.matrices[(floats * slot)..<(floats * slot + floats)])
          gotOpacity = f.opacity[slot]
          #expect(f.behind[slot] == c.cell.isBehind)
        } else if c.cell.kind == .deleted || c.cell.kind == .reloadedOld {
          #expect(f.extraCells[extra].id == c.cell.id && f.extraCells[extra].isBehind == c.cell.isBehind)
          got = Array(f.extraMatrices[(floats * extra)..<(floats * extra + floats)])
          gotOpacity = f.extraOpacity[extra]
          extra += 1
        } else {
          continue
        }
        var g = Transform3D.identity
        if floats == 6 {
          (g.m11, g.m12, g.m21, g.m22, g.m41, g.m42) = (Double(got[0]), Double(got[1]), Double(got[2]), Double(got[3]), Double(got[4]), Double(got[5]))
        } else {
          for k in 0..<16 { g[k / 4, k % 4] = Double(got[k]) }
        }
        transform.record(viewportError(g, want, scale: 640), 0, "seed \(seed) t \(t) \(c.cell.kind) \(recipe.name)")
        opacity.record(Double(gotOpacity), state.opacity, "seed \(seed) t \(t) \(c.cell.kind) \(recipe.name)")
      }
      // Rows not animating (sliding rows included): a translation to where the table
      // draws them, identity otherwise.
      for (k, _) in f.rows.enumerated() where !f.animating[k] {
        let m = Array(f.matrices[(floats * k)..<(floats * k + floats)])
        let p = Float(f.events.rowPositions[k])
        let want: [Float] =
          floats == 6 ? (horizontal ? [1, 0, 0, 1, p, 0] : [1, 0, 0, 1, 0, p])
          : (0..<16).map { $0 % 5 == 0 ? 1 : ($0 == (horizontal ? 12 : 13) ? p : 0) }
        #expect(m == want, "t \(t) slot \(k)")
      }
      // Moved rows far from the visible ones: a translation to where they are drawn.
      for (k, m) in f.events.movingRows.enumerated() {
        let i = extra + k
        #expect(f.extraCells[i].kind == .moving && f.extraCells[i].row == m.row)
        let along = floats == 6 ? 6 * i + (horizontal ? 4 : 5) : 16 * i + (horizontal ? 12 : 13)
        let across = floats == 6 ? 6 * i + (horizontal ? 5 : 4) : 16 * i + (horizontal ? 13 : 12)
        transform.record(Double(f.extraMatrices[along]), m.y, "moving row \(m.row)")
        transform.record(Double(f.extraMatrices[across]), 0, "moving row \(m.row), across")
      }
      #expect(f.extraCells.count == extra + f.events.movingRows.count)
    }
    return (transform, opacity, seen)
  }

  @Test("row animations equal the reference, every style, both phase orders, both layouts, every lane width")
  func againstReference() throws {
    var kinds: [UpdateCell.Kind: Int] = [:]
    for (k, timing) in [UpdateTiming.uiKit, .recyclerView].enumerated() {
      for layout in [MatrixLayout.transform3D, .affine2D] {
        for lanes in LaneWidth.allCases {
          let (transform, opacity, seen) = try run(seed: UInt64(k + 1), timing: timing, layout: layout, lanes: lanes)
          #expect(transform.passed, "\(transform)")
          #expect(opacity.passed, "\(opacity)")
          print("updates \(timing.order) \(layout) \(lanes): \(transform); \(opacity)")
          kinds.merge(seen, uniquingKeysWith: +)
        }
      }
    }
    // Every kind of row animation was drawn and compared.
    for kind in UpdateCell.Kind.allCases { #expect(kinds[kind, default: 0] > 20, "\(kind): \(kinds[kind, default: 0])") }
  }

  @Test("A horizontal table: row animations equal the reference with the rows along x, both layouts and phase orders")
  func horizontalAgainstReference() throws {
    var kinds: [UpdateCell.Kind: Int] = [:]
    for (k, timing) in [UpdateTiming.uiKit, .recyclerView].enumerated() {
      for layout in [MatrixLayout.transform3D, .affine2D] {
        let (transform, opacity, seen) = try run(
          seed: UInt64(k + 11), timing: timing, layout: layout, lanes: .simd8, axis: .horizontal)
        #expect(transform.passed, "\(transform)")
        #expect(opacity.passed, "\(opacity)")
        print("horizontal updates \(timing.order) \(layout): \(transform); \(opacity)")
        kinds.merge(seen, uniquingKeysWith: +)
      }
    }
    for kind in UpdateCell.Kind.allCases { #expect(kinds[kind, default: 0] > 10, "\(kind): \(kinds[kind, default: 0])") }
  }

  @Test("appearance animations follow their rows through a batch, and the table settles")
  func appearancesFollowRows() throws {
    let sim = try TableSimulation(
      layout: try TableLayout(rowCount: 200, rowHeight: 50), viewportHeight: 500, scroll: try .stationary(at: 0),
      rule: .firstAppearanceOnly)
    var animator = try TableAnimator(simulation: sim, recipes: TableRecipes(first: .fadeIn), cellWidth: 320)
    try animator.step(to: 0)
    #expect(Array(animator.batch.row) == Array(0..<10))
    var u = RowUpdate()
    u.insertRows(at: [0, 1], height: 50)
    u.deleteRows(at: [4])
    try animator.performBatchUpdates(u, at: 0.1)
    #expect(Array(animator.batch.row) == [2, 3, 4, 5, 6, 7, 8, 9, 10])
    try animator.step(to: 0.2)
    #expect(!animator.isSettled)
    try animator.step(to: 5)
    #expect(animator.isSettled && animator.frame.extraCells.isEmpty)
  }
}
