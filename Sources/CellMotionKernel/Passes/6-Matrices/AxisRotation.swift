// Pass 6 (KernelPass.matrices), `MatrixPlan.axisRotation`: a recipe whose only transform is a rotation
// about x or about y (the flip presets, a cover flow, a wheel picker), with translations, a
// sheared translation and perspective and an anchor, as explicit entries; and the sine and
// cosine of an angle known to stay near a centre.

import CellMotion
import Foundation

/// A recipe whose transform channels are a single rotation about x or y, translations and
/// at most a `ShearTranslation` matrix animation (`CompiledRecipe.axisRotation`):
/// M = T(-a) * R * P(m34) * T(a) has six zero and two unit entries, and the rest are a few
/// products of sin, cos, m34 and the anchor, so the group writes them directly instead of
/// composing two full 4x4 matrices.
struct AxisRotation: Sendable {
  /// true: rotation about x (`Channel.rotationX`); false: about y.
  let aboutX: Bool
  /// The channel's timed part and values (radians: from + (to - from) progress, each end
  /// c + h * cellHeight + w * tableWidth).
  let part: Int
  let from: SIMD3<Float>
  let delta: SIMD3<Float>
  /// (c, sin c, cos c) when every angle the curve can produce is within
  /// `AngleCentre.reach` of c (`Kernel.sincos(_:near:)`); nil: the full-range sine.
  let centre: SIMD3<Float>?
  /// Whether translation channels or `shift` move the cell too (a cover flow's depth, a
  /// wheel's radius): then the entries take the translation row (`axisRotationTranslated`).
  let translates: Bool
  /// The recipe's matrix animation when it only shears by z and translates (a wheel
  /// picker's), applied after the channels' transform; nil when it has none.
  let shift: ShearTranslation?

  /// The shape of `r`, or nil when its transform is anything else: the winning transform
  /// channels are one rotation about x or y and any translations, no scale, no rotation
  /// about z, and no matrix animation but a `ShearTranslation`.
  init?(_ r: CompiledRecipe) {
    let k = r.channelSlots
    let rx = k.rx.row >= 0, ry = k.ry.row >= 0
    guard rx != ry, k.rz.row < 0, k.s.row < 0, k.sx.row < 0, k.sy.row < 0 else { return nil }
    shift = r.matrix.flatMap(ShearTranslation.init)
    guard r.matrix == nil || shift != nil else { return nil }
    let ch = rx ? k.rx : k.ry
    aboutX = rx
    part = ch.row
    from = ch.from
    delta = ch.delta
    translates = k.tx.row >= 0 || k.ty.row >= 0 || k.tz.row >= 0 || shift != nil
    centre = !ch.usesGeometry ? AngleCentre.of(from: from.x, delta: delta.x, bounds: r.progressBounds(row: ch.row)) : nil
  }
}

/// A componentwise matrix animation whose ends differ from the identity only in m31 and m32
/// (x and y sheared by z) and m41, m42 and m43 (a translation), like the wheel picker's
/// T(0, 0, -r) X(delta): X after Q (row vectors) adds each of Q's rows' z times (m31, m32)
/// to its x and y, and (m41, m42, m43) to its translation, with no full product.
struct ShearTranslation: Sendable {
  /// The entries it animates, in field order (m31, m32, m41, m42, m43).
  static let entries = [8, 9, 12, 13, 14]
  /// The part whose progress drives it.
  let part: Int
  /// The five entries at progress 0, and their change to progress 1 (b - a in Float, as
  /// the general path lerps them), in `entries` order; lanes 5-7 are 0.
  let from: SIMD8<Float>
  let delta: SIMD8<Float>
  /// Whether m31 or m32 is non-zero at either end (else a plain translation).
  let shears: Bool

  /// The shape of `matrix`, or nil when it is another path or touches another entry.
  init?(_ matrix: CompiledMatrix) {
    guard case .componentwise(let part, let a, let b) = matrix else { return nil }
    for k in 0..<16 where !Self.entries.contains(k) {
      let identity: Float = k % 5 == 0 ? 1 : 0
      guard a[k] == identity, b[k] == identity else { return nil }
    }
    var from = SIMD8<Float>(), delta = SIMD8<Float>()
    for (lane, k) in Self.entries.enumerated() {
      from[lane] = a[k]
      delta[lane] = b[k] - a[k]
    }
    self.part = part
    self.from = from
    self.delta = delta
    shears = a[8] != 0 || a[9] != 0 || b[8] != 0 || b[9] != 0
  }
}

/// Where an animated angle from + delta * progress stays within `reach` of a centre for
/// every progress in a curve's bounds (`CompiledCurve.progressBounds`), its sine and
/// cosine need no argument reduction: `Kernel.sincos(_:near:)`.
enum AngleCentre {
  /// pi/4 (the interval `sincosSmall`'s polynomials are fitted on) plus 2e-3: the progress
  /// bounds carry a 1e-3 margin, which for a quarter turn (flip, fold) puts the range a
  /// hair past pi/2 wide. The test `sincosNear` measures the error out to this reach.
  static let reach = Double.pi / 4 + 2e-3

  /// (c, sin c, cos c) for the range's midpoint c (as a Float, with the sine and cosine
  /// of that Float), or nil when the range is wider than 2 `reach` or not finite.
  static func of(from: Float, delta: Float, bounds: (lo: Double, hi: Double)) -> SIMD3<Float>? {
    let a = Double(from) + Double(delta) * bounds.lo, b = Double(from) + Double(delta) * bounds.hi
    let lo = min(a, b), hi = max(a, b)
    guard lo.isFinite, hi.isFinite else { return nil }
    let c = Float((lo + hi) / 2)
    guard hi - Double(c) <= reach, Double(c) - lo <= reach else { return nil }
    return SIMD3(c, Float(sin(Double(c))), Float(cos(Double(c))))
  }
}

extension Kernel {
  /// Sine and cosine of `x` (radians): with a centre (c, sin c, cos c) from `AngleCentre`,
  /// `sincosSmall(x - c)` turned by c (sin(c + r) = sin c cos r + cos c sin r, cos(c + r)
  /// = cos c cos r - sin c sin r): no argument reduction, no quadrant selects. Without one,
  /// the full-range `sincos`.
  @inline(__always)
  static func sincos<L: FloatLanes>(_ x: L, near centre: SIMD3<Float>?) -> (sin: L, cos: L) {
    guard let c = centre else { return L.sincos(x) }
    let r = L.sincosSmall(x - c.x)
    return (L.muladd(r.cos, c.y, r.sin * c.z), L.muladd(r.cos, c.z, r.sin * -c.y))
  }

  /// The general pass for an `AxisRotation` recipe: cells `b ..< b + n` straight to
  /// `outputs.matrices` (`FloatLanes.storeMatrices`, the constant row (1 0 0 0) or
  /// (0 1 0 0) from constants, the other rows transposed in registers: no pass through the
  /// scratch), and the projected corners when asked for.
  static func axisRotationBlock<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ ar: AxisRotation, at b: Int, count n: Int, progress: StagedProgress,
    inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let constant: ConstantRows = ar.aboutX ? .unitRow0 : .unitRow1
    // Whole groups, then the partial group (no tail code in the loop).
    @inline(__always) func group(_ i: Int, lanes: Int) {
      let c = b &+ i
      let wi: L = loadGroup(inputs.width + c, lanes), he: L = loadGroup(inputs.height + c, lanes)
      let m = axisRotationGroup(
        r, ar, progress: progress, at: i, width: wi, height: he, tableWidth: loadGroup(inputs.tableWidth + c, lanes))
      L.storeMatrices(m, constant: constant, cells: lanes, to: outputs.matrices + 16 &* c)
      if let co = outputs.corners { storeCorners(m, at: c, lanes: lanes, to: co, width: wi, height: he) }
    }
    var i = 0
    while i &+ L.width <= n {
      group(i, lanes: L.width)
      i &+= L.width
    }
    if i < n { group(i, lanes: n &- i) }
  }

  /// One group of an `AxisRotation` recipe: T(-a) * R * P(m34) * T(a) with the anchor
  /// a = (w anchorX, h anchorY, 0), entry by entry. With c, s the cosine and sine and
  /// k = m34, about x:
  ///
  ///     [ 1          0                 0     0 ]
  ///     [ s k ax     c + s k ay        s     s k ]
  ///     [ c k ax     -s + c k ay       c     c k ]
  ///     [ ax(w - 1)  ay(w - c)         -ay s w ],  w = 1 - ay s k
  ///
  /// and about y:
  ///
  ///     [ c - s k ax   -s k ay      -s     -s k ]
  ///     [ 0            1            0      0 ]
  ///     [ s + c k ax   c k ay       c      c k ]
  ///     [ ax(w - c)    ay(w - 1)    ax s   w ],  w = 1 + ax s k
  ///
  /// (the general path's products with their zero and unit factors dropped).
  @inline(__always)
  static func axisRotationGroup<L: FloatLanes>(
    _ r: CompiledRecipe, _ ar: AxisRotation, progress: StagedProgress, at i: Int, width: L, height: L,
    tableWidth: L
  ) -> LaneMatrix<L> {
    let p: L = progress(ar.part, i)
    let angle: L
    if ar.centre != nil {
      angle = L.muladd(p, ar.delta.x, L(repeating: ar.from.x))
    } else {
      angle = channelValue(from: ar.from, delta: ar.delta, progress: p, height: height, tableWidth: tableWidth)
    }
    let cs = sincos(angle, near: ar.centre)
    let (s, c) = (cs.sin, cs.cos)
    let k = r.m34
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    let sk = s * k, ck = c * k
    let z = L(repeating: 0), one = L(repeating: 1)
    if ar.translates {
      return axisRotationTranslated(
        r, ar, progress: progress, at: i, sin: s, cos: c, anchorX: ax, anchorY: ay, height: height,
        tableWidth: tableWidth)
    }
    if ar.aboutX {
      let w = L.muladd(ay, -sk, one)
      return LaneMatrix((
        one, z, z, z,
        sk * ax, L.muladd(sk, ay, c), s, sk,
        ck * ax, L.muladd(ck, ay, -s), c, ck,
        ax * (w - 1), ay * (w - c), -(ay * s), w
      ))
    }
    let w = L.muladd(ax, sk, one)
    return LaneMatrix((
      L.muladd(sk, -ax, c), -(sk * ay), -s, -sk,
      z, one, z, z,
      L.muladd(ck, ax, s), ck * ay, c, ck,
      ax * (w - c), ay * (w - 1), ax * s, w
    ))
  }

  /// `axisRotationGroup` with translation channels or a shift: Q = R then T(t) (key-path
  /// order; with translate-first order the translation goes through R: t R), then the
  /// `ShearTranslation` X (rows r_i become (r_i0 + r_i2 m31, r_i1 + r_i2 m32, r_i2), t
  /// becomes (t0 + t2 m31 + m41, t1 + t2 m32 + m42, t2 + m43)), then the perspective and
  /// the anchor sandwich, T(-a) Q X P(m34) T(a). With the rows r0, r1, r2 and k = m34:
  /// rows i < 3 are (r_i0 + r_i2 k ax, r_i1 + r_i2 k ay, r_i2, r_i2 k); the last row is
  /// (t0 + w ax, t1 + w ay, t2, w) with w = t2 k + 1, minus ax row 0 and ay row 1. With
  /// t = 0 and no shift this is exactly the untranslated entries above.
  @inline(__always)
  static func axisRotationTranslated<L: FloatLanes>(
    _ r: CompiledRecipe, _ ar: AxisRotation, progress: StagedProgress, at i: Int, sin s: L, cos c: L, anchorX ax: L,
    anchorY ay: L, height: L, tableWidth: L
  ) -> LaneMatrix<L> {
    let z = L(repeating: 0), one = L(repeating: 1), k = r.m34
    let slots = r.channelSlots
    @inline(__always) func v(_ slot: ChannelSlot) -> L {
      slot.value(progress, at: i, identity: 0, height: height, tableWidth: tableWidth)
    }
    var (t0, t1, t2) = (v(slots.tx), v(slots.ty), v(slots.tz))
    // R's rows: about x [1 0 0] [0 c s] [0 -s c]; about y [c 0 -s] [0 1 0] [s 0 c].
    var r0 = ar.aboutX ? (one, z, z) : (c, z, -s)
    var r1 = ar.aboutX ? (z, c, s) : (z, one, z)
    var r2 = ar.aboutX ? (z, -s, c) : (s, z, c)
    if r.translateFirst {
      (t0, t1, t2) = (
        L.muladd(t0, r0.0, L.muladd(t1, r1.0, t2 * r2.0)), L.muladd(t0, r0.1, L.muladd(t1, r1.1, t2 * r2.1)),
        L.muladd(t0, r0.2, L.muladd(t1, r1.2, t2 * r2.2))
      )
    }
    if let x = ar.shift {
      let p: L = progress(x.part, i)
      @inline(__always) func entry(_ k: Int) -> L { L.muladd(p, x.delta[k], x.from[k]) }
      if x.shears {
        let m31 = entry(0), m32 = entry(1)
        @inline(__always) func sheared(_ q: (L, L, L)) -> (L, L, L) {
          (L.muladd(q.2, m31, q.0), L.muladd(q.2, m32, q.1), q.2)
        }
        // The row whose z is 0 (row 0 about x, row 1 about y) stays as it is.
        if ar.aboutX { r1 = sheared(r1) } else { r0 = sheared(r0) }
        r2 = sheared(r2)
        (t0, t1) = (L.muladd(t2, m31, t0), L.muladd(t2, m32, t1))
      }
      (t0, t1, t2) = (t0 + entry(2), t1 + entry(3), t2 + entry(4))
    }
    @inline(__always) func row(_ q: (L, L, L)) -> (L, L, L, L) {
      let qk = q.2 * k
      return (L.muladd(qk, ax, q.0), L.muladd(qk, ay, q.1), q.2, qk)
    }
    let m0 = row(r0), m1 = row(r1), m2 = row(r2)
    let w = L.muladd(t2, k, one)
    // Last row: (t0 + w ax, t1 + w ay, t2, w) - ax m0 - ay m1.
    let m3 = (
      L.muladd(w, ax, t0) - L.muladd(ax, m0.0, ay * m1.0), L.muladd(w, ay, t1) - L.muladd(ax, m0.1, ay * m1.1),
      t2 - L.muladd(ax, m0.2, ay * m1.2), w - L.muladd(ax, m0.3, ay * m1.3)
    )
    return LaneMatrix((m0.0, m0.1, m0.2, m0.3, m1.0, m1.1, m1.2, m1.3, m2.0, m2.1, m2.2, m2.3, m3.0, m3.1, m3.2, m3.3))
  }
}
