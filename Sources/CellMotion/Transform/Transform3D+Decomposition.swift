// Decomposition of transforms into interpolable parts, and recomposition.
//
// Two decompositions, as Core Animation (and CSS) uses them:
// - 2D (CSS Transforms Level 1 / WebKit decompose2D): translation, scale (signed), angle,
//   and the remaining 2x2 (shear) for transforms where `isAffine` holds.
// - 3D (CSS Transforms Level 2 "unmatrix"): perspective (4), translation (3), scale (3),
//   skew (3) and a unit quaternion, for everything else.
// Both are exact inverses of their recomposition for well-formed matrices; tests check
// the round trip on random matrices.

import Foundation

/// The CSS Transforms Level 1 2D decomposition of an affine transform.
///
/// Recomposition: M = Scale(sx, sy) * Rotation(angle) * R, where R is the remainder
/// `[m11 m12; m21 m22]` with translation (tx, ty), in the row-vector convention (scale
/// applies first, then rotation, then the remainder). Angles in radians.
public struct Decomposed2D: Sendable, Hashable, Codable {
  public var translateX: Double, translateY: Double
  public var scaleX: Double, scaleY: Double
  /// Radians, in (-pi, pi] as decomposed; interpolation may move it (see `Decomposed2D.prepare`).
  public var angle: Double
  public var m11: Double, m12: Double, m21: Double, m22: Double

  public init(
    translateX: Double, translateY: Double, scaleX: Double, scaleY: Double, angle: Double,
    m11: Double = 1, m12: Double = 0, m21: Double = 0, m22: Double = 1
  ) {
    (self.translateX, self.translateY, self.scaleX, self.scaleY) = (translateX, translateY, scaleX, scaleY)
    self.angle = angle
    (self.m11, self.m12, self.m21, self.m22) = (m11, m12, m21, m22)
  }

  /// Decomposes `t`, which must be affine; nil when it is not, is not finite, or is
  /// singular (determinant of the 2x2 zero relative to its entries: a zero scale has no
  /// angle to interpolate, so the interpolator falls back to discrete, as in 3D).
  public init?(_ t: Transform3D) {
    guard t.isAffine, t.isFinite else { return nil }
    var (r0x, r0y, r1x, r1y) = (t.m11, t.m12, t.m21, t.m22)
    let size = max(abs(r0x), abs(r0y), abs(r1x), abs(r1y))
    guard size > 0, abs(r0x * r1y - r0y * r1x) > 1e-12 * size * size else { return nil }
    var sx = (r0x * r0x + r0y * r0y).squareRoot()
    var sy = (r1x * r1x + r1y * r1y).squareRoot()
    // A negative determinant means one axis is flipped; flip the one that keeps the angle small.
    if r0x * r1y - r0y * r1x < 0 {
      if r0x < r1y { sx = -sx } else { sy = -sy }
    }
    if sx != 0 {
      r0x /= sx
      r0y /= sx
    }
    if sy != 0 {
      r1x /= sy
      r1y /= sy
    }
    let angle = atan2(r0y, r0x)
    // Remainder = Rotation(-angle) * normalised rows.
    let cs = cos(angle), sn = sin(angle)
    let m11 = cs * r0x - sn * r1x, m12 = cs * r0y - sn * r1y
    let m21 = sn * r0x + cs * r1x, m22 = sn * r0y + cs * r1y
    self.init(
      translateX: t.m41, translateY: t.m42, scaleX: sx, scaleY: sy, angle: angle,
      m11: m11, m12: m12, m21: m21, m22: m22)
  }

  /// Recomposes: Scale * Rotation * Remainder (with translation).
  public var transform: Transform3D {
    var rem = Transform3D.identity
    (rem.m11, rem.m12, rem.m21, rem.m22, rem.m41, rem.m42) = (m11, m12, m21, m22, translateX, translateY)
    return rem.rotatedBy(angle, 0, 0, 1).scaledBy(scaleX, scaleY, 1)
  }

  /// The CSS Level 1 / WebKit pre-interpolation fix-ups, applied to a pair in place:
  /// if one end flips x and the other y, negate the first's scales and turn it by pi; an
  /// angle of 0 becomes 2 pi; if the angles differ by more than pi, subtract 2 pi from the
  /// larger, so the rotation takes the short way round.
  public static func prepare(_ from: inout Decomposed2D, _ to: inout Decomposed2D) {
    if (from.scaleX < 0 && to.scaleY < 0) || (from.scaleY < 0 && to.scaleX < 0) {
      from.scaleX = -from.scaleX
      from.scaleY = -from.scaleY
      from.angle += from.angle < 0 ? Double.pi : -Double.pi
    }
    if from.angle == 0 { from.angle = 2 * Double.pi }
    if to.angle == 0 { to.angle = 2 * Double.pi }
    if abs(from.angle - to.angle) > Double.pi {
      if from.angle > to.angle { from.angle -= 2 * Double.pi } else { to.angle -= 2 * Double.pi }
    }
  }

  /// Component-wise linear interpolation (extrapolates for p outside [0, 1]).
  public static func lerp(_ a: Decomposed2D, _ b: Decomposed2D, _ p: Double) -> Decomposed2D {
    func l(_ x: Double, _ y: Double) -> Double { x + (y - x) * p }
    return Decomposed2D(
      translateX: l(a.translateX, b.translateX), translateY: l(a.translateY, b.translateY),
      scaleX: l(a.scaleX, b.scaleX), scaleY: l(a.scaleY, b.scaleY), angle: l(a.angle, b.angle),
      m11: l(a.m11, b.m11), m12: l(a.m12, b.m12), m21: l(a.m21, b.m21), m22: l(a.m22, b.m22))
  }
}

/// The CSS Transforms Level 2 3D decomposition ("unmatrix") of a 4x4 transform.
///
/// Recomposition, row-vector convention (leftmost applies first):
/// M = Scale(scale) * Skew * Rotation(quaternion) * Translation(translate) * Perspective,
/// where Skew = [1 0 0; xy 1 0; xz yz 1] (rows; `skew` = (xy, xz, yz)) and Perspective is
/// the identity with column 4 = `perspective` (the matrix's m14 m24 m34 m44 after the
/// other parts are divided out). The matrix is first normalised by m44.
public struct Decomposed3D: Sendable, Hashable, Codable {
  public var perspective: (Double, Double, Double, Double)
  public var translate: Vector3
  public var scale: Vector3
  /// (xy, xz, yz) shear factors.
  public var skew: Vector3
  public var quaternion: Quaternion

  public init(
    perspective: (Double, Double, Double, Double) = (0, 0, 0, 1), translate: Vector3 = .zero,
    scale: Vector3 = Vector3(1, 1, 1), skew: Vector3 = .zero, quaternion: Quaternion = .identity
  ) {
    self.perspective = perspective
    self.translate = translate
    self.scale = scale
    self.skew = skew
    self.quaternion = quaternion
  }

  public static func == (a: Decomposed3D, b: Decomposed3D) -> Bool {
    a.perspective == b.perspective && a.translate == b.translate && a.scale == b.scale
      && a.skew == b.skew && a.quaternion == b.quaternion
  }
  public func hash(into h: inout Hasher) {
    h.combine(perspective.0)
    h.combine(perspective.1)
    h.combine(perspective.2)
    h.combine(perspective.3)
    h.combine(translate)
    h.combine(scale)
    h.combine(skew)
    h.combine(quaternion)
  }
  enum CodingKeys: String, CodingKey { case perspective, translate, scale, skew, quaternion }
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let p = try c.decode([Double].self, forKey: .perspective)
    guard p.count == 4 else {
      throw DecodingError.dataCorruptedError(
        forKey: .perspective, in: c, debugDescription: "perspective needs 4 numbers")
    }
    self.init(
      perspective: (p[0], p[1], p[2], p[3]), translate: try c.decode(Vector3.self, forKey: .translate),
      scale: try c.decode(Vector3.self, forKey: .scale), skew: try c.decode(Vector3.self, forKey: .skew),
      quaternion: try c.decode(Quaternion.self, forKey: .quaternion))
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode([perspective.0, perspective.1, perspective.2, perspective.3], forKey: .perspective)
    try c.encode(translate, forKey: .translate)
    try c.encode(scale, forKey: .scale)
    try c.encode(skew, forKey: .skew)
    try c.encode(quaternion, forKey: .quaternion)
  }

  /// Decomposes `matrix`; nil when it cannot be decomposed: m44 = 0, a non-finite entry,
  /// or a singular upper 3x3 (a zero scale), which is where CSS falls back to discrete
  /// interpolation.
  public init?(_ matrix: Transform3D) {
    guard matrix.isFinite, matrix.m44 != 0 else { return nil }
    var m = matrix
    let norm = m.m44
    for i in 0..<4 { for j in 0..<4 { m[i, j] /= norm } }
    // The affine part A: m with its last column set to (0, 0, 0, 1).
    var a = m
    (a.m14, a.m24, a.m34, a.m44) = (0, 0, 0, 1)
    let det3 =
      a.m11 * (a.m22 * a.m33 - a.m23 * a.m32) - a.m12 * (a.m21 * a.m33 - a.m23 * a.m31)
      + a.m13 * (a.m21 * a.m32 - a.m22 * a.m31)
    let scale3 = max(
      abs(a.m11), abs(a.m12), abs(a.m13), abs(a.m21), abs(a.m22), abs(a.m23), abs(a.m31),
      abs(a.m32), abs(a.m33))
    // Singular relative to the matrix's own scale: no well-defined scale/rotation split.
    guard scale3 > 0, abs(det3) > 1e-12 * scale3 * scale3 * scale3 else { return nil }

    // Perspective: M = A * P with P = identity whose last column is p, so p = A^-1 * rhs.
    if m.m14 != 0 || m.m24 != 0 || m.m34 != 0 {
      guard let inv = try? a.inverted() else { return nil }
      let rhs = (m.m14, m.m24, m.m34, m.m44)
      perspective = (
        inv.m11 * rhs.0 + inv.m12 * rhs.1 + inv.m13 * rhs.2 + inv.m14 * rhs.3,
        inv.m21 * rhs.0 + inv.m22 * rhs.1 + inv.m23 * rhs.2 + inv.m24 * rhs.3,
        inv.m31 * rhs.0 + inv.m32 * rhs.1 + inv.m33 * rhs.2 + inv.m34 * rhs.3,
        inv.m41 * rhs.0 + inv.m42 * rhs.1 + inv.m43 * rhs.2 + inv.m44 * rhs.3
      )
    } else {
      perspective = (0, 0, 0, 1)
    }
    translate = Vector3(m.m41, m.m42, m.m43)

    // Gram-Schmidt on the rows of the upper 3x3: rows = diag(scale) * Skew * Rotation.
    var r0 = Vector3(m.m11, m.m12, m.m13)
    var r1 = Vector3(m.m21, m.m22, m.m23)
    var r2 = Vector3(m.m31, m.m32, m.m33)
    var sc = Vector3(0, 0, 0)
    var sk = Vector3(0, 0, 0)
    sc.x = r0.length
    r0 = r0 / sc.x
    sk.x = r0.dot(r1)
    r1 = r1 - r0 * sk.x
    sc.y = r1.length
    r1 = r1 / sc.y
    sk.x /= sc.y
    sk.y = r0.dot(r2)
    r2 = r2 - r0 * sk.y
    sk.z = r1.dot(r2)
    r2 = r2 - r1 * sk.z
    sc.z = r2.length
    r2 = r2 / sc.z
    sk.y /= sc.z
    sk.z /= sc.z
    // A left-handed frame: negate all scales and rows (CSS's rule).
    if r0.dot(r1.cross(r2)) < 0 {
      sc = sc * -1
      r0 = r0 * -1
      r1 = r1 * -1
      r2 = r2 * -1
    }
    scale = sc
    skew = sk
    var rot = Transform3D.identity
    (rot.m11, rot.m12, rot.m13) = (r0.x, r0.y, r0.z)
    (rot.m21, rot.m22, rot.m23) = (r1.x, r1.y, r1.z)
    (rot.m31, rot.m32, rot.m33) = (r2.x, r2.y, r2.z)
    quaternion = Quaternion(rotationMatrix: rot)
  }

  /// Recomposes the matrix (see the type's doc for the product order).
  public var transform: Transform3D {
    var p = Transform3D.identity
    (p.m14, p.m24, p.m34, p.m44) = perspective
    var skewM = Transform3D.identity
    skewM.m21 = skew.x
    skewM.m31 = skew.y
    skewM.m32 = skew.z
    return Transform3D.scale(scale.x, scale.y, scale.z)
      .concatenating(skewM)
      .concatenating(quaternion.rotationMatrix)
      .concatenating(.translation(translate.x, translate.y, translate.z))
      .concatenating(p)
  }

  /// Lerps the 13 scalars and slerps the quaternion (Core Animation's shortest-path slerp).
  public static func interpolate(_ a: Decomposed3D, _ b: Decomposed3D, _ t: Double) -> Decomposed3D {
    func l(_ x: Double, _ y: Double) -> Double { x + (y - x) * t }
    func lv(_ x: Vector3, _ y: Vector3) -> Vector3 { Vector3(l(x.x, y.x), l(x.y, y.y), l(x.z, y.z)) }
    return Decomposed3D(
      perspective: (
        l(a.perspective.0, b.perspective.0), l(a.perspective.1, b.perspective.1),
        l(a.perspective.2, b.perspective.2), l(a.perspective.3, b.perspective.3)
      ),
      translate: lv(a.translate, b.translate), scale: lv(a.scale, b.scale), skew: lv(a.skew, b.skew),
      quaternion: Quaternion.slerp(a.quaternion, b.quaternion, t))
  }
}

// MARK: - Small vector helpers

extension Vector3 {
  public var length: Double { (x * x + y * y + z * z).squareRoot() }
  public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
  public func cross(_ o: Vector3) -> Vector3 {
    Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
  }
  public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
  public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
  public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
  public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
}

// MARK: - Range checks

extension Decomposed2D {
  /// Every number of the decomposition, for range validation (`Recipe.validate`).
  package var numbers: [Double] { [translateX, translateY, scaleX, scaleY, angle, m11, m12, m21, m22] }
}

extension Decomposed3D {
  /// Every number of the decomposition, for range validation (`Recipe.validate`).
  package var numbers: [Double] {
    [
      perspective.0, perspective.1, perspective.2, perspective.3, translate.x, translate.y, translate.z,
      scale.x, scale.y, scale.z, skew.x, skew.y, skew.z,
    ]
  }
}
