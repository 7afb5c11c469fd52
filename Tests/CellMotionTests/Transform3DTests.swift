// CATransform3D identities and the decomposition round trips, checked against hand-worked
// values and closed forms (not against the implementation itself).

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

/// Entry-wise comparison with a tolerance; reports the worst entry.
func expectClose(
  _ a: Transform3D, _ b: Transform3D, tolerance: Double, _ what: String = "",
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var worst = 0.0
  var at = (0, 0)
  for i in 0..<4 {
    for j in 0..<4 {
      let e = abs(a[i, j] - b[i, j])
      if !(e <= worst) { worst = e; at = (i + 1, j + 1) }
    }
  }
  #expect(
    worst <= tolerance, "\(what): worst |diff| \(worst) at m\(at.0)\(at.1)\n\(a)\n\(b)",
    sourceLocation: sourceLocation)
}

func randomTransform(_ g: inout SeededGenerator, perspective: Bool) -> Transform3D {
  // Well-formed: scale in [0.3, 3] (no near-singular), moderate skew, any rotation.
  var t = Transform3D.identity
  t = t.translatedBy(g.uniform(-300...300), g.uniform(-300...300), g.uniform(-100...100))
  t = t.rotatedBy(g.uniform(-Double.pi...Double.pi), g.uniform(-1...1), g.uniform(-1...1), g.uniform(-1...1))
  var skew = Transform3D.identity
  skew.m21 = g.uniform(-0.5...0.5)
  skew.m31 = g.uniform(-0.5...0.5)
  skew.m32 = g.uniform(-0.5...0.5)
  t = skew.concatenating(t)
  t = t.scaledBy(g.uniform(0.3...3) * (g.next() % 5 == 0 ? -1 : 1), g.uniform(0.3...3), g.uniform(0.3...3))
  if perspective {
    var p = Transform3D.identity
    p.m34 = -1 / g.uniform(200...2000)
    p.m14 = g.uniform(-1e-3...1e-3)
    t = t.concatenating(p)
  }
  return t
}

@Suite("CATransform3D conventions")
struct Transform3DTests {
  @Test("Translate pre-multiplies: CATransform3DTranslate(t, ...) = Translation * t")
  func translateOrder() {
    let r = Transform3D.rotation(0.3, 0, 0, 1)
    let t = r.translatedBy(10, 20, 0)
    // Translation applies first, in the rotated frame: m41 m42 = (10, 20) rotated by 0.3.
    let c = cos(0.3), s = sin(0.3)
    #expect(abs(t.m41 - (10 * c - 20 * s)) < 1e-12)
    #expect(abs(t.m42 - (10 * s + 20 * c)) < 1e-12)
    // A point at the origin lands where the rotated translation says.
    let p = t.apply(Vector3(0, 0, 0))
    #expect(abs(p.x - t.m41) < 1e-12 && abs(p.y - t.m42) < 1e-12)
    // Concat is the other order: rotation applies after translation -> same here; the
    // reverse product puts the translation unrotated.
    let u = r.concatenating(.translation(10, 20, 0))
    #expect(u.m41 == 10 && u.m42 == 20)
  }

  @Test("Rotation about z matches CGAffineTransformMakeRotation (y-down: positive turns clockwise)")
  func rotationZ() {
    let a = 0.7
    let t = Transform3D.rotation(a, 0, 0, 1)
    let g = AffineTransform2D.rotation(a).transform3D
    expectClose(t, g, tolerance: 1e-15, "rotation z")
    // The x unit vector goes to (cos a, sin a): with y down, that is clockwise on screen.
    let p = t.apply(Vector3(1, 0, 0))
    #expect(abs(p.x - cos(a)) < 1e-15 && abs(p.y - sin(a)) < 1e-15)
  }

  @Test("Rotation about x and y: right-handed, the axis is fixed, lengths kept")
  func rotationXY() {
    let a = 0.4
    let rx = Transform3D.rotation(a, 1, 0, 0)
    // y axis -> (0, cos, sin)
    let py = rx.apply(Vector3(0, 1, 0))
    #expect(abs(py.y - cos(a)) < 1e-15 && abs(py.z - sin(a)) < 1e-15)
    let ry = Transform3D.rotation(a, 0, 1, 0)
    // z axis -> (sin, 0, cos)
    let pz = ry.apply(Vector3(0, 0, 1))
    #expect(abs(pz.x - sin(a)) < 1e-15 && abs(pz.z - cos(a)) < 1e-15)
    // A zero axis gives the identity, as CATransform3DMakeRotation does.
    #expect(Transform3D.rotation(1, 0, 0, 0).isIdentity)
    // Unnormalised axis means the same rotation.
    expectClose(Transform3D.rotation(a, 0, 0, 5), Transform3D.rotation(a, 0, 0, 1), tolerance: 1e-15)
  }

  @Test("Concat order: CATransform3DConcat(a, b) applies a first")
  func concatOrder() {
    let a = Transform3D.scale(2, 2, 1)
    let b = Transform3D.translation(5, 0, 0)
    let p = a.concatenating(b).apply(Vector3(1, 1, 0))  // scale then translate
    #expect(p.x == 7 && p.y == 2)
    let q = b.concatenating(a).apply(Vector3(1, 1, 0))  // translate then scale
    #expect(q.x == 12 && q.y == 2)
    #expect(Transform3D.identity.concatenating(a) == a)
  }

  @Test("Invert round trip to 1e-12 on random well-formed matrices; singular reported")
  func invertRoundTrip() throws {
    var g = SeededGenerator(seed: 0xC0FFEE)
    var tracker = ErrorTracker("M * M^-1 - I", tolerance: 1e-12)
    for k in 0..<500 {
      let m = randomTransform(&g, perspective: k % 2 == 0)
      let inv = try m.inverted()
      let prod = m.concatenating(inv)
      // Compare with a scale-aware tolerance: entries of M up to ~300.
      for i in 0..<4 {
        for j in 0..<4 {
          tracker.record(prod[i, j], i == j ? 1 : 0, "seed \(g.seed) #\(k) m\(i + 1)\(j + 1)")
        }
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
    // Singular: zero scale. The throwing form reports it; CA's form returns the input.
    let singular = Transform3D.scale(0, 1, 1)
    #expect(throws: CellMotionError.singularMatrix(field: "transform")) { try singular.inverted() }
    #expect(singular.invertedOrSelf == singular)
    var nan = Transform3D.identity
    nan.m12 = .nan
    #expect(throws: CellMotionError.self) { try nan.inverted() }
  }

  @Test("isAffine, isIdentity, affine round trip, perspective")
  func predicates() throws {
    #expect(Transform3D.identity.isIdentity)
    #expect(Transform3D.rotation(0.2, 0, 0, 1).isAffine)
    #expect(!Transform3D.rotation(0.2, 1, 0, 0).isAffine)
    #expect(!Transform3D.translation(0, 0, 1).isAffine)
    let p = try Transform3D.perspective(distance: 500)
    #expect(p.m34 == -1.0 / 500)
    #expect(!p.isAffine)
    // w = 1 - z/d: a point at z = 100 is magnified by 1/(1 - 0.2).
    let q = p.apply(Vector3(10, 10, 100))
    #expect(abs(q.x - 12.5) < 1e-12)
    #expect(throws: CellMotionError.self) { try Transform3D.perspective(distance: 0) }
    #expect(throws: CellMotionError.self) { try Transform3D.perspective(distance: .nan) }
    let aff = AffineTransform2D(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
    let t = Transform3D(aff)
    #expect(t.m11 == 1 && t.m12 == 2 && t.m21 == 3 && t.m22 == 4 && t.m41 == 5 && t.m42 == 6)
    #expect(t.affine == aff)
    #expect(p.affine == nil)
    #expect(throws: CellMotionError.bufferSize(field: "Transform3D values", expected: 16, actual: 3)) {
      try Transform3D(fieldOrder: [1, 2, 3])
    }
  }

  @Test("Anchor point: rotating about the centre keeps the centre fixed")
  func anchor() {
    let w = 320.0, h = 80.0
    let t = Transform3D.rotation(0.5, 0, 0, 1).about(Vector3(w / 2, h / 2, 0))
    let c = t.apply(Vector3(w / 2, h / 2, 0))
    #expect(abs(c.x - w / 2) < 1e-12 && abs(c.y - h / 2) < 1e-12)
    // The top-left corner turns about the centre: (-160, -40) rotated, plus the centre.
    let p = t.apply(Vector3(0, 0, 0))
    let (cs, sn) = (cos(0.5), sin(0.5))
    #expect(abs(p.x - (w / 2 + (-160 * cs + 40 * sn))) < 1e-12)
    #expect(abs(p.y - (h / 2 + (-160 * sn - 40 * cs))) < 1e-12)
    // layerModel adds the position of the anchor in the superlayer.
    let m = Transform3D.layerModel(
      transform: .identity, boundsWidth: w, boundsHeight: h, position: Vector3(160, 1040, 0))
    let o = m.apply(Vector3(0, 0, 0))
    #expect(o.x == 0 && o.y == 1000)
  }

  @Test("Tip-in start transform: 16 numbers worked out by hand")
  func tipInStart() {
    // CATransform3DTranslate(CATransform3DRotate(identity, -15 deg, 0, 0, 1), -20, -20, 0).
    // By hand: c = cos 15 = (sqrt6 + sqrt2)/4, s = sin 15 = (sqrt6 - sqrt2)/4; rotation by
    // -15 deg: m11 = c, m12 = -s, m21 = s, m22 = c. Translation applies first, in the
    // rotated frame: (m41, m42) = (-20, -20) * R = (-20c - 20s, 20s - 20c)
    // = (-20 * sqrt6/2, -20 * sqrt2/2) = (-10 sqrt6, -10 sqrt2).
    let angle = -15.0 * Double.pi / 180
    let t = Transform3D.identity.rotatedBy(angle, 0, 0, 1).translatedBy(-20, -20, 0)
    let r6 = 6.0.squareRoot(), r2 = 2.0.squareRoot()
    let c = (r6 + r2) / 4, s = (r6 - r2) / 4
    let expected: [Double] = [
      c, -s, 0, 0,
      s, c, 0, 0,
      0, 0, 1, 0,
      -10 * r6, -10 * r2, 0, 1,
    ]
    for (i, v) in t.fieldOrder.enumerated() {
      #expect(abs(v - expected[i]) < 1e-13, "m\(i / 4 + 1)\(i % 4 + 1): \(v) vs \(expected[i])")
    }
    // -10 sqrt6 = -24.494897..., -10 sqrt2 = -14.142135...
    #expect(abs(t.m41 + 24.49489742783178) < 1e-12 && abs(t.m42 + 14.142135623730951) < 1e-12)
  }
}

@Suite("Decomposition and interpolation")
struct DecompositionTests {
  @Test("3D unmatrix round trip on random well-formed matrices (with and without perspective)")
  func roundTrip3D() throws {
    var g = SeededGenerator(seed: 42)
    var tracker = ErrorTracker("recompose(decompose(M)) - M, relative", tolerance: 1e-11)
    for k in 0..<2000 {
      let m = randomTransform(&g, perspective: k % 3 == 0)
      let d = try #require(Decomposed3D(m), "seed \(g.seed) #\(k) failed to decompose")
      let r = d.transform
      // The decomposition normalises by m44 (same projective map): compare with M / m44.
      let mn = m.fieldOrder.map { $0 / m.m44 }
      let scale = mn.map(abs).max()!
      for i in 0..<16 {
        tracker.record(r.fieldOrder[i] / scale, mn[i] / scale, "seed \(g.seed) #\(k) [\(i)]")
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("3D decomposition reads back known parts")
  func knownParts() throws {
    let m = Transform3D.identity.translatedBy(10, 20, 30).rotatedBy(0.5, 0, 1, 0).scaledBy(2, 3, 4)
    // Scale applies first, then rotation, then translation.
    let d = try #require(Decomposed3D(m))
    #expect(abs(d.scale.x - 2) < 1e-12 && abs(d.scale.y - 3) < 1e-12 && abs(d.scale.z - 4) < 1e-12)
    #expect(abs(d.translate.x - 10) < 1e-12 && abs(d.translate.z - 30) < 1e-12)
    let q = Quaternion(angle: 0.5, axis: 0, 1, 0)
    #expect(abs(abs(d.quaternion.dot(q)) - 1) < 1e-12)
    #expect(Decomposed3D(.scale(0, 1, 1)) == nil)
  }

  /// CATransform3DMakeRotation's matrix written out here (Rodrigues' formula in Core
  /// Animation's row-vector form, unit axis (x, y, z), c = cos a, s = sin a, t = 1 - c):
  /// rows [t x x + c, t x y + z s, t x z - y s], [t x y - z s, t y y + c, t y z + x s],
  /// [t x z + y s, t y z - x s, t z z + c]; e.g. a quarter turn about z maps (1, 0) to (0, 1).
  func rodrigues(_ a: Double, _ x0: Double, _ y0: Double, _ z0: Double) -> Transform3D {
    let n = (x0 * x0 + y0 * y0 + z0 * z0).squareRoot()
    let (x, y, z) = (x0 / n, y0 / n, z0 / n)
    let c = cos(a), s = sin(a), t = 1 - c
    var m = Transform3D.identity
    (m.m11, m.m12, m.m13) = (t * x * x + c, t * x * y + z * s, t * x * z - y * s)
    (m.m21, m.m22, m.m23) = (t * x * y - z * s, t * y * y + c, t * y * z + x * s)
    (m.m31, m.m32, m.m33) = (t * x * z + y * s, t * y * z - x * s, t * z * z + c)
    return m
  }

  @Test("Quaternion <-> matrix and Transform3D.rotation agree with CATransform3DMakeRotation's formula written out")
  func quaternionMatrix() {
    let quarter = rodrigues(.pi / 2, 0, 0, 1)
    #expect(abs(quarter.m12 - 1) < 1e-15 && abs(quarter.m21 + 1) < 1e-15, "a quarter turn about z maps x to y")
    var g = SeededGenerator(seed: 7)
    for _ in 0..<200 {
      let a = g.uniform(-6...6)
      let (x, y, z) = (g.uniform(-1...1), g.uniform(-1...1), g.uniform(-1...1))
      let q = Quaternion(angle: a, axis: x, y, z)
      expectClose(q.rotationMatrix, rodrigues(a, x, y, z), tolerance: 1e-14, "seed \(g.seed)")
      expectClose(Transform3D.rotation(a, x, y, z), rodrigues(a, x, y, z), tolerance: 1e-14, "seed \(g.seed)")
      let back = Quaternion(rotationMatrix: q.rotationMatrix)
      #expect(abs(abs(back.dot(q)) - 1) < 1e-14)
    }
  }

  @Test("Slerp: constant angular speed, shortest path, nlerp near identity")
  func slerp() {
    let a = Quaternion.identity
    let b = Quaternion(angle: 2.0, axis: 0, 0, 1)
    for t in stride(from: 0.0, through: 1.0, by: 0.125) {
      let q = Quaternion.slerp(a, b, t)
      let expected = Quaternion(angle: 2.0 * t, axis: 0, 0, 1)
      #expect(abs(q.dot(expected) - 1) < 1e-14)
    }
    // -b is the same rotation; Core Animation still takes the short way (CSS would not).
    let q = Quaternion.slerp(a, -b, 0.5)
    #expect(abs(abs(q.dot(Quaternion(angle: 1.0, axis: 0, 0, 1))) - 1) < 1e-14)
    // Within the nlerp threshold the result is still unit length and between the ends.
    let c = Quaternion(angle: 0.01, axis: 1, 0, 0)
    let m = Quaternion.slerp(a, c, 0.5)
    #expect(abs(m.length - 1) < 1e-15)
    #expect(abs(abs(m.dot(Quaternion(angle: 0.005, axis: 1, 0, 0))) - 1) < 1e-9)
  }

  @Test("2D decomposition round trip, flips and the short way round")
  func twoD() throws {
    var g = SeededGenerator(seed: 99)
    var tracker = ErrorTracker("2D round trip", tolerance: 1e-12)
    for k in 0..<2000 {
      var a = AffineTransform2D(
        a: g.uniform(-3...3), b: g.uniform(-3...3), c: g.uniform(-3...3), d: g.uniform(-3...3),
        tx: g.uniform(-100...100), ty: g.uniform(-100...100))
      if abs(a.a * a.d - a.b * a.c) < 0.05 { a.d += 1 }
      let m = Transform3D(a)
      let d = try #require(Decomposed2D(m))
      for i in 0..<16 { tracker.record(d.transform.fieldOrder[i], m.fieldOrder[i], "#\(k)") }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
    // Interpolating -170 deg to +170 deg goes through 180, not through 0.
    let from = Transform3D.rotation(-170 * Double.pi / 180, 0, 0, 1)
    let to = Transform3D.rotation(170 * Double.pi / 180, 0, 0, 1)
    let mid = TransformInterpolator(from: from, to: to).value(at: 0.5)
    expectClose(mid, .rotation(Double.pi, 0, 0, 1), tolerance: 1e-12, "short way")
    // Rotation by a pure angle interpolates the angle (the matrix path of UIView.transform).
    let i = TransformInterpolator(from: .rotation(0.2, 0, 0, 1), to: .rotation(1.0, 0, 0, 1))
    expectClose(i.value(at: 0.25), .rotation(0.4, 0, 0, 1), tolerance: 1e-12, "angle lerp")
  }

  @Test("Interpolator: ends exact, 3D path slerps, singular falls back to discrete")
  func interpolator() {
    let from = Transform3D.rotation(Double.pi / 2, 1, 0, 0).translatedBy(0, 0, 0)
    var persp = Transform3D.identity
    persp.m34 = -1.0 / 500
    let f = from.concatenating(persp)
    let t = persp
    let ip = TransformInterpolator(from: f, to: t)
    if case .threeD = ip.path {} else { Issue.record("expected the 3D path") }
    expectClose(ip.value(at: 0), f, tolerance: 1e-12, "p = 0")
    expectClose(ip.value(at: 1), t, tolerance: 1e-12, "p = 1")
    // Half way: rotation by pi/4 about x, same perspective.
    expectClose(ip.value(at: 0.5), Transform3D.rotation(Double.pi / 4, 1, 0, 0).concatenating(persp),
      tolerance: 1e-12, "p = 0.5")
    let z = TransformInterpolator(from: .identity, to: .scale(0, 0, 1))
    #expect(z.path == .discrete)
    #expect(z.value(at: 0.49) == .identity && z.value(at: 0.5) == .scale(0, 0, 1))
    let cw = TransformInterpolator(from: .identity, to: .translation(10, 0, 0), mode: .componentwise)
    #expect(cw.value(at: 0.5).m41 == 5)
  }

  /// Independent truth: with m34 = -1/d a point pushed to z = d/2 is drawn twice as far
  /// from the eye axis (w = 1 - z/d = 1/2); a point at z = d or beyond has w <= 0 and no
  /// position; the corners come in the documented order.
  @Test("projectedPoint and projectedCorners: perspective divide, behind the eye is nil")
  func projection() throws {
    var perspective = Transform3D.identity
    perspective.m34 = -1.0 / 500
    let pushed = Transform3D.translation(0, 0, 250).concatenating(perspective)
    let p = try #require(pushed.projectedPoint(x: 30, y: -40))
    #expect(p.x == 60 && p.y == -80)
    #expect(Transform3D.translation(0, 0, 500).concatenating(perspective).projectedPoint(x: 1, y: 1) == nil)
    #expect(Transform3D.translation(0, 0, 900).concatenating(perspective).projectedCorners(width: 10, height: 10) == nil)
    let corners = try #require(Transform3D.translation(5, 7, 0).projectedCorners(width: 10, height: 20))
    #expect(corners.map(\.x) == [5, 15, 15, 5] && corners.map(\.y) == [7, 7, 27, 27])
  }
}
