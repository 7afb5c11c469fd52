// FloatLanes: the one kernel, several lane widths.
//
// The kernel is written once, generic over `FloatLanes`, and specialised for SIMD8<Float>
// (AVX2), SIMD4<Float> (SSE) and Float (one lane, for the scalar-Float baseline). Every
// operation the kernel uses is a protocol *requirement*, so a specialised kernel calls the
// concrete type's own operation. (Code generic over `V: SIMD` instead calls the SIMD
// protocol extensions, which scalarise masks and comparisons: 25x slower on this machine.)

import CellMotion
import Foundation
import _CellMotionShims

/// A vector of Float lanes with the operations the kernel needs.
@usableFromInline package protocol FloatLanes: Sendable {
  associatedtype Mask
  /// Number of lanes.
  static var width: Int { get }
  init(repeating value: Float)
  /// Loads `width` Floats from `p` (unaligned).
  static func load(_ p: UnsafePointer<Float>) -> Self
  /// Stores `width` Floats to `p` (unaligned).
  func store(to p: UnsafeMutablePointer<Float>)
  /// Lane access (slow; tails only).
  subscript(lane i: Int) -> Float { get set }

  static func + (a: Self, b: Self) -> Self
  static func - (a: Self, b: Self) -> Self
  static func * (a: Self, b: Self) -> Self
  static func / (a: Self, b: Self) -> Self
  static prefix func - (a: Self) -> Self
  // Mixed lane/scalar forms are requirements too (an extension operator would be ambiguous
  // with SIMD's own `*(Self, Scalar)` in concrete code).
  static func + (a: Self, b: Float) -> Self
  static func - (a: Self, b: Float) -> Self
  static func * (a: Self, b: Float) -> Self
  static func - (a: Float, b: Self) -> Self
  static func / (a: Float, b: Self) -> Self
  /// a * b + c per lane: one FMA instruction where the target has FMA (-target-cpu
  /// haswell), a multiply and an add otherwise (`_CellMotionShims`); never a libm call.
  static func muladd(_ a: Self, _ b: Self, _ c: Self) -> Self
  static func lt(_ a: Self, _ b: Self) -> Mask
  static func ge(_ a: Self, _ b: Self) -> Mask
  static func and(_ a: Mask, _ b: Mask) -> Mask
  static func or(_ a: Mask, _ b: Mask) -> Mask
  /// Lanes where `mask` is true take `other`.
  func replacing(with other: Self, where mask: Mask) -> Self
  static func minimum(_ a: Self, _ b: Self) -> Self
  static func maximum(_ a: Self, _ b: Self) -> Self
  /// Round toward minus infinity (|x| < 2^22).
  static func floor(_ x: Self) -> Self
  func squareRoot() -> Self
  /// Square root that stays in vector registers (VectorMath.sqrt; `.squareRoot()` on SIMD
  /// types is scalarised on Linux).
  static func sqrt(_ x: Self) -> Self
  /// e^x (VectorMath accuracy).
  static func exp(_ x: Self) -> Self
  /// (sin x, cos x) (VectorMath accuracy).
  static func sincos(_ x: Self) -> (sin: Self, cos: Self)
  /// (sin x, cos x) for |x| <= pi/4 only (VectorMath.sincosSmall: no argument reduction).
  static func sincosSmall(_ x: Self) -> (sin: Self, cos: Self)
  /// Stores (a_k, b_k) for every lane k as 2 x width Floats at p: in lane order, except
  /// where `pairsUnpacked` (SIMD8: the order of two in-lane unpacks, lanes 0 1 4 5 2 3 6 7).
  static func storePairs(_ a: Self, _ b: Self, to p: UnsafeMutablePointer<Float>)
  /// Whether `storePairs` writes lanes 0 1 4 5 2 3 6 7 (`cm_pair_slot8`) rather than in order.
  static var pairsUnpacked: Bool { get }
  /// Stores the first `cells` lanes' matrices `m` as consecutive 16-Float matrices at `p`
  /// (CATransform3D order), the rows `constant` names from its constants (which must equal
  /// `m`'s there). A whole SIMD8 or SIMD4 group transposes only the varying rows, in
  /// registers (`cm_store_rows8`, `cm_store_rows4`); a partial group and one lane store
  /// entry by entry (`LaneMatrix.storeLanes`).
  static func storeMatrices(_ m: LaneMatrix<Self>, constant: ConstantRows, cells: Int, to p: UnsafeMutablePointer<Float>)
}

extension FloatLanes {
  @inlinable @inline(__always)
  static func splat(_ v: Float) -> Self { Self(repeating: v) }
  /// a * b + c with a scalar factor and addend (see `muladd(_:_:_:)`).
  @inlinable @inline(__always)
  static func muladd(_ a: Self, _ b: Float, _ c: Float) -> Self { muladd(a, Self(repeating: b), Self(repeating: c)) }
  /// a * b + c with a scalar factor (see `muladd(_:_:_:)`).
  @inlinable @inline(__always)
  static func muladd(_ a: Self, _ b: Float, _ c: Self) -> Self { muladd(a, Self(repeating: b), c) }
  /// a * b + c with a scalar addend (see `muladd(_:_:_:)`).
  @inlinable @inline(__always)
  static func muladd(_ a: Self, _ b: Self, _ c: Float) -> Self { muladd(a, b, Self(repeating: c)) }
  @inlinable @inline(__always)
  static func clamp(_ x: Self, _ lo: Float, _ hi: Float) -> Self {
    minimum(maximum(x, Self(repeating: lo)), Self(repeating: hi))
  }
}

extension SIMD8: FloatLanes where Scalar == Float {
  @usableFromInline package typealias Mask = SIMDMask<SIMD8<Int32>>
  @inlinable package static var width: Int { 8 }
  @inlinable @inline(__always)
  package static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
  }
  @inlinable @inline(__always)
  package func store(to p: UnsafeMutablePointer<Float>) { cm_store8(p, self) }
  @inlinable @inline(__always)
  package subscript(lane i: Int) -> Float {
    get { self[i] }
    set { self[i] = newValue }
  }
  @inlinable @inline(__always)
  package static func muladd(_ a: Self, _ b: Self, _ c: Self) -> Self { cm_muladd8(a, b, c) }
  @inlinable @inline(__always)
  package static func lt(_ a: Self, _ b: Self) -> Mask { a .< b }
  @inlinable @inline(__always)
  package static func ge(_ a: Self, _ b: Self) -> Mask { a .>= b }
  @inlinable @inline(__always)
  package static func and(_ a: Mask, _ b: Mask) -> Mask { a .& b }
  @inlinable @inline(__always)
  package static func or(_ a: Mask, _ b: Mask) -> Mask { a .| b }
  @inlinable @inline(__always)
  package static func minimum(_ a: Self, _ b: Self) -> Self { cm_min8(a, b) }
  @inlinable @inline(__always)
  package static func maximum(_ a: Self, _ b: Self) -> Self { cm_max8(a, b) }
  @inlinable @inline(__always)
  package static func floor(_ x: Self) -> Self {
    // Magic-number rounding (round to nearest for |x| < 2^22), then step down where it
    // rounded up: no libm call per lane.
    let magic = Self(repeating: 12_582_912)  // 1.5 * 2^23
    let r = (x + magic) - magic
    return r.replacing(with: r - 1, where: r .> x)
  }
  @inlinable @inline(__always)
  package static func exp(_ x: Self) -> Self { VectorMath.exp(x) }
  @inlinable @inline(__always)
  package static func sqrt(_ x: Self) -> Self { VectorMath.sqrt(x) }
  @inlinable @inline(__always)
  package static func sincos(_ x: Self) -> (sin: Self, cos: Self) { VectorMath.sincos(x) }
  @inlinable @inline(__always)
  package static func sincosSmall(_ x: Self) -> (sin: Self, cos: Self) { VectorMath.sincosSmall(x) }
  @inlinable @inline(__always)
  package static func storePairs(_ a: Self, _ b: Self, to p: UnsafeMutablePointer<Float>) { cm_store_pairs8(a, b, p) }
  @inlinable package static var pairsUnpacked: Bool { true }
  @inline(__always)
  @usableFromInline package static func storeMatrices(
    _ m: LaneMatrix<Self>, constant k: ConstantRows, cells: Int, to p: UnsafeMutablePointer<Float>
  ) {
    guard cells == 8 else { return m.storeLanes(cells, to: p) }
    let a = k.firstVarying
    cm_store_rows8(
      m[a, 0], m[a, 1], m[a, 2], m[a, 3], m[2, 0], m[2, 1], m[2, 2], m[2, 3], m[3, 0], m[3, 1], m[3, 2], m[3, 3],
      k.shape, k.held ? 1 : 0, k.k0, k.k1, p)
  }
}

extension SIMD4: FloatLanes where Scalar == Float {
  @usableFromInline package typealias Mask = SIMDMask<SIMD4<Int32>>
  @inlinable package static var width: Int { 4 }
  @inlinable @inline(__always)
  package static func load(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
  }
  @inlinable @inline(__always)
  package func store(to p: UnsafeMutablePointer<Float>) { cm_store4(p, self) }
  @inlinable @inline(__always)
  package subscript(lane i: Int) -> Float {
    get { self[i] }
    set { self[i] = newValue }
  }
  @inlinable @inline(__always)
  package static func muladd(_ a: Self, _ b: Self, _ c: Self) -> Self { cm_muladd4(a, b, c) }
  @inlinable @inline(__always)
  package static func lt(_ a: Self, _ b: Self) -> Mask { a .< b }
  @inlinable @inline(__always)
  package static func ge(_ a: Self, _ b: Self) -> Mask { a .>= b }
  @inlinable @inline(__always)
  package static func and(_ a: Mask, _ b: Mask) -> Mask { a .& b }
  @inlinable @inline(__always)
  package static func or(_ a: Mask, _ b: Mask) -> Mask { a .| b }
  @inlinable @inline(__always)
  package static func minimum(_ a: Self, _ b: Self) -> Self { cm_min4(a, b) }
  @inlinable @inline(__always)
  package static func maximum(_ a: Self, _ b: Self) -> Self { cm_max4(a, b) }
  @inlinable @inline(__always)
  package static func floor(_ x: Self) -> Self {
    let magic = Self(repeating: 12_582_912)
    let r = (x + magic) - magic
    return r.replacing(with: r - 1, where: r .> x)
  }
  @inlinable @inline(__always)
  package static func exp(_ x: Self) -> Self { VectorMath.exp(x) }
  @inlinable @inline(__always)
  package static func sqrt(_ x: Self) -> Self { VectorMath.sqrt(x) }
  @inlinable @inline(__always)
  package static func sincos(_ x: Self) -> (sin: Self, cos: Self) { VectorMath.sincos(x) }
  @inlinable @inline(__always)
  package static func sincosSmall(_ x: Self) -> (sin: Self, cos: Self) { VectorMath.sincosSmall(x) }
  @inlinable @inline(__always)
  package static func storePairs(_ a: Self, _ b: Self, to p: UnsafeMutablePointer<Float>) { cm_store_pairs4(a, b, p) }
  @inlinable package static var pairsUnpacked: Bool { false }
  @inline(__always)
  @usableFromInline package static func storeMatrices(
    _ m: LaneMatrix<Self>, constant k: ConstantRows, cells: Int, to p: UnsafeMutablePointer<Float>
  ) {
    guard cells == 4 else { return m.storeLanes(cells, to: p) }
    let a = k.firstVarying
    cm_store_rows4(
      m[a, 0], m[a, 1], m[a, 2], m[a, 3], m[2, 0], m[2, 1], m[2, 2], m[2, 3], m[3, 0], m[3, 1], m[3, 2], m[3, 3],
      k.shape, k.k0, k.k1, p)
  }
}

/// One lane: the kernel's arithmetic on plain Float (the scalar-Float baseline; libm's
/// expf/sinf/cosf instead of VectorMath).
extension Float: FloatLanes {
  @usableFromInline package typealias Mask = Bool
  @inlinable package static var width: Int { 1 }
  @inlinable @inline(__always)
  package init(repeating value: Float) { self = value }
  @inlinable @inline(__always)
  package static func load(_ p: UnsafePointer<Float>) -> Float { p.pointee }
  @inlinable @inline(__always)
  package func store(to p: UnsafeMutablePointer<Float>) { p.pointee = self }
  @inlinable @inline(__always)
  package subscript(lane i: Int) -> Float {
    get { self }
    set { self = newValue }
  }
  @inlinable @inline(__always)
  package static func muladd(_ a: Float, _ b: Float, _ c: Float) -> Float { cm_muladd1(a, b, c) }
  @inlinable @inline(__always)
  package static func lt(_ a: Float, _ b: Float) -> Bool { a < b }
  @inlinable @inline(__always)
  package static func ge(_ a: Float, _ b: Float) -> Bool { a >= b }
  @inlinable @inline(__always)
  package static func and(_ a: Bool, _ b: Bool) -> Bool { a && b }
  @inlinable @inline(__always)
  package static func or(_ a: Bool, _ b: Bool) -> Bool { a || b }
  @inlinable @inline(__always)
  package func replacing(with other: Float, where mask: Bool) -> Float { mask ? other : self }
  @inlinable @inline(__always)
  package static func minimum(_ a: Float, _ b: Float) -> Float { b < a ? b : a }
  @inlinable @inline(__always)
  package static func maximum(_ a: Float, _ b: Float) -> Float { b > a ? b : a }
  @inlinable @inline(__always)
  package static func floor(_ x: Float) -> Float { x.rounded(.down) }
  @inlinable @inline(__always)
  package static func exp(_ x: Float) -> Float { Foundation.exp(x) }
  @inlinable @inline(__always)
  package static func sqrt(_ x: Float) -> Float { x.squareRoot() }
  @inlinable @inline(__always)
  package static func sincos(_ x: Float) -> (sin: Float, cos: Float) { (Foundation.sin(x), Foundation.cos(x)) }
  @inlinable @inline(__always)
  package static func sincosSmall(_ x: Float) -> (sin: Float, cos: Float) { (Foundation.sin(x), Foundation.cos(x)) }
  @inlinable @inline(__always)
  package static func storePairs(_ a: Float, _ b: Float, to p: UnsafeMutablePointer<Float>) {
    p[0] = a
    p[1] = b
  }
  @inlinable package static var pairsUnpacked: Bool { false }
  @inline(__always)
  @usableFromInline package static func storeMatrices(
    _ m: LaneMatrix<Float>, constant: ConstantRows, cells: Int, to p: UnsafeMutablePointer<Float>
  ) {
    m.storeLanes(cells, to: p)
  }
}
