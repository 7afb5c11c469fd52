// Pass 4 (KernelPass.opacity): the winning opacity and shadow-opacity channels' values, clamped, straight
// to the outputs.

import CellMotion

extension Kernel {
  /// The opacity (or shadow opacity) stage of a block: the winning channel's value clamped
  /// to [0, 1], or `modelValue` where the recipe does not animate it, written straight to
  /// `out` for the block's `count` cells (a last partial group stores only its valid
  /// lanes). Never inlined: one loop per lane width, called twice per block (inlined into
  /// the pass loop it cost fade 0.6 instructions per cell more, callgrind).
  @inline(never)
  static func opacityStage<L: FloatLanes>(
    _: L.Type, _ channel: CompiledChannel?, modelValue: Float, progress: StagedProgress, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let w = L.width
    // Wrapping index steps (checked, each group carried an overflow test) and the
    // geometry decided once per block, not per group: tip-in's opacity pass 3.06 -> 2.3
    // instructions a cell.
    guard let ch = channel else {
      var i = 0
      while i &+ w <= count {
        L(repeating: modelValue).store(to: out + i)
        i &+= w
      }
      while i < count {
        out[i] = modelValue
        i &+= 1
      }
      return
    }
    let f = ch.from, d = ch.to - ch.from
    let usesGeometry = f.y != 0 || f.z != 0 || d.y != 0 || d.z != 0
    // Whole groups in one loop, the partial group after it (no tail code in the loop).
    @inline(__always) func group(_ i: Int, lanes: Int, geometry: Bool) {
      let p: L = progress(ch.part, i)
      var v: L
      if geometry {
        let he: L = loadGroup(height + i, lanes), tw: L = loadGroup(tableWidth + i, lanes)
        v = channelValue(from: f, delta: d, progress: p, height: he, tableWidth: tw)
      } else {
        v = L.muladd(p, d.x, f.x)
      }
      v = L.clamp(v, 0, 1)
      if lanes == w {
        v.store(to: out + i)
      } else {
        for k in 0..<lanes { out[i &+ k] = v[lane: k] }
      }
    }
    var i = 0
    if usesGeometry {
      while i &+ w <= count {
        group(i, lanes: w, geometry: true)
        i &+= w
      }
    } else {
      while i &+ w <= count {
        group(i, lanes: w, geometry: false)
        i &+= w
      }
    }
    if i < count { group(i, lanes: count &- i, geometry: usesGeometry) }
  }
}
