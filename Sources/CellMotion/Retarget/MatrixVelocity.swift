// The velocity of a whole-matrix animation: how fast each component of its interpolation
// path changes (issue 15): the decomposed numbers' rates, and the rotation's angular
// velocity. Position-like quantities of a matrix (a point's image) follow by the chain
// rule; these are what a renderer or a retarget of a matrix needs.

import Foundation

/// The rates of a 3D decomposition (`Decomposed3D`): each lerped number per second, and
/// the angular velocity of the slerped rotation.
public struct Decomposed3DRate: Sendable, Hashable {
  /// d/dt of the perspective row's four numbers, per second.
  public var perspective: [Double]
  /// Points per second.
  public var translate: Vector3
  /// Per second.
  public var scale: Vector3
  /// Per second.
  public var skew: Vector3
  /// Radians per second about the rotation's own axis convention: the vector part of
  /// 2 q'(t) q(t)* for the interpolated unit quaternion q (Core Animation's shortest-path
  /// slerp, or its normalised lerp for nearly equal ends). Its length is the turning speed.
  public var angularVelocity: Vector3
}

/// How fast a matrix animation's interpolated components change at one time.
public enum MatrixVelocity: Sendable, Hashable {
  /// The 2D path: d/dt of each number of `Decomposed2D` (translation in points per
  /// second, the angle in radians per second, scales and the 2x2 per second).
  case twoD(Decomposed2D)
  /// The 3D path.
  case threeD(Decomposed3DRate)
  /// Entry by entry: d/dt of each of the 16 entries.
  case componentwise(Transform3D)
  /// Nothing moves: the discrete fallback (it jumps), the animation not in effect, a held
  /// (reduce motion) or finished one.
  case still

  /// The path's rates for `interpolation` at progress `p` moving at `rate` (progress per
  /// second).
  public init(_ interpolation: TransformInterpolator, progress p: Double, rate: Double) {
    switch interpolation.path {
    case .twoD(let a, let b):
      self = .twoD(
        Decomposed2D(
          translateX: (b.translateX - a.translateX) * rate, translateY: (b.translateY - a.translateY) * rate,
          scaleX: (b.scaleX - a.scaleX) * rate, scaleY: (b.scaleY - a.scaleY) * rate, angle: (b.angle - a.angle) * rate,
          m11: (b.m11 - a.m11) * rate, m12: (b.m12 - a.m12) * rate, m21: (b.m21 - a.m21) * rate,
          m22: (b.m22 - a.m22) * rate))
    case .threeD(let a, let b):
      self = .threeD(
        Decomposed3DRate(
          perspective: [
            (b.perspective.0 - a.perspective.0) * rate, (b.perspective.1 - a.perspective.1) * rate,
            (b.perspective.2 - a.perspective.2) * rate, (b.perspective.3 - a.perspective.3) * rate,
          ], translate: (b.translate - a.translate) * rate, scale: (b.scale - a.scale) * rate,
          skew: (b.skew - a.skew) * rate,
          angularVelocity: Quaternion.slerpAngularVelocity(a.quaternion, b.quaternion, p) * rate))
    case .componentwise:
      var r = Transform3D.identity
      for i in 0..<4 { for j in 0..<4 { r[i, j] = (interpolation.to[i, j] - interpolation.from[i, j]) * rate } }
      self = .componentwise(r)
    case .discrete:
      self = .still
    }
  }
}

extension Quaternion {
  /// The vector part of 2 q'(t) q(t)* for q(t) = `slerp(a, b, t)` (per unit of t): the
  /// angular velocity of the interpolated rotation, in closed form for both of slerp's
  /// regimes (constant speed 2 theta about the relative axis; the normalised lerp's
  /// derivative near equal ends).
  public static func slerpAngularVelocity(_ a: Quaternion, _ b: Quaternion, _ t: Double) -> Vector3 {
    let (b, d) = shortestPath(a, b)
    let q = slerp(a, b, t)
    let dq: Quaternion
    if d > nlerpThreshold {
      // q = n / |n|, n = a + (b - a) t: q' = (n' - q (q . n')) / |n|.
      let n = Quaternion(
        x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t, w: a.w + (b.w - a.w) * t)
      let length = n.dot(n).squareRoot()
      let dn = Quaternion(x: b.x - a.x, y: b.y - a.y, z: b.z - a.z, w: b.w - a.w)
      let along = q.dot(dn)
      dq = Quaternion(
        x: (dn.x - q.x * along) / length, y: (dn.y - q.y * along) / length, z: (dn.z - q.z * along) / length,
        w: (dn.w - q.w * along) / length)
    } else {
      let theta = acos(min(d, 1))
      let s = sin(theta)
      let wa = -theta * cos((1 - t) * theta) / s, wb = theta * cos(t * theta) / s
      dq = Quaternion(
        x: a.x * wa + b.x * wb, y: a.y * wa + b.y * wb, z: a.z * wa + b.z * wb, w: a.w * wa + b.w * wb)
    }
    // 2 dq q*: the vector part of the Hamilton product with the conjugate (-x, -y, -z, w).
    let (x, y, z, w) = (-q.x, -q.y, -q.z, q.w)
    return Vector3(
      2 * (dq.w * x + dq.x * w + dq.y * z - dq.z * y),
      2 * (dq.w * y - dq.x * z + dq.y * w + dq.z * x),
      2 * (dq.w * z + dq.x * y - dq.y * x + dq.z * w))
  }
}

extension MatrixAnimation {
  /// The rates of the animation's components at progress `p` of its curve moving at
  /// `rate` progress per second: the two matrices' path, or the keyframe segment's at its
  /// eased fraction (moving at the key track's slope times `rate`).
  public func velocity(progress p: Double, rate: Double) -> MatrixVelocity {
    guard let keyframes else {
      return MatrixVelocity(TransformInterpolator(from: from, to: to, mode: mode), progress: p, rate: rate)
    }
    guard keyframes.mode != .discrete, keyframes.values.count > 1, p >= 0, p <= 1,
      let timing = try? keyframes.timing()
    else { return .still }
    let (i, u) = timing.segment(at: p, duration: duration)
    return MatrixVelocity(keyframes.segment(i, mode), progress: u, rate: timing.slope(at: p, duration: duration) * rate)
  }
}

extension ReferenceEvaluator {
  /// The rates of `recipe`'s matrix animation for one cell at `time` (parameters as
  /// `evaluate`'s): d(progress)/dt from the curve and the media timing, then
  /// `MatrixAnimation.velocity`; nil when the recipe has no matrix animation, `.still`
  /// where it is not in effect or the motion policy holds it.
  public static func matrixVelocity(
    _ recipe: Recipe, row: Int = 0, batchPosition: Int = 0, rowCount: Int? = nil, batchCount: Int? = nil,
    startTime: Double = 0, time: Double, motion: MotionPolicy? = nil
  ) -> MatrixVelocity? {
    guard let m = recipe.matrix else { return nil }
    let start = startTime + staggerDelay(
      recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    guard !(motion ?? recipe.motion).holdsTransforms,
      let media = mediaTiming(duration: m.duration, begin: start + m.delay, timing: recipe.timing),
      let local = media.localTime(parentTime: time)
    else { return .still }
    let rate = m.curve.velocity(localTime: local, duration: m.duration) * media.localTimeRate(parentTime: time)
    return m.velocity(progress: m.curve.progress(localTime: local, duration: m.duration), rate: rate)
  }
}
