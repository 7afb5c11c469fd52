// AffineTransform2D: CGAffineTransform (a b c d tx ty), row-vector convention:
// (x', y') = (x a + y c + tx, x b + y d + ty).

import Foundation

/// A 2D affine transform with CGAffineTransform's fields and conventions (points, radians).
public struct AffineTransform2D: Sendable, Hashable, Codable {
  public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

  public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }

  /// CGAffineTransformIdentity.
  public static let identity = AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

  /// CGAffineTransformMakeRotation(angle): a = cos, b = sin, c = -sin, d = cos (radians).
  public static func rotation(_ angle: Double) -> AffineTransform2D {
    AffineTransform2D(a: cos(angle), b: sin(angle), c: -sin(angle), d: cos(angle), tx: 0, ty: 0)
  }

  /// CGAffineTransformMakeTranslation(tx, ty), points.
  public static func translation(_ tx: Double, _ ty: Double) -> AffineTransform2D {
    AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)
  }

  /// CGAffineTransformMakeScale(sx, sy).
  public static func scale(_ sx: Double, _ sy: Double) -> AffineTransform2D {
    AffineTransform2D(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
  }

  /// CATransform3DMakeAffineTransform: m11 = a, m12 = b, m21 = c, m22 = d, m41 = tx, m42 = ty.
  public var transform3D: Transform3D {
    var t = Transform3D.identity
    (t.m11, t.m12, t.m21, t.m22, t.m41, t.m42) = (a, b, c, d, tx, ty)
    return t
  }
}

extension Transform3D {
  /// CATransform3DMakeAffineTransform.
  public init(_ affine: AffineTransform2D) { self = affine.transform3D }

  /// CATransform3DGetAffineTransform when `isAffine`, else nil (the 3D parts would be lost).
  public var affine: AffineTransform2D? {
    guard isAffine else { return nil }
    return AffineTransform2D(a: m11, b: m12, c: m21, d: m22, tx: m41, ty: m42)
  }
}
