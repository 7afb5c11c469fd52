// Recipe: what moves when a cell appears. A recipe is data (Codable), validated once, and
// evaluated by the scalar reference (`ReferenceEvaluator`) and, compiled, by the kernel.
//
// Model:
// - channels: scalar key paths (opacity, translation.x/y/z, rotation.x/y/z, scale...),
//   each with from/to values (which may depend on the cell's height and the table width),
//   a curve (Bezier or spring), a duration and a delay;
// - optionally a whole-matrix animation (from/to Transform3D, decompose/interpolate);
// - a stagger rule adding delay per row or per position in the display batch;
// - an anchor point, an optional perspective (m34 = -1/d), optional media timing
//   (speed, repeat, autoreverse, fill mode), and, for fold recipes, a fold description.

import Foundation

/// The scalar properties a recipe can animate (Core Animation key paths).
public enum Channel: String, Sendable, Hashable, Codable, CaseIterable {
  /// `opacity`, unitless in [0, 1] (clamped at output).
  case opacity
  /// `transform.translation.x/y/z`, points.
  case translationX, translationY, translationZ
  /// `transform.rotation.x/y/z`, radians (the scalar is interpolated, so 0 -> 2 pi turns fully).
  case rotationX, rotationY, rotationZ
  /// `transform.scale` (uniform x and y), `transform.scale.x`, `transform.scale.y`; unitless.
  case scale, scaleX, scaleY
  /// `shadowOpacity`, unitless in [0, 1].
  case shadowOpacity
}

/// A channel's end value: `constant + perCellHeight * cellHeight + perTableWidth * tableWidth`
/// (points for translations), so "rowHeight -> 0" or "tableWidth -> 0" are data.
public struct ChannelValue: Sendable, Hashable, Codable, ExpressibleByFloatLiteral,
  ExpressibleByIntegerLiteral
{
  public var constant: Double
  public var perCellHeight: Double
  public var perTableWidth: Double

  public init(_ constant: Double = 0, perCellHeight: Double = 0, perTableWidth: Double = 0) {
    self.constant = constant
    self.perCellHeight = perCellHeight
    self.perTableWidth = perTableWidth
  }
  public init(floatLiteral value: Double) { self.init(value) }
  public init(integerLiteral value: Int) { self.init(Double(value)) }

  /// `factor` x the cell's height (points).
  public static func cellHeight(_ factor: Double = 1) -> ChannelValue { ChannelValue(perCellHeight: factor) }
  /// `factor` x the table's width (points).
  public static func tableWidth(_ factor: Double = 1) -> ChannelValue { ChannelValue(perTableWidth: factor) }

  /// The value for a cell.
  public func resolve(cellHeight: Double, tableWidth: Double) -> Double {
    constant + perCellHeight * cellHeight + perTableWidth * tableWidth
  }

  /// Checks the parts against `InputLimits.channelConstant` and `channelFactor`.
  func validate(_ field: String) throws(CellMotionError) {
    try Check.within(constant, InputLimits.channelConstant, "\(field).constant")
    try Check.within(perCellHeight, InputLimits.channelFactor, "\(field).perCellHeight")
    try Check.within(perTableWidth, InputLimits.channelFactor, "\(field).perTableWidth")
  }
}

/// What drives progress from 0 to 1 over an animation's local time.
public enum AnimationCurve: Sendable, Hashable, Codable {
  /// A cubic Bezier of the time fraction (local time / duration).
  case bezier(TimingCurve)
  /// A damped spring of the local time in seconds (the duration only says when it stops:
  /// after it the value is exactly the end value, as when UIKit removes the animation).
  case spring(Spring)

  /// Progress at local time `t` seconds of an animation lasting `duration` seconds,
  /// for `0 <= t <= duration`.
  public func progress(localTime t: Double, duration: Double) -> Double {
    switch self {
    case .bezier(let c): return c.value(at: t / duration)
    case .spring(let s): return t >= duration ? 1 : s.value(at: t)
    }
  }

  /// d(progress) / d(local time) at local time `t` seconds, per second: a Bezier's slope
  /// over its duration, a spring's x'(t); 0 from the duration on (the animation has
  /// ended) and before 0.
  public func velocity(localTime t: Double, duration: Double) -> Double {
    guard t >= 0, t < duration else { return 0 }
    switch self {
    case .bezier(let c): return c.slope(at: t / duration) / duration
    case .spring(let s): return s.velocity(at: t)
    }
  }
}

/// One animated channel: from one value to another along `curve`, or through keyframes.
public struct ChannelAnimation: Sendable, Hashable, Codable {
  public var channel: Channel
  /// The start value (for keyframes: the first value, as the initialisers set it).
  public var from: ChannelValue
  /// The end value, which is also the model value shown when the animation is not in
  /// effect (for keyframes: the last value, as the initialisers set it).
  public var to: ChannelValue
  /// Progress over the duration (for keyframes: the animation's own timing function, which
  /// gives the fraction the keyframes read; linear by default, as CAKeyframeAnimation).
  public var curve: AnimationCurve
  /// Seconds, > 0.
  public var duration: Double
  /// Seconds before this channel starts, on top of the cell's start time and stagger; >= 0.
  public var delay: Double
  /// Keyframes (CAKeyframeAnimation) instead of from -> to; nil for a two-value channel.
  /// When set they decide every value: `from` and `to` are their first and last values
  /// (`endValue` reads the keyframes, whatever `to` holds).
  public var keyframes: ChannelKeyframes?

  public init(
    _ channel: Channel, from: ChannelValue, to: ChannelValue, curve: AnimationCurve,
    duration: Double, delay: Double = 0
  ) {
    self.channel = channel
    self.from = from
    self.to = to
    self.curve = curve
    self.duration = duration
    self.delay = delay
    self.keyframes = nil
  }

  /// A keyframe channel: `keyframes` over `duration` seconds, read at the fraction `curve`
  /// gives (linear by default, as CAKeyframeAnimation's `timingFunction`).
  public init(
    _ channel: Channel, keyframes: ChannelKeyframes, curve: AnimationCurve = .bezier(.linear), duration: Double,
    delay: Double = 0
  ) {
    self.init(
      channel, from: keyframes.values.first ?? 0, to: keyframes.values.last ?? 0, curve: curve, duration: duration,
      delay: delay)
    self.keyframes = keyframes
  }

  /// The model value: the last keyframe, or `to`.
  public var endValue: ChannelValue { keyframes?.values.last ?? to }

  /// d(value) / d(progress) for one cell at progress `p`: to - from, or the keyframes'
  /// slope (0 outside [0, 1], where they clamp).
  public func slope(progress p: Double, cellHeight: Double, tableWidth: Double) -> Double {
    if let keyframes {
      guard p >= 0, p <= 1, let track = try? keyframes.track(cellHeight: cellHeight, tableWidth: tableWidth) else {
        return 0
      }
      return track.slope(at: p, duration: duration)
    }
    return to.resolve(cellHeight: cellHeight, tableWidth: tableWidth)
      - from.resolve(cellHeight: cellHeight, tableWidth: tableWidth)
  }

  /// The channel's value for one cell at the fraction `p` of its curve (its progress; the
  /// keyframes clamp it to [0, 1], a two-value channel extrapolates, as a spring's
  /// overshoot needs).
  public func value(progress p: Double, cellHeight: Double, tableWidth: Double) -> Double {
    if let keyframes {
      return keyframes.value(at: p, duration: duration, cellHeight: cellHeight, tableWidth: tableWidth)
    }
    let a = from.resolve(cellHeight: cellHeight, tableWidth: tableWidth)
    let b = to.resolve(cellHeight: cellHeight, tableWidth: tableWidth)
    return a + (b - a) * p
  }
}

/// A whole-matrix animation (layer.transform inside an animation block), from one matrix
/// to another or through keyframes.
public struct MatrixAnimation: Sendable, Hashable, Codable {
  /// The start matrix (for keyframes: the first value, as the initialisers set it).
  public var from: Transform3D
  /// The end matrix (for keyframes: the last value, as the initialisers set it).
  public var to: Transform3D
  /// How each pair of matrices interpolates.
  public var mode: TransformInterpolationMode
  public var curve: AnimationCurve
  /// Seconds, > 0.
  public var duration: Double
  /// Seconds, >= 0.
  public var delay: Double
  /// Keyframes (CAKeyframeAnimation on `transform`) instead of from -> to; nil for two
  /// matrices. When set they decide every value.
  public var keyframes: MatrixKeyframes?

  public init(
    from: Transform3D, to: Transform3D, mode: TransformInterpolationMode = .decomposed,
    curve: AnimationCurve, duration: Double, delay: Double = 0
  ) {
    self.from = from
    self.to = to
    self.mode = mode
    self.curve = curve
    self.duration = duration
    self.delay = delay
    self.keyframes = nil
  }

  /// A keyframe matrix animation: `keyframes` over `duration` seconds at the fraction
  /// `curve` gives (linear by default), each segment interpolated by `mode`.
  public init(
    keyframes: MatrixKeyframes, mode: TransformInterpolationMode = .decomposed, curve: AnimationCurve = .bezier(.linear),
    duration: Double, delay: Double = 0
  ) {
    self.init(
      from: keyframes.values.first ?? .identity, to: keyframes.values.last ?? .identity, mode: mode, curve: curve,
      duration: duration, delay: delay)
    self.keyframes = keyframes
  }

  /// The matrix at progress `p` of the curve (keyframes clamp it to [0, 1]; two matrices
  /// extrapolate, as overshooting curves need).
  public func value(progress p: Double) -> Transform3D {
    if let keyframes { return keyframes.value(at: p, duration: duration, interpolation: mode) }
    return TransformInterpolator(from: from, to: to, mode: mode).value(at: p)
  }

  /// The model value, shown when the animation is not in effect: `to` as the
  /// interpolation path represents it (the 3D path normalises by m44: the same projective
  /// map), or the keyframes' (`MatrixKeyframes.modelValue`).
  public var modelValue: Transform3D {
    if let keyframes { return keyframes.modelValue(interpolation: mode) }
    return TransformInterpolator(from: from, to: to, mode: mode).value(at: 1)
  }
}

/// How channel transforms compose into one matrix.
public enum ChannelOrder: String, Sendable, Hashable, Codable, CaseIterable {
  /// Core Animation's transform key paths: scale applies first, then rotation (x, then y,
  /// then z), then translation: M = S * Rx * Ry * Rz * T.
  case keyPath
  /// Translation first, in the rotated frame, as
  /// CATransform3DTranslate(CATransform3DRotate(identity, ...), tx, ty, tz) reads:
  /// M = T * S * Rx * Ry * Rz.
  case translateFirst
}

/// Optional CAMediaTiming on top of each channel's delay and duration.
public struct RecipeTiming: Sendable, Hashable, Codable {
  /// Time scale (CAMediaTiming.speed); recipes accept finite values > 0.
  public var speed: Double
  public var repeatCount: Double
  public var autoreverses: Bool
  /// UIKit's delays fill backwards; after the end the model value (the `to` value) shows.
  public var fillMode: FillMode
  public init(speed: Double = 1, repeatCount: Double = 0, autoreverses: Bool = false, fillMode: FillMode = .backwards) {
    self.speed = speed
    self.repeatCount = repeatCount
    self.autoreverses = autoreverses
    self.fillMode = fillMode
  }
  public static let uiKit = RecipeTiming()
}

/// Fold open/closed: the detail part splits in a top and a bottom half, each turning about
/// its hinge edge with perspective, the bottom one following the top's projected edge.
public struct FoldSpec: Sendable, Hashable, Codable {
  public enum Direction: String, Sendable, Hashable, Codable { case open, close }
  public var direction: Direction
  public var curve: AnimationCurve
  /// Seconds, > 0.
  public var duration: Double
  /// Perspective distance d in points (m34 = -1/d), > 0; 500 in the tutorial.
  public var perspectiveDistance: Double
  public init(direction: Direction, curve: AnimationCurve = .bezier(.easeInEaseOut), duration: Double = 0.3, perspectiveDistance: Double = 500) {
    self.direction = direction
    self.curve = curve
    self.duration = duration
    self.perspectiveDistance = perspectiveDistance
  }
}

/// A complete cell animation.
public struct Recipe: Sendable, Hashable, Codable {
  public var name: String
  public var channels: [ChannelAnimation]
  public var matrix: MatrixAnimation?
  public var stagger: Stagger
  public var order: ChannelOrder
  /// Anchor point as a unit fraction of the cell's bounds ((0.5, 0.5) = centre).
  public var anchorX: Double
  public var anchorY: Double
  /// If set, m34 = -1/d is applied after the animated transform, about the anchor (points).
  public var perspectiveDistance: Double?
  public var timing: RecipeTiming
  public var fold: FoldSpec?
  /// Reduce motion (default `.full`); a table or a batch may override it for every recipe.
  public var motion: MotionPolicy

  public init(
    name: String, channels: [ChannelAnimation] = [], matrix: MatrixAnimation? = nil,
    stagger: Stagger = .none, order: ChannelOrder = .keyPath, anchorX: Double = 0.5,
    anchorY: Double = 0.5, perspectiveDistance: Double? = nil, timing: RecipeTiming = .uiKit,
    fold: FoldSpec? = nil, motion: MotionPolicy = .full
  ) {
    self.motion = motion
    self.name = name
    self.channels = channels
    self.matrix = matrix
    self.stagger = stagger
    self.order = order
    self.anchorX = anchorX
    self.anchorY = anchorY
    self.perspectiveDistance = perspectiveDistance
    self.timing = timing
    self.fold = fold
  }

  /// Checks every number once (the evaluators then trust the recipe). Throws the first
  /// problem, naming the field, e.g. `channels[1].duration must be in [1e-06, 1e+05], got -1.0`.
  ///
  /// Ranges (`InputLimits`): durations in `duration`, delays and the stagger step in
  /// `delay`, channel values in `channelConstant` / `channelFactor`, matrix entries and
  /// their decomposition in `matrixEntry`, anchors in `anchor`, perspective distances in
  /// `perspectiveDistance`, speed in `speed`, repeatCount in `repeatCount`; curves are
  /// checked by their own initialisers. Within them every output is finite.
  public func validate() throws(CellMotionError) {
    for (i, c) in channels.enumerated() {
      let f = "\(name).channels[\(i)]"
      if let keyframes = c.keyframes {
        // The keyframes decide every value (from and to are not read).
        try keyframes.validate("\(f).keyframes")
      } else {
        try c.from.validate("\(f).from")
        try c.to.validate("\(f).to")
      }
      try Check.within(c.duration, InputLimits.duration, "\(f).duration")
      try Check.within(c.delay, InputLimits.delay, "\(f).delay")
    }
    if let m = matrix {
      if let k = m.keyframes {
        try k.validate("\(name).matrix.keyframes", interpolation: m.mode)
      } else {
        try Self.validateMatrixEnds(m, "\(name).matrix")
      }
      try Check.within(m.duration, InputLimits.duration, "\(name).matrix.duration")
      try Check.within(m.delay, InputLimits.delay, "\(name).matrix.delay")
    }
    try stagger.validate("\(name).stagger")
    try Check.within(anchorX, InputLimits.anchor, "\(name).anchorX")
    try Check.within(anchorY, InputLimits.anchor, "\(name).anchorY")
    if let d = perspectiveDistance { try Check.within(d, InputLimits.perspectiveDistance, "\(name).perspectiveDistance") }
    try Check.within(timing.speed, InputLimits.speed, "\(name).timing.speed")
    try Check.within(timing.repeatCount, InputLimits.repeatCount, "\(name).timing.repeatCount")
    if let fold {
      try Check.within(fold.duration, InputLimits.duration, "\(name).fold.duration")
      try Check.within(fold.perspectiveDistance, InputLimits.perspectiveDistance, "\(name).fold.perspectiveDistance")
    }
  }

  /// Both ends' entries in `InputLimits.matrixEntry`, and, on the decomposed paths, every
  /// number of their decompositions too (a nearly singular matrix, or one with a tiny
  /// m44, decomposes into huge scales or perspective terms that would overflow Float).
  static func validateMatrixEnds(_ m: MatrixAnimation, _ field: String) throws(CellMotionError) {
    for (end, t) in [("from", m.from), ("to", m.to)] {
      for (k, v) in t.fieldOrder.enumerated() {
        try Check.within(v, InputLimits.matrixEntry, "\(field).\(end).m\(k / 4 + 1)\(k % 4 + 1)")
      }
    }
    let numbers: [(String, [Double])]
    switch TransformInterpolator(from: m.from, to: m.to, mode: m.mode).path {
    case .twoD(let a, let b): numbers = [("from", a.numbers), ("to", b.numbers)]
    case .threeD(let a, let b): numbers = [("from", a.numbers), ("to", b.numbers)]
    case .componentwise, .discrete: numbers = []
    }
    for (end, values) in numbers {
      for v in values where !(v.isFinite && InputLimits.matrixEntry.contains(v)) {
        throw .outOfRange(
          field: "\(field).\(end)", value: v,
          expected: "a matrix whose decomposition (translation, scale, skew, perspective) lies in "
            + "[\(Check.short(InputLimits.matrixEntry.lowerBound)), \(Check.short(InputLimits.matrixEntry.upperBound))]")
      }
    }
  }

  /// The longest time any part of the recipe runs after its cell's start and stagger
  /// (seconds; infinite for infinite repeats).
  public var activeDuration: Double {
    var d = 0.0
    for c in channels { d = max(d, c.delay + timing.activeDuration(c.duration)) }
    if let m = matrix { d = max(d, m.delay + timing.activeDuration(m.duration)) }
    if let f = fold { d = max(d, timing.activeDuration(f.duration)) }
    return d
  }
}

extension Recipe {
  /// Seconds from a cell's start (after its stagger) until every part has come to rest:
  /// the latest over the channels, the matrix and the fold of
  /// - a Bezier part, a keyframe part, or any part that repeats or autoreverses: delay +
  ///   its active duration (`RecipeTiming.activeDuration`);
  /// - a spring part that plays once: delay + min(settling duration, duration) / speed,
  ///   since the spring is at rest (within `Spring.settlingDuration`'s threshold) before
  ///   UIKit removes it at its duration.
  /// Infinite when a part repeats forever. `activeDuration` is when the recipe ends; this
  /// is when it stops moving, which for a long spring duration comes earlier. Under the
  /// recipe's `motion` policy: held parts do not count (0 under `.none`), and `.reduced`'s
  /// cross-fade does.
  public var settleTime: Double {
    var animated = channels.filter { !motion.holds($0.channel) }
    if motion == .reduced, let fade = reducedMotionCrossFade { animated.append(fade) }
    // A keyframe part ends at its duration: its spring curve settling says nothing about
    // values far along a steep last segment.
    var parts: [(delay: Double, duration: Double, curve: AnimationCurve, keyframes: Bool)] = animated.map {
      ($0.delay, $0.duration, $0.curve, $0.keyframes != nil)
    }
    if !motion.holdsTransforms, let m = matrix { parts.append((m.delay, m.duration, m.curve, m.keyframes != nil)) }
    if !motion.holdsTransforms, let f = fold { parts.append((0, f.duration, f.curve, false)) }
    let once = timing.repeatCount <= 1 && !timing.autoreverses
    var latest = 0.0
    for p in parts {
      var end = p.delay + timing.activeDuration(p.duration)
      if once, !p.keyframes, case .spring(let spring) = p.curve {
        end = p.delay + min(spring.settlingDuration, p.duration) / timing.speed
      }
      latest = max(latest, end)
    }
    return latest
  }

  /// `settleTime` after the cell's own start: its stagger delay
  /// (`ReferenceEvaluator.staggerDelay`) plus `settleTime`, seconds.
  public func settleTime(row: Int, batchPosition: Int, rowCount: Int? = nil, batchCount: Int? = nil) -> Double {
    ReferenceEvaluator.staggerDelay(
      stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount) + settleTime
  }
}

extension RecipeTiming {
  /// Wall-clock seconds the animation is active for a base duration D:
  /// D * max(repeatCount, 1) * (autoreverses ? 2 : 1) / speed.
  public func activeDuration(_ duration: Double) -> Double {
    duration * max(repeatCount, 1) * (autoreverses ? 2 : 1) / speed
  }
}
