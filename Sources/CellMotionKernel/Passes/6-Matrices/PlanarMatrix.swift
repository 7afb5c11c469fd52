// Pass 6 (KernelPass.matrices), `MatrixPlan.planar`: recipes that stay affine in 2D compute six entries
// (a b c d tx ty) per cell, in loops specialised to the recipe's shape (`PlanarShape`).

import CellMotion
import Foundation

/// A planar recipe's 2D matrix path as plain Floats, computed once when the recipe is
/// compiled (`CompiledRecipe.planarConstants`; no array access or bounds check per group):
/// start values and deltas of (tx, ty, sx, sy, angle, m11, m12, m21, m22), and the flags
/// that pick the planar loop (`PlanarShape`).
struct PlanarConstants: Sendable {
  var part: Int?
  /// Start values (f) and deltas (d) of tx, ty, sx, sy, angle, m11, m12, m21, m22.
  var ftx: Float = 0, fty: Float = 0, fsx: Float = 0, fsy: Float = 0, fan: Float = 0
  var f11: Float = 0, f12: Float = 0, f21: Float = 0, f22: Float = 0
  var dtx: Float = 0, dty: Float = 0, dsx: Float = 0, dsy: Float = 0, dan: Float = 0
  var d11: Float = 0, d12: Float = 0, d21: Float = 0, d22: Float = 0
  /// Whether the decomposition's remaining 2x2 (m11 m12 m21 m22) is not the identity at
  /// both ends (a skew); without one, Scale * Rotation is all there is.
  var hasRemainder = false
  /// Whether the matrix path's angle, and the winning rotation-about-z channel, stay within
  /// [-pi/4, pi/4] for every progress the curves can produce (`progressBounds`), so the
  /// group can use `sincosSmall` (no argument reduction).
  var smallAngle = false
  var smallRotationZ = false
  /// Whether a channel rotates about z, and whether any scales (s, sx, sy): without them
  /// the channels' linear part is the identity (no sine, no products).
  var rotatesZ = false
  var scales = false
  /// Whether the matrix path's scale is 1 on both axes at every time (fsx = fsy = 1,
  /// dsx = dsy = 0): S * R is R (tip-in).
  var unitScale = false
  /// Whether nothing moves the cell (no transform channel, no matrix path: the fade and
  /// fold recipes): its matrix is the identity at every time, stored as a constant
  /// (`Kernel.storeIdentityBlock`) with no entries computed.
  var isIdentity = false
  /// Whether channels move the transform (`CompiledRecipe.hasChannelTransform`), and
  /// whether they translate first (`CompiledRecipe.translateFirst`).
  var hasChannels = false
  var translateFirst = false
  init(_ r: CompiledRecipe) {
    func small(_ from: Float, _ delta: Float, _ part: Int) -> Bool {
      let b = r.progressBounds(row: part)
      let ends = [Double(from) + Double(delta) * b.lo, Double(from) + Double(delta) * b.hi]
      return ends.allSatisfy { abs($0) <= Double.pi / 4 }
    }
    let slots = r.channelSlots
    rotatesZ = slots.rz.row >= 0
    scales = slots.s.row >= 0 || slots.sx.row >= 0 || slots.sy.row >= 0
    smallRotationZ = !rotatesZ || (!slots.rz.usesGeometry && small(slots.rz.from.x, slots.rz.delta.x, slots.rz.row))
    part = nil
    if case .twoD(let p, let a, let b) = r.matrix {
      part = p
      (ftx, fty, fsx, fsy, fan) = (a[0], a[1], a[2], a[3], a[4])
      (f11, f12, f21, f22) = (a[5], a[6], a[7], a[8])
      (dtx, dty, dsx, dsy, dan) = (b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3], b[4] - a[4])
      (d11, d12, d21, d22) = (b[5] - a[5], b[6] - a[6], b[7] - a[7], b[8] - a[8])
      hasRemainder = (f11, f12, f21, f22) != (1, 0, 0, 1) || (d11, d12, d21, d22) != (0, 0, 0, 0)
      smallAngle = small(fan, dan, p)
      unitScale = (fsx, fsy, dsx, dsy) == (1, 1, 0, 0)
    }
    hasChannels = r.hasChannelTransform
    translateFirst = r.translateFirst
    isIdentity = !hasChannels && part == nil
  }
}

/// Which planar path a block takes: each flag a function of the recipe's constants, which
/// the specialised shapes answer with a literal (their group loop is then straight-line
/// code with no per-group tests, phi moves or spills) and `AnyPlanar` by reading the
/// constants at run time. `Kernel.evaluatePlanarRun` picks the shape once per block.
protocol PlanarShape {
  /// Whether channels move the transform (`CompiledRecipe.hasChannelTransform`).
  static func channels(_ k: PlanarConstants) -> Bool
  /// Whether a whole-matrix animation applies (`PlanarConstants.part != nil`).
  static func matrix(_ k: PlanarConstants) -> Bool
  /// Whether projected corners are written (`storeCorners`), given whether the frame asks.
  static func extras(corners: Bool) -> Bool
  static func smallAngle(_ k: PlanarConstants) -> Bool
  static func remainder(_ k: PlanarConstants) -> Bool
  static func unitScale(_ k: PlanarConstants) -> Bool
  static func smallRotationZ(_ k: PlanarConstants) -> Bool
  static func translateFirst(_ k: PlanarConstants) -> Bool
  /// Whether a channel rotates about z, and whether any scales (`PlanarConstants`).
  static func rotatesZ(_ k: PlanarConstants) -> Bool
  static func scales(_ k: PlanarConstants) -> Bool
}

protocol StaticFlag { static var value: Bool { get } }
enum Yes: StaticFlag { static var value: Bool { true } }
enum No: StaticFlag { static var value: Bool { false } }

/// Every flag read at run time: recipes with channels and a matrix, corners, and the
/// matrix-only and channel-only shapes no preset takes (`Kernel.evaluatePlanarRun`).
enum AnyPlanar: PlanarShape {
  @inline(__always) static func channels(_ k: PlanarConstants) -> Bool { k.hasChannels }
  @inline(__always) static func matrix(_ k: PlanarConstants) -> Bool { k.part != nil }
  @inline(__always) static func extras(corners: Bool) -> Bool { corners }
  @inline(__always) static func smallAngle(_ k: PlanarConstants) -> Bool { k.smallAngle }
  @inline(__always) static func remainder(_ k: PlanarConstants) -> Bool { k.hasRemainder }
  @inline(__always) static func unitScale(_ k: PlanarConstants) -> Bool { k.unitScale }
  @inline(__always) static func smallRotationZ(_ k: PlanarConstants) -> Bool { k.smallRotationZ }
  @inline(__always) static func translateFirst(_ k: PlanarConstants) -> Bool { k.translateFirst }
  @inline(__always) static func rotatesZ(_ k: PlanarConstants) -> Bool { k.rotatesZ }
  @inline(__always) static func scales(_ k: PlanarConstants) -> Bool { k.scales }
}

/// A whole-matrix animation only, no extras. Only tip-in's shape is compiled
/// (`MatrixPlanar<Yes, No, Yes>`, `Kernel.evaluatePlanarRun`); the parameters name what each
/// flag means to the group.
enum MatrixPlanar<SmallAngle: StaticFlag, Remainder: StaticFlag, UnitScale: StaticFlag>: PlanarShape {
  @inline(__always) static func channels(_ k: PlanarConstants) -> Bool { false }
  @inline(__always) static func matrix(_ k: PlanarConstants) -> Bool { true }
  @inline(__always) static func extras(corners: Bool) -> Bool { false }
  @inline(__always) static func smallAngle(_ k: PlanarConstants) -> Bool { SmallAngle.value }
  @inline(__always) static func remainder(_ k: PlanarConstants) -> Bool { Remainder.value }
  @inline(__always) static func unitScale(_ k: PlanarConstants) -> Bool { UnitScale.value }
  // Not read without channels.
  @inline(__always) static func smallRotationZ(_ k: PlanarConstants) -> Bool { k.smallRotationZ }
  @inline(__always) static func translateFirst(_ k: PlanarConstants) -> Bool { k.translateFirst }
  @inline(__always) static func rotatesZ(_ k: PlanarConstants) -> Bool { k.rotatesZ }
  @inline(__always) static func scales(_ k: PlanarConstants) -> Bool { k.scales }
}

/// Channels only (slide-in, move-up, the channel form of tip-in), no extras; whether they
/// rotate (and within a quarter turn) and scale known to the compiler, so move-up's
/// translation computes no sine and no products. Compiled for three shapes
/// (`Kernel.evaluatePlanarRun`): no rotation, with or without scale, translation last; a
/// small rotation without scale, translation first.
enum ChannelPlanar<
  RotatesZ: StaticFlag, SmallRotationZ: StaticFlag, Scales: StaticFlag, TranslateFirst: StaticFlag
>: PlanarShape {
  @inline(__always) static func channels(_ k: PlanarConstants) -> Bool { true }
  @inline(__always) static func matrix(_ k: PlanarConstants) -> Bool { false }
  @inline(__always) static func extras(corners: Bool) -> Bool { false }
  @inline(__always) static func rotatesZ(_ k: PlanarConstants) -> Bool { RotatesZ.value }
  @inline(__always) static func scales(_ k: PlanarConstants) -> Bool { Scales.value }
  @inline(__always) static func smallRotationZ(_ k: PlanarConstants) -> Bool { SmallRotationZ.value }
  @inline(__always) static func translateFirst(_ k: PlanarConstants) -> Bool { TranslateFirst.value }
  // Not read without a matrix animation.
  @inline(__always) static func smallAngle(_ k: PlanarConstants) -> Bool { k.smallAngle }
  @inline(__always) static func remainder(_ k: PlanarConstants) -> Bool { k.hasRemainder }
  @inline(__always) static func unitScale(_ k: PlanarConstants) -> Bool { k.unitScale }
}

extension Kernel {
  /// Stage 3 of a planar block with the shape picked for the recipe and outputs: the common
  /// recipes get a specialised loop (`MatrixPlanar`, `ChannelPlanar`), the rest `AnyPlanar`,
  /// in `WideLanes` whatever `L` (no 4-lane scenario takes it). Returns how the pair rows
  /// were stored (`FloatLanes.pairsUnpacked` of the lanes that stored them).
  static func evaluatePlanarRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ k: PlanarConstants, at b: Int, count n: Int, progress: StagedProgress,
    soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) -> Bool {
    @inline(__always) func run<S: PlanarShape>(_ shape: S.Type) {
      evaluatePlanarBlock(
        L.self, S.self, r, k, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
    }
    // A recipe that moves nothing never gets here without corners (`storeIdentityBlock`).
    let extras = outputs.corners != nil
    if !extras && !r.hasChannelTransform && k.smallAngle && !k.hasRemainder && k.unitScale && k.part != nil {
      // Tip-in's shape (a rotation within a quarter turn and a translation). Other whole-
      // matrix paths read their flags at run time (`AnyPlanar`): no preset or benchmark
      // scenario takes them, and each shape specialised is a loop the optimiser compiles
      // per lane width (five more cost the kernel's build about 2 s).
      run(MatrixPlanar<Yes, No, Yes>.self)
    } else if !extras && r.hasChannelTransform && k.part == nil && !(k.rotatesZ && (k.scales || !k.smallRotationZ))
      && r.translateFirst == k.rotatesZ
    {
      // The channel shapes the presets and scroll effects use: translation and scale,
      // applied last (slide-in, move-up, zoom, parallax, carousels), and a rotation within a
      // quarter turn without scale, translating first (tip-in's channels). Other orders, a
      // rotation with a scale, or a larger rotation read their flags at run time
      // (`AnyPlanar`): no preset or benchmark scenario takes them.
      switch (k.rotatesZ, k.scales) {
      case (false, false): run(ChannelPlanar<No, Yes, No, No>.self)
      case (false, true): run(ChannelPlanar<No, Yes, Yes, No>.self)
      case (true, _): run(ChannelPlanar<Yes, Yes, No, Yes>.self)
      }
    } else {
      evaluatePlanarBlock(
        WideLanes.self, AnyPlanar.self, r, k, at: b, count: n, progress: progress, soa: soa, inputs: inputs,
        outputs: outputs)
      return WideLanes.pairsUnpacked
    }
    return L.pairsUnpacked
  }

  /// Stage 3 of a planar block (`CompiledRecipe.isPlanar`): cells `b ..< b + n`, the six
  /// varying entries as pair rows (a, b), (c, d), (tx, ty) of `soa`, 2 x `progress.stride`
  /// Floats each (`FloatLanes.storePairs`, read by `storePlanarBlock`).
  /// A function of its own so that the optimiser inlines the group into a small loop.
  static func evaluatePlanarBlock<L: FloatLanes, S: PlanarShape>(
    _: L.Type, _: S.Type, _ r: CompiledRecipe, _ k: PlanarConstants, at b: Int, count n: Int,
    progress: StagedProgress, soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    // Whole groups, then the partial one: two copies of the group, which the hot shapes
    // need (one loop with a test per group cost tip-in 0.7 and slide-in 4 instructions
    // per cell, callgrind).
    let geometry = BlockGeometry<L>(inputs, at: b, count: n)
    var i = 0
    while i < geometry.whole {
      planarGroup(
        L.self, S.self, r, k, at: b, i, geometry.whole(at: i), lanes: L.width, progress: progress, soa: soa,
        outputs: outputs)
      i &+= L.width
    }
    if i < n {
      planarGroup(
        L.self, S.self, r, k, at: b, i, geometry.tail, lanes: n &- i, progress: progress, soa: soa, outputs: outputs)
    }
  }

  /// One planar group at the block's cell `i` (`lanes` valid cells; fewer than `L.width`
  /// only in a block's last group, whose padded lanes are computed but never stored
  /// beyond the scratch).
  @inline(__always)
  static func planarGroup<L: FloatLanes, S: PlanarShape>(
    _: L.Type, _: S.Type, _ r: CompiledRecipe, _ k: PlanarConstants, at b: Int, _ i: Int,
    _ g: (width: L, height: L, tableWidth: L), lanes: Int, progress: StagedProgress, soa: UnsafeMutablePointer<Float>,
    outputs: KernelOutputs
  ) {
    let s = progress.stride
    let m = evaluatePlanarGroup(
      r, k, S.self, progress: progress, at: i, width: g.width, height: g.height, tableWidth: g.tableWidth)
    // Pair rows (a, b), (c, d), (tx, ty), 2 s Floats each (`storePlanarBlock`); offsets
    // inside the block's scratch (wrapping arithmetic: no overflow test per group).
    L.storePairs(m.a, m.b, to: soa + (2 &* i))
    L.storePairs(m.c, m.d, to: soa + (2 &* s &+ 2 &* i))
    L.storePairs(m.tx, m.ty, to: soa + (4 &* s &+ 2 &* i))
    if S.extras(corners: outputs.corners != nil), let co = outputs.corners {
      let z = L(repeating: 0), one = L(repeating: 1)
      let matrix = LaneMatrix<L>(linear: (m.a, m.b, z, m.c, m.d, z, z, z, one), translation: (m.tx, m.ty, z))
      storeCorners(matrix, at: b &+ i, lanes: lanes, to: co, width: g.width, height: g.height)
    }
  }

  /// A channel's value per lane, from + delta * p, with each of `from` and `delta` given as
  /// (c, h, w): c + h * cellHeight + w * tableWidth.
  @inline(__always)
  static func channelValue<L: FloatLanes>(
    from f: SIMD3<Float>, delta d: SIMD3<Float>, progress p: L, height: L, tableWidth: L
  ) -> L {
    let from = L.muladd(height, f.y, L.muladd(tableWidth, f.z, L(repeating: f.x)))
    let delta = L.muladd(height, d.y, L.muladd(tableWidth, d.z, L(repeating: d.x)))
    return L.muladd(delta, p, from)
  }

  /// Every channel's value for one lane group (identity values where nothing animates),
  /// from the staged progress of the group at the block's cell `i`: one slot per kind
  /// (`CompiledRecipe.channelSlots`), each a uniform branch.
  @inline(__always)
  static func channelValues<L: FloatLanes>(
    _ r: CompiledRecipe, progress: StagedProgress, at i: Int, height: L, tableWidth: L
  ) -> LaneChannels<L> {
    let k = r.channelSlots
    @inline(__always) func v(_ slot: ChannelSlot, _ identity: Float) -> L {
      slot.value(progress, at: i, identity: identity, height: height, tableWidth: tableWidth)
    }
    var c = LaneChannels<L>()
    (c.tx, c.ty, c.tz) = (v(k.tx, 0), v(k.ty, 0), v(k.tz, 0))
    (c.rx, c.ry, c.rz) = (v(k.rx, 0), v(k.ry, 0), v(k.rz, 0))
    (c.s, c.sx, c.sy) = (v(k.s, 1), v(k.sx, 1), v(k.sy, 1))
    return c
  }

  /// Evaluates one lane group of a planar recipe (`CompiledRecipe.isPlanar`: no rotation
  /// about x or y, no z translation, no perspective, a 2D matrix path if any): only the six
  /// entries of the affine matrix [a b 0 0; c d 0 0; 0 0 1 0; tx ty 0 1] are computed,
  /// with the same formulas as `evaluateGroup` restricted to them. Fewer live vectors than
  /// the general 4x4 (6 instead of 16), so nothing spills.
  @inline(__always)
  static func evaluatePlanarGroup<L: FloatLanes, S: PlanarShape>(
    _ r: CompiledRecipe, _ k: PlanarConstants, _: S.Type, progress: StagedProgress, at i: Int, width: L, height: L,
    tableWidth: L
  ) -> LanePlanar<L> {
    let one = L(repeating: 1), z = L(repeating: 0)
    let hasChannels = S.channels(k)
    var m = LanePlanar<L>(a: one, b: z, c: z, d: one, tx: z, ty: z)
    if hasChannels {
      let v: LaneChannels<L> = channelValues(r, progress: progress, at: i, height: height, tableWidth: tableWidth)
      let scales = S.scales(k)
      let ex = scales ? v.s * v.sx : one, ey = scales ? v.s * v.sy : one
      if S.rotatesZ(k) {
        let cz = S.smallRotationZ(k) ? L.sincosSmall(v.rz) : L.sincos(v.rz)
        // S * Rz rows [ex cz, ex sz], [-ey sz, ey cz]; translation first or last.
        m.a = ex * cz.cos
        m.b = ex * cz.sin
        m.c = -(ey * cz.sin)
        m.d = ey * cz.cos
      } else {
        // No rotation: S alone (rz = 0, exactly the rows above with sin 0, cos 1).
        (m.a, m.d) = (ex, ey)
      }
      if S.translateFirst(k) {
        m.tx = L.muladd(v.tx, m.a, v.ty * m.c)
        m.ty = L.muladd(v.tx, m.b, v.ty * m.d)
      } else {
        m.tx = v.tx
        m.ty = v.ty
      }
    }
    if S.matrix(k) {
      let p: L = progress(k.part ?? 0, i)
      let angle = L.muladd(p, k.dan, k.fan)
      let cs = S.smallAngle(k) ? L.sincosSmall(angle) : L.sincos(angle)
      // Scale * Rotation * Remainder; rotation rows [cos, sin], [-sin, cos].
      var a2 = cs.cos, b2 = cs.sin, c2 = -cs.sin, d2 = cs.cos
      if !S.unitScale(k) {
        let dsx = L.muladd(p, k.dsx, k.fsx), dsy = L.muladd(p, k.dsy, k.fsy)
        (a2, b2, c2, d2) = (dsx * a2, dsx * b2, dsy * c2, dsy * d2)
      }
      if S.remainder(k) {
        let r11 = L.muladd(p, k.d11, k.f11), r12 = L.muladd(p, k.d12, k.f12)
        let r21 = L.muladd(p, k.d21, k.f21), r22 = L.muladd(p, k.d22, k.f22)
        (a2, b2, c2, d2) = (
          L.muladd(a2, r11, b2 * r21), L.muladd(a2, r12, b2 * r22),
          L.muladd(c2, r11, d2 * r21), L.muladd(c2, r12, d2 * r22)
        )
      }
      let tx2 = L.muladd(p, k.dtx, k.ftx), ty2 = L.muladd(p, k.dty, k.fty)
      if hasChannels {
        // channels * matrix (2D affine product, row vectors).
        m = LanePlanar(
          a: L.muladd(m.a, a2, m.b * c2), b: L.muladd(m.a, b2, m.b * d2),
          c: L.muladd(m.c, a2, m.d * c2), d: L.muladd(m.c, b2, m.d * d2),
          tx: L.muladd(m.tx, a2, L.muladd(m.ty, c2, tx2)), ty: L.muladd(m.tx, b2, L.muladd(m.ty, d2, ty2)))
      } else {
        m = LanePlanar(a: a2, b: b2, c: c2, d: d2, tx: tx2, ty: ty2)
      }
    }
    // About the anchor: Translate(-anchor) * M * Translate(+anchor).
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    let nax = width * -r.anchor.x, nay = height * -r.anchor.y
    m.tx = L.muladd(nax, m.a, L.muladd(nay, m.c, m.tx + ax))
    m.ty = L.muladd(nax, m.b, L.muladd(nay, m.d, m.ty + ay))
    return m
  }
}
