// The scalar reference in Float: ReferenceEvaluator's algorithm, step for step, one cell
// at a time, in Float arithmetic with glibc's expf/sinf/cosf. It is the "scalar reference
// evaluated in Float" the kernel's speed-up is measured against, so that the ratio shows
// what lanes, broadcast constants and closed-form matrices buy, not Double vs Float.
//
// Like the reference: media timing per part, the curve solved per part (Bezier by Newton
// with a bisection fallback to 1e-6 in x, springs in closed form), channel matrices built
// and multiplied as full 4x4 products (Scale * Rx * Ry * Rz, then the translation), the
// whole-matrix path recomposed from its decomposed ends by 4x4 products, perspective and
// the anchor as 4x4 products, the fold halves likewise. One difference, stated: the ends
// of a whole-matrix animation are decomposed once per recipe (in Double, then rounded),
// where ReferenceEvaluator builds its TransformInterpolator per call.
//
// SelfCheck compares it with ReferenceEvaluator before it is measured.

import CellMotion

#if canImport(Glibc)
  import Glibc
#endif

/// Row-major 4x4 in CATransform3D field order (row vectors).
struct Float4x4 {
  var m: [16 of Float]

  static var identity: Float4x4 {
    var r = Float4x4(m: .init(repeating: 0))
    r.m[0] = 1
    r.m[5] = 1
    r.m[10] = 1
    r.m[15] = 1
    return r
  }

  /// self * b (self applies first).
  func concatenating(_ b: Float4x4) -> Float4x4 {
    var r = Float4x4(m: .init(repeating: 0))
    for i in 0..<4 {
      for j in 0..<4 {
        var s: Float = 0
        for k in 0..<4 { s += m[4 * i + k] * b.m[4 * k + j] }
        r.m[4 * i + j] = s
      }
    }
    return r
  }

  static func translation(_ x: Float, _ y: Float, _ z: Float) -> Float4x4 {
    var r = identity
    r.m[12] = x
    r.m[13] = y
    r.m[14] = z
    return r
  }

  static func scale(_ x: Float, _ y: Float, _ z: Float) -> Float4x4 {
    var r = identity
    r.m[0] = x
    r.m[5] = y
    r.m[10] = z
    return r
  }

  /// CATransform3DMakeRotation about a principal axis (0 = x, 1 = y, 2 = z), radians.
  static func rotation(_ angle: Float, axis: Int) -> Float4x4 {
    let c = cosf(angle), s = sinf(angle)
    var r = identity
    switch axis {
    case 0:
      r.m[5] = c; r.m[6] = s; r.m[9] = -s; r.m[10] = c
    case 1:
      r.m[0] = c; r.m[2] = -s; r.m[8] = s; r.m[10] = c
    default:
      r.m[0] = c; r.m[1] = s; r.m[4] = -s; r.m[5] = c
    }
    return r
  }

  static func perspective(_ m34: Float) -> Float4x4 {
    var r = identity
    r.m[11] = m34
    return r
  }
}

struct FloatReference {
  /// The inputs of a batch as the reference takes them: display start (before stagger),
  /// row, batch position, geometry.
  struct Cells {
    var start: [Float], row: [Int], batchPosition: [Int]
    var width: [Float], height: [Float], tableWidth: [Float], detailHeight: [Float]
  }

  enum Curve {
    case bezier(ax: Float, bx: Float, cx: Float, ay: Float, by: Float, cy: Float)
    case spring(alpha: Float, w0: Float, v0: Float, regime: Spring.Regime)
  }

  struct Part {
    var curve: Curve
    var duration: Float
    var delay: Float
  }

  struct Channel {
    var channel: CellMotion.Channel
    var from: (Float, Float, Float), to: (Float, Float, Float)  // constant, per height, per width
    var part: Part
  }

  enum MatrixPath {
    case twoD(from: [9 of Float], to: [9 of Float])  // tx ty sx sy angle m11 m12 m21 m22
    case threeD(from: [13 of Float], to: [13 of Float], qa: (Float, Float, Float, Float), qb: (Float, Float, Float, Float))
    case componentwise(from: [16 of Float], to: [16 of Float])
    case discrete(from: Float4x4, to: Float4x4)
  }

  let recipe: Recipe
  var channels: [Channel] = []
  var matrix: (path: MatrixPath, part: Part)?
  var fold: Part?
  /// The recipe's stagger; a linear one (from the first cell) is step x index in Float,
  /// any other order its Double delay (`Stagger.delay`, over `staggerCounts`) rounded.
  let staggerRule: Stagger, stagger: Float, staggerByRow: Bool
  /// The counts the benchmark's batches use: the row count and the batch size.
  var staggerCounts = (rows: Int.max, batch: 16)
  let speed: Float, repeatCount: Float, autoreverses: Bool, fillsBackwards: Bool, fillsForwards: Bool

  /// Whether this port covers `recipe`: it has no keyframe tracks (CAKeyframeAnimation
  /// channels or matrices), so the `reference-float` rows and its self-check skip the
  /// keyframe presets (shake, pulse); the kernel's keyframes are checked against
  /// ReferenceEvaluator by the tests (KeyframeKernelTests).
  static func supports(_ recipe: Recipe) -> Bool {
    !recipe.channels.contains { $0.keyframes != nil } && recipe.matrix?.keyframes == nil
  }

  init(_ recipe: Recipe) throws {
    try recipe.validate()
    self.recipe = recipe
    staggerRule = recipe.stagger
    stagger = Float(recipe.stagger.step)
    staggerByRow = recipe.stagger.base == .row
    speed = Float(recipe.timing.speed)
    repeatCount = Float(max(recipe.timing.repeatCount, 1))
    autoreverses = recipe.timing.autoreverses
    fillsBackwards = recipe.timing.fillMode.fillsBackwards
    fillsForwards = recipe.timing.fillMode.fillsForwards
    func part(_ c: AnimationCurve, _ d: Double, _ delay: Double) -> Part {
      let curve: Curve
      switch c {
      case .bezier(let b):
        let cx = 3 * b.x1, bx = 3 * (b.x2 - b.x1) - cx, ax = 1 - cx - bx
        let cy = 3 * b.y1, by = 3 * (b.y2 - b.y1) - cy, ay = 1 - cy - by
        curve = .bezier(ax: Float(ax), bx: Float(bx), cx: Float(cx), ay: Float(ay), by: Float(by), cy: Float(cy))
      case .spring(let s):
        curve = .spring(
          alpha: Float(s.decayRate), w0: Float(s.naturalFrequency), v0: Float(s.initialVelocity), regime: s.regime)
      }
      return Part(curve: curve, duration: Float(d), delay: Float(delay))
    }
    for c in recipe.channels {
      channels.append(
        Channel(
          channel: c.channel,
          from: (Float(c.from.constant), Float(c.from.perCellHeight), Float(c.from.perTableWidth)),
          to: (Float(c.to.constant), Float(c.to.perCellHeight), Float(c.to.perTableWidth)),
          part: part(c.curve, c.duration, c.delay)))
    }
    if let ma = recipe.matrix {
      let interpolator = TransformInterpolator(from: ma.from, to: ma.to, mode: ma.mode)
      let path: MatrixPath
      switch interpolator.path {
      case .twoD(let a, let b):
        func pack(_ d: Decomposed2D) -> [9 of Float] {
          [
            Float(d.translateX), Float(d.translateY), Float(d.scaleX), Float(d.scaleY), Float(d.angle),
            Float(d.m11), Float(d.m12), Float(d.m21), Float(d.m22),
          ]
        }
        path = .twoD(from: pack(a), to: pack(b))
      case .threeD(let a, let b):
        func pack(_ d: Decomposed3D) -> [13 of Float] {
          [
            Float(d.perspective.0), Float(d.perspective.1), Float(d.perspective.2), Float(d.perspective.3),
            Float(d.translate.x), Float(d.translate.y), Float(d.translate.z),
            Float(d.scale.x), Float(d.scale.y), Float(d.scale.z),
            Float(d.skew.x), Float(d.skew.y), Float(d.skew.z),
          ]
        }
        func q(_ d: Decomposed3D) -> (Float, Float, Float, Float) {
          (Float(d.quaternion.x), Float(d.quaternion.y), Float(d.quaternion.z), Float(d.quaternion.w))
        }
        path = .threeD(from: pack(a), to: pack(b), qa: q(a), qb: q(b))
      case .componentwise:
        path = .componentwise(
          from: .init { Float(ma.from[$0 / 4, $0 % 4]) }, to: .init { Float(ma.to[$0 / 4, $0 % 4]) })
      case .discrete:
        path = .discrete(from: Self.matrix(ma.from), to: Self.matrix(ma.to))
      }
      matrix = (path, part(ma.curve, ma.duration, ma.delay))
    }
    if let f = recipe.fold { fold = part(f.curve, f.duration, 0) }
  }

  static func matrix(_ t: Transform3D) -> Float4x4 {
    var r = Float4x4.identity
    for k in 0..<16 { r.m[k] = Float(t[k / 4, k % 4]) }
    return r
  }

  // MARK: Timing

  /// MediaTiming.localTime in Float: nil when the part has no effect.
  func localTime(_ part: Part, begin: Float, time: Float) -> Float? {
    let d = part.duration
    let elapsed = (time - begin) * speed
    let active = d * repeatCount * (autoreverses ? 2 : 1)
    func iteration(_ ta: Float, atEnd: Bool) -> Float {
      var k = (ta / d).rounded(.down)
      var tl = ta - k * d
      if atEnd && tl <= 0 && k >= 1 {
        k -= 1
        tl = d
      }
      tl = min(max(tl, 0), d)
      if autoreverses && k.truncatingRemainder(dividingBy: 2).magnitude == 1 { tl = d - tl }
      return tl
    }
    if elapsed < 0 { return fillsBackwards ? iteration(0, atEnd: false) : nil }
    if elapsed >= active { return fillsForwards ? iteration(active, atEnd: true) : nil }
    return iteration(elapsed, atEnd: false)
  }

  /// The part's progress at parent time `time`, or nil (the model value shows).
  func progress(_ part: Part, begin: Float, time: Float) -> Float? {
    guard let t = localTime(part, begin: begin + part.delay, time: time) else { return nil }
    switch part.curve {
    case .bezier(let ax, let bx, let cx, let ay, let by, let cy):
      let x = t / part.duration
      if x <= 0 { return 0 }
      if x >= 1 { return 1 }
      // Newton from s = x, then bisection if it did not converge.
      var s = x
      var solved = false
      for _ in 0..<8 {
        let fx = ((ax * s + bx) * s + cx) * s - x
        if abs(fx) < 1e-6 {
          solved = true
          break
        }
        let d = (3 * ax * s + 2 * bx) * s + cx
        if abs(d) < 1e-6 { break }
        s -= fx / d
      }
      if !solved {
        var lo: Float = 0, hi: Float = 1
        s = x
        for _ in 0..<30 {
          let fx = ((ax * s + bx) * s + cx) * s
          if abs(fx - x) < 1e-6 { break }
          if fx < x { lo = s } else { hi = s }
          s = (lo + hi) / 2
        }
      }
      return ((ay * s + by) * s + cy) * s
    case .spring(let alpha, let w0, let v0, let regime):
      if t >= part.duration { return 1 }
      if t <= 0 { return 0 }
      let ec: Float, es: Float
      switch regime {
      case .critical:
        let e = expf(-alpha * t)
        (ec, es) = (e, t * e)
      case .underdamped:
        let zeta = alpha / w0
        let wd = w0 * ((1 - zeta) * (1 + zeta)).squareRoot()
        let e = expf(-alpha * t)
        (ec, es) = (e * cosf(wd * t), e * sinf(wd * t) / wd)
      case .overdamped:
        let zeta = alpha / w0
        let gamma = w0 * ((zeta - 1) * (zeta + 1)).squareRoot()
        let e = expf(-(w0 * w0) / (alpha + gamma) * t)
        let m = expm1f(-2 * gamma * t)
        (ec, es) = (e * (2 + m) / 2, e * -m / (2 * gamma))
      }
      return 1 - (ec + (alpha - v0) * es)
    }
  }

  // MARK: One cell

  func cell(
    start displayStart: Float, row: Int, batchPosition: Int, width: Float, height: Float, tableWidth: Float,
    detailHeight: Float, time: Float
  ) -> (matrix: Float4x4, opacity: Float, fold: (top: Float4x4, bottom: Float4x4, shadow: Float)?) {
    let index = staggerByRow ? row : batchPosition
    let start =
      staggerRule.needsCount || staggerRule.grid != nil
      ? displayStart + Float(staggerRule.delay(index: index, count: staggerByRow ? staggerCounts.rows : staggerCounts.batch))
      : displayStart + stagger * Float(index)
    var opacity: Float = 1
    var tx: Float = 0, ty: Float = 0, tz: Float = 0, rx: Float = 0, ry: Float = 0, rz: Float = 0
    var s: Float = 1, sx: Float = 1, sy: Float = 1
    var hasChannelTransform = false
    for c in channels {
      let from = c.from.0 + c.from.1 * height + c.from.2 * tableWidth
      let to = c.to.0 + c.to.1 * height + c.to.2 * tableWidth
      let v = progress(c.part, begin: start, time: time).map { from + (to - from) * $0 } ?? to
      switch c.channel {
      case .opacity: opacity = v
      case .shadowOpacity: break
      case .translationX: tx = v
      case .translationY: ty = v
      case .translationZ: tz = v
      case .rotationX: rx = v
      case .rotationY: ry = v
      case .rotationZ: rz = v
      case .scale: s = v
      case .scaleX: sx = v
      case .scaleY: sy = v
      }
      if c.channel != .opacity && c.channel != .shadowOpacity { hasChannelTransform = true }
    }
    var m = Float4x4.identity
    if hasChannelTransform {
      let linear = Float4x4.scale(s * sx, s * sy, 1)
        .concatenating(.rotation(rx, axis: 0))
        .concatenating(.rotation(ry, axis: 1))
        .concatenating(.rotation(rz, axis: 2))
      let t = Float4x4.translation(tx, ty, tz)
      m = recipe.order == .keyPath ? linear.concatenating(t) : t.concatenating(linear)
    }
    if let (path, part) = matrix {
      m = m.concatenating(Self.interpolate(path, progress(part, begin: start, time: time) ?? 1))
    }
    if let d = recipe.perspectiveDistance { m = m.concatenating(.perspective(-1 / Float(d))) }
    let ax = Float(recipe.anchorX) * width, ay = Float(recipe.anchorY) * height
    m = Float4x4.translation(-ax, -ay, 0).concatenating(m).concatenating(.translation(ax, ay, 0))
    var foldResult: (Float4x4, Float4x4, Float)? = nil
    if let fold, let spec = recipe.fold {
      let p = progress(fold, begin: start, time: time) ?? 1
      let openness = spec.direction == .open ? p : 1 - p
      let angle = -Float.pi / 2 * (1 - openness)
      let h = detailHeight / 2, d = Float(spec.perspectiveDistance)
      let w = 1 - h * sinf(angle) / d
      let bottomTranslation = 2 * h * cosf(angle) / w - 2 * h
      let persp = Float4x4.perspective(-1 / d)
      let top = Float4x4.translation(-width / 2, 0, 0).concatenating(.rotation(angle, axis: 0))
        .concatenating(persp).concatenating(.translation(width / 2, 0, 0))
      let bottom = Float4x4.translation(-width / 2, -h, 0).concatenating(.rotation(-angle, axis: 0))
        .concatenating(persp).concatenating(.translation(width / 2, 2 * h + bottomTranslation, 0))
      foldResult = (top, bottom, min(max(1 - openness, 0), 1))
    }
    return (m, min(max(opacity, 0), 1), foldResult)
  }

  /// Decompose-lerp-recompose by 4x4 products (the CSS recomposition order).
  static func interpolate(_ path: MatrixPath, _ p: Float) -> Float4x4 {
    switch path {
    case .twoD(let a, let b):
      var v = [9 of Float](repeating: 0)
      for i in 0..<9 { v[i] = a[i] + (b[i] - a[i]) * p }
      var remainder = Float4x4.identity
      remainder.m[0] = v[5]
      remainder.m[1] = v[6]
      remainder.m[4] = v[7]
      remainder.m[5] = v[8]
      remainder.m[12] = v[0]
      remainder.m[13] = v[1]
      return Float4x4.scale(v[2], v[3], 1).concatenating(.rotation(v[4], axis: 2)).concatenating(remainder)
    case .threeD(let a, let b, let qa, var qb):
      var v = [13 of Float](repeating: 0)
      for i in 0..<13 { v[i] = a[i] + (b[i] - a[i]) * p }
      var dot = qa.0 * qb.0 + qa.1 * qb.1 + qa.2 * qb.2 + qa.3 * qb.3
      if dot < 0 {
        qb = (-qb.0, -qb.1, -qb.2, -qb.3)
        dot = -dot
      }
      var q: (Float, Float, Float, Float)
      if dot > 0.9999 {
        q = (qa.0 + (qb.0 - qa.0) * p, qa.1 + (qb.1 - qa.1) * p, qa.2 + (qb.2 - qa.2) * p, qa.3 + (qb.3 - qa.3) * p)
        let n = (q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).squareRoot()
        q = (q.0 / n, q.1 / n, q.2 / n, q.3 / n)
      } else {
        let theta = acosf(min(dot, 1)), s = sinf(theta)
        let wa = sinf((1 - p) * theta) / s, wb = sinf(p * theta) / s
        q = (qa.0 * wa + qb.0 * wb, qa.1 * wa + qb.1 * wb, qa.2 * wa + qb.2 * wb, qa.3 * wa + qb.3 * wb)
      }
      let (x, y, z, w) = q
      var rotation = Float4x4.identity
      rotation.m[0] = 1 - 2 * (y * y + z * z)
      rotation.m[1] = 2 * (x * y + z * w)
      rotation.m[2] = 2 * (x * z - y * w)
      rotation.m[4] = 2 * (x * y - z * w)
      rotation.m[5] = 1 - 2 * (x * x + z * z)
      rotation.m[6] = 2 * (y * z + x * w)
      rotation.m[8] = 2 * (x * z + y * w)
      rotation.m[9] = 2 * (y * z - x * w)
      rotation.m[10] = 1 - 2 * (x * x + y * y)
      var skew = Float4x4.identity
      skew.m[4] = v[10]
      skew.m[8] = v[11]
      skew.m[9] = v[12]
      var perspective = Float4x4.identity
      perspective.m[3] = v[0]
      perspective.m[7] = v[1]
      perspective.m[11] = v[2]
      perspective.m[15] = v[3]
      return Float4x4.scale(v[7], v[8], v[9]).concatenating(skew).concatenating(rotation)
        .concatenating(.translation(v[4], v[5], v[6])).concatenating(perspective)
    case .componentwise(let a, let b):
      var r = Float4x4.identity
      for i in 0..<16 { r.m[i] = a[i] + (b[i] - a[i]) * p }
      return r
    case .discrete(let a, let b):
      return p < 0.5 ? a : b
    }
  }

  /// Every cell of `cells` at `time` into `matrices` (16 per cell) and `opacity`.
  func evaluate(
    _ cells: Cells, time: Float, matrices: UnsafeMutableBufferPointer<Float>,
    opacity: UnsafeMutableBufferPointer<Float>
  ) {
    for i in 0..<cells.start.count {
      let r = cell(
        start: cells.start[i], row: cells.row[i], batchPosition: cells.batchPosition[i], width: cells.width[i],
        height: cells.height[i], tableWidth: cells.tableWidth[i], detailHeight: cells.detailHeight[i], time: time)
      for k in 0..<16 { matrices[16 * i + k] = r.matrix.m[k] }
      opacity[i] = r.opacity
    }
  }
}
