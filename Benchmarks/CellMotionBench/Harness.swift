// The measurement harness: scenarios (setup excluded from timing, a timed run closure),
// calibrated repeated samples, robust statistics and per-run heap allocation counts.
//
// Adding a scenario: write a function returning `[Scenario]` (see StageScenarios.swift),
// and list it in `ScenarioCatalog.families`. A scenario's `setup` allocates and fills its
// buffers and returns the closure to time; that closure must evaluate exactly `cells`
// cells per call, allocate nothing, and send something to `blackHole` (or write through
// an unsafe pointer) so the optimiser keeps the work.

import _AllocCounter

#if canImport(Glibc)
  import Glibc
#endif

// MARK: - Scenario

/// One thing to measure at one size.
struct Scenario {
  /// Family of comparable variants, e.g. "compose"; ratios are taken within a group.
  var group: String
  /// Implementation, e.g. "simd", "blas", "glm". The first variant registered for a group
  /// is the group's reference for ratios.
  var variant: String
  /// Cells evaluated per call of the run closure (N).
  var cells: Int
  /// Output bytes each cell writes (hand-counted; see the family's work table).
  var bytesWrittenPerCell: Int
  /// Floating-point operations per cell (hand-counted; see the family's work table).
  var flopsPerCell: Int
  /// The variant other variants of the group are compared with (ratio = other / this);
  /// if no variant of a group sets it, the first registered one is used.
  var isRatioReference: Bool = false
  /// Free text printed with --json (formulation, caveats).
  var note: String = ""
  /// Excluded from timing: allocates and fills inputs, returns the closure to time.
  var setup: () throws -> () -> Void

  var name: String { "\(group)/\(variant)" }
}

/// Timing policy for every scenario of a run.
struct TimingPolicy {
  /// Samples wanted per scenario (each sample = `runsPerSample` calls).
  var samples: Int = 31
  /// A sample lasts at least this long (calls are batched below it), seconds.
  var minimumSampleSeconds: Double = 200e-6
  /// Warm-up duration before sampling, seconds.
  var warmupSeconds: Double = 0.03
  /// Stop sampling a scenario once this much time was spent on it, seconds (at least
  /// `minimumSamples` samples are still taken).
  var maximumScenarioSeconds: Double = 0.8
  var minimumSamples: Int = 5
  /// Callgrind mode: no calibration, one warm-up call, then exactly this many timed calls.
  var exactRuns: Int? = nil

  static let quick = TimingPolicy(
    samples: 9, minimumSampleSeconds: 100e-6, warmupSeconds: 0.01,
    maximumScenarioSeconds: 0.12, minimumSamples: 3)
}

/// The measured result of one scenario.
struct Measurement: Codable {
  var name: String
  var group: String
  var variant: String
  var cells: Int
  var samples: Int
  var runsPerSample: Int
  /// Cells evaluated inside `timedCall` in total (warm-up included), for callgrind.
  var cellsEvaluated: Int
  var medianNsPerCell: Double
  var minNsPerCell: Double
  var p10NsPerCell: Double
  var p90NsPerCell: Double
  /// Median absolute deviation of the samples, ns per cell.
  var madNsPerCell: Double
  var cellsPerSecond: Double
  /// Median time of one run (all `cells`) over the 120 Hz frame budget (8.333 ms).
  var frameBudgetShare: Double
  /// Heap allocations per timed run (through _AllocCounter); should be 0.
  var allocationsPerRun: Double
  var bytesWrittenPerCell: Int
  var flopsPerCell: Int
  /// Achieved output bandwidth over the measured DRAM store bandwidth (> 1: in cache).
  var storeRooflineFraction: Double
  /// Achieved flop rate over the measured single-core SIMD8 FMA peak.
  var flopsRooflineFraction: Double
  var note: String
}

// MARK: - Black hole and clock

/// Keeps a value alive for the optimiser: the call is opaque and never inlined.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

/// The only place a scenario's run closure is called while measuring: callgrind's
/// `--toggle-collect='*timedCall*'` counts exactly the scenarios' work.
@inline(never)
func timedCall(_ run: () -> Void) { run() }

/// Monotonic clock in nanoseconds (CLOCK_MONOTONIC).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}

/// Minor page faults the process has taken so far (`getrusage`): first touches of memory
/// new to it, each a trap into the kernel that zeroes and maps a page.
func minorPageFaults() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_minflt
}

// MARK: - Aligned buffers

/// A 64-byte aligned Float buffer owned by a scenario's closures, freed with them.
final class FloatBuffer {
  let pointer: UnsafeMutableBufferPointer<Float>
  init(count: Int, fill: (Int) -> Float = { _ in 0 }) {
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
    let typed = raw.bindMemory(to: Float.self, capacity: max(count, 1))
    pointer = UnsafeMutableBufferPointer(start: typed, count: count)
    for i in 0..<count { pointer[i] = fill(i) }
  }
  var readOnly: UnsafeBufferPointer<Float> { UnsafeBufferPointer(pointer) }
  deinit { pointer.baseAddress.map { UnsafeMutableRawPointer($0).deallocate() } }
}

// MARK: - Statistics

enum Statistics {
  /// Linear-interpolated quantile of sorted values, q in [0, 1].
  static func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let position = q * Double(sorted.count - 1)
    let lower = Int(position.rounded(.down)), upper = min(lower + 1, sorted.count - 1)
    let t = position - Double(lower)
    return sorted[lower] * (1 - t) + sorted[upper] * t
  }
  static func median(_ sorted: [Double]) -> Double { quantile(sorted, 0.5) }
  static func mad(_ values: [Double]) -> Double {
    let m = median(values.sorted())
    return median(values.map { abs($0 - m) }.sorted())
  }
}

// MARK: - Runner

/// 120 Hz frame budget, nanoseconds.
let frameBudgetNanoseconds = 1e9 / 120

struct Runner {
  var policy: TimingPolicy
  var machine: MachinePeaks

  /// Warms `run` up (caches, page faults, lazy binding) for `warmupSeconds` and returns the
  /// calls a sample takes to last at least `minimumSampleSeconds`, and the warm-up's calls.
  func calibrate(_ run: () -> Void) -> (runsPerSample: Int, warmCalls: Int) {
    let start = monotonicNanoseconds()
    var calls = 0
    repeat {
      timedCall(run)
      calls += 1
    } while Double(monotonicNanoseconds() - start) < policy.warmupSeconds * 1e9
    let perCall = Double(monotonicNanoseconds() - start) / Double(calls)
    return (max(1, Int((policy.minimumSampleSeconds * 1e9 / max(perCall, 1)).rounded(.up))), calls)
  }

  func measure(_ scenario: Scenario) throws -> Measurement {
    let run = try scenario.setup()
    let cells = scenario.cells
    var cellsEvaluated = 0
    var samples: [Double] = []  // ns per run
    samples.reserveCapacity(max(policy.samples, policy.exactRuns ?? 0) + 1)
    var allocations: UInt64 = 0
    var timedRuns = 0
    var runsPerSample = 1

    if let exact = policy.exactRuns {
      timedCall(run)
      cellsEvaluated += cells
      for _ in 0..<exact {
        let a0 = cm_alloc_count()
        let t0 = monotonicNanoseconds()
        timedCall(run)
        let t1 = monotonicNanoseconds()
        allocations += cm_alloc_count() &- a0
        samples.append(Double(t1 - t0))
        timedRuns += 1
        cellsEvaluated += cells
      }
    } else {
      let warmCalls: Int
      (runsPerSample, warmCalls) = calibrate(run)
      cellsEvaluated += warmCalls * cells

      let start = monotonicNanoseconds()
      while samples.count < policy.samples {
        let a0 = cm_alloc_count()
        let t0 = monotonicNanoseconds()
        for _ in 0..<runsPerSample { timedCall(run) }
        let t1 = monotonicNanoseconds()
        allocations += cm_alloc_count() &- a0
        samples.append(Double(t1 - t0) / Double(runsPerSample))
        timedRuns += runsPerSample
        cellsEvaluated += runsPerSample * cells
        let spent = Double(t1 - start) / 1e9
        if samples.count >= policy.minimumSamples && spent > policy.maximumScenarioSeconds { break }
      }
    }

    let perCell = samples.map { $0 / Double(max(cells, 1)) }
    let sorted = perCell.sorted()
    let median = Statistics.median(sorted)
    let runNs = median * Double(cells)
    let storeGBs = Double(scenario.bytesWrittenPerCell) / median  // bytes per ns = GB/s
    let gflops = Double(scenario.flopsPerCell) / median
    return Measurement(
      name: scenario.name, group: scenario.group, variant: scenario.variant, cells: cells,
      samples: samples.count, runsPerSample: runsPerSample, cellsEvaluated: cellsEvaluated,
      medianNsPerCell: median, minNsPerCell: sorted.first ?? .nan,
      p10NsPerCell: Statistics.quantile(sorted, 0.1), p90NsPerCell: Statistics.quantile(sorted, 0.9),
      madNsPerCell: Statistics.mad(perCell), cellsPerSecond: 1e9 / median,
      frameBudgetShare: runNs / frameBudgetNanoseconds,
      allocationsPerRun: Double(allocations) / Double(max(timedRuns, 1)),
      bytesWrittenPerCell: scenario.bytesWrittenPerCell, flopsPerCell: scenario.flopsPerCell,
      storeRooflineFraction: storeGBs / machine.storeBandwidthGBs,
      flopsRooflineFraction: gflops / machine.fmaPeakGFLOPs,
      note: scenario.note)
  }
}

// MARK: - Paired ratios

/// A scenario's time over a reference's, measured in alternating samples (`Runner.pair`).
struct PairedRatio: Codable {
  var scenario: String
  var reference: String
  var cells: Int
  /// Median over the pairs of (scenario ns per cell / reference ns per cell), each pair two
  /// back-to-back samples.
  var ratio: Double
  /// The pairs' 10th and 90th percentile ratios.
  var p10: Double
  var p90: Double
  var pairs: Int
}

extension Runner {
  /// `scenario` over `reference` with each sample of one next to a sample of the other (their
  /// order alternating), the median of the pairs' ratios: on a shared machine whose speed
  /// drifts by half within seconds, two medians taken seconds apart compare two machines;
  /// two samples taken back to back compare the code (issue 33's bar is a ratio).
  func pair(_ scenario: Scenario, against reference: Scenario) throws -> PairedRatio {
    let a = try scenario.setup(), b = try reference.setup()
    let runsA = calibrate(a).runsPerSample, runsB = calibrate(b).runsPerSample
    /// ns per cell of one sample.
    func sample(_ run: () -> Void, _ runs: Int, _ cells: Int) -> Double {
      let t0 = monotonicNanoseconds()
      for _ in 0..<runs { timedCall(run) }
      return Double(monotonicNanoseconds() - t0) / Double(runs * max(cells, 1))
    }
    var ratios: [Double] = []
    let count = max(policy.samples, policy.minimumSamples)
    for k in 0..<count {
      let x: Double, y: Double
      if k % 2 == 0 {
        x = sample(a, runsA, scenario.cells)
        y = sample(b, runsB, reference.cells)
      } else {
        y = sample(b, runsB, reference.cells)
        x = sample(a, runsA, scenario.cells)
      }
      ratios.append(x / y)
    }
    let sorted = ratios.sorted()
    return PairedRatio(
      scenario: scenario.name, reference: reference.name, cells: scenario.cells, ratio: Statistics.median(sorted),
      p10: Statistics.quantile(sorted, 0.1), p90: Statistics.quantile(sorted, 0.9), pairs: sorted.count)
  }
}

// MARK: - Catalog

enum ScenarioCatalog {
  /// Every scenario family. `sizes == nil` means each family's own default sizes.
  /// Add a family here (one line) to have it measured, filtered, reported and compared.
  static func families(sizes: [Int]?) -> [Scenario] {
    KernelScenarios.all(sizes: sizes)
      + TipInScenarios.all(sizes: sizes)
      + RetargetScenarios.all(sizes: sizes)
      + ScrollEffectScenarios.all(sizes: sizes)
      + StageScenarios.all(sizes: sizes)
      + VectorMathScenarios.all(sizes: sizes)
  }
}
