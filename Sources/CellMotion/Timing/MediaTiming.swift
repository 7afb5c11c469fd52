// CAMediaTiming: mapping a parent time to an animation's local time.
//
// Goals, in priority order:
// 1. Follow "Media timing" in the Semantics article of the CellMotion documentation
//    exactly: t_a = (t_parent - beginTime) * speed + timeOffset; active duration =
//    repeatDuration if set, else D * max(repeatCount, 1) * (autoreverses ? 2 : 1);
//    k = floor(t_a / D), t_l = t_a - k D, reversed on odd k when autoreverses; fill modes
//    before / after.
// 2. Pin down the corner cases the formulas leave open (documented on `localTime`):
//    the exact end, timeOffset, and which times count as "before" and "after".
//
// Facts used: Apple's CAMediaTiming documentation (properties, fill modes, the
// t = (t_p - beginTime) * speed + timeOffset mapping) and D. Ronnqvist, "Controlling
// Animation Timing" (2013), for the observed wrap-around of timeOffset.

/// What an animation shows outside its active duration (CAMediaTimingFillMode).
public enum FillMode: String, Sendable, Codable, CaseIterable {
  /// No effect outside the active duration (kCAFillModeRemoved, the default).
  case removed
  /// Holds the end state after the active duration (kCAFillModeForwards).
  case forwards
  /// Holds the start state before the active duration (kCAFillModeBackwards).
  case backwards
  /// Both of the above (kCAFillModeBoth).
  case both

  /// Whether the start state is held before the beginning.
  public var fillsBackwards: Bool { self == .backwards || self == .both }
  /// Whether the end state is held after the end.
  public var fillsForwards: Bool { self == .forwards || self == .both }
}

/// CAMediaTiming: beginTime, duration, speed, timeOffset, repeatCount, repeatDuration,
/// autoreverses, fillMode. All times in seconds.
///
/// Conventions: `beginTime` is in the parent's time (for a UIView animation, "now" plus the
/// delay); `duration`, `timeOffset` and `repeatDuration` are in the animation's own
/// (speed-scaled) time. The fields are `var` for convenience; the initialiser validates
/// them, and `validate()` re-checks a value built by mutation.
public struct MediaTiming: Sendable, Hashable, Codable {
  /// Start of the active duration in parent time, seconds.
  public var beginTime: Double
  /// Length of one iteration D in local time, seconds (> 0).
  public var duration: Double
  /// Local seconds per parent second (> 0).
  public var speed: Double
  /// Added to the active time (local seconds); the animation starts part-way through and
  /// wraps around into the next iteration.
  public var timeOffset: Double
  /// Number of iterations (>= 0, may be fractional or +infinity; 0 means once).
  public var repeatCount: Double
  /// Active duration in local seconds when set (>= 0, may be +infinity); overrides
  /// `repeatCount`. Core Animation calls setting both undefined; here repeatDuration wins.
  public var repeatDuration: Double?
  /// Whether each iteration plays forwards then backwards (doubling the active duration).
  public var autoreverses: Bool
  /// What is shown outside the active duration.
  public var fillMode: FillMode

  /// Creates and validates a timing.
  ///
  /// - Throws: `.notFinite` / `.outOfRange` when beginTime or timeOffset is outside
  ///   `InputLimits.time`, duration outside `InputLimits.duration`, speed outside
  ///   `InputLimits.speed`, repeatCount is NaN or negative, or repeatDuration is NaN or
  ///   negative.
  ///
  /// Speed: Core Animation also accepts speed 0 (pausing a layer's time, usually with
  /// timeOffset to scrub) and negative speeds (time running backwards). Neither is
  /// modelled here: an animation evaluated frame by frame needs time to advance, and which
  /// parent times count as "active" under a negative speed is not documented. Both are
  /// rejected with `.outOfRange`.
  public init(
    beginTime: Double = 0, duration: Double, speed: Double = 1, timeOffset: Double = 0,
    repeatCount: Double = 0, repeatDuration: Double? = nil, autoreverses: Bool = false,
    fillMode: FillMode = .removed
  ) throws(CellMotionError) {
    self.beginTime = beginTime
    self.duration = duration
    self.speed = speed
    self.timeOffset = timeOffset
    self.repeatCount = repeatCount
    self.repeatDuration = repeatDuration
    self.autoreverses = autoreverses
    self.fillMode = fillMode
    try validate()
  }

  /// Checks the invariants stated on `init` (useful after mutating fields).
  public func validate() throws(CellMotionError) {
    try Check.time(beginTime, "beginTime")
    try Check.within(duration, InputLimits.duration, "duration")
    try Check.within(speed, InputLimits.speed, "speed")
    try Check.time(timeOffset, "timeOffset")
    try Self.nonNegativeOrInfinity(repeatCount, "repeatCount")
    if let repeatDuration { try Self.nonNegativeOrInfinity(repeatDuration, "repeatDuration") }
  }

  private static func nonNegativeOrInfinity(_ value: Double, _ field: String) throws(CellMotionError) {
    if value.isNaN { throw .notFinite(field: field, value: value) }
    guard value >= 0 else { throw .outOfRange(field: field, value: value, expected: ">= 0 (or +infinity)") }
  }

  /// How UIView delays work: beginTime = now + delay, fillMode `.backwards` (the start
  /// state shows during the delay), speed 1, one iteration.
  ///
  /// - Parameters: now, delay (>= 0) and duration (> 0) in seconds.
  /// - Throws: `.notFinite` / `.outOfRange` for invalid inputs.
  public static func delayed(start now: Double, delay: Double, duration: Double) throws(CellMotionError)
    -> MediaTiming
  {
    try Check.finite(now, "now")
    try Check.nonNegative(delay, "delay")
    return try MediaTiming(beginTime: now + delay, duration: duration, fillMode: .backwards)
  }

  /// Active duration in local seconds: repeatDuration if set, else
  /// D * max(repeatCount, 1) * (autoreverses ? 2 : 1). May be +infinity.
  public var activeDuration: Double {
    if let repeatDuration { return repeatDuration }
    return duration * max(repeatCount, 1) * (autoreverses ? 2 : 1)
  }

  /// Parent time at which the active duration ends: beginTime + activeDuration / speed
  /// (+infinity for endless animations), seconds.
  public var endTime: Double { beginTime + activeDuration / speed }

  /// Where a parent time falls relative to the active duration.
  public enum Phase: String, Sendable, Codable {
    case before, active, after
  }

  /// The phase at a parent time: elapsed e = (t_parent - beginTime) * speed is before when
  /// e < 0, after when e >= activeDuration, else active.
  public func phase(parentTime: Double) -> Phase {
    let elapsed = (parentTime - beginTime) * speed
    if elapsed < 0 { return .before }
    if elapsed >= activeDuration { return .after }
    return .active
  }

  /// Local time in [0, duration] for a parent time (seconds), or nil when the animation
  /// has no effect there.
  ///
  /// With elapsed e = (t_parent - beginTime) * speed and active time t_a = e + timeOffset
  /// (the Semantics article, "Media timing"):
  /// - e < 0 (before): the start state, i.e. the local time of t_a = timeOffset, when the
  ///   fill mode is backwards or both; else nil.
  /// - 0 <= e < activeDuration: k = floor(t_a / D), t_l = t_a - k D, and D - t_l when
  ///   autoreverses and k is odd.
  /// - e >= activeDuration (after): the end state when the fill mode is forwards or both;
  ///   else nil. The end state is evaluated at t_a = activeDuration + timeOffset; when that
  ///   is an exact multiple n D (n >= 1) it is the end of iteration n - 1 (t_l = D, or 0
  ///   when that iteration is reversed), not the start of iteration n.
  ///
  /// The active window is judged on e, not t_a, so a timeOffset does not shorten the
  /// animation: it starts part-way and wraps into the next iteration, as Core Animation
  /// is observed to do (Ronnqvist: frames C D E A B for an offset at C). NaN gives nil.
  /// - Complexity: O(1).
  public func localTime(parentTime: Double) -> Double? {
    guard duration > 0, speed > 0 else { return nil }  // only reachable after invalid mutation
    let elapsed = (parentTime - beginTime) * speed
    if elapsed.isNaN { return nil }
    let active = activeDuration
    if elapsed < 0 {
      return fillMode.fillsBackwards ? iterationTime(timeOffset, atEnd: false) : nil
    }
    if elapsed >= active {
      if !active.isFinite { return nil }  // t_parent = +infinity of an endless animation
      guard fillMode.fillsForwards else { return nil }
      if repeatDuration == nil && timeOffset == 0 {
        // The end of n = max(repeatCount, 1) x (autoreverses ? 2 : 1) iterations, counted in
        // iterations rather than through active / D: exact for the counts users write (1.5
        // gives 3 exactly), where active / D may round to 2.9999999999999996 and land a hair
        // before the iteration's end; a spring part, which jumps to its end value at its
        // duration, would then freeze at its unsettled value.
        return endIterationTime(units: max(repeatCount, 1) * (autoreverses ? 2 : 1))
      }
      return iterationTime(active + timeOffset, atEnd: true)
    }
    return iterationTime(elapsed + timeOffset, atEnd: false)
  }

  /// How fast local time moves per second of parent time: speed while active (negative in
  /// an autoreversed iteration, which runs backwards), 0 before and after (a fill holds a
  /// state) and where `localTime(parentTime:)` is nil. At an iteration boundary the rate of
  /// the iteration that starts there. Velocities (`ReferenceEvaluator.channelVelocities`)
  /// use it as d(local time) / d(parent time).
  public func localTimeRate(parentTime: Double) -> Double {
    guard duration > 0, speed > 0, phase(parentTime: parentTime) == .active else { return 0 }
    guard autoreverses else { return speed }
    let k = (((parentTime - beginTime) * speed + timeOffset) / duration).rounded(.down)
    return k.truncatingRemainder(dividingBy: 2).magnitude == 1 ? -speed : speed
  }

  /// `localTime(parentTime:)` / duration, in [0, 1], or nil.
  public func fraction(parentTime: Double) -> Double? {
    guard let t = localTime(parentTime: parentTime) else { return nil }
    return min(max(t / duration, 0), 1)
  }

  /// Local time of the end state after `units` iterations of D (the end of the last one
  /// when `units` is a whole number, reversed when that iteration runs backwards).
  private func endIterationTime(units: Double) -> Double {
    var k = units.rounded(.down)
    var f = units - k
    if f == 0 && k >= 1 {
      k -= 1
      f = 1
    }
    let tl = f == 1 ? duration : min(max(f * duration, 0), duration)
    let odd = autoreverses && k.truncatingRemainder(dividingBy: 2).magnitude == 1
    return odd ? duration - tl : tl
  }

  /// Local time within an iteration for the active time `ta`. When `atEnd` and `ta` is an
  /// exact positive multiple of D, the end of the previous iteration.
  private func iterationTime(_ ta: Double, atEnd: Bool) -> Double {
    let d = duration
    var k = (ta / d).rounded(.down)
    var tl = ta - k * d
    if atEnd && tl <= 0 && k >= 1 {  // <= 0: ta / d may round up to the integer
      k -= 1
      tl = d
    }
    // Rounding in ta / d can leave tl a hair outside [0, D].
    tl = min(max(tl, 0), d)
    if autoreverses && !k.isNaN && k.isFinite {
      let odd = k.truncatingRemainder(dividingBy: 2).magnitude == 1
      if odd { tl = d - tl }
    }
    return tl
  }
}

// MARK: - Codable

extension MediaTiming {
  private enum CodingKeys: String, CodingKey {
    case beginTime, duration, speed, timeOffset, repeatCount, repeatDuration, autoreverses, fillMode
  }

  /// Decodes the fields (all but `duration` optional, with the `init` defaults) and
  /// validates like `init`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let beginTime = try c.decodeIfPresent(Double.self, forKey: .beginTime) ?? 0
    let duration = try c.decode(Double.self, forKey: .duration)
    let speed = try c.decodeIfPresent(Double.self, forKey: .speed) ?? 1
    let timeOffset = try c.decodeIfPresent(Double.self, forKey: .timeOffset) ?? 0
    let repeatCount = try c.decodeIfPresent(Double.self, forKey: .repeatCount) ?? 0
    let repeatDuration = try c.decodeIfPresent(Double.self, forKey: .repeatDuration)
    let autoreverses = try c.decodeIfPresent(Bool.self, forKey: .autoreverses) ?? false
    let fillMode = try c.decodeIfPresent(FillMode.self, forKey: .fillMode) ?? .removed
    do {
      try self.init(
        beginTime: beginTime, duration: duration, speed: speed, timeOffset: timeOffset,
        repeatCount: repeatCount, repeatDuration: repeatDuration, autoreverses: autoreverses,
        fillMode: fillMode)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: error.description))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(beginTime, forKey: .beginTime)
    try c.encode(duration, forKey: .duration)
    try c.encode(speed, forKey: .speed)
    try c.encode(timeOffset, forKey: .timeOffset)
    try c.encode(repeatCount, forKey: .repeatCount)
    try c.encodeIfPresent(repeatDuration, forKey: .repeatDuration)
    try c.encode(autoreverses, forKey: .autoreverses)
    try c.encode(fillMode, forKey: .fillMode)
  }
}
