// Pass 7 (KernelPass.fold): the fold recipes' two halves: each half turns about its hinge with perspective; their
// matrices and the shadow opacity per lane group.

import CellMotion
import Foundation

extension Kernel {
  /// The fold halves of one lane group (recipes with a fold only).
  @inline(__always)
  static func evaluateFold<L: FloatLanes>(
    _ fold: FoldPlan, progress: StagedProgress, at i: Int, width: L, detailHeight: L
  ) -> LaneFold<L> {
    let z = L(repeating: 0), one = L(repeating: 1)
    // Held (reduce motion): the end state, progress 1 (a uniform branch).
    let p: L = fold.held ? one : progress(fold.part, i)
    let openness = fold.opening ? p : 1 - p
    let angle = (1 - openness) * (-Float.pi / 2)
    let cs = sincos(angle, near: fold.angleCentre)
    let (sn, c) = (cs.sin, cs.cos)
    let k = fold.m34
    let hw = width * 0.5
    let h = detailHeight * 0.5
    let skw = sn * k * hw, ckw = c * k * hw
    // Top half: T(-w/2, 0) * Rx(angle) * P * T(w/2, 0).
    let top = LaneMatrix((
      one, z, z, z,
      skw, c, sn, sn * k,
      ckw, -sn, c, c * k,
      z, z, z, one
    ))
    // Bottom half: T(-w/2, -h) * Rx(-angle) * P * T(w/2, 2h cos/w); w = 1 + h sin k.
    let w = h * sn * k + 1
    let yHinge = (h * c * 2) / w
    let bottom = LaneMatrix((
      one, z, z, z,
      -skw, c - sn * k * yHinge, -sn, -(sn * k),
      ckw, sn + c * k * yHinge, c, c * k,
      h * skw, h * c, h * sn, w
    ))
    return LaneFold(top: top, bottom: bottom, shadow: L.clamp(1 - openness, 0, 1))
  }

  /// The fold pass of a block (recipes with a fold): for cells `b ..< b + n`, both halves
  /// straight to `outputs.foldTop` / `foldBottom` (`FloatLanes.storeMatrices`: the varying
  /// rows transposed in registers; the constant rows (1 0 0 0) of both and (0 0 0 1) of
  /// the top are already in the buffers, which `FrameOutput` makes with them, so the SIMD8
  /// store skips them), the shadow opacity to `outputs.foldShadow`, and with
  /// `identityCells` the cells' own identity matrices to `outputs.matrices`. A pass of its
  /// own, after the cell matrices, so each group is a short loop with little else live.
  /// Never inlined: the Float-lane build inlined it into `evaluateRun` once that function
  /// changed (4c691d2) and took 28 more instructions per cell (foldOpen kernel-float
  /// 17.1 -> 20.5 ns); the SIMD4 and SIMD8 builds already kept it out of line.
  @inline(never)
  static func foldStage<L: FloatLanes>(
    _: L.Type, _ fold: FoldPlan, at b: Int, count n: Int, progress: StagedProgress, inputs: KernelInputs,
    outputs: KernelOutputs, identityCells: Bool
  ) {
    guard let fs = outputs.foldShadow, let ft = outputs.foldTop, let fb = outputs.foldBottom else { return }
    // Whole groups in one loop and the block's last partial group after it, so the loop
    // body has no per-lane tail code (mixed in, it pulled the shadow's clamp apart into
    // scalar pieces: 221 instructions per group, callgrind).
    @inline(__always) func group(_ i: Int, lanes: Int) {
      let c = b &+ i
      let f = evaluateFold(
        fold, progress: progress, at: i, width: loadGroup(inputs.width + c, lanes) as L,
        detailHeight: loadGroup(inputs.detailHeight + c, lanes))
      // The halves' buffers hold the constant rows from allocation (`FrameOutput`).
      L.storeMatrices(f.top, constant: ConstantRows.unitRows0And3.heldByOutput, cells: lanes, to: ft + 16 &* c)
      L.storeMatrices(f.bottom, constant: ConstantRows.unitRow0.heldByOutput, cells: lanes, to: fb + 16 &* c)
      // The cells' own identity matrices here rather than in a pass of their own: stores
      // alone, that pass waited on the store buffer (a fifth of the fold's time, perf).
      if identityCells { storeIdentity(count: lanes, at: c, outputs) }
      if lanes == L.width {
        f.shadow.store(to: fs + c)
      } else {
        for k in 0..<lanes { fs[c + k] = f.shadow[lane: k] }
      }
    }
    var i = 0
    while i &+ L.width <= n {
      group(i, lanes: L.width)
      i &+= L.width
    }
    if i < n { group(i, lanes: n &- i) }
  }
}
