// What the kernel's Float arithmetic can evaluate within the stated tolerances (2e-5 on
// normalised matrix entries, 1e-5 on opacity), decided once when a recipe is compiled:
//
// Goals, in priority order:
// 1. Exact where Double preprocessing reaches it: a delay every part shares is moved into
//    each cell's start in Double (`startShift`), and whole turns of a rotation channel's
//    constant part are taken off both of its ends, so a delay of 99,999.7 s or a rotation
//    from 1e6 to 1e6 + 1 rad costs no precision.
// 2. A typed error (`.outOfRange`, naming the part and the bound) where it does not: a
//    part whose timeline spans too many of its own durations (its local time is then a
//    large Float, whose rounding moves the animation), or an angle too large for Float.
// 3. Bounds the tests check at their ends (FindingsRegressionTests).

import CellMotion

extension CompiledRecipe {
  /// Most durations a timed part's timeline may span, counted from the recipe's earliest
  /// begin: (delay - earliest delay) x speed / duration + iterations (repeatCount, at
  /// least 1, doubled when autoreversing) <= 32.
  ///
  /// Why: the kernel measures each cell's time since its (shifted) start in Float, so a
  /// part evaluated at elapsed time e carries a time error of about e x 2^-24, that is a
  /// progress error of e / duration x 2^-24 x the curve's slope: 32 durations keep it below
  /// 4e-6 for curves as steep as 2, inside the 1e-5 opacity tolerance. A longer timeline
  /// (a 0.3 s fade repeated a million times, evaluated 1e5 s after it began; a 0.2 s fade
  /// delayed 10 s after another channel) is refused rather than evaluated imprecisely; the
  /// reference (`ReferenceEvaluator`, Double) still evaluates it exactly. A delay that every
  /// part shares costs nothing: it is applied in Double (`startShift`).
  public static let maxTimelineDurations = 32.0

  /// Largest angle the kernel forms, radians either way: 64 (about ten turns). A Float
  /// angle near 64 is within 3.8e-6 rad of its Double value, and a span of 64 rad moves
  /// by 6.4e-6 rad per 1e-7 of progress error: together inside the 2e-5 tolerance on
  /// matrix entries (measured: 2.7e-5 at 200 rad); near 1e6 rad the rounding alone is
  /// 0.03 rad. Checked, at the largest
  /// progress the part's curve reaches (overshoot included), on:
  /// - rotation channels (`rotationX`, `rotationY`, `rotationZ`), two-valued (after whole
  ///   turns of the constant parts are taken off both ends, exactly: a rotation from
  ///   1e6 - 3 to 1e6 rad evaluates as one from 1e6 - 3 - 2 pi k) or keyframes (their
  ///   largest key, each part of its value on its own; a spline's swing between keys is
  ///   not counted): their constant
  ///   part when the recipe is compiled, each cell's whole angle (constant + per cell
  ///   height x height + per table width x width) when `CellBatch.append` adds it, and
  ///   when `TableAnimator` is made, at every cell height up to 1e6 points (the largest a
  ///   row is animated with) and its table width;
  /// - a fold's halves: -pi/2 x (1 - openness);
  /// - retargeted rotation channels and folds (`CellBatch.retarget`, `retargetFold`,
  ///   `setFoldMotion`): the numbers of their retarget rows.
  public static let maximumAngle = 64.0

  /// The earliest delay among the recipe's timed parts (channels, matrix, fold), seconds:
  /// the kernel's cells start that much later (`startShift`, in Double) and each part's
  /// delay is taken relative to it. Throws when a part's timeline exceeds
  /// `maxTimelineDurations`.
  static func timelineShift(_ recipe: Recipe) throws(CellMotionError) -> Double {
    var parts: [(field: String, duration: Double, delay: Double)] = []
    for (i, c) in recipe.channels.enumerated() { parts.append(("\(recipe.name).channels[\(i)]", c.duration, c.delay)) }
    if let m = recipe.matrix { parts.append(("\(recipe.name).matrix", m.duration, m.delay)) }
    if let f = recipe.fold { parts.append(("\(recipe.name).fold", f.duration, 0)) }
    guard let shift = parts.map(\.delay).min() else { return 0 }
    let t = recipe.timing
    let iterations = max(t.repeatCount, 1) * (t.autoreverses ? 2 : 1)
    for p in parts {
      let span = (p.delay - shift) * t.speed / p.duration + iterations
      guard span <= maxTimelineDurations else {
        throw .outOfRange(
          field: "\(p.field): timeline in durations ((delay - earliest delay) x speed / duration + iterations)",
          value: span,
          expected: "<= \(Int(maxTimelineDurations)) for the kernel's Float clock (the reference evaluates it)")
      }
    }
    return shift
  }

  /// `from` and `to` of a channel's constant parts with whole turns taken off both
  /// (rotation channels; others unchanged): the same rotation, exactly, with small Floats.
  static func reducedTurns(_ channel: Channel, _ from: Double, _ to: Double) -> (Double, Double) {
    guard channel == .rotationX || channel == .rotationY || channel == .rotationZ else { return (from, to) }
    let turns = (from / (2 * Double.pi)).rounded()
    return (from - 2 * Double.pi * turns, to - 2 * Double.pi * turns)
  }

  /// The reach of a rotation channel from `from` to `to` (constant, per cell height, per
  /// table width; constants already reduced) over progress `bounds`: each part's largest
  /// magnitude (the value is linear in progress, so at one of the bounds).
  static func angleReach(
    from: SIMD3<Double>, to: SIMD3<Double>, bounds: (lo: Double, hi: Double), field: String
  ) -> AngleReach {
    let a = from + (to - from) * bounds.lo, b = from + (to - from) * bounds.hi
    return AngleReach(
      field: field, constant: max(abs(a.x), abs(b.x)), perCellHeight: max(abs(a.y), abs(b.y)),
      perTableWidth: max(abs(a.z), abs(b.z)))
  }

  /// Checks a rotation channel's `reach` for the smallest cell (all a compiled recipe can
  /// know) and keeps it in `reaches` when it depends on the geometry (`checkAngles`).
  static func admit(_ reach: AngleReach, into reaches: inout [AngleReach]) throws(CellMotionError) {
    let smallest = InputLimits.length.lowerBound
    try checkAngle(reach.at(CellGeometry(width: smallest, height: smallest)), field: reach.field)
    if reach.usesGeometry { reaches.append(reach) }
  }

  /// Throws `.outOfRange` when some cell of this recipe with `geometry` would form an
  /// angle beyond `maximumAngle` (the rotation channels whose value depends on the
  /// geometry; the others were checked when compiling).
  /// - Complexity: O(rotation channels that depend on the geometry); no allocation.
  package func checkAngles(_ geometry: CellGeometry) throws(CellMotionError) {
    try Self.checkAngles(angleReaches, geometry)
  }

  /// `checkAngles(_:)` for a recipe's `angleReaches`: callers holding the recipes in an
  /// array pass just these, rather than copy the whole recipe to call the method.
  package static func checkAngles(_ angleReaches: [AngleReach], _ geometry: CellGeometry) throws(CellMotionError) {
    for r in angleReaches {
      // The field's name is only written out for an error (once per cell it cost a string).
      let reach = r.at(geometry)
      if reach <= maximumAngle { continue }
      try checkAngle(reach, field: "\(r.field) for a cell \(geometry.height) points tall, table \(geometry.tableWidth) wide")
    }
  }

  /// Throws `.outOfRange` naming `field` unless `reach` (radians) is within `maximumAngle`
  /// (a NaN or infinite reach included: no bound is known).
  static func checkAngle(_ reach: Double, field: String) throws(CellMotionError) {
    guard reach <= maximumAngle else {
      throw .outOfRange(
        field: "\(field): largest angle (radians)", value: reach,
        expected: "<= \(Int(maximumAngle)) for the kernel's Float angles")
    }
  }

  /// A keyframe rotation channel's reach: its largest key, each part of the value
  /// (constant, per cell height, per table width) on its own.
  static func angleReach(_ keyframes: ChannelKeyframes, field: String) -> AngleReach {
    func reach(_ part: (ChannelValue) -> Double) -> Double { keyframes.values.map { abs(part($0)) }.max() ?? 0 }
    return AngleReach(
      field: field, constant: reach(\.constant), perCellHeight: reach(\.perCellHeight), perTableWidth: reach(\.perTableWidth))
  }

  /// The largest |angle| of a fold's halves, -pi/2 x (1 - openness), over progress
  /// `bounds` (openness = p opening, 1 - p closing).
  static func foldReach(opening: Bool, bounds: (lo: Double, hi: Double)) -> Double {
    let openness = opening ? [bounds.lo, bounds.hi] : [1 - bounds.lo, 1 - bounds.hi]
    return Double.pi / 2 * openness.map { abs(1 - $0) }.max()!
  }

  /// The largest magnitude of the values a retargeted motion's retarget rows hold for the
  /// kernel's angle: its offset, plus its segment's larger end, plus its layers' deltas.
  /// (The swing a carried velocity adds, about velocity / the spring's natural frequency,
  /// comes from the motion that ran before and is not counted: a table's fold carries
  /// what its own curve gave it.)
  static func retargetReach(_ motion: ChannelMotion) -> Double {
    var reach = abs(motion.offset)
    if case .segment(let s) = motion.base { reach += max(abs(s.from), abs(s.to)) }
    for l in motion.layers { reach += abs(l.delta) }
    return reach
  }
}

/// How large a rotation channel's angle can get, radians, by the part of its value it
/// comes from: at most `constant + perCellHeight x height + perTableWidth x table width`
/// for a cell (NaN or infinity: unknown, refused).
package struct AngleReach: Sendable {
  package var field: String
  package var constant: Double
  package var perCellHeight: Double
  package var perTableWidth: Double

  /// Whether the reach depends on the cell's geometry.
  var usesGeometry: Bool { perCellHeight != 0 || perTableWidth != 0 }

  /// The reach for a cell of `geometry`.
  func at(_ geometry: CellGeometry) -> Double {
    constant + perCellHeight * geometry.height + perTableWidth * geometry.tableWidth
  }
}
