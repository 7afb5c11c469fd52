// CompiledRecipe: a Recipe flattened once into Float constants the kernel broadcasts
// across lanes: Bezier polynomial coefficients, spring constants, decomposed start and end
// transforms, slerp angles, media-timing constants. Compiling validates the recipe.

import CellMotion
import Foundation

/// How a timed part turns local time into progress.
public enum CompiledCurve: Sendable, Hashable {
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
  public init(_ curve: AnimationCurve) {
    CurveCompilationCounter.current?.increment()
    switch curve {
    case .bezier(let b):
      let p = b.polynomial
      let c = (Float(p.ax), Float(p.bx), Float(p.cx), Float(p.ay), Float(p.by), Float(p.cy))
      let grid = SolveGrid(c, exact: b)
      let solve = Self.newtonSteps(c, grid)
      if let fitted = Self.fittedSolve(c, exact: b, grid, newton: solve) {
        self = .fittedBezier(ax: c.0, bx: c.1, cx: c.2, ay: c.3, by: c.4, cy: c.5, fit: fitted.fit, steps: fitted.steps)
      } else {
        self = .bezier(
          ax: c.0, bx: c.1, cx: c.2, ay: c.3, by: c.4, cy: c.5, steps: solve.steps, quadraticGuess: solve.quadraticGuess)
      }
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

  /// The cheapest (steps, first guess) after which the kernel's Float solve of this curve
  /// is as close to the exact progress as 8 steps from the quadratic guess, plus 1e-7,
  /// on a dense grid: x = i / 1024 and x = 2^-j, 1 - 2^-j near the ends, where the
  /// tangent may be vertical. The quadratic first guess is exact to second order, so well
  /// conditioned curves need 2-4 steps (easeInEaseOut: see the test); the kernel runs the
  /// same count on every lane, so no lane branches.
  static func newtonSteps(_ c: (Float, Float, Float, Float, Float, Float), _ grid: SolveGrid) -> (
    steps: Int, quadraticGuess: Bool
  ) {
    func worst(_ steps: Int, _ guess: Bool) -> Double {
      grid.worst { Kernel.bezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, steps: steps, quadraticGuess: guess) }
    }
    // The guess costs about two steps (a square root, a divide and selects).
    for cost in 1...(Kernel.bezierSteps + 2) {
      if cost <= Kernel.bezierSteps, worst(cost, false) <= grid.target { return (cost, false) }
      if cost > 2, worst(cost - 2, true) <= grid.target { return (cost - 2, true) }
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
      exact = xs.map { curve.value(at: Double($0)) }
      scales = xs.map { max(1, abs(curve.slope(at: Double($0))) / 5) }
      target =
        worst { Kernel.bezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, steps: Kernel.bezierSteps, quadraticGuess: true) }
        + 1e-7
    }
    /// Worst scaled error of `solve` over the grid.
    func worst(_ solve: (Float) -> Float) -> Double {
      var w = 0.0
      for (i, x) in xs.enumerated() { w = max(w, abs(Double(solve(x)) - exact[i]) / scales[i]) }
      return w
    }
    /// Worst unscaled error of `solve` over the grid.
    func worstAbsolute(_ solve: (Float) -> Float) -> Double {
      var w = 0.0
      for (i, x) in xs.enumerated() { w = max(w, abs(Double(solve(x)) - exact[i])) }
      return w
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

  /// The cheapest fitted inverse (degree 4-8, 1-3 corrections) that meets the grid's
  /// target and costs less than the Newton solve, or nil. Only for curves with
  /// x'(s) >= 0.05 on [0, 1]: there the inverse s(x) is smooth (its polynomial fit
  /// converges), and the grid's spacing is fine against its variation.
  static func fittedSolve(
    _ c: (Float, Float, Float, Float, Float, Float), exact curve: TimingCurve, _ grid: SolveGrid,
    newton: (steps: Int, quadraticGuess: Bool)
  ) -> (fit: InverseFit, steps: Int)? {
    let p = curve.polynomial
    // x'(s) = 3 ax s^2 + 2 bx s + cx: its minimum on [0, 1] is at an end or the vertex.
    var candidates = [0.0, 1.0]
    if p.ax != 0 {
      let vertex = -p.bx / (3 * p.ax)
      if vertex > 0 && vertex < 1 { candidates.append(vertex) }
    }
    let minSlope = candidates.map { s in (3 * p.ax * s + 2 * p.bx) * s + p.cx }.min()!
    guard minSlope >= 0.05 else { return nil }
    let budget = newtonCost(steps: newton.steps, quadraticGuess: newton.quadraticGuess)
    var options: [(cost: Int, degree: Int, steps: Int)] = []
    for degree in 4...8 {
      for steps in 1...3 where fittedCost(degree: degree, steps: steps) < budget {
        options.append((fittedCost(degree: degree, steps: steps), degree, steps))
      }
    }
    // Besides the slope-scaled target, the fit must not be less accurate than the Newton
    // solve it replaces anywhere on the grid in absolute terms (or than 3e-7, a few Float
    // ulps of 1): the scaled target alone would let it spend, where the curve is gentle,
    // the error that Newton needs only where it is steep.
    let newtonAbsolute = grid.worstAbsolute {
      Kernel.bezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, steps: newton.steps, quadraticGuess: newton.quadraticGuess)
    }
    var fits: [Int: InverseFit] = [:]
    for option in options.sorted(by: { ($0.cost, $0.degree) < ($1.cost, $1.degree) }) {
      let fit = fits[option.degree] ?? InverseFit(curve, degree: option.degree)
      fits[option.degree] = fit
      let solve: (Float) -> Float = {
        Kernel.fittedBezierProgress($0, c.0, c.1, c.2, c.3, c.4, c.5, fit, degree: option.degree, steps: option.steps)
      }
      if grid.worst(solve) <= grid.target && grid.worstAbsolute(solve) <= max(newtonAbsolute, 3e-7) {
        return (fit, option.steps)
      }
    }
    return nil
  }

  var isSpring: Bool {
    switch self {
    case .bezier, .fittedBezier: return false
    case .underdamped, .critical, .overdamped: return true
    }
  }

  /// Bounds on the progress this curve can produce at any local time, widened by 1e-3 for
  /// the kernel's Float arithmetic: a Bezier's exact y range over s in [0, 1] (its ends
  /// and the zeros of y'), a spring's envelope (|1 - p| <= sqrt(1 + b^2) underdamped,
  /// max(1, |c| / w0) critical, 1 + |c| / (e (a - beta)) overdamped). Inactive lanes hold
  /// p = 1, which every range contains. The kernel uses them to prove a rotation angle
  /// stays within [-pi/4, pi/4] (`VectorMath.sincosSmall`).
  @usableFromInline var progressBounds: (lo: Double, hi: Double) {
    let margin = 1e-3
    switch self {
    case .bezier(_, _, _, let ay, let by, let cy, _, _), .fittedBezier(_, _, _, let ay, let by, let cy, _, _):
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

/// Counts `CompiledCurve` compilations (a test hook: compile cost must follow the distinct
/// curves, not the channels). Bind one to `current` for the duration of a call:
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

/// A polynomial approximation of the inverse of a Bezier's x(s) (`CompiledCurve.fittedBezier`):
/// P(x) ~ s with x(s) = x, in powers of t = 2x - 1 (lowest first), interpolating the exact
/// inverse (`TimingCurve.parameter(forX:)`) at the degree + 1 Chebyshev points of [0, 1],
/// and its derivative dP/dx in the same basis.
public struct InverseFit: Sendable, Hashable {
  public let degree: Int
  /// Coefficients of P in t (lanes above `degree` are 0).
  public let p: SIMD16<Float>
  /// Coefficients of dP/dx in t (lanes from `degree` on are 0).
  public let dp: SIMD16<Float>

  /// Fits `curve`'s inverse with a polynomial of `degree` (1...15; `CompiledCurve` asks
  /// for 4...8).
  init(_ curve: TimingCurve, degree: Int) {
    precondition(degree >= 1 && degree <= 15, "InverseFit degree \(degree) outside 1...15")
    let n = degree + 1
    // Chebyshev coefficients c_j = (2/n) sum_k f(x_k) T_j(t_k), c_0 halved.
    let ts = (0..<n).map { k in cos(Double.pi * (Double(k) + 0.5) / Double(n)) }
    let fs = ts.map { t in curve.parameter(forX: (t + 1) / 2) }
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
    // dP/dx = 2 dP/dt.
    for i in 1..<n { dp[i - 1] = Float(2 * Double(i) * mono[i]) }
    self.degree = degree
    self.p = p
    self.dp = dp
  }
}

/// A unique (curve, duration, delay) of a recipe: its progress is computed once per lane
/// group and shared by every channel that uses it (tip-in: matrix and opacity share one).
public struct CompiledPart: Sendable, Hashable {
  public var curve: CompiledCurve {
    didSet { solvePath = SolvePath(curve) }
  }
  /// Seconds.
  public var duration: Float
  /// Seconds after the cell's (staggered) start.
  public var delay: Float
  /// Local time held after the end when the fill mode fills forwards (seconds).
  public var endLocalTime: Float
  /// The loop `Kernel.progressStage` runs for `curve`, decided once here rather than per
  /// block.
  @usableFromInline private(set) var solvePath: SolvePath

  public init(curve: CompiledCurve, duration: Float, delay: Float, endLocalTime: Float) {
    self.curve = curve
    self.duration = duration
    self.delay = delay
    self.endLocalTime = endLocalTime
    solvePath = SolvePath(curve)
  }
}

/// One channel: value = from + (to - from) * progress(part); from/to resolved per cell as
/// c + h * cellHeight + w * tableWidth.
public struct CompiledChannel: Sendable, Hashable {
  public var channel: Channel
  public var part: Int
  public var from: SIMD3<Float>
  public var to: SIMD3<Float>
}

/// The whole-matrix animation in its interpolation path, as Float constants.
public enum CompiledMatrix: Sendable, Hashable {
  /// 2D path: lerp (tx, ty, sx, sy, angle, m11, m12, m21, m22) from `a` to `b`.
  case twoD(part: Int, a: [Float], b: [Float])
  /// 3D path: lerp perspective(4) translate(3) scale(3) skew(3) from `a` to `b` (13 each),
  /// slerp quaternions qa -> qb with the constant angle theta (shortest path, nlerp when
  /// |dot| > 0.9999, `nlerp` true).
  case threeD(part: Int, a: [Float], b: [Float], qa: SIMD4<Float>, qb: SIMD4<Float>, theta: Float, nlerp: Bool)
  /// Element-wise lerp of 16 entries.
  case componentwise(part: Int, a: [Float], b: [Float])
  /// Discrete fallback (undecomposable end): `a` before progress 0.5, `b` from it on.
  case discrete(part: Int, a: [Float], b: [Float])
}

/// A recipe ready for the kernel. Build with `CompiledRecipe(_:)`, which validates.
public struct CompiledRecipe: Sendable {
  public let recipe: Recipe
  public let parts: [CompiledPart]
  public let channels: [CompiledChannel]
  /// The channels that move the transform (all but opacity and shadow opacity), in recipe
  /// order: where two animate the same channel, the later one wins.
  public let transformChannels: [CompiledChannel]
  /// The opacity and shadow-opacity channels that win (the last of each kind), if any.
  public let opacityChannel: CompiledChannel?
  public let shadowChannel: CompiledChannel?
  public let matrix: CompiledMatrix?
  /// Uniform flags that pick the kernel path for this recipe.
  public let hasChannelTransform: Bool
  public let hasRotationXY: Bool
  public let hasTranslationZ: Bool
  public let translateFirst: Bool
  /// m34 added after the animated transform (0 when none).
  public let m34: Float
  public let anchor: SIMD2<Float>
  /// Media timing: speed, repeat, autoreverse, fill.
  public let speed: Float
  public let simpleTiming: Bool
  public let repeatCount: Float
  public let autoreverses: Bool
  public let fillsBackwards: Bool
  public let fillsForwards: Bool
  /// Fold: part index, direction (+1 open, -1 close) and m34.
  public let fold: (part: Int, opening: Bool, m34: Float)?
  /// Whether the transform stays affine 2D at every time (the kernel's 6-entry path).
  public let isPlanar: Bool
  /// Seconds from a cell's staggered start until nothing changes (`Recipe.activeDuration`).
  public let activeDuration: Double
  /// Cells per block of the kernel's staged evaluation: every part's progress and the 16
  /// matrix entries of a block fit the kernel's stack scratch (`Kernel.scratchFloats`);
  /// at most 128, a multiple of 8.
  public let blockCells: Int
  /// The planar path's start values, deltas and flags, computed once here so that a frame
  /// does no work (and no allocation) to derive them; nil when not `isPlanar`.
  @usableFromInline var planarConstants: PlanarConstants? = nil
  /// Most distinct timed parts (curve, duration, delay) one recipe may have: enough for a
  /// block of 8 cells in the kernel's scratch. Counted on the recipe's own values (curve,
  /// and duration, delay and end time as Floats) before any curve is compiled.
  public static var maxParts: Int { Kernel.scratchFloats / 8 - 16 }
  /// Most channels one recipe may have: 1,024. There are 11 channel kinds and where two
  /// channels animate the same one the later wins, so real recipes have a handful; the
  /// bound keeps compiling, and the kernel's per-cell work over the channels, in
  /// proportion. Checked first, before the recipe is validated or anything compiled.
  public static let maxChannels = 1024

  /// A timed part as the recipe states it: the key that merges parts before any curve is
  /// compiled (a Bezier's compilation runs dense-grid solves, tens of milliseconds).
  private struct PartKey: Hashable {
    var curve: AnimationCurve
    var duration: Float
    var delay: Float
    var endLocalTime: Float
  }

  /// Compiles and validates `recipe`.
  ///
  /// - Throws: `CellMotionError.outOfRange` for more than `maxChannels` channels or more
  ///   than `maxParts` distinct timed parts (both before any curve is compiled), or the
  ///   first problem `Recipe.validate()` finds.
  /// - Complexity: O(channels) plus one curve compilation per distinct curve (at most
  ///   `maxParts`).
  public init(_ recipe: Recipe) throws(CellMotionError) {
    guard recipe.channels.count <= Self.maxChannels else {
      throw .outOfRange(
        field: "\(recipe.name).channels.count", value: Double(recipe.channels.count),
        expected: "<= \(Self.maxChannels)")
    }
    try recipe.validate()
    self.recipe = recipe
    activeDuration = recipe.activeDuration
    let timing = recipe.timing
    // 1. Every timed use (channels, matrix, fold) to a distinct key, in order of first use;
    //    nothing compiled yet, so the parts limit costs O(channels) to check.
    var keys: [PartKey] = []
    var keyIndex: [PartKey: Int] = [:]
    func key(_ curve: AnimationCurve, _ duration: Double, _ delay: Double) -> Int {
      // End state of the last iteration, as MediaTiming defines it, for forward fills.
      let probe = try? MediaTiming(
        beginTime: 0, duration: duration, speed: 1, repeatCount: timing.repeatCount,
        autoreverses: timing.autoreverses, fillMode: .forwards)
      let endLocal = probe.flatMap { $0.localTime(parentTime: $0.activeDuration + 1) } ?? duration
      let k = PartKey(curve: curve, duration: Float(duration), delay: Float(delay), endLocalTime: Float(endLocal))
      if let i = keyIndex[k] { return i }
      keys.append(k)
      keyIndex[k] = keys.count - 1
      return keys.count - 1
    }
    let channelKeys = recipe.channels.map { key($0.curve, $0.duration, $0.delay) }
    let matrixKey = recipe.matrix.map { key($0.curve, $0.duration, $0.delay) }
    let foldKey = recipe.fold.map { key($0.curve, $0.duration, 0) }
    guard keys.count <= Self.maxParts else {
      throw .outOfRange(
        field: "\(recipe.name): distinct (curve, duration, delay) parts", value: Double(keys.count),
        expected: "<= \(Self.maxParts)")
    }
    // 2. Each distinct curve compiled once. Keys whose compiled parts coincide (curves that
    //    differ only below Float precision) share one part, in order of first use.
    var compiledCurves: [AnimationCurve: CompiledCurve] = [:]
    var parts: [CompiledPart] = []
    let partOfKey = keys.map { k -> Int in
      let curve = compiledCurves[k.curve] ?? CompiledCurve(k.curve)
      compiledCurves[k.curve] = curve
      let part = CompiledPart(curve: curve, duration: k.duration, delay: k.delay, endLocalTime: k.endLocalTime)
      if let i = parts.firstIndex(of: part) { return i }
      parts.append(part)
      return parts.count - 1
    }
    var channels: [CompiledChannel] = []
    channels.reserveCapacity(recipe.channels.count)
    for (n, c) in recipe.channels.enumerated() {
      let i = partOfKey[channelKeys[n]]
      channels.append(
        CompiledChannel(
          channel: c.channel, part: i,
          from: SIMD3(Float(c.from.constant), Float(c.from.perCellHeight), Float(c.from.perTableWidth)),
          to: SIMD3(Float(c.to.constant), Float(c.to.perCellHeight), Float(c.to.perTableWidth))))
    }
    let transformChannels = channels.filter { $0.channel != .opacity && $0.channel != .shadowOpacity }
    self.transformChannels = transformChannels
    opacityChannel = channels.last { $0.channel == .opacity }
    shadowChannel = channels.last { $0.channel == .shadowOpacity }
    hasChannelTransform = !transformChannels.isEmpty
    hasRotationXY = transformChannels.contains { $0.channel == .rotationX || $0.channel == .rotationY }
    hasTranslationZ = transformChannels.contains { $0.channel == .translationZ }
    translateFirst = recipe.order == .translateFirst
    if let m = recipe.matrix, let matrixKey {
      let i = partOfKey[matrixKey]
      let interp = TransformInterpolator(from: m.from, to: m.to, mode: m.mode)
      let fa = m.from.fieldOrder.map(Float.init), fb = m.to.fieldOrder.map(Float.init)
      switch interp.path {
      case .twoD(let a, let b):
        func pack(_ d: Decomposed2D) -> [Float] {
          [d.translateX, d.translateY, d.scaleX, d.scaleY, d.angle, d.m11, d.m12, d.m21, d.m22].map(Float.init)
        }
        matrix = .twoD(part: i, a: pack(a), b: pack(b))
      case .threeD(let a, let b):
        func pack(_ d: Decomposed3D) -> [Float] {
          [
            d.perspective.0, d.perspective.1, d.perspective.2, d.perspective.3,
            d.translate.x, d.translate.y, d.translate.z, d.scale.x, d.scale.y, d.scale.z,
            d.skew.x, d.skew.y, d.skew.z,
          ].map(Float.init)
        }
        var qb = b.quaternion
        var dot = a.quaternion.dot(qb)
        if dot < 0 {
          qb = -qb
          dot = -dot
        }
        let qa = a.quaternion
        matrix = .threeD(
          part: i, a: pack(a), b: pack(b),
          qa: SIMD4(Float(qa.x), Float(qa.y), Float(qa.z), Float(qa.w)),
          qb: SIMD4(Float(qb.x), Float(qb.y), Float(qb.z), Float(qb.w)),
          theta: Float(acos(min(dot, 1))), nlerp: dot > Quaternion.nlerpThreshold)
      case .componentwise:
        matrix = .componentwise(part: i, a: fa, b: fb)
      case .discrete:
        matrix = .discrete(part: i, a: fa, b: fb)
      }
    } else {
      matrix = nil
    }
    m34 = recipe.perspectiveDistance.map { Float(-1 / $0) } ?? 0
    anchor = SIMD2(Float(recipe.anchorX), Float(recipe.anchorY))
    speed = Float(timing.speed)
    repeatCount = Float(timing.repeatCount)
    autoreverses = timing.autoreverses
    fillsBackwards = timing.fillMode == .backwards || timing.fillMode == .both
    fillsForwards = timing.fillMode == .forwards || timing.fillMode == .both
    simpleTiming = timing.speed == 1 && timing.repeatCount <= 1 && !timing.autoreverses
    if let f = recipe.fold, let foldKey {
      let i = partOfKey[foldKey]
      fold = (part: i, opening: f.direction == .open, m34: Float(-1 / f.perspectiveDistance))
    } else {
      fold = nil
    }
    blockCells = min(128, Kernel.scratchFloats / (parts.count + 16) / 8 * 8)
    self.parts = parts
    self.channels = channels
    var planar = !hasRotationXY && !hasTranslationZ && m34 == 0
    if let matrix {
      switch matrix {
      case .twoD: break
      default: planar = false
      }
    }
    isPlanar = planar
    if planar { planarConstants = PlanarConstants(self) }
  }
}
