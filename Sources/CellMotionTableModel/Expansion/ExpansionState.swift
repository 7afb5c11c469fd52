// Expand and collapse with the fold timeline of tutorial recipe 6 (the Recipes article of
// the CellMotion documentation).
//
// Goals, in priority order:
// 1. The article's order of events: opening = the row's height grows, THEN the detail
//    folds open; closing = the detail folds closed, THEN the height shrinks.
// 2. No jumps: a toggle mid-way reverses from the current height and fold state.
// 3. Heights within [collapsed, expanded] (an under-damped spring overshoots either end
//    for a moment, but a drawn height never goes below 0); rows below move with the
//    animated height through `LayoutSnapshot`; O(k) per frame for k rows with a plan.
//
// Timeline of a row (Dh = heightDuration, Df = foldDuration, t0 = toggle time):
// - expand from collapsed (detail fraction f, fold closed): fraction f -> 1 over
//   Dh * (1 - f) from t0 (the same average speed as a full growth), then fold opening.
// - expand while the fold is closing (height still full): the fold reverses into opening
//   from its current state; the height stays full.
// - collapse after the fold opening started: the fold reverses into closing from its
//   current state (from flat: closing starts at t0), then fraction 1 -> 0 over Dh.
// - collapse while the height is still growing (fold not started, still folded): the
//   fraction reverses f -> 0 over Dh * f from t0; no fold animation.
// The progress function eases each height segment; the fold's own curve belongs to the
// caller's fold recipe, which gets `(phase, startTime)`.

import CellMotion

/// Whether several rows may be expanded at once.
public enum ExpansionPolicy: Sendable, Equatable {
  /// Rows expand and collapse independently.
  case multiple
  /// At most one row is expanded: expanding one collapses the other, at the same time.
  case single
}

/// The detail part of each row: expanded height = collapsed height + detail height.
public enum DetailHeights: Sendable, Equatable {
  /// Every row's detail is this many points.
  case uniform(Double)
  /// Detail height in points per row (count must equal the row count).
  case perRow([Double])
}

/// The expand/collapse state of a table's rows and their height and fold animations.
///
/// Toggles must come in non-decreasing time order. A row's queries describe the plan made
/// at its latest toggle; times before that toggle are answered as at the toggle.
/// Collapsed heights come from a base `TableLayout`; this type only stores the detail
/// heights, so it costs O(1) memory for uniform details plus O(k) for k rows with a plan.
public struct ExpansionState: Sendable {
  /// Number of rows.
  public let rowCount: Int
  /// The expand policy.
  public let policy: ExpansionPolicy
  /// Duration in seconds of a full height change (collapsed to expanded or back).
  public let heightDuration: Double
  /// Duration in seconds of a fold opening or closing.
  public let foldDuration: Double
  /// Detail heights, validated.
  public let detailHeights: DetailHeights
  /// Maps linear time progress in [0, 1] to height progress (should map 0 to 0 and 1 to
  /// 1; results are clamped to [0, 1], non-finite ones replaced by the input).
  private let heightCurve: @Sendable (Double) -> Double
  /// The height's curve when given as an `AnimationCurve` (`init(...heightAnimation:)`):
  /// heights then have closed-form velocities (`heightVelocity`), and toggles mid-way
  /// follow `retarget`.
  public private(set) var heightAnimation: AnimationCurve?
  /// How a toggle while the height moves redirects it (`RetargetPolicy`); nil: it reverses
  /// from its current height at the full change's average speed (the fraction's velocity
  /// jumps). Needs `heightAnimation`.
  public private(set) var retarget: RetargetPolicy?
  /// The fold's curve when its openness is a motion (`init(...heightAnimation:retarget:
  /// foldAnimation:)` with a policy): a toggle while the fold moves retargets its
  /// openness by `retarget` too. Nil: the fold reverses along its timeline.
  public private(set) var foldAnimation: AnimationCurve?

  /// Rows whose target state is expanded (they may still be animating).
  public private(set) var expandedRows: Set<Int> = []
  /// Rows with a plan (expanded, or collapsing and not yet pruned): sorted by row when
  /// `motionsSorted`, else in the order their plans were made (a row new to the plans is
  /// appended, O(1); inserting it in row order moved every plan after it, so toggling
  /// distinct rows in descending order was quadratic). `removeSettled` sorts them again.
  private var motions: [_RowMotion] = []
  /// Where each row's plan is in `motions`.
  private var motionPosition: [Int: Int] = [:]
  /// Whether `motions` is in increasing row order.
  private var motionsSorted = true
  /// Time of the latest toggle, seconds.
  private var lastToggleTime = -Double.infinity

  /// An expansion state with every row collapsed.
  ///
  /// - Parameters:
  ///   - rowCount: number of rows, >= 0.
  ///   - detailHeights: detail height in points, in `InputLimits.length` (1e-3 ... 1e6;
  ///     zero is refused here rather than when the detail first folds), for all rows or
  ///     per row.
  ///   - policy: `.multiple` or `.single`.
  ///   - heightDuration: seconds for a full height change, in `InputLimits.delay`
  ///     (0 ... 1e5; UIKit's table updates take about 0.3 s).
  ///   - foldDuration: seconds for the fold to open or close, in `InputLimits.delay`
  ///     (0 ... 1e5; 0.3 s in the recipe).
  ///   - heightCurve: progress function for the height (linear by default; pass
  ///     CellMotion's easeInEaseOut `TimingCurve` evaluation for UIKit's look).
  /// - Throws: `CellMotionError` for a negative row count, a bad duration or detail
  ///   height, or `.bufferSize` if a per-row detail array's count differs from
  ///   `rowCount`.
  /// - Complexity: O(rowCount) to validate per-row details, O(1) otherwise.
  public init(
    rowCount: Int, detailHeights: DetailHeights, policy: ExpansionPolicy = .multiple,
    heightDuration: Double = 0.3, foldDuration: Double = 0.3,
    heightCurve: @escaping @Sendable (Double) -> Double = { $0 }
  ) throws(CellMotionError) {
    guard rowCount >= 0 else {
      throw .outOfRange(field: "rowCount", value: Double(rowCount), expected: ">= 0")
    }
    try Check.within(heightDuration, InputLimits.delay, "heightDuration")
    try Check.within(foldDuration, InputLimits.delay, "foldDuration")
    switch detailHeights {
    case .uniform(let h):
      try Check.length(h, "detailHeights")
    case .perRow(let hs):
      guard hs.count == rowCount else {
        throw .bufferSize(field: "detailHeights", expected: rowCount, actual: hs.count)
      }
      for (i, h) in hs.enumerated() where !InputLimits.length.contains(h) { try Check.length(h, "detailHeights[\(i)]") }
    }
    self.rowCount = rowCount
    self.policy = policy
    self.heightDuration = heightDuration
    self.foldDuration = foldDuration
    self.detailHeights = detailHeights
    self.heightCurve = heightCurve
    heightAnimation = nil
    retarget = nil
    foldAnimation = nil
  }

  /// An expansion state whose heights move along `heightAnimation` (a Bezier of the time
  /// fraction or a spring, as a recipe's channel curve) and, when toggled mid-way, follow
  /// `retarget` instead of reversing along their timeline:
  /// - `.carryVelocity(spring:)`: the height heads for its new target with the velocity it
  ///   had (no kink in the height or in the rows below); a spring that is under-damped
  ///   overshoots the expanded or collapsed height as UIKit's spring animations do;
  /// - `.additive`: the new change is added on top of the running one (UIKit's default);
  /// - `.fromCurrentState`: from the current height, at rest.
  ///
  /// With a policy the fold retargets too: its openness (0 folded, 1 flat) is a motion
  /// along `foldAnimation` (pass the fold recipe's curve, `FoldSpec.curve`) over
  /// `foldDuration`, and a toggle while it opens or closes sends it back by the same
  /// policy, value and (carrying, additive) velocity continuous; `FoldAnimation.motion`
  /// hands it to the caller, and `TableAnimator` evaluates the halves at it. The height
  /// then waits for the fold as before: it shrinks once the retargeted fold has closed
  /// (for a carrying spring, once it has settled within 1/1000), and the fold opens once
  /// the height has grown. An under-damped spring overshoots the fold too (the halves turn
  /// past flat or past edge-on for a moment). With `retarget` nil the height reverses as
  /// with `init(...heightCurve:)` and the fold along its own timeline (position
  /// continuous).
  ///
  /// - Throws: as the other initialiser, and the policy's errors.
  public init(
    rowCount: Int, detailHeights: DetailHeights, policy: ExpansionPolicy = .multiple, heightDuration: Double = 0.3,
    foldDuration: Double = 0.3, heightAnimation: AnimationCurve, retarget: RetargetPolicy? = nil,
    foldAnimation: AnimationCurve = .bezier(.easeInEaseOut)
  ) throws(CellMotionError) {
    try Check.within(heightDuration, InputLimits.duration, "heightDuration")
    try retarget?.validate()
    let duration = heightDuration
    try self.init(
      rowCount: rowCount, detailHeights: detailHeights, policy: policy, heightDuration: heightDuration,
      foldDuration: foldDuration, heightCurve: { heightAnimation.progress(localTime: $0 * duration, duration: duration) })
    self.heightAnimation = heightAnimation
    self.retarget = retarget
    self.foldAnimation = retarget == nil ? nil : foldAnimation
  }

  // MARK: - Toggling

  /// Expands `row` if its target is collapsed, collapses it otherwise, at `time` seconds,
  /// reversing any animation in progress from its current state. Under `.single`,
  /// expanding a row collapses the expanded one at the same time.
  ///
  /// - Returns: whether the row's target is now expanded.
  /// - Throws: `CellMotionError.indexOutOfRange` for a bad row; `.notFinite` for a NaN
  ///   time; `.invalidCombination` for a time before the previous toggle. On error the
  ///   state is unchanged.
  /// - Complexity: O(1) amortised (plus the expanded row a `.single` policy collapses),
  ///   in any order of rows.
  @discardableResult
  public mutating func toggle(row: Int, at time: Double) throws(CellMotionError) -> Bool {
    try checkRow(row)
    try Check.time(time, "time")
    guard time >= lastToggleTime else {
      throw .invalidCombination(
        field: "time", reason: "toggles must be in time order (\(time) after \(lastToggleTime))")
    }
    lastToggleTime = time
    if expandedRows.contains(row) {
      collapse(row, at: time)
      return false
    }
    if policy == .single {
      for other in expandedRows { collapse(other, at: time) }
    }
    expand(row, at: time)
    return true
  }

  /// Whether `row`'s target state is expanded.
  ///
  /// - Complexity: O(1).
  public func isExpanded(_ row: Int) -> Bool { expandedRows.contains(row) }

  private mutating func expand(_ row: Int, at t0: Double) {
    let position = motionPosition[row]
    let current: _RowMotion? = position.map { motions[$0] }
    var next = _RowMotion(row: row, expanded: true, toggleTime: t0)
    if let current, let fold = current.fold, var openness = fold.motion, let retarget, t0 < fold.endTime {
      // Retargeting fold, still closing (the height waits at full): send it back open.
      next.height = ChannelMotion(
        MotionSegment(unchecked: 1, to: 1, curve: .bezier(.linear), duration: InputLimits.duration.lowerBound, begin: t0),
        channel: .scaleY)
      next.fold = retargeted(&openness, fold, toward: 1, at: t0, policy: retarget)
    } else if let current, !current.expanded, let fold = current.fold, fold.phase == .closing,
      t0 < fold.startTime + fold.duration
    {
      // The fold is closing (height still full): reverse it from its current state.
      let closingLocal = t0 - fold.startTime
      next.setHeight(from: 1, to: 1, start: t0, duration: 0)
      next.fold = FoldAnimation(
        phase: .opening, startTime: t0 - (foldDuration - closingLocal), duration: foldDuration)
    } else if let motion = heightMotion(current, toward: 1, at: t0) {
      // Folded, heights as motions: grow by the policy, then open.
      next.height = motion
      next.fold = foldOpening(at: max(t0, motion.endTime))
    } else {
      // Folded: grow from the current height, then open.
      let f = current.map { $0.fraction(at: t0, curve: heightCurve) } ?? 0
      let duration = heightDuration * (1 - f)
      next.setHeight(from: f, to: 1, start: t0, duration: duration)
      next.fold = foldOpening(at: t0 + duration)
    }
    if let position {
      motions[position] = next
    } else {
      if let last = motions.last, last.row > row { motionsSorted = false }
      motionPosition[row] = motions.count
      motions.append(next)
    }
    expandedRows.insert(row)
  }

  private mutating func collapse(_ row: Int, at t0: Double) {
    // An expanded row always has a plan.
    let position = motionPosition[row]!
    let current = motions[position]
    var next = _RowMotion(row: row, expanded: false, toggleTime: t0)
    if let fold = current.fold, var openness = fold.motion, let retarget, t0 >= fold.startTime {
      // The retargeting fold has started opening (or is open): send it back closed, then
      // shrink once it has.
      let closing = retargeted(&openness, fold, toward: 0, at: t0, policy: retarget)
      next.fold = closing
      shrink(&next, from: max(t0, closing.endTime))
    } else if let fold = current.fold, t0 >= fold.startTime {
      // The fold has started opening (or is open): reverse it, then shrink.
      let openingLocal = min(t0 - fold.startTime, foldDuration)
      let closingStart = t0 - (foldDuration - openingLocal)
      next.fold = FoldAnimation(phase: .closing, startTime: closingStart, duration: foldDuration)
      shrink(&next, from: closingStart + foldDuration)
    } else if let motion = heightMotion(current, toward: 0, at: t0) {
      // Still growing and folded, heights as motions: shrink by the policy.
      next.height = motion
    } else {
      // Still growing and folded: shrink back from the current height.
      let f = current.fraction(at: t0, curve: heightCurve)
      next.setHeight(from: f, to: 0, start: t0, duration: heightDuration * f)
    }
    motions[position] = next
    expandedRows.remove(row)
  }

  /// The full height's shrink from `start` (after the fold has closed): over
  /// `heightDuration`, as a motion with `heightAnimation`.
  private func shrink(_ next: inout _RowMotion, from start: Double) {
    next.setHeight(from: 1, to: 0, start: start, duration: heightDuration)
    if let curve = heightAnimation {
      next.height = ChannelMotion(
        MotionSegment(unchecked: 1, to: 0, curve: curve, duration: heightDuration, begin: start), channel: .scaleY)
    }
  }

  /// The fold's opening from `start`: on its timeline, or (retarget mode) as a motion of
  /// the openness from 0 to 1 along `foldAnimation`.
  private func foldOpening(at start: Double) -> FoldAnimation {
    guard foldAnimation != nil else {
      return FoldAnimation(phase: .opening, startTime: start, duration: foldDuration)
    }
    return FoldAnimation(
      phase: .opening, startTime: start, duration: foldSegmentDuration, motion: foldSegment(from: 0, to: 1, at: start))
  }

  /// A fold segment's seconds: `foldDuration`, at least `InputLimits.duration`'s lower
  /// bound (`foldDuration` may be 0).
  private var foldSegmentDuration: Double { max(foldDuration, InputLimits.duration.lowerBound) }

  /// The openness from `from` to `to` along `foldAnimation` over `foldSegmentDuration`
  /// from `begin`.
  private func foldSegment(from: Double, to: Double, at begin: Double) -> ChannelMotion {
    ChannelMotion(
      MotionSegment(
        unchecked: from, to: to, curve: foldAnimation ?? .bezier(.easeInEaseOut), duration: foldSegmentDuration,
        begin: begin), channel: .rotationX)
  }

  /// `fold`'s openness `motion` sent toward `target` (1 open, 0 closed) at `t0` by
  /// `policy`, as a fold animation from its original start to the motion's new end; a new
  /// segment from where it is when the policy cannot stack another layer.
  private func retargeted(
    _ motion: inout ChannelMotion, _ fold: FoldAnimation, toward target: Double, at t0: Double, policy: RetargetPolicy
  ) -> FoldAnimation {
    if (try? motion.retarget(to: target, at: t0, policy: policy)) == nil {
      motion = foldSegment(from: motion.value(at: t0), to: target, at: t0)
    }
    let start = min(fold.startTime, t0)
    return FoldAnimation(
      phase: target == 1 ? .opening : .closing, startTime: start, duration: max(motion.endTime, t0) - start,
      motion: motion)
  }

  /// With `heightAnimation`: the height's motion (detail fraction) toward `target` from
  /// `t0`: retargeted by the policy when it moves, else a new segment from where it is
  /// (reversal mode: a Bezier over the share of `heightDuration` left, as the closure mode;
  /// a spring over the whole `heightDuration`). Nil without `heightAnimation`.
  private func heightMotion(_ current: _RowMotion?, toward target: Double, at t0: Double) -> ChannelMotion? {
    guard let curve = heightAnimation else { return nil }
    let f = current.map { $0.fraction(at: t0, curve: heightCurve) } ?? 0
    if let retarget, var motion = current?.height {
      // Times and targets are checked by `toggle` and the initialiser: this cannot throw
      // but for a fifth running additive layer, where the height starts afresh instead.
      if (try? motion.retarget(to: target, at: t0, policy: retarget)) != nil { return motion }
    }
    // A Bezier reverses over the share of `heightDuration` left (the closure mode's rule);
    // a spring runs its whole duration: cut at a share of it, it would stop short and snap
    // to its end (a jump of nearly the whole remaining distance; found by the soak, seed
    // 2026).
    let share: Double
    if case .spring = curve { share = 1 } else { share = abs(target - f) }
    let duration = max(heightDuration * share, InputLimits.duration.lowerBound)
    return ChannelMotion(MotionSegment(unchecked: f, to: target, curve: curve, duration: duration, begin: t0), channel: .scaleY)
  }

  // MARK: - Queries

  /// The detail height of `row` in points (expanded minus collapsed height).
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` for a bad row.
  /// - Complexity: O(1).
  public func detailHeight(row: Int) throws(CellMotionError) -> Double {
    try checkRow(row)
    return _detail(row)
  }

  /// How much of `row`'s detail is showing at `time` seconds, in [0, 1]: 0 collapsed,
  /// 1 expanded (an under-damped spring `heightAnimation` overshoots either end for a
  /// moment). The height is `max(0, collapsed + fraction * detail)`.
  ///
  /// - Throws: `CellMotionError` for a bad row or a NaN time.
  /// - Complexity: O(1).
  public func detailFraction(row: Int, at time: Double) throws(CellMotionError) -> Double {
    try checkRow(row)
    try Check.time(time, "time")
    let index = motionIndex(row)
    guard index.found else { return 0 }
    return motions[index.position].fraction(at: time, curve: heightCurve)
  }

  /// How fast `row`'s detail fraction changes at `time`, per second (closed form); nil
  /// for a state made with a `heightCurve` closure (no derivative known).
  ///
  /// - Throws: `CellMotionError` for a bad row or a NaN time.
  public func detailFractionVelocity(row: Int, at time: Double) throws(CellMotionError) -> Double? {
    try checkRow(row)
    try Check.time(time, "time")
    guard heightAnimation != nil else { return nil }
    let index = motionIndex(row)
    guard index.found else { return 0 }
    return motions[index.position].fractionVelocity(at: time)
  }

  /// `row`'s height velocity in points per second at `time` (detail height x
  /// `detailFractionVelocity`); nil without `heightAnimation`. (While an overshoot holds
  /// the drawn height at 0, `height(row:at:in:)`, the drawn height stands still.)
  public func heightVelocity(row: Int, at time: Double) throws(CellMotionError) -> Double? {
    try detailFractionVelocity(row: row, at: time).map { $0 * _detail(row) }
  }

  /// The height of `row` in points at `time` seconds, between its collapsed height (from
  /// `base`) and its expanded height (collapsed + detail); an under-damped spring
  /// overshoots either for a moment, but the height stops at 0 (UIKit never shows a
  /// negative frame; the rows below then sit right under the row's top).
  ///
  /// - Throws: `CellMotionError` for a bad row, a NaN time, or a `base` with a different
  ///   row count (`.invalidCombination`).
  /// - Complexity: O(1).
  public func height(row: Int, at time: Double, in base: TableLayout) throws(CellMotionError)
    -> Double
  {
    try checkBase(base)
    let fraction = try detailFraction(row: row, at: time)
    return max(0, base._height(row) + _detail(row) * fraction)
  }

  /// The fold animation running on `row`'s detail at `time` seconds, or nil if none is in
  /// progress (`startTime <= time < startTime + foldDuration`). Outside an animation the
  /// detail is flat when the row is expanded with fraction 1, folded otherwise.
  ///
  /// - Throws: `CellMotionError` for a bad row or a NaN time.
  /// - Complexity: O(1).
  public func foldAnimation(row: Int, at time: Double) throws(CellMotionError) -> FoldAnimation? {
    try checkRow(row)
    try Check.time(time, "time")
    let index = motionIndex(row)
    guard index.found else { return nil }
    return motions[index.position].activeFold(at: time)
  }

  /// How far open `row`'s detail is at `time` seconds when folds retarget
  /// (`foldAnimation`), unitless: 0 folded, 1 flat, the fold curve applied (an
  /// under-damped spring may take it past either end for a moment); nil on a timeline
  /// (apply the fold recipe's curve to `FoldAnimation.linearOpenness`).
  ///
  /// - Throws: `CellMotionError` for a bad row or a NaN time.
  /// - Complexity: O(1).
  public func foldOpenness(row: Int, at time: Double) throws(CellMotionError) -> Double? {
    try checkRow(row)
    try Check.time(time, "time")
    guard foldAnimation != nil else { return nil }
    let index = motionIndex(row)
    guard index.found, let m = motions[index.position].fold?.motion else { return 0 }
    return m.value(at: max(time, motions[index.position].toggleTime))
  }

  /// How fast `row`'s fold openness changes at `time`, per second (closed form); nil on a
  /// timeline, as `foldOpenness`.
  ///
  /// - Throws: `CellMotionError` for a bad row or a NaN time.
  public func foldOpennessVelocity(row: Int, at time: Double) throws(CellMotionError) -> Double? {
    try checkRow(row)
    try Check.time(time, "time")
    guard foldAnimation != nil else { return nil }
    let index = motionIndex(row)
    guard index.found, let m = motions[index.position].fold?.motion, time >= motions[index.position].toggleTime
    else { return 0 }
    return m.velocity(at: time)
  }

  /// Whether every height and fold animation has finished by `time` seconds.
  ///
  /// - Complexity: O(k) for k rows with a plan.
  public func isSettled(at time: Double) -> Bool {
    motions.allSatisfy { time >= $0.endTime }
  }

  /// The layout at `time` seconds: `base` (the collapsed heights) with each row's animated
  /// detail added, so rows below an animating row move with it.
  ///
  /// - Throws: `CellMotionError.invalidCombination` if `base.rowCount != rowCount`;
  ///   `.notFinite` for a NaN time.
  /// - Complexity: O(k) for k rows with a plan; O(k log k) while toggles since the last
  ///   `removeSettled` have added rows out of row order.
  public func snapshot(of base: TableLayout, at time: Double) throws(CellMotionError)
    -> LayoutSnapshot
  {
    var snapshot = LayoutSnapshot(base)
    try updateSnapshot(&snapshot, of: base, at: time)
    return snapshot
  }

  /// Fills `snapshot` with the layout at `time` seconds (as `snapshot(of:at:)`), reusing
  /// its storage: no allocation once its capacity suffices.
  ///
  /// - Throws: as `snapshot(of:at:)`.
  /// - Complexity: as `snapshot(of:at:)`.
  public func updateSnapshot(
    _ snapshot: inout LayoutSnapshot, of base: TableLayout, at time: Double
  )
    throws(CellMotionError)
  {
    try checkBase(base)
    try Check.time(time, "time")
    snapshot._reset(base: base)
    for motion in motions {
      let fraction = motion.fraction(at: time, curve: heightCurve)
      // An overshooting spring can take the fraction below 0 for a moment: kept, so rows
      // below move continuously, but the drawn height stops at 0 (UIKit never shows a
      // negative frame), so the delta never takes more than the collapsed height.
      if fraction != 0 {
        snapshot._append(row: motion.row, delta: max(_detail(motion.row) * fraction, -base._height(motion.row)))
      }
    }
    snapshot._finish()
  }

  /// Forgets collapsed rows whose animations have finished by `time` seconds, so that
  /// per-frame work stays proportional to the rows that matter, and puts the plans back
  /// in row order after toggles added rows out of order (`TableSimulation` calls it every
  /// step, so its snapshots take the plans in order).
  ///
  /// - Complexity: O(k) for k rows with a plan, O(k log k) after toggles out of row order.
  public mutating func removeSettled(at time: Double) {
    let count = motions.count
    motions.removeAll { !$0.expanded && time >= $0.endTime }
    if !motionsSorted {
      motions.sort { $0.row < $1.row }
      motionsSorted = true
    } else if motions.count == count {
      return
    }
    motionPosition.removeAll(keepingCapacity: true)
    for (i, m) in motions.enumerated() { motionPosition[m.row] = i }
  }

  // MARK: - Helpers

  @inline(__always)
  func _detail(_ row: Int) -> Double {
    switch detailHeights {
    case .uniform(let h): return h
    case .perRow(let hs): return hs[row]
    }
  }

  /// Rows with a plan, sorted by row (module internal, for tests).
  var _motions: [_RowMotion] { motionsSorted ? motions : motions.sorted { $0.row < $1.row } }

  private func checkRow(_ row: Int) throws(CellMotionError) {
    guard row >= 0, row < rowCount else {
      throw .indexOutOfRange(field: "row", index: row, count: rowCount)
    }
  }

  private func checkBase(_ base: TableLayout) throws(CellMotionError) {
    guard base.rowCount == rowCount else {
      throw .invalidCombination(
        field: "base",
        reason: "layout has \(base.rowCount) rows, expansion state has \(rowCount)")
    }
  }

  private func motionIndex(_ row: Int) -> (position: Int, found: Bool) {
    guard let position = motionPosition[row] else { return (0, false) }
    return (position, true)
  }
}

/// One row's plan, made at its latest toggle.
struct _RowMotion: Sendable {
  var row: Int
  /// Target state.
  var expanded: Bool
  /// Time of the toggle that made this plan; earlier times are answered as this one.
  var toggleTime: Double
  var heightStart = 0.0
  var heightFrom = 0.0
  var heightTo = 0.0
  var heightDuration = 0.0
  var fold: FoldAnimation?
  /// The detail fraction as a motion (states with `heightAnimation`); it replaces the
  /// height fields above.
  var height: ChannelMotion?

  init(row: Int, expanded: Bool, toggleTime: Double) {
    self.row = row
    self.expanded = expanded
    self.toggleTime = toggleTime
  }

  mutating func setHeight(from: Double, to: Double, start: Double, duration: Double) {
    heightFrom = from
    heightTo = to
    heightStart = start
    heightDuration = duration
  }

  /// Time from which nothing changes.
  var endTime: Double {
    let heightEnd = height?.endTime ?? heightStart + heightDuration
    guard let fold else { return heightEnd }
    return max(heightEnd, fold.startTime + fold.duration)
  }

  /// Detail fraction in [0, 1] at `time`.
  @inline(__always)
  func fraction(at time: Double, curve: (Double) -> Double) -> Double {
    let t = max(time, toggleTime)
    if let height { return height.value(at: t) }
    if t >= heightStart + heightDuration { return heightTo }
    if t <= heightStart { return heightFrom }
    let u = (t - heightStart) / heightDuration
    var p = curve(u)
    if !p.isFinite { p = u }
    p = min(max(p, 0), 1)
    return heightFrom + (heightTo - heightFrom) * p
  }

  /// Per second, closed form (0 before the toggle, as `fraction` holds there).
  func fractionVelocity(at time: Double) -> Double {
    guard let height, time >= toggleTime else { return 0 }
    return height.velocity(at: time)
  }

  func activeFold(at time: Double) -> FoldAnimation? {
    let t = max(time, toggleTime)
    guard let fold, t >= fold.startTime, t < fold.startTime + fold.duration else { return nil }
    return fold
  }
}
