// Pass 6 (KernelPass.matrices) on the general path, matrix keyframes: every lane selects its own segment's
// constants by compares (no branch on lanes), eases its fraction as scalar keyframes do,
// interpolates on each path the track uses (2D, 3D, componentwise, discrete, constant) and
// keeps the result of its segment's path.

import CellMotion
import Foundation

extension Kernel {
  /// The matrix of keyframes `k` at the animation's progress `p` (clamped to [0, 1]).
  /// Out of line: its every path (componentwise, discrete, 2D, 3D with two sines and a
  /// recomposition) inlined into `wholeMatrix` was optimised there a second time, on a
  /// path no preset or benchmark scenario takes (one call per lane group).
  @inline(never)
  static func matrixKeyframes<L: FloatLanes>(_ k: CompiledMatrixKeyframes, progress p: L) -> LaneMatrix<L> {
    k.table.withUnsafeBufferPointer { t in matrixKeyframes(k, t.baseAddress.unsafelyUnwrapped, f: L.clamp(p, 0, 1)) }
  }

  @inline(__always)
  static func matrixKeyframes<L: FloatLanes>(_ k: CompiledMatrixKeyframes, _ table: UnsafePointer<Float>, f: L) -> LaneMatrix<L> {
    // On the stack (`withUnsafeTemporaryAllocation` goes to the heap above 1 KiB on Linux,
    // and 56 SIMD8 values are 1,792 bytes), filled through a pointer.
    var selected = InlineArray<56, L>(repeating: L(repeating: 0))
    return withUnsafeMutablePointer(to: &selected) { p in
      let v = UnsafeMutableRawPointer(p).assumingMemoryBound(to: L.self)
      selectSegments(table, count: k.count, f: f, into: v)
      return matrixKeyframes(k, selected: UnsafePointer(v), f: f)
    }
  }

  /// Each lane's segment constants (`CompiledMatrixKeyframes.stride` = 56 rows of `v`):
  /// segment 0's, then each later segment's where f has reached its start. Out of line,
  /// through memory: the same selection on an array of 56 lane values the optimiser kept
  /// in registers cost it over a second per lane width, on a path no hot preset takes.
  @inline(never)
  static func selectSegments<L: FloatLanes>(
    _ table: UnsafePointer<Float>, count: Int, f: L, into v: UnsafeMutablePointer<L>
  ) {
    let stride = CompiledMatrixKeyframes.stride
    for j in 0..<stride { v[j] = L(repeating: table[j]) }
    var s = table
    for _ in 1..<max(count, 1) {
      s += stride
      let m = L.ge(f, L(repeating: s[0]))
      for j in 0..<54 { v[j] = v[j].replacing(with: L(repeating: s[j]), where: m) }
    }
  }

  /// The matrix at fraction `f` from each lane's selected segment constants `v`. Out of
  /// line too: through the two `matrixKeyframes` above and their closures it was inlined,
  /// and optimised again, four levels up.
  @inline(never)
  static func matrixKeyframes<L: FloatLanes>(
    _ k: CompiledMatrixKeyframes, selected v: UnsafePointer<L>, f: L
  ) -> LaneMatrix<L> {
    let one = L(repeating: 1)
    let u = L.segmentFraction(f, start: v[0], invSpan: v[1])
    let e = easeSegments(u, kind: v[2], seconds: v[3], (v[4], v[5], v[6], v[7], v[8], v[9]), k.easings)
    let eased = e, path = v[10]
    @inline(__always) func lerp(_ j: Int) -> L { L.muladd(eased, v[30 + j] - v[14 + j], v[14 + j]) }
    // The constant path first; each other path present replaces its own lanes.
    var result = LaneMatrix<L>(entry: { v[14 + $0] })
    if k.hasComponentwise {
      result = select(result, LaneMatrix(entry: lerp), where: isPath(path, .componentwise))
    }
    if k.hasDiscrete {
      let late = L.ge(eased, L(repeating: 0.5))
      let m = LaneMatrix<L>(entry: { v[14 + $0].replacing(with: v[30 + $0], where: late) })
      result = select(result, m, where: isPath(path, .discrete))
    }
    if k.hasTwoD {
      let m = compose2D((lerp(0), lerp(1), lerp(2), lerp(3), lerp(4), lerp(5), lerp(6), lerp(7), lerp(8)))
      result = select(result, m, where: isPath(path, .twoD))
    }
    if k.hasThreeD {
      // Slerp by the segment's angle, or nlerp where it is tiny (v[13] = 1).
      let theta = v[11], invSin = v[12], nlerp = L.ge(v[13], L(repeating: 0.5))
      let wa = (L.sincos((one - e) * theta).sin * invSin).replacing(with: one - e, where: nlerp)
      let wb = (L.sincos(e * theta).sin * invSin).replacing(with: e, where: nlerp)
      var q = (
        wa * v[46] + wb * v[50], wa * v[47] + wb * v[51], wa * v[48] + wb * v[52], wa * v[49] + wb * v[53]
      )
      let norm = one / L.sqrt(q.0 * q.0 + q.1 * q.1 + (q.2 * q.2 + q.3 * q.3))
      let scale = one.replacing(with: norm, where: nlerp)
      q = (q.0 * scale, q.1 * scale, q.2 * scale, q.3 * scale)
      let d = (
        lerp(0), lerp(1), lerp(2), lerp(3), lerp(4), lerp(5), lerp(6), lerp(7), lerp(8), lerp(9), lerp(10), lerp(11),
        lerp(12)
      )
      result = select(result, compose3D(d, q), where: isPath(path, .threeD))
    }
    return result
  }

  /// `a`, with `b`'s entries in the lanes of `mask`.
  @inline(__always)
  static func select<L: FloatLanes>(_ a: LaneMatrix<L>, _ b: LaneMatrix<L>, where mask: L.Mask) -> LaneMatrix<L> {
    LaneMatrix(entry: { a[$0].replacing(with: b[$0], where: mask) })
  }

  /// The lanes whose segment takes path `p`.
  @inline(__always)
  static func isPath<L: FloatLanes>(_ lanes: L, _ p: CompiledMatrixKeyframes.Path) -> L.Mask {
    let x = L(repeating: p.rawValue)
    return L.and(L.ge(lanes, x), L.ge(x, lanes))
  }
}
