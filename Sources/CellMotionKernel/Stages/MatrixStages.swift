// Matrix stages: batch 4x4 products on AoS Transform3D-ordered buffers, each with a
// hand-written SIMD backend and a BLAS backend (one sgemm) for comparison.
//
// Goals, in priority order:
// 1. Exact Core Animation semantics (row-vector convention, CATransform3DConcat order).
// 2. No allocation and no validation cost inside the hot loops: sizes are checked once at
//    the public boundary and the loops then trust them.
// 3. Speed on concrete SIMD4/SIMD8 (AVX2 with `-Xswiftc -target-cpu -Xswiftc haswell`).
//
// Buffer layout shared by every stage (byte by byte): one matrix is 16 `Float`s (64 bytes,
// stride 64, no padding) in CATransform3D field order m11 m12 m13 m14 m21 ... m44. With
// CA's row-vector convention (p' = p M, translation in m41 m42 m43) this is exactly the
// column-major storage of the column-vector matrix M^T, i.e. what Metal's and simd's
// `float4x4` expects for `M * float4(p, 1)`: a renderer can memcpy it.
//
// Fused multiply-add: the loops use `_stageMadd`, the C shim `cm_muladd8` (see
// `_CellMotionShims`): one `vfmadd` with `-target-cpu haswell`, a multiply and an add
// without (never `addingProduct`, which becomes one `fmaf` call per lane without an FMA
// target); see `MatrixStages.usesFusedMultiplyAdd`.

import CellMotion
import _CellMotionShims

#if BLAS
  import CBLAS
#endif

/// Which implementation a matrix stage uses. Both give the same results within Float
/// rounding (the summation order differs); see each stage for its formulation.
public enum StageBackend: String, Sendable, Hashable, CaseIterable {
  /// Hand-written SIMD4/SIMD8 loops (AVX2 with a target flag, SSE otherwise).
  case simd
  /// One `cblas_sgemm` over the whole batch (libblas.so.3: netlib or OpenBLAS through
  /// Debian's alternatives), plus SIMD pre/post passes where the formulation needs them.
  /// Needs the package's `BLAS` trait (on by default); without it a stage given `.blas`
  /// throws `CellMotionError.invalidCombination` (see `isAvailable`).
  case blas

  /// Whether this build can run the backend: `.simd` always, `.blas` with the `BLAS`
  /// trait.
  public var isAvailable: Bool {
    switch self {
    case .simd: return true
    case .blas: return MatrixStages._linkedSGEMM != nil
    }
  }

  /// The backends this build can run (`.simd`, and `.blas` with the `BLAS` trait).
  public static var available: [StageBackend] { allCases.filter(\.isAvailable) }
}

/// A `cblas_sgemm` entry point with the C enums as their `int` values (CblasRowMajor = 101,
/// CblasNoTrans = 111): (layout, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C,
/// ldc). The linked one (`BLAS` trait) or one the benchmark loads from a given library.
package typealias SGEMMFunction = @convention(c) (
  Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
  UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32
) -> Void

/// Batch matrix stages over AoS buffers of 16-`Float` CATransform3D-ordered matrices.
///
/// Every stage validates its buffer sizes once and throws
/// `CellMotionError.bufferSize(field:expected:actual:)` when a buffer is too small
/// (buffers may be larger; extra elements are neither read nor written),
/// `CellMotionError.outOfRange` for a negative or too large `count`, and
/// `CellMotionError.invalidCombination` when an output overlaps an input.
/// Non-finite inputs are not rejected: they propagate to the outputs.
public enum MatrixStages {
  /// Floats per matrix (m11 ... m44), 64 bytes.
  public static let floatsPerMatrix = 16
  /// Floats per cell of corner input and projected output: (x, y) for 4 corners.
  public static let floatsPerCorners = 8
  /// Floats per cell of optional depth output: z/w for 4 corners.
  public static let floatsPerDepth = 4
  /// Largest batch a stage accepts: 4 x count rows must fit a BLAS `Int32` dimension
  /// and 32 x count floats must fit in `Int` (the BLAS projection scratch).
  public static let maximumCount = Int(Int32.max) / 32

  /// The `cblas_sgemm` this build links (libblas.so.3), or nil without the `BLAS` trait.
  package static var _linkedSGEMM: SGEMMFunction? {
    #if BLAS
      return { layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc in
        cblas_sgemm(
          CBLAS_LAYOUT(rawValue: UInt32(bitPattern: layout)), CBLAS_TRANSPOSE(rawValue: UInt32(bitPattern: ta)),
          CBLAS_TRANSPOSE(rawValue: UInt32(bitPattern: tb)), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
      }
    #else
      return nil
    #endif
  }

  /// The linked sgemm for `backend`, or the typed error of a build without the `BLAS`
  /// trait; nil for `.simd`.
  static func _sgemm(for backend: StageBackend) throws(CellMotionError) -> SGEMMFunction? {
    guard backend == .blas else { return nil }
    guard let f = _linkedSGEMM else {
      throw .invalidCombination(
        field: "backend", reason: "this build has no BLAS (the package's BLAS trait is off); use .simd")
    }
    return f
  }

  /// CblasRowMajor and CblasNoTrans as C ints.
  static let _rowMajor: Int32 = 101, _noTrans: Int32 = 111

  /// Whether this build's multiply-adds (`cm_muladd8` in the stages and the kernel) are
  /// fused, i.e. the target has FMA (`-Xswiftc -target-cpu -Xswiftc haswell`); false means
  /// a separate multiply and add. Measured, because Swift cannot test target features at
  /// compile time: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 fused and 0 when the product is
  /// rounded first.
  public static var usesFusedMultiplyAdd: Bool { _fusedProbe(1 + 0x1p-12, -(1 + 0x1p-11)) != 0 }

  /// a * a + c through the shim, unoptimised so the compiler cannot fold it (LLVM folds a
  /// constant multiply-add as fused, whatever the target).
  @_optimize(none) @inline(never)
  static func _fusedProbe(_ a: Float, _ c: Float) -> Float { cm_muladd1(a, a, c) }

  // MARK: - Validation shared by the stages

  static func _checkCount(_ count: Int) throws(CellMotionError) {
    guard count >= 0, count <= maximumCount else {
      throw .outOfRange(
        field: "count", value: Double(count), expected: "in [0, \(maximumCount)]")
    }
  }

  static func _checkSize(_ actual: Int, _ expected: Int, _ field: String) throws(CellMotionError) {
    guard actual >= expected else {
      throw .bufferSize(field: field, expected: expected, actual: actual)
    }
  }

  /// Throws when the first `aCount` floats at `a` and the first `bCount` at `b` share memory.
  static func _checkDisjoint(
    _ a: UnsafeRawPointer?, _ aCount: Int, _ aField: String,
    _ b: UnsafeRawPointer?, _ bCount: Int, _ bField: String
  ) throws(CellMotionError) {
    guard let a, let b, aCount > 0, bCount > 0 else { return }
    let aEnd = a + aCount * MemoryLayout<Float>.stride
    let bEnd = b + bCount * MemoryLayout<Float>.stride
    if a < bEnd && b < aEnd {
      throw .invalidCombination(field: aField, reason: "must not overlap \(bField)")
    }
  }
}

// MARK: - Lane helpers

/// `a * b + c` lane-wise; fused (one rounding) where the target has FMA.
@inline(__always)
func _stageMadd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
  cm_muladd8(a, b, c)
}

/// `a * b + c` lane-wise; fused (one rounding) where the target has FMA.
@inline(__always)
func _stageMadd(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
  cm_muladd4(a, b, c)
}

/// Lane `k` of each 128-bit half broadcast over that half:
/// `[v[k], v[k], v[k], v[k], v[k+4], v[k+4], v[k+4], v[k+4]]` (one `vshufps`).
@inline(__always)
func _stageSplat(_ v: SIMD8<Float>, _ k: Int) -> SIMD8<Float> {
  SIMD8(v[k], v[k], v[k], v[k], v[k + 4], v[k + 4], v[k + 4], v[k + 4])
}

@inline(__always)
func _stageLoad8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
  UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}

@inline(__always)
func _stageLoad4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
  UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
}

@inline(__always)
func _stageStore(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) { cm_store8(p, v) }

@inline(__always)
func _stageStore(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) { cm_store4(p, v) }
