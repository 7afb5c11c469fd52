// Pass 6 (KernelPass.matrices), its stores: from the block's SoA scratch to the caller's AoS buffers (16-Float matrices,
// 6-Float affine records, corners), out of line and aligned to the destination.

import CellMotion
import Foundation
import _CellMotionShims

extension Kernel {
  /// Stage 4 of a planar block: three pair rows ((a, b), (c, d), (tx, ty) of each cell side
  /// by side, `stride` Floats apart, written by `FloatLanes.storePairs`) of `n` cells become
  /// rows (a b 0 0), (c d 0 0), (0 0 1 0), (tx ty 0 1) of `n` consecutive matrices at `p`:
  /// 8 cells at a time by `cm_store_planar_pairs8` (one 8-byte load per pair, a blend, no
  /// shuffle), the rest one by one. `unpacked`: each 8-cell unit holds its pairs in the
  /// order of `cm_pair_slot8` (SIMD8 lanes), else in cell order.
  ///
  /// Called once per block and never inlined: inlined into the group loop, the optimiser's
  /// SLP vectoriser merged the shuffles with the arithmetic that produced the lanes into
  /// inserts and spills; called per group, every live vector was spilled around the call.
  @inline(never)
  static func storePlanarBlock(
    _ pairs: UnsafePointer<Float>, stride: Int, count n: Int, unpacked: Bool, to p: UnsafeMutablePointer<Float>
  ) {
    // Wrapping index arithmetic in the loops below (checked, each 8 cells carried three
    // overflow tests).
    var i = 0
    // One loop per (slot order, alignment), so both are constants inside each. A Swift
    // array's storage (FrameOutput) starts 16 or 48 bytes past a 64-byte line: there the
    // 16-byte-offset form keeps every store inside a cache line.
    let off16 = UInt(bitPattern: p) & 31 == 16
    switch (unpacked, off16) {
    case (true, false):
      while i &+ 8 <= n {
        cm_store_planar_pairs8(pairs + 2 &* i, stride, 1, p + 16 &* i)
        i &+= 8
      }
    case (false, false):
      while i &+ 8 <= n {
        cm_store_planar_pairs8(pairs + 2 &* i, stride, 0, p + 16 &* i)
        i &+= 8
      }
    case (true, true):
      while i &+ 8 <= n {
        cm_store_planar_pairs8_off16(pairs + 2 &* i, stride, 1, p + 16 &* i)
        i &+= 8
      }
    case (false, true):
      while i &+ 8 <= n {
        cm_store_planar_pairs8_off16(pairs + 2 &* i, stride, 0, p + 16 &* i)
        i &+= 8
      }
    }
    while i < n {
      let k = i & 7
      let e = pairs + 2 * ((i - k) + (unpacked ? cm_pair_slot8(k) : k))
      let q = p + 16 * i
      (q[0], q[1], q[2], q[3]) = (e[0], e[1], 0, 0)
      (q[4], q[5], q[6], q[7]) = (e[stride], e[stride + 1], 0, 0)
      (q[8], q[9], q[10], q[11]) = (0, 0, 1, 0)
      (q[12], q[13], q[14], q[15]) = (e[2 * stride], e[2 * stride + 1], 0, 1)
      i += 1
    }
  }

  /// Stage 4 for a recipe whose matrix is the identity at every time
  /// (`PlanarConstants.isIdentity`, no corners asked for): `n` identity matrices at `p`,
  /// 16 Floats each, or 6 with the affine layout, stored from constants
  /// (`cm_store_identity_matrices`, `cm_store_affine_identity`); stage 3 does not run.
  @inline(never)
  static func storeIdentityBlock(count n: Int, at b: Int, _ outputs: KernelOutputs) {
    storeIdentity(count: n, at: b, outputs)
  }

  /// The identity matrices of cells `b ..< b + n` in `outputs.matrices`, in its layout:
  /// `storeIdentityBlock`'s work, inlined where the fold pass stores it group by group.
  @inline(__always)
  static func storeIdentity(count n: Int, at b: Int, _ outputs: KernelOutputs) {
    if outputs.affine {
      cm_store_affine_identity(outputs.matrices + 6 &* b, n)
    } else {
      cm_store_identity_matrices(outputs.matrices + 16 &* b, n)
    }
  }

  /// Stage 4 of a planar block with the affine layout: the three pair rows of `n` cells
  /// become `n` consecutive (a b c d tx ty) records of 6 Floats at `p`, 8 cells at a time by
  /// `cm_store_affine_pairs8` (pairs moved as doubles, shuffled into three 32-byte stores
  /// per 4 cells), the rest one by one. Out of line for the reason given at
  /// `storePlanarBlock`.
  @inline(never)
  static func storeAffineBlock(
    _ pairs: UnsafePointer<Float>, stride: Int, count n: Int, unpacked: Bool, to p: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    if unpacked {
      while i &+ 8 <= n {
        cm_store_affine_pairs8(pairs + 2 &* i, stride, 1, p + 6 &* i)
        i &+= 8
      }
    } else {
      while i &+ 8 <= n {
        cm_store_affine_pairs8(pairs + 2 &* i, stride, 0, p + 6 &* i)
        i &+= 8
      }
    }
    while i < n {
      let k = i & 7
      let e = pairs + 2 * ((i - k) + (unpacked ? cm_pair_slot8(k) : k))
      let q = p + 6 * i
      (q[0], q[1], q[2], q[3], q[4], q[5]) = (e[0], e[1], e[stride], e[stride + 1], e[2 * stride], e[2 * stride + 1])
      i += 1
    }
  }

  /// Stage 4 of a general block: 16 SoA rows (entry e of cell k at `soa[e * stride + k]`)
  /// of `n` cells to `n` consecutive 64-byte matrices at `p`: 8 cells at a time by
  /// `cm_store_matrices8` (two 8 x 8 transposes), the rest one by one. Out of line for the
  /// reason given at `storePlanarBlock`.
  @inline(never)
  static func storeMatrixBlock(_ soa: UnsafePointer<Float>, stride: Int, count n: Int, to p: UnsafeMutablePointer<Float>) {
    var i = 0
    // See `storePlanarBlock` for the two alignments.
    if UInt(bitPattern: p) & 31 == 16 {
      while i &+ 8 <= n {
        cm_store_matrices8_off16(soa + i, stride, p + 16 &* i)
        i &+= 8
      }
    } else {
      while i &+ 8 <= n {
        cm_store_matrices8(soa + i, stride, p + 16 &* i)
        i &+= 8
      }
    }
    while i < n {
      let q = p + 16 * i
      for e in 0..<16 { q[e] = soa[e * stride + i] }
      i += 1
    }
  }

  /// The four projected corners (0,0), (w,0), (0,h), (w,h) of `lanes` cells: p * M,
  /// divided by w; 8 Floats per cell. Out of line: optional output, kept away from the
  /// hot loops' register allocation.
  @inline(never)
  static func storeCorners<L: FloatLanes>(
    _ matrix: LaneMatrix<L>, at i: Int, lanes: Int, to co: UnsafeMutablePointer<Float>, width: L, height: L
  ) {
    let m = matrix
    let x0 = m[12], y0 = m[13], w0 = m[15]
    let xw = width * m[0], yw = width * m[1], ww = width * m[3]
    let xh = height * m[4], yh = height * m[5], wh = height * m[7]
    // w at or behind the eye (w <= 1e-6: Core Animation clips such points) is clamped to
    // 1e-6 so that the output stays finite.
    let eye = L(repeating: 1e-6)
    let wa = L.maximum(w0, eye), wb = L.maximum(w0 + ww, eye)
    let wc = L.maximum(w0 + wh, eye), wd = L.maximum(w0 + ww + wh, eye)
    let c = (
      x0 / wa, y0 / wa,
      (x0 + xw) / wb, (y0 + yw) / wb,
      (x0 + xh) / wc, (y0 + yh) / wc,
      (x0 + xw + xh) / wd, (y0 + yw + yh) / wd
    )
    for k in 0..<lanes {
      let p = co + 8 * (i + k)
      p[0] = c.0[lane: k]
      p[1] = c.1[lane: k]
      p[2] = c.2[lane: k]
      p[3] = c.3[lane: k]
      p[4] = c.4[lane: k]
      p[5] = c.5[lane: k]
      p[6] = c.6[lane: k]
      p[7] = c.7[lane: k]
    }
  }
}
