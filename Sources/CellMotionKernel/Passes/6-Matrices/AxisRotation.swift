// Pass 6 (KernelPass.matrices), `MatrixPlan.axisRotation`: a recipe whose only transform is a rotation
// about x or about y (the flip presets, a cover flow, a wheel picker), with translations, a
// sheared translation and perspective and an anchor, as explicit entries (the scroll
// presets' translation along z alone compiled straight-line: `DepthShape`); and the sine
// and cosine of an angle known to stay within a quarter or a half turn of a centre.

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
  /// Without `centre`: (c, sin c, cos c) when every angle is within twice the reach of c
  /// (`AngleCentre.halved`: a wheel picker's half turn), for `Kernel.sincos(_:nearHalved:)`;
  /// nil: the full-range sine.
  let halvedCentre: SIMD3<Float>?
  /// Whether translation channels or `shift` move the cell too (a cover flow's depth, a
  /// wheel's radius): then the entries take the translation row (`axisRotationTranslated`).
  let translates: Bool
  /// Whether the translation is along z alone (no translation channel along x or y; a
  /// shift may still move x and y): the scroll presets' shape (a cover flow's depth, a
  /// wheel's radius), which `Kernel.axisDepthBlock` computes without the zero terms.
  let depthOnly: Bool
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
    depthOnly = translates && k.tx.row < 0 && k.ty.row < 0
    let bounds = r.progressBounds(row: ch.row)
    centre = !ch.usesGeometry ? AngleCentre.of(from: from.x, delta: delta.x, bounds: bounds) : nil
    halvedCentre =
      !ch.usesGeometry && centre == nil ? AngleCentre.halved(from: from.x, delta: delta.x, bounds: bounds) : nil
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
    of(from: from, delta: delta, bounds: bounds, reach: reach)
  }

  /// `of` for ranges up to 4 `reach` wide (half angles within `reach` of c / 2:
  /// `Kernel.sincos(_:nearHalved:)`), or nil.
  static func halved(from: Float, delta: Float, bounds: (lo: Double, hi: Double)) -> SIMD3<Float>? {
    of(from: from, delta: delta, bounds: bounds, reach: 2 * reach)
  }

  static func of(from: Float, delta: Float, bounds: (lo: Double, hi: Double), reach: Double) -> SIMD3<Float>? {
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
    return sincos(x, nearCentre: c)
  }

  /// `sincos(_:near:)` with a centre.
  @inline(__always)
  static func sincos<L: FloatLanes>(_ x: L, nearCentre c: SIMD3<Float>) -> (sin: L, cos: L) {
    let r = L.sincosSmall(x - c.x)
    return (L.muladd(r.cos, c.y, r.sin * c.z), L.muladd(r.cos, c.z, r.sin * -c.y))
  }

  /// Sine and cosine of `x` (radians) within 2 `AngleCentre.reach` of a centre (c, sin c,
  /// cos c) from `AngleCentre.halved`: `sincosSmall` of the half angle h = (x - c) / 2, then
  /// sin 2h = 2 sin h cos h and cos 2h = 1 - 2 sin^2 h turned by c as in `sincos(_:near:)`
  /// (a wheel picker's half turn without the full-range sine's reduction and selects).
  @inline(__always)
  static func sincos<L: FloatLanes>(_ x: L, nearHalved c: SIMD3<Float>) -> (sin: L, cos: L) {
    let h = L.sincosSmall((x - c.x) * 0.5)
    let s = (h.sin * h.cos) * 2, co = L.muladd(h.sin * h.sin, -2, 1)
    return (L.muladd(co, c.y, s * c.z), L.muladd(co, c.z, s * -c.y))
  }

  /// The sine and cosine of an `AxisRotation`'s angle at the group of the block's cell `i`:
  /// from + delta x progress (with the cell's geometry when the ends use it, which only an
  /// angle with no centre does), near its centre, near its halved centre, or over the full
  /// range.
  @inline(__always)
  static func axisSinCos<L: FloatLanes>(
    _ ar: AxisRotation, progress: StagedProgress, at i: Int, height: L, tableWidth: L
  ) -> (sin: L, cos: L) {
    let p: L = progress(ar.part, i)
    if let h = ar.halvedCentre { return sincos(L.muladd(p, ar.delta.x, L(repeating: ar.from.x)), nearHalved: h) }
    if ar.centre != nil { return sincos(L.muladd(p, ar.delta.x, L(repeating: ar.from.x)), near: ar.centre) }
    return L.sincos(channelValue(from: ar.from, delta: ar.delta, progress: p, height: height, tableWidth: tableWidth))
  }

  /// The general pass for an `AxisRotation` recipe: cells `b ..< b + n` straight to
  /// `outputs.matrices` (`FloatLanes.storeMatrices`, the constant row (1 0 0 0) or
  /// (0 1 0 0) from constants, the other rows transposed in registers: no pass through the
  /// scratch), and the projected corners when asked for.
  static func axisRotationBlock<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ ar: AxisRotation, at b: Int, count n: Int, progress: StagedProgress,
    inputs: KernelInputs, outputs: KernelOutputs
  ) {
    // The scroll presets' shapes at the preferred width (`DepthShape`): the vertical wheel
    // picker and the horizontal cover flow, each a straight-line loop. Other shapes, other
    // widths and frames asking for corners read their flags at run time below.
    if L.self == SIMD8<Float>.self, outputs.corners == nil, ar.depthOnly, r.channelSlots.tz.row >= 0,
      !r.channelSlots.tz.usesGeometry
    {
      switch (ar.aboutX, r.translateFirst, ar.shift != nil, ar.halvedCentre != nil, ar.centre != nil) {
      case (true, true, true, true, _):
        return axisDepthBlock(
          SIMD8<Float>.self, Depth<Yes, Yes, Yes, Yes>.self, r, ar, at: b, count: n, progress: progress,
          inputs: inputs, outputs: outputs)
      case (false, false, false, false, true):
        return axisDepthBlock(
          SIMD8<Float>.self, Depth<No, No, No, No>.self, r, ar, at: b, count: n, progress: progress,
          inputs: inputs, outputs: outputs)
      default: break
      }
    }
    // A flip's shape (no translation, the angle near its centre): the same loop with the
    // axis known and no test per group.
    if outputs.corners == nil, !ar.translates, ar.centre != nil {
      if ar.aboutX {
        return axisFlipBlock(L.self, Yes.self, r, ar, at: b, count: n, progress: progress, inputs: inputs, outputs: outputs)
      }
      return axisFlipBlock(L.self, No.self, r, ar, at: b, count: n, progress: progress, inputs: inputs, outputs: outputs)
    }
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
    let (s, c) = axisSinCos(ar, progress: progress, at: i, height: height, tableWidth: tableWidth)
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    if ar.translates {
      return axisRotationTranslated(
        r, ar, progress: progress, at: i, sin: s, cos: c, anchorX: ax, anchorY: ay, height: height,
        tableWidth: tableWidth)
    }
    return axisRotationEntries(aboutX: ar.aboutX, sin: s, cos: c, m34: r.m34, anchorX: ax, anchorY: ay)
  }

  /// The entries of `axisRotationGroup` without translation (shown there).
  @inline(__always)
  static func axisRotationEntries<L: FloatLanes>(
    aboutX: Bool, sin s: L, cos c: L, m34 k: Float, anchorX ax: L, anchorY ay: L
  ) -> LaneMatrix<L> {
    let sk = s * k, ck = c * k
    let z = L(repeating: 0), one = L(repeating: 1)
    if aboutX {
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

  /// `axisRotationBlock` for a rotation without translation whose angle stays near its
  /// centre (`AxisRotation.centre`: a flip's quarter turn), the axis known to the
  /// compiler, no corners: the flags `axisRotationGroup` tests per group, tested once.
  static func axisFlipBlock<L: FloatLanes, AboutX: StaticFlag>(
    _: L.Type, _: AboutX.Type, _ r: CompiledRecipe, _ ar: AxisRotation, at b: Int, count n: Int,
    progress: StagedProgress, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let constant: ConstantRows = AboutX.value ? .unitRow0 : .unitRow1
    let centre = ar.centre.unsafelyUnwrapped
    let from = L(repeating: ar.from.x), delta = ar.delta.x
    @inline(__always) func group(_ i: Int, lanes: Int) {
      let c = b &+ i
      let (sin, cos) = sincos(L.muladd(progress(ar.part, i) as L, delta, from), nearCentre: centre)
      let width: L = loadGroup(inputs.width + c, lanes), height: L = loadGroup(inputs.height + c, lanes)
      let m = axisRotationEntries(
        aboutX: AboutX.value, sin: sin, cos: cos, m34: r.m34, anchorX: width * r.anchor.x, anchorY: height * r.anchor.y)
      L.storeMatrices(m, constant: constant, cells: lanes, to: outputs.matrices + 16 &* c)
    }
    var i = 0
    while i &+ L.width <= n {
      group(i, lanes: L.width)
      i &+= L.width
    }
    if i < n { group(i, lanes: n &- i) }
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

  /// `axisRotationBlock` for a translation along z alone (`AxisRotation.depthOnly`), with
  /// its shape known to the compiler (`DepthShape`), no corners.
  static func axisDepthBlock<L: FloatLanes, S: DepthShape>(
    _: L.Type, _: S.Type, _ r: CompiledRecipe, _ ar: AxisRotation, at b: Int, count n: Int, progress: StagedProgress,
    inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let constant: ConstantRows = S.aboutX ? .unitRow0 : .unitRow1
    let shift = ShiftLanes<L>(ar.shift, aboutX: S.aboutX)
    let tz = r.channelSlots.tz
    @inline(__always) func group(_ i: Int, lanes: Int) {
      let c = b &+ i
      let m = axisDepthGroup(
        S.self, r, ar, shift, tz, progress: progress, at: i, width: loadGroup(inputs.width + c, lanes),
        height: loadGroup(inputs.height + c, lanes))
      L.storeMatrices(m, constant: constant, cells: lanes, to: outputs.matrices + 16 &* c)
    }
    var i = 0
    while i &+ L.width <= n {
      group(i, lanes: L.width)
      i &+= L.width
    }
    if i < n { group(i, lanes: n &- i) }
    // (The same loop as `axisRotationBlock`'s, `axisFlipBlock`'s and `foldStage`'s: a shared helper taking
    // `group` as a closure left it a call per group, 15 more instructions per cell.)
  }

  /// One group of a `DepthShape`: the entries of `axisRotationTranslated` with the
  /// translation (0, 0, tz), the terms that are zero for it left out. In the rotation's
  /// plane, `a` is the axis it turns toward z (y about x, x about y) and `b` the one it
  /// leaves (x about x, y about y); P (row 1 about x, row 0 about y) and Q (row 2) are the
  /// rows with a z part, as (a, z): about x P = (c, s), Q = (-s, c); about y P = (c, -s),
  /// Q = (s, c); their b parts are 0 until the shift shears them. The fixed row is
  /// (1 0 0 0) about x, (0 1 0 0) about y (`ConstantRows`).
  @inline(__always)
  static func axisDepthGroup<L: FloatLanes, S: DepthShape>(
    _: S.Type, _ r: CompiledRecipe, _ ar: AxisRotation, _ x: ShiftLanes<L>, _ tzSlot: ChannelSlot,
    progress: StagedProgress, at i: Int, width: L, height: L
  ) -> LaneMatrix<L> {
    // The angle near its centre or its halved centre, and tz a line of its progress
    // (`axisRotationBlock` takes a depth shape only then): no test per group.
    let angle = L.muladd(progress(ar.part, i) as L, ar.delta.x, L(repeating: ar.from.x))
    let (s, c) =
      S.halvedAngle
      ? sincos(angle, nearHalved: ar.halvedCentre.unsafelyUnwrapped)
      : sincos(angle, nearCentre: ar.centre.unsafelyUnwrapped)
    let zero = L(repeating: 0), one = L(repeating: 1), k = r.m34
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    let tz = L.muladd(progress(tzSlot.row, i) as L, tzSlot.delta.x, L(repeating: tzSlot.from.x))
    let pz = S.aboutX ? s : -s, qz = c
    var pa = c, qa = S.aboutX ? -s : s
    // The translation along a (nil: 0) and z: through the rotation first (t = tz Q) or not.
    var ta: L? = S.translateFirst ? tz * qa : nil
    var t3 = S.translateFirst ? tz * qz : tz
    // The shift's shear adds each row's z times (m3a, m3b) to its (a, b), and its
    // translation (m4a, m4b, m43) to t after t's own shear (`ShearTranslation`).
    var pb: L? = nil, qb: L? = nil, tb: L? = nil
    if S.shifts {
      let e = x.entries(progress(x.part, i))
      (pa, qa) = (L.muladd(pz, e.m3a, pa), L.muladd(qz, e.m3a, qa))
      (pb, qb) = (pz * e.m3b, qz * e.m3b)
      tb = L.muladd(t3, e.m3b, e.m4b)
      ta = ta.map { L.muladd(t3, e.m3a, $0) + e.m4a } ?? L.muladd(t3, e.m3a, e.m4a)
      t3 = t3 + e.m43
    }
    // v + f g, or f g where v is 0.
    @inline(__always) func plus(_ v: L?, _ f: L, _ g: L) -> L { v.map { L.muladd(f, g, $0) } ?? f * g }
    // Rows with the perspective and anchor: (x + z k ax, y + z k ay, z, z k).
    @inline(__always) func row(a: L, b: L?, z: L) -> (L, L, L, L) {
      let zk = z * k
      return S.aboutX ? (plus(b, zk, ax), L.muladd(zk, ay, a), z, zk) : (L.muladd(zk, ax, a), plus(b, zk, ay), z, zk)
    }
    let pr = row(a: pa, b: pb, z: pz), qr = row(a: qa, b: qb, z: qz)
    let w = L.muladd(t3, k, one)
    // Last row: (tx + w ax, ty + w ay, t3, w) - ax row 0 - ay row 1, with the fixed row's 1.
    let (tx, ty) = S.aboutX ? (tb, ta) : (ta, tb)
    let last: (L, L, L, L)
    if S.aboutX {
      last = (
        plus(tx, w, ax) - L.muladd(ay, pr.0, ax), plus(ty, w, ay) - ay * pr.1, t3 - ay * pr.2, w - ay * pr.3
      )
    } else {
      last = (
        plus(tx, w, ax) - ax * pr.0, plus(ty, w, ay) - L.muladd(ax, pr.1, ay), t3 - ax * pr.2, w - ax * pr.3
      )
    }
    let fixed0 = S.aboutX ? one : zero, fixed1 = S.aboutX ? zero : one
    let r0 = S.aboutX ? (fixed0, zero, zero, zero) : pr
    let r1 = S.aboutX ? pr : (zero, fixed1, zero, zero)
    return LaneMatrix((
      r0.0, r0.1, r0.2, r0.3, r1.0, r1.1, r1.2, r1.3, qr.0, qr.1, qr.2, qr.3, last.0, last.1, last.2, last.3
    ))
  }
}

/// A `DepthShape`'s flags, each known to the compiler (`Kernel.axisDepthBlock`): the
/// rotation's axis, the translation's order (`CompiledRecipe.translateFirst`), whether a
/// `ShearTranslation` shift applies, and whether the angle is within reach of a halved
/// centre (`AxisRotation.halvedCentre`) or of a centre (`AxisRotation.centre`). Its
/// translation along z is a line of its progress without geometry.
protocol DepthShape {
  static var aboutX: Bool { get }
  static var translateFirst: Bool { get }
  static var shifts: Bool { get }
  static var halvedAngle: Bool { get }
}

/// The two shapes compiled: `Depth<Yes, Yes, Yes, Yes>` (a vertical wheel picker) and
/// `Depth<No, No, No, No>` (a horizontal cover flow).
enum Depth<AboutX: StaticFlag, TranslateFirst: StaticFlag, Shifts: StaticFlag, HalvedAngle: StaticFlag>: DepthShape {
  @inline(__always) static var aboutX: Bool { AboutX.value }
  @inline(__always) static var translateFirst: Bool { TranslateFirst.value }
  @inline(__always) static var shifts: Bool { Shifts.value }
  @inline(__always) static var halvedAngle: Bool { HalvedAngle.value }
}

/// A `ShearTranslation`'s entries as lanes, broadcast once per block, named by the
/// rotation's plane (`Kernel.axisDepthGroup`): about x, a is y and b is x.
struct ShiftLanes<L: FloatLanes> {
  let part: Int
  let from: (m3a: L, m3b: L, m4a: L, m4b: L, m43: L)
  let delta: (m3a: L, m3b: L, m4a: L, m4b: L, m43: L)
  init(_ x: ShearTranslation?, aboutX: Bool) {
    part = x?.part ?? 0
    let f = x?.from ?? SIMD8(), d = x?.delta ?? SIMD8()
    // `ShearTranslation.entries` order: m31, m32, m41, m42, m43.
    let (a3, b3, a4, b4) = aboutX ? (1, 0, 3, 2) : (0, 1, 2, 3)
    from = (L(repeating: f[a3]), L(repeating: f[b3]), L(repeating: f[a4]), L(repeating: f[b4]), L(repeating: f[4]))
    delta = (L(repeating: d[a3]), L(repeating: d[b3]), L(repeating: d[a4]), L(repeating: d[b4]), L(repeating: d[4]))
  }
  /// The entries at the shift's progress `p`, as the general path lerps them.
  @inline(__always)
  func entries(_ p: L) -> (m3a: L, m3b: L, m4a: L, m4b: L, m43: L) {
    (
      L.muladd(p, delta.m3a, from.m3a), L.muladd(p, delta.m3b, from.m3b), L.muladd(p, delta.m4a, from.m4a),
      L.muladd(p, delta.m4b, from.m4b), L.muladd(p, delta.m43, from.m43)
    )
  }
}
