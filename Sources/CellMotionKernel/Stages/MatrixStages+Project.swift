// projectCorners: each cell's 4 corners through its matrix and a shared view-projection,
// divided by w.

import CellMotion

extension MatrixStages {
  /// Scratch floats `projectCorners` needs for `count` cells: `32 * count` for `.blas`
  /// (homogeneous corners, then their product with V), 0 for `.simd`. Saturates at
  /// `Int.max` where `32 * count` overflows (such counts exceed `maximumCount`, which
  /// `projectCorners` rejects).
  public static func projectionScratchCount(count: Int, backend: StageBackend) -> Int {
    guard backend == .blas else { return 0 }
    let (floats, overflow) = 32.multipliedReportingOverflow(by: Swift.max(count, 0))
    return overflow ? Int.max : floats
  }

  /// Projects each cell's 4 corners to 2D: `p' = p * M_i * V` for `p = (x, y, 0, 1)`
  /// (row-vector convention), then divides by w: `(x'/w', y'/w')` and optionally `z'/w'`.
  ///
  /// Layouts (all `Float`, AoS, per cell): `corners` 8 floats `x0 y0 x1 y1 x2 y2 x3 y3`
  /// in points in the cell's local space; `matrices` 16 floats in CATransform3D order (see
  /// `MatrixStages`); `viewProjection` 16 floats, shared; `points` 8 floats like `corners`
  /// (in the units V maps to, e.g. points or normalised device coordinates); `depth`
  /// 4 floats `z0/w0 ... z3/w3`. Each quotient is one correctly rounded division. A
  /// corner with `w' = 0` (on the camera plane) gives infinities or NaN; nothing is
  /// clamped.
  ///
  /// Formulations:
  /// - `.simd`: one cell at a time, `SIMD4` lanes = its 4 corners:
  ///   `q_k = x * M[0][k] + y * M[1][k] + M[3][k]` (z = 0 skips row 2), then
  ///   `h_c = sum_k q_k * V[k][c]` for the components needed (x, y, w; z with `depth`),
  ///   `h_x / h_w`, `h_y / h_w`.
  /// - `.blas`: SIMD writes the homogeneous corners `q` of all cells as a `(4 count x 4)`
  ///   row-major matrix into `scratch`, one `cblas_sgemm` multiplies it by V into the
  ///   second half of `scratch`, and a SIMD pass divides by w.
  ///
  /// Work counted per cell (benchmarks, both backends; the direct formulation): per
  /// corner 16 flops for q, 21 for (h_x, h_y, h_w), 2 divisions = 156 flops (+32 with
  /// `depth`); 96 bytes read, 32 bytes written (+16 with `depth`). The `.simd` path does
  /// exactly that; the `.blas` path computes all 4 h columns (64 + 112 + 8 = 184) and
  /// also writes and reads 128 scratch bytes per cell.
  ///
  /// - Parameters:
  ///   - corners: at least `8 * count` floats.
  ///   - matrices: at least `16 * count` floats, the cell matrices M_i.
  ///   - count: number of cells, `0...maximumCount`.
  ///   - viewProjection: at least 16 floats, the shared V (CATransform3D order; a
  ///     perspective has `m34 = -1/d`).
  ///   - points: at least `8 * count` floats; receives the projected corners.
  ///   - depth: `nil`, or at least `4 * count` floats receiving `z'/w'`.
  ///   - scratch: at least `projectionScratchCount(count:backend:)` floats (only `.blas`
  ///     uses it; `nil` is fine for `.simd`). Contents on return are unspecified.
  ///   - backend: `.simd` (default) or `.blas`.
  /// - Throws: `CellMotionError.bufferSize`, `.outOfRange` (count) or
  ///   `.invalidCombination` (an output or the scratch overlaps another buffer, or `.blas`
  ///   in a build without the `BLAS` trait), before anything is written.
  /// - Complexity: O(count); allocates nothing.
  public static func projectCorners(
    _ corners: UnsafeBufferPointer<Float>,
    matrices: UnsafeBufferPointer<Float>,
    count: Int,
    viewProjection: UnsafeBufferPointer<Float>,
    into points: UnsafeMutableBufferPointer<Float>,
    depth: UnsafeMutableBufferPointer<Float>? = nil,
    scratch: UnsafeMutableBufferPointer<Float>? = nil,
    backend: StageBackend = .simd
  ) throws(CellMotionError) {
    try projectCorners(
      corners, matrices: matrices, count: count, viewProjection: viewProjection, into: points, depth: depth,
      scratch: scratch, sgemm: try _sgemm(for: backend))
  }

  /// `projectCorners` with the BLAS formulation through `sgemm` (nil: the SIMD one). The
  /// benchmark passes each BLAS library it loads.
  package static func projectCorners(
    _ corners: UnsafeBufferPointer<Float>,
    matrices: UnsafeBufferPointer<Float>,
    count: Int,
    viewProjection: UnsafeBufferPointer<Float>,
    into points: UnsafeMutableBufferPointer<Float>,
    depth: UnsafeMutableBufferPointer<Float>? = nil,
    scratch: UnsafeMutableBufferPointer<Float>? = nil,
    sgemm: SGEMMFunction?
  ) throws(CellMotionError) {
    let backend: StageBackend = sgemm == nil ? .simd : .blas
    try _checkCount(count)
    let nCorners = count * floatsPerCorners, nMatrices = count * floatsPerMatrix
    let nDepth = depth == nil ? 0 : count * floatsPerDepth
    let nScratch = projectionScratchCount(count: count, backend: backend)
    try _checkSize(corners.count, nCorners, "corners")
    try _checkSize(matrices.count, nMatrices, "matrices")
    try _checkSize(viewProjection.count, floatsPerMatrix, "viewProjection")
    try _checkSize(points.count, nCorners, "points")
    if let depth { try _checkSize(depth.count, nDepth, "depth") }
    try _checkSize(scratch?.count ?? 0, nScratch, "scratch")

    // Outputs and scratch must not overlap the inputs or each other (no arrays here:
    // validation allocates nothing either).
    let pts = UnsafeRawPointer(points.baseAddress), dep = UnsafeRawPointer(depth?.baseAddress)
    let scr = UnsafeRawPointer(scratch?.baseAddress)
    let cor = UnsafeRawPointer(corners.baseAddress), mat = UnsafeRawPointer(matrices.baseAddress)
    let vp = UnsafeRawPointer(viewProjection.baseAddress)
    try _checkDisjoint(pts, nCorners, "points", cor, nCorners, "corners")
    try _checkDisjoint(pts, nCorners, "points", mat, nMatrices, "matrices")
    try _checkDisjoint(pts, nCorners, "points", vp, floatsPerMatrix, "viewProjection")
    try _checkDisjoint(dep, nDepth, "depth", cor, nCorners, "corners")
    try _checkDisjoint(dep, nDepth, "depth", mat, nMatrices, "matrices")
    try _checkDisjoint(dep, nDepth, "depth", vp, floatsPerMatrix, "viewProjection")
    try _checkDisjoint(dep, nDepth, "depth", pts, nCorners, "points")
    try _checkDisjoint(scr, nScratch, "scratch", cor, nCorners, "corners")
    try _checkDisjoint(scr, nScratch, "scratch", mat, nMatrices, "matrices")
    try _checkDisjoint(scr, nScratch, "scratch", vp, floatsPerMatrix, "viewProjection")
    try _checkDisjoint(scr, nScratch, "scratch", pts, nCorners, "points")
    try _checkDisjoint(scr, nScratch, "scratch", dep, nDepth, "depth")

    guard count > 0 else { return }
    let c = corners.baseAddress!, m = matrices.baseAddress!, v = viewProjection.baseAddress!
    let o = points.baseAddress!
    if let sgemm {
      _projectBLAS(c, m, v, o, depth?.baseAddress, scratch!.baseAddress!, count, sgemm)
    } else {
      _projectSIMD(c, m, v, o, depth?.baseAddress, count)
    }
  }
}

extension MatrixStages {
  /// The SIMD loop of `projectCorners`; inputs already validated.
  ///
  /// One cell per iteration, `SIMD4` lanes = its 4 corners, matrix entries broadcast
  /// from memory. Measured alternatives that were slower here: two cells per `SIMD8`
  /// (LLVM splits vectors built from two 128-bit halves and pushes the interleave
  /// shuffles through the arithmetic: 12 ns), and `M V` rows then `x A + y B + D` in
  /// interleaved lanes (LLVM scalarised the partly used rows: 15 ns); this one: ~10 ns.
  static func _projectSIMD(
    _ corners: UnsafePointer<Float>, _ matrices: UnsafePointer<Float>,
    _ viewProjection: UnsafePointer<Float>, _ points: UnsafeMutablePointer<Float>,
    _ depth: UnsafeMutablePointer<Float>?, _ count: Int
  ) {
    // V[k][c] broadcast to all lanes, loaded once.
    let vp = viewProjection
    let v0x = SIMD4(repeating: vp[0]), v1x = SIMD4(repeating: vp[4])
    let v2x = SIMD4(repeating: vp[8]), v3x = SIMD4(repeating: vp[12])
    let v0y = SIMD4(repeating: vp[1]), v1y = SIMD4(repeating: vp[5])
    let v2y = SIMD4(repeating: vp[9]), v3y = SIMD4(repeating: vp[13])
    let v0z = SIMD4(repeating: vp[2]), v1z = SIMD4(repeating: vp[6])
    let v2z = SIMD4(repeating: vp[10]), v3z = SIMD4(repeating: vp[14])
    let v0w = SIMD4(repeating: vp[3]), v1w = SIMD4(repeating: vp[7])
    let v2w = SIMD4(repeating: vp[11]), v3w = SIMD4(repeating: vp[15])

    for i in 0..<count {
      let m = matrices + 16 * i, c = corners + 8 * i
      let lo = _stageLoad4(c), hi = _stageLoad4(c + 4)  // x0 y0 x1 y1 | x2 y2 x3 y3
      let xs = SIMD4(lo[0], lo[2], hi[0], hi[2])
      let ys = SIMD4(lo[1], lo[3], hi[1], hi[3])
      // Homogeneous corners q = (x, y, 0, 1) * M, one component per vector.
      let q0 = _stageCorner(xs, ys, m, 0), q1 = _stageCorner(xs, ys, m, 1)
      let q2 = _stageCorner(xs, ys, m, 2), q3 = _stageCorner(xs, ys, m, 3)
      // h = q * V, components x, y, w (z below only when asked for).
      let hx = _stageMadd(q3, v3x, _stageMadd(q2, v2x, _stageMadd(q1, v1x, q0 * v0x)))
      let hy = _stageMadd(q3, v3y, _stageMadd(q2, v2y, _stageMadd(q1, v1y, q0 * v0y)))
      let hw = _stageMadd(q3, v3w, _stageMadd(q2, v2w, _stageMadd(q1, v1w, q0 * v0w)))
      let px = hx / hw, py = hy / hw
      let o = points + 8 * i
      _stageStore(SIMD4(px[0], py[0], px[1], py[1]), o)  // unpcklps
      _stageStore(SIMD4(px[2], py[2], px[3], py[3]), o + 4)  // unpckhps
      if let depth {
        let hz = _stageMadd(q3, v3z, _stageMadd(q2, v2z, _stageMadd(q1, v1z, q0 * v0z)))
        _stageStore(hz / hw, depth + 4 * i)
      }
    }
  }

  /// The BLAS formulation of `projectCorners`; inputs already validated, `scratch`
  /// holds `32 * count` floats: Q = homogeneous corners (4 count x 4), then H = Q * V.
  static func _projectBLAS(
    _ corners: UnsafePointer<Float>, _ matrices: UnsafePointer<Float>,
    _ viewProjection: UnsafePointer<Float>, _ points: UnsafeMutablePointer<Float>,
    _ depth: UnsafeMutablePointer<Float>?, _ scratch: UnsafeMutablePointer<Float>,
    _ count: Int, _ sgemm: SGEMMFunction
  ) {
    let q = scratch, h = scratch + 16 * count
    // 1. q = (x, y, 0, 1) * M_i per corner (SIMD4 rows; z = 0 skips row 2).
    for i in 0..<count {
      let m = matrices + 16 * i, c = corners + 8 * i, dst = q + 16 * i
      let r0 = _stageLoad4(m), r1 = _stageLoad4(m + 4), r3 = _stageLoad4(m + 12)
      for k in 0..<4 {
        let x = SIMD4(repeating: c[2 * k]), y = SIMD4(repeating: c[2 * k + 1])
        _stageStore(_stageMadd(x, r0, _stageMadd(y, r1, r3)), dst + 4 * k)
      }
    }
    // 2. H (4 count x 4) = Q (4 count x 4) * V (4 x 4), row-major.
    sgemm(
      _rowMajor, _noTrans, _noTrans,
      Int32(4 * count), 4, 4,
      1, q, 4,
      viewProjection, 4,
      0, h, 4)
    // 3. Divide by w: two corners per SIMD8, [x y z w | x y z w].
    for i in 0..<count {
      let src = h + 16 * i, o = points + 8 * i
      for half in 0..<2 {
        let v = _stageLoad8(src + 8 * half)
        let p = v / _stageSplat(v, 3)
        _stageStore(SIMD4(p[0], p[1], p[4], p[5]), o + 4 * half)
        if let depth {
          depth[4 * i + 2 * half] = p[2]
          depth[4 * i + 2 * half + 1] = p[6]
        }
      }
    }
  }
}

/// Component k of the homogeneous corners `(x, y, 0, 1) * M` for 4 corners:
/// `x * M[0][k] + y * M[1][k] + M[3][k]` (a free function: no captured context).
@inline(__always)
func _stageCorner(
  _ xs: SIMD4<Float>, _ ys: SIMD4<Float>, _ m: UnsafePointer<Float>, _ k: Int
) -> SIMD4<Float> {
  _stageMadd(
    xs, SIMD4(repeating: m[k]), _stageMadd(ys, SIMD4(repeating: m[4 + k]), SIMD4(repeating: m[12 + k])))
}
