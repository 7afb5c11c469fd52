// Pass 5 (KernelPass.velocities; asked for with `FrameOutput(includeVelocities: true)`; nothing here runs
// otherwise): each channel's d(value)/dt per lane, in closed form, as the reference's
// `channelVelocities` defines it: d(value)/d(progress) x the curve's d(progress)/d(local
// time) (a Bezier's dy/dx over its duration at the solved parameter, a spring's x'(t)) x
// d(local time)/dt (the speed, negative in an autoreversed iteration, 0 before, after and
// while a fill holds). Each part's rate is computed once per lane group and handed to
// every channel that uses it; retargeted channels add their segment's and layers' rates.

import CellMotion
import Foundation

/// A loop over a block's lane groups computing a part's d(progress)/dt: `run` with the
/// curve's d(progress)/d(local time) (`CurveRate`, which `Kernel.rateStage` picks once per
/// part). The fallback for staged rows whose rates the progress stage could not keep
/// (`RateRows.capacity`): every other rate comes from the progress stage itself.
protocol RateLoop {
  associatedtype Lanes: FloatLanes
  func run<R: CurveRate>(_ curveRate: R)
}

/// A curve's d(progress)/d(local time) per lane group, at local time `local` (seconds) of
/// the group at the block's cell `i`. A type rather than a closure, so each rate loop
/// specialises on it and inlines it (closures passed to the loops stayed calls per group).
protocol CurveRate {
  func rate<L: FloatLanes>(_ local: L, _ i: Int) -> L
}

/// A Bezier's slope at a fresh solve (`Kernel.bezierSlope`), over its duration.
struct SolvedParameterRate: CurveRate {
  let c: BezierConstants
  let inv: Float
  @inline(__always)
  func rate<L: FloatLanes>(_ local: L, _ i: Int) -> L { Kernel.bezierSlope(local * inv, c) * inv }
}

/// A spring's x'(t).
struct SpringRate<S: SpringForm>: CurveRate {
  let spring: S
  @inline(__always)
  func rate<L: FloatLanes>(_ local: L, _ i: Int) -> L { spring.velocity(local) }
}

/// A retarget piece's rate added to a velocity row: (to - from) (or the delta in `to`,
/// `from` nil) x d(progress)/dt of `part` begun at each cell's `begin` (speed 1).
struct RowRateStage<L: FloatLanes>: RateLoop {
  typealias Lanes = L
  /// The part's duration (seconds; a retarget piece has no delay).
  let duration: Float
  /// The clock at the cells' begin times (`PartClock.clock`).
  let clock: PartClock
  let from: UnsafePointer<Float>?
  let to: UnsafePointer<Float>
  let count: Int
  let out: UnsafeMutablePointer<Float>
  init(
    duration: Float, t: Float, begin: UnsafePointer<Float>, from: UnsafePointer<Float>?, to: UnsafePointer<Float>,
    count: Int, out: UnsafeMutablePointer<Float>
  ) {
    (self.duration, self.from, self.to, self.count, self.out) = (duration, from, to, count, out)
    clock = .clock(start: begin, t: t)
  }
  @inline(__always)
  func run<R: CurveRate>(_ curveRate: R) {
    let dur = L(repeating: duration)
    var i = 0
    while i < count {
      let rest = count &- i
      let (local, rate) = Kernel.partRate(
        duration: duration, delay: 0, .retarget, clock, input: Kernel.loadGroup(clock.input + i, rest) as L)
      let v = curveRate.rate(local, i).replacing(with: L(repeating: 0), where: L.ge(local, dur)) * rate
      var d: L = Kernel.loadGroup(to + i, rest)
      // `as L`: untyped, the load was inferred as a single Float (`L - Float` broadcasts
      // it), so a last partial group took its first cell's `from` in every lane.
      if let from { d = d - (Kernel.loadGroup(from + i, rest) as L) }
      let sum: L = Kernel.loadGroup(UnsafePointer(out + i), rest)
      Kernel.storeGroup(L.muladd(v, d, sum), out + i, rest)
      i &+= L.width
    }
  }
}

/// One part's d(progress)/dt per lane group, times each user channel's to - from (with
/// the cell's geometry), stored to the users' velocity rows: Beziers through the part's
/// own solve (`SolvePath.dispatch`), springs through `run` with their x'(t).
struct PartRateStage<L: FloatLanes>: RateLoop {
  typealias Lanes = L
  /// The part's duration and delay, seconds (not the part: a copy of it per block cost a
  /// 300-byte `memcpy`).
  let duration, delay: Float
  let timing: PartTiming
  /// The recipe's clock for the block (`PartClock`).
  let clock: PartClock
  let count: Int
  let users: UnsafeBufferPointer<(row: Int, delta: SIMD3<Float>)>
  let height, tableWidth: UnsafePointer<Float>
  let out: UnsafeMutablePointer<Float>
  let stride: Int
  init(
    part: UnsafePointer<CompiledPart>, timing: PartTiming, clock: PartClock, count: Int,
    users: UnsafeBufferPointer<(row: Int, delta: SIMD3<Float>)>, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, stride: Int
  ) {
    (duration, delay) = (part.pointee.duration, part.pointee.delay)
    (self.timing, self.clock, self.count) = (timing, clock, count)
    (self.users, self.height, self.tableWidth, self.out, self.stride) = (users, height, tableWidth, out, stride)
  }

  /// The loop, with `curveRate` giving d(progress)/d(local time) at a local time.
  @inline(__always)
  func run<R: CurveRate>(_ curveRate: R) {
    let dur = L(repeating: duration)
    var i = 0
    while i < count {
      let rest = count &- i
      let (local, rate) = Kernel.partRate(
        duration: duration, delay: delay, timing, clock, input: Kernel.loadGroup(clock.input + i, rest) as L)
      let v = curveRate.rate(local, i).replacing(with: L(repeating: 0), where: L.ge(local, dur)) * rate
      let h: L = Kernel.loadGroup(height + i, rest), w: L = Kernel.loadGroup(tableWidth + i, rest)
      for u in users {
        let d = L.muladd(h, u.delta.y, L.muladd(w, u.delta.z, L(repeating: u.delta.x)))
        Kernel.storeGroup(v * d, out + u.row * stride + i, rest)
      }
      i &+= L.width
    }
  }
}

/// Up to four velocity rows whose deltas are constants, written by one loop from one
/// kept rate (`Kernel.scaleRate`): rows past `used` repeat the last used row and delta.
struct RateQuad: Sendable {
  var rows: SIMD4<Int32>
  var deltas: SIMD4<Float>
  var used: Int
}

/// A part's users for the kept-rate path (`Kernel.scaleRate`), held inline (at most one
/// user per channel): reached through a pointer per block, arrays here were retained and
/// released around every read.
struct PartScale: Sendable {
  /// The users whose delta is a constant, four to a quad: the first `quadCount`.
  var quads = InlineArray<3, RateQuad>(repeating: RateQuad(rows: .zero, deltas: .zero, used: 0))
  var quadCount = 0
  /// The others (a delta with the cell's geometry): the first `geometricCount`.
  var geometric = InlineArray<11, (row: Int, delta: SIMD3<Float>)>(repeating: (0, .zero))
  var geometricCount = 0
  /// Whether the part has users at all.
  var isEmpty: Bool { quadCount == 0 && geometricCount == 0 }
}

/// Where each channel's velocity comes from, compiled once (`CompiledRecipe.velocityPlan`).
package struct VelocityPlan: Sendable {
  /// Per part: the two-value channels that read it (output row, from, to - from).
  var partChannels: [[(row: Int, delta: SIMD3<Float>)]]
  /// Per part, its users for the kept-rate path (`Kernel.scaleRate`).
  var partScales: [PartScale] = []
  /// Retargeted channels: output row and index in `CompiledRecipe.retargets`.
  var retargets: [(row: Int, index: Int)]
  /// The output rows of channels the recipe does not animate (written as 0), as bits
  /// (`ChannelRows.bit`).
  var zeroRows: UInt16
  /// Keyframe channels: output row and index in `CompiledRecipe.keyframes`.
  var keyframes: [(row: Int, index: Int)]
  /// Bit `row` set for each row this recipe writes a velocity to (not `zeroRows`).
  package var movingRows: UInt16 { ChannelRows.all & ~zeroRows }

  static let empty = VelocityPlan(partChannels: [], retargets: [], zeroRows: 0, keyframes: [])

  init(
    partChannels: [[(row: Int, delta: SIMD3<Float>)]], retargets: [(row: Int, index: Int)], zeroRows: UInt16,
    keyframes: [(row: Int, index: Int)]
  ) {
    (self.partChannels, self.retargets, self.zeroRows, self.keyframes) = (partChannels, retargets, zeroRows, keyframes)
    partScales = partChannels.map(Self.scales)
  }

  /// A part's users split for `Kernel.scaleRate`: constant deltas in quads (a short last
  /// quad repeats its last row and delta), the others kept apart.
  static func scales(_ users: [(row: Int, delta: SIMD3<Float>)]) -> PartScale {
    let isConstant = { (u: (row: Int, delta: SIMD3<Float>)) in u.delta.y == 0 && u.delta.z == 0 }
    let constant = users.filter(isConstant)
    let quads = Swift.stride(from: 0, to: constant.count, by: 4).map { first in
      let used = min(4, constant.count - first)
      var q = RateQuad(rows: SIMD4(repeating: 0), deltas: SIMD4(repeating: 0), used: used)
      for k in 0..<4 {
        let u = constant[first + min(k, used - 1)]
        (q.rows[k], q.deltas[k]) = (Int32(u.row), u.delta.x)
      }
      return q
    }
    var scale = PartScale()
    for q in quads {
      scale.quads[scale.quadCount] = q
      scale.quadCount += 1
    }
    for u in users where !isConstant(u) {
      scale.geometric[scale.geometricCount] = u
      scale.geometricCount += 1
    }
    return scale
  }

  init(_ r: CompiledRecipe) {
    partChannels = Array(repeating: [], count: r.parts.count)
    retargets = []
    zeroRows = 0
    keyframes = []
    let keyframeRows = r.parts.count..<(r.parts.count + r.keyframes.count)
    for (row, kind) in Channel.allCases.enumerated() {
      guard let ch = r.channels.last(where: { $0.channel == kind }) else {
        zeroRows |= ChannelRows.bit(row)
        continue
      }
      if ch.part < r.parts.count {
        partChannels[ch.part].append((row, ch.to - ch.from))
      } else if keyframeRows.contains(ch.part) {
        keyframes.append((row, ch.part - r.parts.count))
      } else if let k = r.retargets.firstIndex(where: { $0.row == ch.part }) {
        retargets.append((row, k))
        // A retargeted channel still running its recipe's channel: that channel's rate is
        // its part's, written with the part's other users (the layers then add to it).
        if r.retargets[k].kind == .none, let base = r.retargets[k].base, base.part < r.parts.count {
          partChannels[base.part].append((row, base.to - base.from))
        }
      } else {
        zeroRows |= ChannelRows.bit(row)
      }
    }
    partScales = partChannels.map(Self.scales)
  }
}

/// Where the progress stages left each staged row's rate d(progress)/d(driver) for the
/// block, when velocities are asked for: the rate of the progress staged in scratch row r
/// (a part's, or a retarget segment's or layer's) in row r of `base`, for r below
/// `capacity`; nil for the others (their rate loop computes it again: `rateStage`). `base`
/// is the block's matrix rows, which the matrix pass fills only after the velocity pass.
struct RateRows {
  let base: UnsafeMutablePointer<Float>
  let block: Int
  /// Staged rows whose rates fit the matrix rows (`ScratchLayout.matrixRows`).
  static var capacity: Int { ScratchLayout.matrixRows }
  init(base: UnsafeMutablePointer<Float>, block: Int) { (self.base, self.block) = (base, block) }
  /// Where the progress stage of staged row `row` keeps its rates, or nil.
  func keep(_ row: Int) -> UnsafeMutablePointer<Float>? { row < Self.capacity ? base + row * block : nil }
  /// Where the rates of staged row `row` are, or nil.
  subscript(row: Int) -> UnsafePointer<Float>? { keep(row).map { UnsafePointer($0) } }
}

extension Kernel {
  /// Local time and d(local time)/d(driver) per lane of `part` on `clock` for the group
  /// whose input is `input`: the speed inside the active interval (negated in a reversed
  /// iteration) times the clock's rate (1 on the clock, the span for a progress source),
  /// 0 outside it.
  @inline(__always)
  static func partRate<L: FloatLanes>(
    duration dur: Float, delay: Float, _ r: PartTiming, _ clock: PartClock, input: L
  ) -> (local: L, rate: L) {
    var ta = clock.time(input) - delay
    let zero = L(repeating: 0)
    if r.simpleTiming {
      let inside = L.and(L.ge(ta, zero), L.lt(ta, L(repeating: dur)))
      return (L.clamp(ta, 0, dur), zero.replacing(with: L(repeating: clock.rate), where: inside))
    }
    ta = ta * r.speed
    let active = dur * max(r.repeatCount, 1) * (r.autoreverses ? 2 : 1)
    let k = L.floor(ta * (1 / dur))
    var local = L.clamp(ta - k * dur, 0, dur)
    var rate = L(repeating: r.speed * clock.rate)
    if r.autoreverses {
      let odd = L.ge(k - L.floor(k * 0.5) * 2, L(repeating: 0.5))
      local = local.replacing(with: dur - local, where: odd)
      rate = rate.replacing(with: L(repeating: -(r.speed * clock.rate)), where: odd)
    }
    let inside = L.and(L.ge(ta, zero), L.lt(ta, L(repeating: active)))
    return (local, zero.replacing(with: rate, where: inside))
  }

  /// Stores the first `count` lanes of `v` at `out` (a whole group when there is room).
  @inline(__always)
  static func storeGroup<L: FloatLanes>(_ v: L, _ out: UnsafeMutablePointer<Float>, _ count: Int) {
    if count >= L.width {
      v.store(to: out)
    } else {
      for k in 0..<count { out[k] = v[lane: k] }
    }
  }

  /// Writes every channel's velocity for the block's `count` cells (from cell `b`) into
  /// the velocity rows (`KernelOutputs.velocities`, `stride` apart): each channel's delta
  /// times its part's rate (kept by the progress stage: `RateRows`), a keyframe channel's
  /// slope times its part's rate, a retargeted channel's base plus each piece's delta
  /// times its rate.
  static func velocityStage<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, at b: Int, count: Int, t: Float, clock: PartClock, progress: StagedProgress,
    inputs: KernelInputs, outputs: KernelOutputs, out: UnsafeMutablePointer<Float>, stride: Int, rates: RateRows
  ) {
    let plan = r.velocityPlan
    // Rows that may hold something other than 0 (`KernelOutputs.velocityRowsToClear`).
    var clear = plan.zeroRows & outputs.velocityRowsToClear
    while clear != 0 {
      (out + clear.trailingZeroBitCount * stride + b).update(repeating: 0, count: count)
      clear &= clear &- 1
    }
    let height = inputs.height + b, tableWidth = inputs.tableWidth + b
    // Each part's rate to every channel that reads it (retargeted channels running their
    // recipe's channel among them: `VelocityPlan`).
    // The plan's arrays borrowed (indexed, each array read was retained and released).
    r.parts.withUnsafeBufferPointer { parts in
      plan.partScales.withUnsafeBufferPointer { scales in
        for k in 0..<scales.count where !scales[k].isEmpty {
          if let rate = rates[k] {
            // The kept rate: the part's users read inline (`PartScale`).
            scaleRate(
              L.self, rate, scales.baseAddress.unsafelyUnwrapped + k, height: height, tableWidth: tableWidth,
              count: count, into: out + b, stride: stride)
            continue
          }
          plan.partChannels[k].withUnsafeBufferPointer { users in
            let part = parts.baseAddress.unsafelyUnwrapped + k
            rateStage(
              part, PartRateStage<L>(
                part: part, timing: r.timing, clock: clock, count: count, users: users, height: height,
                tableWidth: tableWidth, out: out + b, stride: stride))
          }
        }
      }
    }
    for (row, index) in plan.keyframes {
      keyframeVelocity(
        L.self, r, r.keyframes[index], at: b, count: count, clock: clock, progress: progress, inputs: inputs,
        rates: rates, into: out + row * stride + b)
    }
    guard !plan.retargets.isEmpty else { return }
    // Each retarget borrowed where the array holds it (a copy per block retained its arrays).
    r.retargets.withUnsafeBufferPointer { retargets in
      for (row, index) in plan.retargets {
        let k = retargets.baseAddress.unsafelyUnwrapped + index
        let rows = inputs.retarget.unsafelyUnwrapped, first = k.pointee.input
        @inline(__always) func input(_ j: Int) -> UnsafePointer<Float> { rows + (first + j) * inputs.retargetStride + b }
        let target = out + row * stride + b
        // The base's velocity first (a recipe's channel is written by its part's loop
        // above), then each piece's added.
        switch k.pointee.kind {
        case .none where k.pointee.base.unsafelyUnwrapped.part >= r.parts.count:
          // The running base is a keyframe channel.
          keyframeVelocity(
            L.self, r, r.keyframes[k.pointee.base.unsafelyUnwrapped.part - r.parts.count], at: b, count: count,
            clock: clock, progress: progress, inputs: inputs, rates: rates, into: target)
        case .none:
          break
        case .timed:
          target.update(repeating: 0, count: count)
        case .carrying:
          let curve = k.pointee.carrying.unsafelyUnwrapped
          var i = 0
          while i < count {
            storeGroup(carryingVelocity(curve, input, at: i, t: t, count: count) as L, target + i, count &- i)
            i &+= L.width
          }
        }
        // Each piece's delta x its rate added: a timed segment's (to - from), each layer's
        // delta.
        let firstLayer = k.pointee.firstLayer, segmentRows = k.pointee.segmentRows, row0 = k.pointee.progressRow
        for j in 0..<k.pointee.pieceCount {
          let layer = j - firstLayer
          let from = layer < 0 ? input(1) : nil, to = layer < 0 ? input(2) : input(1 + segmentRows + 2 * layer)
          if let rate = rates[row0 + j] {
            addRate(L.self, rate, from: from, to: to, count: count, into: target)
          } else {
            let part = k.piece(j)
            rateStage(
              part, RowRateStage<L>(
                duration: part.pointee.duration, t: t, begin: input(k.pointee.beginRow(ofPiece: j)), from: from, to: to,
                count: count, out: target))
          }
        }
      }
    }
  }

  /// Each user's velocity row = its delta (c + h x height + w x width) x the kept `rate`:
  /// users with a constant delta up to four rows per group loop (`RateQuad`: the rate
  /// loaded and the loop run once for four rows, not once per row), the others one row
  /// per loop.
  @inline(never)
  static func scaleRate<L: FloatLanes>(
    _: L.Type, _ rate: UnsafePointer<Float>, _ users: UnsafePointer<PartScale>, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>, stride: Int
  ) {
    for j in 0..<users.pointee.quadCount {
      let q = users.pointee.quads[j]
      if q.used == 1 {
        let target = out + Int(q.rows[0]) * stride
        var i = 0
        while i < count {
          storeGroup(L.load(rate + i) * q.deltas[0], target + i, count &- i)
          i &+= L.width
        }
      } else {
        let row = { (k: Int) in out + Int(q.rows[k]) * stride }
        scaleRateFour(L.self, rate, (row(0), row(1), row(2), row(3)), q.deltas, count: count)
      }
    }
    for j in 0..<users.pointee.geometricCount {
      let u = users.pointee.geometric[j]
      let target = out + u.row * stride
      var i = 0
      while i < count {
        let rest = count &- i
        let h: L = loadGroup(height + i, rest), w: L = loadGroup(tableWidth + i, rest)
        let d = L.muladd(h, u.delta.y, L.muladd(w, u.delta.z, L(repeating: u.delta.x)))
        storeGroup(L.load(rate + i) * d, target + i, rest)
        i &+= L.width
      }
    }
  }

  /// Four velocity rows = the kept `rate` x four constant deltas: whole groups stored
  /// straight, the last partial group through `storeGroup`.
  @inline(__always)
  static func scaleRateFour<L: FloatLanes>(
    _: L.Type, _ rate: UnsafePointer<Float>,
    _ rows: (
      UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>
    ),
    _ deltas: SIMD4<Float>, count: Int
  ) {
    let d0 = L(repeating: deltas[0]), d1 = L(repeating: deltas[1]), d2 = L(repeating: deltas[2])
    let d3 = L(repeating: deltas[3])
    var i = 0
    while i &+ L.width <= count {
      let r = L.load(rate + i)
      (r * d0).store(to: rows.0 + i)
      (r * d1).store(to: rows.1 + i)
      (r * d2).store(to: rows.2 + i)
      (r * d3).store(to: rows.3 + i)
      i &+= L.width
    }
    guard i < count else { return }
    let r = L.load(rate + i), rest = count &- i
    storeGroup(r * d0, rows.0 + i, rest)
    storeGroup(r * d1, rows.1 + i, rest)
    storeGroup(r * d2, rows.2 + i, rest)
    storeGroup(r * d3, rows.3 + i, rest)
  }

  /// A retarget piece's velocity added to `out`: (to - from) (or `to` alone, a layer's
  /// delta) x the kept `rate`.
  @inline(never)
  static func addRate<L: FloatLanes>(
    _: L.Type, _ rate: UnsafePointer<Float>, from: UnsafePointer<Float>?, to: UnsafePointer<Float>, count: Int,
    into out: UnsafeMutablePointer<Float>
  ) {
    // Whole groups loaded and stored straight; the last partial group through
    // `loadGroup`/`storeGroup`.
    var i = 0
    while i &+ L.width <= count {
      var d = L.load(to + i)
      if let from { d = d - L.load(from + i) }
      L.muladd(L.load(rate + i), d, L.load(out + i)).store(to: out + i)
      i &+= L.width
    }
    guard i < count else { return }
    let rest = count &- i
    var d: L = loadGroup(to + i, rest)
    // Each load typed (`as L`): untyped, `d - loadGroup(...)` took the `L - Float` operator
    // and loaded one Float, the first cell's `from`, for every lane.
    if let from { d = d - (loadGroup(from + i, rest) as L) }
    storeGroup(L.muladd(L.load(rate + i), d, loadGroup(UnsafePointer(out + i), rest) as L), out + i, rest)
  }

  /// A keyframe channel's velocity into `out`: its part's d(f)/dt (the kept rate, or a
  /// `PartRateStage` with one user), times d(value)/df at f (`keyframeSlope`, the cell's
  /// geometry applied).
  static func keyframeVelocity<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ k: CompiledKeyframes, at b: Int, count: Int, clock: PartClock,
    progress: StagedProgress, inputs: KernelInputs, rates: RateRows, into out: UnsafeMutablePointer<Float>
  ) {
    let kept = rates[k.part]
    if kept == nil {
      r.parts.withUnsafeBufferPointer { parts in
        let part = parts.baseAddress.unsafelyUnwrapped + k.part
        withUnsafeTemporaryAllocation(of: (row: Int, delta: SIMD3<Float>).self, capacity: 1) { users in
          users[0] = (0, SIMD3(1, 0, 0))
          rateStage(
            part, PartRateStage<L>(
              part: part, timing: r.timing, clock: clock, count: count, users: UnsafeBufferPointer(users),
              height: inputs.height + b, tableWidth: inputs.tableWidth + b, out: out, stride: 0))
        }
      }
    }
    let rate = kept ?? UnsafePointer(out)
    do {
      let segments = UnsafePointer(k.table.base), n = k.table.count / CompiledKeyframes.tableStride
      var i = 0
      while i < count {
        let rest = count &- i
        let f = L.clamp(progress(k.part, i) as L, 0, 1)
        let slope = keyframeSlope(f, k, segments, n)
        var d = slope.constant
        if k.usesGeometry {
          d = L.muladd(loadGroup(inputs.height + b + i, rest), slope.height, L.muladd(loadGroup(inputs.tableWidth + b + i, rest), slope.width, d))
        }
        storeGroup((loadGroup(rate + i, rest) as L) * d, out + i, rest)
        i &+= L.width
      }
    }
  }

  /// Runs a rate loop for `part`'s curve: a Bezier's slope at the parameters the progress
  /// stage kept (or at a fresh solve, `bezierSlope`), whatever solve its progress took, or
  /// its spring's x'(t). Compiled once per lane width and loop kind (never inlined): five
  /// loops, not one per solve and call site.
  @inline(never)
  static func rateStage<V: RateLoop>(_ part: UnsafePointer<CompiledPart>, _ stage: V) {
    switch part.pointee.curve {
    case .bezier, .fittedBezier, .rootFittedBezier:
      stage.run(SolvedParameterRate(c: part.pointee.bezier, inv: 1 / part.pointee.duration))
    case .underdamped(let a, let wd, let bb): stage.run(SpringRate(spring: UnderdampedSpring(a: a, wd: wd, b: bb)))
    case .critical(let w0, let c): stage.run(SpringRate(spring: CriticalSpring(w0: w0, c: c)))
    case .overdamped(let a, let beta, let c, let slow, let fast):
      stage.run(SpringRate(spring: OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast)))
    }
  }

  /// A velocity-carrying segment's velocity per lane: (to - from) x0'(tau) + velocity
  /// g'(tau) from its begin until its end, 0 outside.
  @inline(__always)
  static func carryingVelocity<L: FloatLanes>(
    _ curve: CompiledCurve, _ input: (Int) -> UnsafePointer<Float>, at i: Int, t: Float, count: Int
  ) -> L {
    let rest = count &- i
    let from: L = loadGroup(input(1) + i, rest), to: L = loadGroup(input(2) + i, rest)
    let begin: L = loadGroup(input(3) + i, rest), velocity: L = loadGroup(input(4) + i, rest)
    let end: L = loadGroup(input(5) + i, rest)
    let tv = L(repeating: t)
    let tau = L.maximum(tv - begin, L(repeating: 0))
    let rates: (progress: L, impulse: L)
    switch curve {
    case .underdamped(let a, let wd, let b): rates = UnderdampedSpring(a: a, wd: wd, b: b).motionVelocity(tau)
    case .critical(let w0, let c): rates = CriticalSpring(w0: w0, c: c).motionVelocity(tau)
    case .overdamped(let a, let beta, let c, let slow, let fast):
      rates = OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast).motionVelocity(tau)
    case .bezier, .fittedBezier, .rootFittedBezier: rates = (L(repeating: 0), L(repeating: 0))
    }
    let v = L.muladd(velocity, rates.impulse, (to - from) * rates.progress)
    let live = L.and(L.ge(tv, begin), L.lt(tv, end))
    return L(repeating: 0).replacing(with: v, where: live)
  }
}
