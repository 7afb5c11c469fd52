// CellMotionShims: a multiply-add the compiler may fuse, and the kernel's SoA -> AoS
// matrix stores.
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

/// An 8-Float vector at any 4-byte-aligned address (unaligned loads and stores).
typedef float cm_float8_u __attribute__((ext_vector_type(8), aligned(4)));
typedef float cm_float4_u __attribute__((ext_vector_type(4), aligned(4)));
typedef double cm_double4 __attribute__((ext_vector_type(4)));
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

/// Transposes rows r[0..7] (8 lanes each, `stride` Floats apart): cells[k] holds entries
/// first ..< first + 8 of cell k (8 x 8 transpose in unpacks, shuffles and blends).
static inline __attribute__((always_inline)) void cm_transpose8x8(const float *rows, long stride, cm_float8 cells[8]) {
  const cm_float8 r0 = *(const cm_float8_u *)rows, r1 = *(const cm_float8_u *)(rows + stride);
  const cm_float8 r2 = *(const cm_float8_u *)(rows + 2 * stride), r3 = *(const cm_float8_u *)(rows + 3 * stride);
  const cm_float8 r4 = *(const cm_float8_u *)(rows + 4 * stride), r5 = *(const cm_float8_u *)(rows + 5 * stride);
  const cm_float8 r6 = *(const cm_float8_u *)(rows + 6 * stride), r7 = *(const cm_float8_u *)(rows + 7 * stride);
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

/// Stores 8 cells' fold halves from their SoA rows (entry e of cell k at
/// `rows[e * stride + k]`, top half in rows 0-15, bottom half in rows 16-31; only the rows
/// that vary are read). Both halves turn about the x axis, so each starts with the constant
/// row (1 0 0 0), and the top half ends with (0 0 0 1): per cell the top half is one
/// 8 x 8 transpose (rows 4-11) between two constant 16-byte stores, the bottom half the
/// same plus a 4 x 8 transpose for its last row (rows 28-31). Every cell is stored as
/// 16 + 32 + 16 bytes, so with the usual `out` 16 bytes past a 32-byte boundary
/// (`cm_store_planar_pairs8_off16`) no store crosses a cache line.
static inline __attribute__((always_inline)) void cm_store_fold8(
    const float *rows, long stride, float *top, float *bottom) {
  const cm_float4 first = {1, 0, 0, 0}, last = {0, 0, 0, 1};
  cm_float8 tmid[8], bmid[8];
  cm_transpose8x8(rows + 4 * stride, stride, tmid);
  cm_transpose8x8(rows + 20 * stride, stride, bmid);
  const float *r = rows + 28 * stride;
  const cm_float8 r0 = *(const cm_float8_u *)r, r1 = *(const cm_float8_u *)(r + stride);
  const cm_float8 r2 = *(const cm_float8_u *)(r + 2 * stride), r3 = *(const cm_float8_u *)(r + 3 * stride);
  const cm_float8 t0 = __builtin_shufflevector(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t1 = __builtin_shufflevector(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 t2 = __builtin_shufflevector(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 t3 = __builtin_shufflevector(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
  // Cells k and k + 4 in the low and high halves.
  const cm_float8 u[4] = {
      __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13),
      __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15),
      __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13),
      __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15),
  };
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    *(cm_float4_u *)(top + 16 * k) = first;
    *(cm_float8_u *)(top + 16 * k + 4) = tmid[k];
    *(cm_float4_u *)(top + 16 * k + 12) = last;
    *(cm_float4_u *)(bottom + 16 * k) = first;
    *(cm_float8_u *)(bottom + 16 * k + 4) = bmid[k];
    *(cm_float4_u *)(bottom + 16 * k + 12) =
        k < 4 ? __builtin_shufflevector(u[k & 3], u[k & 3], 0, 1, 2, 3)
              : __builtin_shufflevector(u[k & 3], u[k & 3], 4, 5, 6, 7);
  }
}

#endif
