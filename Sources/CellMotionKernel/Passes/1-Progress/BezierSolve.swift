// Pass 1 (KernelPass.progress), Bezier curves: local time fraction x to progress y(s(x)), solving x(s) = x per
// lane by safeguarded Newton steps or a fitted inverse, with the solve chosen per curve
// when the recipe is compiled (`SolvePath`).

import CellMotion
import Foundation

/// A Bezier curve's compiled constants, as the solves read them: x(s) = ((ax s + bx) s +
/// cx) s and y(s) likewise, the Newton solve's step count and first guess, or the fitted
/// inverse (`InverseFit`) with its correction count. Plain Floats and vectors, no optional
/// or enum payload: made once per part (`CompiledPart.bezier`), so a block's stage reads
/// them without unpacking `CompiledCurve` (whose payload projection, a byte store into the
/// copy then 32-byte loads over it, stalled store forwarding in every block's prologue).
struct BezierConstants: Sendable, Hashable {
  enum Solve: Sendable, Hashable { case newton, fitted, rootFitted }
  let ax, bx, cx, ay, by, cy: Float
  let solve: Solve
  /// Newton steps, or corrections after a fitted inverse.
  let steps: Int
  let quadraticGuess: Bool
  /// The fitted inverse (`InverseFit.p`, `.dp`, `.degree`, `.rootScale`, `.rootOffset`);
  /// zeros for a Newton solve.
  let p: SIMD16<Float>
  let dp: SIMD16<Float>
  let degree: Int
  let rootScale: Float
  let rootOffset: Float
  /// dy/dx at x = 0 and x = 1 as the reference gives it (`TimingCurve.slope(at:)`: the
  /// ratio of second derivatives where both first derivatives vanish, the mean slope over
  /// `TimingCurve.tangentWindow` at a vertical tangent): what `bezierSlope` takes where
  /// x'(s) vanishes, which only happens at an end.
  let flatStart: Float
  let flatEnd: Float

  init(
    _ a: (Float, Float, Float, Float, Float, Float), solve: Solve, steps: Int, quadraticGuess: Bool,
    fit: InverseFit?
  ) {
    (ax, bx, cx, ay, by, cy) = a
    (self.solve, self.steps, self.quadraticGuess) = (solve, steps, quadraticGuess)
    p = fit?.p ?? SIMD16(repeating: 0)
    dp = fit?.dp ?? SIMD16(repeating: 0)
    degree = fit?.degree ?? 0
    rootScale = fit?.rootScale ?? 1
    rootOffset = fit?.rootOffset ?? 0
    (flatStart, flatEnd) = Self.endSlopes(a)
  }

  /// The reference's slopes at x = 0 and x = 1 of the curve with these power-basis
  /// coefficients: its control points recovered (x1 = cx / 3, x2 = (bx + 2 cx) / 3, the same
  /// for y; within 1e-6 of an end snapped to it, as the Float coefficients round them).
  static func endSlopes(_ a: (Float, Float, Float, Float, Float, Float)) -> (Float, Float) {
    func point(_ b: Float, _ c: Float) -> (Double, Double) {
      let p1 = Double(c) / 3, p2 = (Double(b) + 2 * Double(c)) / 3
      return (p1, p2)
    }
    func snap(_ v: Double) -> Double { abs(v) < 1e-6 ? 0 : abs(1 - v) < 1e-6 ? 1 : v }
    let (x1, x2) = point(a.1, a.2), (y1, y2) = point(a.4, a.5)
    guard let curve = try? TimingCurve(x1: min(max(snap(x1), 0), 1), y1: snap(y1), x2: min(max(snap(x2), 0), 1), y2: snap(y2))
    else { return (1, 1) }
    return (Float(curve.slope(at: 0)), Float(curve.slope(at: 1)))
  }

  /// The constants of a Bezier curve; nil for a spring.
  init?(_ curve: CompiledCurve) {
    switch curve {
    case .bezier(let a0, let a1, let a2, let a3, let a4, let a5, let st, let g):
      self.init((a0, a1, a2, a3, a4, a5), solve: .newton, steps: st, quadraticGuess: g, fit: nil)
    case .fittedBezier(let a0, let a1, let a2, let a3, let a4, let a5, let f, let st):
      self.init((a0, a1, a2, a3, a4, a5), solve: .fitted, steps: st, quadraticGuess: false, fit: f)
    case .rootFittedBezier(let a0, let a1, let a2, let a3, let a4, let a5, let f, let st):
      self.init((a0, a1, a2, a3, a4, a5), solve: .rootFitted, steps: st, quadraticGuess: false, fit: f)
    case .underdamped, .critical, .overdamped:
      return nil
    }
  }

  /// What a spring part holds (`CompiledPart.bezier`; no stage reads it).
  static var none: BezierConstants {
    BezierConstants((0, 0, 1, 0, 0, 1), solve: .newton, steps: 0, quadraticGuess: false, fit: nil)
  }
}

/// How `Kernel.bezierStage` solves a curve: each conforming type is one loop of the
/// progress stage (`SolvePath`). The specialised ones have their counts as compile-time
/// constants (the loop unrolls to straight-line code); the run-time ones read them from the
/// curve. One `progress` per type: the stage calls exactly one solve.
protocol BezierSolve {
  /// Progress y(s(x)) per lane for x in [0, 1], the ends exact.
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L
  /// `progress` and the parameter s(x) it solved for, at once (the progress stage keeps s
  /// for the velocity stage: dy/dx = y'(s) / x'(s)): the same arithmetic as `progress`, so
  /// the same bits.
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L)
}

/// Newton's solve with `n` steps, from the quadratic first guess when `guess` is 1 (Swift's
/// integer generic parameters). The progress stage runs the run-time loop for these; the
/// tests hold it to this one's bits.
enum NewtonSolve<let n: Int, let guess: Int>: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L {
    Kernel.bezierProgress(x, c.ax, c.bx, c.cx, c.ay, c.by, c.cy, steps: n, quadraticGuess: guess != 0)
  }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    let s = Kernel.bezierParameterLanes(
      x, L(repeating: c.ax), L(repeating: c.bx), L(repeating: c.cx), steps: n, quadraticGuess: guess != 0)
    return (Kernel.bezierY(s, x, c), s)
  }
}

/// y = x: the identity polynomials x(s) = y(s) = s (`SolvePath.identity`, a curve on the
/// diagonal such as linear; every scroll effect's timing). The bits of `NewtonSolve<0, 0>`
/// on those polynomials, ((0 s + 0) s + 1) s = s with the ends made exact, without its
/// cubic or its selects: x arrives clamped to [0, 1] (the progress stage's callers), and
/// adding 0 turns a -0 at the start into the +0 that select gives.
enum IdentitySolve: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L {
    x + L(repeating: 0)
  }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    (progress(x, c), x)
  }
}

/// A fitted inverse of degree `d` with `n` corrections.
enum FittedSolve<let d: Int, let n: Int>: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L {
    Kernel.fittedBezierProgress(x, c.ax, c.bx, c.cx, c.ay, c.by, c.cy, p: c.p, dp: c.dp, degree: d, steps: n)
  }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    let s: L = Kernel.fittedBezierParameter(x, c.ax, c.bx, c.cx, p: c.p, dp: c.dp, degree: d, steps: n)
    return (Kernel.bezierY(s, x, c), s)
  }
}

/// A fitted inverse in a square-root domain, degree `d`, `n` Newton corrections.
enum RootFittedSolve<let d: Int, let n: Int>: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L {
    Kernel.rootFittedBezierProgress(
      x, c.ax, c.bx, c.cx, c.ay, c.by, c.cy, p: c.p, scale: c.rootScale, offset: c.rootOffset, degree: d, steps: n)
  }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    let s: L = Kernel.rootFittedBezierParameter(
      x, c.ax, c.bx, c.cx, p: c.p, scale: c.rootScale, offset: c.rootOffset, degree: d, steps: n)
    return (Kernel.bezierY(s, x, c), s)
  }
}

/// Newton's solve with the curve's own step count and first guess, read at run time.
enum RuntimeNewtonSolve: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L { solve(x, c).progress }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    let s = Kernel.bezierParameterLanes(
      x, L(repeating: c.ax), L(repeating: c.bx), L(repeating: c.cx), steps: c.steps, quadraticGuess: c.quadraticGuess)
    return (Kernel.bezierY(s, x, c), s)
  }
}

/// A fitted inverse with the curve's own corrections, its polynomial evaluated to degree 8
/// whatever the fit's degree: the coefficients above the degree are 0, and Estrin's scheme
/// then adds exact zeros, so any degree up to 8 gives the bits of its own degree.
enum RuntimeFittedSolve: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L { solve(x, c).progress }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    let s: L = Kernel.fittedBezierParameter(
      x, c.ax, c.bx, c.cx, p: c.p, dp: c.dp, degree: InverseFit.maximumDegree, steps: c.steps)
    return (Kernel.bezierY(s, x, c), s)
  }
}

/// A square-root fit with the curve's own corrections, evaluated to degree 8 as
/// `RuntimeFittedSolve`.
enum RuntimeRootFittedSolve: BezierSolve {
  @inline(__always)
  static func progress<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L { solve(x, c).progress }
  @inline(__always)
  static func solve<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> (progress: L, parameter: L) {
    let s: L = Kernel.rootFittedBezierParameter(
      x, c.ax, c.bx, c.cx, p: c.p, scale: c.rootScale, offset: c.rootOffset, degree: InverseFit.maximumDegree,
      steps: c.steps)
    return (Kernel.bezierY(s, x, c), s)
  }
}

extension Kernel {
  /// Solves x(s) = x for the Bezier parameter, per lane, branch-free: a fixed number of
  /// Newton steps, each safeguarded by a bracket [lo, hi] that bisection falls back to
  /// where Newton would leave it (or its derivative vanishes). x(s) is non-decreasing
  /// because the x control points lie in [0, 1], so the bracket is valid.
  @inline(__always)
  static func bezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float,
    steps: Int = bezierSteps, quadraticGuess: Bool = true
  ) -> L {
    bezierProgressLanes(
      x, L(repeating: ax), L(repeating: bx), L(repeating: cx), L(repeating: ay), L(repeating: by), L(repeating: cy),
      steps: steps, quadraticGuess: quadraticGuess)
  }

  /// `bezierProgress` with a curve per lane (keyframe segments: each lane's own segment's
  /// coefficients); the same arithmetic, so a uniform curve gives the same bits.
  @inline(__always)
  static func bezierProgressLanes<L: FloatLanes>(
    _ x: L, _ ax: L, _ bx: L, _ cx: L, _ ay: L, _ by: L, _ cy: L, steps: Int = bezierSteps, quadraticGuess: Bool = true
  ) -> L {
    let s = bezierParameterLanes(x, ax, bx, cx, steps: steps, quadraticGuess: quadraticGuess)
    let y = L.muladd(L.muladd(s, ay, by), s, cy) * s
    // The ends are exact (0 -> 0, 1 -> 1), as in the reference; the Float polynomial at
    // s = 1 is not exactly 1, and x'(1) = 0 for curves with x2 = 1 stalls Newton there.
    let end = L.ge(x, L(repeating: 1))
    return y.replacing(with: L(repeating: 1), where: end)
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// The Bezier parameter s with x(s) = x per lane: the safeguarded Newton solve of
  /// `bezierProgressLanes`.
  @inline(__always)
  static func bezierParameterLanes<L: FloatLanes>(
    _ x: L, _ ax: L, _ bx: L, _ cx: L, steps: Int = bezierSteps, quadraticGuess: Bool = true
  ) -> L {
    // Well-conditioned curves converge from s = x in as few steps as the quadratic guess
    // needs plus its own cost (a square root and a divide); the compiler picks per curve.
    var s = x
    if quadraticGuess { s = quadraticFirstGuess(x, ax, bx, cx) }
    var lo = L(repeating: 0), hi = L(repeating: 1)
    let ax3 = ax * 3, bx2 = bx * 2
    let negX = L(repeating: 0) - x
    for _ in 0..<steps {
      let fx = L.muladd(L.muladd(L.muladd(s, ax, bx), s, cx), s, negX)
      let below = L.lt(fx, L(repeating: 0))
      lo = lo.replacing(with: s, where: below)
      hi = s.replacing(with: hi, where: below)
      let d = L.muladd(L.muladd(s, ax3, bx2), s, cx)
      let newton = s - fx / d
      let mid = (lo + hi) * 0.5
      // Keep Newton inside the bracket, ends included (a converged step lands on one);
      // NaN and infinities fail this test and bisect instead.
      let inside = L.and(L.ge(newton, lo), L.ge(hi, newton))
      s = mid.replacing(with: newton, where: inside)
    }
    return s
  }

  /// dy/dx of a Bezier per lane at time fraction x in [0, 1], at the parameter the most
  /// accurate Newton solve finds (`bezierSteps` steps from the quadratic guess), whatever
  /// solve the curve's progress takes: one loop for every curve (the velocity stage reads
  /// the progress stage's own parameters instead where it kept them).
  @inline(__always)
  static func bezierSlope<L: FloatLanes>(_ x: L, _ c: BezierConstants) -> L {
    let s = bezierParameterLanes(
      L.clamp(x, 0, 1), L(repeating: c.ax), L(repeating: c.bx), L(repeating: c.cx), steps: bezierSteps,
      quadraticGuess: true)
    return bezierSlope(atParameter: s, c)
  }

  /// dy/dx at the parameter `s` (clamped to [0, 1]) a solve found, as `bezierSlope`.
  /// Inlining guaranteed: with the hint alone it stayed a call per lane group in the
  /// progress stage's rate loops (its vectors through memory).
  @inline(always)
  static func bezierSlope<L: FloatLanes>(atParameter parameter: L, _ c: BezierConstants) -> L {
    let cx = L(repeating: c.cx)
    let s = L.clamp(parameter, 0, 1)
    let dx = L.muladd(L.muladd(s, c.ax * 3, L(repeating: c.bx * 2)), s, cx)
    let dy = L.muladd(L.muladd(s, c.ay * 3, L(repeating: c.by * 2)), s, L(repeating: c.cy))
    // Where x'(s) vanishes (x'(s) >= 0; only at an end) the reference's slope there
    // (`flatStart`, `flatEnd`).
    let flat = L.lt(dx, L(repeating: 1e-6))
    let end = L(repeating: c.flatEnd).replacing(with: L(repeating: c.flatStart), where: L.lt(s, L(repeating: 0.5)))
    return (dy / dx).replacing(with: end, where: flat)
  }

  /// y(s) with the exact ends (0 at x <= 0, 1 at x >= 1): the last step of every solve's
  /// `progress`, the same arithmetic.
  @inline(__always)
  static func bezierY<L: FloatLanes>(_ s: L, _ x: L, _ c: BezierConstants) -> L {
    let y = L.muladd(L.muladd(s, L(repeating: c.ay), L(repeating: c.by)), s, L(repeating: c.cy)) * s
    return y.replacing(with: L(repeating: 1), where: L.ge(x, L(repeating: 1)))
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// Progress of a Bezier through its fitted inverse (`CompiledCurve.fittedBezier`): s0 =
  /// P(x), then `steps` corrections s -= (x(s) - x) P'(x), then y(s). (No clamp of s0: P
  /// stays within its fit error of [0, 1] for x in [0, 1], and the compiler checked the
  /// result near both ends.)
  /// Multiply-adds only: no divide, no select until the exact ends. `p` and `dp` are
  /// `InverseFit.p` and `.dp`.
  @inline(__always)
  static func fittedBezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float,
    p: SIMD16<Float>, dp: SIMD16<Float>, degree: Int, steps: Int
  ) -> L {
    let s = fittedBezierParameter(x, ax, bx, cx, p: p, dp: dp, degree: degree, steps: steps)
    let y = L.muladd(L.muladd(s, ay, by), s, cy) * s
    // The ends exact, as in `bezierProgress`.
    return y.replacing(with: L(repeating: 1), where: L.ge(x, L(repeating: 1)))
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// The parameter s of `fittedBezierProgress`: the fit, then `steps` corrections.
  @inline(__always)
  static func fittedBezierParameter<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, p: SIMD16<Float>, dp: SIMD16<Float>, degree: Int, steps: Int
  ) -> L {
    let t = L.muladd(x, 2, -1), t2 = t * t, t4 = t2 * t2
    var s = estrin(p, degree: degree, t, t2, t4)
    let negD = L(repeating: 0) - estrin(dp, degree: degree - 1, t, t2, t4)
    let negX = L(repeating: 0) - x
    for _ in 0..<steps {
      let fx = L.muladd(L.muladd(L.muladd(s, ax, bx), s, cx), s, negX)
      s = L.muladd(fx, negD, s)
    }
    return s
  }

  /// The polynomial with coefficients `c` (lowest first, degree <= 15) at t, by Estrin's
  /// scheme: pairs c_2j + c_2j+1 t, then pairs of those with t^2, t^4, t^8. The same
  /// multiply-add count as Horner's rule, but a dependency chain of about log2(degree)
  /// steps instead of `degree` (the solve is latency-bound). `degree` is a constant in
  /// the specialised kernels, so every test here folds away.
  @inline(__always)
  static func estrin<L: FloatLanes>(_ c: SIMD16<Float>, degree d: Int, _ t: L, _ t2: L, _ t4: L) -> L {
    @inline(__always) func q(_ j: Int) -> L {
      2 * j + 1 <= d ? L.muladd(t, L(repeating: c[2 * j + 1]), L(repeating: c[2 * j])) : L(repeating: c[2 * j])
    }
    @inline(__always) func r(_ j: Int) -> L { 4 * j + 2 <= d ? L.muladd(t2, q(2 * j + 1), q(2 * j)) : q(2 * j) }
    @inline(__always) func u(_ j: Int) -> L { 8 * j + 4 <= d ? L.muladd(t4, r(2 * j + 1), r(2 * j)) : r(2 * j) }
    return d >= 8 ? L.muladd(t4 * t4, u(1), u(0)) : u(0)
  }

  /// `fittedBezierProgress` with the fit's own degree.
  static func fittedBezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float, _ fit: InverseFit,
    steps: Int
  ) -> L {
    fittedBezierProgress(x, ax, bx, cx, ay, by, cy, p: fit.p, dp: fit.dp, degree: fit.degree, steps: steps)
  }

  /// Progress of a Bezier with a flat end in x through its square-root fit
  /// (`CompiledCurve.rootFittedBezier`): v = sqrt(x * scale + offset) (sqrt(x) or
  /// sqrt(1 - x), `InverseFit.rootScale`/`rootOffset`), s0 = offset + v P(v), then `steps` Newton
  /// steps s -= (x(s) - x) / x'(s), each kept only where it lands in [0, 1] (x'(s) = 0 at
  /// the flat end itself gives 0/0 there, which fails the test), then y(s) with the exact
  /// ends. One square root and one divide per correction, against the Newton solve's
  /// square root and divide for the first guess plus a divide per step.
  @inline(__always)
  static func rootFittedBezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float,
    p: SIMD16<Float>, scale: Float, offset: Float, degree: Int, steps: Int
  ) -> L {
    let s = rootFittedBezierParameter(x, ax, bx, cx, p: p, scale: scale, offset: offset, degree: degree, steps: steps)
    let y = L.muladd(L.muladd(s, ay, by), s, cy) * s
    // The ends exact, as in `bezierProgress`.
    return y.replacing(with: L(repeating: 1), where: L.ge(x, L(repeating: 1)))
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// The parameter s of `rootFittedBezierProgress`: the square-root fit, then `steps`
  /// Newton corrections kept inside [0, 1].
  @inline(__always)
  static func rootFittedBezierParameter<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, p: SIMD16<Float>, scale: Float, offset: Float, degree: Int,
    steps: Int
  ) -> L {
    let v = L.sqrt(L.maximum(L.muladd(x, scale, offset), L(repeating: 0)))
    let t = L.muladd(v, 2, -1), t2 = t * t, t4 = t2 * t2
    var s = L.muladd(v, estrin(p, degree: degree, t, t2, t4), L(repeating: offset))
    let ax3 = ax * 3, bx2 = bx * 2
    let negX = L(repeating: 0) - x
    for _ in 0..<steps {
      let fx = L.muladd(L.muladd(L.muladd(s, ax, bx), s, cx), s, negX)
      let d = L.muladd(L.muladd(s, ax3, bx2), s, cx)
      let newton = s - fx / d
      s = s.replacing(with: newton, where: L.and(L.ge(newton, L(repeating: 0)), L.ge(L(repeating: 1), newton)))
    }
    return s
  }

  /// `rootFittedBezierProgress` with the fit's own degree and domain.
  static func rootFittedBezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float, _ fit: InverseFit,
    steps: Int
  ) -> L {
    rootFittedBezierProgress(
      x, ax, bx, cx, ay, by, cy, p: fit.p, scale: fit.rootScale, offset: fit.rootOffset,
      degree: fit.degree, steps: steps)
  }

  /// The quadratic first guess of `bezierProgress`, in [0, 1].
  @inline(__always)
  static func quadraticFirstGuess<L: FloatLanes>(_ x: L, _ ax: L, _ bx: L, _ cx: L) -> L {
    // First guess from the quadratic expansion at the nearer end, exact as s -> 0 or 1,
    // where x'(s) may vanish (x1 = 0 or x2 = 1) and plain Newton from s = x crawls:
    // near 0, x ~ cx s + bx s^2; near 1, 1 - x ~ d u + e u^2 with u = 1 - s,
    // d = x'(1) = 3ax + 2bx + cx, e = -(3ax + bx). Solved in the cancellation-free form
    // r = 2 c / (b + sqrt(b^2 + 4 a c)).
    let back = L.ge(x, L(repeating: 0.5))
    let xr = x.replacing(with: 1 - x, where: back)
    let qa = bx.replacing(with: L(repeating: 0) - (ax * 3 + bx), where: back)
    let qb = cx.replacing(with: ax * 3 + bx * 2 + cx, where: back)
    let disc = L.maximum(qb * qb + qa * xr * 4, L(repeating: 0))
    let r = (xr * 2) / (qb + L.sqrt(disc))
    var s = L.clamp(r.replacing(with: 1 - r, where: back), 0, 1)
    // 0/0 (degenerate curves) fails every comparison: start from x there.
    s = x.replacing(with: s, where: L.and(L.ge(s, L(repeating: 0)), L.ge(L(repeating: 1), s)))
    return s
  }

  /// Most Newton/bisection steps of `bezierProgress`: 8 keep the kernel within 2e-6 of the
  /// exact progress on the presets and 1e-5 on random curves with near-vertical ends
  /// (measured by KernelDifferentialTests.bezierSolveBound). Each compiled curve runs the
  /// fewest steps that do as well (`CompiledCurve.newtonSteps`).
  static var bezierSteps: Int { 8 }
}
