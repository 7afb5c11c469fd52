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
  /// 1 - e^(-a t) (cos(wd t) + b sin(wd t)); a = zeta w0, b = (a - v0) / wd.
  case underdamped(a: Float, wd: Float, b: Float)
  /// 1 - (1 + c t) e^(-w0 t); c = w0 - v0.
  case critical(w0: Float, c: Float)
  /// 1 - e^(-a t) (cosh(beta t) + c t sinh(beta t)/(beta t)); c = a - v0, beta = w0 sqrt(zeta^2 - 1).
  case overdamped(a: Float, beta: Float, c: Float)

  /// Compiles a (validated) curve: Bezier power-basis coefficients and step count, or the
  /// spring's closed-form constants (rad/s, 1/s).
  public init(_ curve: AnimationCurve) {
    switch curve {
    case .bezier(let b):
      let p = b.polynomial
      let c = (Float(p.ax), Float(p.bx), Float(p.cx), Float(p.ay), Float(p.by), Float(p.cy))
      let solve = Self.newtonSteps(c, exact: b)
      self = .bezier(
        ax: c.0, bx: c.1, cx: c.2, ay: c.3, by: c.4, cy: c.5, steps: solve.steps, quadraticGuess: solve.quadraticGuess)
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
        self = .overdamped(a: Float(a), beta: Float(w0 * (zeta * zeta - 1).squareRoot()), c: Float(a - v0))
      }
    }
  }

  /// The cheapest (steps, first guess) after which the kernel's Float solve of this curve
  /// is as close to the exact progress as 8 steps from the quadratic guess, plus 1e-7,
  /// on a dense grid: x = i / 1024 and x = 2^-j, 1 - 2^-j near the ends, where the
  /// tangent may be vertical. The quadratic first guess is exact to second order, so well
  /// conditioned curves need 2-4 steps (easeInEaseOut: see the test); the kernel runs the
  /// same count on every lane, so no lane branches.
  static func newtonSteps(
    _ c: (Float, Float, Float, Float, Float, Float), exact: TimingCurve
  ) -> (steps: Int, quadraticGuess: Bool) {
    var xs: [Float] = (0...1024).map { Float($0) / 1024 }
    for j in 1...24 {
      let e = Float(sign: .plus, exponent: -j, significand: 1)
      xs.append(e)
      xs.append(1 - e)
    }
    // Exact progress, scaled as in the kernel tests: where |dy/dx| is large, Float rounding
    // of x alone moves y, whatever the solver does.
    let exactValues = xs.map { exact.value(at: Double($0)) }
    let scales = xs.map { max(1, abs(exact.slope(at: Double($0))) / 5) }
    func worst(_ steps: Int, _ guess: Bool) -> Double {
      var w = 0.0
      for (i, x) in xs.enumerated() {
        let y = Kernel.bezierProgress(x, c.0, c.1, c.2, c.3, c.4, c.5, steps: steps, quadraticGuess: guess)
        w = max(w, abs(Double(y) - exactValues[i]) / scales[i])
      }
      return w
    }
    // The guess costs about two steps (a square root, a divide and selects).
    let target = worst(Kernel.bezierSteps, true) + 1e-7
    for cost in 1...(Kernel.bezierSteps + 2) {
      if cost <= Kernel.bezierSteps, worst(cost, false) <= target { return (cost, false) }
      if cost > 2, worst(cost - 2, true) <= target { return (cost - 2, true) }
    }
    return (Kernel.bezierSteps, true)
  }

  var isSpring: Bool { if case .bezier = self { return false } else { return true } }
}

/// A unique (curve, duration, delay) of a recipe: its progress is computed once per lane
/// group and shared by every channel that uses it (tip-in: matrix and opacity share one).
public struct CompiledPart: Sendable, Hashable {
  public var curve: CompiledCurve
  /// Seconds.
  public var duration: Float
  /// Seconds after the cell's (staggered) start.
  public var delay: Float
  /// Local time held after the end when the fill mode fills forwards (seconds).
  public var endLocalTime: Float
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

  /// Compiles and validates `recipe`.
  public init(_ recipe: Recipe) throws(CellMotionError) {
    try recipe.validate()
    self.recipe = recipe
    activeDuration = recipe.activeDuration
    let timing = recipe.timing
    var parts: [CompiledPart] = []
    func partIndex(_ curve: AnimationCurve, _ duration: Double, _ delay: Double) -> Int {
      // End state of the last iteration, as MediaTiming defines it, for forward fills.
      let probe = try? MediaTiming(
        beginTime: 0, duration: duration, speed: 1, repeatCount: timing.repeatCount,
        autoreverses: timing.autoreverses, fillMode: .forwards)
      let endLocal = probe.flatMap { $0.localTime(parentTime: $0.activeDuration + 1) } ?? duration
      let part = CompiledPart(
        curve: CompiledCurve(curve), duration: Float(duration), delay: Float(delay), endLocalTime: Float(endLocal))
      if let i = parts.firstIndex(of: part) { return i }
      parts.append(part)
      return parts.count - 1
    }
    var channels: [CompiledChannel] = []
    for c in recipe.channels {
      let i = partIndex(c.curve, c.duration, c.delay)
      channels.append(
        CompiledChannel(
          channel: c.channel, part: i,
          from: SIMD3(Float(c.from.constant), Float(c.from.perCellHeight), Float(c.from.perTableWidth)),
          to: SIMD3(Float(c.to.constant), Float(c.to.perCellHeight), Float(c.to.perTableWidth))))
    }
    let transformChannels = channels.filter { $0.channel != .opacity && $0.channel != .shadowOpacity }
    hasChannelTransform = !transformChannels.isEmpty
    hasRotationXY = transformChannels.contains { $0.channel == .rotationX || $0.channel == .rotationY }
    hasTranslationZ = transformChannels.contains { $0.channel == .translationZ }
    translateFirst = recipe.order == .translateFirst
    if let m = recipe.matrix {
      let i = partIndex(m.curve, m.duration, m.delay)
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
    if let f = recipe.fold {
      let i = partIndex(f.curve, f.duration, 0)
      fold = (part: i, opening: f.direction == .open, m34: Float(-1 / f.perspectiveDistance))
    } else {
      fold = nil
    }
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
  }
}
