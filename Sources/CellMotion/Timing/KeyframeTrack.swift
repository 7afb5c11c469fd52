// Keyframes of one scalar value, as CAKeyframeAnimation defines them (Apple's
// CAKeyframeAnimation documentation: values, keyTimes, timingFunctions, calculationMode,
// tensionValues / continuityValues / biasValues), and the UIKit form
// (UIView.animateKeyframes with addKeyframe(withRelativeStartTime:relativeDuration:)).
// Facts and formulas only; the choices where Apple is silent are stated on each rule.
//
// Recipe channels take keyframes through `ChannelKeyframes` (values that may depend on
// the cell's geometry); the kernel compiles them to per-segment polynomials.

import Foundation

/// How a keyframe track fills the time between its keys (CAAnimationCalculationMode).
public enum KeyframeCalculationMode: String, Sendable, Hashable, Codable, CaseIterable {
  /// Straight lines between values at `keyTimes`, each segment eased by its timing function.
  case linear
  /// Each value holds until the next key time (n + 1 key times for n values); no
  /// interpolation, timing functions ignored.
  case discrete
  /// Straight lines at an even pace: key times from the distance between values (keyTimes
  /// and timing functions ignored).
  case paced
  /// A Kochanek-Bartels (Catmull-Rom when tension, continuity and bias are 0) spline
  /// through the values at `keyTimes`, each segment eased by its timing function.
  case cubic
  /// The cubic spline at an even pace along it (keyTimes and timing functions ignored).
  case cubicPaced
}

/// A keyframe track of one scalar (points, radians or a fraction, as its channel).
///
/// `value(at:)` maps the animation's fraction f in [0, 1] (its local time over its
/// duration, after the animation's own curve) to a value:
/// - linear / cubic: the segment i with keyTimes[i] <= f < keyTimes[i + 1] (the last one
///   at f = 1), u = (f - keyTimes[i]) / (keyTimes[i + 1] - keyTimes[i]) eased by
///   timingFunctions[i], then a line or the spline's Hermite piece between values i, i + 1.
///   A segment of zero length is a jump: at its key time the later value shows.
/// - discrete: values[i] on [keyTimes[i], keyTimes[i + 1]), the last value at f = 1.
/// - paced / cubicPaced: key times proportional to the distance travelled (|v[i+1] - v[i]|
///   for lines; the spline's arc length for cubicPaced), no easing: constant speed.
///
/// Without key times the keys are evenly spaced (k / (n - 1); k / n for discrete), as Core
/// Animation does. Kochanek-Bartels tangents at key i with tension t, continuity c, bias
/// b: outgoing ((1-t)(1+b)(1+c)/2)(P_i - P_i-1) + ((1-t)(1-b)(1-c)/2)(P_i+1 - P_i), incoming
/// ((1-t)(1+b)(1-c)/2)(P_i - P_i-1) + ((1-t)(1-b)(1+c)/2)(P_i+1 - P_i); each segment is the
/// cubic Hermite piece in u with the outgoing tangent of its first key and the incoming one
/// of its second. Where Apple is silent, chosen here: the ends repeat their value (P_-1 =
/// P_0, P_n = P_n-1), so an end tangent is half the neighbouring difference (a natural,
/// overshoot-free start); tangents are per unit u, not scaled by the segment's length (the
/// spline's shape does not change with the key times, only its timing).
public struct KeyframeTrack: Sendable, Hashable {
  /// The values, at least 1.
  public let values: [Double]
  /// Key times in [0, 1], non-decreasing, from 0 to 1 (n + 1 of them for discrete; n
  /// otherwise). Derived evenly when not given; from distances for the paced modes.
  public let keyTimes: [Double]
  /// One curve per segment (n - 1; a Bezier eases u, a spring runs over the segment's
  /// seconds); linear when not given. Ignored by discrete and the paced modes.
  public let timingFunctions: [AnimationCurve]
  public let mode: KeyframeCalculationMode
  /// Kochanek-Bartels parameters per key (cubic modes), each 0 when not given.
  public let tension: [Double], continuity: [Double], bias: [Double]
  /// The Kochanek-Bartels outgoing and incoming tangent of every key (per unit u),
  /// computed once from the values and the three parameters.
  package let outTangents: [Double], inTangents: [Double]

  /// Most keys a track may have.
  public static let maximumKeys = 64

  /// - Throws: `.outOfRange` for no values, more than `maximumKeys`, a value outside
  ///   `InputLimits.channelValue` (-1e10 ... 1e10), key times of the wrong count, outside
  ///   [0, 1], decreasing, or not from 0 to 1, a wrong number of timing functions or
  ///   tension / continuity / bias values, or one of those outside
  ///   `InputLimits.keyframeParameter` ([-1, 1]); `.notFinite` for NaN or infinite numbers.
  public init(
    values: [Double], keyTimes: [Double]? = nil, timingFunctions: [AnimationCurve]? = nil,
    mode: KeyframeCalculationMode = .linear, tension: [Double]? = nil, continuity: [Double]? = nil,
    bias: [Double]? = nil
  ) throws(CellMotionError) {
    let n = values.count
    guard n >= 1, n <= Self.maximumKeys else {
      throw .outOfRange(field: "keyframes.values.count", value: Double(n), expected: "1...\(Self.maximumKeys)")
    }
    for (k, v) in values.enumerated() where !InputLimits.channelValue.contains(v) {
      try Check.within(v, InputLimits.channelValue, "keyframes.values[\(k)]")
    }
    let segments = max(n - 1, 0)
    func perKey(_ a: [Double]?, _ name: String) throws(CellMotionError) -> [Double] {
      guard let a else { return Array(repeating: 0, count: n) }
      guard a.count == n else {
        throw .outOfRange(field: "keyframes.\(name).count", value: Double(a.count), expected: "\(n) (one per value)")
      }
      for (k, x) in a.enumerated() where !InputLimits.keyframeParameter.contains(x) {
        try Check.within(x, InputLimits.keyframeParameter, "keyframes.\(name)[\(k)]")
      }
      return a
    }
    self.tension = try perKey(tension, "tensionValues")
    self.continuity = try perKey(continuity, "continuityValues")
    self.bias = try perKey(bias, "biasValues")
    if let timingFunctions, timingFunctions.count != segments {
      throw .outOfRange(
        field: "keyframes.timingFunctions.count", value: Double(timingFunctions.count), expected: "\(segments) (values - 1)")
    }
    self.timingFunctions = timingFunctions ?? Array(repeating: .bezier(.linear), count: segments)
    self.values = values
    self.mode = mode
    (outTangents, inTangents) = Self.tangents(values, self.tension, self.continuity, self.bias)
    let keyCount = mode == .discrete ? n + 1 : n
    var times: [Double]
    switch mode {
    case .paced, .cubicPaced:
      // Key times from the distance travelled (given ones are ignored, as Core Animation does).
      times = Self.pacedKeyTimes(values: values, cubic: mode == .cubicPaced, out: outTangents, in: inTangents)
    default:
      if let keyTimes {
        guard keyTimes.count == keyCount else {
          throw .outOfRange(
            field: "keyframes.keyTimes.count", value: Double(keyTimes.count),
            expected: "\(keyCount) (\(mode == .discrete ? "values + 1" : "one per value"))")
        }
        for (k, t) in keyTimes.enumerated() {
          try Check.finite(t, "keyframes.keyTimes[\(k)]")
          guard t >= 0, t <= 1, k == 0 || t >= keyTimes[k - 1] else {
            throw .outOfRange(field: "keyframes.keyTimes[\(k)]", value: t, expected: "in [0, 1], not below the previous")
          }
        }
        guard keyCount == 1 || (keyTimes.first == 0 && keyTimes.last == 1) else {
          throw .outOfRange(
            field: "keyframes.keyTimes", value: keyTimes.first ?? 0, expected: "from 0 to 1 (first 0, last 1)")
        }
        times = keyTimes
      } else {
        times = Self.even(keyCount)
      }
    }
    self.keyTimes = times
  }

  /// k / (count - 1), k = 0..<count (0 alone for one key).
  static func even(_ count: Int) -> [Double] {
    count <= 1 ? [0] : (0..<count).map { Double($0) / Double(count - 1) }
  }

  /// The UIKit form: `UIView.animateKeyframes` with keyframes added by
  /// `addKeyframe(withRelativeStartTime:relativeDuration:)`, each moving the value from
  /// wherever the previous one left it to its `value` over [start, start + duration]
  /// (fractions of the whole) on its own curve, and holding between keyframes. (UIKit
  /// gives every keyframe the block's single curve option; here each has its own.)
  ///
  /// - Parameters:
  ///   - initial: the value before the first keyframe.
  ///   - keyframes: (relative start, relative duration, value, curve), starts in [0, 1],
  ///     durations > 0 with start + duration <= 1, in increasing, non-overlapping order.
  /// - Throws: `.outOfRange` for overlapping, unordered or out-of-range keyframes.
  public static func uiKit(
    initial: Double, keyframes: [(start: Double, duration: Double, value: Double, curve: AnimationCurve)]
  ) throws(CellMotionError) -> KeyframeTrack {
    let (values, times, curves) = try uiKitKeys(initial: initial, keyframes: keyframes)
    if values.count == 1 { return try KeyframeTrack(values: values) }
    return try KeyframeTrack(values: values, keyTimes: times, timingFunctions: curves, mode: .linear)
  }

  /// The UIKit form's keys: a value at 0, each keyframe's value at its end on its curve, a
  /// held value (a linear segment between equal values) wherever a gap separates two
  /// keyframes or the last one ends before 1. Generic over the value so recipe channels
  /// (`ChannelKeyframes.uiKit`) expand values that depend on the geometry the same way.
  static func uiKitKeys<V>(
    initial: V, keyframes: [(start: Double, duration: Double, value: V, curve: AnimationCurve)]
  ) throws(CellMotionError) -> (values: [V], keyTimes: [Double], curves: [AnimationCurve]) {
    var values = [initial], times = [0.0], curves: [AnimationCurve] = []
    var end = 0.0
    for (k, f) in keyframes.enumerated() {
      try Check.finite(f.start, "keyframes[\(k)].start")
      try Check.finite(f.duration, "keyframes[\(k)].duration")
      guard f.start >= end - 1e-12, f.duration > 0, f.start + f.duration <= 1 + 1e-12 else {
        throw .outOfRange(
          field: "keyframes[\(k)]", value: f.start,
          expected: "start >= the previous keyframe's end (\(end)), duration > 0, start + duration <= 1")
      }
      if f.start > end {
        // Hold the previous value until this keyframe starts.
        values.append(values.last!)
        times.append(f.start)
        curves.append(.bezier(.linear))
      }
      values.append(f.value)
      end = min(f.start + f.duration, 1)
      times.append(end)
      curves.append(f.curve)
    }
    if end < 1 && !keyframes.isEmpty {
      values.append(values.last!)
      times.append(1)
      curves.append(.bezier(.linear))
    }
    return (values, times, curves)
  }

  // MARK: Evaluation

  /// The value at fraction `f` of the animation (clamped to [0, 1]); `duration` (seconds)
  /// is the whole animation's, for spring segments (which run on the segment's seconds).
  public func value(at f: Double, duration: Double = 1) -> Double {
    let (i, u) = segment(at: f, duration: duration)
    switch mode {
    case .discrete:
      return values[i]
    case _ where values.count == 1:
      return values[0]
    case .linear, .paced:
      // At u = 1 the later value itself (a + (b - a) may round away from b).
      return u == 1 ? values[i + 1] : values[i] + (values[i + 1] - values[i]) * u
    case .cubic:
      return hermite(i, u)
    case .cubicPaced:
      return hermite(i, pacedParameter(i, u))
    }
  }

  /// d(value) / d(f) at fraction `f`, in closed form: the segment's slope through its
  /// easing, 1 / span x de/du x dv/de (a Bezier's slope, a spring's velocity over the
  /// segment's seconds; a line's difference, the Hermite piece's derivative; cubicPaced
  /// moves at its constant speed, the segment's arc length over its span, in the direction
  /// the spline turns). 0 for one key, discrete steps, zero-length segments and outside
  /// (0, 1). At a key time, the segment that starts there.
  public func slope(at f: Double, duration: Double = 1) -> Double {
    let n = values.count
    guard n > 1, mode != .discrete, f > 0, f < 1 else { return 0 }
    let i = segmentIndex(f)
    let span = keyTimes[i + 1] - keyTimes[i]
    guard span > 0 else { return 0 }
    let u = min(max((f - keyTimes[i]) / span, 0), 1)
    let (e, dedu) = ease(i, u, span: span, duration: duration, slope: true)
    let p0 = values[i], p1 = values[i + 1]
    let dvde: Double
    switch mode {
    case .linear, .paced:
      dvde = p1 - p0
    case .cubic:
      dvde = Self.hermiteSlope(p0, p1, outTangents[i], inTangents[i + 1], e)
    case .cubicPaced:
      let m0 = outTangents[i], m1 = inTangents[i + 1]
      let turn = Self.hermiteSlope(p0, p1, m0, m1, pacedParameter(i, u))
      let total = Self.arcLength(p0, p1, m0, m1, upTo: 1)
      dvde = turn == 0 ? 0 : (turn > 0 ? total : -total)
    case .discrete:
      dvde = 0
    }
    return dvde * dedu / span
  }

  /// Where fraction `f` (clamped to [0, 1]) falls: the segment i (discrete: the interval
  /// whose value shows) and the eased fraction u through it (0 to 1; a spring segment may
  /// overshoot), as `value(at:duration:)` uses them; (0, 0) for one key. A segment of zero
  /// length gives u = 1 (its later value). Matrix keyframes (`MatrixKeyframes`) use the
  /// same rule.
  public func segment(at f: Double, duration: Double = 1) -> (index: Int, fraction: Double) {
    let n = values.count
    guard n > 1 else { return (0, 0) }
    let x = min(max(f, 0), 1)
    if mode == .discrete {
      // values[i] on [keyTimes[i], keyTimes[i + 1]); the last value at 1.
      var i = 0
      while i + 1 < n && keyTimes[i + 1] <= x { i += 1 }
      return (x >= 1 ? n - 1 : i, 0)
    }
    let i = segmentIndex(x)
    let span = keyTimes[i + 1] - keyTimes[i]
    if span <= 0 { return (i, 1) }
    let u = min(max((x - keyTimes[i]) / span, 0), 1)
    return (i, ease(i, u, span: span, duration: duration, slope: false).e)
  }

  /// The segment between two values holding x in [0, 1] (not discrete): keyTimes[i] <= x
  /// < keyTimes[i + 1], the last segment at x = 1. Needs at least two values.
  private func segmentIndex(_ x: Double) -> Int {
    var i = 0
    while i + 1 < values.count - 1 && keyTimes[i + 1] <= x { i += 1 }
    return i
  }

  /// Segment i's eased fraction at its raw fraction u (span > 0 seconds of fraction) and,
  /// when `slope`, de/du: its timing function in the linear and cubic modes (a Bezier; a
  /// spring over the segment's own seconds, exactly 1 with slope 0 at its end or with no
  /// seconds), u itself otherwise.
  private func ease(_ i: Int, _ u: Double, span: Double, duration: Double, slope: Bool) -> (e: Double, slope: Double) {
    guard mode == .linear || mode == .cubic else { return (u, 1) }
    switch timingFunctions[i] {
    case .bezier(let c):
      return (c.value(at: u), slope ? c.slope(at: u) : 0)
    case .spring(let spring):
      let seconds = span * max(duration, 0)
      guard u < 1, seconds > 0 else { return (1, 0) }
      return (spring.value(at: u * seconds), slope ? spring.velocity(at: u * seconds) * seconds : 0)
    }
  }

  /// (outgoing, incoming) Kochanek-Bartels tangents of every key.
  static func tangents(_ v: [Double], _ t: [Double], _ c: [Double], _ b: [Double]) -> (out: [Double], in: [Double]) {
    let n = v.count
    var outs: [Double] = [], ins: [Double] = []
    for i in 0..<n {
      let prev = v[max(i - 1, 0)], next = v[min(i + 1, n - 1)]
      let back = v[i] - prev, ahead = next - v[i]
      let (ti, ci, bi) = (t[i], c[i], b[i])
      outs.append((1 - ti) * (1 + bi) * (1 + ci) / 2 * back + (1 - ti) * (1 - bi) * (1 - ci) / 2 * ahead)
      ins.append((1 - ti) * (1 + bi) * (1 - ci) / 2 * back + (1 - ti) * (1 - bi) * (1 + ci) / 2 * ahead)
    }
    return (outs, ins)
  }

  /// The Hermite piece of segment i at u in [0, 1].
  func hermite(_ i: Int, _ u: Double) -> Double {
    Self.hermite(values[i], values[i + 1], outTangents[i], inTangents[i + 1], u)
  }

  /// d/du of `hermite`.
  static func hermiteSlope(_ p0: Double, _ p1: Double, _ m0: Double, _ m1: Double, _ u: Double) -> Double {
    let u2 = u * u
    return (6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * m0 + (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * m1
  }

  package static func hermite(_ p0: Double, _ p1: Double, _ m0: Double, _ m1: Double, _ u: Double) -> Double {
    let u2 = u * u, u3 = u2 * u
    return (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1
  }



  // MARK: Pacing

  /// Arc length (total variation) of a Hermite piece from 0 to u, exactly: the sum of
  /// |p(b_k+1) - p(b_k)| between 0, the roots of its quadratic slope inside (0, u), and u.
  static func arcLength(_ p0: Double, _ p1: Double, _ m0: Double, _ m1: Double, upTo u: Double) -> Double {
    guard u > 0 else { return 0 }
    let breaks = turningPoints(p0, p1, m0, m1).filter { $0 < u } + [u]
    var total = 0.0, previous = 0.0
    for b in breaks {
      total += abs(hermite(p0, p1, m0, m1, b) - hermite(p0, p1, m0, m1, previous))
      previous = b
    }
    return total
  }

  /// The parameters in (0, 1) where a Hermite piece turns (the roots of its quadratic
  /// slope), ascending: between them, and between them and the ends, it is monotone.
  package static func turningPoints(_ p0: Double, _ p1: Double, _ m0: Double, _ m1: Double) -> [Double] {
    // p(u) = A u^3 + B u^2 + C u + p0, slope 3A u^2 + 2B u + C.
    let a = 2 * p0 + m0 - 2 * p1 + m1, b = -3 * p0 - 2 * m0 + 3 * p1 - m1, c = m0
    var roots: [Double] = []
    let qa = 3 * a, qb = 2 * b
    if qa == 0 {
      if qb != 0 { roots.append(-c / qb) }
    } else {
      let disc = qb * qb - 4 * qa * c
      if disc >= 0 {
        let r = disc.squareRoot()
        roots.append((-qb - r) / (2 * qa))
        roots.append((-qb + r) / (2 * qa))
      }
    }
    return roots.filter { $0 > 0 && $0 < 1 }.sorted()
  }

  /// Key times proportional to the cumulative distance; even when nothing moves.
  static func pacedKeyTimes(values v: [Double], cubic: Bool, out: [Double], in inc: [Double]) -> [Double] {
    let n = v.count
    guard n > 1 else { return [0] }
    var lengths: [Double] = []
    for i in 0..<(n - 1) {
      lengths.append(cubic ? arcLength(v[i], v[i + 1], out[i], inc[i + 1], upTo: 1) : abs(v[i + 1] - v[i]))
    }
    let total = lengths.reduce(0, +)
    guard total > 0 else { return even(n) }
    var times = [0.0], acc = 0.0
    for l in lengths.dropLast() {
      acc += l
      times.append(acc / total)
    }
    times.append(1)
    return times
  }

  /// cubicPaced: the u of segment i whose arc length is the fraction `s` of the segment's
  /// (bisection on the exact, non-decreasing arc-length function, to 2^-45 in u).
  func pacedParameter(_ i: Int, _ s: Double) -> Double {
    let p0 = values[i], p1 = values[i + 1], m0 = outTangents[i], m1 = inTangents[i + 1]
    let total = Self.arcLength(p0, p1, m0, m1, upTo: 1)
    guard total > 0 else { return s }
    let target = s * total
    var lo = 0.0, hi = 1.0
    for _ in 0..<45 {
      let mid = (lo + hi) / 2
      if Self.arcLength(p0, p1, m0, m1, upTo: mid) < target { lo = mid } else { hi = mid }
    }
    return (lo + hi) / 2
  }
}
