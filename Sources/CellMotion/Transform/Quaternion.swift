// Quaternion: unit quaternions for the rotation part of decomposed transforms, in the
// convention that matches CATransform3DMakeRotation: rotation by `angle` about unit axis u
// is q = (u sin(angle/2), cos(angle/2)).

import Foundation

/// A quaternion (x, y, z, w), w the scalar part. Rotations use unit quaternions.
public struct Quaternion: Sendable, Hashable, Codable {
  public var x: Double, y: Double, z: Double, w: Double

  public init(x: Double, y: Double, z: Double, w: Double) {
    (self.x, self.y, self.z, self.w) = (x, y, z, w)
  }

  /// The identity rotation (0, 0, 0, 1).
  public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

  /// Rotation by `angle` radians about (ax, ay, az) (normalised here; zero axis gives identity).
  public init(angle: Double, axis ax: Double, _ ay: Double, _ az: Double) {
    let length = (ax * ax + ay * ay + az * az).squareRoot()
    guard length > 0 else {
      self = .identity
      return
    }
    let s = sin(angle / 2) / length
    self.init(x: ax * s, y: ay * s, z: az * s, w: cos(angle / 2))
  }

  public var length: Double { (x * x + y * y + z * z + w * w).squareRoot() }

  public var normalized: Quaternion {
    let l = length
    return Quaternion(x: x / l, y: y / l, z: z / l, w: w / l)
  }

  public func dot(_ o: Quaternion) -> Double { x * o.x + y * o.y + z * o.z + w * o.w }

  public static prefix func - (q: Quaternion) -> Quaternion {
    Quaternion(x: -q.x, y: -q.y, z: -q.z, w: -q.w)
  }

  /// The row-vector rotation matrix (CATransform3D layout; transpose of the column-vector
  /// matrix). For a unit quaternion this equals `Transform3D.rotation(angle, axis)`.
  public var rotationMatrix: Transform3D {
    let xx = x * x, yy = y * y, zz = z * z
    let xy = x * y, xz = x * z, yz = y * z, xw = x * w, yw = y * w, zw = z * w
    return Transform3D(
      m11: 1 - 2 * (yy + zz), m12: 2 * (xy + zw), m13: 2 * (xz - yw), m14: 0,
      m21: 2 * (xy - zw), m22: 1 - 2 * (xx + zz), m23: 2 * (yz + xw), m24: 0,
      m31: 2 * (xz + yw), m32: 2 * (yz - xw), m33: 1 - 2 * (xx + yy), m34: 0,
      m41: 0, m42: 0, m43: 0, m44: 1)
  }

  /// The unit quaternion of a proper rotation given as a row-vector 3x3 (upper-left of `m`),
  /// with w >= 0 (the sign CSS Transforms' unmatrix produces).
  ///
  /// Shepperd's method: the largest of |w|, |x|, |y|, |z| comes from a square root of the
  /// diagonal, the others from off-diagonal sums divided by it, so no component loses
  /// precision near zero (the CSS spec's four square roots lose ~1e-8 there).
  public init(rotationMatrix m: Transform3D) {
    let trace = m.m11 + m.m22 + m.m33
    var q: Quaternion
    if trace >= m.m11 && trace >= m.m22 && trace >= m.m33 {
      let w4 = 2 * (1 + trace).squareRoot()  // 4w
      q = Quaternion(
        x: (m.m23 - m.m32) / w4, y: (m.m31 - m.m13) / w4, z: (m.m12 - m.m21) / w4, w: w4 / 4)
    } else if m.m11 >= m.m22 && m.m11 >= m.m33 {
      let x4 = 2 * (1 + m.m11 - m.m22 - m.m33).squareRoot()
      q = Quaternion(
        x: x4 / 4, y: (m.m12 + m.m21) / x4, z: (m.m13 + m.m31) / x4, w: (m.m23 - m.m32) / x4)
    } else if m.m22 >= m.m33 {
      let y4 = 2 * (1 - m.m11 + m.m22 - m.m33).squareRoot()
      q = Quaternion(
        x: (m.m12 + m.m21) / y4, y: y4 / 4, z: (m.m23 + m.m32) / y4, w: (m.m31 - m.m13) / y4)
    } else {
      let z4 = 2 * (1 - m.m11 - m.m22 + m.m33).squareRoot()
      q = Quaternion(
        x: (m.m13 + m.m31) / z4, y: (m.m23 + m.m32) / z4, z: z4 / 4, w: (m.m12 - m.m21) / z4)
    }
    if q.w < 0 { q = -q }
    self = q.normalized
  }

  /// Spherical interpolation as Core Animation does it: the shortest path (negate `b` when
  /// the dot product is negative; CSS Transforms Level 2 does not), and normalised linear
  /// interpolation when |dot| > 0.9999 (where slerp's 1/sin(theta) loses precision).
  /// `t` may leave [0, 1] (overshooting curves and springs extrapolate along the same arc).
  public static func slerp(_ a: Quaternion, _ b: Quaternion, _ t: Double) -> Quaternion {
    let (b, d) = shortestPath(a, b)
    if d > nlerpThreshold {
      return Quaternion(
        x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t,
        z: a.z + (b.z - a.z) * t, w: a.w + (b.w - a.w) * t
      ).normalized
    }
    let theta = acos(min(d, 1))
    let s = sin(theta)
    let wa = sin((1 - t) * theta) / s
    let wb = sin(t * theta) / s
    return Quaternion(
      x: a.x * wa + b.x * wb, y: a.y * wa + b.y * wb, z: a.z * wa + b.z * wb, w: a.w * wa + b.w * wb)
  }

  /// `b` or `-b`, whichever is nearer `a` (the same rotation), and its dot product with
  /// `a` (>= 0): slerp's shortest path, shared with its angular velocity.
  static func shortestPath(_ a: Quaternion, _ b: Quaternion) -> (b: Quaternion, dot: Double) {
    let d = a.dot(b)
    return d < 0 ? (-b, -d) : (b, d)
  }

  /// Above this |dot| slerp switches to normalised lerp (Core Animation's threshold).
  public static let nlerpThreshold = 0.9999
}
