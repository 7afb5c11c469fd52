// `cellmotion curve`: a timing curve or a spring as an SVG plot (value and velocity over
// time, settling time marked) or as CSV (t,value,velocity).

import ArgumentParser
import CellMotion
import Foundation

package struct CurveCommand: ParsableCommand {
  package init() {}
  package static let configuration = CommandConfiguration(
    commandName: "curve",
    abstract: "Plot a timing curve or a spring (SVG), or print its samples (CSV).",
    discussion: """
      CURVE is a timing function (linear, easeIn, easeOut, easeInEaseOut, default, ease, \
      ease-in, ease-out, ease-in-out, cubic-bezier(x1, y1, x2, y2)), a recipe preset \
      (its first channel's curve and duration; for a recipe with keyframes, its first \
      keyframe channel's value in its own units, key times marked), or `spring`. Spring flags select a spring: \
      UIKit style (--damping-ratio, --duration, --initial-velocity) or CASpringAnimation \
      style (--mass, --stiffness, --damping, --initial-velocity). Default: the moveUpBounce \
      preset's spring (UIKit damping ratio 0.4, duration 1 s, initial velocity 0.1). \
      Value is progress (0 -> 1), velocity is progress per second.
      """)

  @Argument(help: "Timing function, recipe preset name, or `spring`.")
  var curve: String?

  @Option(parsing: .unconditional, help: "UIKit spring damping ratio (usingSpringWithDamping).")
  var dampingRatio: Double?
  @Option(parsing: .unconditional, help: "Duration, seconds: the Bezier's duration, or UIKit's spring duration (default 1).")
  var duration: Double?
  @Option(parsing: .unconditional, help: "Spring initial velocity: UIKit's initialSpringVelocity, or CASpringAnimation's initialVelocity (distances per second).")
  var initialVelocity: Double?
  @Option(parsing: .unconditional, help: "CASpringAnimation mass (default 1).")
  var mass: Double?
  @Option(parsing: .unconditional, help: "CASpringAnimation stiffness (default 100).")
  var stiffness: Double?
  @Option(parsing: .unconditional, help: "CASpringAnimation damping (default 10).")
  var damping: Double?

  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp(
      "Retarget mid-flight: TIME:TARGET[:POLICY] (seconds, value, policy), repeatable.",
      discussion: """
        POLICY: carry (the default: a spring from the current value with the current \
        velocity; the curve's own spring, or stiffness 200 at damping ratio 0.6 for a \
        Bezier), carry-guard (carry, dropping a velocity that points away), additive (the \
        curve again, of the difference, on top: UIKit's), from-current (the curve again from \
        the current value, at rest). Retarget times are marked; value and velocity are exact.
        """))
  var retarget: [String] = []

  @Option(
    help: ArgumentHelp(
      "Plot a scroll effect's channels against its recipe progress instead: \(ScrollEffectKind.allCases.map(\.rawValue).joined(separator: ", ")), or a scroll effect file.",
      discussion: "Sized as `render --scroll-effect` sizes it for --row-height and --viewport-height; CSV columns: progress, the timeline value, one per channel."))
  var scrollEffect: ScrollEffectSpec?
  @Option(parsing: .unconditional, help: "With --scroll-effect: row height, points.")
  var rowHeight: Double = 80
  @Option(parsing: .unconditional, help: "With --scroll-effect: viewport height, points.")
  var viewportHeight: Double = 667
  @Option(parsing: .unconditional, help: "With --scroll-effect: table (and cell) width, points.")
  var width: Double = 375
  @Option(
    help: "With --scroll-effect: the table's axis, vertical or horizontal (then --row-height and --viewport-height are widths and --width the rows' height, as in `render --axis horizontal`).")
  var axis: ScrollAxis = .vertical

  @Option(help: "Output format: svg or csv.")
  var format: CurveFormat = .svg
  @Option(parsing: .unconditional, help: "Number of sample intervals.")
  var samples: Int = 240
  @Option(name: [.short, .long], help: "Output file (default: stdout).")
  var output: String?

  package mutating func validate() throws {
    guard samples >= 2, samples <= 1_000_000 else { throw ValidationError("--samples must be in 2...1000000, got \(samples)") }
    let uiKit = dampingRatio != nil
    let physical = mass != nil || stiffness != nil || damping != nil
    if uiKit && physical {
      throw ValidationError("use either --damping-ratio (UIKit) or --mass/--stiffness/--damping (CASpringAnimation), not both")
    }
    if (uiKit || physical), let c = curve, c != "spring" {
      throw ValidationError("spring flags select a spring; drop the curve argument \"\(c)\" or write `spring`")
    }
  }

  package mutating func run() throws {
    let destination = try Destination(output)
    if let kind = scrollEffect {
      guard curve == nil, retarget.isEmpty, dampingRatio == nil, mass == nil, stiffness == nil, damping == nil else {
        throw CLIError("--scroll-effect plots an effect; drop the curve argument and the spring and retarget flags")
      }
      try ScrollEffectSpec.checkLengths([("--row-height", rowHeight), ("--viewport-height", viewportHeight), ("--width", width)])
      let effect = try kind.effect(rowHeight: rowHeight, viewportHeight: viewportHeight, axis: axis)
      // The cell as `render` draws it: a horizontal table's rows are `rowHeight` wide and
      // `width` tall, and read the viewport's width as their table width.
      let geometry =
        axis == .horizontal
        ? CellGeometry(width: rowHeight, height: width, tableWidth: viewportHeight)
        : CellGeometry(width: width, height: rowHeight, tableWidth: width)
      let plot = EffectPlot(
        effect: effect, geometry: geometry,
        title: "cellmotion scroll effect \(kind.name)\(axis == .horizontal ? ", horizontal" : ""): rows \(num(rowHeight)) pt, viewport \(num(viewportHeight)) pt")
      try destination.write(format == .csv ? plot.csv(samples: samples) : plot.svg(samples: samples))
      return
    }
    var plot = try CurveSource.resolve(self)
    if !retarget.isEmpty { try plot.retarget(retarget.map(RetargetEvent.init(parsing:))) }
    let text = format == .csv ? plot.csv(samples: samples) : CurvePlot.svg(plot, samples: samples)
    try destination.write(text)
  }
}

/// The curve plot's output format.
package enum CurveFormat: String, CaseIterable, ExpressibleByArgument {
  case svg, csv
}

/// A resolved curve: what to sample and over how long.
package struct CurveSample {
  /// Shown in the plot's title.
  var title: String
  var curve: AnimationCurve
  /// The animation's duration, seconds (a Bezier's time scale; where a spring stops).
  var duration: Double
  /// The sampled span, seconds.
  var span: Double
  /// Time from which the value stays within 0.001 of 1, seconds.
  var settling: Double
  /// A keyframe channel: the plot shows its value (in the channel's units, for a cell of
  /// `CurveSource.geometry`) at the curve's progress, with its key times marked.
  var keyframes: (channel: Channel, keyframes: ChannelKeyframes)? = nil
  /// Retargeted (`--retarget`): the motion in effect from each time on (the first from 0),
  /// and the retargets.
  var motions: [(from: Double, motion: ChannelMotion)] = []
  var retargets: [RetargetEvent] = []
  /// The motion in effect at `t` seconds.
  func motion(at t: Double) -> ChannelMotion? { motions.last { $0.from <= t }?.motion ?? motions.first?.motion }
  /// The last motion (nil when not retargeted).
  var motion: ChannelMotion? { motions.last?.motion }

  /// Applies `events` to the curve's motion (from 0 to 1 over the duration): each at its
  /// time, by its policy (`ChannelMotion.retarget`), the plot then showing the motion.
  mutating func retarget(_ events: [RetargetEvent]) throws {
    guard keyframes == nil else { throw CLIError("--retarget takes a Bezier or a spring, not keyframes") }
    var m = ChannelMotion(
      try MotionSegment(from: 0, to: 1, curve: curve, duration: duration, begin: 0), channel: .translationY)
    motions = [(0, m)]
    for e in events.sorted(by: { $0.time < $1.time }) {
      try m.retarget(to: e.target, at: e.time, policy: try e.policy(for: curve, duration: duration))
      motions.append((e.time, m))
    }
    retargets = events
    span = min(60, max(span, m.endTime * 1.1, (events.map(\.time).max() ?? 0) * 1.1))
    settling = m.endTime
    title += " -- retargeted " + events.map { "at \(num($0.time)) s to \(num($0.target)) (\($0.policyName))" }.joined(separator: ", ")
  }

  /// What the value axis shows.
  var valueLabel: String {
    guard let k = keyframes else { return "value (progress)" }
    let unit: String
    switch k.channel {
    case .translationX, .translationY, .translationZ: unit = "points"
    case .rotationX, .rotationY, .rotationZ: unit = "radians"
    default: unit = "unitless"
    }
    return "\(k.channel.rawValue) (\(unit))"
  }

  /// The value the motion ends at: 1, or the last keyframe.
  var endValue: Double {
    if let motion { return motion.target }
    guard let k = keyframes?.keyframes.values.last else { return 1 }
    return k.resolve(cellHeight: CurveSource.geometry.height, tableWidth: CurveSource.geometry.tableWidth)
  }

  /// Key times in seconds (keyframes only; the paced modes' derived ones).
  var keySeconds: [Double] {
    guard let k = keyframes,
      let track = try? k.keyframes.track(cellHeight: CurveSource.geometry.height, tableWidth: CurveSource.geometry.tableWidth)
    else { return [] }
    return track.keyTimes.map { $0 * duration }
  }

  /// Progress at `t` seconds: the Bezier of t / duration, or the free spring (not cut at
  /// the duration, so the plot shows the whole motion).
  func progress(_ t: Double) -> Double {
    switch curve {
    case .bezier(let c): c.value(at: min(1, max(0, t / duration)))
    case .spring(let s): s.value(at: t)
    }
  }

  /// The plotted value at `t` seconds: the progress, or the keyframe channel's value at it.
  func value(_ t: Double) -> Double {
    if let motion = motion(at: t) { return motion.value(at: t) }
    guard let k = keyframes else { return progress(t) }
    let g = CurveSource.geometry
    return k.keyframes.value(at: progress(t), duration: duration, cellHeight: g.height, tableWidth: g.tableWidth)
  }

  /// Value per second at `t` seconds: the progress's exact slope, or a keyframe channel's
  /// by a central difference (1e-6 of the span each side; forward at t = 0).
  func velocity(_ t: Double) -> Double {
    if let motion = motion(at: t) { return motion.velocity(at: t) }
    if keyframes != nil {
      let h = span * 1e-6
      // One-sided at the start (before it the value is held, not moving).
      return t < h ? (value(t + h) - value(t)) / h : (value(t + h) - value(t - h)) / (2 * h)
    }
    switch curve {
    case .bezier(let c): return t < 0 || t > duration ? 0 : c.slope(at: t / duration) / duration
    case .spring(let s): return s.velocity(at: t)
    }
  }

  /// `t,value,velocity` rows, `samples + 1` of them, after a header.
  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  func csv(samples: Int) -> String {
    var s = "t,value,velocity\n"
    for i in 0...samples {
      let t = span * Double(i) / Double(samples)
      s += "\(num(t, 8)),\(num(value(t), 10)),\(num(velocity(t), 10))\n"
    }
    return s
  }
}

/// One `--retarget TIME:TARGET[:POLICY]`.
package struct RetargetEvent {
  var time: Double
  var target: Double
  var policyName: String

  static let policyNames = ["carry", "carry-guard", "additive", "from-current"]

  init(parsing text: String) throws {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2 || parts.count == 3, let time = Double(parts[0]), let target = Double(parts[1]) else {
      throw CLIError("--retarget expects TIME:TARGET[:POLICY] (e.g. 0.25:0.4:carry), got \"\(text)\"")
    }
    let name = parts.count == 3 ? parts[2] : "carry"
    guard Self.policyNames.contains(name) else {
      throw CLIError("--retarget policy \"\(name)\" is unknown; use one of \(Self.policyNames.joined(separator: ", "))")
    }
    guard time.isFinite, time >= 0 else { throw CLIError("--retarget time must be a finite number >= 0, got \(parts[0])") }
    (self.time, self.target, policyName) = (time, target, name)
  }

  /// The policy: the curve's own spring (or stiffness 200 at damping ratio 0.6) for
  /// carry; the curve again, over its duration, for additive and from-current.
  func policy(for curve: AnimationCurve, duration: Double) throws -> RetargetPolicy {
    let spring: Spring
    if case .spring(let s) = curve { spring = s } else { spring = try Spring(stiffness: 200, damping: 0.6 * 2 * 200.0.squareRoot()) }
    switch policyName {
    case "carry-guard": return .carryVelocity(spring: spring, dropsOpposingVelocity: true)
    case "additive": return .additive(curve: curve, duration: duration)
    case "from-current": return .fromCurrentState(curve: curve, duration: duration)
    default: return .carryVelocity(spring: spring)
    }
  }
}

package enum CurveSource {
  /// The cell a keyframe channel's values are resolved for (points): 375 x 80.
  static let geometry = CellGeometry(width: 375, height: 80)

  /// The default curve: the moveUpBounce preset's channel.
  static let defaultName = "moveUpBounce"

  static func resolve(_ c: CurveCommand) throws -> CurveSample {
    if let v = c.duration, !(v.isFinite && v > 0) { throw CLIError("--duration must be a finite number > 0, got \(v)") }
    if c.dampingRatio != nil || c.mass != nil || c.stiffness != nil || c.damping != nil || c.curve == "spring" {
      let spring: Spring
      let title: String
      if let ratio = c.dampingRatio {
        let d = c.duration ?? 1, v = c.initialVelocity ?? 0
        spring = try Spring.uiKit(dampingRatio: ratio, duration: d, initialSpringVelocity: v)
        title = "UIKit spring: damping ratio \(num(ratio)), duration \(num(d)) s, initial velocity \(num(v))"
        return sample(title, .spring(spring), duration: d)
      }
      spring = try Spring(
        mass: c.mass ?? 1, stiffness: c.stiffness ?? 100, damping: c.damping ?? 10, initialVelocity: c.initialVelocity ?? 0)
      title = "spring: mass \(num(spring.mass)), stiffness \(num(spring.stiffness)), damping \(num(spring.damping)), initial velocity \(num(spring.initialVelocity))"
      return sample(title, .spring(spring), duration: c.duration ?? spring.settlingDuration)
    }
    let name = c.curve ?? defaultName
    if Recipe.presetNames.contains(name) {
      let recipe = try Recipe.preset(named: name)
      // A recipe with keyframes plots its first keyframe channel's value.
      if let channel = recipe.channels.first(where: { $0.keyframes != nil }), let keyframes = channel.keyframes {
        let d = c.duration ?? channel.duration
        var plot = sample(
          "\(name): \(channel.channel.rawValue) keyframes (\(keyframes.mode.rawValue), \(keyframes.values.count) values)",
          channel.curve, duration: d)
        plot.keyframes = (channel.channel, keyframes)
        return plot
      }
      guard let part = parts(of: recipe).first else { throw CLIError("recipe \(name) animates nothing") }
      let d = c.duration ?? part.duration
      return sample("\(name): \(describe(part.curve))", part.curve, duration: d)
    }
    let bezier = try TimingCurve(parsing: name, location: "the curve argument")
    return sample("\(bezier)", .bezier(bezier), duration: c.duration ?? 1)
  }

  /// The timed parts of a recipe (channels, matrix, fold) with their curves and durations.
  package static func parts(of r: Recipe) -> [(what: String, curve: AnimationCurve, duration: Double, delay: Double)] {
    var out = r.channels.map { ($0.channel.rawValue, $0.curve, $0.duration, $0.delay) }
    if let m = r.matrix { out.append(("matrix", m.curve, m.duration, m.delay)) }
    if let f = r.fold { out.append(("fold", f.curve, f.duration, 0)) }
    return out
  }

  /// A short description of a curve.
  static func describe(_ curve: AnimationCurve) -> String {
    switch curve {
    case .bezier(let b): return "\(b)"
    case .spring(let s):
      return "spring m \(num(s.mass)), k \(num(s.stiffness, 5)), c \(num(s.damping, 5)), "
        + "v0 \(num(s.initialVelocity)) (zeta \(num(s.dampingRatio, 4)), \(s.regime.rawValue))"
    }
  }

  static func sample(_ title: String, _ curve: AnimationCurve, duration: Double) -> CurveSample {
    switch curve {
    case .bezier:
      return CurveSample(title: title, curve: curve, duration: duration, span: duration * 1.15, settling: duration)
    case .spring(let s):
      let settle = s.settlingDuration
      let span = min(60, max(duration, settle.isFinite ? settle : duration) * 1.15)
      return CurveSample(title: title, curve: curve, duration: duration, span: span, settling: settle)
    }
  }
}
