// The lane-group evaluation: every cell of a run shares one recipe, whose constants are
// broadcast; lanes differ only in start time and geometry. All branches below are on
// recipe constants (uniform across lanes); per-lane choices are masks and selects.

import CellMotion
import Foundation

/// Pointers to a batch's SoA inputs, valid for one evaluation.
@usableFromInline
struct KernelInputs: @unchecked Sendable {
  @usableFromInline let start: UnsafePointer<Float>
  @usableFromInline let width: UnsafePointer<Float>
  @usableFromInline let height: UnsafePointer<Float>
  @usableFromInline let tableWidth: UnsafePointer<Float>
  @usableFromInline let detailHeight: UnsafePointer<Float>
  @inlinable init(
    start: UnsafePointer<Float>, width: UnsafePointer<Float>, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, detailHeight: UnsafePointer<Float>
  ) {
    self.start = start
    self.width = width
    self.height = height
    self.tableWidth = tableWidth
    self.detailHeight = detailHeight
  }
}

/// Pointers to a frame's outputs; optional parts are nil when not requested.
@usableFromInline
struct KernelOutputs: @unchecked Sendable {
  @usableFromInline let matrices: UnsafeMutablePointer<Float>
  @usableFromInline let opacity: UnsafeMutablePointer<Float>
  @usableFromInline let shadow: UnsafeMutablePointer<Float>
  @usableFromInline let foldTop: UnsafeMutablePointer<Float>?
  @usableFromInline let foldBottom: UnsafeMutablePointer<Float>?
  @usableFromInline let foldShadow: UnsafeMutablePointer<Float>?
  @usableFromInline let corners: UnsafeMutablePointer<Float>?
  @inlinable init(
    matrices: UnsafeMutablePointer<Float>, opacity: UnsafeMutablePointer<Float>,
    shadow: UnsafeMutablePointer<Float>, foldTop: UnsafeMutablePointer<Float>?,
    foldBottom: UnsafeMutablePointer<Float>?, foldShadow: UnsafeMutablePointer<Float>?,
    corners: UnsafeMutablePointer<Float>?
  ) {
    self.matrices = matrices
    self.opacity = opacity
    self.shadow = shadow
    self.foldTop = foldTop
    self.foldBottom = foldBottom
    self.foldShadow = foldShadow
    self.corners = corners
  }
}

/// A general 4x4 in lanes (row-vector convention, field order).
@usableFromInline
struct LaneMatrix<L: FloatLanes> {
  @usableFromInline var m: (L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L)
  @inlinable init(_ m: (L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L)) { self.m = m }

  /// A 3x3 linear part plus translation, m44 = 1.
  @inlinable @inline(__always)
  init(linear r: (L, L, L, L, L, L, L, L, L), translation t: (L, L, L)) {
    let z = L(repeating: 0), o = L(repeating: 1)
    m = (r.0, r.1, r.2, z, r.3, r.4, r.5, z, r.6, r.7, r.8, z, t.0, t.1, t.2, o)
  }

  /// self * b (self applies first).
  @inlinable @inline(__always)
  func times(_ b: LaneMatrix<L>) -> LaneMatrix<L> {
    let a = m, c = b.m
    @inline(__always) func row(_ x: L, _ y: L, _ z: L, _ w: L) -> (L, L, L, L) {
      (
        x * c.0 + y * c.4 + z * c.8 + w * c.12,
        x * c.1 + y * c.5 + z * c.9 + w * c.13,
        x * c.2 + y * c.6 + z * c.10 + w * c.14,
        x * c.3 + y * c.7 + z * c.11 + w * c.15
      )
    }
    let r0 = row(a.0, a.1, a.2, a.3), r1 = row(a.4, a.5, a.6, a.7)
    let r2 = row(a.8, a.9, a.10, a.11), r3 = row(a.12, a.13, a.14, a.15)
    return LaneMatrix((r0.0, r0.1, r0.2, r0.3, r1.0, r1.1, r1.2, r1.3, r2.0, r2.1, r2.2, r2.3, r3.0, r3.1, r3.2, r3.3))
  }

  /// self * Perspective(m34 = k): column 4 += column 3 * k.
  @inlinable @inline(__always)
  mutating func applyPerspective(_ k: Float) {
    m.3 = m.3 + m.2 * k
    m.7 = m.7 + m.6 * k
    m.11 = m.11 + m.10 * k
    m.15 = m.15 + m.14 * k
  }

  /// Translate(-a) * self * Translate(+a) for an anchor (ax, ay, 0).
  @inlinable @inline(__always)
  mutating func applyAnchor(_ ax: L, _ ay: L) {
    m.12 = m.12 - ax * m.0 - ay * m.4
    m.13 = m.13 - ax * m.1 - ay * m.5
    m.14 = m.14 - ax * m.2 - ay * m.6
    m.15 = m.15 - ax * m.3 - ay * m.7
    m.0 = m.0 + m.3 * ax
    m.1 = m.1 + m.3 * ay
    m.4 = m.4 + m.7 * ax
    m.5 = m.5 + m.7 * ay
    m.8 = m.8 + m.11 * ax
    m.9 = m.9 + m.11 * ay
    m.12 = m.12 + m.15 * ax
    m.13 = m.13 + m.15 * ay
  }
}

/// Per-lane state produced by evaluating one group (no optionals: a fold's halves are
/// evaluated and stored separately, so this small value is all that moves per group).
@usableFromInline
struct LaneResult<L: FloatLanes> {
  @usableFromInline var matrix: LaneMatrix<L>
  @usableFromInline var opacity: L
  @usableFromInline var shadow: L
  @inlinable init(matrix: LaneMatrix<L>, opacity: L, shadow: L) {
    self.matrix = matrix
    self.opacity = opacity
    self.shadow = shadow
  }
}

/// Channel values of one lane group.
@usableFromInline
struct LaneChannels<L: FloatLanes> {
  @usableFromInline var opacity = L(repeating: 1), shadow = L(repeating: 0)
  @usableFromInline var tx = L(repeating: 0), ty = L(repeating: 0), tz = L(repeating: 0)
  @usableFromInline var rx = L(repeating: 0), ry = L(repeating: 0), rz = L(repeating: 0)
  @usableFromInline var s = L(repeating: 1), sx = L(repeating: 1), sy = L(repeating: 1)
  @usableFromInline var cachedPart = -1
  @usableFromInline var cached = L(repeating: 0)
  @inlinable init() {}
}

/// The affine result of a planar group: [a b 0 0; c d 0 0; 0 0 1 0; tx ty 0 1], opacities.
@usableFromInline
struct LanePlanar<L: FloatLanes> {
  @usableFromInline var a, b, c, d, tx, ty: L
  @usableFromInline var opacity = L(repeating: 1), shadow = L(repeating: 0)
  @inlinable init(a: L, b: L, c: L, d: L, tx: L, ty: L) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }
}

/// A planar recipe's 2D matrix path as plain Floats read once per run (no array access
/// or bounds check per group): start values and deltas of (tx, ty, sx, sy, angle, m11,
/// m12, m21, m22).
@usableFromInline
struct PlanarConstants {
  @usableFromInline var part: Int?
  /// Start values (f) and deltas (d) of tx, ty, sx, sy, angle, m11, m12, m21, m22.
  @usableFromInline var ftx: Float = 0, fty: Float = 0, fsx: Float = 0, fsy: Float = 0, fan: Float = 0
  @usableFromInline var f11: Float = 0, f12: Float = 0, f21: Float = 0, f22: Float = 0
  @usableFromInline var dtx: Float = 0, dty: Float = 0, dsx: Float = 0, dsy: Float = 0, dan: Float = 0
  @usableFromInline var d11: Float = 0, d12: Float = 0, d21: Float = 0, d22: Float = 0
  @inlinable init(_ r: CompiledRecipe) {
    part = nil
    if case .twoD(let p, let a, let b) = r.matrix {
      part = p
      (ftx, fty, fsx, fsy, fan) = (a[0], a[1], a[2], a[3], a[4])
      (f11, f12, f21, f22) = (a[5], a[6], a[7], a[8])
      (dtx, dty, dsx, dsy, dan) = (b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3], b[4] - a[4])
      (d11, d12, d21, d22) = (b[5] - a[5], b[6] - a[6], b[7] - a[7], b[8] - a[8])
    }
  }
}

/// A fold's two halves and their shadow opacity, per lane.
@usableFromInline
struct LaneFold<L: FloatLanes> {
  @usableFromInline var top: LaneMatrix<L>
  @usableFromInline var bottom: LaneMatrix<L>
  @usableFromInline var shadow: L
  @inlinable init(top: LaneMatrix<L>, bottom: LaneMatrix<L>, shadow: L) {
    self.top = top
    self.bottom = bottom
    self.shadow = shadow
  }
}

extension Kernel {
  /// Solves x(s) = x for the Bezier parameter, per lane, branch-free: a fixed number of
  /// Newton steps, each safeguarded by a bracket [lo, hi] that bisection falls back to
  /// where Newton would leave it (or its derivative vanishes). x(s) is non-decreasing
  /// because the x control points lie in [0, 1], so the bracket is valid.
  @inlinable @inline(__always)
  static func bezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float,
    steps: Int = bezierSteps, quadraticGuess: Bool = true
  ) -> L {
    // Well-conditioned curves converge from s = x in as few steps as the quadratic guess
    // needs plus its own cost (a square root and a divide); the compiler picks per curve.
    var s = x
    if quadraticGuess { s = quadraticFirstGuess(x, ax, bx, cx) }
    var lo = L(repeating: 0), hi = L(repeating: 1)
    let ax3 = ax * 3, bx2 = bx * 2
    for _ in 0..<steps {
      let fx = ((s * ax + bx) * s + cx) * s - x
      let below = L.lt(fx, L(repeating: 0))
      lo = lo.replacing(with: s, where: below)
      hi = s.replacing(with: hi, where: below)
      let d = (s * ax3 + bx2) * s + cx
      let newton = s - fx / d
      let mid = (lo + hi) * 0.5
      // Keep Newton inside the bracket, ends included (a converged step lands on one);
      // NaN and infinities fail this test and bisect instead.
      let inside = L.and(L.ge(newton, lo), L.ge(hi, newton))
      s = mid.replacing(with: newton, where: inside)
    }
    let y = ((s * ay + by) * s + cy) * s
    // The ends are exact (0 -> 0, 1 -> 1), as in the reference; the Float polynomial at
    // s = 1 is not exactly 1, and x'(1) = 0 for curves with x2 = 1 stalls Newton there.
    let end = L.ge(x, L(repeating: 1))
    return y.replacing(with: L(repeating: 1), where: end)
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// The quadratic first guess of `bezierProgress`, in [0, 1].
  @inlinable @inline(__always)
  static func quadraticFirstGuess<L: FloatLanes>(_ x: L, _ ax: Float, _ bx: Float, _ cx: Float) -> L {
    // First guess from the quadratic expansion at the nearer end, exact as s -> 0 or 1,
    // where x'(s) may vanish (x1 = 0 or x2 = 1) and plain Newton from s = x crawls:
    // near 0, x ~ cx s + bx s^2; near 1, 1 - x ~ d u + e u^2 with u = 1 - s,
    // d = x'(1) = 3ax + 2bx + cx, e = -(3ax + bx). Solved in the cancellation-free form
    // r = 2 c / (b + sqrt(b^2 + 4 a c)).
    let back = L.ge(x, L(repeating: 0.5))
    let xr = x.replacing(with: 1 - x, where: back)
    let qa = L(repeating: bx).replacing(with: L(repeating: -(3 * ax + bx)), where: back)
    let qb = L(repeating: cx).replacing(with: L(repeating: 3 * ax + 2 * bx + cx), where: back)
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
  @usableFromInline static var bezierSteps: Int { 8 }

  /// Progress of one timed part per lane at frame time `t` (relative to the batch origin).
  @inlinable @inline(__always)
  static func partProgress<L: FloatLanes>(
    _ part: CompiledPart, _ r: CompiledRecipe, start: L, t: Float
  ) -> L {
    let dur = part.duration
    var ta = (L(repeating: t) - start) - part.delay
    var local: L
    var inactive: L.Mask
    if r.simpleTiming {
      local = L.clamp(ta, 0, dur)
      inactive = L.lt(ta, L(repeating: 0))
      if r.fillsBackwards { inactive = L.lt(ta, L(repeating: -Float.infinity)) }
      if !r.fillsForwards {
        // After the end without forward fill the model value (= to) shows: same as p = 1
        // for a non-reversing single iteration, but keep it explicit.
        inactive = L.or(inactive, L.ge(ta, L(repeating: dur)))
      }
    } else {
      ta = ta * r.speed
      let active = dur * max(r.repeatCount, 1) * (r.autoreverses ? 2 : 1)
      let k = L.floor(ta * (1 / dur))
      var tl = L.clamp(ta - k * dur, 0, dur)
      if r.autoreverses {
        let odd = L.ge(k - L.floor(k * 0.5) * 2, L(repeating: 0.5))
        tl = tl.replacing(with: dur - tl, where: odd)
      }
      let before = L.lt(ta, L(repeating: 0))
      let after = L.ge(ta, L(repeating: active))
      local = tl.replacing(with: L(repeating: 0), where: before)
      local = local.replacing(with: L(repeating: part.endLocalTime), where: after)
      inactive = L.lt(ta, L(repeating: -Float.infinity))
      if !r.fillsBackwards { inactive = L.or(inactive, before) }
      if !r.fillsForwards { inactive = L.or(inactive, after) }
    }
    var p: L
    switch part.curve {
    case .bezier(let ax, let bx, let cx, let ay, let by, let cy, let steps, let guess):
      p = bezierProgress(
        L.clamp(local * (1 / dur), 0, 1), ax, bx, cx, ay, by, cy, steps: steps, quadraticGuess: guess)
    case .underdamped(let a, let wd, let b):
      let e = L.exp(local * -a)
      let sc = L.sincos(local * wd)
      p = 1 - e * (sc.cos + sc.sin * b)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    case .critical(let w0, let c):
      p = 1 - (local * c + 1) * L.exp(local * -w0)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    case .overdamped(let a, let beta, let c):
      // e^(-a t) cosh(beta t) = (e1 + e2) / 2 and e^(-a t) sinh(beta t) / (beta t) with
      // e1,2 = e^((-a +- beta) t), both decaying (no overflow). For small y = beta t the
      // difference cancels, so use the series sinh(y)/y = 1 + y^2/6 + y^4/120 + y^6/5040
      // (relative error < 3e-9 for y < 0.5).
      let e1 = L.exp(local * (beta - a)), e2 = L.exp(local * (-beta - a))
      let y = local * beta
      let y2 = y * y
      let series = L.exp(local * -a) * (((y2 * (1 / 5040) + (1 / 120)) * y2 + (1 / 6)) * y2 + 1)
      let direct = (e1 - e2) / L.maximum(y * 2, L(repeating: 1e-30))
      let sinhc = series.replacing(with: direct, where: L.ge(y, L(repeating: 0.5)))
      p = 1 - ((e1 + e2) * 0.5 + local * c * sinhc)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    }
    return p.replacing(with: L(repeating: 1), where: inactive)
  }

  /// Every channel's value for one lane group (model values where nothing animates), and
  /// the last part's progress, which the matrix animation reuses when it shares the part.
  @inlinable @inline(__always)
  static func channelValues<L: FloatLanes>(
    _ r: CompiledRecipe, t: Float, start: L, height: L, tableWidth: L
  ) -> LaneChannels<L> {
    var c = LaneChannels<L>()
    for ch in r.channels {
      if ch.part != c.cachedPart {
        c.cached = partProgress(r.parts[ch.part], r, start: start, t: t)
        c.cachedPart = ch.part
      }
      let from = height * ch.from.y + tableWidth * ch.from.z + ch.from.x
      let to = height * ch.to.y + tableWidth * ch.to.z + ch.to.x
      let v = from + (to - from) * c.cached
      switch ch.channel {
      case .opacity: c.opacity = v
      case .shadowOpacity: c.shadow = v
      case .translationX: c.tx = v
      case .translationY: c.ty = v
      case .translationZ: c.tz = v
      case .rotationX: c.rx = v
      case .rotationY: c.ry = v
      case .rotationZ: c.rz = v
      case .scale: c.s = v
      case .scaleX: c.sx = v
      case .scaleY: c.sy = v
      }
    }
    return c
  }

  /// Evaluates one lane group of a planar recipe (`CompiledRecipe.isPlanar`: no rotation
  /// about x or y, no z translation, no perspective, a 2D matrix path if any): only the six
  /// entries of the affine matrix [a b 0 0; c d 0 0; 0 0 1 0; tx ty 0 1] are computed,
  /// with the same formulas as `evaluateGroup` restricted to them. Fewer live vectors than
  /// the general 4x4 (6 instead of 16), so nothing spills.
  @inlinable @inline(__always)
  static func evaluatePlanarGroup<L: FloatLanes>(
    _ r: CompiledRecipe, _ k: PlanarConstants, t: Float, start: L, width: L, height: L, tableWidth: L
  ) -> LanePlanar<L> {
    let v = channelValues(r, t: t, start: start, height: height, tableWidth: tableWidth)
    let one = L(repeating: 1), z = L(repeating: 0)
    var m = LanePlanar<L>(a: one, b: z, c: z, d: one, tx: z, ty: z)
    if r.hasChannelTransform {
      let ex = v.s * v.sx, ey = v.s * v.sy
      let cz = L.sincos(v.rz)
      // S * Rz rows [ex cz, ex sz], [-ey sz, ey cz]; translation first or last.
      m.a = ex * cz.cos
      m.b = ex * cz.sin
      m.c = -(ey * cz.sin)
      m.d = ey * cz.cos
      if r.translateFirst {
        m.tx = v.tx * m.a + v.ty * m.c
        m.ty = v.tx * m.b + v.ty * m.d
      } else {
        m.tx = v.tx
        m.ty = v.ty
      }
    }
    if let part = k.part {
      let p = part == v.cachedPart ? v.cached : partProgress(r.parts[part], r, start: start, t: t)
      let dsx = p * k.dsx + k.fsx, dsy = p * k.dsy + k.fsy, angle = p * k.dan + k.fan
      let r11 = p * k.d11 + k.f11, r12 = p * k.d12 + k.f12, r21 = p * k.d21 + k.f21, r22 = p * k.d22 + k.f22
      let cs = L.sincos(angle)
      // Scale * Rotation * Remainder.
      let a2 = dsx * (cs.cos * r11 + cs.sin * r21), b2 = dsx * (cs.cos * r12 + cs.sin * r22)
      let c2 = dsy * (cs.cos * r21 - cs.sin * r11), d2 = dsy * (cs.cos * r22 - cs.sin * r12)
      let tx2 = p * k.dtx + k.ftx, ty2 = p * k.dty + k.fty
      if r.hasChannelTransform {
        // channels * matrix (2D affine product, row vectors).
        m = LanePlanar(
          a: m.a * a2 + m.b * c2, b: m.a * b2 + m.b * d2,
          c: m.c * a2 + m.d * c2, d: m.c * b2 + m.d * d2,
          tx: m.tx * a2 + m.ty * c2 + tx2, ty: m.tx * b2 + m.ty * d2 + ty2)
      } else {
        m = LanePlanar(a: a2, b: b2, c: c2, d: d2, tx: tx2, ty: ty2)
      }
    }
    // About the anchor: Translate(-anchor) * M * Translate(+anchor).
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    m.tx = m.tx - ax * m.a - ay * m.c + ax
    m.ty = m.ty - ax * m.b - ay * m.d + ay
    m.opacity = L.clamp(v.opacity, 0, 1)
    m.shadow = L.clamp(v.shadow, 0, 1)
    return m
  }

  /// Evaluates one lane group of cells sharing recipe `r`.
  @inlinable @inline(__always)
  static func evaluateGroup<L: FloatLanes>(
    _ r: CompiledRecipe, t: Float, start: L, width: L, height: L, tableWidth: L, detailHeight: L
  ) -> LaneResult<L> {
    let v = channelValues(r, t: t, start: start, height: height, tableWidth: tableWidth)
    let (opacity, shadow, tx, ty, tz) = (v.opacity, v.shadow, v.tx, v.ty, v.tz)
    let (rx, ry, rz, s, sx, sy) = (v.rx, v.ry, v.rz, v.s, v.sx, v.sy)
    let cachedPart = v.cachedPart, cached = v.cached
    let z = L(repeating: 0), one = L(repeating: 1)
    var m = LaneMatrix<L>(linear: (one, z, z, z, one, z, z, z, one), translation: (z, z, z))
    if r.hasChannelTransform {
      let ex = s * sx, ey = s * sy
      let cz = L.sincos(rz)
      // S * Rz (rows): [ex cz, ex sz, 0], [-ey sz, ey cz, 0], [0, 0, 1].
      var l = (ex * cz.cos, ex * cz.sin, z, -(ey * cz.sin), ey * cz.cos, z, z, z, one)
      if r.hasRotationXY {
        // S * Rx * Ry * Rz in full.
        let cx = L.sincos(rx), cy = L.sincos(ry)
        // Rx * Ry rows: [cy, 0, -sy], [sx sy, cx, sx cy], [cx sy, -sx, cx cy].
        let a = (
          cy.cos, z, -cy.sin,
          cx.sin * cy.sin, cx.cos, cx.sin * cy.cos,
          cx.cos * cy.sin, -cx.sin, cx.cos * cy.cos
        )
        // (Rx Ry) * Rz, Rz rows [cz, sz, 0], [-sz, cz, 0], [0, 0, 1]; then scale rows.
        l = (
          ex * (a.0 * cz.cos - a.1 * cz.sin), ex * (a.0 * cz.sin + a.1 * cz.cos), ex * a.2,
          ey * (a.3 * cz.cos - a.4 * cz.sin), ey * (a.3 * cz.sin + a.4 * cz.cos), ey * a.5,
          a.6 * cz.cos - a.7 * cz.sin, a.6 * cz.sin + a.7 * cz.cos, a.8
        )
      }
      var t = (tx, ty, tz)
      if r.translateFirst {
        // T * L: the translation row goes through L.
        t = (
          tx * l.0 + ty * l.3 + tz * l.6,
          tx * l.1 + ty * l.4 + tz * l.7,
          tx * l.2 + ty * l.5 + tz * l.8
        )
      }
      m = LaneMatrix(linear: l, translation: t)
    }
    if let matrix = r.matrix {
      let mm: LaneMatrix<L>
      switch matrix {
      case .twoD(let part, let a, let b):
        let p = part == cachedPart ? cached : partProgress(r.parts[part], r, start: start, t: t)
        @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
        let dtx = lerp(0), dty = lerp(1), dsx = lerp(2), dsy = lerp(3), angle = lerp(4)
        let r11 = lerp(5), r12 = lerp(6), r21 = lerp(7), r22 = lerp(8)
        let cs = L.sincos(angle)
        // Scale * Rotation * Remainder.
        let row0 = (cs.cos * r11 + cs.sin * r21, cs.cos * r12 + cs.sin * r22)
        let row1 = (cs.cos * r21 - cs.sin * r11, cs.cos * r22 - cs.sin * r12)
        mm = LaneMatrix(
          linear: (dsx * row0.0, dsx * row0.1, z, dsy * row1.0, dsy * row1.1, z, z, z, one),
          translation: (dtx, dty, z))
      case .threeD(let part, let a, let b, let qa, let qb, let theta, let nlerp):
        let p = part == cachedPart ? cached : partProgress(r.parts[part], r, start: start, t: t)
        @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
        var wa: L, wb: L
        if nlerp {
          wa = 1 - p
          wb = p
        } else {
          let inv = 1 / sin(theta)
          wa = L.sincos((1 - p) * theta).sin * inv
          wb = L.sincos(p * theta).sin * inv
        }
        var qx = wa * qa.x + wb * qb.x, qy = wa * qa.y + wb * qb.y
        var qz = wa * qa.z + wb * qb.z, qw = wa * qa.w + wb * qb.w
        if nlerp {
          let xy2: L = qx * qx + qy * qy
          let zw2: L = qz * qz + qw * qw
          let n: L = 1 / (xy2 + zw2).squareRoot()
          qx = qx * n
          qy = qy * n
          qz = qz * n
          qw = qw * n
        }
        // Rotation (row-vector) from the quaternion.
        let xx = qx * qx, yy = qy * qy, zz = qz * qz
        let xy = qx * qy, xz = qx * qz, yz = qy * qz, xw = qx * qw, yw = qy * qw, zw = qz * qw
        let r0 = (1 - (yy + zz) * 2, (xy + zw) * 2, (xz - yw) * 2)
        let r1 = ((xy - zw) * 2, 1 - (xx + zz) * 2, (yz + xw) * 2)
        let r2 = ((xz + yw) * 2, (yz - xw) * 2, 1 - (xx + yy) * 2)
        let p0 = lerp(0), p1 = lerp(1), p2 = lerp(2), p3 = lerp(3)
        let t0 = lerp(4), t1 = lerp(5), t2 = lerp(6)
        let s0 = lerp(7), s1 = lerp(8), s2 = lerp(9)
        let kxy = lerp(10), kxz = lerp(11), kyz = lerp(12)
        // Scale * Skew * Rotation (rows).
        let k1 = (r1.0 + kxy * r0.0, r1.1 + kxy * r0.1, r1.2 + kxy * r0.2)
        let k2 = (
          r2.0 + kxz * r0.0 + kyz * r1.0, r2.1 + kxz * r0.1 + kyz * r1.1, r2.2 + kxz * r0.2 + kyz * r1.2
        )
        let l0 = (s0 * r0.0, s0 * r0.1, s0 * r0.2)
        let l1 = (s1 * k1.0, s1 * k1.1, s1 * k1.2)
        let l2 = (s2 * k2.0, s2 * k2.1, s2 * k2.2)
        // * Translation * Perspective(column 4 = p).
        mm = LaneMatrix((
          l0.0, l0.1, l0.2, l0.0 * p0 + l0.1 * p1 + l0.2 * p2,
          l1.0, l1.1, l1.2, l1.0 * p0 + l1.1 * p1 + l1.2 * p2,
          l2.0, l2.1, l2.2, l2.0 * p0 + l2.1 * p1 + l2.2 * p2,
          t0, t1, t2, t0 * p0 + t1 * p1 + t2 * p2 + p3
        ))
      case .componentwise(let part, let a, let b):
        let p = part == cachedPart ? cached : partProgress(r.parts[part], r, start: start, t: t)
        @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
        mm = LaneMatrix((
          lerp(0), lerp(1), lerp(2), lerp(3), lerp(4), lerp(5), lerp(6), lerp(7),
          lerp(8), lerp(9), lerp(10), lerp(11), lerp(12), lerp(13), lerp(14), lerp(15)
        ))
      case .discrete(let part, let a, let b):
        let p = part == cachedPart ? cached : partProgress(r.parts[part], r, start: start, t: t)
        let late = L.ge(p, L(repeating: 0.5))
        @inline(__always) func pick(_ i: Int) -> L { L(repeating: a[i]).replacing(with: L(repeating: b[i]), where: late) }
        mm = LaneMatrix((
          pick(0), pick(1), pick(2), pick(3), pick(4), pick(5), pick(6), pick(7),
          pick(8), pick(9), pick(10), pick(11), pick(12), pick(13), pick(14), pick(15)
        ))
      }
      m = r.hasChannelTransform ? m.times(mm) : mm
    }
    if r.m34 != 0 { m.applyPerspective(r.m34) }
    m.applyAnchor(width * r.anchor.x, height * r.anchor.y)
    return LaneResult(matrix: m, opacity: L.clamp(opacity, 0, 1), shadow: L.clamp(shadow, 0, 1))
  }

  /// The fold halves of one lane group (recipes with a fold only).
  @inlinable @inline(__always)
  static func evaluateFold<L: FloatLanes>(
    _ r: CompiledRecipe, _ fold: (part: Int, opening: Bool, m34: Float), t: Float, start: L, width: L,
    detailHeight: L
  ) -> LaneFold<L> {
    let z = L(repeating: 0), one = L(repeating: 1)
    let p = partProgress(r.parts[fold.part], r, start: start, t: t)
    let openness = fold.opening ? p : 1 - p
    let angle = (1 - openness) * (-Float.pi / 2)
    let cs = L.sincos(angle)
    let (sn, c) = (cs.sin, cs.cos)
    let k = fold.m34
    let hw = width * 0.5
    let h = detailHeight * 0.5
    let skw = sn * k * hw, ckw = c * k * hw
    // Top half: T(-w/2, 0) * Rx(angle) * P * T(w/2, 0).
    let top = LaneMatrix((
      one, z, z, z,
      skw, c, sn, sn * k,
      ckw, -sn, c, c * k,
      z, z, z, one
    ))
    // Bottom half: T(-w/2, -h) * Rx(-angle) * P * T(w/2, 2h cos/w); w = 1 + h sin k.
    let w = h * sn * k + 1
    let yHinge = (h * c * 2) / w
    let bottom = LaneMatrix((
      one, z, z, z,
      -skw, c - sn * k * yHinge, -sn, -(sn * k),
      ckw, sn + c * k * yHinge, c, c * k,
      h * skw, h * c, h * sn, w
    ))
    return LaneFold(top: top, bottom: bottom, shadow: L.clamp(1 - openness, 0, 1))
  }
}
