// The fold phase a row reports so that the caller can run the fold recipe (tutorial recipe 6
// in the Recipes article of the CellMotion documentation).

import CellMotion

/// Direction of a fold animation on a row's detail part.
public enum FoldPhase: Sendable, Equatable {
  /// Detail halves rotate from folded (±pi/2) to flat: the recipe runs forwards.
  case opening
  /// Flat to folded: the same recipe run backwards in time.
  case closing
}

/// A fold animation of one row's detail part: the recipe's local time is
/// `time - startTime` seconds, in `[0, duration]`.
///
/// Closing is opening reversed in time: its visual state at local time `τ` is the opening
/// state at `duration - τ`, for any timing curve. A reversal mid-way therefore shifts
/// `startTime` so that both phases show the same state at the toggle instant (no jump);
/// `startTime` may then lie before the toggle.
///
/// When the expansion state retargets folds (`ExpansionState.foldAnimation`), `motion`
/// carries the openness instead (0 folded, 1 flat, the fold curve already applied, after
/// any retargets): the phase is where it heads, and the animation runs from `startTime`
/// until the motion ends (`startTime + duration`).
public struct FoldAnimation: Sendable, Equatable {
  /// Opening or closing (retargeting folds: the direction the openness heads).
  public var phase: FoldPhase
  /// Time in seconds at which the phase's local time is 0.
  public var startTime: Double
  /// Length of the phase in seconds.
  public var duration: Double
  /// The openness as a motion (retargeting folds), unitless: 0 folded, 1 flat; nil: the
  /// fold runs along its recipe's timeline (`localTime`).
  public var motion: ChannelMotion?

  /// Creates a fold animation.
  public init(phase: FoldPhase, startTime: Double, duration: Double, motion: ChannelMotion? = nil) {
    self.phase = phase
    self.startTime = startTime
    self.duration = duration
    self.motion = motion
  }

  /// Seconds (absolute) at which it ends.
  public var endTime: Double { startTime + duration }

  /// The openness at `time` when it is a motion (0 folded, 1 flat, eased); nil on a
  /// timeline (apply the recipe's curve to `linearOpenness`).
  public func openness(at time: Double) -> Double? { motion?.value(at: time) }

  /// The local time in seconds at `time`, clamped to `[0, duration]`.
  public func localTime(at time: Double) -> Double {
    min(max(time - startTime, 0), duration)
  }

  /// How far open the detail is at `time` on a linear clock, in [0, 1]: 0 folded, 1 flat.
  /// Opening: `localTime / duration`; closing: `1 - localTime / duration`. (Apply the
  /// recipe's timing curve to the opening-direction fraction.)
  public func linearOpenness(at time: Double) -> Double {
    let fraction = duration > 0 ? localTime(at: time) / duration : (time >= startTime ? 1 : 0)
    return phase == .opening ? fraction : 1 - fraction
  }
}
