// The scroll-session scenarios (table issues): every frame through the TableAnimator (table
// simulation, display events, kernel, row placement) at 120 Hz with the tip-in recipe on
// 1,000,000 rows. Each frame is timed on its own, so the report has the per-frame
// distribution, the first frame (every visible row appears in it) and the worst frame,
// plus allocations per frame in steady state.
//
// - `scrollSession`: a phone-sized viewport (844 points, about 11 rows) flung hard and
//   flung again every 0.4 s.
// - `denseScrollSession` (issue 32): a tall viewport showing about 10,000 rows (820,000
//   points of rows 44-120 points tall) scrolled at a constant 240,000 points per second,
//   so about 24 rows appear in every frame and about 1,200 tip-in animations are in flight
//   at any time, beside the 10,000 rows drawn as translations. Its first frame starts
//   10,000 animations at once.

import CellMotion
import CellMotionKernel
import CellMotionTable
import Foundation
import _AllocCounter

/// The kernel's tip-in time per cell (`tipIn/simd8` at 10,000 cells) measured just before
/// and just after a session: what the session's frames are compared with (the table issues'
/// bar: a frame at most twice the kernel's time for its rows). The scenario's own median,
/// taken a minute earlier in the run, came from another speed of this shared machine (tip-in
/// 3.3-5.1 ns a cell within minutes); the bracket is milliseconds from the frames.
struct KernelBracket {
  private let run: () -> Void
  private var samples: [Double] = []

  init() throws {
    // The one scenario (the catalog builds every other's too).
    run = try KernelScenarios.scenario(Recipe.tipIn, Self.cells, .simd8).setup()
  }

  static let cells = 10_000

  /// Times `count` calls (after two untimed ones), ns per cell each.
  mutating func sample(_ count: Int = 15) {
    run()
    run()
    for _ in 0..<count {
      let t0 = monotonicNanoseconds()
      timedCall(run)
      samples.append(Double(monotonicNanoseconds() - t0) / Double(Self.cells))
    }
  }

  /// The median of every sample, ns per cell.
  var nanosecondsPerCell: Double { Statistics.median(samples.sorted()) }

  /// `frameMicroseconds` over the kernel's time for `rows` cells.
  func frameOverKernel(_ frameMicroseconds: Double, rows: Double) -> Double {
    frameMicroseconds * 1000 / (nanosecondsPerCell * rows)
  }
}

struct ScrollSessionResult: Codable {
  var rows: Int
  var rate: Double
  var frames: Int
  /// Viewport height, points.
  var viewportPoints: Double
  var visibleRowsMedian: Double
  var animatingCellsMax: Int
  /// Appearance animations in flight (the animator's batch), median over frames.
  var animatingCellsMedian: Double
  /// `TableAnimator.init` for the session's capacity (its buffers made resident).
  var initMicroseconds: Double
  /// The first frame: every visible row appears and starts its animation.
  var firstFrameMicroseconds: Double
  var frameMedianMicroseconds: Double
  var frameP99Microseconds: Double
  var worstFrameMicroseconds: Double
  var worstFrameIndex: Int
  var frameBudgetShareMedian: Double
  var allocationsPerFrameSteadyState: Double
  var scrolledPoints: Double
  /// The kernel's tip-in ns per cell measured around the session (`KernelBracket`), and the
  /// median frame over its time for the median visible rows (the bar: at most 2).
  var kernelNanosecondsPerCell: Double
  var frameOverKernel: Double

  func summary(_ title: String) -> String {
    func f(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }
    return """
      \(title): \(rows) rows, viewport \(f(viewportPoints, 0)) points, \(Int(rate)) Hz, tip-in, \(frames) frames, \
      \(f(scrolledPoints, 0)) points scrolled
        init \(f(initMicroseconds)) us, first frame \(f(firstFrameMicroseconds)) us; per frame: median \(f(frameMedianMicroseconds)) us \
      (\(f(frameBudgetShareMedian * 100, 2))% of 8.33 ms; \(f(frameOverKernel, 2))x the kernel's tip-in for the visible \
      rows, \(f(kernelNanosecondsPerCell, 2)) ns a cell measured around the session), p99 \(f(frameP99Microseconds)) us, worst \
      \(f(worstFrameMicroseconds)) us (frame \(worstFrameIndex))
        visible rows (median) \(f(visibleRowsMedian, 0)), animations in flight (median) \(f(animatingCellsMedian, 0)), \
      (max) \(animatingCellsMax), allocations per frame (steady state) \(f(allocationsPerFrameSteadyState, 2))
      """
  }
}

enum ScrollSession {
  /// How the session scrolls.
  enum Motion {
    /// A fling at `velocity` points per second, flung again every 0.4 s from where it got.
    case flings(velocity: Double)
    /// A constant velocity, points per second.
    case constant(velocity: Double)
  }

  /// The phone-sized session (`scrollSession`).
  static func phone() throws -> ScrollSessionResult {
    try run(rows: 1_000_000, viewport: 844, motion: .flings(velocity: 8000), capacity: 512)
  }

  /// The dense session (`denseScrollSession`): about 10,000 visible rows, rows appearing
  /// in every frame.
  static func dense() throws -> ScrollSessionResult {
    try run(rows: 1_000_000, viewport: 820_000, motion: .constant(velocity: 240_000), capacity: 16_384)
  }

  /// The dense session with a scroll effect on every visible row
  /// (`denseScrollEffectSession`, issue 33): SwiftUI's edge fade and scale.
  static func denseWithEffect() throws -> ScrollSessionResult {
    try run(
      rows: 1_000_000, viewport: 820_000, motion: .constant(velocity: 240_000), capacity: 16_384,
      effect: .edgeFadeScale())
  }

  /// Runs a session: `seconds` of frames at `rate` Hz. The first 0.25 s of frames warm up
  /// the arrays (capacity growth) and are excluded from the allocation count. `effect`: a
  /// scroll effect on every visible row (`TableAnimator.setScrollEffect`).
  static func run(
    rows: Int, viewport: Double, motion: Motion, capacity: Int, rate: Double = 120, seconds: Double = 4,
    effect: ScrollEffect? = nil
  ) throws -> ScrollSessionResult {
    var g = BenchRandom(seed: 2026)
    let heights = (0..<rows).map { _ in Double(g.float(44, 120)) }
    let layout = try TableLayout(rowHeights: heights)
    let limits = try layout.scrollRange(viewportHeight: viewport)
    var flingStart = 0.0
    let scroll: ScrollTrajectory
    switch motion {
    case .flings(let v): scroll = try .fling(from: 0, velocity: v, startTime: 0, limits: limits)
    case .constant(let v): scroll = try .constantVelocity(from: 0, velocity: v, startTime: 0, limits: limits)
    }
    let sim = try TableSimulation(layout: layout, viewportHeight: viewport, scroll: scroll, rule: .firstAppearanceOnly)
    // The kernel's reference before the animator is made (as in the update session).
    var kernel = try KernelBracket()
    kernel.sample()
    let i0 = monotonicNanoseconds()
    var animator = try TableAnimator(
      simulation: sim, recipes: TableRecipes(first: .tipIn), cellWidth: 390, capacity: capacity, scrollEffect: effect)
    let initMicroseconds = Double(monotonicNanoseconds() - i0) / 1000
    let frames = Int(seconds * rate)
    var times: [Double] = []
    times.reserveCapacity(frames)
    var visible: [Double] = []
    visible.reserveCapacity(frames)
    var animating: [Double] = []
    animating.reserveCapacity(frames)
    var maxAnimating = 0
    var allocations = 0
    var counted = 0
    let warmup = Int(0.25 * rate)
    var lastOffset = 0.0
    for n in 0..<frames {
      let t = Double(n) / rate
      if case .flings(let v) = motion, t - flingStart >= 0.4 {
        // A user keeps swiping through a long list: each swipe starts from where the
        // previous one has got to, at full speed again.
        let traj = animator.simulation.scroll
        flingStart = t
        animator.setScroll(try .fling(from: traj.offset(at: t), velocity: v, startTime: t, limits: limits))
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
      animating.append(Double(animator.batch.count))
      maxAnimating = max(maxAnimating, animator.batch.count)
      lastOffset = animator.frame.events.scrollOffset
      blackHole(animator.frame.matrices.first)
    }
    kernel.sample()
    var worst = 0
    for i in times.indices where times[i] > times[worst] { worst = i }
    let sorted = times.sorted()
    let median = Statistics.median(sorted)
    let visibleMedian = Statistics.median(visible.sorted())
    return ScrollSessionResult(
      rows: rows, rate: rate, frames: frames, viewportPoints: viewport,
      visibleRowsMedian: visibleMedian, animatingCellsMax: maxAnimating,
      animatingCellsMedian: Statistics.median(animating.sorted()), initMicroseconds: initMicroseconds,
      firstFrameMicroseconds: times[0],
      frameMedianMicroseconds: median, frameP99Microseconds: Statistics.quantile(sorted, 0.99),
      worstFrameMicroseconds: times[worst], worstFrameIndex: worst, frameBudgetShareMedian: median / 8333.3,
      allocationsPerFrameSteadyState: counted > 0 ? Double(allocations) / Double(counted) : 0,
      scrolledPoints: lastOffset, kernelNanosecondsPerCell: kernel.nanosecondsPerCell,
      frameOverKernel: kernel.frameOverKernel(median, rows: visibleMedian))
  }
}
