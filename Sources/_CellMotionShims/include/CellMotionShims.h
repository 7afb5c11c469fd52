// CellMotionShims: a multiply-add the compiler may fuse, and the kernel's SoA -> AoS
// matrix stores.
//
// Both are C because Swift cannot say them: Swift has no contractible multiply-add, and
// for the stores LLVM turned Swift's lane-by-lane shuffles of loaded vectors into scalar
// loads and inserts (about 100 instructions per 8 planar cells, callgrind), where
// `__builtin_shufflevector` keeps whole-vector unpacks, permutes and blends.
//
// Multiply-add:
// Swift has no contractible multiply-add: `a * b + c` is always two roundings, and
// `addingProduct` always fuses, which without FMA hardware (a build with no -target-cpu)
// becomes one libm `fmaf` call per lane, 30-40x slower. The same expression written in C
// under FP_CONTRACT ON becomes LLVM's `fmuladd`, which the code generator turns into one
// FMA instruction where the target has FMA (-Xswiftc -target-cpu -Xswiftc znver3) and a
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

/// Stores 8 cells' planar matrices: rows a, b, c, d, tx, ty of 8 lanes each (`soa[e *
/// stride + k]` for entry e of cell k) become the 16-Float CATransform3D-ordered matrices
/// (a b 0 0 | c d 0 0 | 0 0 1 0 | tx ty 0 1) at out[16 k ...]; two 32-byte stores per
/// cell.
static inline __attribute__((always_inline)) void cm_store_planar8(const float *soa, long stride, float *out) {
  const cm_float8 a = *(const cm_float8_u *)soa, b = *(const cm_float8_u *)(soa + stride);
  const cm_float8 c = *(const cm_float8_u *)(soa + 2 * stride), d = *(const cm_float8_u *)(soa + 3 * stride);
  const cm_float8 x = *(const cm_float8_u *)(soa + 4 * stride), y = *(const cm_float8_u *)(soa + 5 * stride);
  const cm_float8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
  const cm_float8 rows23 = {0, 0, 1, 0, 0, 0, 0, 1};
  // Pairs per 128-bit half: ab0 = (a0 b0 a1 b1 | a4 b4 a5 b5), ab1 = (a2 b2 a3 b3 | a6 b6 a7 b7).
  const cm_float8 ab0 = __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 ab1 = __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 cd0 = __builtin_shufflevector(c, d, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 cd1 = __builtin_shufflevector(c, d, 2, 10, 3, 11, 6, 14, 7, 15);
  const cm_float8 xy0 = __builtin_shufflevector(x, y, 0, 8, 1, 9, 4, 12, 5, 13);
  const cm_float8 xy1 = __builtin_shufflevector(x, y, 2, 10, 3, 11, 6, 14, 7, 15);
  // (a b c d) of cells (j, j + 4) in the two halves, for j = 0, 1, 2, 3.
  const cm_float8 t0 = __builtin_shufflevector(ab0, cd0, 0, 1, 8, 9, 4, 5, 12, 13);
  const cm_float8 t1 = __builtin_shufflevector(ab0, cd0, 2, 3, 10, 11, 6, 7, 14, 15);
  const cm_float8 t2 = __builtin_shufflevector(ab1, cd1, 0, 1, 8, 9, 4, 5, 12, 13);
  const cm_float8 t3 = __builtin_shufflevector(ab1, cd1, 2, 3, 10, 11, 6, 7, 14, 15);
#define CM_PLANAR_CELL(k, t, lo, xy, pair)                                                      \
  *(cm_float8_u *)(out + 16 * (k)) = __builtin_shufflevector(t, zero, lo, lo + 1, 8, 8, lo + 2, lo + 3, 8, 8); \
  *(cm_float8_u *)(out + 16 * (k) + 8) = __builtin_shufflevector(xy, rows23, 8, 9, 10, 11, pair, pair + 1, 14, 15);
  CM_PLANAR_CELL(0, t0, 0, xy0, 0)
  CM_PLANAR_CELL(1, t1, 0, xy0, 2)
  CM_PLANAR_CELL(2, t2, 0, xy1, 0)
  CM_PLANAR_CELL(3, t3, 0, xy1, 2)
  CM_PLANAR_CELL(4, t0, 4, xy0, 4)
  CM_PLANAR_CELL(5, t1, 4, xy0, 6)
  CM_PLANAR_CELL(6, t2, 4, xy1, 4)
  CM_PLANAR_CELL(7, t3, 4, xy1, 6)
#undef CM_PLANAR_CELL
}

/// Transposes rows r[0..7] (8 lanes each, `stride` Floats apart) into 8 cells: entries
/// first ..< first + 8 of cell k's matrix at out[16 k + first ...] (one 32-byte store).
static inline __attribute__((always_inline)) void cm_transpose8x8(const float *rows, long stride, float *out) {
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
  *(cm_float8_u *)(out + 0) = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
  *(cm_float8_u *)(out + 16) = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
  *(cm_float8_u *)(out + 32) = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
  *(cm_float8_u *)(out + 48) = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
  *(cm_float8_u *)(out + 64) = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
  *(cm_float8_u *)(out + 80) = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
  *(cm_float8_u *)(out + 96) = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
  *(cm_float8_u *)(out + 112) = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
}

/// Stores 8 cells' general matrices: 16 rows of 8 lanes (`soa[e * stride + k]`) become
/// 8 consecutive 16-Float matrices at `out` (two 8 x 8 transposes).
static inline __attribute__((always_inline)) void cm_store_matrices8(const float *soa, long stride, float *out) {
  cm_transpose8x8(soa, stride, out);
  cm_transpose8x8(soa + 8 * stride, stride, out + 8);
}

#endif
