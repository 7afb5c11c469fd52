// Where a cell's progress through its recipe comes from: the media-timing clock (Core
// Animation's: the frame time minus the cell's start), or a number per cell that the caller
// gives (the cell's position in the viewport, a gesture, the caller's own clock). The
// curves, keyframes, matrices, opacities and folds read the result the same way.

/// What drives a recipe's parts through their media timing.
///
/// Every part of a recipe (a channel, the matrix, the fold) runs on the recipe's own
/// timeline: local time 0 is the cell's start, and each part begins after its delay and
/// runs for its duration under the recipe's `RecipeTiming` (speed, repeat, autoreverse,
/// fill). A source says where a cell is on that timeline:
/// - `clock`: at the frame time minus the cell's start (and its stagger delay), seconds;
///   what Core Animation does, and what `ReferenceEvaluator.evaluate(_:geometry:row:batchPosition:rowCount:batchCount:startTime:time:motion:)`
///   evaluates.
/// - `progress`: at f x `Recipe.activeDuration` for a progress f per cell that the caller
///   gives (0: the start of the recipe, 1: its end); the stagger adds nothing (the caller's
///   progress is already per cell). Outside [0, 1] the recipe's fill mode decides, as
///   before or after a clock animation (fill backwards or both holds the start value before
///   0, fill forwards or both the end value after 1; otherwise the model value shows).
///   Velocities are per unit of progress, not per second.
///   `ReferenceEvaluator.evaluate(_:geometry:progress:motion:)` evaluates it.
public enum ProgressSource: String, Sendable, Hashable, Codable, CaseIterable {
  /// The media-timing clock: seconds since the cell's staggered start.
  case clock
  /// A progress per cell from the caller, 0...1 over the recipe's active duration.
  case progress
}

extension ReferenceEvaluator {
  /// The time on `recipe`'s timeline (seconds after the cell's start) that progress `f`
  /// stands for: f x `Recipe.activeDuration`.
  ///
  /// - Throws: `.notFinite` for a NaN or infinite `f`; `.outOfRange` when `f` is outside
  ///   `InputLimits.progress` or the recipe has no finite active duration.
  public static func progressTime(_ recipe: Recipe, progress f: Double) throws(CellMotionError) -> Double {
    try Check.within(f, InputLimits.progress, "progress")
    let span = recipe.activeDuration
    guard span.isFinite else {
      throw .outOfRange(field: "\(recipe.name).activeDuration", value: span, expected: "finite for a progress source")
    }
    return f * span
  }

  /// `evaluate` for a cell whose progress comes from the caller (`ProgressSource.progress`):
  /// the state at `progressTime(recipe, progress:)` after the cell's start, no stagger.
  /// - Throws: as `progressTime`.
  public static func evaluate(
    _ recipe: Recipe, geometry: CellGeometry, progress f: Double, motion: MotionPolicy? = nil
  ) throws(CellMotionError) -> CellState {
    let time = try progressTime(recipe, progress: f)
    let policy = motion ?? recipe.motion
    let v = channelValues(recipe, geometry: geometry, start: 0, time: time, policy: policy)
    return compose(recipe, values: v, geometry: geometry, start: 0, time: time, policy: policy)
  }

  /// `channelValues` for a cell driven by progress `f` (`ProgressSource.progress`).
  /// - Throws: as `progressTime`.
  public static func channelValues(
    _ recipe: Recipe, geometry: CellGeometry, progress f: Double, motion: MotionPolicy? = nil
  ) throws(CellMotionError) -> ChannelValues {
    let time = try progressTime(recipe, progress: f)
    return channelValues(recipe, geometry: geometry, start: 0, time: time, policy: motion ?? recipe.motion)
  }

  /// `channelVelocities` for a cell driven by progress `f`: each channel's d(value)/df,
  /// its units per unit of progress (the velocity per second at `progressTime` times
  /// `Recipe.activeDuration`, the seconds one unit of progress covers).
  /// - Throws: as `progressTime`.
  public static func channelVelocities(
    _ recipe: Recipe, geometry: CellGeometry, progress f: Double, motion: MotionPolicy? = nil
  ) throws(CellMotionError) -> ChannelValues {
    let time = try progressTime(recipe, progress: f)
    let perSecond = channelVelocities(recipe, geometry: geometry, start: 0, time: time, policy: motion ?? recipe.motion)
    var v = ChannelValues.zero
    for c in Channel.allCases { v[c] = perSecond[c] * recipe.activeDuration }
    return v
  }
}
