// Cubic Bezier timing functions with CAMediaTimingFunction semantics.
//
// Goals, in priority order:
// 1. Exactness: `value(at:)` is the oracle the SIMD kernel is checked against. The
//    parameter solve uses an exactly bracketed, safeguarded Newton iteration whose
//    residual is evaluated in double-double arithmetic on the Bernstein form, so even the
//    degenerate curves with a vertical tangent (x1 = 1, x2 = 0), where a Double residual
//    would leave y uncertain by ~1e-6, solve to the last bits of y.
// 2. Clarity: every epsilon is a named constant with a comment saying why.
// 3. Faithfulness: presets, parsing and Core Animation's own (looser) solver are provided
//    so tests can measure how far the shipping solver is from the exact answer.
//
// Facts used (not code): the control points of the presets are Apple's
// CAMediaTimingFunction constants; the power-basis coefficients cx = 3 x1,
// bx = 3 (x2 - x1) - cx, ax = 1 - cx - bx are those of WebKit's UnitBezier.h; the
// CSS keywords are from CSS Easing Functions Level 1; Core Animation's solver parameters
// are listed in the Semantics article of the CellMotion documentation
// ("Timing functions").

/// Cubic Bezier timing function with CAMediaTimingFunction semantics: P0 = (0, 0),
/// P1 = (x1, y1), P2 = (x2, y2), P3 = (1, 1).
///
/// The horizontal axis is the time fraction (elapsed / duration, unitless in [0, 1]);
/// the vertical axis is progress (unitless; 0 = from-value, 1 = to-value, values
/// outside [0, 1] overshoot). Because x1 and x2 lie in [0, 1], x(s) is monotone on
/// s in [0, 1] and `value(at:)` is a function.
public struct TimingCurve: Sendable, Hashable, Codable, CustomStringConvertible {
  /// First control point, time coordinate, in [0, 1].
  public let x1: Double
  /// First control point, progress coordinate (overshoot allowed), in
  /// `InputLimits.bezierY` (-1e3 ... 1e3).
  public let y1: Double
  /// Second control point, time coordinate, in [0, 1].
  public let x2: Double
  /// Second control point, progress coordinate (overshoot allowed), in
  /// `InputLimits.bezierY` (-1e3 ... 1e3).
  public let y2: Double

  /// Creates a curve, validating the control points.
  ///
  /// - Throws: `.notFinite` for NaN or infinite coordinates; `.outOfRange` when x1 or x2
  ///   lies outside [0, 1] (CSS Easing Level 1 makes such curves invalid, because x(s)
  ///   could then go backwards in time), or y1 or y2 outside `InputLimits.bezierY`
  ///   (so that progress, and every value lerped with it, stays finite in Float).
  ///   Negative zero is stored as +0.
  public init(x1: Double, y1: Double, x2: Double, y2: Double) throws(CellMotionError) {
    try Check.inRange(x1, 0...1, "x1")
    try Check.within(y1, InputLimits.bezierY, "y1")
    try Check.inRange(x2, 0...1, "x2")
    try Check.within(y2, InputLimits.bezierY, "y2")
    self.init(unchecked: x1, y1, x2, y2)
  }

  /// Trusted initialiser for the presets and already-validated values.
  private init(unchecked x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
    // `+ 0` turns -0.0 into +0.0 so descriptions and hashes are canonical.
    self.x1 = x1 + 0
    self.y1 = y1 + 0
    self.x2 = x2 + 0
    self.y2 = y2 + 0
  }

  // MARK: - Presets (kCAMediaTimingFunction*)

  /// `kCAMediaTimingFunctionLinear`: (0, 0, 1, 1). The default of a CAAnimation without
  /// a timing function.
  public static let linear = TimingCurve(unchecked: 0, 0, 1, 1)

  /// Whether the curve is y = x: both control points on the diagonal (x1 = y1 and x2 = y2,
  /// as `linear`), so x(s) and y(s) are the same polynomial and progress equals the time
  /// fraction exactly.
  public var isIdentity: Bool { x1 == y1 && x2 == y2 }
  /// `kCAMediaTimingFunctionEaseIn`: (0.42, 0, 1, 1).
  public static let easeIn = TimingCurve(unchecked: 0.42, 0, 1, 1)
  /// `kCAMediaTimingFunctionEaseOut`: (0, 0, 0.58, 1).
  public static let easeOut = TimingCurve(unchecked: 0, 0, 0.58, 1)
  /// `kCAMediaTimingFunctionEaseInEaseOut`: (0.42, 0, 0.58, 1). What UIView animations use
  /// when no curve option is given.
  public static let easeInEaseOut = TimingCurve(unchecked: 0.42, 0, 0.58, 1)
  /// `kCAMediaTimingFunctionDefault`: (0.25, 0.1, 0.25, 1). Equal to CSS `ease`.
  public static let `default` = TimingCurve(unchecked: 0.25, 0.1, 0.25, 1)

  /// The presets with their Core Animation names (the string values of the
  /// `kCAMediaTimingFunction*` constants), in the order `name` checks them.
  public static let presets: [(name: String, curve: TimingCurve)] = [
    ("linear", .linear), ("easeIn", .easeIn), ("easeOut", .easeOut),
    ("easeInEaseOut", .easeInEaseOut), ("default", .default),
  ]

  /// The Core Animation preset name ("linear", "easeIn", "easeOut", "easeInEaseOut",
  /// "default") when the control points equal a preset exactly, else nil.
  public var name: String? {
    Self.presets.first { $0.curve == self }?.name
  }

  /// The preset name if this is a preset, else `cubic-bezier(x1, y1, x2, y2)` with each
  /// number printed so that it parses back to the same Double. Both forms round-trip
  /// through `init(parsing:)`.
  public var description: String {
    name ?? "cubic-bezier(\(x1), \(y1), \(x2), \(y2))"
  }

  // MARK: - Evaluation

  /// Progress y for the time fraction x (x clamped to [0, 1]).
  ///
  /// `value(at: 0) == 0` and `value(at: 1) == 1` exactly; curves whose control points lie
  /// on the diagonal (y1 = x1 and y2 = x2, e.g. `.linear`) return x exactly. NaN gives NaN.
  /// Accuracy: required |error| <= 1e-9; measured <= 9e-16 against an exact big-integer
  /// truth on a dense grid, including next to the vertical tangent of (1, 0, 0, 1)
  /// (see TimingCurveTests).
  /// - Complexity: O(1); typically 3-6 Newton steps, at most `maximumSolverIterations`.
  public func value(at x: Double) -> Double {
    if x.isNaN { return .nan }
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    if y1 == x1 && y2 == x2 { return x }
    return bezierY(parameter(forX: x))
  }

  /// The Bezier parameter s in [0, 1] with x(s) = x, for x clamped to [0, 1].
  ///
  /// x(s) is monotone because x1, x2 are in [0, 1] (its derivative is a quadratic in
  /// x1, x2 that is non-negative at the four corners of the unit square, and linear in
  /// each), so the root is unique. The solver keeps an exact bracket [lo, hi] with
  /// x(lo) < x < x(hi) and takes a Newton step from s = x when it lands strictly inside
  /// the bracket and shrinks it fast enough, otherwise bisects. The residual x(s) - x is
  /// evaluated in double-double arithmetic on the Bernstein form, so its sign is right
  /// down to ~1e-31 and the root is found to the last bit of s wherever x'(s) is not tiny.
  /// NaN gives NaN.
  /// - Complexity: O(1); at most `maximumSolverIterations` residual evaluations.
  public func parameter(forX x: Double) -> Double {
    if x.isNaN { return .nan }
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    var lo = 0.0
    var hi = 1.0
    var s = x  // first guess: exact for linear-like curves, good for the presets
    var previousStep = 1.0  // size of the step before the last one (rtsafe's dxold)
    var step = 1.0
    for _ in 0..<Self.maximumSolverIterations {
      let r = xResidual(s, x)
      if r == 0 { return s }
      if r < 0 { lo = s } else { hi = s }
      let d = bezierDX(s)
      let newton = s - r / d
      // Bisect when Newton leaves the bracket, has no usable slope, or would not halve
      // the step (slow convergence near a multiple root, as at the vertical tangent).
      let useNewton = d > 0 && newton > lo && newton < hi && (2 * r).magnitude <= (previousStep * d).magnitude
      previousStep = step
      let next = useNewton ? newton : lo + 0.5 * (hi - lo)
      step = (next - s).magnitude
      // Converged: the correction is below half an ulp of s, or the bracket has closed
      // to adjacent doubles (the midpoint equals an end).
      if next == s || next == lo || next == hi { return s }
      s = next
    }
    return s
  }

  /// Slope dy/dx at the time fraction x (clamped to [0, 1]): the progress velocity per
  /// unit time fraction. Multiply by 1/duration (1/seconds) for progress per second.
  ///
  /// Always finite (for a finite x): velocities built from it, and the velocity a
  /// retarget carries, stay finite.
  ///
  /// Where x'(s) = 0 the limit is taken by L'Hopital's rule on higher derivatives
  /// (e.g. `.easeIn` at x = 1, where P2 = P3: y''/x'' = 1/0.58, the direction from P1 to
  /// P3). Where only x' vanishes the tangent is vertical and the derivative infinite
  /// (x1 = 0 with y1 != 0 at x = 0, as easings.net's easeOutCirc (0, 0.55, 0.45, 1);
  /// x2 = 1 with y2 != 1 at x = 1; (1, 0, 0, 1) at x = 0.5): there the slope is the mean
  /// slope over the `tangentWindow` of the time fraction around x (the part inside
  /// [0, 1]: [0, 1e-3] at the start, [1 - 1e-3, 1] at the end), which has the tangent's
  /// sign. Everywhere its magnitude is at most `maximumSlope` (next to a vertical tangent
  /// the exact derivative grows without bound).
  /// - Complexity: O(1) plus one `parameter(forX:)` (three at a vertical tangent).
  public func slope(at x: Double) -> Double {
    if x.isNaN { return .nan }
    if y1 == x1 && y2 == x2 { return 1 }
    return slope(at: x, parameter: parameter(forX: x))
  }

  /// `value(at: x)` and `slope(at: x)` from one solve for the parameter: what a table of
  /// exact values over a grid needs (the kernel's solve selection), at half the cost of
  /// asking for each.
  package func valueAndSlope(at x: Double) -> (value: Double, slope: Double) {
    if x.isNaN { return (.nan, .nan) }
    if y1 == x1 && y2 == x2 { return (min(max(x, 0), 1), 1) }
    let s = parameter(forX: x)
    let value = x <= 0 ? 0 : x >= 1 ? 1 : bezierY(s)
    return (value, slope(at: x, parameter: s))
  }

  /// The slope at x given the parameter s = parameter(forX: x) of a curve that is not the
  /// identity.
  private func slope(at x: Double, parameter s: Double) -> Double {
    let dx = Self.derivatives(s, x1, x2)
    let dy = Self.derivatives(s, y1, y2)
    for (a, b) in [(dx.0, dy.0), (dx.1, dy.1), (dx.2, dy.2)] where !(a == 0 && b == 0) {
      if a == 0 { return tangentSlope(at: x) }
      return Self.clampSlope(b / a)
    }
    return .nan  // unreachable: x''' = 6 (1 - 3 x2 + 3 x1) != 0 when x' = x'' = 0
  }

  /// Most a slope reports, progress per unit time fraction: 1e6. A curve this steep moves
  /// a whole unit of progress in a millionth of its duration; steeper tangents (next to a
  /// vertical one) count as this steep, so a channel's velocity (at most ~2e9 points over
  /// at least 1e-6 s, `InputLimits`) stays far inside Float's range.
  public static let maximumSlope = 1e6

  /// The share of the time fraction, 1e-3, over which `slope(at:)` averages at a vertical
  /// tangent: a thousandth of the animation (0.3 ms of a 0.3 s one, well under a frame),
  /// short enough to be the curve's local speed, long enough for a finite value.
  public static let tangentWindow = 1e-3

  /// The mean slope over the `tangentWindow` around x, kept inside [0, 1].
  private func tangentSlope(at x: Double) -> Double {
    let h = Self.tangentWindow
    let lo = max(0, min(min(max(x, 0), 1) - h / 2, 1 - h))
    return Self.clampSlope((value(at: lo + h) - value(at: lo)) / h)
  }

  private static func clampSlope(_ slope: Double) -> Double {
    min(max(slope, -maximumSlope), maximumSlope)
  }

  /// Power-basis coefficients for the SIMD kernel (WebKit UnitBezier form):
  /// x(s) = ((ax s + bx) s + cx) s and y(s) = ((ay s + by) s + cy) s, with
  /// cx = 3 x1, bx = 3 (x2 - x1) - cx, ax = 1 - cx - bx (same for y).
  /// The coefficients are rounded to Double; the exact solver does not use them.
  public var polynomial: (ax: Double, bx: Double, cx: Double, ay: Double, by: Double, cy: Double) {
    let cx = 3 * x1
    let bx = 3 * (x2 - x1) - cx
    let ax = 1 - cx - bx
    let cy = 3 * y1
    let by = 3 * (y2 - y1) - cy
    let ay = 1 - cy - by
    return (ax, bx, cx, ay, by, cy)
  }

  // MARK: - Core Animation's solver (for measuring, not for reference values)

  /// Core Animation's Newton tolerance on |x(s) - x| (see the Semantics article).
  public static let coreAnimationEpsilon = 1e-5
  /// Core Animation gives up Newton when |x'(s)| falls below this (see the Semantics
  /// article).
  public static let coreAnimationMinimumSlope = 1e-6
  /// Core Animation's maximum Newton steps (see the Semantics article).
  public static let coreAnimationNewtonSteps = 8

  /// The parameter as Core Animation's solver finds it: start at s = x, up to 8 Newton
  /// steps, stop when |x(s) - x| < 1e-5, give up Newton when |x'(s)| < 1e-6, then
  /// bisection on [0, 1] to the same tolerance (algorithm as listed in the Semantics
  /// article; the arithmetic here is Double on the power basis). Its answer can differ from
  /// `parameter(forX:)` by about 1e-5 / x'(s); see TimingCurveTests for the measured
  /// deviation in y.
  /// - Complexity: O(1); at most 8 Newton steps plus ~17 bisection steps.
  public func coreAnimationParameter(forX x: Double) -> Double {
    let p = polynomial
    func bx(_ s: Double) -> Double { ((p.ax * s + p.bx) * s + p.cx) * s }
    func dbx(_ s: Double) -> Double { (3 * p.ax * s + 2 * p.bx) * s + p.cx }
    var s = x
    for _ in 0..<Self.coreAnimationNewtonSteps {
      let r = bx(s) - x
      if r.magnitude < Self.coreAnimationEpsilon { return s }
      let d = dbx(s)
      if d.magnitude < Self.coreAnimationMinimumSlope { break }
      s -= r / d
    }
    var lo = 0.0
    var hi = 1.0
    s = x
    while lo < hi {
      let v = bx(s)
      if (v - x).magnitude < Self.coreAnimationEpsilon { return s }
      if x > v { lo = s } else { hi = s }
      let mid = lo + 0.5 * (hi - lo)
      if mid == s { break }
      s = mid
    }
    return s
  }

  /// Progress y as Core Animation's looser solver computes it (see
  /// `coreAnimationParameter(forX:)`), for x clamped to [0, 1].
  public func coreAnimationValue(at x: Double) -> Double {
    if x.isNaN { return .nan }
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    let p = polynomial
    let s = coreAnimationParameter(forX: x)
    return ((p.ay * s + p.by) * s + p.cy) * s
  }

  // MARK: - Solver constants

  /// Iteration cap for `parameter(forX:)`. Bisection alone reaches adjacent doubles in
  /// about 60 halvings for roots above 2^-8 (and a Newton step is taken whenever it
  /// converges faster); 200 leaves room for roots near 0, where doubles are denser, and
  /// is never reached in the tests.
  public static let maximumSolverIterations = 200

  // MARK: - Implementation details

  /// y(s) in Bernstein form, Double: 3 y1 (1-s)^2 s + 3 y2 (1-s) s^2 + s^3.
  func bezierY(_ s: Double) -> Double {
    let t = 1 - s
    return 3 * t * s * (y1 * t + y2 * s) + s * s * s
  }

  /// x'(s) in Bernstein form: 3 [x1 (1-s)^2 + 2 (x2 - x1) (1-s) s + (1 - x2) s^2].
  func bezierDX(_ s: Double) -> Double {
    Self.derivatives(s, x1, x2).0
  }

  /// First, second and third derivative of a coordinate with control values (0, p1, p2, 1).
  static func derivatives(_ s: Double, _ p1: Double, _ p2: Double) -> (Double, Double, Double) {
    let t = 1 - s
    let d1 = 3 * (p1 * t * t + 2 * (p2 - p1) * t * s + (1 - p2) * s * s)
    let d2 = 6 * ((p2 - 2 * p1) * t + (1 - 2 * p2 + p1) * s)
    let d3 = 6 * (1 - 3 * p2 + 3 * p1)
    return (d1, d2, d3)
  }

  /// x(s) - x from the Bernstein form, 3 x1 (1-s)^2 s + 3 x2 (1-s) s^2 + s^3 - x, in
  /// double-double arithmetic (relative error ~2^-100 of the largest term), rounded to
  /// Double at the end so the sign is exact unless the true value is below ~1e-31.
  func xResidual(_ s: Double, _ x: Double) -> Double {
    let t = DoubleDouble.sum(1, -s)          // 1 - s, exact
    let ss = DoubleDouble.product(s, s)      // s^2, exact
    let ts = t * s                           // (1 - s) s
    let a = ts * t * x1                      // x1 (1-s)^2 s
    let b = ts * s * x2                      // x2 (1-s) s^2
    let c = ss * s                           // s^3
    return ((a + b) * 3 + c - DoubleDouble(x)).value
  }
}

// MARK: - Parsing

extension TimingCurve {
  /// Parses a timing function.
  ///
  /// Accepted forms (ASCII case-insensitive, surrounding whitespace ignored):
  /// - `cubic-bezier(x1, y1, x2, y2)` with CSS numbers (optional sign, digits, optional
  ///   fraction, optional exponent) and whitespace anywhere between tokens;
  /// - Core Animation names: `linear`, `easeIn`, `easeOut`, `easeInEaseOut`, `default`;
  /// - CSS keywords: `ease` (= CA `default`, (0.25, 0.1, 0.25, 1)), `ease-in`, `ease-out`,
  ///   `ease-in-out`, `linear`.
  ///
  /// - Throws: `.unknownName(kind: "timing function", ...)` for an unknown identifier;
  ///   `.invalidSyntax(field: "timing function", ...)` for anything else that does not
  ///   parse; the errors of `init(x1:y1:x2:y2:)` for out-of-range numbers.
  public init(parsing text: String) throws(CellMotionError) {
    try self.init(parsing: text, location: "TimingCurve(parsing:)")
  }

  /// `init(parsing:)` with a caller-supplied location (e.g. "recipe.json line 12")
  /// reported in `.unknownName` errors.
  public init(parsing text: String, location: String) throws(CellMotionError) {
    let trimmed = Self.trimmingWhitespace(Substring(text))
    let lower = trimmed.lowercased()
    let names: [String: TimingCurve] = [
      "linear": .linear, "easein": .easeIn, "easeout": .easeOut,
      "easeineaseout": .easeInEaseOut, "default": .default,
      "ease": .default, "ease-in": .easeIn, "ease-out": .easeOut, "ease-in-out": .easeInEaseOut,
    ]
    if let preset = names[lower] {
      self = preset
      return
    }
    func syntax(_ reason: String) -> CellMotionError {
      .invalidSyntax(field: "timing function", text: text, reason: reason)
    }
    guard let open = trimmed.firstIndex(of: "(") else {
      let isIdentifier = !trimmed.isEmpty && trimmed.allSatisfy {
        $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_")
      }
      if isIdentifier {
        throw .unknownName(kind: "timing function", name: String(trimmed), location: location)
      }
      throw syntax(trimmed.isEmpty ? "empty text" : "expected a name or cubic-bezier(x1, y1, x2, y2)")
    }
    let function = Self.trimmingWhitespace(trimmed[..<open]).lowercased()
    guard function == "cubic-bezier" else {
      throw syntax("unsupported function \"\(function)\"; only cubic-bezier(...) is supported")
    }
    guard trimmed.last == ")" else { throw syntax("missing closing parenthesis") }
    let inner = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
    let parts = inner.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 4 else {
      throw syntax("expected 4 comma-separated numbers, found \(parts.count) fields")
    }
    var numbers: [Double] = []
    for part in parts {
      let token = Self.trimmingWhitespace(part)
      guard Self.isCSSNumber(token), let number = Double(String(token)) else {
        throw syntax("\"\(token)\" is not a number")
      }
      numbers.append(number)
    }
    try self.init(x1: numbers[0], y1: numbers[1], x2: numbers[2], y2: numbers[3])
  }

  private static func trimmingWhitespace(_ s: Substring) -> Substring {
    var s = s
    while let c = s.first, c.isWhitespace { s.removeFirst() }
    while let c = s.last, c.isWhitespace { s.removeLast() }
    return s
  }

  /// CSS <number>: [+-]? (digits [. digits*]? | . digits) ([eE] [+-]? digits)?.
  /// Rejects `nan`, `inf`, hex floats and empty text, which `Double(_:)` would accept.
  private static func isCSSNumber(_ s: Substring) -> Bool {
    var chars = Array(s.utf8)[...]
    func digits() -> Int {
      var n = 0
      while let c = chars.first, c >= 0x30 && c <= 0x39 { chars.removeFirst(); n += 1 }
      return n
    }
    if let c = chars.first, c == 0x2B || c == 0x2D { chars.removeFirst() }
    var mantissaDigits = digits()
    if chars.first == 0x2E {
      chars.removeFirst()
      mantissaDigits += digits()
    }
    guard mantissaDigits > 0 else { return false }
    if let c = chars.first, c == 0x65 || c == 0x45 {
      chars.removeFirst()
      if let c = chars.first, c == 0x2B || c == 0x2D { chars.removeFirst() }
      guard digits() > 0 else { return false }
    }
    return chars.isEmpty
  }
}

// MARK: - Codable

extension TimingCurve {
  private enum CodingKeys: String, CodingKey { case x1, y1, x2, y2 }

  /// Decodes `{"x1":…, "y1":…, "x2":…, "y2":…}` and validates like `init(x1:y1:x2:y2:)`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let values = (
      try c.decode(Double.self, forKey: .x1), try c.decode(Double.self, forKey: .y1),
      try c.decode(Double.self, forKey: .x2), try c.decode(Double.self, forKey: .y2)
    )
    do {
      try self.init(x1: values.0, y1: values.1, x2: values.2, y2: values.3)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: error.description))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(x1, forKey: .x1)
    try c.encode(y1, forKey: .y1)
    try c.encode(x2, forKey: .x2)
    try c.encode(y2, forKey: .y2)
  }
}

// MARK: - Double-double arithmetic (internal)

/// An unevaluated sum hi + lo with |lo| <= ulp(hi) / 2, giving ~106 significant bits.
/// Built from the error-free transformations TwoSum (Knuth) and TwoProduct via fused
/// multiply-add (facts from Dekker 1971 / Shewchuk 1997). Used only where cancellation
/// would otherwise hide the sign of a residual.
struct DoubleDouble {
  var hi: Double
  var lo: Double

  init(_ value: Double) {
    hi = value
    lo = 0
  }

  init(hi: Double, lo: Double) {
    self.hi = hi
    self.lo = lo
  }

  /// a + b exactly (TwoSum).
  static func sum(_ a: Double, _ b: Double) -> DoubleDouble {
    let s = a + b
    let bb = s - a
    let e = (a - (s - bb)) + (b - bb)
    return DoubleDouble(hi: s, lo: e)
  }

  /// a * b exactly (TwoProduct with FMA).
  static func product(_ a: Double, _ b: Double) -> DoubleDouble {
    let p = a * b
    return DoubleDouble(hi: p, lo: (-p).addingProduct(a, b))  // fma(a, b, -p), exact
  }

  var value: Double { hi + lo }

  static func + (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    let s = sum(a.hi, b.hi)
    let t = sum(a.lo, b.lo)
    var r = quickSum(s.hi, s.lo + t.hi)
    r = quickSum(r.hi, r.lo + t.lo)
    return r
  }

  static func - (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    a + DoubleDouble(hi: -b.hi, lo: -b.lo)
  }

  static func * (a: DoubleDouble, b: Double) -> DoubleDouble {
    let p = product(a.hi, b)
    return quickSum(p.hi, p.lo + a.lo * b)
  }

  static func * (a: DoubleDouble, b: DoubleDouble) -> DoubleDouble {
    let p = product(a.hi, b.hi)
    return quickSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi))
  }

  /// a + b exactly when |a| >= |b| (Fast2Sum).
  static func quickSum(_ a: Double, _ b: Double) -> DoubleDouble {
    let s = a + b
    return DoubleDouble(hi: s, lo: b - (s - a))
  }
}
