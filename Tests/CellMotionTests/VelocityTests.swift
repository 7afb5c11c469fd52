// Velocities in closed form (issue 15, step 1: the reference) against central finite
// differences of the values they differentiate: curves, keyframe tracks in every mode,
// media timing (speed, repeats, autoreverse, fills) and whole recipes.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("Velocities")
struct VelocityTests {
  /// Central difference of `f` at `x` with step `h`, and whether `x` is away from a kink:
  /// the one-sided differences agree there (relatively, 1e-3), so the derivative exists.
  func difference(_ f: (Double) -> Double, at x: Double, h: Double) -> (slope: Double, smooth: Bool) {
    let left = (f(x) - f(x - h)) / h, right = (f(x + h) - f(x)) / h
    let smooth = abs(left - right) <= 1e-3 * max(1, abs(left), abs(right))
    return ((f(x + h) - f(x - h)) / (2 * h), smooth)
  }

  func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(1, abs(b)) }

  @Test("curves: a Bezier's slope over its duration and a spring's x'(t), per second of local time")
  func curves() throws {
    var tracker = ErrorTracker("curve velocity vs central difference (relative)", tolerance: 1e-6)
    var curves: [AnimationCurve] = [.bezier(.easeIn), .bezier(.easeOut), .bezier(.easeInEaseOut), .bezier(.linear)]
    for zeta in [0.3, 1.0, 2.5] {
      let k = 200.0
      curves.append(.spring(try Spring(mass: 1, stiffness: k, damping: zeta * 2 * k.squareRoot(), initialVelocity: 0.7)))
    }
    for curve in curves {
      for i in 1..<100 {
        let t = 0.6 * Double(i) / 100
        let d = difference({ curve.progress(localTime: $0, duration: 0.6) }, at: t, h: 1e-6)
        guard d.smooth else { continue }
        tracker.record(relative(curve.velocity(localTime: t, duration: 0.6), d.slope), 0, "\(curve) t=\(t)")
      }
      #expect(curve.velocity(localTime: 0.7, duration: 0.6) == 0, "ended")
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("keyframe slopes in every mode, with Bezier and spring segments, against central differences")
  func keyframes() throws {
    var g = SeededGenerator(seed: 0x5E10_C1)
    var tracker = ErrorTracker("keyframe slope vs central difference (relative)", tolerance: 1e-6)
    var compared = 0
    for mode in KeyframeCalculationMode.allCases {
      for _ in 0..<6 {
        let n = 2 + Int(g.next() % 6)
        let values = (0..<n).map { _ in g.uniform(-30...30) }
        let curves: [AnimationCurve] = try (0..<(n - 1)).map { k in
          switch k % 3 {
          case 0: return .bezier(.easeInEaseOut)
          case 1: return .spring(try Spring(mass: 1, stiffness: 300, damping: 20))
          default: return .bezier(try TimingCurve(x1: 0.3, y1: -0.4, x2: 0.6, y2: 1.3))
          }
        }
        let track = try KeyframeTrack(
          values: values, timingFunctions: curves, mode: mode, tension: (0..<n).map { _ in g.uniform(-0.5...0.5) })
        for i in 1..<200 {
          // Not at a key time, where the slope may be continuous but the curvature not
          // (easeInEaseOut ends at slope 0 into a spring that starts at 0): the central
          // difference is off there by h x the jump in curvature.
          let f = Double(i) / 200 + 0.001
          guard !track.keyTimes.contains(where: { abs($0 - f) < 1e-4 }) else { continue }
          let d = difference({ track.value(at: $0, duration: 0.8) }, at: f, h: 1e-7)
          guard d.smooth else { continue }
          tracker.record(relative(track.slope(at: f, duration: 0.8), d.slope), 0, "\(mode) n=\(n) f=\(f)")
          compared += 1
        }
      }
    }
    print(tracker, "(\(compared) points)")
    #expect(compared > 3000)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("media timing: local time moves at the speed, backwards in a reversed iteration, not at all while filled")
  func mediaRate() throws {
    let m = try MediaTiming(beginTime: 1, duration: 0.5, speed: 2, repeatCount: 2, autoreverses: true, fillMode: .both)
    #expect(m.localTimeRate(parentTime: 0.5) == 0, "before (filled)")
    #expect(m.localTimeRate(parentTime: 1.1) == 2, "first iteration")
    #expect(m.localTimeRate(parentTime: 1.3) == -2, "reversed")
    #expect(m.localTimeRate(parentTime: 1.6) == 2, "third iteration")
    #expect(m.localTimeRate(parentTime: 5) == 0, "after (filled)")
    for t in stride(from: 1.01, to: 2, by: 0.02) {
      let d = difference({ m.localTime(parentTime: $0)! }, at: t, h: 1e-6)
      if d.smooth { #expect(abs(d.slope - m.localTimeRate(parentTime: t)) < 1e-6, "t = \(t)") }
    }
  }

  @Test("whole recipes: every channel's velocity is the time derivative of its value (random recipes, media timing)")
  func recipes() throws {
    var g = SeededGenerator(seed: 0x5E10_C2)
    var tracker = ErrorTracker("channel velocity vs central difference (relative)", tolerance: 1e-6)
    var compared = 0
    let presets = Recipe.presets.filter { !$0.channels.isEmpty }
    for round in 0..<40 {
      var recipe = presets[round % presets.count]
      if round % 2 == 1 {
        recipe.timing = RecipeTiming(
          speed: g.uniform(0.5...2), repeatCount: 1.5, autoreverses: true, fillMode: FillMode.allCases[round % 4])
      }
      let geometry = CellGeometry(width: 375, height: g.uniform(40...120))
      for i in 0..<60 {
        let time = g.uniform(-0.2...2)
        for channel in Channel.allCases where recipe.channels.contains(where: { $0.channel == channel }) {
          let d = difference(
            { ReferenceEvaluator.channelValues(recipe, geometry: geometry, row: 3, time: $0)[channel] }, at: time, h: 1e-7)
          guard d.smooth else { continue }
          let v = ReferenceEvaluator.channelVelocities(recipe, geometry: geometry, row: 3, time: time)[channel]
          tracker.record(relative(v, d.slope), 0, "\(recipe.name) \(channel) t=\(time) i=\(i)")
          compared += 1
        }
      }
    }
    print(tracker, "(\(compared) points)")
    #expect(compared > 2000)
    #expect(tracker.passed, "\(tracker)")
    // Held by reduce motion, or nothing animating: at rest.
    let held = ReferenceEvaluator.channelVelocities(
      .moveUpBounce, geometry: CellGeometry(width: 375, height: 80), time: 0.2, motion: MotionPolicy.none)
    #expect(held == .zero)
  }
}
