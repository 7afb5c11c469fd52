// CellMotionShims: a multiply-add the compiler may fuse, a vector square root, and the
// kernel's SoA -> AoS matrix stores.
//
// Both are C because Swift cannot say them: Swift has no contractible multiply-add, and
// for the stores LLVM turned Swift's lane-by-lane shuffles of loaded vectors into scalar
// loads and inserts (about 100 instructions per 8 planar cells, callgrind), where
// `__builtin_shufflevector` keeps whole-vector unpacks, permutes, broadcasts and blends.
//
// Multiply-add:
// Swift has no contractible multiply-add: `a * b + c` is always two roundings, and
// `addingProduct` always fuses, which without FMA hardware (a build with no -target-cpu)
// becomes one libm `fmaf` call per lane, 30-40x slower. The same expression written in C
// under FP_CONTRACT ON becomes LLVM's `fmuladd`, which the code generator turns into one
// FMA instruction where the target has FMA (-Xswiftc -target-cpu -Xswiftc haswell) and a
// multiply and an add elsewhere. Swift imports these vector types as SIMD8<Float> and
// SIMD4<Float>; the functions are inlined into the Swift kernels that call them.
//
// Results differ between the two builds only by the rounding of the product (fused: one
// rounding instead of two), well inside the kernel's stated tolerances.
#ifndef CELLMOTION_SHIMS_H
#define CELLMOTION_SHIMS_H

#pragma STDC FP_CONTRACT ON

typedef float cm_float8 __attribute__((ext_vector_type(8)));
typedef float cm_float4 __attribute__((ext_vector_type(4)));

/// a * b + c per lane, fused where the target has FMA.
static inline __attribute__((always_inline)) cm_float8 cm_muladd8(cm_float8 a, cm_float8 b, cm_float8 c) {
  return a * b + c;
}

/// a * b + c per lane, fused where the target has FMA.
static inline __attribute__((always_inline)) cm_float4 cm_muladd4(cm_float4 a, cm_float4 b, cm_float4 c) {
  return a * b + c;
}

/// a * b + c, fused where the target has FMA.
static inline __attribute__((always_inline)) float cm_muladd1(float a, float b, float c) {
  return a * b + c;
}

typedef int cm_int8 __attribute__((ext_vector_type(8)));
typedef int cm_int4 __attribute__((ext_vector_type(4)));

/// `b < a ? b : a` per lane (NaN: `a`), as a select on the comparison's bits: one `vminps`
/// or a blend. Swift's `replacing(with:where:)` spelled the same select, but the optimiser
/// sometimes took its mask apart lane by lane (SwiftUI's phase loop: 17 instructions a cell
/// for two clamps, callgrind).
static inline __attribute__((always_inline)) cm_float8 cm_min8(cm_float8 a, cm_float8 b) {
  cm_int8 m = b < a;
  return (cm_float8)((m & (cm_int8)b) | (~m & (cm_int8)a));
}
/// `b > a ? b : a` per lane (NaN: `a`).
static inline __attribute__((always_inline)) cm_float8 cm_max8(cm_float8 a, cm_float8 b) {
  cm_int8 m = b > a;
  return (cm_float8)((m & (cm_int8)b) | (~m & (cm_int8)a));
}
/// `b < a ? b : a` per lane (NaN: `a`).
static inline __attribute__((always_inline)) cm_float4 cm_min4(cm_float4 a, cm_float4 b) {
  cm_int4 m = b < a;
  return (cm_float4)((m & (cm_int4)b) | (~m & (cm_int4)a));
}
/// `b > a ? b : a` per lane (NaN: `a`).
static inline __attribute__((always_inline)) cm_float4 cm_max4(cm_float4 a, cm_float4 b) {
  cm_int4 m = b > a;
  return (cm_float4)((m & (cm_int4)b) | (~m & (cm_int4)a));
}

/// Whether `cm_permute8` is one instruction (`vpermps`, AVX2): keyframe tracks of up to
/// eight segments then look their constants up instead of selecting them segment by
/// segment (`Kernel.tableKeyframeStage`).
static inline __attribute__((always_inline)) int cm_has_permute8(void) {
#if defined(__AVX2__)
  return 1;
#else
  return 0;
#endif
}

/// Whether no lane of `v` has its sign bit set (-0 counts as negative): one `vmovmskps`
/// with AVX (the lanes' bits or-ed in halves took eight instructions); the lanes' bits
/// or-ed otherwise.
static inline __attribute__((always_inline)) int cm_no_sign8(cm_float8 v) {
#if defined(__AVX__)
  return __builtin_ia32_movmskps256(v) == 0;
#else
  cm_int8 b;
  __builtin_memcpy(&b, &v, 32);
  int any = 0;
  for (int k = 0; k < 8; k++) any |= b[k];
  return any >= 0;
#endif
}

/// Lane k of the result is `table[index[k]]` (indexes 0...7). One `vpermps` with AVX2;
/// lane by lane otherwise (callers check `cm_has_permute8` first).
static inline __attribute__((always_inline)) cm_float8 cm_permute8(cm_float8 table, cm_int8 index) {
#if defined(__AVX2__)
  return __builtin_ia32_permvarsf256(table, index);
#else
  cm_float8 r;
  for (int k = 0; k < 8; k++) r[k] = table[index[k] & 7];
  return r;
#endif
}

/// Each lane's segment of a keyframe table of up to `lanes` (4 or 8) segments whose starts
/// are the lanes of `starts` (lanes past the last segment +infinity): how many of starts
/// 1 ..< lanes are <= f. The starts never decrease, so this is the last segment whose start
/// is <= f (0 for NaN). Seven compares and subtracts for 8 (three for 4; `lanes` is a
/// constant where it is inlined), no loop: the broadcasts of the starts are the same for
/// every group, outside the caller's loop.
static inline __attribute__((always_inline)) cm_int8 cm_segment_index8(cm_float8 f, cm_float8 starts, int lanes) {
  cm_int8 index = 0;
#pragma clang loop unroll(full)
  for (int s = 1; s < 8; s++) {
    if (s < lanes) index -= (cm_int8)(f >= starts[s]);
  }
  return index;
}

/// Stores 8 (4) lanes at `p`, which need not be aligned: one `vmovups` (`movups`). Swift's
/// `storeBytes(of:as:)` does the same when inlined, but the optimiser left it a call per
/// lane group in some out-of-line stages (the square-root fitted solve: 4 instructions per
/// cell more, callgrind).
static inline __attribute__((always_inline)) void cm_store8(float *p, cm_float8 v) { __builtin_memcpy(p, &v, 32); }
static inline __attribute__((always_inline)) void cm_store4(float *p, cm_float4 v) { __builtin_memcpy(p, &v, 16); }

/// The correctly rounded square root per lane (LLVM's `llvm.sqrt`: one `vsqrtps` with AVX,
/// two `sqrtps` with SSE; never a libm call, no errno).
static inline __attribute__((always_inline)) cm_float8 cm_sqrt8(cm_float8 x) {
  return __builtin_elementwise_sqrt(x);
}

/// An 8-Float vector at any 4-byte-aligned address (unaligned loads and stores).
typedef float cm_float8_u __attribute__((ext_vector_type(8), aligned(4)));
typedef float cm_float4_u __attribute__((ext_vector_type(4), aligned(4)));
typedef double cm_double4 __attribute__((ext_vector_type(4)));
/// Sets the lanes of `bad` where the eight values at `p` are outside [lo, hi] (NaN is
/// outside). Through pointers: a 256-bit vector passed by value changes the ABI without AVX.
static inline __attribute__((always_inline)) void cm_or_outside8(cm_int8 *bad, const float *p, float lo, float hi) {
  cm_float8 v = *(const cm_float8_u *)p;
  *bad |= ~((v >= lo) & (v <= hi));
}
/// Whether one value is outside [lo, hi] (NaN is outside).
static inline __attribute__((always_inline)) int cm_outside1(float v, float lo, float hi) {
  return !(v >= lo && v <= hi);
}
/// Whether any lane of `*bad` is set.
static inline __attribute__((always_inline)) int cm_any_lane8(const cm_int8 *bad) {
  int any = 0;
  for (int k = 0; k < 8; k++) any |= (*bad)[k];
  return any != 0;
}

/// Whether any of the `n` values at `a` is outside [loA, hiA] or any at `b` outside
/// [loB, hiB] (NaN is outside), eight values of each per loop with the verdict kept in a
/// register (in Swift, the check alone with the mask kept as SIMD8<Int32> took 17
/// instructions per eight cells, callgrind; here about 11); and, in the same pass, the `b`
/// values copied to `dst` and compared with b[0] (a scroll effect's extents, which become
/// the batch's height or width column and whose runs of equal values it resolves once: one
/// pass over them instead of three). Bit 0 of the result: some value is outside its range;
/// bit 1: some `b` value differs from b[0] (a NaN differs).
static inline __attribute__((always_inline)) int cm_check2_copying_b(
    const float *a, float loA, float hiA, const float *b, float loB, float hiB, long n, float *dst) {
  cm_int8 bad = 0, differs = 0;
  const float first = n > 0 ? b[0] : 0;
  long i = 0;
  for (; i + 8 <= n; i += 8) {
    cm_or_outside8(&bad, a + i, loA, hiA);
    cm_or_outside8(&bad, b + i, loB, hiB);
    const cm_float8 v = *(const cm_float8_u *)(b + i);
    differs |= (v != first);
    *(cm_float8_u *)(dst + i) = v;
  }
  int any = cm_any_lane8(&bad), diff = cm_any_lane8(&differs);
  for (; i < n; i++) {
    any |= cm_outside1(a[i], loA, hiA) | cm_outside1(b[i], loB, hiB);
    diff |= !(b[i] == first);
    dst[i] = b[i];
  }
  return (any != 0) | ((diff != 0) << 1);
}

/// The first index in [from, to) whose byte at `p` is `value`, or `to` (a `memchr`: a
/// batch's keep flags, scanned for the next cell removed or kept).
static inline __attribute__((always_inline)) long cm_next_byte(const void *p, int value, long from, long to) {
  if (from >= to) return to;
  const unsigned char *base = (const unsigned char *)p;
  const unsigned char *hit = (const unsigned char *)__builtin_memchr(base + from, value, (unsigned long)(to - from));
  return hit ? (long)(hit - base) : to;
}

typedef double cm_double8_u __attribute__((ext_vector_type(8), aligned(4)));
/// `v` clamped into [lo, hi] (a NaN stays NaN), as `cm_convert2_clamping_b`'s lanes.
static inline __attribute__((always_inline)) float cm_clamp1(float v, float lo, float hi) {
  v = lo > v ? lo : v;
  return hi < v ? hi : v;
}
/// `cm_check2_copying_b` from Doubles, converted in the same pass: the `a` values rounded to
/// Float and written to `aOut`, the `b` values rounded, clamped into [loB, hiB] (a NaN stays
/// NaN) and written to `dst`; then checked as there (a value too large for a Float becomes
/// infinite, outside). One pass where a conversion and then the check took two (a table's
/// row places and heights under a scroll effect).
static inline __attribute__((always_inline)) int cm_convert2_clamping_b(
    const double *a, float loA, float hiA, float *aOut, const double *b, float loB, float hiB, long n, float *dst) {
  cm_int8 bad = 0, differs = 0;
  const cm_float8 lo8 = loB, hi8 = hiB;
  long i = 0;
  const float first = n > 0 ? cm_clamp1((float)b[0], loB, hiB) : 0;
  for (; i + 8 <= n; i += 8) {
    const cm_float8 va = __builtin_convertvector(*(const cm_double8_u *)(a + i), cm_float8);
    // Clamped by selects written out (a call passing a 256-bit vector changes the ABI
    // without AVX): NaN compares false both times and stays NaN.
    cm_float8 vb = __builtin_convertvector(*(const cm_double8_u *)(b + i), cm_float8);
    const cm_int8 below = lo8 > vb;
    vb = (cm_float8)((below & (cm_int8)lo8) | (~below & (cm_int8)vb));
    const cm_int8 above = hi8 < vb;
    vb = (cm_float8)((above & (cm_int8)hi8) | (~above & (cm_int8)vb));
    bad |= ~((va >= loA) & (va <= hiA));
    bad |= vb != vb; // clamped: only a NaN is outside
    differs |= (vb != first);
    *(cm_float8_u *)(aOut + i) = va;
    *(cm_float8_u *)(dst + i) = vb;
  }
  int any = cm_any_lane8(&bad), diff = cm_any_lane8(&differs);
  for (; i < n; i++) {
    const float va = (float)a[i];
    const float vb = cm_clamp1((float)b[i], loB, hiB);
    any |= cm_outside1(va, loA, hiA) | (vb != vb);
    diff |= !(vb == first);
    aOut[i] = va;
    dst[i] = vb;
  }
  return (any != 0) | ((diff != 0) << 1);
}

/// Whether any of the `n` values at `p` is outside [lo, hi] (NaN is outside), as
/// `cm_check2_copying_b`'s check for one column.
static inline __attribute__((always_inline)) int cm_any_outside(const float *p, float lo, float hi, long n) {
  cm_int8 bad = 0;
  long i = 0;
  for (; i + 8 <= n; i += 8) cm_or_outside8(&bad, p + i, lo, hi);
  int any = cm_any_lane8(&bad);
  for (; i < n; i++) any |= cm_outside1(p[i], lo, hi);
  return any != 0;
}

typedef double cm_double4_u __attribute__((ext_vector_type(4), aligned(4)));
typedef double cm_double2 __attribute__((ext_vector_type(2)));
typedef double cm_double2_u __attribute__((ext_vector_type(2), aligned(4)));

// Planar matrices travel from the kernel's arithmetic to the output as *pairs*: rows
// (a, b), (c, d) and (tx, ty) with the two entries of a cell side by side. Interleaving
// two vectors is two in-lane unpacks; a pair is then one 8-byte load, and each output
// matrix is built from three such loads and one blend, with no shuffle at all. (The
// 6-row SoA -> AoS transpose it replaces took about 26 shuffles per 8 cells, all on the
// one port that executes shuffles on this machine.)

/// Stores (a_k, b_k) pairs of 8 lanes as 16 Floats in the order the two in-lane unpacks
/// give: cells 0 1 4 5 2 3 6 7 (`cm_pair_slot8`).
static inline __attribute__((always_inline)) void cm_store_pairs8(cm_float8 a, cm_float8 b, float *out) {
  *(cm_float8_u *)out = __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13);
  *(cm_float8_u *)(out + 8) = __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15);
}

/// Stores (a_k, b_k) pairs of 4 lanes as 8 Floats in cell order.
static inline __attribute__((always_inline)) void cm_store_pairs4(cm_float4 a, cm_float4 b, float *out) {
  *(cm_float4_u *)out = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  *(cm_float4_u *)(out + 4) = __builtin_shufflevector(a, b, 2, 6, 3, 7);
}

/// The pair slot of lane k (0-7) in a unit written by `cm_store_pairs8`.
static inline __attribute__((always_inline)) long cm_pair_slot8(long k) {
  return (k & 1) | ((k & 2) << 1) | ((k & 4) >> 1);
}

static inline __attribute__((always_inline)) double cm_load_pair(const float *p) {
  double d;
  __builtin_memcpy(&d, p, 8);
  return d;
}

/// Stores 8 cells' planar matrices (a b 0 0 | c d 0 0 | 0 0 1 0 | tx ty 0 1, CATransform3D
/// order) from pair rows ab, cd, xy (`stride` Floats apart, 16 Floats per 8 cells) to
/// out[16 k ...]: per cell three 8-byte loads, three blends, two 32-byte stores.
/// `unpacked` nonzero: the rows were written by `cm_store_pairs8` (slots 0 1 4 5 2 3 6 7);
/// zero: pairs are in cell order.
///
/// The constant parts pass through an empty asm statement (where the compiler targets AVX):
/// with the constants in view LLVM splits each (a b 0 0 | c d 0 0) into two 16-byte stores
/// of zero-extending loads, three stores per cell instead of two. No helper here takes a
/// 32-byte vector argument, so a build without AVX compiles it without ABI warnings.
static inline __attribute__((always_inline)) void cm_store_planar_pairs8(
    const float *pairs, long stride, int unpacked, float *out) {
  cm_double4 zero = {0, 0, 0, 0};
  const float rows23f[8] = {0, 0, 1, 0, 0, 0, 0, 1};
  cm_double4 rows23;
  __builtin_memcpy(&rows23, rows23f, 32);
#if defined(__AVX__)
  __asm__("" : "+x"(zero), "+x"(rows23));
#endif
#pragma clang loop unroll(full)
  for (long k = 0; k < 8; k++) {
    const float *ab = pairs + 2 * (unpacked ? cm_pair_slot8(k) : k);
    const cm_double4 vab = cm_load_pair(ab), vcd = cm_load_pair(ab + stride), vxy = cm_load_pair(ab + 2 * stride);
    *(cm_double4_u *)(out + 16 * k) =
        __builtin_shufflevector(__builtin_shufflevector(zero, vab, 4, 1, 2, 3), vcd, 0, 1, 6, 3);
    *(cm_double4_u *)(out + 16 * k + 8) = __builtin_shufflevector(rows23, vxy, 0, 1, 6, 3);
  }
}

/// `cm_store_planar_pairs8` for an `out` at 16 bytes past a 32-byte boundary, where every
/// cell's 64 bytes start 16 bytes before a 32-byte boundary. There a 32-byte store at the
/// cell's start would cross a cache line for every other cell (or every cell, as for a
/// Swift array's storage at 48 bytes past a 64-byte line) and split in two; instead each
/// cell is stored as 16 + 32 + 16 bytes, every store inside one line: (a b 0 0), then
/// (c d 0 0 | 0 0 1 0), then (tx ty 0 1). Three 8-byte loads, two blends, three stores.
static inline __attribute__((always_inline)) void cm_store_planar_pairs8_off16(
    const float *pairs, long stride, int unpacked, float *out) {
  const float middlef[8] = {0, 0, 0, 0, 0, 0, 1, 0};
  const float lastf[4] = {0, 0, 0, 1};
  cm_double4 middle;
  cm_double2 last;
  __builtin_memcpy(&middle, middlef, 32);
  __builtin_memcpy(&last, lastf, 16);
#if defined(__AVX__)
  __asm__("" : "+x"(middle), "+x"(last));
#endif
#pragma clang loop unroll(full)
  for (long k = 0; k < 8; k++) {
    const float *ab = pairs + 2 * (unpacked ? cm_pair_slot8(k) : k);
    const cm_double2 vab = {cm_load_pair(ab), 0};
    const cm_double4 vcd = cm_load_pair(ab + stride);
    const cm_double2 vxy = cm_load_pair(ab + 2 * stride);
    *(cm_double2_u *)(out + 16 * k) = vab;
    *(cm_double4_u *)(out + 16 * k + 4) = __builtin_shufflevector(middle, vcd, 4, 1, 2, 3);
    *(cm_double2_u *)(out + 16 * k + 12) = __builtin_shufflevector(last, vxy, 2, 1);
  }
}

/// Stores 8 cells' 2D affine transforms (a b c d tx ty, CGAffineTransform order, 24 bytes
/// per cell) from pair rows ab, cd, xy (`stride` Floats apart, 16 Floats per 8 cells) to
/// out[6 k ...]. Each pair is moved as one double: per 4 cells the three rows become three
/// 32-byte stores of (ab cd xy ab | cd xy ab cd | xy ab cd xy) by two-source shuffles, so
/// 8 cells take 6 loads, 6 stores and about 18 shuffles. `unpacked` as in
/// `cm_store_planar_pairs8`: the rows hold cells 0 1 4 5 2 3 6 7 (fixed up by one 128-bit
/// lane swap per row and half) or are in cell order.
static inline __attribute__((always_inline)) void cm_store_affine_pairs8(
    const float *pairs, long stride, int unpacked, float *out) {
  cm_double4 a0 = *(const cm_double4_u *)pairs, a1 = *(const cm_double4_u *)(pairs + 8);
  cm_double4 c0 = *(const cm_double4_u *)(pairs + stride), c1 = *(const cm_double4_u *)(pairs + stride + 8);
  cm_double4 x0 = *(const cm_double4_u *)(pairs + 2 * stride), x1 = *(const cm_double4_u *)(pairs + 2 * stride + 8);
  if (unpacked) {
    // (0 1 4 5 | 2 3 6 7) -> (0 1 2 3 | 4 5 6 7).
    cm_double4 t;
    t = __builtin_shufflevector(a0, a1, 0, 1, 4, 5); a1 = __builtin_shufflevector(a0, a1, 2, 3, 6, 7); a0 = t;
    t = __builtin_shufflevector(c0, c1, 0, 1, 4, 5); c1 = __builtin_shufflevector(c0, c1, 2, 3, 6, 7); c0 = t;
    t = __builtin_shufflevector(x0, x1, 0, 1, 4, 5); x1 = __builtin_shufflevector(x0, x1, 2, 3, 6, 7); x0 = t;
  }
  const cm_double4 as[2] = {a0, a1}, cs[2] = {c0, c1}, xs[2] = {x0, x1};
#pragma clang loop unroll(full)
  for (int h = 0; h < 2; h++) {
    const cm_double4 a = as[h], c = cs[h], x = xs[h];
    const cm_double4 ac01 = __builtin_shufflevector(a, c, 0, 4, 1, 5);  // A0 C0 A1 C1
    const cm_double4 ac23 = __builtin_shufflevector(a, c, 2, 6, 3, 7);  // A2 C2 A3 C3
    double *o = (double *)(void *)(out + 24 * h);
    *(cm_double4_u *)o = __builtin_shufflevector(ac01, x, 0, 1, 4, 2);                          // A0 C0 X0 A1
    *(cm_double4_u *)(o + 4) = __builtin_shufflevector(__builtin_shufflevector(ac01, x, 3, 5, 3, 5), ac23, 0, 1, 4, 5);  // C1 X1 A2 C2
    *(cm_double4_u *)(o + 8) = __builtin_shufflevector(x, ac23, 2, 6, 7, 3);                     // X2 A3 C3 X3
  }
}

/// Stores the identity matrix (CATransform3D order) as `n` consecutive 16-Float matrices at
/// `out`, for cells that nothing moves: two 32-byte stores per cell, aligned when `out` is
/// at a 32-byte boundary, or "joined" where it is 16 bytes past one (as `cm_store_rows8`),
/// with a 16-byte store at each end. The constants pass through an empty asm statement for
/// the reason given at `cm_store_planar_pairs8_off16`.
static inline __attribute__((always_inline)) void cm_store_identity_matrices(float *out, long n) {
  const float lof[8] = {1, 0, 0, 0, 0, 1, 0, 0}, hif[8] = {0, 0, 1, 0, 0, 0, 0, 1};
  const float midf[8] = {0, 1, 0, 0, 0, 0, 1, 0};
  cm_double4 lo, hi, mid;
  __builtin_memcpy(&lo, lof, 32);
  __builtin_memcpy(&hi, hif, 32);
  __builtin_memcpy(&mid, midf, 32);
#if defined(__AVX__)
  __asm__("" : "+x"(lo), "+x"(hi), "+x"(mid));
#endif
  if (((unsigned long)out & 31) == 16) {
    // Joined (see `cm_store_rows8`): rows 1-2 of cell k, then row 3 of cell k and row 0 of
    // cell k + 1 as one 32-byte constant; 2 stores per cell instead of 3.
    const cm_double2 first = __builtin_shufflevector(lo, lo, 0, 1), last = __builtin_shufflevector(hi, hi, 2, 3);
    const cm_double4 joint = __builtin_shufflevector(hi, lo, 2, 3, 4, 5);
    if (n <= 0) return;
    *(cm_double2_u *)out = first;
    for (long k = 0; k + 1 < n; k++) {
      *(cm_double4_u *)(out + 16 * k + 4) = mid;
      *(cm_double4_u *)(out + 16 * k + 12) = joint;
    }
    *(cm_double4_u *)(out + 16 * (n - 1) + 4) = mid;
    *(cm_double2_u *)(out + 16 * (n - 1) + 12) = last;
  } else {
    for (long k = 0; k < n; k++) {
      *(cm_double4_u *)(out + 16 * k) = lo;
      *(cm_double4_u *)(out + 16 * k + 8) = hi;
    }
  }
}

/// Stores the 6-Float affine record at `record` as `n` consecutive records at `out` (not
/// overlapping it): 4 cells (96 bytes) per three 32-byte stores of a repeating pattern, the
/// rest one by one.
static inline __attribute__((always_inline)) void cm_store_affine_repeating(float *out, const float *record, long n) {
  float pf[24];
  for (int i = 0; i < 24; i++) pf[i] = record[i % 6];
  cm_double4 p0, p1, p2;
  __builtin_memcpy(&p0, pf, 32);
  __builtin_memcpy(&p1, pf + 8, 32);
  __builtin_memcpy(&p2, pf + 16, 32);
#if defined(__AVX__)
  __asm__("" : "+x"(p0), "+x"(p1), "+x"(p2));
#endif
  long k = 0;
  for (; k + 4 <= n; k += 4) {
    *(cm_double4_u *)(out + 6 * k) = p0;
    *(cm_double4_u *)(out + 6 * k + 8) = p1;
    *(cm_double4_u *)(out + 6 * k + 16) = p2;
  }
  for (; k < n; k++) {
    for (int i = 0; i < 6; i++) out[6 * k + i] = record[i];
  }
}

/// Stores the identity (a b c d tx ty) = (1 0 0 1 0 0) as `n` consecutive 6-Float affine
/// records at `out` (`cm_store_affine_repeating`).
static inline __attribute__((always_inline)) void cm_store_affine_identity(float *out, long n) {
  static const float identity[6] = {1, 0, 0, 1, 0, 0};
  cm_store_affine_repeating(out, identity, n);
}

/// Copies the record at `src` (`floats` = 16, a 4x4 matrix, or 6, an affine record) to
/// `n` consecutive records at `out` (not overlapping it): two 32-byte stores per matrix,
/// three per four affine records (`cm_store_affine_repeating`).
static inline void cm_replicate_records(float *out, const float *src, long floats, long n) {
  long k = 0;
  if (floats == 16) {
    cm_double4_u lo = *(const cm_double4_u *)src, hi = *(const cm_double4_u *)(src + 8);
    for (; k < n; k++) {
      *(cm_double4_u *)(out + 16 * k) = lo;
      *(cm_double4_u *)(out + 16 * k + 8) = hi;
    }
    return;
  }
  cm_store_affine_repeating(out, src, n);
}

/// Transposes rows r[0..7] (8 lanes each, values in registers once inlined): cells[k]
/// holds (r[0][k], ..., r[7][k]) (8 x 8 transpose: two stages of in-lane unpacks, then
/// 128-bit halves exchanged). Vectors go by pointer: a 32-byte vector argument of a C
/// function draws an ABI warning in a build without AVX.
static inline __attribute__((always_inline)) void cm_transpose8x8_v(const cm_float8 r[8], cm_float8 cells[8]) {
  const cm_float8 r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3], r4 = r[4], r5 = r[5], r6 = r[6], r7 = r[7];
  const cm_float8 t0 = __builtin_shufflevector(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t1 = __builtin_shufflevector(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 t2 = __builtin_shufflevector(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t3 = __builtin_shufflevector(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 t4 = __builtin_shufflevector(r4, r5, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t5 = __builtin_shufflevector(r4, r5, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 t6 = __builtin_shufflevector(r6, r7, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t7 = __builtin_shufflevector(r6, r7, 2, 10, 3, 11, 6, 14, 7, 15);
  // u_j: entries 0-3 (from t0..t3) or 4-7 (from t4..t7) of cells j and j + 4.
  const cm_float8 u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
  const cm_float8 u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  const cm_float8 u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
  const cm_float8 u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
  const cm_float8 u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);
  const cm_float8 u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
  const cm_float8 u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);
  const cm_float8 u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
  cells[0] = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
  cells[1] = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
  cells[2] = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
  cells[3] = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
  cells[4] = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
  cells[5] = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
  cells[6] = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
  cells[7] = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
}

/// Transposes rows r[0..7] (8 lanes each, `stride` Floats apart in memory): cells[k] holds
/// entries first ..< first + 8 of cell k (`cm_transpose8x8_v`).
static inline __attribute__((always_inline)) void cm_transpose8x8(const float *rows, long stride, cm_float8 cells[8]) {
  cm_float8 r[8];
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) r[k] = *(const cm_float8_u *)(rows + k * stride);
  cm_transpose8x8_v(r, cells);
}

/// Transposes rows r0..r3 (8 lanes each, in registers): the 4 entries of cell j in the low
/// half of u[j & 3] (j < 4) or its high half (j >= 4).
static inline __attribute__((always_inline)) void cm_transpose4x8_v(const cm_float8 r[4], cm_float8 u[4]) {
  const cm_float8 r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
  const cm_float8 t0 = __builtin_shufflevector(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t1 = __builtin_shufflevector(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 t2 = __builtin_shufflevector(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t3 = __builtin_shufflevector(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
  u[0] = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
  u[1] = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  u[2] = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
  u[3] = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
}

/// Whether `cm_store_rows8` skips the rows a destination holds (`held`): the AVX build's
/// stores do, the SSE2 build writes every row.
static inline __attribute__((always_inline)) int cm_store_skips_held_rows(void) {
#if defined(__AVX__)
  return 1;
#else
  return 0;
#endif
}

/// Which rows of 4x4 matrices `cm_store_rows8` / `cm_store_rows4` write from constants:
/// row 0 (`k0`; rows 1-3 vary: fold's bottom half, rotation about x), row 1 (`k0`; rows
/// 0, 2, 3 vary: rotation about y), or rows 0 and 3 (`k0`, `k1`; rows 1-2 vary: fold's top
/// half).
enum { CM_CONST_ROW0 = 0, CM_CONST_ROW1 = 1, CM_CONST_ROWS03 = 3 };

/// Stores 8 cells' 4x4 matrices (16 Floats each, consecutive at `out`) straight from lanes:
/// the varying rows' entries a (the first varying row), b (the second) and c (the third,
/// unused with CM_CONST_ROWS03), one vector of 8 lanes per entry, and the constant rows
/// `k0`, `k1` as `shape` says. Only the varying rows are transposed (an 8 x 8 for a and b,
/// a 4 x 8 for c), with no pass through memory. With AVX every 32-byte store is aligned
/// and each cell takes two: "joined" where `out` is 16 bytes past a 32-byte boundary (the
/// usual case for a large array: `cm_store_planar_pairs8_off16`), "paired" elsewhere (see
/// the two branches). The joined stores took flipX from 3.39 to 3.18 ns per cell (run
/// alone, medians of 5) against one 16-byte store per constant row (3-4 stores per cell);
/// the paired ones were not timed on their own, and replace a 32-byte store that crossed a
/// cache line wherever `out` was 32 bytes past a 64-byte boundary. With `held` (shapes
/// CM_CONST_ROW0 and CM_CONST_ROWS03) the destination already holds the constant rows and
/// only the varying ones are written (the fold halves: 8 or 16 stores per group instead of
/// 18 each). Without AVX, 16-byte stores row by row.
static inline __attribute__((always_inline)) void cm_store_rows8(
    cm_float8 a0, cm_float8 a1, cm_float8 a2, cm_float8 a3, cm_float8 b0, cm_float8 b1, cm_float8 b2, cm_float8 b3,
    cm_float8 c0, cm_float8 c1, cm_float8 c2, cm_float8 c3, int shape, int held, cm_float4 k0, cm_float4 k1,
    float *out) {
#if defined(__AVX__)
  // The entries pass through empty asm statements: in view of the arithmetic that made
  // them, LLVM pushed the transpose's shuffles into it (8-lane products split into 4-lane
  // halves, inserts, broadcasts and blends, most of the group spilled: 40 instructions per
  // cell for the fold, callgrind).
  __asm__("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3));
  __asm__("" : "+x"(b0), "+x"(b1), "+x"(b2), "+x"(b3));
  if (shape != CM_CONST_ROWS03) __asm__("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3));
#endif
  const cm_float8 abRows[8] = {a0, a1, a2, a3, b0, b1, b2, b3}, cRows[4] = {c0, c1, c2, c3};
  cm_float8 ab[8], cs[4];
  cm_transpose8x8_v(abRows, ab);
  if (shape != CM_CONST_ROWS03) cm_transpose4x8_v(cRows, cs);
#if defined(__AVX__)
  if (held && shape != CM_CONST_ROW1) {
    // The destination holds the constant rows already (the fold halves' buffers, made
    // with them): only rows 1-2 (one 32-byte store, aligned where `out` is 16 bytes past
    // a 32-byte boundary) and for CM_CONST_ROW0 row 3 (16 bytes) are written.
#pragma clang loop unroll(full)
    for (int k = 0; k < 8; k++) {
      *(cm_float8_u *)(out + 16 * k + 4) = ab[k];
      if (shape == CM_CONST_ROW0)
        *(cm_float4_u *)(out + 16 * k + 12) = k < 4 ? __builtin_shufflevector(cs[k & 3], cs[k & 3], 0, 1, 2, 3)
                                                    : __builtin_shufflevector(cs[k & 3], cs[k & 3], 4, 5, 6, 7);
    }
    return;
  }
  if (((unsigned long)out & 31) == 16) {
    // Joined: with `out` 16 bytes past a 32-byte boundary, each cell's rows 1-2 fill one
    // aligned 32 bytes, and its row 3 with the next cell's row 0 the next 32: two stores
    // per cell (and a 16-byte store at each end of the group) instead of three or four.
    // Each joined vector passes through an empty asm statement, or LLVM splits its store
    // back into two 16-byte ones.
    const cm_float8 k00 = __builtin_shufflevector(k0, k0, 0, 1, 2, 3, 0, 1, 2, 3);
    if (shape == CM_CONST_ROW1) {
      // a, b, c are rows 0, 2, 3: ab[k] = (row 0 | row 2), row 1 = k0.
      *(cm_float4_u *)out = __builtin_shufflevector(ab[0], ab[0], 0, 1, 2, 3);
#pragma clang loop unroll(full)
      for (int k = 0; k < 8; k++) {
        cm_float8 middle = __builtin_shufflevector(k00, ab[k], 0, 1, 2, 3, 12, 13, 14, 15);
        *(cm_float8_u *)(out + 16 * k + 4) = middle;
        if (k < 7) {
          cm_float8 joint = k < 4 ? __builtin_shufflevector(cs[k & 3], ab[k + 1], 0, 1, 2, 3, 8, 9, 10, 11)
                                  : __builtin_shufflevector(cs[k & 3], ab[k + 1], 4, 5, 6, 7, 8, 9, 10, 11);
          __asm__("" : "+x"(joint));
          *(cm_float8_u *)(out + 16 * k + 12) = joint;
        }
      }
      *(cm_float4_u *)(out + 16 * 7 + 12) = __builtin_shufflevector(cs[3], cs[3], 4, 5, 6, 7);
    } else {
      // a, b (and c) are rows 1, 2 (and 3): ab[k] = (row 1 | row 2), row 0 = k0.
      *(cm_float4_u *)out = k0;
#pragma clang loop unroll(full)
      for (int k = 0; k < 8; k++) {
        *(cm_float8_u *)(out + 16 * k + 4) = ab[k];
        if (k < 7) {
          cm_float8 joint = shape == CM_CONST_ROWS03 ? __builtin_shufflevector(k1, k0, 0, 1, 2, 3, 4, 5, 6, 7)
                            : k < 4 ? __builtin_shufflevector(cs[k & 3], k00, 0, 1, 2, 3, 8, 9, 10, 11)
                                    : __builtin_shufflevector(cs[k & 3], k00, 4, 5, 6, 7, 8, 9, 10, 11);
          if (shape != CM_CONST_ROWS03) __asm__("" : "+x"(joint));
          *(cm_float8_u *)(out + 16 * k + 12) = joint;
        }
      }
      *(cm_float4_u *)(out + 16 * 7 + 12) = shape == CM_CONST_ROWS03 ? k1 : __builtin_shufflevector(cs[3], cs[3], 4, 5, 6, 7);
    }
    return;
  }
  // Paired: otherwise (for an array, whose storage is 16-byte aligned, `out` is then at a
  // 32-byte boundary) each cell is (row 0 | row 1) and (row 2 | row 3), two aligned 32-byte
  // stores at one shuffle each, through the asm statement for the reason given above.
  const cm_float8 kk = __builtin_shufflevector(k0, k1, 0, 1, 2, 3, 4, 5, 6, 7);
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    cm_float8 first, second;
    if (shape == CM_CONST_ROW1) {
      // ab[k] = (row 0 | row 2), row 1 = k0, row 3 = c.
      first = __builtin_shufflevector(ab[k], kk, 0, 1, 2, 3, 8, 9, 10, 11);
      second = k < 4 ? __builtin_shufflevector(ab[k], cs[k & 3], 4, 5, 6, 7, 8, 9, 10, 11)
                     : __builtin_shufflevector(ab[k], cs[k & 3], 4, 5, 6, 7, 12, 13, 14, 15);
    } else {
      // ab[k] = (row 1 | row 2), row 0 = k0, row 3 = k1 or c.
      first = __builtin_shufflevector(kk, ab[k], 0, 1, 2, 3, 8, 9, 10, 11);
      second = shape == CM_CONST_ROWS03 ? __builtin_shufflevector(ab[k], kk, 4, 5, 6, 7, 12, 13, 14, 15)
               : k < 4 ? __builtin_shufflevector(ab[k], cs[k & 3], 4, 5, 6, 7, 8, 9, 10, 11)
                       : __builtin_shufflevector(ab[k], cs[k & 3], 4, 5, 6, 7, 12, 13, 14, 15);
    }
    __asm__("" : "+x"(first), "+x"(second));
    *(cm_float8_u *)(out + 16 * k) = first;
    *(cm_float8_u *)(out + 16 * k + 8) = second;
  }
  return;
#endif
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    float *q = out + 16 * k;
    const cm_float4 c = shape == CM_CONST_ROWS03 ? k1
        : k < 4 ? __builtin_shufflevector(cs[k & 3], cs[k & 3], 0, 1, 2, 3)
                : __builtin_shufflevector(cs[k & 3], cs[k & 3], 4, 5, 6, 7);
    if (shape == CM_CONST_ROW1) {
      *(cm_float4_u *)q = __builtin_shufflevector(ab[k], ab[k], 0, 1, 2, 3);
      *(cm_float4_u *)(q + 4) = k0;
      *(cm_float4_u *)(q + 8) = __builtin_shufflevector(ab[k], ab[k], 4, 5, 6, 7);
    } else {
      *(cm_float4_u *)q = k0;
      *(cm_float8_u *)(q + 4) = ab[k];
    }
    *(cm_float4_u *)(q + 12) = c;
  }
}

/// `cm_store_rows8` for 4 lanes (SSE): 4 cells, each varying row a 4 x 4 transpose.
static inline __attribute__((always_inline)) void cm_store_rows4(
    cm_float4 a0, cm_float4 a1, cm_float4 a2, cm_float4 a3, cm_float4 b0, cm_float4 b1, cm_float4 b2, cm_float4 b3,
    cm_float4 c0, cm_float4 c1, cm_float4 c2, cm_float4 c3, int shape, cm_float4 k0, cm_float4 k1, float *out) {
#if defined(__SSE__)
  // Kept apart from the arithmetic that made them (see `cm_store_rows8`).
  __asm__("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3));
  __asm__("" : "+x"(b0), "+x"(b1), "+x"(b2), "+x"(b3));
  if (shape != CM_CONST_ROWS03) __asm__("" : "+x"(c0), "+x"(c1), "+x"(c2), "+x"(c3));
#endif
  const cm_float4 rows[3][4] = {{a0, a1, a2, a3}, {b0, b1, b2, b3}, {c0, c1, c2, c3}};
  // Row slot of varying rows a, b, c and of the constants.
  const int slot[3] = {shape == CM_CONST_ROW1 ? 0 : 1, 2, 3};
#pragma clang loop unroll(full)
  for (int r = 0; r < 3; r++) {
    if (r == 2 && shape == CM_CONST_ROWS03) break;
    const cm_float4 *e = rows[r];
    const cm_float4 t0 = __builtin_shufflevector(e[0], e[1], 0, 4, 1, 5), t1 = __builtin_shufflevector(e[0], e[1], 2, 6, 3, 7);
    const cm_float4 t2 = __builtin_shufflevector(e[2], e[3], 0, 4, 1, 5), t3 = __builtin_shufflevector(e[2], e[3], 2, 6, 3, 7);
    *(cm_float4_u *)(out + 4 * slot[r]) = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    *(cm_float4_u *)(out + 16 + 4 * slot[r]) = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    *(cm_float4_u *)(out + 32 + 4 * slot[r]) = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    *(cm_float4_u *)(out + 48 + 4 * slot[r]) = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  }
#pragma clang loop unroll(full)
  for (int k = 0; k < 4; k++) {
    *(cm_float4_u *)(out + 16 * k + (shape == CM_CONST_ROW1 ? 4 : 0)) = k0;
    if (shape == CM_CONST_ROWS03) *(cm_float4_u *)(out + 16 * k + 12) = k1;
  }
}

/// Stores 8 cells' general matrices: 16 rows of 8 lanes (`soa[e * stride + k]`) become
/// 8 consecutive 16-Float matrices at `out` (two 8 x 8 transposes, two 32-byte stores
/// per cell).
static inline __attribute__((always_inline)) void cm_store_matrices8(const float *soa, long stride, float *out) {
  cm_float8 lo[8], hi[8];
  cm_transpose8x8(soa, stride, lo);
  cm_transpose8x8(soa + 8 * stride, stride, hi);
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    *(cm_float8_u *)(out + 16 * k) = lo[k];
    *(cm_float8_u *)(out + 16 * k + 8) = hi[k];
  }
}

/// `cm_store_matrices8` for an `out` 16 bytes past a 32-byte boundary (see
/// `cm_store_planar_pairs8_off16`): per cell 16 + 32 + 16 bytes, no store across a line.
static inline __attribute__((always_inline)) void cm_store_matrices8_off16(const float *soa, long stride, float *out) {
  cm_float8 lo[8], hi[8];
  cm_transpose8x8(soa, stride, lo);
  cm_transpose8x8(soa + 8 * stride, stride, hi);
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    *(cm_float4_u *)(out + 16 * k) = __builtin_shufflevector(lo[k], lo[k], 0, 1, 2, 3);
    *(cm_float8_u *)(out + 16 * k + 4) = __builtin_shufflevector(lo[k], hi[k], 4, 5, 6, 7, 8, 9, 10, 11);
    *(cm_float4_u *)(out + 16 * k + 12) = __builtin_shufflevector(hi[k], hi[k], 4, 5, 6, 7);
  }
}

#endif
