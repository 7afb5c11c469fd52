// CompiledRecipe: a Recipe flattened once into Float constants the kernel broadcasts
// across lanes: Bezier polynomial coefficients, spring constants, decomposed start and end
// transforms, slerp angles, media-timing constants. Compiling validates the recipe.

import CellMotion
import Foundation

/// How a timed part turns local time into progress.
public enum CompiledCurve: Sendable, Hashable {
  /// x(s) = ((ax s + bx) s + cx) s, y likewise; s solved per lane.
  case bezier(ax: Float, bx: Float, cx: Float, ay: Float, by: Float, cy: Float)
  /// 1 - e^(-a t) (cos(wd t) + b sin(wd t)); a = zeta w0, b = (a - v0) / wd.
  case underdamped(a: Float, wd: Float, b: Float)
  /// 1 - (1 + c t) e^(-w0 t); c = w0 - v0.
  case critical(w0: Float, c: Float)
  /// 1 - e^(-a t) (cosh(beta t) + c t sinh(beta t)/(beta t)); c = a - v0, beta = w0 sqrt(zeta^2 - 1).
  case overdamped(a: Float, beta: Float, c: Float)

  init(_ curve: AnimationCurve) {
    switch curve {
    case .bezier(let b):
      let p = b.polynomial
      self = .bezier(
        ax: Float(p.ax), bx: Float(p.bx), cx: Float(p.cx), ay: Float(p.ay), by: Float(p.by), cy: Float(p.cy))
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
