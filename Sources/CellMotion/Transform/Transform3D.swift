// Transform3D: Core Animation's CATransform3D, in Double.
//
// Goals, in priority order: (1) exactly CATransform3D's conventions, so numbers read off an
// iOS device match; (2) clarity: each function is the textbook formula; (3) speed is the
// kernel's business, not this file's.
//
// Conventions (CATransform3D):
// - Fields m11...m44, row vectors: a point p = (x, y, z, 1) maps to p' = p * M, so the
//   translation lives in m41 m42 m43 and perspective in m14 m24 m34 (m34 = -1/d).
// - `concatenating(b)` is CATransform3DConcat(self, b) = self * b: self applies first.
// - `translatedBy/rotatedBy/scaledBy` are CATransform3DTranslate/Rotate/Scale: the new step
//   is pre-multiplied (Step * self), so it applies first, in self's frame.
// - Angles are radians. With UIKit's y-down screen, a positive angle about z turns clockwise
//   on screen.

import Foundation

/// A 3D point or vector in points (layer coordinates: x right, y down, z toward the viewer).
public struct Vector3: Sendable, Hashable, Codable {
  public var x: Double
  public var y: Double
  public var z: Double
  public init(_ x: Double, _ y: Double, _ z: Double = 0) {
    self.x = x
    self.y = y
    self.z = z
  }
  public static let zero = Vector3(0, 0, 0)
}

/// A 4x4 homogeneous transform with CATransform3D's fields and row-vector convention.
///
/// Storage order m11 m12 m13 m14 m21 ... m44 (row-major of the row-vector matrix) is the
/// column-major storage of the column-vector matrix that GPU APIs use, so the 16 values in
/// field order are exactly a Metal/simd `float4x4` for `M * float4(p, 1)`.
public struct Transform3D: Sendable, Hashable, Codable, CustomStringConvertible {
  public var m11: Double, m12: Double, m13: Double, m14: Double
  public var m21: Double, m22: Double, m23: Double, m24: Double
  public var m31: Double, m32: Double, m33: Double, m34: Double
  public var m41: Double, m42: Double, m43: Double, m44: Double

  /// Memberwise, in field order.
  public init(
    m11: Double, m12: Double, m13: Double, m14: Double,
    m21: Double, m22: Double, m23: Double, m24: Double,
    m31: Double, m32: Double, m33: Double, m34: Double,
    m41: Double, m42: Double, m43: Double, m44: Double
  ) {
    (self.m11, self.m12, self.m13, self.m14) = (m11, m12, m13, m14)
    (self.m21, self.m22, self.m23, self.m24) = (m21, m22, m23, m24)
    (self.m31, self.m32, self.m33, self.m34) = (m31, m32, m33, m34)
    (self.m41, self.m42, self.m43, self.m44) = (m41, m42, m43, m44)
  }

  /// From 16 values in field order (m11, m12, ..., m44). Throws if the count is not 16 or a
  /// value is not finite.
  public init(fieldOrder values: [Double]) throws(CellMotionError) {
    guard values.count == 16 else {
      throw .bufferSize(field: "Transform3D values", expected: 16, actual: values.count)
    }
    for (i, v) in values.enumerated() where !v.isFinite { try Check.finite(v, "Transform3D m\(i / 4 + 1)\(i % 4 + 1)") }
    self.init(rows: (0..<4).map { r in (0..<4).map { values[r * 4 + $0] } })
  }

  /// The 16 values in field order m11, m12, ..., m44.
  public var fieldOrder: [Double] {
    [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
  }

  /// Traps naming the index and the range (out of line: keeps the accessor small).
  @inline(never)
  static func indexOutOfRange(_ row: Int, _ column: Int) -> Never {
    preconditionFailure("Transform3D index [\(row), \(column)] out of range: row and column must be in 0..<4")
  }

  /// Element access by zero-based row and column (row r, column c is m(r+1)(c+1)).
  ///
  /// - Precondition: `row` and `column` in `0..<4`.
  public subscript(row: Int, column: Int) -> Double {
    get {
      switch (row, column) {
      case (0, 0): m11
      case (0, 1): m12
      case (0, 2): m13
      case (0, 3): m14
      case (1, 0): m21
      case (1, 1): m22
      case (1, 2): m23
      case (1, 3): m24
      case (2, 0): m31
      case (2, 1): m32
      case (2, 2): m33
      case (2, 3): m34
      case (3, 0): m41
      case (3, 1): m42
      case (3, 2): m43
      case (3, 3): m44
      default: Self.indexOutOfRange(row, column)
      }
    }
    set {
      switch (row, column) {
      case (0, 0): m11 = newValue
      case (0, 1): m12 = newValue
      case (0, 2): m13 = newValue
      case (0, 3): m14 = newValue
      case (1, 0): m21 = newValue
      case (1, 1): m22 = newValue
      case (1, 2): m23 = newValue
      case (1, 3): m24 = newValue
      case (2, 0): m31 = newValue
      case (2, 1): m32 = newValue
      case (2, 2): m33 = newValue
      case (2, 3): m34 = newValue
      case (3, 0): m41 = newValue
      case (3, 1): m42 = newValue
      case (3, 2): m43 = newValue
      case (3, 3): m44 = newValue
      default: Self.indexOutOfRange(row, column)
      }
    }
  }

  /// Builds from 4 rows of 4 (internal helper).
  init(rows r: [[Double]]) {
    self.init(
      m11: r[0][0], m12: r[0][1], m13: r[0][2], m14: r[0][3],
      m21: r[1][0], m22: r[1][1], m23: r[1][2], m24: r[1][3],
      m31: r[2][0], m32: r[2][1], m33: r[2][2], m34: r[2][3],
      m41: r[3][0], m42: r[3][1], m43: r[3][2], m44: r[3][3])
  }

  /// CATransform3DIdentity.
  public static let identity = Transform3D(
    m11: 1, m12: 0, m13: 0, m14: 0, m21: 0, m22: 1, m23: 0, m24: 0,
    m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)

  public var description: String {
    func f(_ v: Double) -> String { String(v) }
    return "[\(f(m11)) \(f(m12)) \(f(m13)) \(f(m14)); \(f(m21)) \(f(m22)) \(f(m23)) \(f(m24)); "
      + "\(f(m31)) \(f(m32)) \(f(m33)) \(f(m34)); \(f(m41)) \(f(m42)) \(f(m43)) \(f(m44))]"
  }
}

// MARK: - Constructors (CATransform3DMake...)

extension Transform3D {
  /// CATransform3DMakeTranslation(tx, ty, tz): translation in points.
  public static func translation(_ tx: Double, _ ty: Double, _ tz: Double = 0) -> Transform3D {
    var t = identity
    (t.m41, t.m42, t.m43) = (tx, ty, tz)
    return t
  }

  /// CATransform3DMakeScale(sx, sy, sz): unitless factors.
  public static func scale(_ sx: Double, _ sy: Double, _ sz: Double = 1) -> Transform3D {
    var t = identity
    (t.m11, t.m22, t.m33) = (sx, sy, sz)
    return t
  }

  /// CATransform3DMakeRotation(angle, x, y, z): `angle` radians about the axis (x, y, z),
  /// which need not be unit length. A zero axis gives the identity (as Core Animation does).
  ///
  /// Row-vector form: the transpose of the usual column-vector rotation matrix, so for the
  /// z axis m11 = cos, m12 = sin, m21 = -sin, m22 = cos (CGAffineTransformMakeRotation).
  public static func rotation(_ angle: Double, _ x: Double, _ y: Double, _ z: Double) -> Transform3D {
    let length = (x * x + y * y + z * z).squareRoot()
    guard length > 0, length.isFinite else { return identity }
    let (ux, uy, uz) = (x / length, y / length, z / length)
    let c = cos(angle), s = sin(angle), t = 1 - c
    return Transform3D(
      m11: t * ux * ux + c, m12: t * ux * uy + s * uz, m13: t * ux * uz - s * uy, m14: 0,
      m21: t * ux * uy - s * uz, m22: t * uy * uy + c, m23: t * uy * uz + s * ux, m24: 0,
      m31: t * ux * uz + s * uy, m32: t * uy * uz - s * ux, m33: t * uz * uz + c, m34: 0,
      m41: 0, m42: 0, m43: 0, m44: 1)
  }

  /// A perspective transform: identity with m34 = -1/distance (distance in points from the
  /// eye to the z = 0 plane; 500 is the classic value). A point at depth z gets w = 1 - z/d.
  ///
  /// - Throws: `.notFinite` / `.outOfRange` unless `distance` is finite, > 0 and not
  ///   subnormal (at least 2.2e-308, so that -1/distance is finite).
  public static func perspective(distance: Double) throws(CellMotionError) -> Transform3D {
    try Check.positive(distance, "perspective distance")
    var t = identity
    t.m34 = -1 / distance
    return t
  }
}

// MARK: - Composition (CATransform3DConcat, Translate, Rotate, Scale)

extension Transform3D {
  /// CATransform3DConcat(self, other) = self * other: `self` applies first, then `other`.
  public func concatenating(_ b: Transform3D) -> Transform3D {
    // r[i, j] = a[i, 0] b[0, j] + a[i, 1] b[1, j] + a[i, 2] b[2, j] + a[i, 3] b[3, j], summed
    // left to right, written out by field: the subscript's index switch made this the
    // reference's hottest function in debug builds.
    func row(_ x1: Double, _ x2: Double, _ x3: Double, _ x4: Double) -> (Double, Double, Double, Double) {
      let c1: Double = x1 * b.m11 + x2 * b.m21 + x3 * b.m31 + x4 * b.m41
      let c2: Double = x1 * b.m12 + x2 * b.m22 + x3 * b.m32 + x4 * b.m42
      let c3: Double = x1 * b.m13 + x2 * b.m23 + x3 * b.m33 + x4 * b.m43
      let c4: Double = x1 * b.m14 + x2 * b.m24 + x3 * b.m34 + x4 * b.m44
      return (c1, c2, c3, c4)
    }
    var r = Transform3D.identity
    (r.m11, r.m12, r.m13, r.m14) = row(m11, m12, m13, m14)
    (r.m21, r.m22, r.m23, r.m24) = row(m21, m22, m23, m24)
    (r.m31, r.m32, r.m33, r.m34) = row(m31, m32, m33, m34)
    (r.m41, r.m42, r.m43, r.m44) = row(m41, m42, m43, m44)
    return r
  }

  /// `a * b` in the row-vector sense (`a` applies first). Same as `a.concatenating(b)`.
  public static func * (a: Transform3D, b: Transform3D) -> Transform3D { a.concatenating(b) }

  /// CATransform3DTranslate(self, tx, ty, tz) = Translation * self: the translation applies
  /// first, in self's frame.
  public func translatedBy(_ tx: Double, _ ty: Double, _ tz: Double = 0) -> Transform3D {
    Transform3D.translation(tx, ty, tz).concatenating(self)
  }

  /// CATransform3DScale(self, sx, sy, sz) = Scale * self.
  public func scaledBy(_ sx: Double, _ sy: Double, _ sz: Double = 1) -> Transform3D {
    Transform3D.scale(sx, sy, sz).concatenating(self)
  }

  /// CATransform3DRotate(self, angle, x, y, z) = Rotation * self (`angle` in radians).
  public func rotatedBy(_ angle: Double, _ x: Double, _ y: Double, _ z: Double) -> Transform3D {
    Transform3D.rotation(angle, x, y, z).concatenating(self)
  }
}

// MARK: - Predicates, determinant, inverse

extension Transform3D {
  /// CATransform3DIsIdentity: exact comparison with the identity.
  public var isIdentity: Bool { self == .identity }

  /// CATransform3DIsAffine: exactly representable as a 2D affine transform (a b c d tx ty):
  /// m13 m14 m23 m24 m31 m32 m34 m43 are zero and m33 = m44 = 1.
  public var isAffine: Bool {
    m13 == 0 && m14 == 0 && m23 == 0 && m24 == 0 && m31 == 0 && m32 == 0 && m34 == 0
      && m43 == 0 && m33 == 1 && m44 == 1
  }

  /// Whether every entry is finite.
  public var isFinite: Bool { fieldOrder.allSatisfy(\.isFinite) }

  /// The determinant (cofactor expansion).
  public var determinant: Double {
    let s0 = m11 * m22 - m21 * m12, s1 = m11 * m23 - m21 * m13, s2 = m11 * m24 - m21 * m14
    let s3 = m12 * m23 - m22 * m13, s4 = m12 * m24 - m22 * m14, s5 = m13 * m24 - m23 * m14
    let c5 = m33 * m44 - m43 * m34, c4 = m32 * m44 - m42 * m34, c3 = m32 * m43 - m42 * m33
    let c2 = m31 * m44 - m41 * m34, c1 = m31 * m43 - m41 * m33, c0 = m31 * m42 - m41 * m32
    return s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
  }

  /// The inverse, or `CellMotionError.singularMatrix` when there is none (determinant zero,
  /// relative to the matrix's scale, or not finite).
  ///
  /// Gauss-Jordan elimination with partial pivoting.
  /// - Complexity: O(1) (64 multiply-adds order).
  public func inverted() throws(CellMotionError) -> Transform3D {
    guard isFinite else { throw .singularMatrix(field: "transform") }
    var a = [[Double]](repeating: [Double](repeating: 0, count: 8), count: 4)
    var maxAbs = 0.0
    for i in 0..<4 {
      for j in 0..<4 {
        a[i][j] = self[i, j]
        maxAbs = max(maxAbs, self[i, j].magnitude)
      }
      a[i][4 + i] = 1
    }
    guard maxAbs.isFinite, maxAbs > 0 else { throw .singularMatrix(field: "transform") }
    for col in 0..<4 {
      var pivot = col
      for r in (col + 1)..<4 where a[r][col].magnitude > a[pivot][col].magnitude { pivot = r }
      // A pivot this small relative to the largest entry means rank < 4 in Double.
      guard a[pivot][col].magnitude > maxAbs * 1e-14 else {
        throw .singularMatrix(field: "transform")
      }
      if pivot != col { a.swapAt(pivot, col) }
      let inv = 1 / a[col][col]
      for j in 0..<8 { a[col][j] *= inv }
      for r in 0..<4 where r != col {
        let f = a[r][col]
        if f != 0 { for j in 0..<8 { a[r][j] -= f * a[col][j] } }
      }
    }
    return Transform3D(rows: a.map { Array($0[4..<8]) })
  }

  /// CATransform3DInvert semantics: the inverse, or `self` unchanged when it has none.
  public var invertedOrSelf: Transform3D { (try? inverted()) ?? self }

  /// The transpose (switches between the row-vector and column-vector conventions).
  public var transposed: Transform3D {
    Transform3D(
      m11: m11, m12: m21, m13: m31, m14: m41, m21: m12, m22: m22, m23: m32, m24: m42,
      m31: m13, m32: m23, m33: m33, m34: m43, m41: m14, m42: m24, m43: m34, m44: m44)
  }
}

// MARK: - Applying to points, anchor points, layers

extension Transform3D {
  /// Maps the homogeneous row vector (x, y, z, w) to (x, y, z, w) * M.
  public func applyHomogeneous(_ x: Double, _ y: Double, _ z: Double, _ w: Double)
    -> (x: Double, y: Double, z: Double, w: Double)
  {
    (
      x * m11 + y * m21 + z * m31 + w * m41,
      x * m12 + y * m22 + z * m32 + w * m42,
      x * m13 + y * m23 + z * m33 + w * m43,
      x * m14 + y * m24 + z * m34 + w * m44
    )
  }

  /// Maps a point (w = 1) and divides by the resulting w (perspective projection onto the
  /// z = 0 plane's coordinates). w can be zero or negative for points behind the eye.
  public func apply(_ p: Vector3) -> Vector3 {
    let h = applyHomogeneous(p.x, p.y, p.z, 1)
    return Vector3(h.x / h.w, h.y / h.w, h.z / h.w)
  }

  /// Smallest w a projected point keeps (`projectedPoint`): a point whose w is at or below
  /// it is on or behind the eye plane (w = 0 is the eye's plane for m34 = -1/d at z = d).
  public static let minimumProjectedW = 1e-6

  /// The point (x, y, 0) of the layer's plane (points) as it is drawn: the row vector
  /// (x, y, 0, 1) times the matrix, divided by w. Nil when w <= `minimumProjectedW`, i.e.
  /// the point is behind the eye (Core Animation clips it; there is no finite position).
  public func projectedPoint(x: Double, y: Double) -> (x: Double, y: Double)? {
    let h = applyHomogeneous(x, y, 0, 1)
    guard h.w > Self.minimumProjectedW else { return nil }
    return (h.x / h.w, h.y / h.w)
  }

  /// The corners of a `width` x `height` rectangle (points, origin top-left, y down) as
  /// drawn: top-left, top-right, bottom-right, bottom-left, each `projectedPoint`. Nil when
  /// any corner is behind the eye.
  public func projectedCorners(width: Double, height: Double) -> [(x: Double, y: Double)]? {
    var out: [(x: Double, y: Double)] = []
    out.reserveCapacity(4)
    for (x, y) in [(0.0, 0.0), (width, 0), (width, height), (0, height)] {
      guard let p = projectedPoint(x: x, y: y) else { return nil }
      out.append(p)
    }
    return out
  }

  /// This transform acting about an anchor point: Translate(-anchor) * self * Translate(+anchor).
  /// `anchor` is in points in the same space as the points being transformed (for a layer:
  /// anchorPoint * bounds size, e.g. the centre (w/2, h/2) for the default (0.5, 0.5)).
  public func about(_ anchor: Vector3) -> Transform3D {
    Transform3D.translation(-anchor.x, -anchor.y, -anchor.z)
      .concatenating(self)
      .concatenating(.translation(anchor.x, anchor.y, anchor.z))
  }

  /// A layer's model matrix: maps a point in the layer's bounds (points, origin top-left,
  /// y down) to its superlayer: p * T(-anchor) * transform * T(position), where
  /// anchor = anchorPoint * bounds size (anchorPoint unit, default (0.5, 0.5)) and position
  /// is where the anchor sits in the superlayer (points). `sublayerPerspective` of the
  /// superlayer, if any, is applied about the superlayer's centre by the caller.
  public static func layerModel(
    transform: Transform3D, boundsWidth: Double, boundsHeight: Double,
    anchorPoint: (x: Double, y: Double) = (0.5, 0.5), position: Vector3
  ) -> Transform3D {
    let anchor = Vector3(anchorPoint.x * boundsWidth, anchorPoint.y * boundsHeight, 0)
    return Transform3D.translation(-anchor.x, -anchor.y, -anchor.z)
      .concatenating(transform)
      .concatenating(.translation(position.x, position.y, position.z))
  }
}
