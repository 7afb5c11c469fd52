// Matrix animations' velocities (issue 15): the rates of the decomposed components and
// the rotation's angular velocity, against central differences of the interpolation path
// itself, and against rotations worked by hand.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("Matrix velocities")
struct MatrixVelocityTests {
  func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(1, abs(b)) }

  /// Angular velocity by central differences of the slerp itself: vec(2 q' q*).
  func differenceAngular(_ a: Quaternion, _ b: Quaternion, _ t: Double, h: Double = 1e-6) -> Vector3 {
    let q = Quaternion.slerp(a, b, t)
    var p = Quaternion.slerp(a, b, t + h), m = Quaternion.slerp(a, b, t - h)
    // The same hemisphere as q (slerp's output is continuous in t; this only guards signs).
    if p.dot(q) < 0 { p = -p }
    if m.dot(q) < 0 { m = -m }
    let dq = Quaternion(x: (p.x - m.x) / (2 * h), y: (p.y - m.y) / (2 * h), z: (p.z - m.z) / (2 * h), w: (p.w - m.w) / (2 * h))
    let (x, y, z, w) = (-q.x, -q.y, -q.z, q.w)
    return Vector3(
      2 * (dq.w * x + dq.x * w + dq.y * z - dq.z * y), 2 * (dq.w * y - dq.x * z + dq.y * w + dq.z * x),
      2 * (dq.w * z + dq.x * y - dq.y * x + dq.z * w))
  }

  @Test("a quarter turn about z over 1 s: angular velocity pi/2 rad/s about z; translation rate = distance / duration")
  func byHand() throws {
    let to = Transform3D.rotation(1e-3, 1, 0, 0).concatenating(.rotation(.pi / 2, 0, 0, 1))
      .concatenating(.translation(30, -60, 12))
    let m = MatrixAnimation(from: .identity, to: to, curve: .bezier(.linear), duration: 1)
    guard case .threeD(let r) = m.velocity(progress: 0.3, rate: 1) else {
      Issue.record("expected the 3D path")
      return
    }
    // (A 1e-3 rad tilt about x keeps it on the 3D path; the turn is pi/2 to within it.)
    #expect(abs(r.angularVelocity.length - .pi / 2) < 2e-3, "\(r.angularVelocity)")
    #expect(abs(abs(r.angularVelocity.z) - .pi / 2) < 1e-3)
    #expect(abs(r.translate.x - 30) < 1e-9 && abs(r.translate.y + 60) < 1e-9 && abs(r.translate.z - 12) < 1e-9)
    // 2D: the angle's rate.
    let flat = MatrixAnimation(from: .identity, to: .rotation(.pi / 2, 0, 0, 1), curve: .bezier(.linear), duration: 0.5)
    guard case .twoD(let d) = flat.velocity(progress: 0.5, rate: 2) else {
      Issue.record("expected the 2D path")
      return
    }
    #expect(abs(abs(d.angle) - .pi) < 1e-12, "a quarter turn in 0.5 s: pi rad/s")
  }

  @Test("random 3D, 2D, componentwise and keyframe paths: rates equal central differences of the path")
  func againstDifferences() throws {
    var g = SeededGenerator(seed: 0x3A7_1E10)
    var tracker = ErrorTracker("component rates vs central differences (relative)", tolerance: 1e-6)
    func random3D() -> Transform3D {
      Transform3D.identity.rotatedBy(g.uniform(-3...3), g.uniform(-1...1), g.uniform(-1...1), g.uniform(0.1...1))
        .translatedBy(g.uniform(-50...50), g.uniform(-50...50), g.uniform(-50...50))
        .scaledBy(g.uniform(0.5...1.5), g.uniform(0.5...1.5), g.uniform(0.5...1.5))
    }
    for round in 0..<200 {
      let (a, b): (Transform3D, Transform3D)
      if round % 3 == 0 {
        (a, b) = (.rotation(g.uniform(-3...3), 0, 0, 1).translatedBy(g.uniform(-9...9), 4, 0), .rotation(g.uniform(-3...3), 0, 0, 1))
      } else {
        (a, b) = (random3D(), round % 7 == 0 ? random3D().rotatedBy(1e-4, 0, 1, 0) : random3D())
      }
      let mode: TransformInterpolationMode = round % 5 == 0 ? .componentwise : .decomposed
      let path = TransformInterpolator(from: a, to: b, mode: mode)
      let p = g.uniform(0.05...0.95), rate = g.uniform(-3...3), h = 1e-6
      switch (MatrixVelocity(path, progress: p, rate: rate), path.path) {
      case (.twoD(let v), .twoD(let da, let db)):
        let plus = Decomposed2D.lerp(da, db, p + h).numbers, minus = Decomposed2D.lerp(da, db, p - h).numbers
        for (k, x) in v.numbers.enumerated() { tracker.record(relative(x, (plus[k] - minus[k]) / (2 * h) * rate), 0, "2D \(k)") }
      case (.threeD(let v), .threeD(let da, let db)):
        let plus = Decomposed3D.interpolate(da, db, p + h).numbers, minus = Decomposed3D.interpolate(da, db, p - h).numbers
        let got = v.perspective + [v.translate.x, v.translate.y, v.translate.z, v.scale.x, v.scale.y, v.scale.z]
          + [v.skew.x, v.skew.y, v.skew.z]
        for (k, x) in got.enumerated() { tracker.record(relative(x, (plus[k] - minus[k]) / (2 * h) * rate), 0, "3D \(k)") }
        let w = differenceAngular(da.quaternion, db.quaternion, p)
        for (x, y) in [(v.angularVelocity.x, w.x), (v.angularVelocity.y, w.y), (v.angularVelocity.z, w.z)] {
          tracker.record(relative(x, y * rate), 0, "angular round \(round)")
        }
      case (.componentwise(let v), .componentwise):
        for i in 0..<4 { for j in 0..<4 { tracker.record(relative(v[i, j], (b[i, j] - a[i, j]) * rate), 0, "entry") } }
      case (.still, .discrete): break
      default: Issue.record("velocity on another path than the interpolation's")
      }
    }
    // Keyframes: the segment's path at the eased fraction, times the key track's slope.
    let keys = MatrixKeyframes(values: [.identity, .translation(40, 0, 0), .translation(40, 90, 0)], keyTimes: [0, 0.25, 1])
    let k = MatrixAnimation(keyframes: keys, duration: 0.8)
    guard case .twoD(let v) = k.velocity(progress: 0.5, rate: 1 / 0.8) else {
      Issue.record("2D keyframe segment expected")
      return
    }
    // Second segment: 90 points over 0.75 of 0.8 s.
    tracker.record(relative(v.translateY, 90 / (0.75 * 0.8)), 0, "keyframes")
    print(tracker)
    #expect(tracker.count > 2000)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("ReferenceEvaluator.matrixVelocity: the media timing's rate applied; still when held or not running")
  func throughTheRecipe() throws {
    let tipIn = Recipe.tipIn
    guard case .twoD(let v)? = ReferenceEvaluator.matrixVelocity(tipIn, time: 0.1) else {
      Issue.record("tip-in runs the 2D path")
      return
    }
    #expect(v.angle != 0 && v.translateX != 0)
    #expect(ReferenceEvaluator.matrixVelocity(tipIn, time: 5) == .still)
    #expect(ReferenceEvaluator.matrixVelocity(tipIn, time: 0.1, motion: .reduced) == .still)
    #expect(ReferenceEvaluator.matrixVelocity(Recipe.fadeIn, time: 0.1) == nil)
  }
}
