// The fold recipes' two halves: each half turns about its hinge with perspective; their
// matrices and the shadow opacity per lane group.

import CellMotion
import Foundation

extension Kernel {
  /// The fold halves of one lane group (recipes with a fold only).
  @inlinable @inline(__always)
  static func evaluateFold<L: FloatLanes>(
    _ fold: (part: Int, opening: Bool, m34: Float, held: Bool), centre: SIMD3<Float>?, progress: StagedProgress, at i: Int,
    width: L, detailHeight: L
  ) -> LaneFold<L> {
    let z = L(repeating: 0), one = L(repeating: 1)
    // Held (reduce motion): the end state, progress 1 (a uniform branch).
    let p: L = fold.held ? one : progress(fold.part, i)
    let openness = fold.opening ? p : 1 - p
    let angle = (1 - openness) * (-Float.pi / 2)
    let cs = sincos(angle, near: centre)
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

  /// The fold pass of a block (recipes with a fold): for cells `b ..< b + n`, the two
  /// halves' varying entries as SoA rows of `soa` (top: rows 4-11, bottom: rows 20-31 of
  /// rows 0-31, `stride` Floats apart; `storeFoldBlock` writes them out per block with the
  /// constant rows) and the shadow opacity straight to `outputs.foldShadow`. A pass of its own, after the matrices, so
  /// each group is a short loop with nothing else live (computed inside the matrix loop,
  /// and stored per group, every vector was spilled around the store calls).
  @inlinable
  static func foldStage<L: FloatLanes>(
    _: L.Type, _ fold: (part: Int, opening: Bool, m34: Float, held: Bool), centre: SIMD3<Float>?, at b: Int, count n: Int,
    progress: StagedProgress, soa: UnsafeMutablePointer<Float>, stride s: Int, inputs: KernelInputs,
    outputs: KernelOutputs
  ) {
    guard let fs = outputs.foldShadow else { return }
    var i = 0
    while i < n {
      let c = b &+ i, lanes = min(L.width, n &- i)
      let f = evaluateFold(
        fold, centre: centre, progress: progress, at: i, width: loadGroup(inputs.width + c, lanes) as L,
        detailHeight: loadGroup(inputs.detailHeight + c, lanes))
      // Row 1 of both halves and row 4 of the top are constant (`storeFoldBlock`).
      f.top.storeRows(to: soa + i, stride: s, entries: 4, 12)
      f.bottom.storeRows(to: soa + 16 * s + i, stride: s, entries: 4, 16)
      if lanes == L.width {
        f.shadow.store(to: fs + c)
      } else {
        for k in 0..<lanes { fs[c + k] = f.shadow[lane: k] }
      }
      i &+= L.width
    }
  }
}
