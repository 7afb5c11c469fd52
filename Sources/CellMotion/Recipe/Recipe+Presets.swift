// The recipes of the source tutorials, with their numbers ("The tutorial recipes" in
// the Recipes article of the CellMotion documentation).

import Foundation

extension Recipe {
  /// Tip-in card, faithful: layer.transform set inside a UIView animation block animates
  /// the whole matrix from CATransform3DTranslate(CATransform3DRotate(identity, -15 deg,
  /// 0, 0, 1), -20, -20, 0) to the identity, 0.4 s easeInEaseOut; opacity 0.8 -> 1.
  /// Both ends are affine, so Core Animation takes the 2D decomposition path.
  public static var tipIn: Recipe {
    let curve = AnimationCurve.bezier(.easeInEaseOut)
    return Recipe(
      name: "tipIn",
      channels: [ChannelAnimation(.opacity, from: 0.8, to: 1, curve: curve, duration: 0.4)],
      matrix: MatrixAnimation(from: tipInStartTransform, to: .identity, curve: curve, duration: 0.4))
  }

  /// The tip-in start transform: Rotate(-15 deg about z), then Translate(-20, -20, 0) as
  /// CATransform3DTranslate(CATransform3DRotate(identity, ...), -20, -20, 0).
  public static var tipInStartTransform: Transform3D {
    Transform3D.identity.rotatedBy(-15 * Double.pi / 180, 0, 0, 1).translatedBy(-20, -20, 0)
  }

  /// Tip-in card, cheaper channel form: angle and offset scaled by (1 - p), composed as the
  /// tutorial's start transform (translation first, in the rotated frame). Equal to `tipIn`
  /// at both ends; mid-way a corner of a 375 x 80 cell is up to 1.85 points away from the
  /// faithful path (measured in RecipeTests), because the faithful path lerps the rotated
  /// offset as a straight line while this one turns it with the angle.
  public static var tipInChannels: Recipe {
    let curve = AnimationCurve.bezier(.easeInEaseOut)
    return Recipe(
      name: "tipInChannels",
      channels: [
        ChannelAnimation(.rotationZ, from: ChannelValue(-15 * Double.pi / 180), to: 0, curve: curve, duration: 0.4),
        ChannelAnimation(.translationX, from: -20, to: 0, curve: curve, duration: 0.4),
        ChannelAnimation(.translationY, from: -20, to: 0, curve: curve, duration: 0.4),
        ChannelAnimation(.opacity, from: 0.8, to: 1, curve: curve, duration: 0.4),
      ],
      order: .translateFirst)
  }

  /// Fade only (the tip-in tutorial's variant): opacity 0.1 -> 1 over 1.4 s, easeInEaseOut
  /// (UIView's default curve).
  public static var fade: Recipe {
    Recipe(
      name: "fade",
      channels: [ChannelAnimation(.opacity, from: 0.1, to: 1, curve: .bezier(.easeInEaseOut), duration: 1.4)])
  }

  /// Plain fade in: opacity 0 -> 1 over 0.5 s, no stagger.
  public static var fadeIn: Recipe {
    Recipe(
      name: "fadeIn",
      channels: [ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.5)])
  }

  /// Fade with stagger: alpha 0 -> 1, 0.5 s, delay 0.05 s x row.
  public static var fadeStagger: Recipe {
    Recipe(
      name: "fadeStagger",
      channels: [ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.5)],
      stagger: Stagger(step: 0.05, base: .row))
  }

  /// Move up with bounce: translation y = row height -> 0 on UIKit's spring (damping ratio
  /// 0.4, initial velocity 0.1, duration 1.0 s), delay 0.05 s x row. The tutorial's
  /// .curveEaseInOut option has no effect on a spring animation.
  public static var moveUpBounce: Recipe {
    // Constant, valid arguments: the throwing factory cannot fail here (a test checks it).
    let curve: AnimationCurve =
      (try? Spring.uiKit(dampingRatio: 0.4, duration: 1.0, initialSpringVelocity: 0.1)).map { .spring($0) }
      ?? .bezier(.easeOut)
    return Recipe(
      name: "moveUpBounce",
      channels: [ChannelAnimation(.translationY, from: .cellHeight(), to: 0, curve: curve, duration: 1.0)],
      stagger: Stagger(step: 0.05, base: .row))
  }

  /// Move up with fade: y = row height / 2 -> 0 and alpha 0 -> 1, easeInEaseOut, 0.5 s.
  public static var moveUpFade: Recipe {
    let curve = AnimationCurve.bezier(.easeInEaseOut)
    return Recipe(
      name: "moveUpFade",
      channels: [
        ChannelAnimation(.translationY, from: .cellHeight(0.5), to: 0, curve: curve, duration: 0.5),
        ChannelAnimation(.opacity, from: 0, to: 1, curve: curve, duration: 0.5),
      ])
  }

  /// Slide in from the right edge: x = table width -> 0, easeInEaseOut, 0.5 s.
  public static var slideIn: Recipe {
    Recipe(
      name: "slideIn",
      channels: [ChannelAnimation(.translationX, from: .tableWidth(), to: 0, curve: .bezier(.easeInEaseOut), duration: 0.5)])
  }

  /// Fold open (0.3 s): halves turn from edge-on (top -pi/2, bottom pi/2) to flat about
  /// their hinges with m34 = -1/500; shadows 1 -> 0.
  public static var foldOpen: Recipe {
    Recipe(name: "foldOpen", fold: FoldSpec(direction: .open))
  }

  /// Fold closed: the same in reverse.
  public static var foldClosed: Recipe {
    Recipe(name: "foldClosed", fold: FoldSpec(direction: .close))
  }

  /// Flip about the horizontal (x) axis: rotation.x pi/2 -> 0 with m34 = -1/500, 0.5 s
  /// easeOut; opacity 0 -> 1 over the same time. The m34 stays on the layer at rest
  /// (a flat layer draws identically with it).
  public static var flipX: Recipe {
    let curve = AnimationCurve.bezier(.easeOut)
    return Recipe(
      name: "flipX",
      channels: [
        ChannelAnimation(.rotationX, from: ChannelValue(Double.pi / 2), to: 0, curve: curve, duration: 0.5),
        ChannelAnimation(.opacity, from: 0, to: 1, curve: curve, duration: 0.5),
      ],
      perspectiveDistance: 500)
  }

  /// Flip about the vertical (y) axis: rotation.y pi/2 -> 0 with m34 = -1/500, 0.5 s easeOut.
  public static var flipY: Recipe {
    let curve = AnimationCurve.bezier(.easeOut)
    return Recipe(
      name: "flipY",
      channels: [
        ChannelAnimation(.rotationY, from: ChannelValue(Double.pi / 2), to: 0, curve: curve, duration: 0.5),
        ChannelAnimation(.opacity, from: 0, to: 1, curve: curve, duration: 0.5),
      ],
      perspectiveDistance: 500)
  }

  /// Grid cascade from the centre: cells in 3 columns (a collection view) scale up from 0.6
  /// and fade in, each batch that appears starting from its middle cell and spreading out
  /// 0.06 s per cell of (euclidean) distance, 0.35 s easeOut.
  public static var gridCascade: Recipe {
    let curve = AnimationCurve.bezier(.easeOut)
    return Recipe(
      name: "gridCascade",
      channels: [
        ChannelAnimation(.scale, from: 0.6, to: 1, curve: curve, duration: 0.35),
        ChannelAnimation(.opacity, from: 0, to: 1, curve: curve, duration: 0.35),
      ],
      stagger: Stagger(step: 0.06, base: .batchPosition, from: .center, grid: StaggerGrid(columns: 3)))
  }

  /// Reverse-order fade: rows that appear together fade in from the last one up (Android's
  /// ORDER_REVERSE), 0.05 s apart, 0.5 s easeInEaseOut.
  public static var reverseFade: Recipe {
    Recipe(
      name: "reverseFade",
      channels: [ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.5)],
      stagger: Stagger(step: 0.05, base: .batchPosition, from: .last))
  }

  /// The wrong-password shake: CAKeyframeAnimation on `transform.translation.x` with the
  /// widely used values -20, 20, -20, 20, -10, 10, -5, 5 (points), here starting and ending
  /// at rest (0), evenly spaced over 0.6 s, linear (the animation's and every segment's
  /// timing), so the cell swings back and forth with a decaying amplitude.
  public static var shake: Recipe {
    let values: [ChannelValue] = [0, -20, 20, -20, 20, -10, 10, -5, 5, 0]
    return Recipe(
      name: "shake",
      channels: [ChannelAnimation(.translationX, keyframes: ChannelKeyframes(values: values), duration: 0.6)])
  }

  /// Pulse: `transform.scale` through 8 keyframes, 0.5 -> 1.12 -> 0.92 -> 1.05 -> 0.97 ->
  /// 1.015 -> 0.995 -> 1, on a Catmull-Rom spline (`cubic` mode, no per-segment timing)
  /// over 0.7 s: the cell pops up past its size and settles in smooth, shrinking swings.
  public static var pulse: Recipe {
    let values: [ChannelValue] = [0.5, 1.12, 0.92, 1.05, 0.97, 1.015, 0.995, 1]
    return Recipe(
      name: "pulse",
      channels: [ChannelAnimation(.scale, keyframes: ChannelKeyframes(values: values, mode: .cubic), duration: 0.7)])
  }

  /// Every preset, in a stable order.
  public static var presets: [Recipe] {
    [
      tipIn, tipInChannels, fade, fadeIn, fadeStagger, moveUpBounce, moveUpFade, slideIn, foldOpen, foldClosed, flipX, flipY,
      gridCascade, reverseFade, shake, pulse,
    ]
  }

  /// Preset names, in `presets` order.
  public static var presetNames: [String] { presets.map(\.name) }

  /// The preset named `name`; `CellMotionError.unknownName` otherwise.
  public static func preset(named name: String) throws(CellMotionError) -> Recipe {
    guard let r = presets.first(where: { $0.name == name }) else {
      throw .unknownName(kind: "preset", name: name, location: "preset name (known: \(presetNames.joined(separator: ", ")))")
    }
    return r
  }
}
