// Recipe files, the form people write: curves as strings ("easeOut", "cubic-bezier(0.2, 0,
// 0.2, 1)") or {"spring": {...}}, a channel value as a plain number unless it depends on
// the geometry, and every field with a natural default optional. The encoder writes the
// same form (no synthesised "_0" keys), so `JSONEncoder().encode(recipe)` is a recipe file.
//
// The first on-disk form (before 2026-11-23) wrote curves as {"bezier": {"_0": {x1 ...}}}
// and {"spring": {"_0": {...}}} and every key of every value; the decoders below still
// read it, so old files keep loading (`Recipe.decodeFile` and plain JSONDecoder alike).
// The documented schema is `Recipe.jsonSchema` (RecipeSchema.swift).

import Foundation

/// A `DecodingError` for a value that decoded but is not valid.
private func invalid(_ decoder: any Decoder, _ error: CellMotionError) -> DecodingError {
  .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
}

/// The first on-disk form's wrapper key of enum payloads.
private enum LegacyKeys: String, CodingKey { case payload = "_0" }

extension AnimationCurve {
  private enum CodingKeys: String, CodingKey { case bezier, spring }

  /// Decodes a curve: a timing-function string (`TimingCurve(parsing:)`), `{"spring":
  /// {...}}` (see `Spring`), `{"bezier": {"x1": ..., "y1": ..., "x2": ..., "y2": ...}}`, or
  /// the first on-disk form with a `"_0"` key inside either.
  public init(from decoder: any Decoder) throws {
    if let text = try? decoder.singleValueContainer().decode(String.self) {
      do {
        self = .bezier(try TimingCurve(parsing: text))
      } catch {
        throw invalid(decoder, error)
      }
      return
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    guard c.allKeys.count == 1, let key = c.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "expected a timing-function string, {\"spring\": {...}} or {\"bezier\": {...}}"))
    }
    func payload<T: Decodable>(_ type: T.Type) throws -> T {
      if let legacy = try? c.nestedContainer(keyedBy: LegacyKeys.self, forKey: key), legacy.contains(.payload) {
        return try legacy.decode(T.self, forKey: .payload)
      }
      return try c.decode(T.self, forKey: key)
    }
    switch key {
    case .bezier: self = .bezier(try payload(TimingCurve.self))
    case .spring: self = .spring(try payload(Spring.self))
    }
  }

  /// A Bezier as its name or `cubic-bezier(x1, y1, x2, y2)` (`TimingCurve.description`,
  /// which parses back to the same numbers), a spring as `{"spring": {...}}`.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .bezier(let curve):
      var c = encoder.singleValueContainer()
      try c.encode(curve.description)
    case .spring(let spring):
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(spring, forKey: .spring)
    }
  }
}

extension ChannelValue {
  private enum CodingKeys: String, CodingKey { case constant, perCellHeight, perTableWidth }

  /// Decodes a number (the constant) or an object whose keys `constant`, `perCellHeight`
  /// and `perTableWidth` each default to 0.
  public init(from decoder: any Decoder) throws {
    if let x = try? decoder.singleValueContainer().decode(Double.self) {
      self.init(x)
      return
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      try c.decodeIfPresent(Double.self, forKey: .constant) ?? 0,
      perCellHeight: try c.decodeIfPresent(Double.self, forKey: .perCellHeight) ?? 0,
      perTableWidth: try c.decodeIfPresent(Double.self, forKey: .perTableWidth) ?? 0)
  }

  /// A number when the value is a constant, else an object with its non-zero parts.
  public func encode(to encoder: any Encoder) throws {
    if perCellHeight == 0 && perTableWidth == 0 {
      var c = encoder.singleValueContainer()
      try c.encode(constant)
      return
    }
    var c = encoder.container(keyedBy: CodingKeys.self)
    if constant != 0 { try c.encode(constant, forKey: .constant) }
    if perCellHeight != 0 { try c.encode(perCellHeight, forKey: .perCellHeight) }
    if perTableWidth != 0 { try c.encode(perTableWidth, forKey: .perTableWidth) }
  }
}

extension ChannelAnimation {
  private enum CodingKeys: String, CodingKey { case channel, from, to, keyframes, curve, duration, delay }

  /// Either `from`, `to` and `curve`, or `keyframes` (then `curve` defaults to linear and
  /// `from` / `to` must be absent); `channel` and `duration` are required, `delay`
  /// defaults to 0.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let channel = try c.decode(Channel.self, forKey: .channel)
    let duration = try c.decode(Double.self, forKey: .duration)
    let delay = try c.decodeIfPresent(Double.self, forKey: .delay) ?? 0
    if let keyframes = try c.decodeIfPresent(ChannelKeyframes.self, forKey: .keyframes) {
      guard !c.contains(.from), !c.contains(.to) else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: c.codingPath + [CodingKeys.keyframes],
            debugDescription: "a keyframe channel takes its values from \"keyframes\": remove \"from\" and \"to\""))
      }
      self.init(
        channel, keyframes: keyframes, curve: try c.decodeIfPresent(AnimationCurve.self, forKey: .curve) ?? .bezier(.linear),
        duration: duration, delay: delay)
      return
    }
    self.init(
      channel, from: try c.decode(ChannelValue.self, forKey: .from), to: try c.decode(ChannelValue.self, forKey: .to),
      curve: try c.decode(AnimationCurve.self, forKey: .curve), duration: duration, delay: delay)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(channel, forKey: .channel)
    if let keyframes {
      try c.encode(keyframes, forKey: .keyframes)
    } else {
      try c.encode(from, forKey: .from)
      try c.encode(to, forKey: .to)
    }
    try c.encode(curve, forKey: .curve)
    try c.encode(duration, forKey: .duration)
    if delay != 0 { try c.encode(delay, forKey: .delay) }
  }
}

extension ChannelKeyframes: Codable {
  private enum CodingKeys: String, CodingKey {
    case values, keyTimes, timingFunctions, calculationMode, tensionValues, continuityValues, biasValues
    case initial, relative
  }
  private enum RelativeKeys: String, CodingKey { case start, duration, value, curve }

  /// CAKeyframeAnimation's names: `values` (required), `keyTimes`, `timingFunctions`,
  /// `calculationMode` (default linear), `tensionValues`, `continuityValues`,
  /// `biasValues`. Or the UIKit form: `initial` and `relative`, a list of `{"start",
  /// "duration", "value", "curve"}` (curve default linear), expanded by `uiKit`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    if c.contains(.relative) || c.contains(.initial) {
      let other: [CodingKeys] = [.values, .keyTimes, .timingFunctions, .calculationMode, .tensionValues, .continuityValues, .biasValues]
      if let extra = other.first(where: { c.contains($0) }) {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: c.codingPath + [extra],
            debugDescription: "the UIKit form (\"initial\", \"relative\") takes no \"\(extra.stringValue)\""))
      }
      var list = try c.nestedUnkeyedContainer(forKey: .relative)
      var frames: [RelativeKeyframe] = []
      while !list.isAtEnd {
        let f = try list.nestedContainer(keyedBy: RelativeKeys.self)
        frames.append(
          RelativeKeyframe(
            start: try f.decode(Double.self, forKey: .start), duration: try f.decode(Double.self, forKey: .duration),
            value: try f.decode(ChannelValue.self, forKey: .value),
            curve: try f.decodeIfPresent(AnimationCurve.self, forKey: .curve) ?? .bezier(.linear)))
      }
      do {
        self = try .uiKit(initial: try c.decode(ChannelValue.self, forKey: .initial), keyframes: frames)
      } catch let error as CellMotionError {
        throw DecodingError.dataCorrupted(
          .init(codingPath: c.codingPath + [CodingKeys.relative], debugDescription: error.description))
      }
      return
    }
    self.init(
      values: try c.decode([ChannelValue].self, forKey: .values),
      keyTimes: try c.decodeIfPresent([Double].self, forKey: .keyTimes),
      timingFunctions: try c.decodeIfPresent([AnimationCurve].self, forKey: .timingFunctions),
      mode: try c.decodeIfPresent(KeyframeCalculationMode.self, forKey: .calculationMode) ?? .linear,
      tension: try c.decodeIfPresent([Double].self, forKey: .tensionValues),
      continuity: try c.decodeIfPresent([Double].self, forKey: .continuityValues),
      bias: try c.decodeIfPresent([Double].self, forKey: .biasValues))
  }

  /// Writes `values` and `calculationMode`, and the optional lists that are set (the UIKit
  /// form is written expanded).
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(values, forKey: .values)
    try c.encodeIfPresent(keyTimes, forKey: .keyTimes)
    try c.encodeIfPresent(timingFunctions, forKey: .timingFunctions)
    try c.encode(mode, forKey: .calculationMode)
    try c.encodeIfPresent(tension, forKey: .tensionValues)
    try c.encodeIfPresent(continuity, forKey: .continuityValues)
    try c.encodeIfPresent(bias, forKey: .biasValues)
  }
}

extension MatrixAnimation {
  private enum CodingKeys: String, CodingKey { case from, to, keyframes, mode, curve, duration, delay }

  /// Either `from`, `to` and `curve`, or `keyframes` (then `curve` defaults to linear and
  /// `from` / `to` must be absent); `duration` is required, `mode` defaults to
  /// `decomposed`, `delay` to 0.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let mode = try c.decodeIfPresent(TransformInterpolationMode.self, forKey: .mode) ?? .decomposed
    let duration = try c.decode(Double.self, forKey: .duration)
    let delay = try c.decodeIfPresent(Double.self, forKey: .delay) ?? 0
    if let keyframes = try c.decodeIfPresent(MatrixKeyframes.self, forKey: .keyframes) {
      guard !c.contains(.from), !c.contains(.to) else {
        throw DecodingError.dataCorrupted(
          .init(
            codingPath: c.codingPath + [CodingKeys.keyframes],
            debugDescription: "a keyframe matrix takes its values from \"keyframes\": remove \"from\" and \"to\""))
      }
      self.init(
        keyframes: keyframes, mode: mode,
        curve: try c.decodeIfPresent(AnimationCurve.self, forKey: .curve) ?? .bezier(.linear), duration: duration,
        delay: delay)
      return
    }
    self.init(
      from: try c.decode(Transform3D.self, forKey: .from), to: try c.decode(Transform3D.self, forKey: .to), mode: mode,
      curve: try c.decode(AnimationCurve.self, forKey: .curve), duration: duration, delay: delay)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    if let keyframes {
      try c.encode(keyframes, forKey: .keyframes)
    } else {
      try c.encode(from, forKey: .from)
      try c.encode(to, forKey: .to)
    }
    try c.encode(mode, forKey: .mode)
    try c.encode(curve, forKey: .curve)
    try c.encode(duration, forKey: .duration)
    if delay != 0 { try c.encode(delay, forKey: .delay) }
  }
}

extension MatrixKeyframes: Codable {
  private enum CodingKeys: String, CodingKey { case values, keyTimes, timingFunctions, calculationMode }

  /// `values` (required, CATransform3D objects), `keyTimes`, `timingFunctions`,
  /// `calculationMode` (default linear).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      values: try c.decode([Transform3D].self, forKey: .values),
      keyTimes: try c.decodeIfPresent([Double].self, forKey: .keyTimes),
      timingFunctions: try c.decodeIfPresent([AnimationCurve].self, forKey: .timingFunctions),
      mode: try c.decodeIfPresent(KeyframeCalculationMode.self, forKey: .calculationMode) ?? .linear)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(values, forKey: .values)
    try c.encodeIfPresent(keyTimes, forKey: .keyTimes)
    try c.encodeIfPresent(timingFunctions, forKey: .timingFunctions)
    try c.encode(mode, forKey: .calculationMode)
  }
}

extension Stagger {
  private enum CodingKeys: String, CodingKey { case step, base, from, grid, reversed, ease }
  private enum RandomKeys: String, CodingKey { case random }

  /// `step` is required; `base` defaults to `row`, `from` to `"first"` (also `"last"`,
  /// `"center"`, an index, or `{"random": seed}`), `grid` to none (`{"columns": C,
  /// "axis": "both" | "x" | "y"}`), `reversed` to false, `ease` to none (a timing-function
  /// string).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    var origin = StaggerOrigin.first
    if c.contains(.from) {
      if let name = try? c.decode(String.self, forKey: .from) {
        switch name {
        case "first": origin = .first
        case "last": origin = .last
        case "center": origin = .center
        default:
          throw DecodingError.dataCorrupted(
            .init(
              codingPath: c.codingPath + [CodingKeys.from],
              debugDescription: "unknown stagger origin \"\(name)\" (known: first, last, center, an index, {\"random\": seed})"))
        }
      } else if let x = try? c.decode(Double.self, forKey: .from) {
        guard x >= 0, x == x.rounded(), x <= Double(Stagger.maximumCount) else {
          throw DecodingError.dataCorrupted(
            .init(
              codingPath: c.codingPath + [CodingKeys.from],
              debugDescription: "a stagger origin index must be a whole number in 0...\(Stagger.maximumCount), got \(x)"))
        }
        origin = .index(Int(x))
      } else {
        let r = try c.nestedContainer(keyedBy: RandomKeys.self, forKey: .from)
        origin = .random(seed: try r.decode(UInt64.self, forKey: .random))
      }
    }
    var ease: TimingCurve?
    if let text = try c.decodeIfPresent(String.self, forKey: .ease) {
      do {
        ease = try TimingCurve(parsing: text)
      } catch {
        throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [CodingKeys.ease], debugDescription: error.description))
      }
    }
    self.init(
      step: try c.decode(Double.self, forKey: .step), base: try c.decodeIfPresent(StaggerBase.self, forKey: .base) ?? .row,
      from: origin, grid: try c.decodeIfPresent(StaggerGrid.self, forKey: .grid),
      reversed: try c.decodeIfPresent(Bool.self, forKey: .reversed) ?? false, ease: ease)
  }

  /// Writes `step` and `base`, and the others when they differ from their defaults.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(step, forKey: .step)
    try c.encode(base, forKey: .base)
    switch from {
    case .first: break
    case .last: try c.encode("last", forKey: .from)
    case .center: try c.encode("center", forKey: .from)
    case .index(let k): try c.encode(k, forKey: .from)
    case .random(let seed):
      var r = c.nestedContainer(keyedBy: RandomKeys.self, forKey: .from)
      try r.encode(seed, forKey: .random)
    }
    try c.encodeIfPresent(grid, forKey: .grid)
    if reversed { try c.encode(true, forKey: .reversed) }
    try c.encodeIfPresent(ease?.description, forKey: .ease)
  }
}

extension StaggerGrid {
  private enum CodingKeys: String, CodingKey { case columns, axis }

  /// `columns` is required, `axis` defaults to `both`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      columns: try c.decode(Int.self, forKey: .columns), axis: try c.decodeIfPresent(StaggerAxis.self, forKey: .axis) ?? .both)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(columns, forKey: .columns)
    try c.encode(axis, forKey: .axis)
  }
}

extension RecipeTiming {
  private enum CodingKeys: String, CodingKey { case speed, repeatCount, autoreverses, fillMode }

  /// Every key optional, defaulting to UIKit's (`RecipeTiming.uiKit`).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = RecipeTiming.uiKit
    self.init(
      speed: try c.decodeIfPresent(Double.self, forKey: .speed) ?? d.speed,
      repeatCount: try c.decodeIfPresent(Double.self, forKey: .repeatCount) ?? d.repeatCount,
      autoreverses: try c.decodeIfPresent(Bool.self, forKey: .autoreverses) ?? d.autoreverses,
      fillMode: try c.decodeIfPresent(FillMode.self, forKey: .fillMode) ?? d.fillMode)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(speed, forKey: .speed)
    try c.encode(repeatCount, forKey: .repeatCount)
    try c.encode(autoreverses, forKey: .autoreverses)
    try c.encode(fillMode, forKey: .fillMode)
  }
}

extension FoldSpec {
  private enum CodingKeys: String, CodingKey { case direction, curve, duration, perspectiveDistance }

  /// `direction` is required; the others default as `init(direction:...)` does
  /// (easeInEaseOut, 0.3 s, 500 points).
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = FoldSpec(direction: .open)
    self.init(
      direction: try c.decode(Direction.self, forKey: .direction),
      curve: try c.decodeIfPresent(AnimationCurve.self, forKey: .curve) ?? d.curve,
      duration: try c.decodeIfPresent(Double.self, forKey: .duration) ?? d.duration,
      perspectiveDistance: try c.decodeIfPresent(Double.self, forKey: .perspectiveDistance) ?? d.perspectiveDistance)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(direction, forKey: .direction)
    try c.encode(curve, forKey: .curve)
    try c.encode(duration, forKey: .duration)
    try c.encode(perspectiveDistance, forKey: .perspectiveDistance)
  }
}

extension Recipe {
  private enum CodingKeys: String, CodingKey {
    case name, channels, matrix, stagger, order, anchorX, anchorY, perspectiveDistance, timing, fold, motion
  }

  /// Only `name` is required; every other key defaults as `init(name:...)` does (no
  /// channels, no matrix, no stagger, `keyPath` order, anchor (0.5, 0.5), no perspective,
  /// UIKit timing, no fold, full motion). A top-level `"$schema"` key (for editors) is ignored.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let d = Recipe(name: "")
    self.init(
      name: try c.decode(String.self, forKey: .name),
      channels: try c.decodeIfPresent([ChannelAnimation].self, forKey: .channels) ?? d.channels,
      matrix: try c.decodeIfPresent(MatrixAnimation.self, forKey: .matrix),
      stagger: try c.decodeIfPresent(Stagger.self, forKey: .stagger) ?? d.stagger,
      order: try c.decodeIfPresent(ChannelOrder.self, forKey: .order) ?? d.order,
      anchorX: try c.decodeIfPresent(Double.self, forKey: .anchorX) ?? d.anchorX,
      anchorY: try c.decodeIfPresent(Double.self, forKey: .anchorY) ?? d.anchorY,
      perspectiveDistance: try c.decodeIfPresent(Double.self, forKey: .perspectiveDistance),
      timing: try c.decodeIfPresent(RecipeTiming.self, forKey: .timing) ?? d.timing,
      fold: try c.decodeIfPresent(FoldSpec.self, forKey: .fold),
      motion: try c.decodeIfPresent(MotionPolicy.self, forKey: .motion) ?? .full)
  }

  /// Writes `name`, `anchorX`, `anchorY` and `channels` always; `matrix`,
  /// `perspectiveDistance` and `fold` when set; `stagger`, `order` and `timing` when they
  /// differ from their defaults.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(name, forKey: .name)
    try c.encode(anchorX, forKey: .anchorX)
    try c.encode(anchorY, forKey: .anchorY)
    try c.encode(channels, forKey: .channels)
    try c.encodeIfPresent(matrix, forKey: .matrix)
    if stagger != .none { try c.encode(stagger, forKey: .stagger) }
    if order != .keyPath { try c.encode(order, forKey: .order) }
    try c.encodeIfPresent(perspectiveDistance, forKey: .perspectiveDistance)
    if timing != .uiKit { try c.encode(timing, forKey: .timing) }
    try c.encodeIfPresent(fold, forKey: .fold)
    if motion != .full { try c.encode(motion, forKey: .motion) }
  }
}
