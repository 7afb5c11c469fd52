// Interpolation between two whole transforms, as Core Animation animates `transform`
// (CABasicAnimation "transform", UIView .transform, layer.transform inside an animation
// block): decompose, interpolate the parts, recompose; never element-wise lerp.

import Foundation

/// How a whole-matrix animation interpolates.
public enum TransformInterpolationMode: String, Sendable, Codable, CaseIterable {
  /// Core Animation: the 2D decomposition when both ends are affine, else the 3D one.
  case decomposed
  /// Element-wise lerp of the 16 entries (not what Core Animation does; offered because
  /// some renderers do it, and to measure how far it is from the faithful path).
  case componentwise
}

/// Precomputed interpolation between two transforms. Decompositions happen once, in init.
///
/// Fallback (documented): when either end cannot be decomposed (a zero scale, m44 = 0,
/// a non-finite entry), the result is `from` for p < 0.5 and `to` from p = 0.5 on, the
/// discrete rule of CSS Transforms; it is also what iOS developers see when they animate a
/// transform to scale 0 (it jumps instead of shrinking).
public struct TransformInterpolator: Sendable, Hashable {
  public enum Path: Sendable, Hashable {
    case twoD(Decomposed2D, Decomposed2D)
    case threeD(Decomposed3D, Decomposed3D)
    case componentwise
    case discrete
  }
  public let from: Transform3D
  public let to: Transform3D
  public let mode: TransformInterpolationMode
  /// The path chosen for this pair, with its (prepared) decomposed ends.
  public let path: Path

  public init(from: Transform3D, to: Transform3D, mode: TransformInterpolationMode = .decomposed) {
    self.from = from
    self.to = to
    self.mode = mode
    switch mode {
    case .componentwise:
      path = .componentwise
    case .decomposed:
      if from.isAffine, to.isAffine, var a = Decomposed2D(from), var b = Decomposed2D(to) {
        Decomposed2D.prepare(&a, &b)
        path = .twoD(a, b)
      } else if let a = Decomposed3D(from), let b = Decomposed3D(to) {
        path = .threeD(a, b)
      } else {
        path = .discrete
      }
    }
  }

  /// The transform at progress `p` (0 gives `from`, 1 gives `to`; values outside [0, 1]
  /// extrapolate, as overshooting curves and springs need).
  public func value(at p: Double) -> Transform3D {
    switch path {
    case .twoD(let a, let b):
      return Decomposed2D.lerp(a, b, p).transform
    case .threeD(let a, let b):
      return Decomposed3D.interpolate(a, b, p).transform
    case .componentwise:
      var r = Transform3D.identity
      for i in 0..<4 { for j in 0..<4 { r[i, j] = from[i, j] + (to[i, j] - from[i, j]) * p } }
      return r
    case .discrete:
      return p < 0.5 ? from : to
    }
  }
}
