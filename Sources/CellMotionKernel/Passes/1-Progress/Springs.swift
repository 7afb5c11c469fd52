// Pass 1 (KernelPass.progress), springs: the closed-form damped springs (under-, critically and over-damped) as
// types the spring stage specialises on, and any curve's progress at a local time.

import CellMotion
import Foundation

/// A damped spring's closed form (`CompiledCurve.underdamped`, `.critical`, `.overdamped`):
/// progress per lane at local time `local` (seconds in [0, duration]), exactly 1 from
/// `duration` on (the settled end). One type per damping regime, so the spring stage's
/// loop holds only its own arithmetic.
protocol SpringForm {
  func progress<L: FloatLanes>(_ local: L, duration: Float) -> L
  /// For a spring released at rest: its progress x0 and its impulse response g (the
  /// displacement per unit of initial velocity, `Spring.impulseResponse`) at `local`
  /// seconds (>= 0), with no cut at a duration (a velocity-carrying retarget).
  func motion<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L)
  /// x'(local), progress per second, for the compiled initial velocity, no cut.
  func velocity<L: FloatLanes>(_ local: L) -> L
  /// The rates of `motion`: x0'(local) = w0^2 g and g'(local) = E C - alpha E S.
  func motionVelocity<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L)
}

/// 1 - e^(-a t) (cos(wd t) + b sin(wd t)).
struct UnderdampedSpring: SpringForm {
  let a, wd, b: Float
  init(a: Float, wd: Float, b: Float) { (self.a, self.wd, self.b) = (a, wd, b) }
  @inline(__always)
  func progress<L: FloatLanes>(_ local: L, duration: Float) -> L {
    Self.progress(local, a: L(repeating: a), wd: L(repeating: wd), b: L(repeating: b), duration: L(repeating: duration))
  }
  /// The same with constants per lane (keyframe segments).
  @inline(__always)
  static func progress<L: FloatLanes>(_ local: L, a: L, wd: L, b: L, duration: L) -> L {
    // local x (-a): for constants broadcast across lanes the negation is loop-invariant.
    let e = L.exp(local * (L(repeating: 0) - a))
    let sc = L.sincos(local * wd)
    return (1 - e * (sc.cos + sc.sin * b)).replacing(with: L(repeating: 1), where: L.ge(local, duration))
  }
  @inline(__always)
  func motion<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L) {
    let e = L.exp(local * -a)
    let sc = L.sincos(local * wd)
    let es = e * sc.sin
    return (1 - L.muladd(es, b, e * sc.cos), es * (1 / wd))
  }
  /// x = 1 - e (cos + b sin): x' = e ((a - b wd) cos + (a b + wd) sin).
  @inline(__always)
  func velocity<L: FloatLanes>(_ local: L) -> L {
    let e = L.exp(local * -a)
    let sc = L.sincos(local * wd)
    return e * L.muladd(sc.sin, a * b + wd, sc.cos * (a - b * wd))
  }
  @inline(__always)
  func motionVelocity<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L) {
    let e = L.exp(local * -a)
    let sc = L.sincos(local * wd)
    let es = e * sc.sin * (1 / wd)
    return (es * (a * a + wd * wd), L.muladd(es, -a, e * sc.cos))
  }
}

/// 1 - (1 + c t) e^(-w0 t).
struct CriticalSpring: SpringForm {
  let w0, c: Float
  init(w0: Float, c: Float) { (self.w0, self.c) = (w0, c) }
  @inline(__always)
  func progress<L: FloatLanes>(_ local: L, duration: Float) -> L {
    Self.progress(local, w0: L(repeating: w0), c: L(repeating: c), duration: L(repeating: duration))
  }
  /// The same with constants per lane (keyframe segments).
  @inline(__always)
  static func progress<L: FloatLanes>(_ local: L, w0: L, c: L, duration: L) -> L {
    (1 - (local * c + 1) * L.exp(local * (L(repeating: 0) - w0))).replacing(with: L(repeating: 1), where: L.ge(local, duration))
  }
  @inline(__always)
  func motion<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L) {
    let e = L.exp(local * -w0)
    return (1 - (local * c + 1) * e, local * e)
  }
  /// x = 1 - (1 + c t) e^(-w0 t): x' = e (w0 (1 + c t) - c).
  @inline(__always)
  func velocity<L: FloatLanes>(_ local: L) -> L {
    let e = L.exp(local * -w0)
    return e * L.muladd(L.muladd(local, c, L(repeating: 1)), w0, L(repeating: -c))
  }
  @inline(__always)
  func motionVelocity<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L) {
    let e = L.exp(local * -w0)
    let es = local * e
    return (es * (w0 * w0), L.muladd(es, -w0, e))
  }
}

/// 1 - e^(-a t) (cosh(beta t) + c t sinh(beta t) / (beta t)).
struct OverdampedSpring: SpringForm {
  let a, beta, c, slow, fast: Float
  init(a: Float, beta: Float, c: Float, slow: Float, fast: Float) {
    (self.a, self.beta, self.c, self.slow, self.fast) = (a, beta, c, slow, fast)
  }
  @inline(__always)
  func progress<L: FloatLanes>(_ local: L, duration: Float) -> L {
    Self.progress(
      local, a: L(repeating: a), beta: L(repeating: beta), c: L(repeating: c), slow: L(repeating: slow),
      fast: L(repeating: fast), duration: L(repeating: duration))
  }
  /// The same with constants per lane (keyframe segments).
  @inline(__always)
  static func progress<L: FloatLanes>(_ local: L, a: L, beta: L, c: L, slow: L, fast: L, duration: L) -> L {
    // e^(-a t) cosh(beta t) = (e1 + e2) / 2 and e^(-a t) sinh(beta t) / (beta t) with
    // e1,2 = e^(-slow t), e^(-fast t) (slow = a - beta without cancellation), both
    // decaying (no overflow). For small y = beta t the difference cancels, so use the
    // series sinh(y)/y = 1 + y^2/6 + y^4/120 + y^6/5040 (relative error < 3e-9 for y < 0.5).
    let (cosh, sinhc) = hyperbolic(local, a: a, beta: beta, slow: slow, fast: fast)
    return (1 - (cosh + local * c * sinhc)).replacing(with: L(repeating: 1), where: L.ge(local, duration))
  }
  /// (e^(-a t) cosh(beta t), e^(-a t) sinh(beta t) / (beta t)) per lane.
  @inline(__always)
  static func hyperbolic<L: FloatLanes>(_ local: L, a: L, beta: L, slow: L, fast: L) -> (cosh: L, sinhc: L) {
    let zero = L(repeating: 0)
    let e1 = L.exp(local * (zero - slow)), e2 = L.exp(local * (zero - fast))
    let y = local * beta
    let y2 = y * y
    let series = L.exp(local * (zero - a)) * (((y2 * (1 / 5040) + (1 / 120)) * y2 + (1 / 6)) * y2 + 1)
    let direct = (e1 - e2) / L.maximum(y * 2, L(repeating: 1e-30))
    return ((e1 + e2) * 0.5, series.replacing(with: direct, where: L.ge(y, L(repeating: 0.5))))
  }
  @inline(__always)
  func motion<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L) {
    let (cosh, sinhc) = Self.hyperbolic(
      local, a: L(repeating: a), beta: L(repeating: beta), slow: L(repeating: slow), fast: L(repeating: fast))
    let es = local * sinhc
    return (1 - (cosh + es * c), es)
  }
  /// x = 1 - (Ch + c t Shc) with Ch = e^(-a t) cosh(beta t), t Shc = e^(-a t) sinh(beta t)
  /// / beta: x' = (a - c) Ch + (c a - beta^2) t Shc.
  @inline(__always)
  func velocity<L: FloatLanes>(_ local: L) -> L {
    let (cosh, sinhc) = Self.hyperbolic(
      local, a: L(repeating: a), beta: L(repeating: beta), slow: L(repeating: slow), fast: L(repeating: fast))
    return L.muladd(local * sinhc, c * a - beta * beta, cosh * (a - c))
  }
  @inline(__always)
  func motionVelocity<L: FloatLanes>(_ local: L) -> (progress: L, impulse: L) {
    let (cosh, sinhc) = Self.hyperbolic(
      local, a: L(repeating: a), beta: L(repeating: beta), slow: L(repeating: slow), fast: L(repeating: fast))
    let es = local * sinhc
    return (es * (a * a - beta * beta), L.muladd(es, -a, cosh))
  }
}

extension Kernel {
  /// The spring loop of `progressStage`: `count` cells' progress of `part` (a spring in
  /// the form `S`), inactive lanes at 1.
  static func springStage<L: FloatLanes, S: SpringForm>(
    _: L.Type, _ spring: S, _ part: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock, count: Int,
    into out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>? = nil
  ) {
    // The part's fields in locals first (read through the pointer in the loop they were
    // reloaded per group: the stores to `out` might alias them).
    let dur = part.pointee.duration, delay = part.pointee.delay, endLocalTime = part.pointee.endLocalTime
    @inline(__always) func progress(_ input: L) -> L {
      let (local, inactive) = partLocalTime(
        duration: dur, delay: delay, endLocalTime: endLocalTime, r, clock, input: input)
      return spring.progress(local, duration: dur).replacing(with: L(repeating: 1), where: inactive)
    }
    var i = 0
    // Two loops: the one without rates (every frame that does not ask for velocities)
    // tests nothing per group, and the stage is small enough to be inlined into the
    // progress pass (moveUpBounce/simd8 and its affine form: 32.3 -> 29.5 instructions a
    // cell).
    guard let rates else {
      while i < count {
        progress(loadGroup(clock.input + i, count &- i)).store(to: out + i)
        i &+= L.width
      }
      return
    }
    while i < count {
      let input: L = loadGroup(clock.input + i, count &- i)
      progress(input).store(to: out + i)
      // d(progress)/d(driver), as `partRate` and the spring's x'(t) define it.
      let (rateLocal, factor) = partRate(duration: dur, delay: delay, r, clock, input: input)
      (spring.velocity(rateLocal).replacing(with: L(repeating: 0), where: L.ge(rateLocal, L(repeating: dur))) * factor)
        .store(to: rates + i)
      i &+= L.width
    }
  }

  /// Progress of `curve` at local time `local` (seconds in [0, duration]) per lane, any
  /// curve, its solve read at run time (the stages specialise instead; tests and the
  /// run-time fallback use this).
  static func curveProgress<L: FloatLanes>(_ curve: CompiledCurve, local: L, duration dur: Float) -> L {
    switch curve {
    case .bezier, .fittedBezier, .rootFittedBezier:
      let c = BezierConstants(curve).unsafelyUnwrapped, x = L.clamp(local * (1 / dur), 0, 1)
      switch c.solve {
      case .newton: return RuntimeNewtonSolve.progress(x, c)
      case .fitted: return RuntimeFittedSolve.progress(x, c)
      case .rootFitted: return RuntimeRootFittedSolve.progress(x, c)
      }
    case .underdamped(let a, let wd, let b):
      return UnderdampedSpring(a: a, wd: wd, b: b).progress(local, duration: dur)
    case .critical(let w0, let c):
      return CriticalSpring(w0: w0, c: c).progress(local, duration: dur)
    case .overdamped(let a, let beta, let c, let slow, let fast):
      return OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast).progress(local, duration: dur)
    }
  }
}
