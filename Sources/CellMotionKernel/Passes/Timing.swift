// Pass 1: media timing (local time per lane from the frame time, start, delay, speed,
// repeat, autoreverse and fill), each part's progress for a block, and pass 2: opacity.

import CellMotion
import Foundation

/// The progress stage's Bezier loop for one solve (`SolvePath.dispatch`); `Keep` `Yes`
/// also stores each lane's parameter to `parameters` (a type, so the loop without it has
/// no trace of it).
@usableFromInline struct ProgressStage<L: FloatLanes, Keep: StaticFlag>: SolveVisitor {
  /// The part where its caller holds it (not a copy: the part is about 300 bytes, and
  /// copying it per block, with `memcpy`, cost tip-in 1 instruction per cell and a store
  /// forwarding stall in the stage's prologue).
  @usableFromInline let part: UnsafePointer<CompiledPart>
  @usableFromInline let timing: PartTiming
  @usableFromInline let t: Float
  @usableFromInline let start: UnsafePointer<Float>
  @usableFromInline let count: Int
  @usableFromInline let out: UnsafeMutablePointer<Float>
  @usableFromInline let parameters: UnsafeMutablePointer<Float>?
  @inlinable init(
    part: UnsafePointer<CompiledPart>, timing: PartTiming, t: Float, start: UnsafePointer<Float>, count: Int,
    out: UnsafeMutablePointer<Float>, parameters: UnsafeMutablePointer<Float>?
  ) {
    (self.part, self.timing, self.t, self.start, self.count, self.out) = (part, timing, t, start, count, out)
    self.parameters = parameters
  }
  @inlinable @inline(__always)
  func visit<S: BezierSolve>(_: S.Type) {
    Kernel.bezierStage(
      L.self, S.self, Keep.self, part.pointee, timing, t: t, start: start, count: count, into: out, parameters: parameters)
  }
}

/// A part's media timing as the kernel reads it: the recipe's (`CompiledRecipe.timing`),
/// or a retarget's (`retarget`: speed 1, once, filling both ways).
@usableFromInline package struct PartTiming: Sendable, Hashable {
  @usableFromInline package let speed: Float
  @usableFromInline package let repeatCount: Float
  @usableFromInline package let autoreverses: Bool
  @usableFromInline package let fillsBackwards: Bool
  @usableFromInline package let fillsForwards: Bool
  /// Speed 1, at most one iteration, no autoreverse: local time is the time since the start
  /// (decided once here: tested in the stages, a computed flag cost tip-in 5 %).
  @usableFromInline package let simpleTiming: Bool

  init(_ timing: RecipeTiming) {
    speed = Float(timing.speed)
    repeatCount = Float(timing.repeatCount)
    autoreverses = timing.autoreverses
    fillsBackwards = timing.fillMode == .backwards || timing.fillMode == .both
    fillsForwards = timing.fillMode == .forwards || timing.fillMode == .both
    simpleTiming = speed == 1 && repeatCount <= 1 && !autoreverses
  }

  /// A retarget's segment or additive layer: progress 0 before its begin, 1 after its end.
  @inlinable static var retarget: PartTiming {
    PartTiming(speed: 1, repeatCount: 0, autoreverses: false, fillsBackwards: true, fillsForwards: true)
  }

  @inlinable init(speed: Float, repeatCount: Float, autoreverses: Bool, fillsBackwards: Bool, fillsForwards: Bool) {
    (self.speed, self.repeatCount, self.autoreverses) = (speed, repeatCount, autoreverses)
    (self.fillsBackwards, self.fillsForwards) = (fillsBackwards, fillsForwards)
    simpleTiming = speed == 1 && repeatCount <= 1 && !autoreverses
  }
}

extension Kernel {
  /// Local time of one timed part per lane at frame time `t` (relative to the batch
  /// origin), in seconds within [0, duration], and the lanes where the part is inactive
  /// (no fill: the model value shows, as progress 1).
  @inlinable @inline(__always)
  static func partLocalTime<L: FloatLanes>(
    _ part: CompiledPart, _ r: PartTiming, start: L, t: Float
  ) -> (local: L, inactive: L.Mask) {
    let dur = part.duration
    var ta = (L(repeating: t) - start) - part.delay
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
      local = local.replacing(with: L(repeating: part.endLocalTime), where: after)
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
  /// `parameters`: where a Bezier part also stores each lane's solved parameter s (when
  /// velocities are asked for: their stage then reads it instead of solving again).
  @inlinable @inline(__always)
  static func progressStage<L: FloatLanes>(
    _: L.Type, _ part: borrowing CompiledPart, _ r: PartTiming, t: Float, start: UnsafePointer<Float>, count: Int,
    into out: UnsafeMutablePointer<Float>, parameters: UnsafeMutablePointer<Float>? = nil
  ) {
    // Bezier solves run as types, so their loops specialise to straight-line code (a
    // literal argument to an inlined function was not enough: the optimiser kept the stage
    // out of line with the step count as a run-time value). `SolvePath.dispatch` switches
    // without a default, so a solve cannot be dropped. The run-time solve after it is never
    // reached (`SolvePath` maps every Bezier to a solve). `Keep`: the parameters are kept.
    @inline(__always) func bezier<Keep: StaticFlag>(_: Keep.Type, _ p: UnsafePointer<CompiledPart>) -> Bool {
      let stage = ProgressStage<L, Keep>(
        part: p, timing: r, t: t, start: start, count: count, out: out, parameters: parameters)
      if p.pointee.solvePath.dispatch(stage) { return true }
      guard !p.pointee.curve.isSpring else { return false }
      stage.visit(RuntimeSolve.self)
      return true
    }
    let solved = withUnsafePointer(to: part) { p in parameters != nil ? bezier(Yes.self, p) : bezier(No.self, p) }
    if solved { return }
    switch part.curve {
    case .underdamped(let a, let wd, let b):
      springStage(L.self, UnderdampedSpring(a: a, wd: wd, b: b), part, r, t: t, start: start, count: count, into: out)
    case .critical(let w0, let c):
      springStage(L.self, CriticalSpring(w0: w0, c: c), part, r, t: t, start: start, count: count, into: out)
    case .overdamped(let a, let beta, let c, let slow, let fast):
      springStage(
        L.self, OverdampedSpring(a: a, beta: beta, c: c, slow: slow, fast: fast), part, r, t: t, start: start,
        count: count, into: out)
    case .bezier, .fittedBezier, .rootFittedBezier:
      break  // `bezier` above
    }
  }

  /// The Bezier loop of `progressStage`; `S` fixes the solve (`BezierSolve`); with `Keep`
  /// `Yes`, each lane's parameter s is stored to `parameters` too (`BezierSolve.solve`: the
  /// same progress bits), a type so the loop without it stays as it was.
  @inlinable
  static func bezierStage<L: FloatLanes, S: BezierSolve, Keep: StaticFlag>(
    _: L.Type, _: S.Type, _: Keep.Type, _ part: borrowing CompiledPart, _ r: PartTiming, t: Float, start: UnsafePointer<Float>,
    count: Int, into out: UnsafeMutablePointer<Float>, parameters: UnsafeMutablePointer<Float>? = nil
  ) {
    let c = part.bezier
    let dur = part.duration, inv = 1 / dur
    if r.simpleTiming {
      // `partLocalTime`'s simple case with every recipe constant in a local first (read
      // through `r` they were reloaded and re-tested per group), and the inactive lanes
      // as two selects at the end (no mask kept alive across the solve).
      let t0 = t - part.delay
      let before: Float = r.fillsBackwards ? -.infinity : 0
      let after: Float = r.fillsForwards ? .infinity : dur
      var i = 0
      while i < count {
        let st: L = loadGroup(start + i, count &- i)
        let ta = L(repeating: t0) - st
        // x = (t0 - start) / dur as one multiply-add (off the solve's critical path: the
        // selects below use ta). At ta = dur exactly it may round to 1 - ulp (the general
        // path below forces 1); a Float clock cannot resolve that instant, and from the
        // next representable time on x clamps to 1.
        let x = L.clamp(L.muladd(st, -inv, t0 * inv), 0, 1)
        progress(x, c, S.self, Keep.self, keepingAt: parameters, i)
          .replacing(with: L(repeating: 1), where: L.lt(ta, L(repeating: before)))
          .replacing(with: L(repeating: 1), where: L.ge(ta, L(repeating: after)))
          .store(to: out + i)
        i &+= L.width
      }
      return
    }
    var i = 0
    while i < count {
      let (local, inactive) = partLocalTime(part, r, start: loadGroup(start + i, count - i) as L, t: t)
      // x exactly 1 at the end (local * (1 / dur) can round below it, and keyframes that
      // jump at their end, such as a spring segment cut there, would show it).
      let x = L.clamp(local * inv, 0, 1).replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
      progress(x, c, S.self, Keep.self, keepingAt: parameters, i)
        .replacing(with: L(repeating: 1), where: inactive).store(to: out + i)
      i += L.width
    }
  }

  /// One lane group's progress by solve `S`; with `Keep` `Yes` its parameter is stored at
  /// `parameters + i` too. Inlining guaranteed (`@inline(always)`): with the hint alone the
  /// square-root fitted solve (easeIn, easeOut: the flips) stayed a call per group, its
  /// vectors passed through memory.
  @inlinable @inline(always)
  static func progress<L: FloatLanes, S: BezierSolve, Keep: StaticFlag>(
    _ x: L, _ c: BezierConstants, _: S.Type, _: Keep.Type, keepingAt parameters: UnsafeMutablePointer<Float>?, _ i: Int
  ) -> L {
    guard Keep.value else { return S.progress(x, c) }
    let solved: (progress: L, parameter: L) = S.solve(x, c)
    solved.parameter.store(to: parameters.unsafelyUnwrapped + i)
    return solved.progress
  }

  /// The opacity (or shadow opacity) stage of a block: the winning channel's value clamped
  /// to [0, 1], or `modelValue` where the recipe does not animate it, written straight to
  /// `out` for the block's `count` cells (a last partial group stores only its valid
  /// lanes).
  @inlinable @inline(__always)
  static func opacityStage<L: FloatLanes>(
    _: L.Type, _ channel: CompiledChannel?, modelValue: Float, progress: StagedProgress, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let w = L.width
    guard let ch = channel else {
      var i = 0
      while i + w <= count {
        L(repeating: modelValue).store(to: out + i)
        i += w
      }
      while i < count {
        out[i] = modelValue
        i += 1
      }
      return
    }
    let f = ch.from, d = ch.to - ch.from
    let usesGeometry = f.y != 0 || f.z != 0 || d.y != 0 || d.z != 0
    // Whole groups in one loop, the partial group after it (no tail code in the loop).
    @inline(__always) func group(_ i: Int, lanes: Int) {
      let p: L = progress(ch.part, i)
      var v: L
      if usesGeometry {
        let he: L = loadGroup(height + i, lanes), tw: L = loadGroup(tableWidth + i, lanes)
        v = channelValue(from: f, delta: d, progress: p, height: he, tableWidth: tw)
      } else {
        v = L.muladd(p, d.x, f.x)
      }
      v = L.clamp(v, 0, 1)
      if lanes == w {
        v.store(to: out + i)
      } else {
        for k in 0..<lanes { out[i + k] = v[lane: k] }
      }
    }
    var i = 0
    while i + w <= count {
      group(i, lanes: w)
      i += w
    }
    if i < count { group(i, lanes: count - i) }
  }
}
