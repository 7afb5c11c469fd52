// Keyframes on a recipe channel: CAKeyframeAnimation on a scalar key path, with values that
// may depend on the cell's geometry (as a channel's from and to do). The semantics are
// `KeyframeTrack`'s; this type adds the geometry, the recipe's validation and the file form.

import Foundation

/// Keyframes of one recipe channel (`ChannelAnimation.keyframes`): CAKeyframeAnimation's
/// `values`, `keyTimes`, `timingFunctions`, `calculationMode` and Kochanek-Bartels
/// `tensionValues` / `continuityValues` / `biasValues`, evaluated as `KeyframeTrack` does.
///
/// Timing: the channel's `curve` over its `duration` (after delay, stagger and the recipe's
/// media timing, exactly as for a two-value channel) gives the animation's fraction f,
/// clamped to [0, 1] (CAKeyframeAnimation's own `timingFunction`, linear by default); the
/// keyframes map f to the value. A spring segment runs over its own seconds (its share of
/// the channel's duration). When the animation is not in effect, the model value shows: the
/// last value (`ChannelAnimation.endValue`).
///
/// Values may depend on the geometry (`ChannelValue`): each cell resolves them, then
/// interpolates. The paced modes need the same distances for every cell, so their values
/// must be constants (a typed error otherwise).
///
/// Limits: 1...`KeyframeTrack.maximumKeys` (64) values; the other counts as `KeyframeTrack`
/// states them.
public struct ChannelKeyframes: Sendable, Hashable {
  /// The values (points for translations, radians for rotations, unitless otherwise).
  public var values: [ChannelValue]
  /// Fractions of the duration, from 0 to 1, non-decreasing; one per value (values + 1 for
  /// `discrete`); nil spaces them evenly. Ignored by the paced modes.
  public var keyTimes: [Double]?
  /// One curve per segment (values - 1); nil makes every segment linear. Ignored by
  /// `discrete` and the paced modes.
  public var timingFunctions: [AnimationCurve]?
  public var mode: KeyframeCalculationMode
  /// Kochanek-Bartels parameters per value (cubic modes); nil is 0 for every key
  /// (Catmull-Rom).
  public var tension: [Double]?
  public var continuity: [Double]?
  public var bias: [Double]?

  public init(
    values: [ChannelValue], keyTimes: [Double]? = nil, timingFunctions: [AnimationCurve]? = nil,
    mode: KeyframeCalculationMode = .linear, tension: [Double]? = nil, continuity: [Double]? = nil,
    bias: [Double]? = nil
  ) {
    self.values = values
    self.keyTimes = keyTimes
    self.timingFunctions = timingFunctions
    self.mode = mode
    self.tension = tension
    self.continuity = continuity
    self.bias = bias
  }

  /// One keyframe of the UIKit form (`UIView.addKeyframe(withRelativeStartTime:
  /// relativeDuration:animations:)`): over [start, start + duration] (fractions of the
  /// channel's duration) the value moves to `value` on `curve`.
  public struct RelativeKeyframe: Sendable, Hashable {
    public var start: Double
    public var duration: Double
    public var value: ChannelValue
    public var curve: AnimationCurve
    public init(start: Double, duration: Double, value: ChannelValue, curve: AnimationCurve = .bezier(.linear)) {
      self.start = start
      self.duration = duration
      self.value = value
      self.curve = curve
    }
  }

  /// The UIKit form (`UIView.animateKeyframes`), as `KeyframeTrack.uiKit` expands it: the
  /// value starts at `initial`, each keyframe moves it to its value over its interval on
  /// its own curve, and it holds between keyframes. The result is `linear` keyframes.
  /// - Throws: `.outOfRange` for overlapping, unordered or out-of-range keyframes.
  public static func uiKit(initial: ChannelValue, keyframes: [RelativeKeyframe]) throws(CellMotionError) -> ChannelKeyframes {
    let keys = try KeyframeTrack.uiKitKeys(
      initial: initial, keyframes: keyframes.map { ($0.start, $0.duration, $0.value, $0.curve) })
    if keys.values.count == 1 { return ChannelKeyframes(values: keys.values) }
    return ChannelKeyframes(values: keys.values, keyTimes: keys.keyTimes, timingFunctions: keys.curves)
  }

  /// Whether any value depends on the cell's height or the table's width.
  public var usesGeometry: Bool { values.contains { $0.perCellHeight != 0 || $0.perTableWidth != 0 } }

  /// The track of one cell: every value resolved for its geometry (points).
  /// - Throws: what `KeyframeTrack.init` throws (counts, key times).
  public func track(cellHeight: Double, tableWidth: Double) throws(CellMotionError) -> KeyframeTrack {
    try track { $0.resolve(cellHeight: cellHeight, tableWidth: tableWidth) }
  }

  /// The track whose values are `part` of each value (its constant, or one geometry
  /// factor): the modes other than the paced ones are linear in the values, so a cell's
  /// value is the constant track's plus height and table width times the factor tracks'.
  /// The kernel compiles the three.
  public func track(_ part: (ChannelValue) -> Double) throws(CellMotionError) -> KeyframeTrack {
    try KeyframeTrack(
      values: values.map(part), keyTimes: keyTimes, timingFunctions: timingFunctions, mode: mode, tension: tension,
      continuity: continuity, bias: bias)
  }

  /// The value at fraction `f` of the channel (clamped to [0, 1]) for one cell; `duration`
  /// is the channel's (seconds, for spring segments). The keyframes must be valid
  /// (`validate`); an invalid set evaluates to its last value.
  public func value(at f: Double, duration: Double, cellHeight: Double, tableWidth: Double) -> Double {
    guard let t = try? track(cellHeight: cellHeight, tableWidth: tableWidth) else {
      return values.last?.resolve(cellHeight: cellHeight, tableWidth: tableWidth) ?? 0
    }
    return t.value(at: f, duration: duration)
  }

  /// Checks counts, key times and numbers (`KeyframeTrack.init`'s rules, on the constants),
  /// every value's parts (`ChannelValue`'s limits), and constant values for the paced
  /// modes; errors name `field`.
  func validate(_ field: String) throws(CellMotionError) {
    for (k, v) in values.enumerated() { try v.validate("\(field).values[\(k)]") }
    if mode == .paced || mode == .cubicPaced, usesGeometry {
      throw .invalidCombination(
        field: "\(field).mode",
        reason: "\(mode.rawValue) keyframes take key times from the distances between values, which must be the "
          + "same for every cell: use constant values (no perCellHeight or perTableWidth)")
    }
    for (name, list) in [("tensionValues", tension), ("continuityValues", continuity), ("biasValues", bias)] {
      for (k, x) in (list ?? []).enumerated() {
        try Check.within(x, InputLimits.keyframeParameter, "\(field).\(name)[\(k)]")
      }
    }
    do {
      _ = try track { $0.constant }
    } catch {
      throw error.prefixed(field)
    }
  }
}

extension CellMotionError {
  /// The same error with `prefix` in front of a `keyframes...` field name (errors from
  /// `KeyframeTrack` name the keyframes alone).
  func prefixed(_ prefix: String) -> CellMotionError {
    func join(_ f: String) -> String { f.hasPrefix("keyframes") ? prefix + f.dropFirst("keyframes".count) : "\(prefix).\(f)" }
    switch self {
    case .notFinite(let f, let v): return .notFinite(field: join(f), value: v)
    case .outOfRange(let f, let v, let e): return .outOfRange(field: join(f), value: v, expected: e)
    default: return self
    }
  }
}
