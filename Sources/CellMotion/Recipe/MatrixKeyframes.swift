// Keyframes of a whole matrix: CAKeyframeAnimation on `transform` with CATransform3D values.
// Each segment interpolates its two matrices as a two-value matrix animation does
// (decomposition: the 2D path when both are affine, else the 3D one; or componentwise).

import Foundation

/// Keyframes of a whole-matrix animation (`MatrixAnimation.keyframes`): CAKeyframeAnimation
/// with `values` as CATransform3Ds, `keyTimes` and per-segment `timingFunctions`.
///
/// Segments are found and eased exactly as `KeyframeTrack` does for scalars
/// (`KeyframeTrack.segment(at:duration:)`); segment i then interpolates values[i] ->
/// values[i + 1] at its eased fraction by the animation's `TransformInterpolationMode`, as
/// a two-value matrix animation (`TransformInterpolator`): per segment, the 2D
/// decomposition when both matrices are affine, else the 3D one, discrete when either does
/// not decompose.
///
/// Modes: `linear` and `discrete`. Apple does not say how `paced` or the cubic modes treat
/// matrices (they need a distance between matrices, or a spline through their parts);
/// CellMotion refuses them with a typed error rather than guess.
///
/// Limits: 1...`KeyframeTrack.maximumKeys` (64) values.
public struct MatrixKeyframes: Sendable, Hashable {
  /// The matrices (CATransform3D, points).
  public var values: [Transform3D]
  /// As `ChannelKeyframes.keyTimes`: fractions of the duration from 0 to 1; one per value,
  /// values + 1 for `discrete`; nil spaces them evenly.
  public var keyTimes: [Double]?
  /// One curve per segment (values - 1), Bezier or spring; nil: linear.
  public var timingFunctions: [AnimationCurve]?
  /// `linear` or `discrete`.
  public var mode: KeyframeCalculationMode

  public init(
    values: [Transform3D], keyTimes: [Double]? = nil, timingFunctions: [AnimationCurve]? = nil,
    mode: KeyframeCalculationMode = .linear
  ) {
    self.values = values
    self.keyTimes = keyTimes
    self.timingFunctions = timingFunctions
    self.mode = mode
  }

  /// The timing of the keys: a scalar track over the key indices, whose segments and eased
  /// fractions are the matrices' (`KeyframeTrack.segment(at:duration:)`).
  public func timing() throws(CellMotionError) -> KeyframeTrack {
    try KeyframeTrack(
      values: values.indices.map(Double.init), keyTimes: keyTimes, timingFunctions: timingFunctions, mode: mode)
  }

  /// Segment i's interpolation, values[i] -> values[i + 1] (`interpolation` the
  /// animation's mode).
  public func segment(_ i: Int, _ interpolation: TransformInterpolationMode) -> TransformInterpolator {
    TransformInterpolator(from: values[i], to: values[min(i + 1, values.count - 1)], mode: interpolation)
  }

  /// The matrix at fraction `f` of the animation (clamped to [0, 1]); `duration` in
  /// seconds, for spring segments. Valid keyframes only (`validate`); an invalid set gives
  /// its last value.
  public func value(at f: Double, duration: Double, interpolation: TransformInterpolationMode) -> Transform3D {
    guard let timing = try? timing() else { return values.last ?? .identity }
    let (i, u) = timing.segment(at: f, duration: duration)
    if mode == .discrete || values.count == 1 { return values[i] }
    return segment(i, interpolation).value(at: u)
  }

  /// The model value, shown when the animation is not in effect: the last segment at its
  /// end, as the path represents it (the 3D path normalises by m44, the same projective
  /// map), as a two-value animation's `to`; the only value for one key; the last value
  /// for discrete.
  public func modelValue(interpolation: TransformInterpolationMode) -> Transform3D {
    guard values.count > 1, mode != .discrete else { return values.last ?? .identity }
    return segment(values.count - 2, interpolation).value(at: 1)
  }

  /// Checks the mode, the counts and key times (`KeyframeTrack`'s rules) and every pair of
  /// neighbouring matrices as a two-value animation's ends (`Recipe.validateMatrixEnds`).
  func validate(_ field: String, interpolation: TransformInterpolationMode) throws(CellMotionError) {
    guard mode == .linear || mode == .discrete else {
      throw .invalidCombination(
        field: "\(field).calculationMode",
        reason: "matrix keyframes take linear or discrete, not \(mode.rawValue) (Apple does not define a pace or a "
          + "spline of matrices)")
    }
    do {
      _ = try timing()
    } catch {
      throw error.prefixed(field)
    }
    for i in values.indices {
      let pair = MatrixAnimation(
        from: values[i], to: values[min(i + 1, values.count - 1)], mode: interpolation, curve: .bezier(.linear),
        duration: 1)
      try Recipe.validateMatrixEnds(pair, "\(field).values[\(i)]")
    }
  }
}
