// Damped springs: CASpringAnimation, UIKit and SwiftUI parameterisations, closed-form
// evaluation and CASpringAnimation's settling duration.
//
// Goals, in priority order:
// 1. Exactness: x(t) and x'(t) are closed forms evaluated directly (never by stepping an
//    integrator), so every cell is independent and every frame rate gives the same answer.
// 2. Numerical stability in every regime: the over-damped form is written with the slow
//    rate w0^2 / (alpha + gamma) and expm1, so there is no cancellation between two
//    exponentials near zeta = 1 and no 0 * infinity for large zeta; the near-critical
//    under-damped form uses sin(wd t) / wd, which stays accurate as wd -> 0.
// 3. Faithful mappings: UIKit's duration/damping-ratio solve and SwiftUI's
//    response/dampingFraction and duration/bounce are implemented as listed in
//    the Semantics article of the CellMotion documentation ("Springs").
//
// Facts used (not code): the ODE, the closed forms and CASpringAnimation defaults and
// settlingDuration rule ("Springs" in the Semantics article of the CellMotion documentation;
// Apple CASpringAnimation documentation); SwiftUI's formulas (the same section; Apple
// SwiftUI `Spring` documentation).

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Damped spring driving progress x(t) from 0 to 1:
/// m x'' + c x' + k (x - 1) = 0, x(0) = 0, x'(0) = initialVelocity.
///
/// Time t is in seconds; x is progress (unitless, 0 = from-value, 1 = to-value).
/// With alpha = c / (2 m) (decay rate, 1/s), w0 = sqrt(k / m) (rad/s),
/// zeta = c / (2 sqrt(k m)) and v0 = initialVelocity:
/// - under-damped (zeta < 1), wd = w0 sqrt(1 - zeta^2):
///   x = 1 - e^(-alpha t) (cos(wd t) + (alpha - v0) / wd sin(wd t));
/// - critical (zeta = 1): x = 1 - (1 + (alpha - v0) t) e^(-alpha t);
/// - over-damped (zeta > 1), gamma = w0 sqrt(zeta^2 - 1):
///   x = 1 - e^(-alpha t) (cosh(gamma t) + (alpha - v0) / gamma sinh(gamma t)),
///   evaluated in a cancellation-free form (see `value(at:)`).
public struct Spring: Sendable, Hashable, Codable {
  /// Mass m (> 0). Units are consistent with stiffness and damping; only ratios matter.
  public let mass: Double
  /// Stiffness k (> 0), force per unit displacement.
  public let stiffness: Double
  /// Damping coefficient c (>= 0; 0 gives an undamped oscillation that never settles).
  public let damping: Double
  /// Initial velocity v0 in distances per second toward the target (CASpringAnimation and
  /// UIKit convention: positive moves toward 1; 1 = the whole distance per second).
  public private(set) var initialVelocity: Double

  /// Creates a spring. The defaults are CASpringAnimation's (m 1, k 100, c 10, v0 0).
  ///
  /// Accepted ranges (`InputLimits`), chosen so that every closed form stays accurate in
  /// Double and finite in the kernel's Float: mass in `springMass` (1e-6 ... 1e6);
  /// stiffness > 0 with w0 = sqrt(k / m) in `springNaturalFrequency` (1e-3 ... 1e4 rad/s);
  /// damping >= 0 with c / (2m) in `springDecayRate` (0 ... 1e6 1/s); initialVelocity in
  /// `springVelocity` (-1e4 ... 1e4 distances per second).
  ///
  /// - Throws: `.notFinite` for NaN or infinite inputs; `.outOfRange` naming the field
  ///   (mass, stiffness, damping or initialVelocity) for a value outside its range or a
  ///   derived w0 or decay rate outside theirs.
  public init(mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0)
    throws(CellMotionError)
  {
    try Check.within(mass, InputLimits.springMass, "mass")
    try Check.positive(stiffness, "stiffness")
    try Check.nonNegative(damping, "damping")
    try Check.within(initialVelocity, InputLimits.springVelocity, "initialVelocity")
    let w0 = (stiffness / mass).squareRoot()
    let w0Range = InputLimits.springNaturalFrequency
    guard w0Range.contains(w0) else {
      throw .outOfRange(
        field: "stiffness", value: stiffness,
        expected: "such that sqrt(stiffness / mass) is in [\(Check.short(w0Range.lowerBound)), "
          + "\(Check.short(w0Range.upperBound))] rad/s (mass \(mass) gives \(w0))")
    }
    let alpha = damping / (2 * mass)
    let alphaRange = InputLimits.springDecayRate
    guard alphaRange.contains(alpha) else {
      throw .outOfRange(
        field: "damping", value: damping,
        expected: "such that damping / (2 mass) is in [0, \(Check.short(alphaRange.upperBound))] 1/s "
          + "(mass \(mass) gives \(alpha))")
    }
    self.mass = mass
    self.stiffness = stiffness
    self.damping = damping + 0  // canonical +0
    self.initialVelocity = initialVelocity + 0
  }

  // MARK: - Derived quantities

  /// Undamped natural frequency w0 = sqrt(k / m), radians per second.
  public var naturalFrequency: Double { (stiffness / mass).squareRoot() }

  /// Damping ratio zeta = c / (2 sqrt(k m)) (unitless), computed as (c / 2m) / w0.
  public var dampingRatio: Double { decayRate / naturalFrequency }

  /// Decay rate alpha = c / (2 m) = zeta w0, 1/seconds: the envelope is e^(-alpha t).
  public var decayRate: Double { damping / (2 * mass) }

  /// The three solution families of the ODE.
  public enum Regime: String, Sendable, Codable {
    /// zeta < 1: decaying oscillation about the target.
    case underdamped
    /// zeta = 1 (within `Spring.criticalTolerance`): fastest approach without oscillation.
    case critical
    /// zeta > 1: two real decay rates, no oscillation.
    case overdamped
  }

  /// Width of the band |zeta - 1| <= 1e-9 treated as critical.
  ///
  /// Why 1e-9: it is far above the rounding noise of zeta computed from parameters that
  /// are meant to be critical (a few ulps, ~1e-15, e.g. UIKit's c = 2 sqrt(k) or SwiftUI's
  /// dampingFraction 1), so those springs are labelled critical. Inside the band the
  /// critical closed form replaces cosh(gamma t) ~ 1 + eps (w0 t)^2 and sinh(gamma t)/gamma
  /// ~ t (1 + eps (w0 t)^2 / 3) with eps = |zeta - 1|; multiplied by the envelope
  /// e^(-alpha t) that changes x by at most about eps (0.55 + 0.45 |1 - v0 / w0|), i.e.
  /// ~1e-9 in progress. Outside the band the under- and over-damped forms used here are
  /// themselves accurate (no cancellation), so no wider band is needed.
  public static let criticalTolerance = 1e-9

  /// The regime by damping ratio: critical when |zeta - 1| <= `criticalTolerance`.
  public var regime: Regime {
    let zeta = dampingRatio
    if (zeta - 1).magnitude <= Self.criticalTolerance { return .critical }
    return zeta < 1 ? .underdamped : .overdamped
  }

  // MARK: - Evaluation

  /// Progress x(t) at t seconds after the start, by the closed form of the regime.
  ///
  /// t <= 0 returns 0; t = +infinity returns 1 when damped (NaN when c = 0); NaN gives NaN.
  /// Written as x = 1 - [E C + (alpha - v0) E S] with E = e^(-alpha t) and
  /// (C, S) = (cos wd t, sin(wd t) / wd), (1, t) or (cosh gamma t, sinh(gamma t) / gamma);
  /// in the over-damped case E C = e^(-lambda t) (1 + e^(-2 gamma t)) / 2 and
  /// E S = e^(-lambda t) (-expm1(-2 gamma t)) / (2 gamma) with the slow rate
  /// lambda = alpha - gamma = w0^2 / (alpha + gamma), which avoids both cancellation near
  /// zeta = 1 and overflow of cosh for large zeta.
  /// - Complexity: O(1): one exp and one sin/cos (or expm1).
  public func value(at t: Double) -> Double {
    if t.isNaN { return .nan }
    if t <= 0 { return 0 }
    if t == .infinity { return damping > 0 ? 1 : .nan }
    let (ec, es) = basis(at: t)
    return 1 - (ec + (decayRate - initialVelocity) * es)
  }

  /// Velocity x'(t) in progress per second, closed form:
  /// x'(t) = v0 E C + (w0^2 - alpha v0) E S with the same E, C, S as `value(at:)`.
  ///
  /// t < 0 returns 0 (at rest before the start); t = 0 returns v0; t = +infinity returns 0
  /// when damped; NaN gives NaN.
  /// - Complexity: O(1).
  public func velocity(at t: Double) -> Double {
    if t.isNaN { return .nan }
    if t < 0 { return 0 }
    if t == 0 { return initialVelocity }
    if t == .infinity { return damping > 0 ? 0 : .nan }
    let (ec, es) = basis(at: t)
    let w0Squared = stiffness / mass
    return initialVelocity * ec + (w0Squared - decayRate * initialVelocity) * es
  }

  /// The spring's response to a kick: g(t) = E S, the displacement (in progress) at t
  /// seconds of a spring released at its target with unit velocity (one distance per
  /// second). The motion is linear in its initial state, so a spring released at
  /// displacement x0 - 1 from its target with velocity v moves as x0(t) + v g(t), x0 the
  /// same spring released at rest: the velocity-carrying retarget (`MotionSegment`) uses
  /// this to carry any velocity, even toward a target at no distance.
  ///
  /// t <= 0 returns 0; the same E and S as `value(at:)` (sin(wd t) / wd, t, or
  /// sinh(gamma t) / gamma, times e^(-alpha t)).
  public func impulseResponse(at t: Double) -> Double {
    if t.isNaN { return .nan }
    if t <= 0 || t == .infinity { return t == .infinity && damping == 0 ? .nan : 0 }
    return basis(at: t).es
  }

  /// g'(t) = E C - alpha E S, per second: the velocity of `impulseResponse`, 1 at t = 0.
  public func impulseResponseVelocity(at t: Double) -> Double {
    if t.isNaN { return .nan }
    if t < 0 { return 0 }
    if t == 0 { return 1 }
    if t == .infinity { return damping > 0 ? 0 : .nan }
    let (ec, es) = basis(at: t)
    return ec - decayRate * es
  }

  /// Seconds after which a spring released `displacement` from its target (units) with
  /// `velocity` (units per second) stays within `tolerance` (units) of it, by a bound on
  /// the remainder r(t) = d (E C + alpha E S) + v E S:
  /// - under-damped: |r| <= e^(-alpha t) (|d| + |alpha d + v| / wd), solved in closed form;
  /// - critical and over-damped: |r| <= e^(-lambda t) (|d| + |alpha d + v| t) with the slow
  ///   rate lambda (alpha when critical), which rises to one hump and then decays for good:
  ///   solved by bisection past the hump to 1e-9 relative.
  /// 0 when the bound starts within the tolerance; +infinity when undamped.
  public func restTime(displacement d: Double, velocity v: Double, tolerance: Double) -> Double {
    let alpha = decayRate, w0 = naturalFrequency
    let k = (alpha * d + v).magnitude
    guard tolerance > 0, d.magnitude + k > 0 else { return 0 }
    if alpha == 0 { return .infinity }
    if regime == .underdamped {
      let zeta = alpha / w0
      let wd = w0 * ((1 - zeta) * (1 + zeta)).squareRoot()
      return max(0, log((d.magnitude + k / wd) / tolerance) / alpha)
    }
    let lambda: Double
    if regime == .critical {
      lambda = alpha
    } else {
      let zeta = alpha / w0
      let gamma = w0 * ((zeta - 1) * (zeta + 1)).squareRoot()
      lambda = (w0 * w0) / (alpha + gamma)
    }
    func bound(_ t: Double) -> Double { exp(-lambda * t) * (d.magnitude + k * t) }
    // d/dt bound = e^(-lambda t) (k - lambda (|d| + k t)): the hump is at 1/lambda - |d|/k.
    let hump = k > 0 ? max(0, 1 / lambda - d.magnitude / k) : 0
    if bound(hump) <= tolerance { return 0 }
    var lo = hump, hi = hump + 1 / lambda
    while bound(hi) > tolerance && hi < Self.settlingSearchLimit { (lo, hi) = (hi, hump + 2 * (hi - hump)) }
    if bound(hi) > tolerance { return .infinity }
    while hi - lo > 1e-9 * hi {
      let mid = (lo + hi) / 2
      if bound(mid) > tolerance { lo = mid } else { hi = mid }
    }
    return hi
  }

  /// The same spring released at rest (initial velocity 0).
  package var atRest: Spring {
    var s = self
    s.initialVelocity = 0
    return s
  }

  /// (E C, E S) of `value(at:)` for finite t > 0.
  private func basis(at t: Double) -> (ec: Double, es: Double) {
    let alpha = decayRate
    let w0 = naturalFrequency
    let zeta = alpha / w0
    switch regime {
    case .critical:
      let e = exp(-alpha * t)
      return (e, t * e)
    case .underdamped:
      // 1 - zeta^2 = (1 - zeta)(1 + zeta); 1 - zeta is exact for zeta in [0.5, 1].
      let wd = w0 * ((1 - zeta) * (1 + zeta)).squareRoot()
      let e = exp(-alpha * t)
      return (e * cos(wd * t), e * sin(wd * t) / wd)
    case .overdamped:
      let gamma = w0 * ((zeta - 1) * (zeta + 1)).squareRoot()
      let slow = (w0 * w0) / (alpha + gamma)  // alpha - gamma without cancellation
      let e = exp(-slow * t)
      let m = expm1(-2 * gamma * t)  // e^(-2 gamma t) - 1, accurate for small gamma t
      return (e * (2 + m) / 2, e * (-m) / (2 * gamma))
    }
  }

  // MARK: - Settling (CASpringAnimation.settlingDuration)

  /// The tolerance of CASpringAnimation's settling rule, in progress (1/1000 of the distance).
  public static let settlingEpsilon = 0.001
  /// The sampling step of the non-oscillating settling rule, seconds.
  public static let settlingStep = 0.1
  /// Upper limit of the sampled search, seconds (10^6 samples); beyond it the result is
  /// +infinity. Within `InputLimits` (w0 >= 1e-3 rad/s) the walk ends before 1e4 s.
  public static let settlingSearchLimit = 100_000.0

  /// CASpringAnimation.settlingDuration: seconds until the spring is taken to be at rest
  /// (within 0.001 of the distance), by Core Animation's rule.
  ///
  /// - Under-damped (zeta < 1): the envelope bound -ln(eps / (|A| + |B|)) / (zeta w0) with
  ///   A = 1, B = (zeta w0 - v0) / wd, floored at 0 (+infinity when c = 0, which never
  ///   settles).
  /// - At and above critical damping, Core Animation does not use the spring's own motion:
  ///   it clamps the damping to critical (zeta = 1, same w0 and v0) and walks t = 0, 0.1,
  ///   0.2, ... s until the critical remainder r(t) = |1 + (w0 - v0) t| e^(-w0 t) is
  ///   <= 0.001 and stays there. r can cross zero once (where v0 > w0: the spring
  ///   overshoots) and then rises to one hump at t = v0 / (w0 (v0 - w0)) before decaying for
  ///   good, so "stays there" means the first sample of the final run of samples with
  ///   r <= 0.001 (samples past the hump and below eps can never rise again). The answer
  ///   is a multiple of 0.1 s and does not change as damping rises past critical.
  ///
  /// Where the physics and the reported time part ways: an over-damped spring approaches
  /// more slowly than the critical one (its slow rate is w0^2 / (alpha + gamma) < w0), so at
  /// the reported time it can still be well outside 0.001 of the target (k 100, c 40:
  /// reported 1.0 s, remainder 0.074 there). An animation that ends at this time (as
  /// `CASpringAnimation.duration = settlingDuration` does) jumps to the target at the end;
  /// `value(at:)` keeps following the physics.
  ///
  /// The default spring (m 1, k 100, c 10) gives ln(1000 (1 + 1/sqrt 3)) / 5 = 1.4727 s.
  /// - Complexity: O(1) when under-damped; otherwise O(settling time / 0.1 s).
  public var settlingDuration: Double {
    let eps = Self.settlingEpsilon
    let w0 = naturalFrequency
    let v0 = initialVelocity
    if regime == .underdamped {
      let alpha = decayRate
      if alpha == 0 { return .infinity }
      let zeta = alpha / w0
      let wd = w0 * ((1 - zeta) * (1 + zeta)).squareRoot()
      let a = 1.0
      let b = (alpha - v0) / wd
      return max(0, -log(eps / (a.magnitude + b.magnitude)) / alpha)
    }
    return Self.criticalSettlingTime(w0: w0, v0: v0)
  }

  /// The sampled settling time of the critically damped spring with natural frequency
  /// `w0` (rad/s) and initial velocity `v0` (distances per second): Core Animation's rule
  /// for every spring at or above critical damping (see `settlingDuration`).
  public static func criticalSettlingTime(w0: Double, v0: Double) -> Double {
    let eps = settlingEpsilon
    func remainder(_ t: Double) -> Double { (1 + (w0 - v0) * t).magnitude * exp(-w0 * t) }
    // After this time r decreases monotonically: the hump's top when the spring
    // overshoots (v0 > w0), else 0.
    let monotoneFrom = v0 > w0 ? v0 / (w0 * (v0 - w0)) : 0
    let limit = Int(settlingSearchLimit / settlingStep)
    var runStart: Int? = nil
    for n in 0...limit {
      let t = Double(n) * settlingStep
      if remainder(t) <= eps {
        if runStart == nil { runStart = n }
        if t >= monotoneFrom { return Double(runStart!) * settlingStep }
      } else {
        runStart = nil
      }
    }
    return .infinity
  }

  // MARK: - UIKit

  /// The clamping and solver constants of UIKit's spring mapping (see "Springs" in the
  /// Semantics article of the CellMotion documentation).
  public enum UIKitConstants {
    /// Smallest damping ratio UIKit uses (Float.ulpOfOne = 2^-23).
    public static let minimumDampingRatio = 1.1920929e-7
    /// Duration clamp, seconds.
    public static let durationRange: ClosedRange<Double> = 0.01...10
    /// Envelope tolerance at the duration, progress.
    public static let epsilon = 0.001
    /// Newton steps on w0.
    public static let newtonSteps = 12
  }

  /// UIKit's `animate(withDuration:delay:usingSpringWithDamping:initialSpringVelocity:)`
  /// mapping. See `uiKitParameters(dampingRatio:duration:initialSpringVelocity:)`.
  public static func uiKit(dampingRatio: Double, duration: Double, initialSpringVelocity: Double = 0)
    throws(CellMotionError) -> Spring
  {
    try uiKitParameters(
      dampingRatio: dampingRatio, duration: duration, initialSpringVelocity: initialSpringVelocity
    ).spring
  }

  /// UIKit's spring mapping, also returning the clamped duration T (seconds) UIKit uses
  /// and the residual f(w0) of the solved equation.
  ///
  /// Algorithm (the Semantics article, "Springs"): m = 1; zeta = dampingRatio clamped to
  /// [1.1920929e-7, 1]; T = duration clamped to [0.01, 10]; w0 from 12 Newton steps
  /// starting at 5 / T on
  /// - zeta < 1: f(w0) = eps - |(zeta w0 - v0) / (w0 sqrt(1 - zeta^2))| e^(-zeta w0 T),
  /// - zeta = 1: f(w0) = (1 + (w0 - v0) T) e^(-w0 T) - eps,
  /// with eps = 0.001 and analytic derivatives; then k = w0^2, c = 2 zeta sqrt(k).
  /// The curve options of the UIView call are ignored: the spring drives progress
  /// linearly in time. v0 = initialSpringVelocity (1 = the whole distance per second).
  ///
  /// - Throws: `.notFinite` for NaN/infinite inputs; `.outOfRange` for duration <= 0, a
  ///   negative dampingRatio, an initialSpringVelocity outside `InputLimits.springVelocity`,
  ///   and, naming dampingRatio, when the equation has no root (Newton's result is
  ///   checked, and where it leaves w0 > 0 a bisection on the same equation takes over):
  ///   for v0 = 0 the envelope is at most zeta / sqrt(1 - zeta^2), so damping ratios below
  ///   ~0.001 (including 0, clamped to 1.1920929e-7) cannot reach eps = 0.001. What UIKit
  ///   itself does there is not documented, so it is reported instead of guessed.
  public static func uiKitParameters(dampingRatio: Double, duration: Double, initialSpringVelocity: Double = 0)
    throws(CellMotionError) -> (spring: Spring, duration: Double, residual: Double)
  {
    try Check.finite(dampingRatio, "dampingRatio")
    guard dampingRatio >= 0 else {
      throw .outOfRange(field: "dampingRatio", value: dampingRatio, expected: ">= 0 (values above 1 act as 1)")
    }
    try Check.positive(duration, "duration")
    try Check.within(initialSpringVelocity, InputLimits.springVelocity, "initialSpringVelocity")
    let zeta = min(max(dampingRatio, UIKitConstants.minimumDampingRatio), 1)
    let range = UIKitConstants.durationRange
    let T = min(max(duration, range.lowerBound), range.upperBound)
    let v0 = initialSpringVelocity
    var w = 5 / T
    for _ in 0..<UIKitConstants.newtonSteps {
      let (f, df) = uiKitEquation(w0: w, zeta: zeta, duration: T, velocity: v0)
      guard df != 0, f.isFinite, df.isFinite else { break }
      w -= f / df
    }
    var residual = uiKitEquation(w0: w, zeta: zeta, duration: T, velocity: v0).f
    if !(w.isFinite && w > 0 && abs(residual) <= 1e-12) {
      // Newton left the domain (low damping with a positive initial velocity: the
      // envelope |zeta w0 - v0| has a kink at v0 / zeta that throws it across w0 = 0).
      // Solve the same equation by bisection on the crossing where the envelope falls
      // below eps, bracketed by doubling/halving from 5 / T; no crossing -> throw below.
      if let root = uiKitBisection(zeta: zeta, duration: T, velocity: v0) {
        w = root
        residual = uiKitEquation(w0: w, zeta: zeta, duration: T, velocity: v0).f
      }
    }
    guard w.isFinite, w > 0 else {
      // No w0 brings the envelope down to eps at T: the damping is too light for it to
      // decay by the duration (for v0 = 0 the envelope starts at zeta / sqrt(1 - zeta^2),
      // below eps for zeta < ~0.001).
      throw .outOfRange(
        field: "dampingRatio", value: dampingRatio,
        expected: "large enough for the spring to settle to 0.001 within the duration "
          + "(about >= 0.001; no solution with duration \(duration) s and initialSpringVelocity \(v0))")
    }
    let k = w * w
    let spring: Spring
    do {
      spring = try Spring(mass: 1, stiffness: k, damping: 2 * zeta * k.squareRoot(), initialVelocity: v0)
    } catch {
      throw .outOfRange(
        field: "dampingRatio", value: dampingRatio,
        expected: "a value whose solved spring is in range (duration \(duration) s and initialSpringVelocity \(v0) "
          + "give w0 = \(w) rad/s: \(error))")
    }
    return (spring, T, residual)
  }

  /// The crossing of f(w0) = 0 from f < 0 (envelope above eps) to f > 0, by bisection,
  /// or nil when f never goes negative (the envelope never reaches eps).
  static func uiKitBisection(zeta: Double, duration T: Double, velocity v0: Double) -> Double? {
    func f(_ w: Double) -> Double { uiKitEquation(w0: w, zeta: zeta, duration: T, velocity: v0).f }
    var hi = 5 / T
    var steps = 0
    while f(hi) <= 0 && steps < 200 {
      hi *= 2
      steps += 1
    }
    guard f(hi) > 0 else { return nil }
    var lo = hi
    steps = 0
    while f(lo) > 0 && steps < 200 {
      lo /= 2
      steps += 1
    }
    guard f(lo) <= 0 else { return nil }
    for _ in 0..<200 {
      let mid = (lo + hi) / 2
      if mid == lo || mid == hi { break }
      if f(mid) > 0 { hi = mid } else { lo = mid }
    }
    return hi
  }

  /// UIKit's defining equation f(w0) and its derivative df/dw0 (see `uiKitParameters`).
  public static func uiKitEquation(w0 w: Double, zeta: Double, duration T: Double, velocity v0: Double)
    -> (f: Double, df: Double)
  {
    let eps = UIKitConstants.epsilon
    let e = exp(-zeta * w * T)
    if zeta < 1 {
      let root = ((1 - zeta) * (1 + zeta)).squareRoot()
      let q = (zeta * w - v0) / (w * root)  // = (zeta - v0 / w) / root
      let dq = v0 / (w * w * root)
      let sign: Double = q < 0 ? -1 : 1
      let g = q.magnitude * e
      let dg = (sign * dq - zeta * T * q.magnitude) * e
      return (eps - g, -dg)
    } else {
      let f = (1 + (w - v0) * T) * e - eps
      let df = -T * T * (w - v0) * e
      return (f, df)
    }
  }

  // MARK: - SwiftUI

  /// SwiftUI `spring(response:dampingFraction:)`: m = 1, k = (2 pi / response)^2,
  /// c = 4 pi dampingFraction / response.
  ///
  /// - Parameters:
  ///   - response: the period of the undamped oscillation, seconds (> 0).
  ///   - dampingFraction: zeta (>= 0; 1 is critical, > 1 over-damped).
  ///   - initialVelocity: progress per second toward the target.
  /// - Throws: `.notFinite`, `.outOfRange` (response <= 0, dampingFraction < 0).
  public static func swiftUI(response: Double, dampingFraction: Double, initialVelocity: Double = 0)
    throws(CellMotionError) -> Spring
  {
    try Check.positive(response, "response")
    try Check.nonNegative(dampingFraction, "dampingFraction")
    try Check.finite(initialVelocity, "initialVelocity")
    let w0 = 2 * Double.pi / response
    return try Spring(
      mass: 1, stiffness: w0 * w0, damping: 4 * Double.pi * dampingFraction / response,
      initialVelocity: initialVelocity)
  }

  /// SwiftUI `Spring(duration:bounce:)`: response = duration and
  /// zeta = 1 - bounce (bounce >= 0) or 1 / (1 + bounce) (bounce < 0), then
  /// `swiftUI(response:dampingFraction:)`.
  ///
  /// - Parameters:
  ///   - duration: perceptual duration, seconds (> 0).
  ///   - bounce: in the open interval (-1, 1); 0 is critical, > 0 bounces, < 0 over-damped.
  ///   - initialVelocity: progress per second toward the target (1 = the whole distance
  ///     per second).
  /// - Throws: `.notFinite`, `.outOfRange` (duration <= 0, bounce outside (-1, 1)).
  public static func swiftUI(duration: Double, bounce: Double, initialVelocity: Double = 0)
    throws(CellMotionError) -> Spring
  {
    try Check.positive(duration, "duration")
    try Check.finite(bounce, "bounce")
    guard bounce > -1 && bounce < 1 else {
      throw .outOfRange(field: "bounce", value: bounce, expected: "in (-1, 1)")
    }
    let zeta = bounce >= 0 ? 1 - bounce : 1 / (1 + bounce)
    return try swiftUI(response: duration, dampingFraction: zeta, initialVelocity: initialVelocity)
  }
}

// MARK: - Codable

extension Spring {
  private enum CodingKeys: String, CodingKey { case mass, stiffness, damping, initialVelocity }

  /// Decodes the four parameters, each defaulting to CASpringAnimation's (mass 1,
  /// stiffness 100, damping 10, initialVelocity 0), and validates like
  /// `init(mass:stiffness:damping:initialVelocity:)`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let m = try c.decodeIfPresent(Double.self, forKey: .mass) ?? 1
    let k = try c.decodeIfPresent(Double.self, forKey: .stiffness) ?? 100
    let d = try c.decodeIfPresent(Double.self, forKey: .damping) ?? 10
    let v = try c.decodeIfPresent(Double.self, forKey: .initialVelocity) ?? 0
    do {
      try self.init(mass: m, stiffness: k, damping: d, initialVelocity: v)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: error.description))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(mass, forKey: .mass)
    try c.encode(stiffness, forKey: .stiffness)
    try c.encode(damping, forKey: .damping)
    try c.encode(initialVelocity, forKey: .initialVelocity)
  }
}
