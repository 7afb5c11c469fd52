// VectorMath on SIMD8<Float> (one AVX ymm register with -target-cpu haswell).
// The SIMD4 overloads (VectorMath+SIMD4.swift) run these on a widened vector.
// Polynomials and reductions use `_madd` (a * b + c, one FMA with -target-cpu haswell).

import _CellMotionShims

extension VectorMath {
  /// a * b + c per lane (`cm_muladd8`: fused where the target has FMA).
  @inlinable @inline(__always)
  internal static func _madd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    cm_muladd8(a, b, c)
  }

  // MARK: - sqrt

  /// Newton square root for x in {0} and [FLT_MIN, FLT_MAX] (no denormals, negatives or
  /// infinity): shared by `sqrt` and `asin`/`acos`.
  ///
  /// y0 = reciprocal square root estimate from the exponent bits (0x5F37_59DF minus half
  /// the bit pattern, relative error <= 3.5%), two Newton steps y = y (1.5 - x/2 y^2)
  /// (relative error ~5e-6), then one Goldschmidt step on g = x y, h = y/2:
  /// g + g (0.5 - g h), which squares the error and never overflows.
  @inlinable @inline(__always)
  internal static func _sqrtCore(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    var y = unsafeBitCast(0x5F37_59DF &- (bits &>> 1), to: SIMD8<Float>.self)
    let halfX = x * 0.5
    y = y * (1.5 - (halfX * y) * y)
    y = y * (1.5 - (halfX * y) * y)
    let g = x * y
    let h = y * 0.5
    return g * (0.5 - g * h) + g
  }

  /// The square root of each lane, for x in [0, +infinity]; negative lanes give NaN.
  ///
  /// Not `.squareRoot()`: on Linux that goes through C `sqrtf` with errno semantics and
  /// stays scalar (one `vsqrtss` plus a `sqrtf` fallback call per lane, measured). This
  /// is the processor's vector square root (`cm_sqrt8`: LLVM's `llvm.sqrt`, one `vsqrtps`
  /// with AVX, two `sqrtps` with SSE only), IEEE 754's correctly rounded square root for
  /// every input: denormals, +-0 (the sign kept), +infinity, and NaN for negative lanes.
  /// (It replaced a reciprocal-square-root Newton iteration of 15 instructions, within
  /// 0.97 ulp; `_sqrtCore` remains for `asin`/`acos`.)
  ///
  /// Measured maximum error against Double-precision `Glibc.sqrt` (dense grid and seeded
  /// random values over the whole positive Float range, denormals included): 0.5 ulp of
  /// the Float result (correctly rounded).
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices { result[i] = x[i].squareRoot() }
  /// ```
  @inlinable @inline(__always)
  public static func sqrt(_ x: SIMD8<Float>) -> SIMD8<Float> { cm_sqrt8(x) }

  // MARK: - exp

  /// e raised to each lane, for x in [-87, 88].
  ///
  /// Lanes below -87 give exactly 0 (never a denormal or NaN); lanes above 88 are
  /// clamped to 88 (result e^88 = 1.65e38, finite). NaN gives NaN.
  ///
  /// Method: x = n ln2 + r with n = round(x / ln2) by the magic-number trick and a
  /// two-constant Cody-Waite ln2 (exact n * ln2Hi), e^r = 1 + r + r^2 P(r) on
  /// |r| <= ln2/2 with the Cephes `expf` degree-5 minimax P, scaled by 2^n built in the
  /// exponent bits.
  ///
  /// Measured maximum error against Double-precision `Glibc.exp` (275,000 grid and seeded
  /// random values over [-87, 88]): 0.95 ulp of the Float result, relative error 7.9e-8.
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices {
  ///   result[i] = x[i] < -87 ? 0 : Float(Foundation.exp(Double(min(x[i], 88))))
  /// }
  /// ```
  @inlinable @inline(__always)
  public static func exp(_ x: SIMD8<Float>) -> SIMD8<Float> {
    typealias C = VectorMathConstants
    let upper = SIMD8<Float>(repeating: C.expUpperLimit)
    let lower = SIMD8<Float>(repeating: C.expLowerLimit)
    let underflow = x .< lower
    // Clamp with selects (pointwiseMin/Max may stay scalar); NaN lanes pass through.
    var v = x.replacing(with: upper, where: x .> upper)
    v = v.replacing(with: lower, where: underflow)

    let magic = SIMD8<Float>(repeating: C.roundMagic)
    let shifted = _madd(v, .init(repeating: C.log2e), magic)
    let n = shifted - magic
    var r = _madd(n, .init(repeating: -C.ln2Hi), v)
    r = _madd(n, .init(repeating: -C.ln2Lo), r)

    var p = _madd(r, .init(repeating: C.exp0), .init(repeating: C.exp1))
    p = _madd(p, r, .init(repeating: C.exp2))
    p = _madd(p, r, .init(repeating: C.exp3))
    p = _madd(p, r, .init(repeating: C.exp4))
    p = _madd(p, r, .init(repeating: C.exp5))
    let r2 = r * r
    let er = _madd(p, r2, r) + 1

    // 2^n: the low bits of `shifted` hold n (two's complement), and (0x4B40_0000 << 23)
    // wraps to 0, so (bits + 127) << 23 is the biased exponent of 2^n for n in
    // [-126, 127].
    let shiftedBits = unsafeBitCast(shifted, to: SIMD8<UInt32>.self)
    let scaleBits = (shiftedBits &+ 127) &<< 23
    let scale = unsafeBitCast(scaleBits, to: SIMD8<Float>.self)
    return (er * scale).replacing(with: 0, where: underflow)
  }

  // MARK: - sin, cos

  /// The sine and cosine of each lane (radians), computed together.
  ///
  /// Valid for |x| <= 1e4 (exact Cody-Waite reduction up to |x| < 12867). Beyond that the
  /// result loses accuracy but stays finite and within [-1, 1] (up to rounding): lanes are
  /// first clamped to +-4e6, where the rounding of x * 2/pi is still an integer, so the
  /// reduced argument stays within about pi/4 and the polynomials cannot overflow. NaN
  /// gives NaN; an infinite lane gives the value at the clamp.
  ///
  /// Method: q = round(x * 2/pi) by the magic-number trick, r = x - q pi/2 with a
  /// three-part Cody-Waite pi/2 (the first two products exact), Cephes `sinf`/`cosf`
  /// minimax polynomials on |r| <= pi/4, quadrant (q mod 4) chosen by masks and sign
  /// bits.
  ///
  /// Measured maximum error against Double-precision `Glibc.sin`/`cos` (grid and seeded
  /// random values): |x| <= pi/4: 5.8e-8 absolute, 0.97 ulp; |x| <= 100: 7.6e-8
  /// absolute; |x| <= 1e4: 7.4e-8 absolute. (Away from pi/4 the error is absolute: near
  /// a zero of the result, ulps grow, e.g. 255 ulp for a result of 5e-7 at x = -7232.)
  /// sin(-0) is +0.
  ///
  /// Equivalent to:
  /// ```
  /// var s = SIMD8<Float>(), c = SIMD8<Float>()
  /// for i in s.indices {
  ///   s[i] = Float(Foundation.sin(Double(x[i])))
  ///   c[i] = Float(Foundation.cos(Double(x[i])))
  /// }
  /// return (sin: s, cos: c)
  /// ```
  @_transparent
  public static func sincos(_ x: SIMD8<Float>) -> (sin: SIMD8<Float>, cos: SIMD8<Float>) {
    // Transparent rather than `@inline(__always)`: with that the optimiser left it a call
    // at 17 kernel sites (the spring's progress, rotations, keyframe matrices), its vectors
    // split into halves for the call (moveUpBounce: 14 instructions a cell in it).
    typealias C = VectorMathConstants
    let magic = SIMD8<Float>(repeating: C.roundMagic)
    // Clamp with selects (NaN lanes pass through): keeps |x * 2/pi| < 2^22 for the
    // magic-number rounding, so every finite input gives a finite result.
    let limit = SIMD8<Float>(repeating: C.sincosClamp)
    var xc = x.replacing(with: limit, where: x .> limit)
    xc = xc.replacing(with: -limit, where: xc .< -limit)
    let shifted = _madd(xc, .init(repeating: C.twoOverPi), magic)
    let q = shifted - magic
    var r = _madd(q, .init(repeating: -C.halfPi1), xc)
    r = _madd(q, .init(repeating: -C.halfPi2), r)
    r = _madd(q, .init(repeating: -C.halfPi3), r)
    // The minimax polynomials on the reduced argument, |r| <= pi/4.
    let (s, c) = sincosSmall(r)

    // Odd q swaps sin and cos: q/2 is not an integer exactly there (float compare; an
    // integer `.!=` mask here was scalarised, measured). Sin is negated in quadrants 2
    // and 3, cos in 1 and 2: sign bits from the low bits of `shifted`, which hold q.
    let halfQ = q * 0.5
    let swap = ((halfQ + magic) - magic) .!= halfQ
    let sinMag = s.replacing(with: c, where: swap)
    let cosMag = c.replacing(with: s, where: swap)
    let qBits = unsafeBitCast(shifted, to: SIMD8<UInt32>.self)
    let sinSign = (qBits & 2) &<< 30
    let cosSign = ((qBits &+ 1) & 2) &<< 30
    let sinBits = unsafeBitCast(sinMag, to: SIMD8<UInt32>.self) ^ sinSign
    let cosBits = unsafeBitCast(cosMag, to: SIMD8<UInt32>.self) ^ cosSign
    return (
      sin: unsafeBitCast(sinBits, to: SIMD8<Float>.self),
      cos: unsafeBitCast(cosBits, to: SIMD8<Float>.self)
    )
  }

  /// The sine and cosine of each lane for |x| <= pi/4 (radians): `sincos(_:)` without
  /// the argument reduction and quadrant selection (its polynomials are minimax on
  /// exactly this interval), for callers that have bounded the argument, such as the
  /// kernel for a rotation whose whole animated range lies in [-pi/4, pi/4].
  ///
  /// Measured maximum error against Double-precision `Glibc.sin`/`cos` on |x| <= pi/4:
  /// the same as `sincos(_:)` there (5.8e-8 absolute, 0.97 ulp). Outside the interval the
  /// result is not meaningful.
  ///
  /// Equivalent to `sincos(x)` for |x| <= pi/4.
  @inlinable @inline(__always)
  public static func sincosSmall(_ x: SIMD8<Float>) -> (sin: SIMD8<Float>, cos: SIMD8<Float>) {
    typealias C = VectorMathConstants
    let z = x * x
    var s = _madd(z, .init(repeating: C.sin3), .init(repeating: C.sin2))
    s = _madd(s, z, .init(repeating: C.sin1))
    s = _madd(s * z, x, x)
    var c = _madd(z, .init(repeating: C.cos3), .init(repeating: C.cos2))
    c = _madd(c, z, .init(repeating: C.cos1))
    c = _madd(c, z * z, z * -0.5) + 1
    return (s, c)
  }

  /// The sine of each lane (radians). Same arithmetic and bounds as `sincos(_:)`:
  /// valid for |x| <= 1e4; measured maximum absolute error 7.6e-8 (|x| <= 100), 5.8e-8 and
  /// 0.97 ulp for |x| <= pi/4.
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices { result[i] = Float(Foundation.sin(Double(x[i]))) }
  /// ```
  @inlinable @inline(__always)
  public static func sin(_ x: SIMD8<Float>) -> SIMD8<Float> {
    sincos(x).sin
  }

  /// The cosine of each lane (radians). Same arithmetic and bounds as `sincos(_:)`:
  /// valid for |x| <= 1e4; measured maximum absolute error 7.6e-8 (|x| <= 100), 5.8e-8 and
  /// 0.97 ulp for |x| <= pi/4.
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices { result[i] = Float(Foundation.cos(Double(x[i]))) }
  /// ```
  @inlinable @inline(__always)
  public static func cos(_ x: SIMD8<Float>) -> SIMD8<Float> {
    sincos(x).cos
  }

  // MARK: - atan2

  /// The angle of the point (x, y) from the positive x axis, in radians in [-pi, pi],
  /// per lane.
  ///
  /// Full quadrant handling with C/IEEE conventions for signed zeros and infinities:
  /// atan2(+-0, +0) = +-0 (no NaN), atan2(+-0, -0) = +-pi, atan2(y, +-inf) and
  /// atan2(+-inf, x) as in C. Both infinite, or NaN, gives NaN.
  ///
  /// Method: t = min(|x|, |y|) / max(|x|, |y|) in [0, 1] (one division), atan t =
  /// t + t^3 A(t^2) with the degree-7 minimax A of Arm Optimized Routines `atanf`, then
  /// pi/2 - a where |y| > |x|, pi - a (or pi/2 + a) where x is negative, and the sign of y.
  ///
  /// Measured maximum error against Double-precision `Glibc.atan2` (250,000 values: unit
  /// circle grid, seeded random angles at radii 1e-30 to 1e30, independent components,
  /// zeros, denormals and Float.greatestFiniteMagnitude): 2.4e-7 absolute (1 ulp of a
  /// result near pi), 2.15 ulp of the Float result.
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices {
  ///   result[i] = Float(Foundation.atan2(Double(y[i]), Double(x[i])))
  /// }
  /// ```
  @inlinable @inline(__always)
  package static func atan2(_ y: SIMD8<Float>, _ x: SIMD8<Float>) -> SIMD8<Float> {
    typealias C = VectorMathConstants
    // All selects here are bitwise on integer lanes: float-mask `replacing` on these
    // bit-cast values was partly scalarised by LLVM (measured), these are not.
    let xBits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    let yBits = unsafeBitCast(y, to: SIMD8<UInt32>.self)
    let axBits = xBits & C.absMask
    let ayBits = yBits & C.absMask
    // |y| > |x| as an all-ones lane mask: non-negative floats order like their bit
    // patterns, and the difference of two values below 2^31 cannot overflow.
    let swap = unsafeBitCast(
      unsafeBitCast(axBits &- ayBits, to: SIMD8<Int32>.self) &>> 31, to: SIMD8<UInt32>.self)
    let differ = (axBits ^ ayBits) & swap
    let numerator = unsafeBitCast(ayBits ^ differ, to: SIMD8<Float>.self)  // min(|x|, |y|)
    var denominator = unsafeBitCast(axBits ^ differ, to: SIMD8<Float>.self)  // max
    denominator = denominator.replacing(with: 1, where: denominator .== 0)
    let t = numerator / denominator

    let z = t * t
    var p = z * C.atan7 + C.atan6
    p = p * z + C.atan5
    p = p * z + C.atan4
    p = p * z + C.atan3
    p = p * z + C.atan2
    p = p * z + C.atan1
    p = p * z + C.atan0
    let a = (p * z) * t + t

    // Octant fold: angle = offset +- a >= 0, offset pi/2 where swapped, else pi where
    // x's sign bit is set (so -0 counts as negative, as in C), else 0; a is negated
    // where exactly one of (swapped, x negative) holds. Then the sign of y.
    let xSign = xBits & C.signMask
    let xNegative = unsafeBitCast(
      unsafeBitCast(xBits, to: SIMD8<Int32>.self) &>> 31, to: SIMD8<UInt32>.self)
    let piBits = unsafeBitCast(SIMD8<Float>(repeating: C.pi), to: SIMD8<UInt32>.self)
    let halfPiBits = unsafeBitCast(SIMD8<Float>(repeating: C.halfPi), to: SIMD8<UInt32>.self)
    let piLoBits = unsafeBitCast(SIMD8<Float>(repeating: C.piLo), to: SIMD8<UInt32>.self)
    let halfPiLoBits = unsafeBitCast(
      SIMD8<Float>(repeating: C.halfPiLo), to: SIMD8<UInt32>.self)
    let useHalfPi = swap
    let usePi = xNegative & ~swap
    let offsetBits = (piBits & usePi) | (halfPiBits & useHalfPi)
    let offsetLoBits = (piLoBits & usePi) | (halfPiLoBits & useHalfPi)
    let aBits = unsafeBitCast(a, to: SIMD8<UInt32>.self) ^ (swap & C.signMask) ^ xSign
    // The low part of the offset goes in first so that the offset's rounding error
    // (up to 8.7e-8) does not add to the result's.
    let angle = unsafeBitCast(offsetBits, to: SIMD8<Float>.self)
      + (unsafeBitCast(aBits, to: SIMD8<Float>.self)
        + unsafeBitCast(offsetLoBits, to: SIMD8<Float>.self))
    let angleBits = unsafeBitCast(angle, to: SIMD8<UInt32>.self) | (yBits & C.signMask)
    return unsafeBitCast(angleBits, to: SIMD8<Float>.self)
  }

  // MARK: - asin, acos

  /// Shared core of asin and acos: for a = |x| clamped to [0, 1], returns u and the mask
  /// `large` (a > 0.5) with asin(a) = u where not `large`, and asin(a) = pi/2 - 2u
  /// (acos(a) = 2u) where `large`.
  @inlinable @inline(__always)
  internal static func _asinCore(
    _ x: SIMD8<Float>
  ) -> (u: SIMD8<Float>, large: SIMDMask<SIMD8<Int32>>) {
    typealias C = VectorMathConstants
    let xBits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    var a = unsafeBitCast(xBits & C.absMask, to: SIMD8<Float>.self)
    a = a.replacing(with: 1, where: a .> 1)
    let large = a .> 0.5
    // asin a = pi/2 - 2 asin(sqrt((1 - a) / 2)) for a > 0.5.
    let z = (a * a).replacing(with: (1 - a) * 0.5, where: large)
    let s = a.replacing(with: _sqrtCore(z), where: large)
    var p = z * C.asin0 + C.asin1
    p = p * z + C.asin2
    p = p * z + C.asin3
    p = p * z + C.asin4
    let u = (s * z) * p + s
    return (u, large)
  }

  /// The arcsine of each lane, in radians in [-pi/2, pi/2]; x is clamped to [-1, 1].
  ///
  /// Method (Cephes `asinf`): for |x| <= 0.5, asin x = x + x^3 R(x^2) with Cephes'
  /// degree-4 minimax R; for |x| > 0.5, pi/2 - 2 asin(sqrt((1 - |x|) / 2)). NaN gives NaN.
  ///
  /// Measured maximum error against Double-precision `Glibc.asin` (320,000 grid and seeded
  /// random values over [-1, 1], dense near +-1): 1.6e-7 absolute, 2.6 ulp of the Float
  /// result (both just above |x| = 0.5, where pi/2 - 2u cancels).
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices {
  ///   result[i] = Float(Foundation.asin(Double(min(max(x[i], -1), 1))))
  /// }
  /// ```
  @inlinable @inline(__always)
  package static func asin(_ x: SIMD8<Float>) -> SIMD8<Float> {
    typealias C = VectorMathConstants
    let (u, large) = _asinCore(x)
    let magnitude = u.replacing(with: C.halfPi - ((u + u) - C.halfPiLo), where: large)
    let xBits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    let bits = unsafeBitCast(magnitude, to: SIMD8<UInt32>.self) | (xBits & C.signMask)
    return unsafeBitCast(bits, to: SIMD8<Float>.self)
  }

  /// The arccosine of each lane, in radians in [0, pi]; x is clamped to [-1, 1].
  ///
  /// Method (Cephes `acosf`): pi/2 - asin x for |x| <= 0.5; 2 asin(sqrt((1 - |x|) / 2))
  /// for x > 0.5 and pi minus that for x < -0.5. NaN gives NaN.
  ///
  /// Measured maximum error against Double-precision `Glibc.acos` (320,000 grid and seeded
  /// random values over [-1, 1], dense near +-1): 2.6e-7 absolute (about 1 ulp of a
  /// result near 2.1), 1.5 ulp of the Float result.
  ///
  /// Equivalent to:
  /// ```
  /// var result = SIMD8<Float>()
  /// for i in result.indices {
  ///   result[i] = Float(Foundation.acos(Double(min(max(x[i], -1), 1))))
  /// }
  /// ```
  @inlinable @inline(__always)
  package static func acos(_ x: SIMD8<Float>) -> SIMD8<Float> {
    typealias C = VectorMathConstants
    let (u, large) = _asinCore(x)
    let xBits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    let xNegative = x .< 0
    let signedU = unsafeBitCast(
      unsafeBitCast(u, to: SIMD8<UInt32>.self) | (xBits & C.signMask), to: SIMD8<Float>.self)
    let twoU = u + u
    let largeResult = twoU.replacing(with: C.pi - (twoU - C.piLo), where: xNegative)
    return (C.halfPi - (signedU - C.halfPiLo)).replacing(with: largeResult, where: large)
  }
}
