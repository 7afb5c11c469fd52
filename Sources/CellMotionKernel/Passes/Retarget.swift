// Pass 1c, retargets (derived recipes only): after the parts' progress and the keyframe
// values, each retargeted channel's value per lane = offset + (the recipe's channel, or
// the replacing segment) + the sum of the additive layers, from the cell's numbers in the
// batch's retarget rows. The segment's and layers' progress is staged first with the
// ordinary progress stage (their begin rows as start times, `PartTiming.retarget`); the
// velocity-carrying spring is evaluated in the combining loop.

import CellMotion
import Foundation

extension Kernel {
  /// Writes retargeted channel `k`'s value for the block's `count` cells (from cell `b`)
  /// into its scratch row, in whole lane groups. `rows` is the batch's retarget rows
  /// (`stride` floats apart), `block` the scratch row length.
  @inlinable
  static func retargetStage<L: FloatLanes>(
    _: L.Type, _ k: CompiledRetarget, scratch: UnsafeMutablePointer<Float>, block: Int, rows: UnsafePointer<Float>,
    stride: Int, at b: Int, t: Float, height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int
  ) {
    @inline(__always) func input(_ j: Int) -> UnsafePointer<Float> { rows + (k.input + j) * stride + b }
    let segmentRows = k.segmentRows
    var staged = k.progressRow
    if case .timed(let part) = k.segment {
      progressStage(L.self, part, .retarget, t: t, start: input(3), count: count, into: scratch + staged * block)
      staged += 1
    }
    let firstLayerRow = staged
    for (j, part) in k.layers.enumerated() {
      progressStage(
        L.self, part, .retarget, t: t, start: input(1 + segmentRows + 2 * j + 1), count: count,
        into: scratch + (staged + j) * block)
    }
    let progress = StagedProgress(base: UnsafePointer(scratch), stride: block)
    let out = scratch + k.row * block
    let layerCount = k.layers.count
    // The base: the recipe's channel, a timed segment or a carrying spring (one loop each).
    @inline(__always) func combine(_ baseValue: (Int) -> L) {
      var i = 0
      while i < count {
        var v = baseValue(i) + (loadGroup(input(0) + i, count &- i) as L)
        for j in 0..<layerCount {
          let delta: L = loadGroup(input(1 + segmentRows + 2 * j) + i, count &- i)
          v = L.muladd(delta, progress(firstLayerRow + j, i), v)
        }
        v.store(to: out + i)
        i &+= L.width
      }
    }
    switch k.segment {
    case nil:
      let ch = k.base.unsafelyUnwrapped
      let delta = ch.to - ch.from
      combine { i in
        let rest = count &- i
        return channelValue(
          from: ch.from, delta: delta, progress: progress(ch.part, i), height: loadGroup(height + i, rest),
          tableWidth: loadGroup(tableWidth + i, rest))
      }
    case .timed:
      combine { i in
        let rest = count &- i
        let from: L = loadGroup(input(1) + i, rest), to: L = loadGroup(input(2) + i, rest)
        return L.muladd(to - from, progress(k.progressRow, i), from)
      }
    case .carrying(let curve):
      switch curve {
      case .underdamped(let a, let wd, let bb):
        combine { i in carrying(UnderdampedSpring(a: a, wd: wd, b: bb), input, at: i, t: t, count: count) }
      case .critical(let w0, let c):
        combine { i in carrying(CriticalSpring(w0: w0, c: c), input, at: i, t: t, count: count) }
      case .overdamped(let a, let beta, let c, let slow, let fast):
        combine { i in
          carrying(OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast), input, at: i, t: t, count: count)
        }
      case .bezier, .fittedBezier, .rootFittedBezier:
        // A carrying segment always compiles a spring.
        combine { i in loadGroup(input(2) + i, count &- i) }
      }
    }
  }

  /// A velocity-carrying segment's value for one lane group: from + (to - from) x0(tau) +
  /// velocity g(tau), tau = t - begin clamped at 0; `to` from the cell's end on.
  @inlinable @inline(__always)
  static func carrying<L: FloatLanes, S: SpringForm>(
    _ spring: S, _ input: (Int) -> UnsafePointer<Float>, at i: Int, t: Float, count: Int
  ) -> L {
    let rest = count &- i
    let from: L = loadGroup(input(1) + i, rest), to: L = loadGroup(input(2) + i, rest)
    let begin: L = loadGroup(input(3) + i, rest), velocity: L = loadGroup(input(4) + i, rest)
    let end: L = loadGroup(input(5) + i, rest)
    let tv = L(repeating: t)
    let (x0, g) = spring.motion(L.maximum(tv - begin, L(repeating: 0)))
    return L.muladd(velocity, g, L.muladd(to - from, x0, from)).replacing(with: to, where: L.ge(tv, end))
  }
}
