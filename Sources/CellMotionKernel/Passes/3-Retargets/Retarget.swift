// Pass 3 (KernelPass.retargets; derived recipes only): after the parts' progress and the keyframe
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
  /// (`stride` floats apart), `block` the scratch row length. `k` is read where the
  /// recipe's array holds it (passed borrowing, it was still copied per block, its arrays
  /// retained and released).
  static func retargetStage<L: FloatLanes>(
    _: L.Type, _ k: UnsafePointer<CompiledRetarget>, scratch: UnsafeMutablePointer<Float>, block: Int,
    rows: UnsafePointer<Float>, stride: Int, at b: Int, t: Float, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int,
    rates: RateRows?
  ) {
    // The cell rows from the block's first cell (a pointer, not `k`, captured: a nested
    // function capturing the retarget copied it, retaining its arrays, per block).
    let inputs = rows + k.pointee.input * stride + b
    @inline(__always) func input(_ j: Int) -> UnsafePointer<Float> { inputs + j * stride }
    // Each piece's progress staged (with velocities asked for, its rate kept: `RateRows`),
    // each piece borrowed where the retarget holds it (`piece`).
    for j in 0..<k.pointee.pieceCount {
      let row = k.pointee.progressRow + j
      progressStage(
        WideLanes.self, k.piece(j), .retarget,
        .clock(start: input(k.pointee.beginRow(ofPiece: j)), t: t), count: count, into: scratch + row * block,
        rates: rates?.keep(row))
    }
    let progress = StagedProgress(base: UnsafePointer(scratch), stride: block)
    let out = scratch + k.pointee.row * block
    let layers = LayerRows(
      delta: input(1 + k.pointee.segmentRows), stride: 2 * stride, progress: scratch + k.pointee.firstLayerRow * block,
      block: block, count: k.pointee.layerCount)
    // One loop per base (the recipe's channel, a timed segment, a carrying spring), each
    // specialised on its type.
    switch k.pointee.kind {
    case .none where k.pointee.base.unsafelyUnwrapped.usesGeometry == false:
      // Constant ends (no per-cell height or width): no geometry to load.
      let ch = k.pointee.base.unsafelyUnwrapped
      combineStage(
        L.self, ConstantRecipeBase(from: ch.from.x, delta: ch.to.x - ch.from.x, progress: progress.base + ch.part * block),
        offset: input(0), layers: layers, count: count, into: out)
    case .none:
      let ch = k.pointee.base.unsafelyUnwrapped
      combineStage(
        L.self, RecipeBase(
          from: ch.from, delta: ch.to - ch.from, progress: progress.base + ch.part * block, height: height,
          tableWidth: tableWidth), offset: input(0), layers: layers, count: count, into: out)
    case .timed:
      combineStage(
        L.self, TimedBase(from: input(1), to: input(2), progress: progress.base + k.pointee.progressRow * block),
        offset: input(0), layers: layers, count: count, into: out)
    case .carrying:
      let rows = (from: input(1), to: input(2), begin: input(3), velocity: input(4), end: input(5))
      switch k.pointee.carrying.unsafelyUnwrapped {
      case .underdamped(let a, let wd, let bb):
        combineStage(
          L.self, CarryingBase(spring: UnderdampedSpring(a: a, wd: wd, b: bb), rows: rows, t: t), offset: input(0),
          layers: layers, count: count, into: out)
      case .critical(let w0, let c):
        combineStage(
          L.self, CarryingBase(spring: CriticalSpring(w0: w0, c: c), rows: rows, t: t), offset: input(0), layers: layers,
          count: count, into: out)
      case .overdamped(let a, let beta, let c, let slow, let fast):
        combineStage(
          L.self, CarryingBase(spring: OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast), rows: rows, t: t),
          offset: input(0), layers: layers, count: count, into: out)
      case .bezier, .fittedBezier, .rootFittedBezier:
        // A carrying segment always compiles a spring; show its target.
        combineStage(
          L.self, TimedBase(from: input(2), to: input(2), progress: progress.base + k.pointee.progressRow * block),
          offset: input(0), layers: layers, count: count, into: out)
      }
    }
  }

  /// value = offset + base + sum of delta x layer progress, per lane group, into `out`.
  static func combineStage<L: FloatLanes, B: RetargetBase>(
    _: L.Type, _ base: B, offset: UnsafePointer<Float>, layers: LayerRows, count: Int,
    into out: UnsafeMutablePointer<Float>
  ) {
    if layers.count == 1 {
      // One additive layer (a single retarget of the channel, the common case): no layer
      // loop in the group (its counter and row products were half the group's work).
      let delta = layers.delta, layer = layers.progress
      var i = 0
      while i < count {
        let rest = count &- i
        let v: L = base.value(at: i, rest: rest) + (loadGroup(offset + i, rest) as L)
        L.muladd(loadGroup(delta + i, rest), L.load(layer + i), v).store(to: out + i)
        i &+= L.width
      }
      return
    }
    var i = 0
    while i < count {
      let rest = count &- i
      var v: L = base.value(at: i, rest: rest) + (loadGroup(offset + i, rest) as L)
      var j = 0
      while j < layers.count {
        let delta: L = loadGroup(layers.delta + j &* layers.stride + i, rest)
        v = L.muladd(delta, L.load(layers.progress + j &* layers.block + i), v)
        j &+= 1
      }
      v.store(to: out + i)
      i &+= L.width
    }
  }

}

/// The additive layers' rows: layer j's delta at `delta + j * stride` (per-cell rows),
/// its staged progress at `progress + j * block` (scratch rows).
struct LayerRows {
  let delta: UnsafePointer<Float>
  let stride: Int
  let progress: UnsafePointer<Float>
  let block: Int
  let count: Int
  init(delta: UnsafePointer<Float>, stride: Int, progress: UnsafePointer<Float>, block: Int, count: Int) {
    (self.delta, self.stride, self.progress, self.block, self.count) = (delta, stride, progress, block, count)
  }
}

/// What a retargeted channel's value starts from, per lane group at the block's cell `i`
/// (`rest` cells from `i` on are valid).
protocol RetargetBase {
  func value<L: FloatLanes>(at i: Int, rest: Int) -> L
}

/// The recipe's channel: from + (to - from) x progress, each end c + h x height + w x width.
struct RecipeBase: RetargetBase {
  let from, delta: SIMD3<Float>
  let progress, height, tableWidth: UnsafePointer<Float>
  init(
    from: SIMD3<Float>, delta: SIMD3<Float>, progress: UnsafePointer<Float>, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>
  ) {
    (self.from, self.delta, self.progress, self.height, self.tableWidth) = (from, delta, progress, height, tableWidth)
  }
  @inline(__always)
  func value<L: FloatLanes>(at i: Int, rest: Int) -> L {
    Kernel.channelValue(
      from: from, delta: delta, progress: L.load(progress + i), height: Kernel.loadGroup(height + i, rest),
      tableWidth: Kernel.loadGroup(tableWidth + i, rest))
  }
}

/// The recipe's channel with constant ends: from + (to - from) x progress.
struct ConstantRecipeBase: RetargetBase {
  let from, delta: Float
  let progress: UnsafePointer<Float>
  init(from: Float, delta: Float, progress: UnsafePointer<Float>) {
    (self.from, self.delta, self.progress) = (from, delta, progress)
  }
  @inline(__always)
  func value<L: FloatLanes>(at i: Int, rest: Int) -> L { L.muladd(L.load(progress + i), delta, from) }
}

/// A timed segment: from + (to - from) x its staged progress, from and to per cell.
struct TimedBase: RetargetBase {
  let from, to, progress: UnsafePointer<Float>
  init(from: UnsafePointer<Float>, to: UnsafePointer<Float>, progress: UnsafePointer<Float>) {
    (self.from, self.to, self.progress) = (from, to, progress)
  }
  @inline(__always)
  func value<L: FloatLanes>(at i: Int, rest: Int) -> L {
    let a: L = Kernel.loadGroup(from + i, rest), b: L = Kernel.loadGroup(to + i, rest)
    return L.muladd(b - a, L.load(progress + i), a)
  }
}

/// A velocity-carrying segment: from + (to - from) x0(tau) + velocity g(tau), tau = t -
/// begin clamped at 0; `to` from the cell's end on.
struct CarryingBase<S: SpringForm>: RetargetBase {
  let spring: S
  let rows:
    (
      from: UnsafePointer<Float>, to: UnsafePointer<Float>, begin: UnsafePointer<Float>,
      velocity: UnsafePointer<Float>, end: UnsafePointer<Float>
    )
  let t: Float
  init(
    spring: S,
    rows: (
      from: UnsafePointer<Float>, to: UnsafePointer<Float>, begin: UnsafePointer<Float>,
      velocity: UnsafePointer<Float>, end: UnsafePointer<Float>
    ), t: Float
  ) {
    (self.spring, self.rows, self.t) = (spring, rows, t)
  }
  @inline(__always)
  func value<L: FloatLanes>(at i: Int, rest: Int) -> L {
    let from: L = Kernel.loadGroup(rows.from + i, rest), to: L = Kernel.loadGroup(rows.to + i, rest)
    let begin: L = Kernel.loadGroup(rows.begin + i, rest), velocity: L = Kernel.loadGroup(rows.velocity + i, rest)
    let end: L = Kernel.loadGroup(rows.end + i, rest)
    let tv = L(repeating: t)
    let (x0, g) = spring.motion(L.maximum(tv - begin, L(repeating: 0)))
    return L.muladd(velocity, g, L.muladd(to - from, x0, from)).replacing(with: to, where: L.ge(tv, end))
  }
}
