// CompiledCurve: a timing curve flattened into Float constants for the kernel, with the
// Bezier solve chosen per curve (Newton steps or a fitted inverse) on a dense grid.

import CellMotion
import Foundation

/// How a timed part turns local time into progress.
package enum CompiledCurve: Sendable, Hashable {
  /// x(s) = ((ax s + bx) s + cx) s, y likewise; s solved per lane by `steps` safeguarded
  /// Newton steps from s = x or from the quadratic first guess (`quadraticGuess`): the
  /// cheapest choice that matches 8 steps from the guess on a dense grid (`newtonSteps`).
  case bezier(ax: Float, bx: Float, cx: Float, ay: Float, by: Float, cy: Float, steps: Int, quadraticGuess: Bool)
  /// The same polynomials, s from a fitted inverse instead of a Newton solve: s0 = P(x), a
  /// polynomial approximation of the exact inverse of x(s), then `steps` corrections
  /// s -= (x(s) - x) P'(x) (Newton's step with the derivative taken from the fit: no
  /// divide, no select). Chosen only for curves whose inverse is smooth (x'(s) >= 0.05 on
  /// [0, 1]) and where the kernel's Float result is as accurate as the Newton solve on
  /// the dense grid of `newtonSteps`, at lower cost (`fittedSolve`); easeInEaseOut (tip-in)
  /// is one.
  case fittedBezier(ax: Float, bx: Float, cx: Float, ay: Float, by: Float, cy: Float, fit: InverseFit, steps: Int)
  /// The same polynomials for a curve with a flat end in x (x'(0) = 0 or x'(1) = 0:
  /// easeOut, easeIn), whose inverse is not smooth in x: s0 = P(v) with v = sqrt(x) or
  /// sqrt(1 - x) (`InverseFit.Domain`; one square root), then `steps` safeguarded Newton
  /// steps s -= (x(s) - x) / x'(s) (kept only where they stay in [0, 1]). Chosen, like
  /// `fittedBezier`, only where it is as accurate as the Newton solve on the dense grid and
  /// cheaper (`fittedSolve`).
  case rootFittedBezier(ax: Float, bx: Float, cx: Float, ay: Float, by: Float, cy: Float, fit: InverseFit, steps: Int)
  /// 1 - e^(-a t) (cos(wd t) + b sin(wd t)); a = zeta w0, b = (a - v0) / wd.
  case underdamped(a: Float, wd: Float, b: Float)
  /// 1 - (1 + c t) e^(-w0 t); c = w0 - v0.
  case critical(w0: Float, c: Float)
  /// 1 - e^(-a t) (cosh(beta t) + c t sinh(beta t)/(beta t)); c = a - v0, beta = w0 sqrt(zeta^2 - 1);
  /// `slow` = a - beta, computed as w0^2 / (a + beta) (no cancellation: for large zeta,
  /// a - beta in Float is all rounding error and can even come out positive, an
  /// exponential that grows), and `fast` = a + beta: the two decay rates, 1/s.
  case overdamped(a: Float, beta: Float, c: Float, slow: Float, fast: Float)

  /// Compiles a (validated) curve: Bezier power-basis coefficients and step count, or the
  /// spring's closed-form constants (rad/s, 1/s).
  package init(_ curve: AnimationCurve) {
    CurveCompilationCounter.current?.increment()
    switch curve {
    case .bezier(let b) where b.isIdentity:
      // y(s(x)) = x: the identity polynomials x(s) = y(s) = s, which no step changes.
      self = .bezier(ax: 0, bx: 0, cx: 1, ay: 0, by: 0, cy: 1, steps: 0, quadraticGuess: false)
    case .bezier(let b):
      if let known = BezierSolveCache.shared[b] {
        self = known
        return
      }
      self = Self.compileBezier(b)
      BezierSolveCache.shared[b] = self
    case .spring(let s):
      let w0 = s.naturalFrequency, zeta = s.dampingRatio, v0 = s.initialVelocity
      let a = zeta * w0
      switch s.regime {
      case .underdamped:
        let wd = w0 * (1 - zeta * zeta).squareRoot()
        self = .underdamped(a: Float(a), wd: Float(wd), b: Float((a - v0) / wd))
      case .critical:
        self = .critical(w0: Float(w0), c: Float(w0 - v0))
      case .overdamped:
        let beta = w0 * ((zeta - 1) * (zeta + 1)).squareRoot()
        self = .overdamped(
          a: Float(a), beta: Float(beta), c: Float(a - v0), slow: Float(w0 * w0 / (a + beta)), fast: Float(a + beta))
      }
    }
  }

  /// A Bezier's power-basis coefficients with its solve chosen on the dense grid
  /// (`newtonSteps`, `fittedSolve`): deterministic, and the costly part of compiling.
  static func compileBezier(_ b: TimingCurve) -> CompiledCurve {
    let p = b.polynomial
    let c = (Float(p.ax), Float(p.bx), Float(p.cx), Float(p.ay), Float(p.by), Float(p.cy))
    let grid = SolveGrid(c, exact: b)
    let solve = Self.newtonSteps(c, grid)
    if let fitted = Self.fittedSolve(c, exact: b, grid, newton: solve) {
      if fitted.fit.domain == .x {
        return .fittedBezier(ax: c.0, bx: c.1, cx: c.2, ay: c.3, by: c.4, cy: c.5, fit: fitted.fit, steps: fitted.steps)
      }
      return .rootFittedBezier(ax: c.0, bx: c.1, cx: c.2, ay: c.3, by: c.4, cy: c.5, fit: fitted.fit, steps: fitted.steps)
    }
    return .bezier(
      ax: c.0, bx: c.1, cx: c.2, ay: c.3, by: c.4, cy: c.5, steps: solve.steps, quadraticGuess: solve.quadraticGuess)
  }

  /// The cheapest (steps, first guess) after which the kernel's Float solve of this curve
  /// is as close to the exact progress as 8 steps from the quadratic guess, plus 1e-7,
  /// on a dense grid: x = i / 1024 and x = 2^-j, 1 - 2^-j near the ends, where the
  /// tangent may be vertical. The quadratic first guess is exact to second order, so well
  /// conditioned curves need 2-4 steps (easeInEaseOut: see the test); the kernel runs the
  /// same count on every lane, so no lane branches.
  static func newtonSteps(_ c: (Float, Float, Float, Float, Float, Float), _ grid: SolveGrid) -> (
    steps: Int, quadraticGuess: Bool
  ) {
    func meetsTarget(_ steps: Int, _ guess: Bool) -> Bool {
      grid.meets(
        { Kernel.bezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, steps: steps, quadraticGuess: guess) },
        scaled: grid.target, absolute: .infinity)
    }
    // The guess costs about two steps (a square root, a divide and selects).
    for cost in 1...(Kernel.bezierSteps + 2) {
      if cost <= Kernel.bezierSteps, meetsTarget(cost, false) { return (cost, false) }
      if cost > 2, meetsTarget(cost - 2, true) { return (cost - 2, true) }
    }
    return (Kernel.bezierSteps, true)
  }

  /// The dense grid of `newtonSteps` with the exact progress, the slope scales and the
  /// accuracy every solve must reach: as close to the exact progress as 8 Newton steps from
  /// the quadratic guess, plus 1e-7.
  struct SolveGrid {
    var xs: [Float]
    var exact: [Double]
    var scales: [Double]
    var target = 0.0
    init(_ c: (Float, Float, Float, Float, Float, Float), exact curve: TimingCurve) {
      xs = (0...1024).map { Float($0) / 1024 }
      for j in 1...24 {
        let e = Float(sign: .plus, exponent: -j, significand: 1)
        xs.append(e)
        xs.append(1 - e)
      }
      // Exact progress, scaled as in the kernel tests: where |dy/dx| is large, Float
      // rounding of x alone moves y, whatever the solver does.
      let exactValues = xs.map { curve.valueAndSlope(at: Double($0)) }
      exact = exactValues.map(\.value)
      scales = exactValues.map { max(1, abs($0.slope) / 5) }
      target =
        worst { Kernel.bezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, steps: Kernel.bezierSteps, quadraticGuess: true) }
        + 1e-7
    }
    /// Worst error of `solve` over the grid, slope-scaled (or not); NaN counts as infinite.
    func worst(_ solve: (Float) -> Float, scaled: Bool = true) -> Double {
      var w = 0.0
      for (i, x) in xs.enumerated() {
        let e = abs(Double(solve(x)) - exact[i]) / (scaled ? scales[i] : 1)
        w = e.isNaN ? .infinity : max(w, e)
      }
      return w
    }
    /// Whether `solve` is within `scaled` of the exact progress everywhere on the grid
    /// after slope scaling, and within `absolute` unscaled; stops at the first point that
    /// is not (most candidate solves fail early). NaN fails.
    func meets(_ solve: (Float) -> Float, scaled: Double, absolute: Double) -> Bool {
      for (i, x) in xs.enumerated() {
        let error = abs(Double(solve(x)) - exact[i])
        if !(error <= absolute && error / scales[i] <= scaled) { return false }
      }
      return true
    }
  }

  /// Relative cost of the solves per lane group, in multiply-adds, weighted for latency
  /// (the solve is a dependency chain per group, so a sequential step costs more than
  /// operations that run side by side): a Newton step about 16 (a divide and three
  /// selects in the chain), the quadratic guess about 32; a fitted inverse of degree d with
  /// k corrections 2d + 8k + 3 (two Estrin polynomials, then four chained multiply-adds per
  /// correction).
  static func newtonCost(steps: Int, quadraticGuess: Bool) -> Int { 16 * steps + (quadraticGuess ? 32 : 0) }
  static func fittedCost(degree: Int, steps: Int) -> Int { 2 * degree + 8 * steps + 3 }
  /// A square-root fit: the root about 16, P by Estrin 2 d, each Newton correction 16.
  static func rootFittedCost(degree: Int, steps: Int) -> Int { 16 + 2 * degree + 16 * steps + 3 }

  /// The cheapest fitted inverse that meets the grid's target and costs less than the
  /// Newton solve, or nil:
  /// - curves with x'(s) >= 0.05 on [0, 1] (the inverse s(x) is smooth, its polynomial
  ///   fit converges, and the grid's spacing is fine against its variation): a fit in x,
  ///   degree 4-8, 1-3 corrections (`fittedBezier`);
  /// - curves flatter than that at one end only (x'(0) or x'(1) near 0: easeOut, easeIn):
  ///   a fit in the square root of the distance from that end, degree 4-8, 1-2 Newton
  ///   corrections (`rootFittedBezier`). Curves flat at both ends, or in the middle, keep
  ///   the Newton solve.
  static func fittedSolve(
    _ c: (Float, Float, Float, Float, Float, Float), exact curve: TimingCurve, _ grid: SolveGrid,
    newton: (steps: Int, quadraticGuess: Bool)
  ) -> (fit: InverseFit, steps: Int)? {
    let p = curve.polynomial
    // x'(s) = 3 ax s^2 + 2 bx s + cx: its minimum on [0, 1] is at an end or the vertex.
    func slope(_ s: Double) -> Double { (3 * p.ax * s + 2 * p.bx) * s + p.cx }
    var interior = [0.5]
    if p.ax != 0 {
      let vertex = -p.bx / (3 * p.ax)
      if vertex > 0 && vertex < 1 { interior.append(vertex) }
    }
    let minInterior = interior.map(slope).min()!
    let domain: InverseFit.Domain
    if min(slope(0), slope(1), minInterior) >= 0.05 {
      domain = .x
    } else if slope(0) < 0.05, slope(1) >= 0.05, minInterior >= 0.05 || interior.count == 1 {
      domain = .sqrtX
    } else if slope(1) < 0.05, slope(0) >= 0.05, minInterior >= 0.05 || interior.count == 1 {
      domain = .sqrtOneMinusX
    } else {
      return nil
    }
    let budget = newtonCost(steps: newton.steps, quadraticGuess: newton.quadraticGuess)
    func cost(_ degree: Int, _ steps: Int) -> Int {
      domain == .x ? fittedCost(degree: degree, steps: steps) : rootFittedCost(degree: degree, steps: steps)
    }
    var options: [(cost: Int, degree: Int, steps: Int)] = []
    for degree in 4...InverseFit.maximumDegree {
      for steps in 1...(domain == .x ? 3 : 2) where cost(degree, steps) < budget {
        options.append((cost(degree, steps), degree, steps))
      }
    }
    // Besides the slope-scaled target, the fit must not be less accurate than the Newton
    // solve it replaces anywhere on the grid in absolute terms (or than 3e-7, a few Float
    // ulps of 1): the scaled target alone would let it spend, where the curve is gentle,
    // the error that Newton needs only where it is steep.
    let newtonAbsolute = grid.worst(
      { Kernel.bezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, steps: newton.steps, quadraticGuess: newton.quadraticGuess) },
      scaled: false)
    var fits: [Int: InverseFit] = [:]
    for option in options.sorted(by: { ($0.cost, $0.degree) < ($1.cost, $1.degree) }) {
      let fit = fits[option.degree] ?? InverseFit(curve, degree: option.degree, domain: domain)
      fits[option.degree] = fit
      let solve: (Float) -> Float = {
        domain == .x
          ? Kernel.fittedBezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, fit, steps: option.steps)
          : Kernel.rootFittedBezierProgress(
            $0, c.0, c.1, c.2, c.3, c.4, c.5, fit, steps: option.steps)
      }
      if grid.meets(solve, scaled: grid.target, absolute: max(newtonAbsolute, 3e-7)) {
        return (fit, option.steps)
      }
    }
    return nil
  }

  var isSpring: Bool {
    switch self {
    case .bezier, .fittedBezier, .rootFittedBezier: return false
    case .underdamped, .critical, .overdamped: return true
    }
  }

  /// Bounds on the progress this curve can produce at any local time, widened by 1e-3 for
  /// the kernel's Float arithmetic: a Bezier's exact y range over s in [0, 1] (its ends
  /// and the zeros of y'), a spring's envelope (|1 - p| <= sqrt(1 + b^2) underdamped,
  /// max(1, |c| / w0) critical, 1 + |c| / (e (a - beta)) overdamped). Inactive lanes hold
  /// p = 1, which every range contains. The kernel uses them to prove a rotation angle
  /// stays within [-pi/4, pi/4] (`VectorMath.sincosSmall`).
  var progressBounds: (lo: Double, hi: Double) {
    let margin = 1e-3
    switch self {
    case .bezier(_, _, _, let ay, let by, let cy, _, _), .fittedBezier(_, _, _, let ay, let by, let cy, _, _),
      .rootFittedBezier(_, _, _, let ay, let by, let cy, _, _):
      let (a, b, c) = (Double(ay), Double(by), Double(cy))
      var params: [Double] = [0, 1]
      // y'(s) = 3a s^2 + 2b s + c.
      if abs(a) > 1e-12 {
        let disc = 4 * b * b - 12 * a * c
        if disc >= 0 {
          params.append((-2 * b + disc.squareRoot()) / (6 * a))
          params.append((-2 * b - disc.squareRoot()) / (6 * a))
        }
      } else if abs(b) > 1e-12 {
        params.append(-c / (2 * b))
      }
      let ys = params.filter { $0 >= 0 && $0 <= 1 }.map { s in ((a * s + b) * s + c) * s }
      return (ys.min()! - margin, ys.max()! + margin)
    case .underdamped(_, _, let b):
      let m = (1 + Double(b) * Double(b)).squareRoot()
      return (1 - m - margin, 1 + m + margin)
    case .critical(let w0, let c):
      let m = max(1, abs(Double(c)) / Double(w0))
      return (1 - m - margin, 1 + m + margin)
    case .overdamped(_, _, let c, let slow, _):
      guard slow > 0 else { return (-.infinity, .infinity) }
      let m = 1 + abs(Double(c)) / (M_E * Double(slow))
      return (1 - m - margin, 1 + m + margin)
    }
  }
}

/// Bezier curves compiled so far in this process, by curve: choosing a Bezier's solve
/// measures candidates against the exact curve on a dense grid (milliseconds in an
/// optimised build, far more at -Onone), and the same few curves come back all the time
/// (the presets' curves in every batch and table, a retarget's curve at every toggle). The
/// result depends on the curve alone, so a hit is the same value a fresh compile gives.
/// Bounded: past `capacity` curves it starts over. Thread-safe.
final class BezierSolveCache: @unchecked Sendable {
  static let shared = BezierSolveCache()
  /// Most curves kept (each a few hundred bytes).
  static let capacity = 512
  private let lock = NSLock()
  private var compiled: [TimingCurve: CompiledCurve] = [:]

  /// Curves held now.
  var count: Int { lock.withLock { compiled.count } }

  subscript(curve: TimingCurve) -> CompiledCurve? {
    get { lock.withLock { compiled[curve] } }
    set {
      lock.withLock {
        if compiled.count >= Self.capacity { compiled.removeAll(keepingCapacity: true) }
        compiled[curve] = newValue
      }
    }
  }
}

/// Counts `CompiledCurve` compilations asked for, `BezierSolveCache` hits included (a test
/// hook: compile cost must follow the distinct curves, not the channels). Bind one to `current` for the duration of a call:
/// `CurveCompilationCounter.$current.withValue(counter) { try CompiledRecipe(recipe) }`;
/// a task-local, so concurrent compilations elsewhere do not count.
package final class CurveCompilationCounter: @unchecked Sendable {
  @TaskLocal package static var current: CurveCompilationCounter?
  private let lock = NSLock()
  private var value = 0
  package init() {}
  /// Compilations counted so far.
  package var count: Int { lock.withLock { value } }
  func increment() { lock.withLock { value += 1 } }
}

/// A polynomial approximation of the inverse of a Bezier's x(s) (`CompiledCurve.fittedBezier`
/// and `.rootFittedBezier`) with x(s) = x: P(v) ~ s where v is x itself (`Domain.x`), or
/// v P(v) ~ s - end where v is the square root of the distance from a flat end
/// (`Domain.sqrtX`: v = sqrt(x), end 0; `.sqrtOneMinusX`: v = sqrt(1 - x), end 1; the
/// factor v makes s exact at the flat end). In powers of t = 2v - 1 (lowest first),
/// interpolating the exact inverse (`TimingCurve.parameter(forX:)`) at the degree + 1
/// Chebyshev points of v in [0, 1], and (x domain only) its derivative dP/dx in the same
/// basis.
///
/// Why the square root: where x'(s) = 0 at an end (easeOut at s = 0: x1 = 0; easeIn at
/// s = 1: x2 = 1), x ~ k s^2 there, so s(x) ~ sqrt(x / k) has an unbounded derivative and no
/// polynomial in x fits it; as a function of v = sqrt(x) it is smooth (s ~ v / sqrt(k)),
/// and a polynomial in v fits it as well as easeInEaseOut's inverse fits in x.
package struct InverseFit: Sendable, Hashable {
  /// The variable the polynomial is in.
  package enum Domain: Sendable, Hashable {
    /// v = x.
    case x
    /// v = sqrt(x) (a flat start: x'(0) = 0).
    case sqrtX
    /// v = sqrt(1 - x) (a flat end: x'(1) = 0).
    case sqrtOneMinusX
  }
  package let degree: Int
  package let domain: Domain
  /// Highest degree `CompiledCurve` fits (it tries 4...8): the run-time fitted loops
  /// evaluate every fit to this degree (`RuntimeFittedSolve`).
  static let maximumDegree = 8
  /// Coefficients of P in t (lanes above `degree` are 0).
  package let p: SIMD16<Float>
  /// Coefficients of dP/dx in t (lanes from `degree` on are 0); zero outside the x domain.
  package let dp: SIMD16<Float>
  /// v = sqrt(x * rootScale + rootOffset) in the square-root domains: (1, 0) for `sqrtX`,
  /// (-1, 1) for `sqrtOneMinusX` (one kernel loop serves both ends); `rootOffset` is also
  /// the flat end's s (s = rootOffset + v P(v)).
  package var rootScale: Float { domain == .sqrtOneMinusX ? -1 : 1 }
  package var rootOffset: Float { domain == .sqrtOneMinusX ? 1 : 0 }

  /// Fits `curve`'s inverse with a polynomial of `degree` (1...15; `CompiledCurve` asks
  /// for 4...8) in `domain`.
  init(_ curve: TimingCurve, degree: Int, domain: Domain = .x) {
    precondition(degree >= 1 && degree <= 15, "InverseFit degree \(degree) outside 1...15")
    let n = degree + 1
    // Chebyshev coefficients c_j = (2/n) sum_k f(x_k) T_j(t_k), c_0 halved.
    // Typed out: inferred, this took 135 ms to type-check.
    let ts = (0..<n).map { (k: Int) -> Double in cos(Double.pi * (Double(k) + 0.5) / Double(n)) }
    let fs = ts.map { t -> Double in
      let v = (t + 1) / 2
      switch domain {
      case .x: return curve.parameter(forX: v)
      // In the square-root domains the fit is of (s - end) / v, so that s = end + v P(v)
      // is exact at the flat end and its relative error stays small near it (a plain fit of
      // s would leave its own error, of either sign, where s itself is tiny). Chebyshev
      // points are interior: v > 0.
      case .sqrtX: return curve.parameter(forX: v * v) / v
      case .sqrtOneMinusX: return (curve.parameter(forX: 1 - v * v) - 1) / v
      }
    }
    var cheb = [Double](repeating: 0, count: n)
    for j in 0..<n {
      var sum = 0.0
      for k in 0..<n { sum += fs[k] * cos(Double(j) * Double.pi * (Double(k) + 0.5) / Double(n)) }
      cheb[j] = 2 * sum / Double(n)
    }
    cheb[0] /= 2
    // Power basis in t: T_0 = 1, T_1 = t, T_(j+1) = 2 t T_j - T_(j-1).
    var mono = [Double](repeating: 0, count: n)
    var previous = [Double](repeating: 0, count: n), current = [Double](repeating: 0, count: n)
    previous[0] = 1
    if n > 1 { current[1] = 1 }
    for j in 0..<n {
      let tj = j == 0 ? previous : current
      for i in 0..<n { mono[i] += cheb[j] * tj[i] }
      if j >= 1 {
        var next = [Double](repeating: 0, count: n)
        for i in 0..<(n - 1) { next[i + 1] = 2 * current[i] }
        for i in 0..<n { next[i] -= previous[i] }
        previous = current
        current = next
      }
    }
    var p = SIMD16<Float>(), dp = SIMD16<Float>()
    for i in 0..<n { p[i] = Float(mono[i]) }
    // dP/dx = 2 dP/dt (x domain; the kernel's square-root solve corrects by Newton steps).
    if domain == .x { for i in 1..<n { dp[i - 1] = Float(2 * Double(i) * mono[i]) } }
    self.degree = degree
    self.domain = domain
    self.p = p
    self.dp = dp
  }
}

