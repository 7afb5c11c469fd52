// The scroll-session scenario (table issue): a fling through 1,000,000 rows at 120 Hz with
// the tip-in recipe, every frame through the TableAnimator (table simulation, display
// events, kernel, row placement). Each frame is timed on its own, so the report has the
// per-frame distribution and the worst frame, plus allocations per frame in steady state.

import CellMotion
import CellMotionKernel
import CellMotionTable
import Foundation
import _AllocCounter

struct ScrollSessionResult: Codable {
  var rows: Int
  var rate: Double
  var frames: Int
  var visibleRowsMedian: Double
  var animatingCellsMax: Int
  var frameMedianMicroseconds: Double
  var frameP99Microseconds: Double
  var worstFrameMicroseconds: Double
  var worstFrameIndex: Int
  var frameBudgetShareMedian: Double
  var allocationsPerFrameSteadyState: Double
  var scrolledPoints: Double

  var summary: String {
    func f(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
    return """
      scroll session: fling through \(rows) rows at \(Int(rate)) Hz, tip-in, \(frames) frames, \
      \(f(scrolledPoints, 0)) points scrolled
        per frame: median \(f(frameMedianMicroseconds)) us (\(f(frameBudgetShareMedian * 100, 2))% of 8.33 ms), \
      p99 \(f(frameP99Microseconds)) us, worst \(f(worstFrameMicroseconds)) us (frame \(worstFrameIndex))
        visible rows (median) \(f(visibleRowsMedian, 0)), animations in flight (max) \(animatingCellsMax), \
      allocations per frame (steady state) \(f(allocationsPerFrameSteadyState, 2))
      """
  }
}

enum ScrollSession {
  /// Runs the session: `seconds` of frames at `rate` Hz. The first 0.25 s of frames warm
  /// up the arrays (capacity growth) and are excluded from the allocation count.
  static func run(rows: Int = 1_000_000, rate: Double = 120, seconds: Double = 4) throws -> ScrollSessionResult {
    var g = BenchRandom(seed: 2026)
    let heights = (0..<rows).map { _ in Double(g.float(44, 120)) }
    let layout = try TableLayout(rowHeights: heights)
    let viewport = 844.0
    let limits = try layout.scrollRange(viewportHeight: viewport)
    // A hard fling (UIScrollView tops out around 8,000 pt/s), flung again every 0.4 s as
    // a user keeps swiping through a long list (each swipe starts from where the previous
    // one has got to, at full speed again).
    var flingStart = 0.0
    let sim = try TableSimulation(
      layout: layout, viewportHeight: viewport,
      scroll: .fling(from: 0, velocity: 8000, startTime: 0, limits: limits), rule: .firstAppearanceOnly)
    var animator = try TableAnimator(
      simulation: sim, recipes: TableRecipes(first: .tipIn), cellWidth: 390, capacity: 512)
    let frames = Int(seconds * rate)
    var times: [Double] = []
    times.reserveCapacity(frames)
    var visible: [Double] = []
    visible.reserveCapacity(frames)
    var maxAnimating = 0
    var allocations = 0
    var counted = 0
    let warmup = Int(0.25 * rate)
    var lastOffset = 0.0
    for n in 0..<frames {
      let t = Double(n) / rate
      let traj = animator.simulation.scroll
      if t - flingStart >= 0.4 {
        flingStart = t
        animator.setScroll(
          try .fling(from: traj.offset(at: t), velocity: 8000, startTime: t, limits: limits))
      }
      let a0 = cm_alloc_count()
      let c0 = monotonicNanoseconds()
      try animator.step(to: t)
      let c1 = monotonicNanoseconds()
      let a1 = cm_alloc_count()
      if n >= warmup {
        allocations += Int(a1 &- a0)
        counted += 1
      }
      times.append(Double(c1 - c0) / 1000)
      visible.append(Double(animator.frame.rows.count))
      maxAnimating = max(maxAnimating, animator.batch.count)
      lastOffset = animator.frame.events.scrollOffset
      blackHole(animator.frame.matrices.first)
    }
    var worst = 0
    for i in times.indices where times[i] > times[worst] { worst = i }
    let sorted = times.sorted()
    let median = Statistics.median(sorted)
    return ScrollSessionResult(
      rows: rows, rate: rate, frames: frames, visibleRowsMedian: Statistics.median(visible.sorted()),
      animatingCellsMax: maxAnimating, frameMedianMicroseconds: median,
      frameP99Microseconds: Statistics.quantile(sorted, 0.99), worstFrameMicroseconds: times[worst],
      worstFrameIndex: worst, frameBudgetShareMedian: median / 8333.3,
      allocationsPerFrameSteadyState: counted > 0 ? Double(allocations) / Double(counted) : 0,
      scrolledPoints: lastOffset)
  }
}
