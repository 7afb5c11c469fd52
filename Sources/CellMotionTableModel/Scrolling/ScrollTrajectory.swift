// Scroll offset as a function of time: scripted keyframes, constant velocity, or a fling
// that decelerates like UIScrollView.
//
// Goals, in priority order:
// 1. Closed forms evaluated directly at any time: every frame rate gives the same offset
//    at the same instant, and frames are independent.
// 2. The fling is the continuous version of UIScrollView's per-millisecond velocity factor
//    (derivation below), stops at a documented speed, and never leaves its limits.
//
// Fling derivation. UIScrollView.DecelerationRate is the factor applied to the velocity
// every millisecond: v_{n+1} = r v_n (r = 0.998 normal, 0.99 fast). After t seconds
// (1000 t milliseconds) v(t) = v0 r^(1000 t) = v0 e^(k t) with k = 1000 ln r < 0 (per
// second); this agrees with the discrete factor exactly at every millisecond. Integrating,
//   offset(t) = o0 + integral_0^t v0 e^(k s) ds = o0 + v0 (e^(k t) - 1) / k
//             = o0 + v0 (r^(1000 t) - 1) / (1000 ln r),
// evaluated with expm1 for accuracy at small t. The total travel as t -> infinity is
// -v0 / k = v0 / (1000 ln(1/r)): 0.4995 s x v0 at .normal, 0.0995 s x v0 at .fast.
// Stepping the discrete factor with offset += v_n * 1 ms (forward Euler) travels
// (-ln r) / (1 - r) less: 0.1 % short at .normal, 0.5 % at .fast.

import CellMotion

/// UIScrollView's deceleration rate: the factor applied to the scroll velocity every
/// millisecond, in (0, 1).
public struct DecelerationRate: Sendable, Equatable {
  /// The per-millisecond velocity factor, in (0, 1).
  public let perMillisecond: Double

  /// A rate with the given per-millisecond factor.
  ///
  /// - Throws: `CellMotionError` unless `0 < perMillisecond < 1`.
  public init(perMillisecond: Double) throws(CellMotionError) {
    try Check.finite(perMillisecond, "perMillisecond")
    guard perMillisecond > 0, perMillisecond < 1 else {
      throw .outOfRange(field: "perMillisecond", value: perMillisecond, expected: "in (0, 1)")
    }
    self.perMillisecond = perMillisecond
  }

  private init(unchecked value: Double) { self.perMillisecond = value }

  /// `UIScrollView.DecelerationRate.normal`: 0.998 per millisecond.
  public static let normal = DecelerationRate(unchecked: 0.998)
  /// `UIScrollView.DecelerationRate.fast`: 0.99 per millisecond.
  public static let fast = DecelerationRate(unchecked: 0.99)

  /// The continuous decay constant k = 1000 ln r, per second (negative).
  public var decayPerSecond: Double { 1000 * _log(perMillisecond) }
}

/// A scroll offset (points, y of the viewport's top edge in content coordinates) as a
/// function of time (seconds).
///
/// Build one with `keyframes(_:)`, `constantVelocity(from:velocity:startTime:limits:)`,
/// `fling(from:velocity:rate:startTime:limits:stopSpeed:)` or `stationary(at:)`; all
/// validate their inputs, after which `offset(at:)` never fails.
public struct ScrollTrajectory: Sendable, Equatable {
  private enum Kind: Sendable, Equatable {
    /// Strictly increasing times (seconds) and their offsets (points).
    case keyframes(times: [Double], offsets: [Double])
    case constant(origin: Double, velocity: Double, startTime: Double)
    /// k = 1000 ln r per second.
    case fling(origin: Double, velocity: Double, startTime: Double, k: Double)
  }

  private let kind: Kind
  /// Offsets are clamped to this range, in points (unbounded for keyframes).
  public let limits: ClosedRange<Double>
  /// The time in seconds from which the offset no longer changes (`.infinity` if it never
  /// settles, e.g. an unbounded constant velocity).
  public let endTime: Double

  private init(kind: Kind, limits: ClosedRange<Double>, endTime: Double) {
    self.kind = kind
    self.limits = limits
    self.endTime = endTime
  }

  private static let unbounded: ClosedRange<Double> = -Double.infinity...Double.infinity

  private static func checkLimits(_ limits: ClosedRange<Double>?) throws(CellMotionError)
    -> ClosedRange<Double>
  {
    guard let limits else { return unbounded }
    try Check.within(limits.lowerBound, InputLimits.scrollOffset, "limits.lowerBound")
    try Check.within(limits.upperBound, InputLimits.scrollOffset, "limits.upperBound")
    return limits
  }

  /// A trajectory that stays at `offset` points forever.
  ///
  /// - Throws: `CellMotionError.notFinite` for a NaN or infinite offset.
  public static func stationary(at offset: Double) throws(CellMotionError) -> ScrollTrajectory {
    try keyframes([(time: 0, offset: offset)])
  }

  /// Scripted scrolling: the offset is linearly interpolated between keyframes
  /// `(time in seconds, offset in points)`, held at the first offset before the first
  /// time and at the last offset after the last time. Not clamped: script any offset,
  /// including rubber-band overshoot.
  ///
  /// - Throws: `CellMotionError.invalidCombination` for no keyframes or times not
  ///   strictly increasing; `.notFinite` for a NaN or infinite time or offset.
  /// - Complexity: O(k) to build; `offset(at:)` is O(log k).
  public static func keyframes(_ keyframes: [(time: Double, offset: Double)])
    throws(CellMotionError) -> ScrollTrajectory
  {
    guard !keyframes.isEmpty else {
      throw .invalidCombination(field: "keyframes", reason: "at least one keyframe is required")
    }
    var times = [Double]()
    var offsets = [Double]()
    times.reserveCapacity(keyframes.count)
    offsets.reserveCapacity(keyframes.count)
    for (i, key) in keyframes.enumerated() {
      try Check.time(key.time, "keyframes[\(i)].time")
      try Check.within(key.offset, InputLimits.scrollOffset, "keyframes[\(i)].offset")
      if let last = times.last, !(key.time > last) {
        throw .invalidCombination(
          field: "keyframes[\(i)].time",
          reason: "times must be strictly increasing (\(key.time) after \(last))")
      }
      times.append(key.time)
      offsets.append(key.offset)
    }
    return ScrollTrajectory(
      kind: .keyframes(times: times, offsets: offsets), limits: unbounded,
      endTime: times[times.count - 1])
  }

  /// Scrolling at a constant `velocity` (points per second, positive = content moves up,
  /// offset grows) from `offset` points at `startTime` seconds, clamped to `limits` if
  /// given. Before `startTime` the offset is `offset` (clamped).
  ///
  /// - Throws: `CellMotionError.notFinite` for NaN or infinite inputs.
  public static func constantVelocity(
    from offset: Double, velocity: Double, startTime: Double = 0,
    limits: ClosedRange<Double>? = nil
  ) throws(CellMotionError) -> ScrollTrajectory {
    try Check.within(offset, InputLimits.scrollOffset, "offset")
    try Check.within(velocity, InputLimits.scrollVelocity, "velocity")
    try Check.time(startTime, "startTime")
    let limits = try checkLimits(limits)
    let origin = min(max(offset, limits.lowerBound), limits.upperBound)
    let end: Double
    if velocity > 0 {
      end = startTime + (limits.upperBound - origin) / velocity
    } else if velocity < 0 {
      end = startTime + (limits.lowerBound - origin) / velocity
    } else {
      end = startTime
    }
    return ScrollTrajectory(
      kind: .constant(origin: origin, velocity: velocity, startTime: startTime), limits: limits,
      endTime: end)
  }

  /// A fling: released at `startTime` seconds at `offset` points with `velocity` points
  /// per second, decelerating like UIScrollView (the velocity is multiplied by
  /// `rate.perMillisecond` every millisecond, in its continuous form):
  ///
  ///     v(t)      = v0 r^(1000 t)
  ///     offset(t) = o0 + v0 (r^(1000 t) - 1) / (1000 ln r)        (t from startTime)
  ///
  /// It stops (offset frozen, velocity 0) at the first of: the speed dropping below
  /// `stopSpeed`, or the offset reaching an end of `limits`, where it stays (no rubber
  /// band). Stopping at `stopSpeed` skips the remaining travel `stopSpeed / (1000 ln(1/r))`
  /// (0.25 point at .normal with the default 0.5 points per second), which is never a
  /// jump: the offset simply stops changing. A starting offset outside `limits` is
  /// clamped first. Use `TableLayout.scrollRange(viewportHeight:)` for the limits
  /// `[0, contentHeight - viewportHeight]`.
  ///
  /// - Parameters:
  ///   - offset: release offset in points.
  ///   - velocity: release velocity in points per second (positive = offset grows).
  ///   - rate: the deceleration rate, `.normal` (0.998) by default.
  ///   - startTime: release time in seconds.
  ///   - limits: allowed offsets in points (finite bounds).
  ///   - stopSpeed: speed in points per second below which the fling stops, > 0 and not
  ///     subnormal (at least 2.2e-308).
  /// - Throws: `CellMotionError.notFinite` / `.outOfRange` for invalid inputs.
  public static func fling(
    from offset: Double, velocity: Double, rate: DecelerationRate = .normal,
    startTime: Double = 0, limits: ClosedRange<Double>, stopSpeed: Double = 0.5
  ) throws(CellMotionError) -> ScrollTrajectory {
    try Check.within(offset, InputLimits.scrollOffset, "offset")
    try Check.within(velocity, InputLimits.scrollVelocity, "velocity")
    try Check.time(startTime, "startTime")
    try Check.positive(stopSpeed, "stopSpeed")
    let limits = try checkLimits(limits)
    let origin = min(max(offset, limits.lowerBound), limits.upperBound)
    let k = rate.decayPerSecond
    // Time (from release) at which |v| falls to stopSpeed: |v0| e^(k t) = stopSpeed.
    var duration = velocity.magnitude > stopSpeed ? _log(stopSpeed / velocity.magnitude) / k : 0
    // Time at which the offset reaches the bound it is moving towards:
    // o0 + v0 expm1(k t) / k = bound  =>  t = log1p((bound - o0) k / v0) / k, when the
    // argument of log1p is > -1 (the bound is nearer than the total travel -v0 / k).
    if velocity != 0 {
      let bound = velocity > 0 ? limits.upperBound : limits.lowerBound
      let argument = (bound - origin) * k / velocity
      if argument > -1 {
        duration = min(duration, max(0, _log1p(argument) / k))
      }
    }
    return ScrollTrajectory(
      kind: .fling(origin: origin, velocity: velocity, startTime: startTime, k: k),
      limits: limits, endTime: startTime + duration)
  }

  /// The scroll offset in points at `time` seconds.
  ///
  /// - Complexity: O(1); O(log k) for k keyframes.
  public func offset(at time: Double) -> Double {
    switch kind {
    case .keyframes(let times, let offsets):
      if time <= times[0] { return offsets[0] }
      let last = times.count - 1
      if time >= times[last] { return offsets[last] }
      // First keyframe strictly after `time`; 1...last because of the checks above.
      let j = times.withUnsafeBufferPointer { t in _partitionPoint(t.count) { t[$0] > time } }
      let t0 = times[j - 1]
      let t1 = times[j]
      let u = (time - t0) / (t1 - t0)
      return offsets[j - 1] + (offsets[j] - offsets[j - 1]) * u
    case .constant(let origin, let velocity, let startTime):
      let t = min(max(time, startTime), endTime) - startTime
      return clamp(origin + velocity * t)
    case .fling(let origin, let velocity, let startTime, let k):
      let t = min(max(time, startTime), endTime) - startTime
      return clamp(origin + velocity * _expm1(k * t) / k)
    }
  }

  /// The scroll velocity in points per second at `time` seconds: 0 before the start and
  /// from `endTime` on; for keyframes, the slope of the segment containing `time`
  /// (right-continuous at keyframes).
  ///
  /// - Complexity: O(1); O(log k) for k keyframes.
  public func velocity(at time: Double) -> Double {
    switch kind {
    case .keyframes(let times, let offsets):
      let last = times.count - 1
      if time < times[0] || time >= times[last] { return 0 }
      let j = times.withUnsafeBufferPointer { t in _partitionPoint(t.count) { t[$0] > time } }
      return (offsets[j] - offsets[j - 1]) / (times[j] - times[j - 1])
    case .constant(_, let velocity, let startTime):
      return time >= startTime && time < endTime ? velocity : 0
    case .fling(_, let velocity, let startTime, let k):
      return time >= startTime && time < endTime ? velocity * _exp(k * (time - startTime)) : 0
    }
  }

  @inline(__always)
  private func clamp(_ offset: Double) -> Double {
    min(max(offset, limits.lowerBound), limits.upperBound)
  }
}
