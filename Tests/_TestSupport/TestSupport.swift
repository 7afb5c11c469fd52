// Shared helpers for the test bundles: a seeded generator whose seed is printed on
// failure, and an error tracker that records the worst error against a tolerance.

#if canImport(Glibc)
  import Glibc
#endif

/// SplitMix64: small, fast, reproducible. Tests print the seed so failures replay.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  public private(set) var state: UInt64
  public let seed: UInt64
  public init(seed: UInt64) {
    self.seed = seed
    self.state = seed
  }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// Uniform Double in the range.
  public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
    Double.random(in: range, using: &self)
  }
}

/// The larger of two errors where a NaN counts as infinitely large: `Swift.max(1, .nan)` is
/// 1, so a running maximum built with `max` would let a NaN result pass its tolerance.
public func worstOf<T: FloatingPoint>(_ worst: T, _ error: T) -> T {
  if worst.isNaN || error.isNaN { return .infinity }
  return Swift.max(worst, error)
}

/// Tracks the worst absolute error seen and where, for reporting and asserting.
public struct ErrorTracker: Sendable, CustomStringConvertible {
  public let name: String
  public let tolerance: Double
  public private(set) var worst: Double = 0
  public private(set) var worstContext: String = ""
  public private(set) var count: Int = 0
  public init(_ name: String, tolerance: Double) {
    self.name = name
    self.tolerance = tolerance
  }
  /// Records |actual - expected|; NaN counts as an infinite error.
  public mutating func record(_ actual: Double, _ expected: Double, _ context: @autoclosure () -> String = "") {
    let e = (actual - expected).magnitude
    let err = e.isNaN ? Double.infinity : e
    count += 1
    if err > worst || (err.isInfinite && !worst.isInfinite) {
      worst = err
      worstContext = "\(context()) actual=\(actual) expected=\(expected)"
    }
  }
  public var passed: Bool { worst <= tolerance && count > 0 }
  public var description: String {
    "\(name): worst error \(worst) (tolerance \(tolerance)) over \(count) values; worst at \(worstContext)"
  }
}

/// How much of each randomised sweep a test run draws.
///
/// `swift test` (the README's test command) runs the quick sweep: every preset, lane width
/// and awkward size, with fewer random rounds and samples, so the loop on a fresh clone
/// stays under three minutes in a debug build. `CELLMOTION_EXHAUSTIVE=1` runs the full
/// sweeps (CI does, on an optimised build: `Tools/exhaustive-tests.sh`). Tolerances are the
/// same in both; only the number of draws changes.
public enum Sweep {
  /// Whether `CELLMOTION_EXHAUSTIVE=1` is set.
  public static let exhaustive: Bool = {
    guard let value = getenv("CELLMOTION_EXHAUSTIVE") else { return false }
    return String(cString: value) == "1"
  }()

  /// `quick` in the quick sweep, `full` in the exhaustive one.
  public static func count(quick: Int, full: Int) -> Int { exhaustive ? full : quick }

  /// `quick` in the quick sweep, `full` in the exhaustive one.
  public static func pick<T>(quick: T, full: T) -> T { exhaustive ? full : quick }
}
