// ChannelMotion: one channel of one cell over time, as its recipe runs it and after any
// number of retargets; the reference for the kernel's retargeted batches.

import Foundation

/// One channel of a recipe as it runs for one cell: value and velocity at any time, by
/// the recipe's media timing, the cell's geometry and the motion policy.
public struct RecipeChannel: Sendable, Hashable {
  public var animation: ChannelAnimation
  public var timing: RecipeTiming
  /// The cell's staggered start (seconds, absolute).
  public var start: Double
  /// Whether the motion policy holds the channel at its end value.
  public var held: Bool
  /// Points.
  public var cellHeight: Double
  public var tableWidth: Double

  public init(animation: ChannelAnimation, timing: RecipeTiming, start: Double, held: Bool, geometry: CellGeometry) {
    self.animation = animation
    self.timing = timing
    self.start = start
    self.held = held
    cellHeight = geometry.height
    tableWidth = geometry.tableWidth
  }

  /// `recipe`'s last channel animating `channel` under `policy` (the one that shows), as
  /// it runs for a cell starting at `start` (absolute seconds, stagger applied).
  /// - Throws: `.invalidCombination` when the recipe does not animate `channel`.
  package static func of(
    _ recipe: Recipe, channel: Channel, policy: MotionPolicy, start: Double, geometry: CellGeometry
  ) throws(CellMotionError) -> RecipeChannel {
    guard let c = ReferenceEvaluator.channels(recipe, policy).last(where: { $0.channel == channel }) else {
      throw .invalidCombination(
        field: "channel", reason: "recipe \(recipe.name) does not animate \(channel.rawValue); only animated channels retarget")
    }
    return RecipeChannel(animation: c, timing: recipe.timing, start: start, held: policy.holds(channel), geometry: geometry)
  }

  /// The channel's value at `time` (seconds): its curve's while in effect, else its end
  /// value (as `ReferenceEvaluator.channelValues`).
  public func value(at time: Double) -> Double {
    let c = animation
    if !held, let p = ReferenceEvaluator.progress(
      curve: c.curve, duration: c.duration, begin: start + c.delay, timing: timing, time: time)
    {
      return c.value(progress: p, cellHeight: cellHeight, tableWidth: tableWidth)
    }
    return endValue
  }

  /// Units per second at `time`, closed form (as `ReferenceEvaluator.channelVelocities`).
  public func velocity(at time: Double) -> Double {
    let c = animation
    guard !held,
      let media = ReferenceEvaluator.mediaTiming(duration: c.duration, begin: start + c.delay, timing: timing),
      let local = media.localTime(parentTime: time)
    else { return 0 }
    let p = c.curve.progress(localTime: local, duration: c.duration)
    return c.slope(progress: p, cellHeight: cellHeight, tableWidth: tableWidth)
      * c.curve.velocity(localTime: local, duration: c.duration) * media.localTimeRate(parentTime: time)
  }

  /// The value it rests at from `endTime` on, units: the model value (`endValue`), or with
  /// a forward fill the last iteration's end state (the start value after an even number
  /// of autoreversed halves).
  public var finalValue: Double { value(at: endTime) }
  /// The model value (the end value), units.
  public var endValue: Double { animation.endValue.resolve(cellHeight: cellHeight, tableWidth: tableWidth) }
  /// The first value (`from`, or the first keyframe), units: where `reverse` goes.
  public var startValue: Double { animation.from.resolve(cellHeight: cellHeight, tableWidth: tableWidth) }
  /// Seconds (absolute) from which nothing changes.
  public var endTime: Double {
    guard !held, let media = ReferenceEvaluator.mediaTiming(
      duration: animation.duration, begin: start + animation.delay, timing: timing)
    else { return start }
    return media.endTime
  }
}

/// A retarget's replacement motion, from `from` to `to` starting at `begin`:
/// - `.timed(curve, duration)`: from + (to - from) x curve(tau), tau = t - begin, over
///   `duration` seconds (`fromCurrentState`; a held channel's jump, from = to);
/// - `.carrying(spring)`: from + (to - from) x0(tau) + velocity g(tau), x0 the spring
///   released at rest, g its `impulseResponse` (`carryVelocity`): starts at `from` with
///   `velocity` units per second; ends at `end`, when it stays within `restFraction` of its
///   scale (`Spring.restTime`), and shows `to` from then on.
/// Before `begin` the value is `from`.
public struct MotionSegment: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    case timed(AnimationCurve, duration: Double)
    /// The spring released at rest (initial velocity 0).
    case carrying(Spring)
  }
  public let kind: Kind
  /// Units.
  public let from, to: Double
  /// Units per second at `begin` beyond the curve's own (`.carrying` only; 0 for `.timed`).
  public let velocity: Double
  /// Seconds, absolute.
  public let begin, end: Double

  /// The tolerance that ends a `.carrying` segment, as a fraction of its scale
  /// max(|to - from|, |velocity| / w0): Core Animation's settling fraction, 1/1000.
  public static let restFraction = Spring.settlingEpsilon

  /// A timed segment: `curve` from `from` to `to` over `duration` seconds from `begin`.
  ///
  /// - Throws: `.notFinite` / `.outOfRange` for `from` or `to` outside
  ///   `InputLimits.channelValue`, `duration` outside `InputLimits.duration` (1e-6 ...
  ///   1e5 s: a zero duration has no progress), or `begin` outside `InputLimits.time`.
  public init(from: Double, to: Double, curve: AnimationCurve, duration: Double, begin: Double) throws(CellMotionError) {
    try Self.check(from: from, to: to, begin: begin)
    try Check.within(duration, InputLimits.duration, "duration")
    self.init(unchecked: from, to: to, curve: curve, duration: duration, begin: begin)
  }

  /// `init(from:to:curve:duration:begin:)` for numbers the caller has already checked
  /// (retargets and table heights, from validated state).
  package init(unchecked from: Double, to: Double, curve: AnimationCurve, duration: Double, begin: Double) {
    kind = .timed(curve, duration: duration)
    (self.from, self.to, velocity, self.begin, end) = (from, to, 0, begin, begin + duration)
  }

  /// A velocity-carrying spring segment: from `from` with `velocity` (units per second)
  /// toward `to`; the spring's own initial velocity is ignored.
  ///
  /// - Throws: `.notFinite` / `.outOfRange` for `from` or `to` outside
  ///   `InputLimits.channelValue`, `velocity` outside `maximumVelocity` either way, or
  ///   `begin` outside `InputLimits.time`.
  public init(from: Double, to: Double, velocity: Double, spring: Spring, begin: Double) throws(CellMotionError) {
    try Self.check(from: from, to: to, begin: begin)
    try Check.within(velocity, -Self.maximumVelocity...Self.maximumVelocity, "velocity")
    self.init(unchecked: from, to: to, velocity: velocity, spring: spring, begin: begin)
  }

  /// Largest |velocity| a carrying segment takes, units per second: 1e16, the widest
  /// channel value (`InputLimits.channelValue`, 1e10) crossed in the shortest duration
  /// (1e-6 s).
  public static let maximumVelocity = 1e16

  private static func check(from: Double, to: Double, begin: Double) throws(CellMotionError) {
    try Check.within(from, InputLimits.channelValue, "from")
    try Check.within(to, InputLimits.channelValue, "to")
    try Check.time(begin, "begin")
  }

  /// `init(from:to:velocity:spring:begin:)` for numbers the caller has already checked.
  package init(unchecked from: Double, to: Double, velocity: Double, spring: Spring, begin: Double) {
    let s = spring.atRest
    kind = .carrying(s)
    (self.from, self.to, self.velocity, self.begin) = (from, to, velocity, begin)
    let scale = max((to - from).magnitude, velocity.magnitude / s.naturalFrequency)
    end = begin + s.restTime(displacement: from - to, velocity: velocity, tolerance: Self.restFraction * scale)
  }

  /// Units at `time` (seconds).
  public func value(at time: Double) -> Double {
    let tau = time - begin
    if tau <= 0 { return from }
    if time >= end { return to }
    switch kind {
    case .timed(let curve, let duration):
      return from + (to - from) * curve.progress(localTime: tau, duration: duration)
    case .carrying(let s):
      return from + (to - from) * s.value(at: tau) + velocity * s.impulseResponse(at: tau)
    }
  }

  /// Units per second at `time`; at `begin` the velocity it starts with.
  public func velocity(at time: Double) -> Double {
    let tau = time - begin
    if tau < 0 || time >= end { return 0 }
    switch kind {
    case .timed(let curve, let duration):
      return (to - from) * curve.velocity(localTime: tau, duration: duration)
    case .carrying(let s):
      return (to - from) * s.velocity(at: tau) + velocity * s.impulseResponseVelocity(at: tau)
    }
  }

  /// The initial velocity a CASpringAnimation from `from` to `to` needs to start as this
  /// segment does: velocity / (to - from), distances per second; nil when the distance is
  /// 0 (Core Animation cannot state a velocity then; this segment can).
  public var coreAnimationInitialVelocity: Double? { to == from ? nil : velocity / (to - from) }
}

/// One additive retarget: `delta x curve(tau)` on top of what runs, tau = t - begin,
/// 0 before `begin`, `delta` from `begin + duration` on.
public struct AdditiveLayer: Sendable, Hashable {
  /// New target - old target, units.
  public let delta: Double
  public let curve: AnimationCurve
  /// Seconds.
  public let duration: Double
  /// Seconds, absolute.
  public let begin: Double

  public init(delta: Double, curve: AnimationCurve, duration: Double, begin: Double) {
    (self.delta, self.curve, self.duration, self.begin) = (delta, curve, duration, begin)
  }

  /// Seconds, absolute.
  public var end: Double { begin + duration }

  /// Units at `time`.
  public func value(at time: Double) -> Double {
    let tau = time - begin
    if tau <= 0 { return 0 }
    // By the absolute end, as `endTime` reports it (tau can round below the duration).
    if time >= end { return delta }
    return delta * curve.progress(localTime: tau, duration: duration)
  }

  /// Units per second at `time`.
  public func velocity(at time: Double) -> Double {
    let tau = time - begin
    if tau < 0 || time >= end { return 0 }
    return delta * curve.velocity(localTime: tau, duration: duration)
  }
}

/// One channel of one cell, as its recipe runs it and after retargets:
/// value(t) = base(t) + offset + the sum of the additive layers, where the base is the
/// recipe's channel or the segment of the last replacing retarget.
public struct ChannelMotion: Sendable, Hashable {
  public enum Base: Sendable, Hashable {
    case recipe(RecipeChannel)
    case segment(MotionSegment)
  }
  public let channel: Channel
  public private(set) var base: Base
  /// Units: the deltas of additive layers that have ended, folded into a constant.
  public private(set) var offset: Double
  /// The running additive layers, oldest first; at most `maxLayers`.
  public private(set) var layers: [AdditiveLayer]
  /// The recipe's channel as it first ran; nil for a motion that began as a segment.
  public let recipeChannel: RecipeChannel?
  /// Where the motion first started, units: where `reverse` goes back to.
  public let startValue: Double
  /// Whether the motion policy holds this channel (retargets then jump: no motion).
  public let isHeld: Bool

  /// Most additive layers running at once on one channel: 4. A fifth additive retarget
  /// while four run is refused (`.outOfRange`); finished layers do not count.
  public static let maxLayers = 4

  /// The channel as `recipe` runs it for one cell (parameters as
  /// `ReferenceEvaluator.evaluate`'s): its last channel animating `channel` under the
  /// motion policy.
  /// - Throws: `.invalidCombination` when the recipe does not animate `channel`.
  public init(
    _ recipe: Recipe, channel: Channel, geometry: CellGeometry, row: Int = 0, batchPosition: Int = 0,
    rowCount: Int? = nil, batchCount: Int? = nil, startTime: Double = 0, motion: MotionPolicy? = nil
  ) throws(CellMotionError) {
    let start = startTime + ReferenceEvaluator.staggerDelay(
      recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    self.init(
      try RecipeChannel.of(recipe, channel: channel, policy: motion ?? recipe.motion, start: start, geometry: geometry))
  }

  /// The fold of `recipe` as it runs for one cell, as a motion: its value is the fold's
  /// progress in the recipe's direction (0 at the start of its curve, 1 at the end; an
  /// opening fold is flat at 1, a closing one folded), unitless, by the recipe's fold curve,
  /// duration and media timing; 1 throughout when the motion policy holds transforms
  /// (`ReferenceEvaluator.foldState(_:progress:width:detailHeight:)` turns it into the
  /// halves). Retarget it like a channel (`retarget(to:at:policy:)`, e.g. to 0 to fold an
  /// opening detail back); `channel` names it `.rotationX` (the halves turn about x), but
  /// the value is the progress, not an angle. Parameters as `init(_:channel:...)`'s.
  /// - Throws: `.invalidCombination` when the recipe has no fold.
  public init(
    foldOf recipe: Recipe, geometry: CellGeometry, row: Int = 0, batchPosition: Int = 0, rowCount: Int? = nil,
    batchCount: Int? = nil, startTime: Double = 0, motion: MotionPolicy? = nil
  ) throws(CellMotionError) {
    guard let fold = recipe.fold else {
      throw .invalidCombination(field: "fold", reason: "recipe \(recipe.name) has no fold")
    }
    let policy = motion ?? recipe.motion
    let start = startTime + ReferenceEvaluator.staggerDelay(
      recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    self.init(
      RecipeChannel(
        animation: Self.foldProgress(fold), timing: recipe.timing, start: start, held: policy.holdsTransforms,
        geometry: geometry))
  }

  /// A fold's progress as a channel animation from 0 to 1 (`init(foldOf:...)`).
  package static func foldProgress(_ fold: FoldSpec) -> ChannelAnimation {
    ChannelAnimation(.rotationX, from: 0, to: 1, curve: fold.curve, duration: fold.duration)
  }

  /// The channel as `recipeChannel` runs it, not retargeted.
  public init(_ recipeChannel: RecipeChannel) {
    channel = recipeChannel.animation.channel
    base = .recipe(recipeChannel)
    offset = 0
    layers = []
    self.recipeChannel = recipeChannel
    startValue = recipeChannel.startValue
    isHeld = recipeChannel.held
  }

  /// A motion that starts as `segment` (a value animated outside a recipe, such as a
  /// table row's height); `channel` only names it.
  public init(_ segment: MotionSegment, channel: Channel) {
    self.channel = channel
    base = .segment(segment)
    offset = 0
    layers = []
    recipeChannel = nil
    startValue = segment.from
    isHeld = false
  }

  /// Units at `time` (seconds).
  public func value(at time: Double) -> Double {
    var v = offset
    switch base {
    case .recipe(let r): v += r.value(at: time)
    case .segment(let s): v += s.value(at: time)
    }
    for l in layers { v += l.value(at: time) }
    return v
  }

  /// Units per second at `time`, closed form.
  public func velocity(at time: Double) -> Double {
    var v = 0.0
    switch base {
    case .recipe(let r): v += r.velocity(at: time)
    case .segment(let s): v += s.velocity(at: time)
    }
    for l in layers { v += l.velocity(at: time) }
    return v
  }

  /// Where the motion ends, units.
  public var target: Double {
    var v = offset
    switch base {
    case .recipe(let r): v += r.finalValue
    case .segment(let s): v += s.to
    }
    for l in layers { v += l.delta }
    return v
  }

  /// Seconds (absolute) from which the value stays at `target`.
  public var endTime: Double {
    var e: Double
    switch base {
    case .recipe(let r): e = r.endTime
    case .segment(let s): e = s.end
    }
    for l in layers { e = max(e, l.end) }
    return e
  }

  /// Sends the channel to `target` (units) from `time` (seconds) by `policy`.
  /// A held channel (reduce motion) moves to the target at once.
  /// - Throws: `.notFinite` / `.outOfRange` for a target outside
  ///   `InputLimits.channelConstant` or a time outside `InputLimits.time`, the policy's
  ///   errors, and `.outOfRange` for a fifth running additive layer.
  public mutating func retarget(to target: Double, at time: Double, policy: RetargetPolicy) throws(CellMotionError) {
    try Check.within(target, InputLimits.channelConstant, "retarget target")
    try Check.time(time, "retarget time")
    try policy.validate()
    let position = value(at: time)
    if isHeld {
      replace(MotionSegment(unchecked: target, to: target, curve: .bezier(.linear), duration: InputLimits.duration.lowerBound, begin: time))
      return
    }
    switch policy {
    case .additive(let curve, let duration):
      // Layers that have ended become part of the constant.
      let running = layers.filter { $0.end > time }
      let ended = layers.filter { $0.end <= time }
      guard running.count < Self.maxLayers else {
        throw .outOfRange(
          field: "additive layers on \(channel.rawValue)", value: Double(running.count + 1),
          expected: "<= \(Self.maxLayers) running at once (use carryVelocity or fromCurrentState)")
      }
      let layer = AdditiveLayer(delta: target - self.target, curve: curve, duration: duration, begin: time)
      offset += ended.reduce(0) { $0 + $1.delta }
      layers = running + [layer]
    case .carryVelocity(let spring, let drops):
      var v = velocity(at: time)
      if drops, v * (target - position) <= 0 { v = 0 }
      replace(MotionSegment(unchecked: position, to: target, velocity: v, spring: spring, begin: time))
    case .fromCurrentState(let curve, let duration):
      replace(MotionSegment(unchecked: position, to: target, curve: curve, duration: duration, begin: time))
    }
  }

  /// Sends the channel back to where it first started (`startValue`).
  public mutating func reverse(at time: Double, policy: RetargetPolicy) throws(CellMotionError) {
    try retarget(to: startValue, at: time, policy: policy)
  }

  private mutating func replace(_ segment: MotionSegment) {
    base = .segment(segment)
    offset = 0
    layers = []
  }
}

extension ReferenceEvaluator {
  /// `evaluate` with some channels replaced by their retargeted motions: each motion's
  /// value stands for its channel's (the recipe must animate it; `ChannelMotion.init`
  /// checks that), and `fold` (a `ChannelMotion(foldOf:...)`, possibly retargeted) gives
  /// the fold's progress. Other parameters as `evaluate`'s.
  public static func evaluate(
    _ recipe: Recipe, geometry: CellGeometry, row: Int = 0, batchPosition: Int = 0, rowCount: Int? = nil,
    batchCount: Int? = nil, startTime: Double = 0, time: Double, motion: MotionPolicy? = nil,
    retargeted motions: [ChannelMotion], fold: ChannelMotion? = nil
  ) -> CellState {
    let start = startTime + staggerDelay(
      recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    let policy = motion ?? recipe.motion
    var v = channelValues(recipe, geometry: geometry, start: start, time: time, policy: policy)
    for m in motions { v[m.channel] = m.value(at: time) }
    return compose(
      recipe, values: v, geometry: geometry, start: start, time: time, policy: policy,
      foldProgress: fold?.value(at: time))
  }
}
