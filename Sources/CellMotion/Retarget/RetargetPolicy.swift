// Retargeting: how a running animation changes course when its target changes mid-flight
// (a row tapped again before it opened, a cell scrolled away and back). Three policies,
// each the one a well-known system uses; every curve here has a closed-form position and
// velocity at any time, so each policy is exact.

import Foundation

/// How a running channel animation moves to a new target.
///
/// Each policy starts at the retarget time `T` from the channel's presentation value
/// there (so the position is continuous for every policy and curve); they differ in what
/// happens to the velocity:
///
/// - `additive` (UIKit since iOS 8, `UIView.animate` on a property already animating):
///   the running animation keeps running toward its old target `A`; an animation of the
///   difference is added on top, `(B - A) x curve(tau)`, so the value ends at the new
///   target `B`. The sum's velocity at `T` is the running animation's plus
///   `(B - A) x curve'(0)`: continuous whenever the added curve starts at rest (ease-in,
///   ease-in-ease-out, a spring released at rest: UIKit's defaults), and jumping by exactly
///   that amount for curves that start moving (linear, ease-out). Layers stack: at most
///   `ChannelMotion.maxLayers` running at once per channel; finished ones fold into a
///   constant.
///   Example: a row slides down by 100 pt over 0.5 s with ease-in-ease-out and, 0.2 s in,
///   is sent 60 pt further: the slide keeps going and a 60 pt ease-in-ease-out is added.
/// - `carryVelocity` (UIViewPropertyAnimator with spring timing, SwiftUI's springs,
///   Android's `SpringAnimation.animateToFinalPosition`): the running animation is
///   replaced by a spring from the presentation value to `B` that starts with the
///   presentation velocity, so position and velocity are both continuous. Core Animation
///   states that velocity relative to the distance (`initialVelocity` = velocity /
///   (B - value), `MotionSegment.coreAnimationInitialVelocity`); here it is carried in
///   units per second, which also works when the distance is 0. `dropsOpposingVelocity`
///   is the guard users ask for: when the inherited velocity points away from `B` (or
///   the value already sits on it) the spring starts at rest instead.
///   Example: a bouncing card reversed mid-bounce keeps its momentum and swings back.
/// - `fromCurrentState` (`UIView.AnimationOptions.beginFromCurrentState`): the running
///   animation is replaced by `curve` from the presentation value to `B`; the velocity
///   is dropped (the new curve's own start velocity applies).
///   Example: a collapsing row tapped again starts opening from where it is.
public enum RetargetPolicy: Sendable, Hashable, Codable {
  /// Add `(new target - old target) x curve` over `duration` seconds on top of what runs.
  case additive(curve: AnimationCurve, duration: Double)
  /// Replace what runs by `spring` (its own initial velocity is ignored) from the
  /// presentation value with the presentation velocity; `dropsOpposingVelocity`: start at
  /// rest when that velocity points away from the target. Ends when the motion stays
  /// within `MotionSegment.restFraction` of its scale (`Spring.restTime`).
  case carryVelocity(spring: Spring, dropsOpposingVelocity: Bool = false)
  /// Replace what runs by `curve` from the presentation value over `duration` seconds.
  case fromCurrentState(curve: AnimationCurve, duration: Double)

  /// UIKit's default for a retargeted `animate(withDuration:)`: additive, ease-in-ease-out,
  /// 0.3 s.
  public static let uiKit = RetargetPolicy.additive(curve: .bezier(.easeInEaseOut), duration: 0.3)

  /// Throws `.outOfRange` / `.notFinite` for a duration outside `InputLimits.duration`.
  public func validate() throws(CellMotionError) {
    switch self {
    case .additive(_, let d), .fromCurrentState(_, let d): try Check.within(d, InputLimits.duration, "policy duration")
    case .carryVelocity: break
    }
  }
}
