// The ranges every numeric input is checked against at the API boundary.
//
// Goals, in priority order:
// 1. One rule: if validation passes, every output is finite: the reference in Double, the
//    kernel in Float (largest finite Float 3.4e38), the CLI's text. Each bound below is
//    chosen so that the largest products the evaluators form stay many orders of magnitude
//    below Float's range (the property test in `InputLimitsTests` evaluates recipes built
//    from the extremes of every range through both evaluators).
// 2. Generous: every bound is far outside what an interface animates (a screen is a few
//    thousand points; animations last seconds), so no realistic input is refused.
// 3. Named errors: a value outside its range throws `CellMotionError.outOfRange` naming
//    the field and the range.

/// The documented ranges of numeric inputs (points, seconds, radians, unitless).
///
/// Every public initialiser and `validate()` checks its numbers against these once; the
/// evaluators then trust them. Within these ranges every output of the reference and of
/// the kernel is finite.
public enum InputLimits {
  /// Sizes: cell width and height, table width, detail heights, row heights, viewport
  /// height, in points: `1e-3 ... 1e6`. Zero and negative sizes are refused.
  public static let length: ClosedRange<Double> = 1e-3...1e6

  /// Absolute times (start times, frame times, begin times, toggle times), seconds:
  /// `-1e9 ... 1e9` (about 31 years either way; Double keeps 1.2e-7 s at 1e9).
  public static let time: ClosedRange<Double> = -1e9...1e9

  /// A cell's progress through its recipe when the caller gives it
  /// (`ProgressSource.progress`; 0 the start, 1 the end, beyond either the fill mode
  /// decides), unitless: `-1e6 ... 1e6`.
  public static let progress: ClosedRange<Double> = -1e6...1e6

  /// Durations of channels, matrix animations and folds, seconds: `1e-6 ... 1e5`.
  public static let duration: ClosedRange<Double> = 1e-6...1e5

  /// Delays and stagger steps, seconds: `0 ... 1e5`.
  public static let delay: ClosedRange<Double> = 0...1e5

  /// The constant part of a channel value (points for translations, radians for
  /// rotations, unitless for scales and opacities): `-1e6 ... 1e6`.
  public static let channelConstant: ClosedRange<Double> = -1e6...1e6

  /// The per-cell-height and per-table-width factors of a channel value: `-1e3 ... 1e3`.
  public static let channelFactor: ClosedRange<Double> = -1e3...1e3

  /// A channel's value as one cell sees it, and the numbers given directly in its units
  /// (the values of a `KeyframeTrack`, the ends of a `MotionSegment`): `-1e10 ... 1e10`.
  /// It holds every resolved value (|constant| + 2 x |factor| x size <= 1e6 + 2 x 1e3 x
  /// 1e6 = 2.001e9) with room to spare, and keeps the differences, tangents and arc
  /// lengths the keyframe modes form (a few times 1e10) finite, where values near 1e308
  /// overflowed to NaN.
  public static let channelValue: ClosedRange<Double> = -1e10...1e10

  /// Entries of the matrices of a whole-matrix animation: `-1e6 ... 1e6`; the numbers of
  /// their decomposition (translation, scale, skew, perspective) must lie in the same range.
  public static let matrixEntry: ClosedRange<Double> = -1e6...1e6

  /// Anchor points, unit fractions of the cell's bounds: `-1e3 ... 1e3`.
  public static let anchor: ClosedRange<Double> = -1e3...1e3

  /// Perspective distances d (m34 = -1/d), points: `1e-2 ... 1e7`.
  public static let perspectiveDistance: ClosedRange<Double> = 1e-2...1e7

  /// CAMediaTiming speed (recipes and `MediaTiming`): `1e-3 ... 1e3`.
  public static let speed: ClosedRange<Double> = 1e-3...1e3

  /// CAMediaTiming repeatCount in recipes: `0 ... 1e6`.
  public static let repeatCount: ClosedRange<Double> = 0...1e6

  /// The y coordinates of a cubic Bezier's control points (overshoot): `-1e3 ... 1e3`.
  public static let bezierY: ClosedRange<Double> = -1e3...1e3

  /// A spring's mass: `1e-6 ... 1e6` (only the ratios k/m and c/m matter).
  public static let springMass: ClosedRange<Double> = 1e-6...1e6

  /// A spring's natural frequency w0 = sqrt(k/m), radians per second: `1e-3 ... 1e4`
  /// (periods from 0.6 ms to 105 minutes).
  public static let springNaturalFrequency: ClosedRange<Double> = 1e-3...1e4

  /// A spring's decay rate c / (2m), 1/second: `0 ... 1e6`.
  public static let springDecayRate: ClosedRange<Double> = 0...1e6

  /// A spring's initial velocity, distances per second: `-1e4 ... 1e4`.
  public static let springVelocity: ClosedRange<Double> = -1e4...1e4

  /// Kochanek-Bartels tension, continuity and bias of keyframes: [-1, 1], the range their
  /// authors give (Kochanek and Bartels 1984); 0 is Catmull-Rom.
  public static let keyframeParameter: ClosedRange<Double> = -1...1

  /// Scroll offsets and scroll limits, points: `-1e15 ... 1e15` (row positions derived from
  /// them are handed to the kernel as Float).
  public static let scrollOffset: ClosedRange<Double> = -1e15...1e15

  /// Scroll velocities, points per second: `-1e7 ... 1e7`.
  public static let scrollVelocity: ClosedRange<Double> = -1e7...1e7
}

extension Check {
  /// Finite and inside `range`; the error names the field and the range.
  @discardableResult
  package static func within(_ value: Double, _ range: ClosedRange<Double>, _ field: String)
    throws(CellMotionError) -> Double
  {
    try finite(value, field)
    guard range.contains(value) else {
      throw .outOfRange(field: field, value: value, expected: "in [\(short(range.lowerBound)), \(short(range.upperBound))]")
    }
    return value
  }

  /// A size in `InputLimits.length` (points).
  @discardableResult
  package static func length(_ value: Double, _ field: String) throws(CellMotionError) -> Double {
    try within(value, InputLimits.length, field)
  }

  /// An absolute time in `InputLimits.time` (seconds).
  @discardableResult
  package static func time(_ value: Double, _ field: String) throws(CellMotionError) -> Double {
    try within(value, InputLimits.time, field)
  }

  /// Compact text for a bound: integers below 1e4 as integers, other powers of ten as
  /// `1e6` / `1e-6`, anything else as Swift prints it (`0.001`).
  static func short(_ x: Double) -> String {
    if x == x.rounded(), abs(x) < 1e4 { return String(Int(x)) }
    for e in [-9, -8, -7, -6, -5, -4, 4, 5, 6, 7, 8, 9, 10, 12, 15] where Double("1e\(e)") == abs(x) {
      return (x < 0 ? "-" : "") + "1e\(e)"
    }
    var s = "\(x)"
    if s.hasSuffix(".0") { s.removeLast(2) }
    return s
  }
}
