// Presets and the scalar reference: start and end states worked out from the tutorials'
// numbers, the fold's sticky edge for any height, channel vs matrix tip-in, bad input.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

let cell = CellGeometry(width: 375, height: 80, tableWidth: 375)

/// Start state (at the cell's start time) and end state (long after) of a preset.
func states(_ r: Recipe, row: Int = 0, geometry: CellGeometry = cell) -> (start: CellState, end: CellState) {
  let delay = ReferenceEvaluator.staggerDelay(r.stagger, row: row, batchPosition: 0)
  return (
    ReferenceEvaluator.evaluate(r, geometry: geometry, row: row, startTime: 1, time: 1 + delay),
    ReferenceEvaluator.evaluate(r, geometry: geometry, row: row, startTime: 1, time: 100)
  )
}

@Suite("Presets: start and end states")
struct PresetTests {
  @Test("Every preset validates, ends at identity/opaque (or its end state)")
  func allValidate() throws {
    #expect(Recipe.presets.count == 16)
    for r in Recipe.presets {
      try r.validate()
      let end = states(r).end
      if r.fold == nil {
        // At rest every point of the cell is drawn where it lies (flips keep their m34,
        // which leaves z = 0 points unchanged).
        for corner in [Vector3(0, 0), Vector3(375, 0), Vector3(0, 80), Vector3(375, 80), Vector3(100, 30)] {
          let p = end.transform.apply(corner)
          #expect(abs(p.x - corner.x) < 1e-9 && abs(p.y - corner.y) < 1e-9, "\(r.name) end at \(corner)")
        }
        #expect(end.opacity == 1, "\(r.name) end opacity")
      }
    }
    #expect(throws: CellMotionError.self) { try Recipe.preset(named: "tipInn") }
    #expect(try Recipe.preset(named: "slideIn").name == "slideIn")
  }

  @Test("Tip-in: starts at the tutorial's matrix about the centre, opacity 0.8")
  func tipIn() {
    let (start, _) = states(.tipIn)
    let expected = Recipe.tipInStartTransform.about(Vector3(375 / 2, 40, 0))
    expectClose(start.transform, expected, tolerance: 1e-12, "tip-in start")
    #expect(abs(start.opacity - 0.8) < 1e-15)
    // Mid-way (0.2 s, easeInEaseOut gives progress 0.5 at the half time by symmetry).
    let mid = ReferenceEvaluator.evaluate(.tipIn, geometry: cell, startTime: 0, time: 0.2)
    #expect(abs(mid.opacity - 0.9) < 1e-12)
  }

  @Test("Tip-in channel form vs faithful matrix form: equal ends, how far apart mid-way")
  func tipInChannelVsMatrix() {
    var worstPoints = 0.0
    for i in 0...40 {
      let t = 0.4 * Double(i) / 40
      let a = ReferenceEvaluator.evaluate(.tipIn, geometry: cell, time: t).transform
      let b = ReferenceEvaluator.evaluate(.tipInChannels, geometry: cell, time: t).transform
      for corner in [Vector3(0, 0), Vector3(375, 0), Vector3(0, 80), Vector3(375, 80)] {
        let pa = a.apply(corner), pb = b.apply(corner)
        worstPoints = worstOf(worstPoints, ((pa.x - pb.x) * (pa.x - pb.x) + (pa.y - pb.y) * (pa.y - pb.y)).squareRoot())
      }
      if i == 0 || i == 40 { expectClose(a, b, tolerance: 1e-12, "tip-in forms at t = \(t)") }
    }
    // Measured: the two forms differ by ~1.85 points at a corner of a 375 x 80 cell
    // mid-way (documented on Recipe.tipInChannels).
    print("tip-in channel vs matrix form: worst corner distance \(worstPoints) points")
    #expect(worstPoints > 0.01 && worstPoints < 3, "worst corner distance \(worstPoints)")
  }

  @Test("Fades, stagger, move up, slide in: tutorial numbers")
  func channelPresets() throws {
    #expect(abs(states(.fade).start.opacity - 0.1) < 1e-15)
    #expect(states(.fadeIn).start.opacity == 0)
    // Fade with stagger: row 7 starts 0.35 s late; before that it holds alpha 0.
    let s7 = ReferenceEvaluator.evaluate(.fadeStagger, geometry: cell, row: 7, startTime: 0, time: 0.34)
    #expect(s7.opacity == 0)
    let s7b = ReferenceEvaluator.evaluate(.fadeStagger, geometry: cell, row: 7, startTime: 0, time: 0.35 + 0.25)
    #expect(abs(s7b.opacity - 0.5) < 1e-12)
    // Move up with bounce: starts one row height down, overshoots (damping 0.4), ends at 0.
    let (bs, be) = states(.moveUpBounce, row: 3)
    #expect(abs(bs.transform.m42 - 80) < 1e-12)
    #expect(be.transform.m42 == 0)
    var minY = Double.infinity
    for i in 0...1000 {
      let y = ReferenceEvaluator.evaluate(.moveUpBounce, geometry: cell, startTime: 0, time: Double(i) / 1000).transform.m42
      minY = min(minY, y)
    }
    #expect(minY < -10, "damping 0.4 overshoots above the rest position: min y \(minY)")
    // Move up with fade: half a row, alpha 0.
    let (ms, _) = states(.moveUpFade)
    #expect(abs(ms.transform.m42 - 40) < 1e-12 && ms.opacity == 0)
    // Slide in from the right edge of a 500-point table.
    let wide = CellGeometry(width: 375, height: 80, tableWidth: 500)
    #expect(abs(states(.slideIn, geometry: wide).start.transform.m41 - 500) < 1e-12)
  }

  @Test("Flips: edge-on at the start (the cell projects to a line)")
  func flips() {
    let x = states(.flipX).start.transform
    // rotation.x = pi/2 about the centre: top and bottom edges project onto y = 40.
    #expect(abs(x.apply(Vector3(0, 0)).y - 40) < 1e-9 && abs(x.apply(Vector3(0, 80)).y - 40) < 1e-9)
    let y = states(.flipY).start.transform
    #expect(abs(y.apply(Vector3(0, 0)).x - 187.5) < 1e-9 && abs(y.apply(Vector3(375, 0)).x - 187.5) < 1e-9)
  }
}

@Suite("Fold open/closed")
struct FoldTests {
  @Test("The halves meet exactly at every sampled time, for heights 20 to 2000 points")
  func halvesMeet() {
    var tracker = ErrorTracker("fold edge gap (points)", tolerance: 1e-9)
    var h = 20.0
    while h <= 2000 {
      for direction in [Recipe.foldOpen, Recipe.foldClosed] {
        for i in 0...60 {
          let t = 0.3 * Double(i) / 60
          let g = CellGeometry(width: 320, height: h)
          let f = ReferenceEvaluator.evaluate(direction, geometry: g, time: t).fold!
          for x in [0.0, 80, 160, 320] {
            let top = f.top.apply(Vector3(x, h / 2))
            let bottom = f.bottom.apply(Vector3(x, 0))
            let gap = ((top.x - bottom.x) * (top.x - bottom.x) + (top.y - bottom.y) * (top.y - bottom.y)).squareRoot()
            tracker.record(gap, 0, "\(direction.name) h=\(h) t=\(t) x=\(x)")
          }
        }
      }
      h *= 1.17
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("Fold open: edge-on and shadowed at the start, flat and clear at the end; closing reverses")
  func foldEnds() {
    let g = CellGeometry(width: 320, height: 200)
    let start = ReferenceEvaluator.evaluate(.foldOpen, geometry: g, time: 0).fold!
    #expect(abs(start.angle + Double.pi / 2) < 1e-15 && start.topShadowOpacity == 1)
    // Edge-on: the top half's bottom edge projects onto its hinge (y = 0).
    #expect(abs(start.top.apply(Vector3(0, 100)).y) < 1e-9)
    let end = ReferenceEvaluator.evaluate(.foldOpen, geometry: g, time: 1).fold!
    // Flat: each half is drawn where it rests (the m34 leaves z = 0 points alone).
    for corner in [Vector3(0, 0), Vector3(320, 0), Vector3(0, 100), Vector3(320, 100)] {
      let top = end.top.apply(corner), bottom = end.bottom.apply(corner)
      #expect(abs(top.x - corner.x) < 1e-9 && abs(top.y - corner.y) < 1e-9, "top flat at \(corner)")
      #expect(abs(bottom.x - corner.x) < 1e-9 && abs(bottom.y - corner.y - 100) < 1e-9, "bottom below at \(corner)")
    }
    #expect(end.bottomShadowOpacity == 0)
    for t in [0.0, 0.07, 0.15, 0.3] {
      let o = ReferenceEvaluator.evaluate(.foldOpen, geometry: g, time: t).fold!
      let c = ReferenceEvaluator.evaluate(.foldClosed, geometry: g, time: 0.3 - t).fold!
      expectClose(o.top, c.top, tolerance: 1e-9, "open(t) = closed(0.3 - t)")
    }
  }
}

@Suite("Recipe validation")
struct RecipeValidationTests {
  @Test("NaN, infinite, negative and zero numbers are typed errors naming the field")
  func badNumbers() {
    var r = Recipe.fadeIn
    r.channels[0].duration = 0
    #expect(throws: CellMotionError.outOfRange(field: "fadeIn.channels[0].duration", value: 0, expected: "in [1e-6, 1e5]")) {
      try r.validate()
    }
    r = .fadeIn
    r.channels[0].delay = -1
    #expect(throws: CellMotionError.self) { try r.validate() }
    r = .fadeIn
    r.channels[0].to = ChannelValue(.nan)
    // NaN != NaN, so match the error by its case and field rather than by ==.
    let e = #expect(throws: CellMotionError.self) { try r.validate() }
    if case .notFinite(let field, _) = e { #expect(field == "fadeIn.channels[0].to.constant") } else {
      Issue.record("expected notFinite, got \(String(describing: e))")
    }
    r = .fadeIn
    r.stagger = Stagger(step: .infinity)
    #expect(throws: CellMotionError.self) { try r.validate() }
    r = .flipX
    r.perspectiveDistance = 0
    #expect(throws: CellMotionError.self) { try r.validate() }
    r = .tipIn
    r.matrix!.from.m11 = .nan
    #expect(throws: CellMotionError.self) { try r.validate() }
    #expect(throws: CellMotionError.self) { try CellGeometry(width: 0, height: 10).validate() }
    #expect(throws: CellMotionError.self) { try CellGeometry(width: 10, height: .nan).validate() }
  }

  @Test("Recipes round-trip through JSON")
  func codable() throws {
    for r in Recipe.presets {
      let data = try JSONEncoder().encode(r)
      let back = try JSONDecoder().decode(Recipe.self, from: data)
      #expect(back == r, "\(r.name)")
    }
  }
}

@Suite("Recipe.settleTime")
struct SettleTimeTests {
  /// Worked cases of the rule: a Bezier part rests at delay + duration; a spring part
  /// that plays once at delay + min(settling, duration) / speed; a repeating or
  /// autoreversing part at delay + its active duration; the latest part wins; the stagger
  /// adds step x row (or batch position); repeating forever never settles.
  @Test("Bezier, spring once, repeats, speed, stagger, forever")
  func worked() throws {
    let fast = try Spring(mass: 1, stiffness: 400, damping: 40)  // critically damped, w0 = 20
    let settle = fast.settlingDuration
    #expect(settle > 0.3 && settle < 1, "\(settle)")
    let bezier = ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeOut), duration: 0.4, delay: 0.1)
    let spring = ChannelAnimation(.translationY, from: 40, to: 0, curve: .spring(fast), duration: 2, delay: 0.05)
    #expect(Recipe(name: "b", channels: [bezier]).settleTime == 0.5)
    #expect(Recipe(name: "s", channels: [spring]).settleTime == 0.05 + settle)
    #expect(Recipe(name: "both", channels: [bezier, spring]).settleTime == max(0.5, 0.05 + settle))
    // A spring longer than its duration is cut at the duration (UIKit removes it).
    var short = spring
    short.duration = 0.2
    #expect(Recipe(name: "cut", channels: [short]).settleTime == 0.05 + 0.2)
    // Speed 2 halves the times; repeats and autoreverse run to the active end.
    #expect(Recipe(name: "fast", channels: [spring], timing: RecipeTiming(speed: 2)).settleTime == 0.05 + settle / 2)
    #expect(Recipe(name: "rep", channels: [spring], timing: RecipeTiming(repeatCount: 2)).settleTime == 0.05 + 4)
    #expect(Recipe(name: "rev", channels: [bezier], timing: RecipeTiming(autoreverses: true)).settleTime == 0.1 + 0.8)
    #expect(Recipe(name: "forever", channels: [bezier], timing: RecipeTiming(repeatCount: .infinity)).settleTime == .infinity)
    // The stagger: 0.05 s x row 3, or x batch position 2.
    let staggered = Recipe(name: "st", channels: [bezier], stagger: Stagger(step: 0.05, base: .row))
    #expect(abs(staggered.settleTime(row: 3, batchPosition: 2) - (0.15 + 0.5)) < 1e-15)
    let byBatch = Recipe(name: "sb", channels: [bezier], stagger: Stagger(step: 0.05, base: .batchPosition))
    #expect(abs(byBatch.settleTime(row: 3, batchPosition: 2) - (0.1 + 0.5)) < 1e-15)
    // The fold counts, from the cell's start.
    #expect(Recipe.foldOpen.settleTime == Recipe.foldOpen.fold!.duration)
  }
}

@Suite("Reduce motion")
struct ReduceMotionTests {
  let geometry = CellGeometry(width: 375, height: 80, tableWidth: 375, detailHeight: 120)

  func state(_ r: Recipe, _ t: Double, _ motion: MotionPolicy?) -> CellState {
    ReferenceEvaluator.evaluate(r, geometry: geometry, row: 3, startTime: 0, time: t, motion: motion)
  }

  func sameTransform(_ a: Transform3D, _ b: Transform3D) -> Bool {
    (0..<16).allSatisfy { abs(a[$0 / 4, $0 % 4] - b[$0 / 4, $0 % 4]) < 1e-9 }
  }

  /// `.none`: at every time (in the delay, mid-way, after) the cell shows the state the
  /// full recipe reaches at its end.
  @Test("none: the end state at every time, every preset")
  func none() {
    for r in Recipe.presets {
      let end = state(r, 100, .full)
      for t in [-0.5, 0, 0.05, 0.2, 0.4, 1] {
        let s = state(r, t, MotionPolicy.none)
        #expect(sameTransform(s.transform, end.transform) && s.opacity == end.opacity, "\(r.name) t \(t)")
        if let f = s.fold, let e = end.fold { #expect(sameTransform(f.top, e.top) && sameTransform(f.bottom, e.bottom)) }
      }
    }
  }

  /// `.reduced`: the transform is the end transform at every time; opacity animates as the
  /// full recipe's (tip-in: 0.8 -> 1 on easeInEaseOut); a recipe that moves without an
  /// opacity channel (slideIn) cross-fades 0 -> 1 on easeInEaseOut over its motion's time.
  @Test("reduced: transforms held, opacity kept, a cross-fade where there was none")
  func reduced() throws {
    for r in Recipe.presets {
      let end = state(r, 100, .full)
      for t in [0, 0.1, 0.25, 0.5] {
        let s = state(r, t, .reduced)
        #expect(sameTransform(s.transform, end.transform), "\(r.name) t \(t)")
        if r.channels.contains(where: { $0.channel == .opacity }) {
          #expect(s.opacity == state(r, t, .full).opacity, "\(r.name) t \(t)")
        }
      }
    }
    let slide = Recipe.slideIn
    let fade = try #require(slide.reducedMotionCrossFade)
    #expect(fade.channel == .opacity && fade.from == 0 && fade.to == 1 && fade.curve == .bezier(.easeInEaseOut))
    #expect(fade.duration == slide.channels[0].duration)
    let stagger = ReferenceEvaluator.staggerDelay(slide.stagger, row: 3, batchPosition: 0)
    let mid = fade.delay + fade.duration / 2 + stagger
    #expect(state(slide, 0, .reduced).opacity == 0)
    #expect(abs(state(slide, mid, .reduced).opacity - TimingCurve.easeInEaseOut.value(at: 0.5)) < 1e-12)
    #expect(state(slide, 100, .reduced).opacity == 1)
    // The recipe's own policy, and a batch's override of it.
    var own = slide
    own.motion = .reduced
    #expect(state(own, mid, nil).opacity == state(slide, mid, .reduced).opacity)
    #expect(state(own, mid, .full).opacity == state(slide, mid, .full).opacity)
    #expect(Recipe.tipIn.reducedMotionCrossFade == nil, "tip-in keeps its own opacity channel")
  }
}

extension SettleTimeTests {
  /// Under the recipe's own policy: `.none` never moves; `.reduced` counts what still
  /// animates (tip-in: its opacity, 0.4 s; slideIn: its cross-fade).
  @Test("settleTime follows the recipe's motion policy")
  func motion() {
    var none = Recipe.moveUpBounce
    none.motion = .none
    #expect(none.settleTime == 0)
    var tip = Recipe.tipIn
    tip.motion = .reduced
    #expect(tip.settleTime == 0.4)
    var slide = Recipe.slideIn
    slide.motion = .reduced
    let fade = slide.reducedMotionCrossFade!
    #expect(slide.settleTime == fade.delay + fade.duration)
  }
}
