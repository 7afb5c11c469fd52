// Pass 6 (KernelPass.matrices), `MatrixPlan.general`: the full 4x4 (rotations about x and y, z translation,
// perspective, 3D matrix interpolation) as 16 SoA rows per block, and the optional
// per-group outputs (fold halves, projected corners).

import CellMotion
import Foundation

extension Kernel {
  /// Stage 3 of a block on the general 4x4 path: cells `b ..< b + n`, the 16 entries as
  /// SoA rows of `soa` (`storeMatrixBlock` writes them out). `AxisRotation` recipes take
  /// `axisRotationBlock` instead.
  static func evaluateGeneralBlock<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, at b: Int, count n: Int, progress: StagedProgress,
    soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    // One loop, the last partial group included (its inputs padded once, `BlockGeometry`;
    // the rows go to the scratch, which has room for whole groups): one copy of the group.
    let geometry = BlockGeometry<L>(inputs, at: b, count: n)
    var i = 0
    while i < n {
      generalGroup(
        L.self, r, at: b, i, geometry.group(at: i), lanes: min(L.width, n &- i), progress: progress, soa: soa,
        outputs: outputs)
      i &+= L.width
    }
  }

  /// One general group at the block's cell `i` (`lanes` valid cells).
  @inline(__always)
  static func generalGroup<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, at b: Int, _ i: Int, _ g: (width: L, height: L, tableWidth: L), lanes: Int,
    progress: StagedProgress, soa: UnsafeMutablePointer<Float>, outputs: KernelOutputs
  ) {
    let m = evaluateGroup(r, progress: progress, at: i, width: g.width, height: g.height, tableWidth: g.tableWidth)
    m.storeRows(to: soa + i, stride: progress.stride)
    if let co = outputs.corners { storeCorners(m, at: b &+ i, lanes: lanes, to: co, width: g.width, height: g.height) }
  }

  /// Evaluates one lane group of cells sharing recipe `r`.
  @inline(__always)
  static func evaluateGroup<L: FloatLanes>(
    _ r: CompiledRecipe, progress: StagedProgress, at i: Int, width: L, height: L, tableWidth: L
  ) -> LaneMatrix<L> {
    let v: LaneChannels<L> = channelValues(r, progress: progress, at: i, height: height, tableWidth: tableWidth)
    let (tx, ty, tz) = (v.tx, v.ty, v.tz)
    let (rx, ry, rz, s, sx, sy) = (v.rx, v.ry, v.rz, v.s, v.sx, v.sy)
    let z = L(repeating: 0), one = L(repeating: 1)
    var m = LaneMatrix<L>(linear: (one, z, z, z, one, z, z, z, one), translation: (z, z, z))
    if r.hasChannelTransform {
      let ex = s * sx, ey = s * sy
      // Sines and cosines of the rotations that animate only (the others are 0: sin 0,
      // cos 1); the tests are on recipe constants, the same for every group.
      let cz = r.rotates.z ? L.sincos(rz) : (sin: z, cos: one)
      // S * Rz (rows): [ex cz, ex sz, 0], [-ey sz, ey cz, 0], [0, 0, 1].
      var l = (ex * cz.cos, ex * cz.sin, z, -(ey * cz.sin), ey * cz.cos, z, z, z, one)
      if r.hasRotationXY {
        // S * Rx * Ry * Rz in full.
        let cx = r.rotates.x ? L.sincos(rx) : (sin: z, cos: one)
        let cy = r.rotates.y ? L.sincos(ry) : (sin: z, cos: one)
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
      let mm: LaneMatrix<L> = wholeMatrix(matrix, progress: progress, at: i)
      m = r.hasChannelTransform ? m.times(mm) : mm
    }
    if r.m34 != 0 { m.applyPerspective(r.m34) }
    m.applyAnchor(width * r.anchor.x, height * r.anchor.y)
    return m
  }

  /// A whole-matrix animation's matrix for one lane group on the general path (3D
  /// interpolation, componentwise, discrete or keyframed), from its part's progress.
  /// Out of line: the group loop inlined all five forms (a third of the general path's
  /// code, compiled per lane width), while a recipe takes one of them and the call is once
  /// per group. SIMD4 groups run it in 8 lanes (the upper four a copy of the lower): the
  /// largest code of the kernel, and no benchmarked recipe's, is then compiled once, not
  /// once per width (lane-wise arithmetic, so the lower lanes are what 4 lanes give).
  static func wholeMatrix<L: FloatLanes>(_ matrix: CompiledMatrix, progress: StagedProgress, at i: Int) -> LaneMatrix<L> {
    let p: L = progress(matrix.part, i)
    if L.self == SIMD4<Float>.self {
      let p4 = unsafeBitCast(p, to: SIMD4<Float>.self)
      let m: LaneMatrix<SIMD8<Float>> = wholeMatrix(matrix, progress: SIMD8(lowHalf: p4, highHalf: p4))
      return LaneMatrix(entry: { unsafeBitCast(m[$0].lowHalf, to: L.self) })
    }
    return wholeMatrix(matrix, progress: p)
  }

  @inline(never)
  static func wholeMatrix<L: FloatLanes>(_ matrix: CompiledMatrix, progress p: L) -> LaneMatrix<L> {
    var mm: LaneMatrix<L>
    switch matrix {
    case .twoD(_, let a, let b):
      @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
      mm = compose2D((lerp(0), lerp(1), lerp(2), lerp(3), lerp(4), lerp(5), lerp(6), lerp(7), lerp(8)))
    case .threeD(_, let a, let b, let qa, let qb, let theta, let nlerp):
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
      mm = compose3D(
        (lerp(0), lerp(1), lerp(2), lerp(3), lerp(4), lerp(5), lerp(6), lerp(7), lerp(8), lerp(9), lerp(10), lerp(11),
         lerp(12)), (qx, qy, qz, qw))
    case .componentwise(_, let a, let b):
      @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
      mm = LaneMatrix(entry: lerp)
    case .discrete(_, let a, let b):
      let late = L.ge(p, L(repeating: 0.5))
      @inline(__always) func pick(_ i: Int) -> L { L(repeating: a[i]).replacing(with: L(repeating: b[i]), where: late) }
      mm = LaneMatrix(entry: pick)
    case .keyframes(_, let k):
      mm = matrixKeyframes(k, progress: p)
    }
    return mm
  }

  /// The 2D path's recomposition from (tx, ty, sx, sy, angle, m11, m12, m21, m22) per
  /// lane: Scale * Rotation * Remainder, then the translation.
  @inline(__always)
  static func compose2D<L: FloatLanes>(_ v: (L, L, L, L, L, L, L, L, L)) -> LaneMatrix<L> {
    let z = L(repeating: 0), one = L(repeating: 1)
    let (dtx, dty, dsx, dsy, angle, r11, r12, r21, r22) = v
    let cs = L.sincos(angle)
    let row0 = (cs.cos * r11 + cs.sin * r21, cs.cos * r12 + cs.sin * r22)
    let row1 = (cs.cos * r21 - cs.sin * r11, cs.cos * r22 - cs.sin * r12)
    return LaneMatrix(
      linear: (dsx * row0.0, dsx * row0.1, z, dsy * row1.0, dsy * row1.1, z, z, z, one), translation: (dtx, dty, z))
  }

  /// The 3D path's recomposition from perspective (4), translation (3), scale (3), skew
  /// (3) and a unit quaternion (x, y, z, w) per lane: Scale * Skew * Rotation, then the
  /// translation and the perspective column.
  @inline(__always)
  static func compose3D<L: FloatLanes>(
    _ d: (L, L, L, L, L, L, L, L, L, L, L, L, L), _ q: (L, L, L, L)
  ) -> LaneMatrix<L> {
    let (p0, p1, p2, p3, t0, t1, t2, s0, s1, s2, kxy, kxz, kyz) = d
    let (qx, qy, qz, qw) = q
    // Rotation (row-vector) from the quaternion.
    let xx = qx * qx, yy = qy * qy, zz = qz * qz
    let xy = qx * qy, xz = qx * qz, yz = qy * qz, xw = qx * qw, yw = qy * qw, zw = qz * qw
    let r0 = (1 - (yy + zz) * 2, (xy + zw) * 2, (xz - yw) * 2)
    let r1 = ((xy - zw) * 2, 1 - (xx + zz) * 2, (yz + xw) * 2)
    let r2 = ((xz + yw) * 2, (yz - xw) * 2, 1 - (xx + yy) * 2)
    // Scale * Skew * Rotation (rows).
    let k1 = (r1.0 + kxy * r0.0, r1.1 + kxy * r0.1, r1.2 + kxy * r0.2)
    let k2 = (
      r2.0 + kxz * r0.0 + kyz * r1.0, r2.1 + kxz * r0.1 + kyz * r1.1, r2.2 + kxz * r0.2 + kyz * r1.2
    )
    let l0 = (s0 * r0.0, s0 * r0.1, s0 * r0.2)
    let l1 = (s1 * k1.0, s1 * k1.1, s1 * k1.2)
    let l2 = (s2 * k2.0, s2 * k2.1, s2 * k2.2)
    // * Translation * Perspective(column 4 = p).
    return LaneMatrix((
      l0.0, l0.1, l0.2, l0.0 * p0 + l0.1 * p1 + l0.2 * p2,
      l1.0, l1.1, l1.2, l1.0 * p0 + l1.1 * p1 + l1.2 * p2,
      l2.0, l2.1, l2.2, l2.0 * p0 + l2.1 * p1 + l2.2 * p2,
      t0, t1, t2, t0 * p0 + t1 * p1 + t2 * p2 + p3
    ))
  }
}
