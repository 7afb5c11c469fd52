// VectorMath on SIMD4<Float>: each function runs the SIMD8 implementation on the vector
// duplicated into both halves and keeps the low half. One implementation, so SIMD4 and
// SIMD8 results are bit-identical lane for lane (VectorMathTests checks it). With AVX the
// 8-lane op costs what a 4-lane op does; on SSE-only builds it costs two xmm ops, which
// only the SIMD4 comparison kernel pays (the kernel's default lanes are SIMD8).

extension VectorMath {
  @inlinable @inline(__always)
  static func widened(_ x: SIMD4<Float>) -> SIMD8<Float> { SIMD8(lowHalf: x, highHalf: x) }

  /// `sqrt` of SIMD8, on 4 lanes. Equivalent to: for each lane, `sqrt(x[i])`.
  @inlinable @inline(__always)
  public static func sqrt(_ x: SIMD4<Float>) -> SIMD4<Float> { sqrt(widened(x)).lowHalf }

  /// `exp` of SIMD8, on 4 lanes (same range and error bound).
  @inlinable @inline(__always)
  public static func exp(_ x: SIMD4<Float>) -> SIMD4<Float> { exp(widened(x)).lowHalf }

  /// `sincos` of SIMD8, on 4 lanes (same range and error bound).
  @inlinable @inline(__always)
  public static func sincos(_ x: SIMD4<Float>) -> (sin: SIMD4<Float>, cos: SIMD4<Float>) {
    let r = sincos(widened(x))
    return (r.sin.lowHalf, r.cos.lowHalf)
  }

  /// `sincosSmall` of SIMD8, on 4 lanes (|x| <= pi/4; same error bound).
  @inlinable @inline(__always)
  public static func sincosSmall(_ x: SIMD4<Float>) -> (sin: SIMD4<Float>, cos: SIMD4<Float>) {
    let r = sincosSmall(widened(x))
    return (r.sin.lowHalf, r.cos.lowHalf)
  }

  /// `sin` of SIMD8, on 4 lanes.
  @inlinable @inline(__always)
  public static func sin(_ x: SIMD4<Float>) -> SIMD4<Float> { sin(widened(x)).lowHalf }

  /// `cos` of SIMD8, on 4 lanes.
  @inlinable @inline(__always)
  public static func cos(_ x: SIMD4<Float>) -> SIMD4<Float> { cos(widened(x)).lowHalf }

  /// `atan2` of SIMD8, on 4 lanes.
  @inlinable @inline(__always)
  package static func atan2(_ y: SIMD4<Float>, _ x: SIMD4<Float>) -> SIMD4<Float> {
    atan2(widened(y), widened(x)).lowHalf
  }

  /// `asin` of SIMD8, on 4 lanes.
  @inlinable @inline(__always)
  package static func asin(_ x: SIMD4<Float>) -> SIMD4<Float> { asin(widened(x)).lowHalf }

  /// `acos` of SIMD8, on 4 lanes.
  @inlinable @inline(__always)
  package static func acos(_ x: SIMD4<Float>) -> SIMD4<Float> { acos(widened(x)).lowHalf }
}
