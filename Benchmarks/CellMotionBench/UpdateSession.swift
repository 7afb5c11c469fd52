// The update-session scenario (table updates issue): a 1,000,000-row table on a tall
// display showing about 10,000 rows at once, hit by batch updates of 1,000 insertions and
// 1,000 deletions spread over the whole table, two of them landing while the previous one
// still animates. Reports the update's own cost (validation, layout and identifier
// rebuild, index map: `TableRows.apply`) and the whole `performBatchUpdates` call, then
// every frame while the updates animate (simulation, slides, row animations through the
// kernel, row placement), timed one by one, and allocations per frame in steady state.

import CellMotion
import CellMotionKernel
import CellMotionTable
import Foundation
import _AllocCounter

struct UpdateSessionResult: Codable {
  var rows: Int
  var rate: Double
  var batches: Int
  var insertionsPerBatch: Int
  var deletionsPerBatch: Int
  var visibleRowsMedian: Double
  var rowAnimationsDrawnMax: Int
  var layoutDiffMillisecondsMedian: Double
  var layoutDiffMillisecondsMax: Double
  var updateCallMillisecondsMedian: Double
  var updateCallMillisecondsMax: Double
  var animatingFrames: Int
  var frameMedianMicroseconds: Double
  var frameP99Microseconds: Double
  var worstFrameMicroseconds: Double
  var allocationsPerFrameSteadyState: Double

  var summary: String {
    func f(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
    return """
      update session: \(rows) rows, \(f(visibleRowsMedian, 0)) visible (median), \(batches) batches of \
      \(insertionsPerBatch) insertions + \(deletionsPerBatch) deletions spread over the table, at \(Int(rate)) Hz
        update: layout diff (TableRows.apply) median \(f(layoutDiffMillisecondsMedian, 2)) ms, max \
      \(f(layoutDiffMillisecondsMax, 2)) ms; whole performBatchUpdates median \(f(updateCallMillisecondsMedian, 2)) ms, \
      max \(f(updateCallMillisecondsMax, 2)) ms
        per frame while animating (\(animatingFrames) frames): median \(f(frameMedianMicroseconds)) us, p99 \
      \(f(frameP99Microseconds)) us, worst \(f(worstFrameMicroseconds)) us; row animations drawn (max) \
      \(rowAnimationsDrawnMax), allocations per frame (steady state) \(f(allocationsPerFrameSteadyState, 2))
      """
  }
}

enum UpdateSession {
  /// A random batch: `count` deletions at distinct rows before it and `count` insertions at
  /// distinct rows after it, spread over the table.
  static func batch(rowCount: Int, count: Int, _ g: inout BenchRandom) -> RowUpdate {
    var deleted = Set<Int>()
    while deleted.count < count { deleted.insert(Int(g.next() % UInt64(rowCount))) }
    var inserted = Set<Int>()
    while inserted.count < count { inserted.insert(Int(g.next() % UInt64(rowCount))) }
    var u = RowUpdate()
    u.deleteRows(at: deleted.sorted(), with: .fade)
    u.insertRows(at: inserted.sorted(), height: 60, with: .right)
    return u
  }

  /// Runs the session: frames at `rate` Hz for 2 s; batches at 0.5 s, 0.65 s (on the first
  /// in flight), 1.2 s and 1.35 s. Frames within 2 frames after a batch count as warm-up
  /// for allocations (the per-frame arrays grow to the batch's size once).
  static func run(rows: Int = 1_000_000, rate: Double = 120, perBatch: Int = 1000) throws -> UpdateSessionResult {
    var g = BenchRandom(seed: 2027)
    let heights = (0..<rows).map { _ in Double(g.float(44, 120)) }
    // About 10,000 rows of 82 points on average.
    let viewport = 820_000.0
    let sim = try TableSimulation(
      layout: try TableLayout(rowHeights: heights), viewportHeight: viewport, scroll: try .stationary(at: 40_000_000),
      rule: .firstAppearanceOnly)
    var animator = try TableAnimator(
      simulation: sim, recipes: TableRecipes(first: .tipIn), cellWidth: 390, capacity: 16_384)
    let batchTimes = [0.5, 0.65, 1.2, 1.35]
    var diff: [Double] = []
    var call: [Double] = []
    var frames: [Double] = []
    var visible: [Double] = []
    var drawnMax = 0
    var allocations = 0
    var counted = 0
    var lastBatchFrame = -100
    for n in 0..<Int(2 * rate) {
      let t = Double(n) / rate
      if batchTimes.contains(where: { abs($0 - t) < 0.5 / rate }) {
        let u = batch(rowCount: animator.simulation.layout.rowCount, count: perBatch, &g)
        // The layout diff alone, on a copy of the rows.
        var rows = animator.simulation.rows
        let d0 = monotonicNanoseconds()
        try rows.apply(u)
        let d1 = monotonicNanoseconds()
        blackHole(rows.rowCount)
        let c0 = monotonicNanoseconds()
        try animator.performBatchUpdates(u, at: t)
        let c1 = monotonicNanoseconds()
        diff.append(Double(d1 - d0) / 1e6)
        call.append(Double(c1 - c0) / 1e6)
        lastBatchFrame = n
      }
      let a0 = cm_alloc_count()
      let c0 = monotonicNanoseconds()
      try animator.step(to: t)
      let c1 = monotonicNanoseconds()
      let a1 = cm_alloc_count()
      guard animator.simulation.updates.isAnimating(at: t) else { continue }
      frames.append(Double(c1 - c0) / 1000)
      visible.append(Double(animator.frame.rows.count))
      drawnMax = max(drawnMax, animator.frame.events.updateCells.count)
      if n > lastBatchFrame + 2 {
        allocations += Int(a1 &- a0)
        counted += 1
      }
      blackHole(animator.frame.matrices.last)
    }
    let sortedFrames = frames.sorted()
    return UpdateSessionResult(
      rows: rows, rate: rate, batches: batchTimes.count, insertionsPerBatch: perBatch, deletionsPerBatch: perBatch,
      visibleRowsMedian: Statistics.median(visible.sorted()), rowAnimationsDrawnMax: drawnMax,
      layoutDiffMillisecondsMedian: Statistics.median(diff.sorted()), layoutDiffMillisecondsMax: diff.max() ?? 0,
      updateCallMillisecondsMedian: Statistics.median(call.sorted()), updateCallMillisecondsMax: call.max() ?? 0,
      animatingFrames: frames.count, frameMedianMicroseconds: Statistics.median(sortedFrames),
      frameP99Microseconds: Statistics.quantile(sortedFrames, 0.99), worstFrameMicroseconds: sortedFrames.last ?? 0,
      allocationsPerFrameSteadyState: counted > 0 ? Double(allocations) / Double(counted) : 0)
  }
}
