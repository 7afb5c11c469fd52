// The scalar reference: evaluates a recipe for one cell at one time, plainly and exactly
// (Double). It defines the semantics; the SIMD kernel is tested against it.

import Foundation

/// A cell's geometry, points.
public struct CellGeometry: Sendable, Hashable, Codable {
  /// Cell bounds width (usually the table width), points.
  public var width: Double
  /// Cell bounds height (the row height), points.
  public var height: Double
  /// The table's width, points (for "slide in from the right edge").
  public var tableWidth: Double
  /// Height of the detail part that folds (fold recipes); nil means the whole cell.
  public var detailHeight: Double?

  public init(width: Double, height: Double, tableWidth: Double? = nil, detailHeight: Double? = nil) {
    self.width = width
    self.height = height
    self.tableWidth = tableWidth ?? width
    self.detailHeight = detailHeight
  }

  /// Throws `.notFinite` or `.outOfRange` unless every size is in `InputLimits.length`
  /// (1e-3 ... 1e6 points; zero sizes are refused).
  public func validate() throws(CellMotionError) {
    try Check.length(width, "cell width")
    try Check.length(height, "cell height")
    try Check.length(tableWidth, "table width")
    if let d = detailHeight { try Check.length(d, "detail height") }
  }
}

/// Both halves of a folding detail view at one time.
///
/// Coordinates: each half's local space is its own bounds [0, width] x [0, halfHeight]
/// (points, y down); the matrices map them into the detail view's space, where at rest the
/// top half covers y in [0, h] and the bottom half y in [h, 2h]. Each half carries m34 =
/// -1/d about its own hinge (anchor): the top half's anchor is its top edge centre, the
/// bottom half's its bottom edge centre.
public struct FoldState: Sendable, Hashable {
  public var top: Transform3D
  public var bottom: Transform3D
  public var topShadowOpacity: Double
  public var bottomShadowOpacity: Double
  /// Half the detail height, points.
  public var halfHeight: Double
  /// The top half's angle about x (radians; -pi/2 folded, 0 open); the bottom's is its negative.
  public var angle: Double
  /// How far the bottom half's hinge moves up (<= 0, points) so its top edge meets the top
  /// half's projected bottom edge exactly: 2h cos(angle) / w - 2h with w = 1 - h sin(angle)/d.
  public var bottomTranslation: Double
}

/// The visible state of a cell at one time.
public struct CellState: Sendable, Hashable {
  /// Model transform in the cell's own space (points): maps a point of the cell's bounds to
  /// where it is drawn relative to the cell's resting frame origin. Includes the anchor
  /// sandwich and the recipe's perspective. The table adds the row position and scroll.
  public var transform: Transform3D
  /// In [0, 1].
  public var opacity: Double
  /// In [0, 1].
  public var shadowOpacity: Double
  /// Fold recipes only.
  public var fold: FoldState?
}

/// Every channel of a cell at one time (points for translations, radians for rotations,
/// unitless otherwise), or their velocities (the same units per second).
/// `ReferenceEvaluator.channelValues` starts from the model values (opacity 1, scales 1,
/// the rest 0), `channelVelocities` from 0.
public struct ChannelValues: Sendable, Hashable {
  public var opacity, shadowOpacity: Double
  public var translationX, translationY, translationZ: Double
  public var rotationX, rotationY, rotationZ: Double
  public var scale, scaleX, scaleY: Double

  /// The model values: opacity 1, scales 1, the others 0.
  public init() {
    (opacity, shadowOpacity, translationX, translationY, translationZ) = (1, 0, 0, 0, 0)
    (rotationX, rotationY, rotationZ, scale, scaleX, scaleY) = (0, 0, 0, 1, 1, 1)
  }

  /// Every channel 0 (a cell at rest, as velocities).
  public static var zero: ChannelValues {
    var v = ChannelValues()
    for c in Channel.allCases { v[c] = 0 }
    return v
  }

  public subscript(channel: Channel) -> Double {
    get {
      switch channel {
      case .opacity: return opacity
      case .shadowOpacity: return shadowOpacity
      case .translationX: return translationX
      case .translationY: return translationY
      case .translationZ: return translationZ
      case .rotationX: return rotationX
      case .rotationY: return rotationY
      case .rotationZ: return rotationZ
      case .scale: return scale
      case .scaleX: return scaleX
      case .scaleY: return scaleY
      }
    }
    set {
      switch channel {
      case .opacity: opacity = newValue
      case .shadowOpacity: shadowOpacity = newValue
      case .translationX: translationX = newValue
      case .translationY: translationY = newValue
      case .translationZ: translationZ = newValue
      case .rotationX: rotationX = newValue
      case .rotationY: rotationY = newValue
      case .rotationZ: rotationZ = newValue
      case .scale: scale = newValue
      case .scaleX: scaleX = newValue
      case .scaleY: scaleY = newValue
      }
    }
  }
}

/// The plain, exact evaluator.
public enum ReferenceEvaluator {
  /// Seconds of extra delay for a cell from its recipe's stagger rule
  /// (`Stagger.delay(index:count:)` with the row and the table's row count, or the
  /// position in the cell's batch and the batch's size). A count left nil is taken as
  /// index + 1 (the cell is the last one known), which is exact for the default stagger
  /// and for any stagger that does not `needsCount`. Any index is accepted, `Int.max`
  /// included (`Stagger.delay` clamps the index and count where they matter).
  public static func staggerDelay(
    _ stagger: Stagger, row: Int, batchPosition: Int, rowCount: Int? = nil, batchCount: Int? = nil
  ) -> Double {
    // index + 1 without overflow: `delay` clamps the count below `maximumCount` anyway.
    func known(_ index: Int) -> Int { min(max(index, 0), Stagger.maximumCount - 1) + 1 }
    switch stagger.base {
    case .row: return stagger.delay(index: row, count: rowCount ?? known(row))
    case .batchPosition: return stagger.delay(index: batchPosition, count: batchCount ?? known(batchPosition))
    }
  }

  /// Progress of one timed part (a channel, the matrix, the fold) at parent time `time`,
  /// or nil when the animation has no effect (then the model value, the `to` value, shows).
  ///
  /// CAMediaTiming via `MediaTiming`: beginTime = start + stagger + delay, the recipe's
  /// speed, repeat, autoreverse and fill mode; local time in [0, duration] then the curve.
  public static func progress(
    curve: AnimationCurve, duration: Double, begin: Double, timing: RecipeTiming, time: Double
  ) -> Double? {
    guard let media = mediaTiming(duration: duration, begin: begin, timing: timing),
      let local = media.localTime(parentTime: time)
    else { return nil }
    return curve.progress(localTime: local, duration: duration)
  }

  /// The part's CAMediaTiming: beginTime `begin`, the recipe's speed, repeat, autoreverse
  /// and fill mode (nil only for a part the recipe's validation refuses).
  ///
  /// `begin` may lie beyond `InputLimits.time` (a stagger of 1e5 s x row 2^40 puts it at
  /// 1.1e17 s), which `MediaTiming` refuses as a begin time: the timing is built with
  /// begin 0 and read at `time - begin` (the same Double arithmetic), so such a part still
  /// shows its start state before it begins instead of having no effect.
  static func mediaTiming(duration: Double, begin: Double, timing: RecipeTiming) -> PartMediaTiming? {
    guard
      let media = try? MediaTiming(
        beginTime: 0, duration: duration, speed: timing.speed, repeatCount: timing.repeatCount,
        autoreverses: timing.autoreverses, fillMode: timing.fillMode)
    else { return nil }
    return PartMediaTiming(media: media, begin: begin)
  }
}

/// A part's `MediaTiming` with its begin time kept apart (absolute seconds, any finite
/// value): the parent-time queries `MediaTiming` answers, at `time - begin`.
struct PartMediaTiming {
  /// The timing with beginTime 0.
  let media: MediaTiming
  let begin: Double

  func localTime(parentTime time: Double) -> Double? { media.localTime(parentTime: time - begin) }
  func localTimeRate(parentTime time: Double) -> Double { media.localTimeRate(parentTime: time - begin) }
  /// Parent time at which the active duration ends, seconds.
  var endTime: Double { begin + media.endTime }
}

extension ReferenceEvaluator {

  /// Every channel's value for one cell (the parameters as `evaluate`'s): the model value
  /// where no channel animates it, the end value where the motion policy holds it or the
  /// animation is not in effect; where two channels animate the same property the later
  /// wins. `evaluate` composes these into the transform.
  public static func channelValues(
    _ recipe: Recipe, geometry: CellGeometry, row: Int = 0, batchPosition: Int = 0, rowCount: Int? = nil,
    batchCount: Int? = nil, startTime: Double = 0, time: Double, motion: MotionPolicy? = nil
  ) -> ChannelValues {
    channelValues(
      recipe, geometry: geometry,
      start: startTime + staggerDelay(
        recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount),
      time: time, policy: motion ?? recipe.motion)
  }

  /// `channelValues` for a cell whose staggered start is `start` (seconds).
  static func channelValues(
    _ recipe: Recipe, geometry: CellGeometry, start: Double, time: Double, policy: MotionPolicy
  ) -> ChannelValues {
    var values = ChannelValues()
    for c in channels(recipe, policy) {
      values[c.channel] = RecipeChannel(
        animation: c, timing: recipe.timing, start: start, held: policy.holds(c.channel), geometry: geometry
      ).value(at: time)
    }
    return values
  }

  /// Every channel's velocity for one cell, units per second, in closed form (the
  /// parameters as `evaluate`'s): d(value)/d(progress) (to - from, or the keyframes'
  /// slope) x the curve's d(progress)/d(local time) (a Bezier's slope over its duration,
  /// a spring's x'(t)) x d(local time)/d(time) (the speed, negative in an autoreversed
  /// iteration, 0 while a fill holds a state: `MediaTiming.localTimeRate`). 0 where
  /// nothing animates, where the motion policy holds the channel, and after the end.
  /// At a kink (a segment boundary, an iteration's turn) the side that starts there.
  public static func channelVelocities(
    _ recipe: Recipe, geometry: CellGeometry, row: Int = 0, batchPosition: Int = 0, rowCount: Int? = nil,
    batchCount: Int? = nil, startTime: Double = 0, time: Double, motion: MotionPolicy? = nil
  ) -> ChannelValues {
    channelVelocities(
      recipe, geometry: geometry,
      start: startTime + staggerDelay(
        recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount),
      time: time, policy: motion ?? recipe.motion)
  }

  /// `channelVelocities` for a cell whose staggered start is `start` (seconds).
  static func channelVelocities(
    _ recipe: Recipe, geometry: CellGeometry, start: Double, time: Double, policy: MotionPolicy
  ) -> ChannelValues {
    var velocities = ChannelValues.zero
    for c in channels(recipe, policy) {
      velocities[c.channel] = RecipeChannel(
        animation: c, timing: recipe.timing, start: start, held: policy.holds(c.channel), geometry: geometry
      ).velocity(at: time)
    }
    return velocities
  }

  /// The channels as evaluated under `policy`: the recipe's, plus `.reduced`'s cross-fade.
  package static func channels(_ recipe: Recipe, _ policy: MotionPolicy) -> [ChannelAnimation] {
    var channels = recipe.channels
    if policy == .reduced, let fade = recipe.reducedMotionCrossFade { channels.append(fade) }
    return channels
  }

  /// Evaluates `recipe` for one cell.
  /// - Parameters:
  ///   - recipe: the recipe to evaluate.
  ///   - geometry: the cell's size and the table's width, points.
  ///   - row: the cell's row (the stagger's `.row` base).
  ///   - batchPosition: the cell's position among the rows that appeared with it (the
  ///     stagger's `.batchPosition` base).
  ///   - rowCount: the table's row count, for staggers by row that `needsCount` (see
  ///     `staggerDelay`).
  ///   - batchCount: the size of the cell's batch, for staggers by batch position that
  ///     `needsCount`.
  ///   - startTime: seconds, when the cell was displayed (before its stagger).
  ///   - time: seconds, the frame time.
  ///   - motion: the reduce-motion policy; nil: the recipe's own (`Recipe.motion`).
  public static func evaluate(
    _ recipe: Recipe, geometry: CellGeometry, row: Int = 0, batchPosition: Int = 0,
    rowCount: Int? = nil, batchCount: Int? = nil, startTime: Double = 0, time: Double, motion: MotionPolicy? = nil
  ) -> CellState {
    let start = startTime + staggerDelay(
      recipe.stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    let policy = motion ?? recipe.motion
    let v = channelValues(recipe, geometry: geometry, start: start, time: time, policy: policy)
    return compose(recipe, values: v, geometry: geometry, start: start, time: time, policy: policy)
  }

  /// The cell state from its channel values: the transform they build (in the recipe's
  /// order), the matrix animation, the perspective and the anchor sandwich, the opacities
  /// clamped to [0, 1], the fold (at `foldProgress` when given: a retargeted fold).
  static func compose(
    _ recipe: Recipe, values v: ChannelValues, geometry: CellGeometry, start: Double, time: Double,
    policy: MotionPolicy, foldProgress: Double? = nil
  ) -> CellState {
    let (opacity, shadow) = (v.opacity, v.shadowOpacity)
    let (tx, ty, tz, rx, ry, rz) = (v.translationX, v.translationY, v.translationZ, v.rotationX, v.rotationY, v.rotationZ)
    let (s, sx, sy) = (v.scale, v.scaleX, v.scaleY)
    let hasChannelTransform = recipe.channels.contains { $0.channel.movesTransform }
    var m = Transform3D.identity
    if hasChannelTransform {
      let linear = Transform3D.scale(s * sx, s * sy, 1)
        .concatenating(.rotation(rx, 1, 0, 0))
        .concatenating(.rotation(ry, 0, 1, 0))
        .concatenating(.rotation(rz, 0, 0, 1))
      let t = Transform3D.translation(tx, ty, tz)
      m = recipe.order == .keyPath ? linear.concatenating(t) : t.concatenating(linear)
    }
    if let ma = recipe.matrix {
      let value: Transform3D
      if !policy.holdsTransforms, let p = progress(
        curve: ma.curve, duration: ma.duration, begin: start + ma.delay, timing: recipe.timing, time: time)
      {
        value = ma.value(progress: p)
      } else {
        // The model value (`MatrixAnimation.modelValue`).
        value = ma.modelValue
      }
      m = m.concatenating(value)
    }
    if let d = recipe.perspectiveDistance {
      var p = Transform3D.identity
      p.m34 = -1 / d
      m = m.concatenating(p)
    }
    let anchor = Vector3(recipe.anchorX * geometry.width, recipe.anchorY * geometry.height, 0)
    var state = CellState(
      transform: m.about(anchor), opacity: min(max(opacity, 0), 1),
      shadowOpacity: min(max(shadow, 0), 1), fold: nil)
    if let fold = recipe.fold {
      let p =
        foldProgress ?? (policy.holdsTransforms
        ? 1 : progress(curve: fold.curve, duration: fold.duration, begin: start, timing: recipe.timing, time: time) ?? 1)
      state.fold = foldState(fold, progress: p, width: geometry.width, detailHeight: geometry.detailHeight ?? geometry.height)
    }
    return state
  }

  /// The fold halves at progress `p` (0 = start of the animation, 1 = end).
  /// Opening: the top half's angle goes -pi/2 -> 0 and both shadows 1 -> 0; closing runs
  /// the same backwards. The bottom half's hinge translation is solved exactly from the
  /// top half's projected edge, so the edges meet for any height (see `FoldState`).
  public static func foldState(_ fold: FoldSpec, progress p: Double, width: Double, detailHeight: Double) -> FoldState {
    let openness = fold.direction == .open ? p : 1 - p  // 1 = flat open
    let angle = -Double.pi / 2 * (1 - openness)
    let h = detailHeight / 2
    let d = fold.perspectiveDistance
    var persp = Transform3D.identity
    persp.m34 = -1 / d
    let w = 1 - h * sin(angle) / d
    let bottomTranslation = 2 * h * cos(angle) / w - 2 * h
    let top = Transform3D.translation(-width / 2, 0, 0)
      .concatenating(.rotation(angle, 1, 0, 0))
      .concatenating(persp)
      .concatenating(.translation(width / 2, 0, 0))
    let bottom = Transform3D.translation(-width / 2, -h, 0)
      .concatenating(.rotation(-angle, 1, 0, 0))
      .concatenating(persp)
      .concatenating(.translation(width / 2, 2 * h + bottomTranslation, 0))
    let shadow = min(max(1 - openness, 0), 1)
    return FoldState(
      top: top, bottom: bottom, topShadowOpacity: shadow, bottomShadowOpacity: shadow, halfHeight: h,
      angle: angle, bottomTranslation: bottomTranslation)
  }
}
