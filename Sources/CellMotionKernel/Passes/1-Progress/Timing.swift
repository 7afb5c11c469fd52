// Pass 1 (KernelPass.progress): where each cell is on its recipe's timeline (`PartClock`:
// the clock or a progress column), media timing (local time per lane from it, the delay,
// speed, repeat, autoreverse and fill), and each part's progress for a block.

import CellMotion
import Foundation

/// The progress stage's Bezier loop for one solve (`SolvePath.dispatch`); `Keep` `Yes`
/// also stores each lane's rate d(progress)/d(driver) to `rates` (a type, so the loop
/// without it has no trace of it).
struct ProgressStage<L: FloatLanes, Keep: StaticFlag>: SolveVisitor {
  /// The part where its caller holds it (not a copy: the part is about 300 bytes, and
  /// copying it per block, with `memcpy`, cost tip-in 1 instruction per cell and a store
  /// forwarding stall in the stage's prologue).
  let part: UnsafePointer<CompiledPart>
  let timing: PartTiming
  let clock: PartClock
  let count: Int
  let out: UnsafeMutablePointer<Float>
  let rates: UnsafeMutablePointer<Float>?
  init(
    part: UnsafePointer<CompiledPart>, timing: PartTiming, clock: PartClock, count: Int,
    out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>?
  ) {
    (self.part, self.timing, self.clock, self.count, self.out) = (part, timing, clock, count, out)
    self.rates = rates
  }
  @inline(__always)
  func visit<S: BezierSolve>(_: S.Type) {
    Kernel.bezierStage(L.self, S.self, Keep.self, part, timing, clock, count: count, into: out, rates: rates)
  }
}

/// Where a part's cells are on their recipe's timeline: u = input x `scale` + `offset`,
/// seconds since each cell's start, from a per-cell input column. The one place a
/// progress source differs from the clock: every stage after it reads progress alike.
/// - the clock (`ProgressSource.clock`, and a retarget's segments and layers): the input is
///   the cells' start (or begin) times and u = t - start at frame time t;
/// - a progress source: the input is the cells' progress f and u = f x span (the recipe's
///   active duration).
/// `rate` is du/d(driver): 1 second per second on the clock, the span per unit of
/// progress (velocities are per unit of the driver).
struct PartClock {
  /// The input column from the block's first cell.
  let input: UnsafePointer<Float>
  let scale: Float
  let offset: Float
  let rate: Float

  /// The media-timing clock at frame time `t` (seconds from the batch's origin) for cells
  /// whose start times (same origin) are at `start`.
  static func clock(start: UnsafePointer<Float>, t: Float) -> PartClock {
    PartClock(input: start, scale: -1, offset: t, rate: 1)
  }
  /// Progress per cell at `progress`, over a timeline of `span` seconds.
  static func progress(_ progress: UnsafePointer<Float>, span: Float) -> PartClock {
    PartClock(input: progress, scale: span, offset: 0, rate: span)
  }
  /// The same clock for the cells from `n` on.
  func advanced(by n: Int) -> PartClock { PartClock(input: input + n, scale: scale, offset: offset, rate: rate) }
  /// u per lane for the group whose input is `x`: t - start exactly on the clock (a fused
  /// multiply-add by -1 rounds once, as the subtraction).
  @inline(__always)
  func time<L: FloatLanes>(_ x: L) -> L { L.muladd(x, scale, offset) }
}

/// A part's media timing as the kernel reads it: the recipe's (`CompiledRecipe.timing`),
/// or a retarget's (`retarget`: speed 1, once, filling both ways).
package struct PartTiming: Sendable, Hashable {
  package let speed: Float
  package let repeatCount: Float
  package let autoreverses: Bool
  package let fillsBackwards: Bool
  package let fillsForwards: Bool
  /// Speed 1, at most one iteration, no autoreverse: local time is the time since the start
  /// (decided once here: tested in the stages, a computed flag cost tip-in 5 %).
  package let simpleTiming: Bool

  init(_ timing: RecipeTiming) {
    speed = Float(timing.speed)
    repeatCount = Float(timing.repeatCount)
    autoreverses = timing.autoreverses
    fillsBackwards = timing.fillMode == .backwards || timing.fillMode == .both
    fillsForwards = timing.fillMode == .forwards || timing.fillMode == .both
    simpleTiming = speed == 1 && repeatCount <= 1 && !autoreverses
  }

  /// A retarget's segment or additive layer: progress 0 before its begin, 1 after its end.
  static var retarget: PartTiming {
    PartTiming(speed: 1, repeatCount: 0, autoreverses: false, fillsBackwards: true, fillsForwards: true)
  }

  init(speed: Float, repeatCount: Float, autoreverses: Bool, fillsBackwards: Bool, fillsForwards: Bool) {
    (self.speed, self.repeatCount, self.autoreverses) = (speed, repeatCount, autoreverses)
    (self.fillsBackwards, self.fillsForwards) = (fillsBackwards, fillsForwards)
    simpleTiming = speed == 1 && repeatCount <= 1 && !autoreverses
  }
}

extension Kernel {
  /// Local time of one timed part per lane at frame time `t` (relative to the batch
  /// origin), in seconds within [0, duration], and the lanes where the part is inactive
  /// (no fill: the model value shows, as progress 1).
  @inline(__always)
  static func partLocalTime<L: FloatLanes>(
    duration dur: Float, delay: Float, endLocalTime: Float, _ r: PartTiming, _ clock: PartClock, input: L
  ) -> (local: L, inactive: L.Mask) {
    var ta = clock.time(input) - delay
    var local: L
    var inactive: L.Mask
    if r.simpleTiming {
      local = L.clamp(ta, 0, dur)
      // Inactive before the start unless filling backwards, and from the end on unless
      // filling forwards (the model value, = to, shows: same as p = 1 for a single
      // non-reversing iteration, but kept explicit). Thresholds, not branches on the flags,
      // so the mask stays in a register.
      let before: Float = r.fillsBackwards ? -.infinity : 0
      let after: Float = r.fillsForwards ? .infinity : dur
      inactive = L.or(L.lt(ta, L(repeating: before)), L.ge(ta, L(repeating: after)))
    } else {
      ta = ta * r.speed
      let active = dur * max(r.repeatCount, 1) * (r.autoreverses ? 2 : 1)
      let k = L.floor(ta * (1 / dur))
      var tl = L.clamp(ta - k * dur, 0, dur)
      if r.autoreverses {
        let odd = L.ge(k - L.floor(k * 0.5) * 2, L(repeating: 0.5))
        tl = tl.replacing(with: dur - tl, where: odd)
      }
      let before = L.lt(ta, L(repeating: 0))
      let after = L.ge(ta, L(repeating: active))
      local = tl.replacing(with: L(repeating: 0), where: before)
      local = local.replacing(with: L(repeating: endLocalTime), where: after)
      inactive = L.lt(ta, L(repeating: -Float.infinity))
      if !r.fillsBackwards { inactive = L.or(inactive, before) }
      if !r.fillsForwards { inactive = L.or(inactive, after) }
    }
    return (local, inactive)
  }

  /// Stage 1 of a block: the progress of `part` for `count` cells starting at `start`,
  /// written to `out` in whole lane groups (the last group padded with its first lane's
  /// input, so `out` needs room for `count` rounded up to `L.width`). The curve is chosen
  /// once, outside the loop, so each curve runs as its own small loop whose iterations
  /// the processor overlaps (the Bezier solve is a chain of dependent steps).
  ///
  /// Compiled once per lane width (never inlined): every block's parts share it, and it
  /// holds one loop per solve the `SolvePath` names. The paths no 4-lane scenario takes
  /// (media timing other than the simple case, critically damped and overdamped springs)
  /// run their `WideLanes` code whatever `L` is (`rareStage`); so do the rates
  /// (`progressStage(_:_:_:_:count:into:rates:)`).
  @inline(never)
  static func progressStage<L: FloatLanes>(
    _: L.Type, _ p: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock, count: Int,
    into out: UnsafeMutablePointer<Float>
  ) {
    if count > L.width && isUniform(clock.input, count: count) {
      // One input for the whole block: one group's progress, copied (`isUniform`).
      progressStage(L.self, p, r, clock, count: L.width, into: out)
      fillGroups(out, count: count, width: L.width)
      return
    }
    // Bezier solves run as types, so the specialised ones' loops unroll to straight-line
    // code. `SolvePath.dispatch` switches without a default, so a solve cannot be dropped.
    if r.simpleTiming,
      p.pointee.solvePath.dispatch(
        ProgressStage<L, No>(part: p, timing: r, clock: clock, count: count, out: out, rates: nil))
    {
      return
    }
    if r.simpleTiming, case .underdamped(let a, let wd, let b) = p.pointee.curve {
      springStage(L.self, UnderdampedSpring(a: a, wd: wd, b: b), p, r, clock, count: count, into: out, rates: nil)
      return
    }
    rareStage(p, r, clock, count: count, into: out, rates: nil)
  }

  /// `progressStage` that also stores each lane's d(progress)/d(driver) to `rates` (when
  /// velocities are asked for: the velocity stage then multiplies it by each channel's
  /// delta): the curve's slope (a Bezier's at the parameter it solved, a spring's x'(t))
  /// times the media timing's rate (`partRate`), 0 outside the active interval. `rates`
  /// nil: `progressStage` itself. In `WideLanes` only (the velocity and retarget passes'
  /// width), as the rare paths.
  @inline(never)
  static func progressStage(
    _: WideLanes.Type, _ p: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock, count: Int,
    into out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>?
  ) {
    guard let rates else {
      progressStage(WideLanes.self, p, r, clock, count: count, into: out)
      return
    }
    if count > WideLanes.width && isUniform(clock.input, count: count) {
      progressStage(WideLanes.self, p, r, clock, count: WideLanes.width, into: out, rates: rates)
      fillGroups(out, count: count, width: WideLanes.width)
      fillGroups(rates, count: count, width: WideLanes.width)
      return
    }
    if r.simpleTiming,
      p.pointee.solvePath.dispatch(
        ProgressStage<WideLanes, Yes>(part: p, timing: r, clock: clock, count: count, out: out, rates: rates))
    {
      return
    }
    rareStage(p, r, clock, count: count, into: out, rates: rates)
  }

  /// Whether the `count` inputs from `p` are one value, bit for bit: the cells of a block
  /// started (or were retargeted) at one instant, as when one event retargets every cell
  /// on screen, or share one progress. Their progress and rate are then one group's,
  /// computed once and copied (`fillGroups`): the same bits, as every lane of that group
  /// computes what each of the block's lanes would from the same input. A block whose
  /// cells differ is usually found out at its second or last cell, else after one pass.
  /// `count` >= 2.
  @inline(__always)
  static func isUniform(_ p: UnsafePointer<Float>, count: Int) -> Bool {
    // Bits, not Float equality (-0 and 0 are two inputs).
    let raw = UnsafeRawPointer(p)
    let f = raw.load(as: UInt32.self)
    // A block whose cells started at different times differs here already.
    if raw.load(fromByteOffset: 4, as: UInt32.self) != f
      || raw.load(fromByteOffset: (count &- 1) &* 4, as: UInt32.self) != f
    {
      return false
    }
    // The rest without a branch a value: an OR of XORs, which the compiler vectorises
    // (a vector compare's test per group compiled to a lane-by-lane loop).
    var differs: UInt32 = 0
    var k = 2
    while k < count &- 1 {
      differs |= raw.load(fromByteOffset: k &* 4, as: UInt32.self) ^ f
      k &+= 1
    }
    return differs == 0
  }

  /// Copies `row[0]` to the rest of the first `count` cells rounded up to whole groups of
  /// `width` (what the stages write: a last partial group's padded lanes repeat its first
  /// lane's input, here the same one).
  @inline(__always)
  static func fillGroups(_ row: UnsafeMutablePointer<Float>, count: Int, width: Int) {
    let end = (count &+ width &- 1) / width &* width
    (row + width).update(repeating: row[0], count: end &- width)
  }

  /// The progress paths no 4-lane scenario takes, compiled once, in `WideLanes` (lane-wise
  /// arithmetic: 8 lanes give what 4 would; the scratch rows hold whole 8-lane groups,
  /// `ScratchLayout.blockCells`): a Bezier part with media timing other than the simple
  /// case (`timedBezierStage`), and every spring the simple-timed stages leave (all of
  /// them with rates).
  @inline(never)
  static func rareStage(
    _ p: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock, count: Int,
    into out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>?
  ) {
    typealias L = WideLanes
    switch p.pointee.curve {
    case .bezier, .fittedBezier, .rootFittedBezier:
      timedBezierStage(p, r, clock, count: count, into: out, rates: rates)
    case .underdamped(let a, let wd, let b):
      springStage(L.self, UnderdampedSpring(a: a, wd: wd, b: b), p, r, clock, count: count, into: out, rates: rates)
    case .critical(let w0, let c):
      springStage(L.self, CriticalSpring(w0: w0, c: c), p, r, clock, count: count, into: out, rates: rates)
    case .overdamped(let a, let beta, let c, let slow, let fast):
      springStage(
        L.self, OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast), p, r, clock, count: count,
        into: out, rates: rates)
    }
  }

  /// The Bezier loop of `progressStage` for the simple media timing (speed 1, at most one
  /// iteration, no autoreverse: `timedBezierStage` takes the rest); `S` fixes the solve
  /// (`BezierSolve`); with `Keep` `Yes`, each lane's rate is stored to `rates` too (the
  /// same progress bits), a type so the loop without it stays as it was.
  static func bezierStage<L: FloatLanes, S: BezierSolve, Keep: StaticFlag>(
    _: L.Type, _: S.Type, _: Keep.Type, _ p: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock,
    count: Int, into out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>? = nil
  ) {
    // The part's fields read where the part is (through a pointer: passed by value, it was
    // copied per call, a 300-byte `memcpy`).
    let c = p.pointee.bezier
    let dur = p.pointee.duration, delay = p.pointee.delay, inv = 1 / dur
    // `partLocalTime`'s simple case with every recipe constant in a local first (read
    // through `r` they were reloaded and re-tested per group), and the inactive lanes
    // as two selects at the end (no mask kept alive across the solve).
    // ta = input x scale + t0 (on the clock t0 - start, exactly), and x = ta / dur as one
    // multiply-add from the input (off the solve's critical path: the selects below use
    // ta). At ta = dur exactly x may round to 1 - ulp (the general path below forces 1);
    // a Float clock cannot resolve that instant, and from the next representable time on
    // x clamps to 1.
    let t0 = clock.offset - delay, scale = clock.scale
    let xScale = scale * inv, xOffset = t0 * inv
    let before: Float = r.fillsBackwards ? -.infinity : 0
    let after: Float = r.fillsForwards ? .infinity : dur
    // Rates: dy/dx / duration x the clock's rate inside [0, duration) (`partRate`).
    let rateScale = inv * clock.rate
    let input = clock.input
    var i = 0
    if S.self == IdentitySolve.self && !Keep.value && r.fillsBackwards && r.fillsForwards {
      // y = x with both fills (every scroll effect's progress): the clamp is the whole
      // stage, the fills' selects never fire (before -inf, after +inf). The same bits.
      // Whole groups first: a partial load's test in the loop was 4 of its 15
      // instructions a group.
      @inline(__always) func group(_ st: L) { S.progress(L.clamp(L.muladd(st, xScale, xOffset), 0, 1), c).store(to: out + i) }
      while i &+ L.width <= count {
        group(L.load(input + i))
        i &+= L.width
      }
      if i < count { group(loadGroup(input + i, count &- i)) }
      return
    }
    while i < count {
      let st: L = loadGroup(input + i, count &- i)
      let ta = L.muladd(st, scale, t0)
      let x = L.clamp(L.muladd(st, xScale, xOffset), 0, 1)
      let y: L
      if Keep.value {
        let solved: (progress: L, parameter: L) = S.solve(x, c)
        let inside = L.and(L.ge(ta, L(repeating: 0)), L.lt(ta, L(repeating: dur)))
        L(repeating: 0).replacing(with: bezierSlope(atParameter: solved.parameter, c) * rateScale, where: inside)
          .store(to: rates.unsafelyUnwrapped + i)
        y = solved.progress
      } else {
        y = S.progress(x, c)
      }
      y.replacing(with: L(repeating: 1), where: L.lt(ta, L(repeating: before)))
        .replacing(with: L(repeating: 1), where: L.ge(ta, L(repeating: after)))
        .store(to: out + i)
      i &+= L.width
    }
  }

  /// `bezierStage` for media timing other than the simple case (a speed, repeats or
  /// autoreverse): no preset, retarget or scroll effect has it, so its loop is compiled
  /// once, in `WideLanes` (`rareStage`), with the curve's solve read at run time
  /// (`RuntimeNewtonSolve` and the fitted ones: the same arithmetic as the specialised
  /// solves, so the same bits) and the rates stored when `rates` is given (a uniform
  /// branch per group) rather than once per specialised solve and per `Keep`.
  static func timedBezierStage(
    _ p: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock,
    count: Int, into out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>?
  ) {
    switch p.pointee.bezier.solve {
    case .newton: timedBezierLoop(RuntimeNewtonSolve.self, p, r, clock, count: count, into: out, rates: rates)
    case .fitted: timedBezierLoop(RuntimeFittedSolve.self, p, r, clock, count: count, into: out, rates: rates)
    case .rootFitted: timedBezierLoop(RuntimeRootFittedSolve.self, p, r, clock, count: count, into: out, rates: rates)
    }
  }

  @inline(__always)
  static func timedBezierLoop<S: BezierSolve>(
    _: S.Type, _ p: UnsafePointer<CompiledPart>, _ r: PartTiming, _ clock: PartClock,
    count: Int, into out: UnsafeMutablePointer<Float>, rates: UnsafeMutablePointer<Float>?
  ) {
    typealias L = WideLanes
    let c = p.pointee.bezier
    let dur = p.pointee.duration, delay = p.pointee.delay, endLocalTime = p.pointee.endLocalTime, inv = 1 / dur
    var i = 0
    while i < count {
      let input: L = loadGroup(clock.input + i, count &- i)
      let (local, inactive) = partLocalTime(
        duration: dur, delay: delay, endLocalTime: endLocalTime, r, clock, input: input)
      // x exactly 1 at the end (local * (1 / dur) can round below it, and keyframes that
      // jump at their end, such as a spring segment cut there, would show it).
      let x = L.clamp(local * inv, 0, 1).replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
      // `solve`'s progress has `progress`'s bits (`BezierSolve`).
      let solved: (progress: L, parameter: L) = S.solve(x, c)
      if let rates {
        let (rateLocal, factor) = partRate(duration: dur, delay: delay, r, clock, input: input)
        let slope = (bezierSlope(atParameter: solved.parameter, c) * inv)
          .replacing(with: L(repeating: 0), where: L.ge(rateLocal, L(repeating: dur)))
        (slope * factor).store(to: rates + i)
      }
      solved.progress.replacing(with: L(repeating: 1), where: inactive).store(to: out + i)
      i &+= L.width
    }
  }
}
