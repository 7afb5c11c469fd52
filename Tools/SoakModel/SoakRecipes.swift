// Random valid recipes for the soak and the fuzz targets: every kind of part the recipe
// format has (Bezier and spring curves, keyframes in each calculation mode, matrices in
// both interpolation paths, staggers from every origin, media timing), drawn from a seeded
// generator, each checked by `Recipe.validate()` before use.
//
// Goals, in priority order:
// 1. Only recipes the library accepts: a draw the validator refuses falls back to a preset,
//    so a soak never fails on its own input.
// 2. Finite: no infinite repeats, durations of at most a few seconds, so a session settles.

import CellMotion
import _TestSupport

extension RandomNumberGenerator {
  /// A uniform Double in `range`.
  package mutating func draw(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }
}

/// Seeded draws of curves, transforms and recipes.
public enum SoakRecipes {
  /// One of the five named curves, a random Bezier (y outside [0, 1]: overshoot) or a
  /// spring in any damping regime.
  public static func curve<G: RandomNumberGenerator>(_ g: inout G) -> AnimationCurve {
    switch g.next() % 6 {
    case 0:
      return .bezier([TimingCurve.linear, .easeIn, .easeOut, .easeInEaseOut, .default][Int(g.next() % 5)])
    case 1, 2:
      if let c = try? TimingCurve(
        x1: g.draw(0.02...1), y1: g.draw(-0.5...1.5), x2: g.draw(0...0.98), y2: g.draw(-0.5...1.5))
      {
        return .bezier(c)
      }
      return .bezier(.easeInEaseOut)
    case 3:
      let k = g.draw(20...400), m = g.draw(0.5...2)
      let zeta = g.next() % 4 == 0 ? 1.0 : g.draw(0.05...2.5)
      let c = zeta * 2 * (k * m).squareRoot()
      if let s = try? Spring(mass: m, stiffness: k, damping: c, initialVelocity: g.draw(-3...3)) { return .spring(s) }
      return .bezier(.easeOut)
    case 4:
      if let s = try? Spring.swiftUI(response: g.draw(0.2...1), dampingFraction: g.draw(0.2...1.2)) {
        return .spring(s)
      }
      return .bezier(.easeIn)
    default:
      if let s = try? Spring.uiKit(
        dampingRatio: g.draw(0.1...1), duration: g.draw(0.3...1.5), initialSpringVelocity: g.draw(0...2))
      {
        return .spring(s)
      }
      return .bezier(.linear)
    }
  }

  /// A Bezier curve only (the height and slide curves of a table accept any curve; this is
  /// for parts that must end exactly at their duration).
  public static func bezier<G: RandomNumberGenerator>(_ g: inout G) -> AnimationCurve {
    if case .bezier(let c) = curve(&g) { return .bezier(c) }
    return .bezier(.easeInEaseOut)
  }

  /// A random affine transform (rotation about z, translation, scale, sometimes flipped).
  public static func affine<G: RandomNumberGenerator>(_ g: inout G) -> Transform3D {
    Transform3D.identity
      .rotatedBy(g.draw(-3...3), 0, 0, 1)
      .translatedBy(g.draw(-50...50), g.draw(-50...50), 0)
      .scaledBy(g.draw(0.5...1.5) * (g.next() % 6 == 0 ? -1 : 1), g.draw(0.5...1.5), 1)
  }

  /// A random 3D transform: rotation about any axis, translation, scale, a shear half of
  /// the time and a perspective half of the time.
  public static func threeD<G: RandomNumberGenerator>(_ g: inout G) -> Transform3D {
    var t = Transform3D.identity
      .rotatedBy(g.draw(-3...3), g.draw(-1...1), g.draw(-1...1), g.draw(-1...1))
      .translatedBy(g.draw(-50...50), g.draw(-50...50), g.draw(-50...50))
      .scaledBy(g.draw(0.5...1.5), g.draw(0.5...1.5), g.draw(0.5...1.5))
    if g.next() % 2 == 0 {
      var shear = Transform3D.identity
      (shear.m21, shear.m31, shear.m32) = (g.draw(-0.6...0.6), g.draw(-0.6...0.6), g.draw(-0.6...0.6))
      t = shear.concatenating(t)
    }
    if g.next() % 2 == 0 {
      var p = Transform3D.identity
      p.m34 = -1 / g.draw(300...1000)
      t = t.concatenating(p)
    }
    return t
  }

  /// A stagger from every origin, by row or batch position, in a line or a grid, reversed
  /// or not, eased or not; steps up to `maxStep` seconds.
  public static func stagger<G: RandomNumberGenerator>(_ g: inout G, maxStep: Double = 0.05) -> Stagger {
    if g.next() % 3 == 0 { return .none }
    let origins: [StaggerOrigin] = [.first, .last, .center, .index(Int(g.next() % 30)), .random(seed: g.next() >> 12)]
    return Stagger(
      step: g.draw(0...maxStep), base: g.next() % 2 == 0 ? .row : .batchPosition, from: origins[Int(g.next() % 5)],
      grid: g.next() % 3 == 0
        ? StaggerGrid(columns: 1 + Int(g.next() % 6), axis: StaggerAxis.allCases[Int(g.next() % 3)]) : nil,
      reversed: g.next() % 4 == 0, ease: g.next() % 4 == 0 ? .easeInEaseOut : nil)
  }

  /// Random values for `channel`: opacities in [0, 1], angles in radians, scales near 1,
  /// translations in points (some depending on the cell's height and the table's width).
  package static func values<G: RandomNumberGenerator>(_ c: Channel, _ g: inout G) -> (ChannelValue, ChannelValue) {
    switch c {
    case .opacity, .shadowOpacity: return (ChannelValue(g.draw(0...1)), ChannelValue(g.draw(0...1)))
    case .rotationX, .rotationY, .rotationZ: return (ChannelValue(g.draw(-3...3)), ChannelValue(g.draw(-1...1)))
    case .scale, .scaleX, .scaleY: return (ChannelValue(g.draw(0.3...1.7)), ChannelValue(g.draw(0.5...1.5)))
    default:
      return (
        ChannelValue(g.draw(-40...40), perCellHeight: g.draw(-1...1), perTableWidth: g.draw(-0.5...0.5)),
        ChannelValue(g.draw(-10...10))
      )
    }
  }

  /// Keyframes for `channel` in one of the calculation modes, 2 to 5 values.
  static func keyframes<G: RandomNumberGenerator>(_ c: Channel, _ g: inout G) -> ChannelKeyframes {
    let n = 2 + Int(g.next() % 4)
    var values: [ChannelValue] = []
    for _ in 0..<n { values.append(Self.values(c, &g).0) }
    switch g.next() % 4 {
    case 0:
      // Key times: non-decreasing from 0 to 1.
      var times = (0..<n).map { _ in g.draw(0...1) }.sorted()
      times[0] = 0
      times[n - 1] = 1
      let curves = g.next() % 2 == 0 ? (0..<(n - 1)).map { _ in bezier(&g) } : nil
      return ChannelKeyframes(values: values, keyTimes: times, timingFunctions: curves)
    case 1:
      return ChannelKeyframes(values: values, mode: .discrete)
    case 2:
      return ChannelKeyframes(values: values, mode: .paced)
    default:
      return ChannelKeyframes(values: values)
    }
  }

  /// A random recipe that validates (or the tip-in preset when a draw does not), never
  /// folding unless `folds`, with finite timing.
  ///
  /// - Parameters:
  ///   - name: the recipe's name.
  ///   - folds: whether a fold part may be drawn.
  ///   - affineOnly: only planar parts (channels about z, affine matrices).
  public static func recipe<G: RandomNumberGenerator>(_ g: inout G, name: String, folds: Bool = false, affineOnly: Bool = false)
    -> Recipe
  {
    var channels: [ChannelAnimation] = []
    let allowed: [Channel] =
      affineOnly
      ? [.opacity, .translationX, .translationY, .rotationZ, .scale, .scaleX, .scaleY, .shadowOpacity]
      : Channel.allCases
    for c in allowed where g.next() % 3 == 0 {
      let duration = g.draw(0.05...1.2), delay = g.next() % 2 == 0 ? 0 : g.draw(0...0.3)
      if g.next() % 4 == 0 {
        channels.append(ChannelAnimation(c, keyframes: keyframes(c, &g), curve: bezier(&g), duration: duration, delay: delay))
      } else {
        let (from, to) = values(c, &g)
        channels.append(ChannelAnimation(c, from: from, to: to, curve: curve(&g), duration: duration, delay: delay))
      }
    }
    var matrix: MatrixAnimation? = nil
    switch g.next() % (affineOnly ? 2 : 4) {
    case 0:
      matrix = MatrixAnimation(from: affine(&g), to: affine(&g), curve: curve(&g), duration: g.draw(0.1...1))
    case 2:
      matrix = MatrixAnimation(from: threeD(&g), to: threeD(&g), curve: curve(&g), duration: g.draw(0.1...1))
    case 3:
      matrix = MatrixAnimation(
        from: threeD(&g), to: threeD(&g), mode: .componentwise, curve: curve(&g), duration: g.draw(0.1...1))
    default: break
    }
    let fills = FillMode.allCases
    let timing: RecipeTiming =
      g.next() % 3 == 0
      ? RecipeTiming(
        speed: g.draw(0.5...2), repeatCount: Double(g.next() % 3) + (g.next() % 2 == 0 ? 0.5 : 0),
        autoreverses: g.next() % 2 == 0, fillMode: fills[Int(g.next() % UInt64(fills.count))])
      : RecipeTiming(fillMode: fills[Int(g.next() % UInt64(fills.count))])
    let recipe = Recipe(
      name: name, channels: channels, matrix: matrix, stagger: stagger(&g),
      order: g.next() % 2 == 0 ? .keyPath : .translateFirst,
      anchorX: g.draw(0...1), anchorY: g.draw(0...1),
      perspectiveDistance: !affineOnly && g.next() % 3 == 0 ? g.draw(300...1500) : nil, timing: timing,
      fold: folds && g.next() % 5 == 0
        ? FoldSpec(direction: g.next() % 2 == 0 ? .open : .close, curve: curve(&g), duration: g.draw(0.2...0.6))
        : nil)
    do {
      try recipe.validate()
      return recipe
    } catch {
      return .tipIn
    }
  }

  /// The presets that do not fold (appearance recipes of a table).
  public static var appearancePresets: [Recipe] { Recipe.presets.filter { $0.fold == nil } }
}
