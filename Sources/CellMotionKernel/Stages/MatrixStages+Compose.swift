// composeWithParent: out_i = M_i * P for a batch of cell matrices and one shared parent.

import CellMotion

extension MatrixStages {
  /// Concatenates every cell matrix with one shared parent: `out_i = M_i * P`, i.e.
  /// `CATransform3DConcat(M_i, P)` (the cell's transform applies first, then the parent's).
  ///
  /// All matrices use the 16-`Float` CATransform3D field order (m11 m12 m13 m14 m21 ...
  /// m44, row-vector convention, 64-byte stride); see `MatrixStages`.
  ///
  /// Formulations:
  /// - `.simd`: each output row is `sum_k M[r][k] * P[k]` (P's rows held in registers).
  ///   Two rows per `SIMD8`; lane `c` of a row sums `M[r][(c+j)%4] * P[(c+j)%4][c]` over
  ///   `j`, so the cell's rows are only rotated within each 128-bit half (3 in-lane
  ///   shuffles per row pair) and the 4 rotated copies of P's columns are built once.
  ///   Output may not overlap the inputs.
  /// - `.blas`: one `cblas_sgemm` of the `(4 count x 4)` row-major stack of all cell rows
  ///   by the `4 x 4` row-major P (that stack is exactly the AoS buffer).
  ///
  /// Work counted per matrix (benchmarks): 64 multiplies + 48 adds = 112 flops;
  /// 64 bytes read, 64 bytes written.
  ///
  /// - Parameters:
  ///   - matrices: at least `16 * count` floats, the cell matrices.
  ///   - count: number of cells, `0...maximumCount`.
  ///   - parent: at least 16 floats, the shared parent P.
  ///   - output: at least `16 * count` floats; receives `M_i * P`. Must not overlap
  ///     `matrices` or `parent`.
  ///   - backend: `.simd` (default) or `.blas`.
  /// - Throws: `CellMotionError.bufferSize`, `.outOfRange` (count) or
  ///   `.invalidCombination` (overlap, or `.blas` in a build without the `BLAS` trait),
  ///   before anything is written.
  /// - Complexity: O(count); allocates nothing.
  public static func composeWithParent(
    _ matrices: UnsafeBufferPointer<Float>,
    count: Int,
    parent: UnsafeBufferPointer<Float>,
    into output: UnsafeMutableBufferPointer<Float>,
    backend: StageBackend = .simd
  ) throws(CellMotionError) {
    try composeWithParent(matrices, count: count, parent: parent, into: output, sgemm: try _sgemm(for: backend))
  }

  /// `composeWithParent` with the BLAS formulation through `sgemm` (nil: the SIMD one).
  /// The benchmark passes each BLAS library it loads.
  package static func composeWithParent(
    _ matrices: UnsafeBufferPointer<Float>,
    count: Int,
    parent: UnsafeBufferPointer<Float>,
    into output: UnsafeMutableBufferPointer<Float>,
    sgemm: SGEMMFunction?
  ) throws(CellMotionError) {
    try _checkCount(count)
    let floats = count * floatsPerMatrix
    try _checkSize(matrices.count, floats, "matrices")
    try _checkSize(parent.count, floatsPerMatrix, "parent")
    try _checkSize(output.count, floats, "output")
    try _checkDisjoint(
      UnsafeRawPointer(output.baseAddress), floats, "output",
      UnsafeRawPointer(matrices.baseAddress), floats, "matrices")
    try _checkDisjoint(
      UnsafeRawPointer(output.baseAddress), floats, "output",
      UnsafeRawPointer(parent.baseAddress), floatsPerMatrix, "parent")
    guard count > 0 else { return }
    // Non-empty buffers of validated sizes have base addresses.
    let m = matrices.baseAddress!, p = parent.baseAddress!, o = output.baseAddress!
    if let sgemm { _composeBLAS(m, p, o, count, sgemm) } else { _composeSIMD(m, p, o, count) }
  }

  /// The SIMD loop of `composeWithParent`; inputs already validated.
  static func _composeSIMD(
    _ matrices: UnsafePointer<Float>, _ parent: UnsafePointer<Float>,
    _ output: UnsafeMutablePointer<Float>, _ count: Int
  ) {
    let (b0, b1, b2, b3) = _composeRotatedColumns(parent)
    var src = matrices
    var dst = output
    let end = matrices + count * 16
    while src < end {
      // Load the whole cell first (the output may not alias, but loads-before-stores
      // keeps the compiler free of aliasing doubts).
      let top = _stageLoad8(src), bottom = _stageLoad8(src + 8)
      _stageStore(_stageRowPair(top, b0, b1, b2, b3), dst)
      _stageStore(_stageRowPair(bottom, b0, b1, b2, b3), dst + 8)
      src += 16
      dst += 16
    }
  }

  /// `b_j` lane `c` (both 128-bit halves) = `P[(c + j) % 4][c]`: P's columns rotated by j.
  ///
  /// Deliberately not inlined: when LLVM sees these built from P's rows it folds the
  /// shuffles into the loop (cross-lane permutes per cell, 2x slower); opaque values
  /// keep the loop at 6 in-lane shuffles and 8 multiply-adds per matrix.
  @inline(never)
  static func _composeRotatedColumns(_ parent: UnsafePointer<Float>)
    -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
  {
    return (
      _stageRotatedColumns(parent, 0), _stageRotatedColumns(parent, 1),
      _stageRotatedColumns(parent, 2), _stageRotatedColumns(parent, 3)
    )
  }

  /// The BLAS formulation of `composeWithParent`: C (4n x 4) = A (4n x 4) * P (4 x 4),
  /// all row-major; inputs already validated (4 count fits `Int32`).
  static func _composeBLAS(
    _ matrices: UnsafePointer<Float>, _ parent: UnsafePointer<Float>,
    _ output: UnsafeMutablePointer<Float>, _ count: Int, _ sgemm: SGEMMFunction
  ) {
    sgemm(
      _rowMajor, _noTrans, _noTrans,
      Int32(4 * count), 4, 4,
      1, matrices, 4,
      parent, 4,
      0, output, 4)
  }
}

// Free functions rather than nested closures: captured context costs heap allocations in
// unoptimised (debug) builds, and the stages promise none per call.

/// `[row r | row r+1]` of `M * P` from `v = [row r | row r+1]` of M: lane c sums
/// `rot_j(v)[c] * b_j[c]` over j (in-lane rotations only; see `_composeRotatedColumns`).
@inline(__always)
func _stageRowPair(
  _ v: SIMD8<Float>, _ b0: SIMD8<Float>, _ b1: SIMD8<Float>, _ b2: SIMD8<Float>, _ b3: SIMD8<Float>
) -> SIMD8<Float> {
  let r1 = SIMD8(v[1], v[2], v[3], v[0], v[5], v[6], v[7], v[4])
  let r2 = SIMD8(v[2], v[3], v[0], v[1], v[6], v[7], v[4], v[5])
  let r3 = SIMD8(v[3], v[0], v[1], v[2], v[7], v[4], v[5], v[6])
  return _stageMadd(r3, b3, _stageMadd(r2, b2, _stageMadd(r1, b1, v * b0)))
}

/// Lane c (both halves) = `P[(c + j) % 4][c]`.
func _stageRotatedColumns(_ parent: UnsafePointer<Float>, _ j: Int) -> SIMD8<Float> {
  let c0 = parent[4 * ((0 + j) & 3) + 0], c1 = parent[4 * ((1 + j) & 3) + 1]
  let c2 = parent[4 * ((2 + j) & 3) + 2], c3 = parent[4 * ((3 + j) & 3) + 3]
  return SIMD8(c0, c1, c2, c3, c0, c1, c2, c3)
}
