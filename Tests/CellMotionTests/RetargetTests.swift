// Retargeting in the reference (issue 15): every policy on every kind of running curve,
// at random times, continuous in position, and in velocity exactly where the policy says
// (measured by second-order one-sided finite differences on each side of the instant);
// additive stacks reaching their target; the guard; the spring pieces against
// independent truth (Core Animation's normalised spring, differences in v0).

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("Retargeting (reference)")
struct RetargetTests {
  static let geometry = CellGeometry(width: 320, height: 60, tableWidth: 320)

  /// Running animations of every curve kind: Bezier presets, an overshooting Bezier,
  /// springs in the three regimes, keyframes (cubic, with spring segments), and media
  /// timing with speed, repeats and autoreverse.
  static func bases() throws -> [(String, RecipeChannel)] {
    var curves: [(String, AnimationCurve)] = TimingCurve.presets.map { ($0.name, .bezier($0.curve)) }
    curves.append(("overshoot", .bezier(try TimingCurve(x1: 0.3, y1: -0.4, x2: 0.6, y2: 1.4))))
    for (name, zeta) in [("underdamped", 0.35), ("critical", 1.0), ("overdamped", 2.2)] {
      let k = 220.0
      curves.append((name, .spring(try Spring(stiffness: k, damping: zeta * 2 * k.squareRoot(), initialVelocity: 0.4))))
    }
    var out: [(String, RecipeChannel)] = curves.map { name, curve in
      let c = ChannelAnimation(.translationY, from: .cellHeight(2), to: 0, curve: curve, duration: 0.6, delay: 0.05)
      return (name, RecipeChannel(animation: c, timing: .uiKit, start: 0.1, held: false, geometry: geometry))
    }
    let keys = ChannelKeyframes(
      values: [0, -20, 35, -10, 0], keyTimes: [0, 0.2, 0.5, 0.8, 1],
      timingFunctions: [.bezier(.easeIn), .spring(try Spring(stiffness: 300, damping: 18)), .bezier(.linear), .bezier(.easeOut)],
      mode: .cubic)
    let kf = ChannelAnimation(.translationX, keyframes: keys, duration: 0.7)
    out.append(("keyframes", RecipeChannel(animation: kf, timing: .uiKit, start: 0.1, held: false, geometry: geometry)))
    let timed = ChannelAnimation(.rotationZ, from: -0.5, to: 0.2, curve: .bezier(.easeInEaseOut), duration: 0.25)
    out.append((
      "speed 1.5, 2 repeats, autoreverse",
      RecipeChannel(
        animation: timed, timing: RecipeTiming(speed: 1.5, repeatCount: 2, autoreverses: true, fillMode: .both),
        start: 0.1, held: false, geometry: geometry)
    ))
    return out
  }

  static func policies() throws -> [(String, RetargetPolicy)] {
    let under = try Spring(stiffness: 260, damping: 0.4 * 2 * 260.0.squareRoot())
    let critical = try Spring(stiffness: 180, damping: 2 * 180.0.squareRoot())
    let over = try Spring(stiffness: 150, damping: 1.7 * 2 * 150.0.squareRoot())
    return [
      ("additive easeInEaseOut", .additive(curve: .bezier(.easeInEaseOut), duration: 0.35)),
      ("additive easeIn", .additive(curve: .bezier(.easeIn), duration: 0.3)),
      ("additive spring", .additive(curve: .spring(under), duration: 0.8)),
      ("additive linear", .additive(curve: .bezier(.linear), duration: 0.3)),
      // Starts moving (slope 2.5). Not easeOut: its first control point sits on the start,
      // so its slope near 0 changes like sqrt(t), beyond what differences can resolve.
      ("additive quick start", .additive(curve: .bezier(try TimingCurve(x1: 0.2, y1: 0.5, x2: 0.4, y2: 1)), duration: 0.3)),
      ("carry underdamped", .carryVelocity(spring: under)),
      ("carry critical", .carryVelocity(spring: critical)),
      ("carry overdamped", .carryVelocity(spring: over)),
      ("carry underdamped, guard", .carryVelocity(spring: under, dropsOpposingVelocity: true)),
      ("carry overdamped, guard", .carryVelocity(spring: over, dropsOpposingVelocity: true)),
      ("from current state easeInEaseOut", .fromCurrentState(curve: .bezier(.easeInEaseOut), duration: 0.3)),
      ("from current state spring", .fromCurrentState(curve: .spring(critical), duration: 0.7)),
      ("from current state linear", .fromCurrentState(curve: .bezier(.linear), duration: 0.25)),
    ]
  }

  /// Fourth-order one-sided differences of `f` at `x`: (left, right) slopes, truncation
  /// error h^4 f^(5) / 5 (below 1e-7 relative for the stiffest spring here at h = 1e-4).
  static func sides(_ f: (Double) -> Double, at x: Double, h: Double = 1e-4) -> (left: Double, right: Double) {
    func slope(_ h: Double) -> Double {
      (25 * f(x) - 48 * f(x - h) + 36 * f(x - 2 * h) - 16 * f(x - 3 * h) + 3 * f(x - 4 * h)) / (12 * h)
    }
    return (slope(h), slope(-h))
  }

  static func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(1, abs(b)) }

  /// The velocity each policy starts with at the retarget: the closed form of what it keeps.
  static func expectedStartVelocity(
    _ policy: RetargetPolicy, before: ChannelMotion, target: Double, at t: Double
  ) -> Double {
    let v = before.velocity(at: t), p = before.value(at: t)
    switch policy {
    case .additive(let curve, let duration):
      return v + (target - before.target) * curve.velocity(localTime: 0, duration: duration)
    case .carryVelocity(_, let drops):
      return drops && v * (target - p) <= 0 ? 0 : v
    case .fromCurrentState(let curve, let duration):
      return (target - p) * curve.velocity(localTime: 0, duration: duration)
    }
  }

  @Test("every policy x every running curve x random times: position continuous, velocity as the policy says")
  func continuity() throws {
    var g = SeededGenerator(seed: 0x4E7A_4E7)
    var position = ErrorTracker("position jump at the retarget (relative)", tolerance: 1e-9)
    var velocity = ErrorTracker("velocity after - policy's start velocity (differences, relative)", tolerance: 1e-6)
    var closed = ErrorTracker("closed-form velocity vs differences, both sides (relative)", tolerance: 1e-6)
    var continuous = ErrorTracker("velocity after - before where the policy keeps it (relative)", tolerance: 1e-6)
    var kept = 0, dropped = 0
    for (baseName, base) in try Self.bases() {
      for (policyName, policy) in try Self.policies() {
        for _ in 0..<12 {
          let before = ChannelMotion(base)
          // Not in the first 0.02 s of a base (easeOut's slope changes like sqrt(t) there).
          let t = g.uniform(0.17...0.95)
          let (l0, r0) = Self.sides({ before.value(at: $0) }, at: t)
          // Not at a kink of the running motion (a key time, an iteration's turn).
          guard Self.relative(l0, r0) < 1e-4 else { continue }
          let target = g.uniform(-150...150)
          var after = before
          try after.retarget(to: target, at: t, policy: policy)
          let context = "\(baseName) / \(policyName) t=\(t) target=\(target)"
          position.record(Self.relative(after.value(at: t), before.value(at: t)), 0, context)
          let right = Self.sides({ after.value(at: $0) }, at: t).right
          let expected = Self.expectedStartVelocity(policy, before: before, target: target, at: t)
          velocity.record(Self.relative(right, expected), 0, context)
          closed.record(Self.relative(before.velocity(at: t), l0), 0, context + " before")
          closed.record(Self.relative(after.velocity(at: t), right), 0, context + " after")
          // The policies that keep the velocity keep it exactly.
          let flatStart: Bool
          switch policy {
          case .additive(let c, let d): flatStart = c.velocity(localTime: 0, duration: d) == 0
          case .carryVelocity(_, let drops): flatStart = !drops || l0 * (target - before.value(at: t)) > 0
          case .fromCurrentState: flatStart = false
          }
          if flatStart {
            continuous.record(Self.relative(right, l0), 0, context)
            kept += 1
          } else {
            dropped += 1
          }
        }
      }
    }
    for tracker in [position, velocity, closed, continuous] { print(tracker) }
    print("velocity kept at \(kept) retargets, changed by the policy's rule at \(dropped)")
    #expect(kept > 800 && dropped > 300)
    for tracker in [position, velocity, closed, continuous] { #expect(tracker.passed, "\(tracker)") }
  }

  @Test("the curves UIKit uses for additive retargets start at rest, so their sums keep the velocity")
  func additiveDefaultsStartAtRest() throws {
    #expect(AnimationCurve.bezier(.easeInEaseOut).velocity(localTime: 0, duration: 0.3) == 0)
    #expect(AnimationCurve.bezier(.easeIn).velocity(localTime: 0, duration: 0.3) == 0)
    #expect(AnimationCurve.spring(try Spring()).velocity(localTime: 0, duration: 1) == 0)
    // Linear does not: a = 1 distance per duration.
    #expect(abs(AnimationCurve.bezier(.linear).velocity(localTime: 0, duration: 0.25) - 4) < 1e-12)
    if case .additive(let c, _) = RetargetPolicy.uiKit { #expect(c == .bezier(.easeInEaseOut)) }
  }

  @Test("each motion reaches its last target and stays there; additive stacks sum to it")
  func reachesTarget() throws {
    var g = SeededGenerator(seed: 0x7A_46E7)
    var reach = ErrorTracker("value after the end - last target (relative)", tolerance: 1e-9)
    var settle = ErrorTracker("carrying segment: |value - target| / (restFraction x scale) after its end", tolerance: 1)
    var stacked = ErrorTracker("stacked retargets: position, and velocity by the policy's rule (relative)", tolerance: 1e-9)
    let policies = try Self.policies()
    for (baseName, base) in try Self.bases() {
      for _ in 0..<30 {
        var m = ChannelMotion(base)
        var t = 0.1
        var target = 0.0
        for _ in 0..<(1 + Int(g.next() % 4)) {
          t += g.uniform(0.02...0.3)
          target = g.uniform(-150...150)
          let (name, policy) = policies[Int(g.next() % UInt64(policies.count))]
          let before = m
          do {
            try m.retarget(to: target, at: t, policy: policy)
            // Stacked and mixed retargets keep the same rules as a first one.
            stacked.record(Self.relative(m.value(at: t), before.value(at: t)), 0, "\(baseName) \(name) position")
            let expected = Self.expectedStartVelocity(policy, before: before, target: target, at: t)
            stacked.record(Self.relative(m.velocity(at: t), expected), 0, "\(baseName) \(name) velocity")
          } catch {
            // Only a fifth running additive layer is refused.
            #expect(m.layers.filter { $0.end > t }.count == ChannelMotion.maxLayers, "\(name): \(error)")
            target = m.target
          }
        }
        #expect(abs(m.target - target) <= 1e-9 * max(1, abs(target)))
        for dt in [0.0, 0.01, 1, 100] {
          reach.record(Self.relative(m.value(at: m.endTime + dt), target), 0, "\(baseName) end+\(dt)")
        }
        if case .segment(let s) = m.base, case .carrying(let spring) = s.kind, m.layers.isEmpty {
          let scale = max(abs(s.to - s.from), abs(s.velocity) / spring.naturalFrequency)
          // The bound holds from the end on; sample the last stretch densely.
          for i in 0..<200 {
            let time = s.end + Double(i) * 0.002
            let r = abs(s.from + (s.to - s.from) * spring.value(at: time - s.begin)
              + s.velocity * spring.impulseResponse(at: time - s.begin) - s.to)
            if scale > 0 { settle.record(r / (MotionSegment.restFraction * scale), 0, "\(baseName) i=\(i)") }
          }
        }
      }
    }
    print(reach)
    print(settle)
    print(stacked)
    #expect(stacked.passed, "\(stacked)")
    #expect(reach.passed, "\(reach)")
    #expect(settle.passed, "\(settle)")
  }

  @Test("additive stacks: at most four running layers per channel; finished ones fold into a constant")
  func additiveStacks() throws {
    let (_, base) = try Self.bases()[0]
    var m = ChannelMotion(base)
    let policy = RetargetPolicy.additive(curve: .bezier(.easeInEaseOut), duration: 0.5)
    for (k, t) in [0.2, 0.25, 0.3, 0.35].enumerated() {
      try m.retarget(to: Double(k + 1) * 10, at: t, policy: policy)
    }
    #expect(m.layers.count == 4)
    #expect(throws: CellMotionError.self) { try m.retarget(to: 50, at: 0.4, policy: policy) }
    // At 0.72 the first layer (0.2 + 0.5) has ended: it folds into the offset.
    let before = m.value(at: 0.72)
    try m.retarget(to: 50, at: 0.72, policy: policy)
    #expect(m.layers.count == 4)
    #expect(m.offset != 0)
    #expect(abs(m.value(at: 0.72) - before) < 1e-12)
    #expect(abs(m.value(at: m.endTime) - 50) < 1e-12)
    // A replacing policy clears the stack.
    try m.retarget(to: -5, at: 0.8, policy: .carryVelocity(spring: try Spring()))
    #expect(m.layers.isEmpty && m.offset == 0)
  }

  @Test("the guard drops only velocity that points away from the new target")
  func guardDropsOnlyOpposingVelocity() throws {
    let spring = try Spring(stiffness: 200, damping: 12)
    let c = ChannelAnimation(.translationX, from: 100, to: 0, curve: .bezier(.linear), duration: 1)
    let base = RecipeChannel(animation: c, timing: .uiKit, start: 0, held: false, geometry: Self.geometry)
    // At t = 0.5 the value is 50 moving at -100 per second (toward 0).
    for (target, keeps) in [(-30.0, true), (20.0, true), (80.0, false), (50.0, false)] {
      var m = ChannelMotion(base)
      try m.retarget(to: target, at: 0.5, policy: .carryVelocity(spring: spring, dropsOpposingVelocity: true))
      let v = m.velocity(at: 0.5)
      #expect(keeps ? abs(v + 100) < 1e-9 : v == 0, "target \(target): velocity \(v)")
      var unguarded = ChannelMotion(base)
      try unguarded.retarget(to: target, at: 0.5, policy: .carryVelocity(spring: spring))
      #expect(abs(unguarded.velocity(at: 0.5) + 100) < 1e-9)
    }
  }

  @Test("a carrying segment equals Core Animation's spring with initialVelocity = velocity / distance")
  func carryingMatchesCoreAnimationUnit() throws {
    var g = SeededGenerator(seed: 0xCA_5E6)
    var tracker = ErrorTracker("segment vs CASpringAnimation form (relative to the distance)", tolerance: 1e-12)
    for zeta in [0.2, 0.7, 1.0, 1.5, 3.0] {
      let k = 150.0
      let spring = try Spring(stiffness: k, damping: zeta * 2 * k.squareRoot())
      for _ in 0..<20 {
        let from = g.uniform(-100...100), to = g.uniform(-100...100), v = g.uniform(-800...800)
        let s = try MotionSegment(from: from, to: to, velocity: v, spring: spring, begin: 1)
        let v0 = try #require(s.coreAnimationInitialVelocity)
        guard abs(v0) <= InputLimits.springVelocity.upperBound else { continue }
        let ca = try Spring(stiffness: k, damping: zeta * 2 * k.squareRoot(), initialVelocity: v0)
        for i in 0..<50 {
          let tau = Double(i) * 0.01
          guard 1 + tau < s.end else { continue }
          let expected = from + (to - from) * ca.value(at: tau)
          tracker.record((s.value(at: 1 + tau) - expected) / max(1, abs(to - from)), 0, "zeta \(zeta) tau \(tau)")
        }
      }
    }
    #expect(try MotionSegment(from: 3, to: 3, velocity: 10, spring: try Spring(), begin: 0).coreAnimationInitialVelocity == nil)
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("impulse response: the derivative of the spring's motion in its initial velocity, and its own velocity")
  func impulseResponse() throws {
    var tracker = ErrorTracker("g vs dx/dv0 and g' vs central difference (relative)", tolerance: 1e-7)
    for zeta in [0.0, 0.3, 1.0, 1.0 + 1e-10, 2.5] {
      let k = 90.0
      let s = try Spring(stiffness: k, damping: zeta * 2 * k.squareRoot())
      let kicked = try Spring(stiffness: k, damping: zeta * 2 * k.squareRoot(), initialVelocity: 2)
      #expect(s.impulseResponse(at: 0) == 0 && s.impulseResponseVelocity(at: 0) == 1)
      for i in 1..<100 {
        let t = Double(i) * 0.013
        // x is affine in v0: (x_2(t) - x_0(t)) / 2 = g(t) exactly.
        tracker.record((kicked.value(at: t) - s.value(at: t)) / 2, s.impulseResponse(at: t), "zeta \(zeta) t \(t)")
        let h = 1e-6
        let d = (s.impulseResponse(at: t + h) - s.impulseResponse(at: t - h)) / (2 * h)
        tracker.record(Self.relative(s.impulseResponseVelocity(at: t), d), 0, "g' zeta \(zeta) t \(t)")
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("reverse goes back to the recipe's start value; a held channel jumps (reduce motion)")
  func reverseAndHeld() throws {
    let recipe = Recipe.slideIn
    var m = try ChannelMotion(recipe, channel: .translationX, geometry: Self.geometry)
    let startValue = m.startValue
    #expect(startValue == 320)
    try m.reverse(at: 0.1, policy: .fromCurrentState(curve: .bezier(.easeInEaseOut), duration: 0.3))
    #expect(m.value(at: m.endTime) == startValue)
    var held = try ChannelMotion(recipe, channel: .translationX, geometry: Self.geometry, motion: .reduced)
    #expect(held.value(at: 0.1) == 0)
    try held.retarget(to: 40, at: 0.1, policy: .carryVelocity(spring: try Spring()))
    #expect(held.value(at: 0.1 + 1e-6) == 40 && held.velocity(at: 0.2) == 0)
  }

  @Test("bad retargets are typed errors: a channel the recipe does not animate, NaN, out-of-range values")
  func badRetargets() throws {
    let recipe = Recipe.fadeIn
    #expect(throws: CellMotionError.self) { try ChannelMotion(recipe, channel: .rotationZ, geometry: Self.geometry) }
    var m = try ChannelMotion(recipe, channel: .opacity, geometry: Self.geometry)
    let policy = RetargetPolicy.uiKit
    #expect(throws: CellMotionError.self) { try m.retarget(to: .nan, at: 0.1, policy: policy) }
    #expect(throws: CellMotionError.self) { try m.retarget(to: 1e7, at: 0.1, policy: policy) }
    #expect(throws: CellMotionError.self) { try m.retarget(to: 0.5, at: .infinity, policy: policy) }
    #expect(throws: CellMotionError.self) {
      try m.retarget(to: 0.5, at: 0.1, policy: .additive(curve: .bezier(.linear), duration: -1))
    }
    #expect(m == (try ChannelMotion(recipe, channel: .opacity, geometry: Self.geometry)), "unchanged after errors")
  }

  /// The fold as a motion is the fold progress the reference evaluates (every fold preset,
  /// both directions, media timing with repeats and autoreverse, reduce motion), so a
  /// retargeted fold starts exactly where the running one is; and the halves at the
  /// motion's value equal `foldState` at that progress.
  @Test("a fold as a motion: the reference's own fold progress, and the halves at its value")
  func foldMotion() throws {
    let geometry = CellGeometry(width: 320, height: 60, detailHeight: 140)
    var recipes = Recipe.presets.filter { $0.fold != nil }
    var timed = Recipe.foldOpen
    timed.timing = RecipeTiming(speed: 1.5, repeatCount: 2.5, autoreverses: true, fillMode: .both)
    recipes.append(timed)
    var checked = 0
    for recipe in recipes {
      for policy in MotionPolicy.allCases {
        let m = try ChannelMotion(foldOf: recipe, geometry: geometry, row: 3, startTime: 0.1, motion: policy)
        for k in 0...40 {
          let t = Double(k) * 0.05 - 0.2
          let plain = ReferenceEvaluator.evaluate(recipe, geometry: geometry, row: 3, startTime: 0.1, time: t, motion: policy)
          let viaMotion = ReferenceEvaluator.evaluate(
            recipe, geometry: geometry, row: 3, startTime: 0.1, time: t, motion: policy, retargeted: [], fold: m)
          #expect(plain.fold == viaMotion.fold, "\(recipe.name) \(policy) t=\(t)")
          checked += 1
        }
      }
    }
    #expect(checked == recipes.count * MotionPolicy.allCases.count * 41)
    // Retargeted back mid-way: continuous at the instant, heading to 0 (folded for an
    // opening recipe: the top half's angle -pi/2).
    var m = try ChannelMotion(foldOf: .foldOpen, geometry: geometry)
    let t0 = 0.17, p0 = m.value(at: t0)
    try m.retarget(to: 0, at: t0, policy: .carryVelocity(spring: try Spring(stiffness: 300, damping: 35)))
    #expect(abs(m.value(at: t0) - p0) < 1e-12 && p0 > 0.2 && p0 < 0.9)
    let end = ReferenceEvaluator.evaluate(.foldOpen, geometry: geometry, time: m.endTime, retargeted: [], fold: m)
    #expect(abs(end.fold!.angle + .pi / 2) < 1e-12)
    #expect(throws: CellMotionError.self) { try ChannelMotion(foldOf: .fadeIn, geometry: geometry) }
  }
}
