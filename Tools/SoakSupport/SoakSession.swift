// One soak session: a table from `SessionConfig`, a history of `SoakAction`s, and every
// invariant checked on every frame against the model (`RowsModel`, the expansion targets,
// the scalar reference).
//
// Goals, in priority order:
// 1. Every violation is found at the frame it happens, with the frame, the action and a
//    message precise enough to act on; the history so far replays it exactly.
// 2. The checks trust only public API and the model: positions against prefix sums of
//    the model's heights, identifiers against the brute-force update model, transforms
//    against `ReferenceEvaluator`, settled frames against a freshly built animator.
// 3. Cheap enough for an hour-long soak: per frame O(visible rows + animations); O(n)
//    work only after a batch update or at a settle check.
//
// Invariants (checked on every frame unless noted):
// - finite: every number of the frame is finite (matrices, opacities, heights, positions,
//   extra cells, fold halves, open details, scroll offset, content height).
// - drawn once: one matrix, opacity, height, flag and position per visible row; visible
//   rows inside the table; every extra cell accounted for by a batch still in flight
//   (deleted: identifier gone from the model; reloaded old contents: the reloaded row;
//   moving: a moved row, not among the visible rows), none twice.
// - layout: with no batch sliding, the visible rows are exactly those the model's layout
//   puts in the band (prefix sums of the model's heights plus each expanding row's
//   animated detail), at the model's positions and heights; while batches slide, the
//   first and last drawn rows meet the band.
// - continuity: a row's place in content points (position + scroll offset), followed by
//   its identifier, never jumps. Documented discontinuities, which the check allows:
//   none for row places. Scroll jumps (`jump`) move every row in viewport points but
//   not in content points; inserted rows appear and deleted rows leave the visible rows
//   (they have no place before or after); transforms and opacities restart at display
//   events and reloads by design, and are checked against the reference instead.
//   A move larger than the speed bound of what is in flight is refined by re-stepping a
//   copy of the animator over the frame interval (down to 1e-6 s): a jump that stays is a
//   violation, a fast but continuous move is not.
// - identifiers: after each batch, the table's identifiers, heights and index map equal
//   the model's; refused batches (and toggles, steps) change nothing.
// - settled: once `isSettled`, the frame equals a fresh animator's for the same rows,
//   scroll offset and expanded rows with nothing animating.
// - kernel: on sampled frames every appearance animation drawn matches
//   `ReferenceEvaluator` within the kernel tolerances (2e-5 normalised, 1e-5 opacity).
// - allocation (when a counter is given): no heap allocation in a steady frame (no action
//   for two frames, same visible rows, no display event, nothing from updates or folds).

import CellMotion
import CellMotionKernel
import CellMotionTable
import _TestSupport

/// A broken invariant.
public struct SoakViolation: Error, Sendable, CustomStringConvertible {
  /// The invariant: finite, drawn-once, layout, continuity, identifiers, refusal, settled,
  /// kernel, allocation, error.
  public var kind: String
  /// Frame index in the session (0 = the first frame).
  public var frame: Int
  /// Index of the action being performed (or the last one performed).
  public var action: Int
  /// What was seen, against what the model expects.
  public var message: String
  /// Kind, frame, action and message on one line.
  public var description: String { "[\(kind)] frame \(frame), action \(action): \(message)" }
}

/// What a session checks and how.
public struct SoakOptions: Sendable {
  /// Check the kernel against the reference every this many frames (0: never).
  public var kernelEvery = 7
  /// Counts heap allocations (the executable passes `_AllocCounter`'s); nil: not checked.
  public var allocationCounter: (@Sendable () -> UInt64)? = nil
  /// Continuity refinements per session at most (each re-steps a copy ~100 times).
  public var maxRefinements = 64
  /// Print a line per frame (rows, cells in flight, allocations).
  public var trace = false
  /// Heap allocations in steady frames are counted (`SoakStats.allocatingFrames`) but not
  /// reported as violations. Only for runs that must pass while a known allocation source
  /// is being removed: the check still runs and its findings are printed.
  public var toleratesAllocations = false
  /// A bug planted on purpose, to show that the soak finds and shrinks it; nil in real runs.
  public var plantedFault: PlantedFault? = nil
  /// The defaults.
  public init() {}
}

/// Bugs the soak can plant between a session's history and the table, to demonstrate that
/// its checks find them (`cellmotion-soak --plant`, the soak tests).
public enum PlantedFault: String, Sendable, CaseIterable {
  /// The table is given every move one row further down than the history says (as an
  /// off-by-one in a batch's index map would place it) while the model applies the move
  /// as written.
  case moveOffByOne = "move-off-by-one"

  /// The operations the table is given for `ops`.
  func apply(_ ops: [SoakUpdateOp], newRowCount: Int) -> [SoakUpdateOp] {
    switch self {
    case .moveOffByOne:
      return ops.map { op in
        guard case .move(let from, let to) = op else { return op }
        return .move(from, to + 1 < newRowCount ? to + 1 : max(0, to - 1))
      }
    }
  }
}

/// Counts of what a session did.
public struct SoakStats: Sendable {
  /// Frames stepped.
  public var frames = 0
  /// Actions other than frames.
  public var actions = 0
  /// Calls refused as they must be (invalid batches, toggles, steps).
  public var refused = 0
  /// Batch updates applied.
  public var batches = 0
  /// Toggles applied.
  public var toggles = 0
  /// Settled frames compared with a fresh animator's.
  public var settleChecks = 0
  /// Cells compared with the reference.
  public var kernelCells = 0
  /// Steady frames whose allocations were counted.
  public var steadyFrames = 0
  /// Large moves re-stepped in sub-intervals (continuity).
  public var refinements = 0
  /// Frames of horizontal tables (`SessionConfig.axis`) among `frames`.
  public var horizontalFrames = 0
  /// Worst normalised transform error against the reference.
  public var worstKernel = 0.0
  /// Worst opacity error against the reference.
  public var worstOpacity = 0.0
  /// Steady frames that allocated, when `SoakOptions.toleratesAllocations` (else each is a
  /// violation).
  public var allocatingFrames = 0
  /// The first of them: (session frame, allocations, visible rows).
  public var firstAllocation: (frame: Int, allocations: UInt64, rows: Int)? = nil
  /// The defaults.
  public init() {}
  /// Adds another session's counts (worst values: the worse).
  public mutating func add(_ o: SoakStats) {
    frames += o.frames
    actions += o.actions
    refused += o.refused
    batches += o.batches
    toggles += o.toggles
    horizontalFrames += o.horizontalFrames
    settleChecks += o.settleChecks
    kernelCells += o.kernelCells
    steadyFrames += o.steadyFrames
    refinements += o.refinements
    allocatingFrames += o.allocatingFrames
    if firstAllocation == nil { firstAllocation = o.firstAllocation }
    worstKernel = worstOf(worstKernel, o.worstKernel)
    worstOpacity = worstOf(worstOpacity, o.worstOpacity)
  }
}

/// A running session.
public struct SoakSession {
  /// The session's table.
  public let config: SessionConfig
  /// The table under test.
  public private(set) var animator: TableAnimator
  /// The brute-force model of its rows.
  public private(set) var model: RowsModel
  /// The time of the last frame, seconds.
  public private(set) var time: Double
  /// The last frame stepped (0: the first).
  public private(set) var frameIndex = 0
  /// The last action performed (-1: none yet).
  public private(set) var actionIndex = -1
  /// What the session did so far.
  public private(set) var stats = SoakStats()
  let options: SoakOptions
  let floats: Int
  /// The expanded rows the model expects (toggle targets).
  var expanded: Set<Int> = []
  /// Rows ever toggled (their animated detail enters the model's layout).
  var toggled: Set<Int> = []
  /// Recent toggles (time, detail height) and batches (time, displacement bound), for the
  /// continuity speed bound.
  var recentToggles: [(time: Double, detail: Double)] = []
  var recentBatches: [(time: Double, displacement: Double)] = []
  /// Identifiers deleted / reloaded / moved by recent batches, with the time until which
  /// they may be drawn as extra cells.
  var extraUntil: [ExtraCell.Kind: [Int: Double]] = [.deleted: [:], .reloadedOld: [:], .moving: [:]]
  /// Content top of each visible row's identifier in the last frame.
  var previousTops: [Int: Double] = [:]
  var scratchTops: [Int: Double] = [:]
  var previousRows: Range<Int> = 0..<0
  var previousBatchCount = 0
  var framesSinceAction = 0
  var settleChecked = false
  var detailHeights: [Double]?
  var uniformDetail: Double
  /// The scroll effect as the table evaluates it (`withoutMotion` under a policy that
  /// holds transforms), or nil.
  let effect: ScrollEffect?
  /// Scratch: sorted (row, delta) of expanding rows this frame, with prefix sums.
  var deltaRows: [Int] = []
  var deltaPrefix: [Double] = []

  /// Builds the session's table and steps its first frame at `config.startTime`.
  ///
  /// - Throws: the table's errors for a configuration it refuses.
  public init(config: SessionConfig, options: SoakOptions = SoakOptions()) throws(CellMotionError) {
    self.config = config
    self.options = options
    animator = try config.makeAnimator()
    let hs = config.rowHeights() ?? [Double](repeating: config.uniformHeight ?? 44, count: config.rows)
    model = RowsModel(heights: hs)
    floats = config.layout.floatsPerCell
    time = config.startTime
    if let e = config.scrollEffect {
      effect = (config.motion ?? e.recipe.motion).holdsTransforms ? e.withoutMotion : e
    } else {
      effect = nil
    }
    switch config.expansion == nil ? DetailHeights.uniform(0) : config.detailHeights() {
    case .uniform(let h):
      uniformDetail = h
      detailHeights = nil
    case .perRow(let hs):
      uniformDetail = 0
      detailHeights = hs
    }
  }

  /// Steps the first frame. Call once, before any action.
  public mutating func start() -> SoakViolation? {
    stepFrame(interval: 0, checkpoint: nil)
  }

  func violation(_ kind: String, _ message: String) -> SoakViolation {
    SoakViolation(kind: kind, frame: frameIndex, action: max(actionIndex, 0), message: message)
  }

  func detail(_ row: Int) -> Double { detailHeights?[row] ?? uniformDetail }

  // MARK: - Actions

  /// Performs one action (frames included), checking every frame it steps.
  public mutating func perform(_ action: SoakAction) -> SoakViolation? {
    actionIndex += 1
    if case .frames(let count, let dt) = action {
      for _ in 0..<max(0, count) {
        if let v = frame(interval: dt) { return v }
      }
      return nil
    }
    stats.actions += 1
    framesSinceAction = 0
    settleChecked = false
    switch action {
    case .frames: return nil
    case .fling(let v, let fast):
      let offset = animator.frame.events.scrollOffset
      let range = scrollRange()
      guard
        let s = try? ScrollTrajectory.fling(
          from: offset, velocity: v, rate: fast ? .fast : .normal, startTime: time, limits: range)
      else { return violation("error", "fling(\(v)) from \(offset) within \(range) refused") }
      animator.setScroll(s)
    case .constant(let v):
      let offset = animator.frame.events.scrollOffset
      guard let s = try? ScrollTrajectory.constantVelocity(from: offset, velocity: v, startTime: time, limits: scrollRange())
      else { return violation("error", "constantVelocity(\(v)) refused") }
      animator.setScroll(s)
    case .jump(let f):
      let r = scrollRange()
      guard let s = try? ScrollTrajectory.stationary(at: r.lowerBound + f * (r.upperBound - r.lowerBound)) else {
        return violation("error", "stationary(\(f)) refused")
      }
      animator.setScroll(s)
      // A documented discontinuity in viewport points only: content places stay.
    case .toggle(let row): return toggle(row)
    case .update(let ops): return update(ops)
    case .reload: animator.reload()
    case .lanes(let w): animator.options.lanes = w == .simd4 ? .simd4 : .simd8
    case .badStep:
      let before = animator.frame
      for bad in [time - 1, Double.nan] {
        do {
          try animator.step(to: bad)
          return violation("refusal", "step(to: \(bad)) after \(time) was accepted")
        } catch {}
      }
      stats.refused += 2
      if animator.frame.time != before.time || animator.frame.rows != before.rows
        || animator.frame.matrices != before.matrices
      {
        return violation("refusal", "a refused step changed the frame")
      }
    }
    return nil
  }

  /// The scroll offsets the content allows: 0 ... content height - viewport height.
  func scrollRange() -> ClosedRange<Double> {
    0...max(0, animator.frame.events.contentHeight - config.viewport)
  }

  mutating func toggle(_ row: Int) -> SoakViolation? {
    let valid = config.expansion != nil && row >= 0 && row < model.rowCount
    do {
      let now = try animator.toggle(row: row, at: time)
      guard valid else { return violation("refusal", "toggle(row: \(row)) was accepted (rows \(model.rowCount), expansion \(config.expansion != nil))") }
      stats.toggles += 1
      let wasExpanded = expanded.contains(row)
      if wasExpanded {
        expanded.remove(row)
      } else {
        if config.expansion?.policy == .single {
          for other in expanded { recentToggles.append((time, detail(other))) }
          expanded.removeAll()
        }
        expanded.insert(row)
      }
      toggled.insert(row)
      recentToggles.append((time, detail(row)))
      if now != !wasExpanded { return violation("refusal", "toggle(row: \(row)) returned \(now), model expects \(!wasExpanded)") }
    } catch {
      guard !valid else { return violation("refusal", "toggle(row: \(row)) refused: \(error)") }
      stats.refused += 1
    }
    return nil
  }

  mutating func update(_ ops: [SoakUpdateOp]) -> SoakViolation? {
    let rule = config.expansion != nil ? "the table has expanding rows" : model.violation(ops)
    let newRowCount = ops.reduce(model.rowCount) { n, op in
      switch op {
      case .insert: return n + 1
      case .delete: return n - 1
      default: return n
      }
    }
    let (batch, expected) = SoakAction.rowUpdate(options.plantedFault?.apply(ops, newRowCount: newRowCount) ?? ops)
    let applied: AppliedUpdate
    do {
      applied = try animator.performBatchUpdates(batch, at: time, expectedRowCount: expected)
    } catch {
      guard rule != nil else { return violation("refusal", "a valid batch was refused: \(error)") }
      stats.refused += 1
      return checkRows("after a refused batch")
    }
    if let rule { return violation("refusal", "a batch that breaks a rule (\(rule)) was accepted") }
    stats.batches += 1
    // Identifiers the table issued, checked fresh.
    var issued: [Int: Int] = [:]
    var given: Set<Int> = []
    for op in ops { if case .insert(_, _, let id?, _) = op { given.insert(id.rawValue) } }
    var fresh: Set<Int> = []
    for ins in applied.inserted {
      issued[ins.index] = ins.id.rawValue
      if !given.contains(ins.id.rawValue) {
        if model.used.contains(ins.id.rawValue) || !fresh.insert(ins.id.rawValue).inserted {
          return violation("identifiers", "the table issued identifier \(ins.id) for row \(ins.index), already in use")
        }
      }
    }
    let oldCount = model.rowCount
    let outcome = model.apply(ops, issued: issued)
    // What the table says the batch did, against the model.
    let table = RowsModel.Effects(applied), expectedEffects = RowsModel.Effects(outcome)
    if table != expectedEffects {
      return violation("identifiers", "the batch did \(table); model \(expectedEffects)")
    }
    // The index map, both ways: every row of tables up to 20,000 rows, else the changed
    // rows, their neighbours and a sample.
    var probe: [Int] = []
    if oldCount <= 20_000 {
      probe = Array(0..<oldCount)
    } else {
      var g = SeededGenerator(seed: UInt64(stats.batches) &* 0x9E37_79B9)
      for _ in 0..<2000 { probe.append(Int(g.next() % UInt64(oldCount))) }
      for op in ops {
        switch op {
        case .delete(let i, _), .reload(let i, _, _), .height(let i, _), .move(let i, _), .insert(let i, _, _, _):
          for d in -2...2 where i + d >= 0 && i + d < oldCount { probe.append(i + d) }
        default: break
        }
      }
      probe += [0, oldCount - 1]
    }
    for o in probe {
      let n = try? applied.map.newIndex(ofOldRow: o)
      if n != outcome.newIndex[o] {
        return violation("identifiers", "map.newIndex(ofOldRow: \(o)) = \(String(describing: n)), model \(String(describing: outcome.newIndex[o]))")
      }
      if let m = outcome.newIndex[o], (try? applied.map.oldIndex(ofNewRow: m)) != o {
        return violation("identifiers", "map.oldIndex(ofNewRow: \(m)) is not \(o)")
      }
    }
    let until = time + config.updateSpan
    for d in outcome.deleted { extraUntil[.deleted]![d.id] = until }
    for r in outcome.reloaded { extraUntil[.reloadedOld]![r.id] = until }
    for m in outcome.moved { extraUntil[.moving]![m.id] = until }
    recentBatches.append((time, outcome.displacement))
    return checkRows("after the batch")
  }

  /// The table's identifiers and heights against the model's.
  func checkRows(_ when: String) -> SoakViolation? {
    let rows = animator.simulation.rows
    guard rows.rowCount == model.rowCount else {
      return violation("identifiers", "\(when): \(rows.rowCount) rows, model \(model.rowCount)")
    }
    let layout = rows.layout
    for i in 0..<model.rowCount {
      if rows.ids[i].rawValue != model.ids[i] {
        return violation("identifiers", "\(when): row \(i) has identifier \(rows.ids[i]), model #\(model.ids[i])")
      }
      let h = (try? layout.rowHeight(i)) ?? .nan
      if h != model.heights[i] {
        return violation("identifiers", "\(when): row \(i) is \(h) pt tall, model \(model.heights[i])")
      }
    }
    return nil
  }

  // MARK: - Frames

  mutating func frame(interval dt: Double) -> SoakViolation? {
    // While something moves, keep the state before the step so a suspicious move can be
    // refined (copying here costs allocations; such frames are never steady ones).
    let moving = isMoving()
    return stepFrame(interval: dt, checkpoint: moving ? animator : nil)
  }

  /// Whether a batch or an expansion animation is in flight (rows may move).
  func isMoving() -> Bool {
    let sim = animator.simulation
    return sim.updates.isAnimating(at: time) || !(sim.expansion?.isSettled(at: time) ?? true)
      || !sim.updates.cells.isEmpty
  }

  mutating func stepFrame(interval dt: Double, checkpoint: TableAnimator?) -> SoakViolation? {
    let t0 = time
    let t1 = time + dt
    let before = options.allocationCounter?()
    do {
      try animator.step(to: t1)
    } catch {
      return violation("error", "step(to: \(t1)) threw \(error)")
    }
    let allocations = options.allocationCounter.map { $0() - before! } ?? 0
    if options.trace {
      print("frame \(frameIndex + (stats.frames > 0 ? 1 : 0)) t \(t1): rows \(animator.frame.rows), batch \(animator.batch.count), \(allocations) allocations, checkpoint \(checkpoint != nil)")
    }
    time = t1
    if frameIndex > 0 || stats.frames > 0 { frameIndex += 1 }
    stats.frames += 1
    framesSinceAction += 1
    let f = animator.frame
    if let v = checkFinite(f) { return v }
    if let v = checkDrawnOnce(f) { return v }
    if let v = checkLayout(f) { return v }
    if let v = checkContinuity(f, t0: t0, checkpoint: checkpoint) { return v }
    if options.kernelEvery > 0, frameIndex % options.kernelEvery == 0, let v = checkKernel(f) { return v }
    if let v = checkSettled(f) { return v }
    // Steady: nothing happened for two frames and nothing appears, leaves or slides.
    let steady =
      checkpoint == nil && framesSinceAction >= 3 && f.rows == previousRows && f.events.willDisplay.isEmpty
      && f.events.didEndDisplaying.isEmpty && f.events.animationStarts.isEmpty && f.events.updateCells.isEmpty
      && f.events.movingRows.isEmpty && f.folds.isEmpty && animator.batch.count <= previousBatchCount
      && frameIndex >= 3
    if steady, options.allocationCounter != nil {
      stats.steadyFrames += 1
      if allocations > 0 && options.toleratesAllocations {
        stats.allocatingFrames += 1
        if stats.firstAllocation == nil { stats.firstAllocation = (frameIndex, allocations, f.rows.count) }
      } else if allocations > 0 {
        return violation("allocation", "\(allocations) heap allocations in a steady frame (\(f.rows.count) rows visible)")
      }
    }
    previousRows = f.rows
    previousBatchCount = animator.batch.count
    pruneRecent()
    return nil
  }

  mutating func pruneRecent() {
    if recentToggles.count > 64 { recentToggles.removeFirst(recentToggles.count - 64) }
    if recentBatches.count > 64 { recentBatches.removeFirst(recentBatches.count - 64) }
    for k in [ExtraCell.Kind.deleted, .reloadedOld, .moving] where extraUntil[k]!.count > 512 {
      extraUntil[k] = extraUntil[k]!.filter { $0.value >= time }
    }
  }

  func checkFinite(_ f: AnimatorFrame) -> SoakViolation? {
    func bad(_ a: [Float]) -> Int? { a.firstIndex { !$0.isFinite } }
    if let i = bad(f.matrices) { return violation("finite", "matrices[\(i)] = \(f.matrices[i])") }
    if let i = bad(f.opacity) { return violation("finite", "opacity[\(i)] = \(f.opacity[i])") }
    if let i = bad(f.heights) { return violation("finite", "heights[\(i)] = \(f.heights[i])") }
    if let i = bad(f.extraMatrices) { return violation("finite", "extraMatrices[\(i)] = \(f.extraMatrices[i])") }
    if let i = bad(f.extraOpacity) { return violation("finite", "extraOpacity[\(i)] = \(f.extraOpacity[i])") }
    if let i = f.events.rowPositions.firstIndex(where: { !$0.isFinite }) { return violation("finite", "rowPositions[\(i)]") }
    if let i = f.events.rowHeights.firstIndex(where: { !$0.isFinite }) { return violation("finite", "rowHeights[\(i)]") }
    if !f.events.scrollOffset.isFinite || !f.events.contentHeight.isFinite {
      return violation("finite", "scroll offset \(f.events.scrollOffset), content height \(f.events.contentHeight)")
    }
    for d in f.folds {
      for k in 0..<16 where !d.top[k / 4, k % 4].isFinite || !d.bottom[k / 4, k % 4].isFinite {
        return violation("finite", "fold of row \(d.row): entry \(k)")
      }
      if !d.shadowOpacity.isFinite || !d.detailTop.isFinite { return violation("finite", "fold of row \(d.row)") }
    }
    for d in f.openDetails where !d.detailTop.isFinite || !d.height.isFinite {
      return violation("finite", "open detail of row \(d.row)")
    }
    return nil
  }

  func checkDrawnOnce(_ f: AnimatorFrame) -> SoakViolation? {
    let n = f.rows.count
    guard f.rows.lowerBound >= 0, f.rows.upperBound <= model.rowCount || n == 0 else {
      return violation("drawn-once", "visible rows \(f.rows) outside the table's \(model.rowCount)")
    }
    guard f.matrices.count == floats * n, f.opacity.count == n, f.heights.count == n, f.animating.count == n,
      f.behind.count == n, f.events.rowPositions.count == n, f.events.rowHeights.count == n,
      f.events.visibleRange == f.rows
    else {
      return violation(
        "drawn-once",
        "\(n) visible rows but \(f.matrices.count / floats) matrices, \(f.opacity.count) opacities, "
          + "\(f.events.rowPositions.count) positions, events' range \(f.events.visibleRange)")
    }
    guard f.extraMatrices.count == floats * f.extraCells.count, f.extraOpacity.count == f.extraCells.count else {
      return violation("drawn-once", "\(f.extraCells.count) extra cells, \(f.extraMatrices.count / floats) matrices")
    }
    var seen: Set<Int> = []
    for c in f.extraCells {
      guard let until = extraUntil[c.kind]?[c.id.rawValue], until >= time else {
        return violation("drawn-once", "extra cell \(c.kind) \(c.id) (row \(String(describing: c.row))) not accounted for by a batch in flight")
      }
      switch c.kind {
      case .deleted:
        if model.used.contains(c.id.rawValue) { return violation("drawn-once", "deleted cell \(c.id) is still a row") }
      case .reloadedOld, .moving:
        guard let r = c.row, r >= 0, r < model.rowCount, model.ids[r] == c.id.rawValue else {
          return violation("drawn-once", "\(c.kind) cell \(c.id) at row \(String(describing: c.row)) is not that row")
        }
        if c.kind == .moving, f.rows.contains(r) {
          return violation("drawn-once", "moving cell \(c.id) row \(r) is also a visible row")
        }
      }
      if c.kind != .reloadedOld, !seen.insert(c.id.rawValue).inserted {
        return violation("drawn-once", "extra cell \(c.id) drawn twice")
      }
    }
    for d in f.folds where !f.rows.contains(d.row) { return violation("drawn-once", "fold of row \(d.row) not visible") }
    return nil
  }

  /// The model's layout this frame: deltas of expanding rows, sorted by row.
  mutating func prepareDeltas() -> SoakViolation? {
    deltaRows.removeAll(keepingCapacity: true)
    deltaPrefix.removeAll(keepingCapacity: true)
    deltaPrefix.append(0)
    guard let e = animator.simulation.expansion, !toggled.isEmpty else { return nil }
    let base = animator.simulation.layout
    for row in toggled.sorted() {
      guard let h = try? e.height(row: row, at: time, in: base) else { return violation("error", "height(row: \(row))") }
      let d = h - model.heights[row]
      if d != 0 {
        deltaRows.append(row)
        deltaPrefix.append(deltaPrefix.last! + d)
      }
    }
    return nil
  }

  /// The model's top (content points) and drawn height of `row`.
  func modelGeometry(_ row: Int) -> (top: Double, height: Double) {
    // Expanding rows above `row`: the first index in deltaRows at or after row.
    var lo = 0, hi = deltaRows.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if deltaRows[mid] < row { lo = mid + 1 } else { hi = mid }
    }
    var h = model.heights[row]
    if lo < deltaRows.count, deltaRows[lo] == row { h += deltaPrefix[lo + 1] - deltaPrefix[lo] }
    return (model.tops[row] + deltaPrefix[lo], h)
  }

  mutating func checkLayout(_ f: AnimatorFrame) -> SoakViolation? {
    let offset = f.events.scrollOffset
    let lower = offset - config.overscan, upper = offset + config.viewport + config.overscan
    func meets(_ top: Double, _ h: Double, slack: Double) -> Bool {
      top < upper + slack && (top + h > lower - slack || top >= lower - slack)
    }
    if animator.simulation.updates.isAnimating(at: time) || !f.events.updateCells.isEmpty || !f.events.movingRows.isEmpty {
      // Slides in flight: the first and last drawn rows meet the band.
      let slack = 1e-6 * max(1, abs(offset))
      for k in [0, f.rows.count - 1] where !f.rows.isEmpty {
        let top = f.events.rowPositions[k] + offset
        if !meets(top, f.events.rowHeights[k], slack: slack) {
          return violation("layout", "row \(f.rows.lowerBound + k) drawn at \(top) (\(f.events.rowHeights[k]) pt) misses the band \(lower)..<\(upper)")
        }
      }
      return nil
    }
    if let v = prepareDeltas() { return v }
    let n = model.rowCount
    // First row meeting the band from below, first row at or past its top: both monotone.
    func firstRow(_ p: (Int) -> Bool) -> Int {
      var lo = 0, hi = n
      while lo < hi {
        let mid = (lo + hi) / 2
        if p(mid) { hi = mid } else { lo = mid + 1 }
      }
      return lo
    }
    let first = firstRow { r in
      let g = modelGeometry(r)
      return g.top + g.height > lower || g.top >= lower
    }
    let end = max(first, firstRow { r in modelGeometry(r).top >= upper })
    var expected = first..<min(end, first + TableSimulation.maxVisibleRows)
    if expected.isEmpty { expected = f.rows.isEmpty ? f.rows : expected }
    let tolerance = 1e-9 * max(model.tops.last ?? 0, abs(offset)) + 1e-6
    if expected != f.rows {
      // Rounding at the band's edges: accept a row whose edge is within the tolerance.
      let ends = [expected.lowerBound, expected.upperBound, f.rows.lowerBound, f.rows.upperBound]
      let nearEdge = ends.allSatisfy { r in
        guard r >= 0, r <= n else { return false }
        if expected.contains(r) == f.rows.contains(r) && (r == 0 || expected.contains(r - 1) == f.rows.contains(r - 1)) {
          return true
        }
        for q in [r - 1, r] where q >= 0 && q < n {
          let g = modelGeometry(q)
          if abs(g.top - upper) <= tolerance || abs(g.top + g.height - lower) <= tolerance || abs(g.top - lower) <= tolerance {
            return true
          }
        }
        return false
      }
      if !nearEdge || abs(expected.count - f.rows.count) > 2 {
        return violation("layout", "visible rows \(f.rows), the model's layout puts \(expected) in the band \(lower)..<\(upper)")
      }
    }
    for (k, row) in f.rows.enumerated() where row < n {
      let g = modelGeometry(row)
      let y = f.events.rowPositions[k] + offset
      if abs(y - g.top) > tolerance || abs(f.events.rowHeights[k] - g.height) > tolerance {
        return violation(
          "layout", "row \(row) at \(y) (\(f.events.rowHeights[k]) pt), the model's layout says \(g.top) (\(g.height) pt)")
      }
    }
    return nil
  }

  /// The identifier of visible row `row` (its index in an expansion session).
  func identifier(_ row: Int) -> Int { config.expansion == nil ? model.ids[row] : row }

  /// Points per second rows may move now: a bound from what is in flight.
  func speedBound() -> Double {
    var s = 0.0
    if !(animator.simulation.expansion?.isSettled(at: time) ?? true), let e = config.expansion {
      var shortest = min(e.heightDuration, e.foldDuration)
      if let r = e.animation?.retarget {
        switch r {
        case .additive(_, let d), .fromCurrentState(_, let d): shortest = min(shortest, d)
        case .carryVelocity: shortest = min(shortest, 0.05)
        }
      }
      if case .spring? = e.animation?.curve { shortest = min(shortest, 0.05) }
      for t in recentToggles { s += 12 * t.detail / max(shortest, 0.01) }
    }
    if animator.simulation.updates.isAnimating(at: time) {
      let t = config.updateTiming
      var shortest = t.moveDuration
      if case .spring = t.curve { shortest = min(shortest, 0.05) }
      for b in recentBatches { s += 12 * b.displacement / max(shortest, 0.01) }
    }
    return s
  }

  mutating func checkContinuity(_ f: AnimatorFrame, t0: Double, checkpoint: TableAnimator?) -> SoakViolation? {
    let offset = f.events.scrollOffset
    let dt = time - t0
    let speed = speedBound()
    var worst: (excess: Double, row: Int, id: Int, from: Double, to: Double)? = nil
    scratchTops.removeAll(keepingCapacity: true)
    for (k, row) in f.rows.enumerated() where row < model.rowCount {
      let id = identifier(row)
      let c = f.events.rowPositions[k] + offset
      scratchTops[id] = c
      guard let p = previousTops[id] else { continue }
      let allowed = 0.01 + 1e-9 * abs(c) + speed * dt
      let d = abs(c - p)
      if d > allowed, d - allowed > (worst?.excess ?? -1) { worst = (d - allowed, row, id, p, c) }
    }
    swap(&previousTops, &scratchTops)
    guard let w = worst else { return nil }
    guard let checkpoint else {
      return violation(
        "continuity", "row \(w.row) (#\(w.id)) moved from \(w.from) to \(w.to) content points in \(dt) s with nothing in flight")
    }
    guard stats.refinements < options.maxRefinements else { return nil }
    stats.refinements += 1
    if let jump = refine(checkpoint, id: w.id, row: w.row, from: t0, to: time, c0: w.from, total: abs(w.to - w.from)) {
      return violation(
        "continuity",
        "row \(w.row) (#\(w.id)) jumped \(jump.size) content points between \(jump.a) and \(jump.b) s "
          + "(frame \(t0) -> \(time): \(w.from) -> \(w.to))")
    }
    return nil
  }

  /// Re-steps copies of `state` (the animator before this frame's step) across [t0, t1]
  /// in 32 sub-steps, narrowing to the sub-interval with the largest move, down to 1e-6 s:
  /// a move that stays larger than a quarter of the frame's (and 0.5 points) is a jump.
  func refine(_ state: TableAnimator, id: Int, row: Int, from t0: Double, to t1: Double, c0: Double, total: Double)
    -> (size: Double, a: Double, b: Double)?
  {
    func place(_ a: TableAnimator) -> Double? {
      let f = a.frame
      guard f.rows.contains(row) else { return nil }
      return f.events.rowPositions[row - f.rows.lowerBound] + f.events.scrollOffset
    }
    // A spring-timed slide or height change snaps at its end by up to the settling
    // threshold of its distance (documented; `SessionConfig.fitted`).
    let snap = config.springTimed ? 2 * Spring.settlingEpsilon * (recentToggles.reduce(0) { $0 + $1.detail } + recentBatches.reduce(0) { $0 + $1.displacement }) : 0
    var lo = t0, hi = t1
    var start = state
    var startPlace: Double? = c0
    var size = total
    // The state right after the actions at t0: its place must equal the frame's.
    var s0 = state
    if (try? s0.step(to: t0)) != nil, let p = place(s0) {
      if abs(p - c0) > 0.5 { return (abs(p - c0), t0, t0) }
      start = s0
      startPlace = p
    }
    for _ in 0..<8 {
      guard hi - lo > 1e-6 else { break }
      var s = start
      var prevT = lo
      var prev = startPlace
      var best: (d: Double, a: Double, b: Double, state: TableAnimator, place: Double?)? = nil
      for k in 1...32 {
        let t = k == 32 ? hi : lo + (hi - lo) * Double(k) / 32
        let keep = s
        guard (try? s.step(to: t)) != nil else { return nil }
        let p = place(s)
        if let p, let q = prev {
          let d = abs(p - q)
          if d > (best?.d ?? -1) { best = (d, prevT, t, keep, q) }
        }
        prevT = t
        // A row out of view has no observable place: never pair samples across the gap.
        prev = p
      }
      guard let b = best else { return nil }
      size = b.d
      if size < 0.5 || size < 0.25 * total || size <= snap { return nil }
      (lo, hi, start, startPlace) = (b.a, b.b, b.state, b.place)
    }
    return size >= 0.5 && size >= 0.25 * total && size > snap ? (size, lo, hi) : nil
  }

  mutating func checkSettled(_ f: AnimatorFrame) -> SoakViolation? {
    guard !settleChecked, animator.isSettled else { return nil }
    settleChecked = true
    stats.settleChecks += 1
    let heights: [Double]? = config.expansion == nil || config.uniformHeight == nil ? model.heights : nil
    var fresh: TableAnimator
    do {
      fresh = try config.makeAnimator(
        rows: (heights, model.rowCount), scrollOffset: f.events.scrollOffset)
      fresh.options = animator.options
      try fresh.step(to: 0)
      for row in expanded.sorted() { try fresh.toggle(row: row, at: 0) }
      // Expanded rows push others into view, which then animate: step until settled.
      var t = 1e6
      repeat {
        try fresh.step(to: t)
        t += 1e6
      } while !fresh.isSettled && t < 1e7
    } catch {
      return violation("settled", "a fresh animator for the same rows failed: \(error)")
    }
    let g = fresh.frame
    let tolerance = 1e-9 * max(model.tops.last ?? 0, abs(f.events.scrollOffset)) + 1e-6
    if f.animating.contains(true) || !f.folds.isEmpty || !f.extraCells.isEmpty {
      return violation("settled", "settled, yet \(f.animating.filter { $0 }.count) rows animate, \(f.folds.count) folds, \(f.extraCells.count) extra cells")
    }
    let common = f.rows.clamped(to: g.rows)
    if abs(f.rows.count - g.rows.count) > 2 || common.count < min(f.rows.count, g.rows.count) - 2 {
      return violation("settled", "visible rows \(f.rows), a fresh animator shows \(g.rows)")
    }
    for row in common {
      let i = row - f.rows.lowerBound, j = row - g.rows.lowerBound
      let dy = abs(f.events.rowPositions[i] - g.events.rowPositions[j])
      let dh = abs(f.events.rowHeights[i] - g.events.rowHeights[j])
      if dy > tolerance || dh > tolerance {
        return violation("settled", "row \(row) at \(f.events.rowPositions[i]) (\(f.events.rowHeights[i]) pt), fresh \(g.events.rowPositions[j]) (\(g.events.rowHeights[j]) pt)")
      }
      if f.behind[i] != g.behind[j] {
        return violation("settled", "row \(row) behind \(f.behind[i]), fresh \(g.behind[j])")
      }
      // With a scroll effect the matrix and opacity are functions of the place, which may
      // differ from the fresh table's within `tolerance`: `checkEffectRows` holds each row
      // to the effect at its own place instead.
      if effect != nil { continue }
      if f.opacity[i] != g.opacity[j] {
        return violation("settled", "row \(row) opacity \(f.opacity[i]), fresh \(g.opacity[j])")
      }
      for k in 0..<floats {
        let a = f.matrices[floats * i + k], b = g.matrices[floats * j + k]
        if abs(a - b) > Float(tolerance) + 1e-6 * max(1, abs(b)) {
          return violation("settled", "row \(row) matrix entry \(k) = \(a), fresh \(b)")
        }
      }
    }
    let open = f.openDetails.filter { common.contains($0.row) }, freshOpen = g.openDetails.filter { common.contains($0.row) }
    if open.count != freshOpen.count
      || zip(open, freshOpen).contains(where: { $0.row != $1.row || abs($0.detailTop - $1.detailTop) > tolerance || $0.height != $1.height })
    {
      return violation("settled", "open details \(open.map(\.row)), fresh \(freshOpen.map(\.row))")
    }
    return nil
  }

  mutating func checkKernel(_ f: AnimatorFrame) -> SoakViolation? {
    let batch = animator.batch
    guard !f.rows.isEmpty else { return nil }
    let scroll = effectScroll(f)
    guard batch.count > 0 else { return checkEffectRows(f, animated: [:], scroll: scroll) }
    let policy = config.motion
    // A row whose appearance restarted (a reload, rules starting over) may keep its older
    // cell until that one ends; the frame draws the newest (the last in the batch), so
    // only that one is checked.
    var drawn: [Int: Int] = [:]
    for c in 0..<batch.count { drawn[batch.row[c]] = c }
    for c in 0..<batch.count {
      let row = batch.row[c]
      guard f.rows.contains(row), drawn[row] == c else { continue }
      if f.events.updateCells.contains(where: { $0.cell.row == row && $0.cell.kind != .reloadedOld }) { continue }
      let slot = row - f.rows.lowerBound
      let compiled = batch.recipes[Int(batch.recipeIndex[c])]
      var recipe = compiled.recipe
      recipe.stagger = .none
      // The kernel's start: the staggered start plus the recipe's shared delay, as a Float
      // from the batch's origin (`CellBatch.start`); the reference takes the start itself.
      let start = batch.timeOrigin + Double(batch.start[c]) - compiled.startShift
      let geometry = CellGeometry(
        width: Double(batch.width[c]), height: Double(batch.height[c]), tableWidth: Double(batch.tableWidth[c]))
      let y = Double(Float(f.events.rowPositions[slot]))
      let alongX = config.axis == .horizontal
      func reference(_ t: Double) -> CellState {
        ReferenceEvaluator.evaluate(
          recipe, geometry: geometry, row: row, batchPosition: batch.batchPosition[c], startTime: start, time: t,
          motion: policy)
      }
      let ref = reference(time)
      let shift = place(y)
      guard let kernel = f.transform(ofRow: row) else { continue }
      // A scroll effect wraps the row's animation (the outer layer), opacities multiply;
      // near a step of its timeline the effect is taken at the row's place +- a rounding
      // of the kernel's Float positions too (`effectStates`).
      let effects = effectStates(f, slot: slot, scroll: scroll)
      let scale = max(geometry.width, geometry.height, geometry.tableWidth)
      func expected(_ state: CellState) -> [(Transform3D, Double)] {
        guard !effects.isEmpty else { return [(state.transform.concatenating(shift), state.opacity)] }
        return effects.map { (state.transform.concatenating($0.transform).concatenating(shift), state.opacity * $0.opacity) }
      }
      let now = expected(ref)
      var e =
        effects.isEmpty
        ? SoakKernelCheck.normalisedError(kernel, now[0].0, scale: scale, translatedBy: y, alongX: alongX)
        : SoakKernelCheck.bracketError(kernel, now.map(\.0), scale: scale, translatedBy: y, alongX: alongX)
      if e > SoakKernelCheck.transformTolerance {
        // Within the Float clock's rounding of the frame time the reference moves too.
        let refs = SoakKernelCheck.window(time, start: start).flatMap { expected(reference($0)).map(\.0) }
        e = min(e, SoakKernelCheck.bracketError(kernel, refs, scale: scale, translatedBy: y, alongX: alongX))
      }
      let o = Double(f.opacity[slot])
      var eo = o.isNaN ? .infinity : max(0, now.map(\.1).min()! - o, o - now.map(\.1).max()!)
      if !(eo <= SoakKernelCheck.opacityTolerance) {
        // Within the Float clock's rounding of the frame time the reference moves too.
        let refs = SoakKernelCheck.window(time, start: start).flatMap { expected(reference($0)).map(\.1) } + now.map(\.1)
        eo = o.isNaN ? .infinity : max(0, refs.min()! - o, o - refs.max()!)
      }
      stats.kernelCells += 1
      stats.worstKernel = worstOf(stats.worstKernel, e)
      stats.worstOpacity = worstOf(stats.worstOpacity, eo)
      if !(e <= SoakKernelCheck.transformTolerance) {
        let cells = (0..<batch.count).filter { batch.row[$0] == row }
        return violation(
          "kernel",
          "row \(row) (\(recipe.name), start \(start), t \(time)): normalised transform error \(e); "
            + "cells of this row \(cells) (this one \(c)), y \(y), offset \(f.events.scrollOffset), kernel \(kernel), reference \(now[0].0)"
            + (effects.isEmpty ? "" : " (scroll effect \(effects[0].transform), opacity \(effects[0].opacity))"))
      }
      if !(eo <= SoakKernelCheck.opacityTolerance) {
        return violation("kernel", "row \(row) (\(recipe.name), t \(time)): opacity \(f.opacity[slot]), reference \(now[0].1)")
      }
    }
    return checkEffectRows(f, animated: drawn, scroll: scroll)
  }

  /// The scroll effect's state for the row drawn at `slot` of `f`, from the place and
  /// height the frame gives it (as Floats, the kernel's inputs) as
  /// `TableAnimator.setScrollEffect` documents, and 1e-3 points either side: the kernel
  /// reads the place as a Float and works in Float, so a steep fade or a step of the
  /// timeline may land anywhere within that span. Empty without an effect.
  func effectStates(_ f: AnimatorFrame, slot: Int, scroll: ScrollState?) -> [ScrollEffectState] {
    guard let effect, let scroll else { return [] }
    let lo = Float(InputLimits.length.lowerBound), hi = Float(InputLimits.length.upperBound)
    let leading = Double(Float(f.events.rowPositions[slot]))
    let extent = Double(min(max(Float(f.events.rowHeights[slot]), lo), hi))
    let offset = f.events.scrollOffset
    var states: [ScrollEffectState] = []
    for nudge in [0, -1e-3, 1e-3] {
      let at = leading + nudge + offset
      let cell =
        config.axis == .horizontal
        ? try? ScrollCell(x: at, width: extent, height: config.cellWidth)
        : try? ScrollCell(y: at, width: config.cellWidth, height: extent)
      guard let cell else { continue }
      states.append(effect.evaluate(cell: cell, scroll: scroll))
    }
    return states
  }

  /// The scroll view the table gives its effect for frame `f` (nil without an effect).
  func effectScroll(_ f: AnimatorFrame) -> ScrollState? {
    guard effect != nil else { return nil }
    if config.axis == .horizontal {
      return try? ScrollState(
        offsetX: f.events.scrollOffset, viewportWidth: config.viewport, viewportHeight: config.tableWidth,
        contentWidth: max(f.events.contentHeight, 0))
    }
    return try? ScrollState(
      offsetY: f.events.scrollOffset, viewportWidth: config.tableWidth, viewportHeight: config.viewport,
      contentHeight: max(f.events.contentHeight, 0))
  }

  /// The move from a row's cell to its place `p` (points along the table's axis): down in
  /// a vertical table, right in a horizontal one (`TableAnimator.axis`).
  func place(_ p: Double) -> Transform3D {
    config.axis == .horizontal ? .translation(p, 0, 0) : .translation(0, p, 0)
  }

  /// With a scroll effect: every drawn row that runs no animation of its own (no kernel
  /// cell, no row animation of a batch update) shows exactly the effect at its place.
  mutating func checkEffectRows(_ f: AnimatorFrame, animated: [Int: Int], scroll: ScrollState?) -> SoakViolation? {
    guard effect != nil else { return nil }
    for (slot, row) in f.rows.enumerated() where animated[row] == nil {
      if f.events.updateCells.contains(where: { $0.cell.row == row }) { continue }
      guard let kernel = f.transform(ofRow: row) else { continue }
      let y = Double(Float(f.events.rowPositions[slot]))
      let shift = place(y)
      let states = effectStates(f, slot: slot, scroll: scroll)
      guard !states.isEmpty else { continue }
      let scale = max(config.cellWidth, f.events.rowHeights[slot], config.tableWidth)
      let e = SoakKernelCheck.bracketError(
        kernel, states.map { $0.transform.concatenating(shift) }, scale: scale, translatedBy: y,
        alongX: config.axis == .horizontal)
      // Opacity within the states' span (a steep fade moves by more than the tolerance
      // within the Float rounding of the row's place).
      let o = Double(f.opacity[slot])
      let opacities = states.map(\.opacity)
      let eo = o.isNaN ? .infinity : max(0, opacities.min()! - o, o - opacities.max()!)
      stats.kernelCells += 1
      stats.worstKernel = worstOf(stats.worstKernel, e)
      stats.worstOpacity = worstOf(stats.worstOpacity, eo)
      if !(e <= SoakKernelCheck.transformTolerance) || !(eo <= SoakKernelCheck.opacityTolerance) {
        return violation(
          "scroll effect",
          "row \(row) (\(config.scrollEffect?.name ?? "")) at y \(y), height \(f.events.rowHeights[slot]), offset \(f.events.scrollOffset): "
            + "normalised transform error \(e), opacity \(o) against \(states.map(\.opacity)); kernel \(kernel), effect \(states[0].transform)")
      }
    }
    return nil
  }
}

/// The kernel's differential tolerances and error measures (as the kernel's tests state
/// them): transform entries normalised by S = max(cell width, cell height, table width)
/// (translation row / S, w column x S), 2e-5; opacity 1e-5 absolute.
public enum SoakKernelCheck {
  /// Normalised transform entries.
  public static let transformTolerance = 2e-5
  /// Opacity, absolute.
  public static let opacityTolerance = 1e-5

  /// Seconds either side of a frame time the kernel's Float clock cannot tell from it.
  public static let clockWindow = 1e-6

  /// The times whose reference values bracket what the kernel may show at `time`: the
  /// clock window around it and, when the cell starts within it, the start itself (where
  /// a fill mode switches the animation on: the values just after it are in no sample
  /// otherwise).
  public static func window(_ time: Double, start: Double) -> [Double] {
    var times = [time - clockWindow, time, time + clockWindow]
    if abs(start - time) <= 2 * clockWindow { times += [start, start.nextUp, start + 1e-9] }
    return times
  }

  /// What the table's Float composition with a translation by `y` points down (right,
  /// `alongX`) may add to entry (i, j) of the composed reference `r`, given the frame's
  /// matrix `k`: the y column (x column) gains m(i,3) * y, rounded to Float twice (the product and the sum), and the kernel's
  /// own error in m(i,3) (checked on its own, within the tolerance) times y. Far from the
  /// viewport (a row sliding in from 1e8 points away) both are larger than the kernel's
  /// tolerance; they are the precision of the frame's Float matrices, not an error of the
  /// kernel. (CI's soak, seed 34, session 6843680812312199990: a perspective row 6.8e6 points
  /// away had m(2,3) within 1.5e-10 of the reference, which y turned into 1e-3 in m(2,1).)
  public static func compositionSlack(
    _ k: Transform3D, _ r: Transform3D, _ i: Int, _ j: Int, translatedBy y: Double, alongX: Bool = false
  ) -> Double {
    let moved = alongX ? 0 : 1
    guard j == moved, y != 0 else { return 0 }
    let carried = abs(k[i, 3] - r[i, 3]) * abs(y)
    return 0x1p-22 * (abs(r[i, moved]) + abs(r[i, 3] * y)) + (carried.isNaN ? 0 : carried)
  }

  /// The worst normalised entry error (beyond `compositionSlack` when the table composed
  /// the kernel's matrix with a translation by `y`); NaN counts as infinite.
  public static func normalisedError(
    _ k: Transform3D, _ r: Transform3D, scale s: Double, translatedBy y: Double = 0, alongX: Bool = false
  ) -> Double {
    var worst = 0.0
    for i in 0..<4 {
      for j in 0..<4 {
        var e = abs(k[i, j] - r[i, j])
        e = e.isNaN ? e : max(0, e - compositionSlack(k, r, i, j, translatedBy: y, alongX: alongX))
        if i == 3 { e /= s }
        if j == 3 { e *= s }
        worst = worstOf(worst, e)
      }
    }
    return worst
  }

  /// The normalised error of `k` against the range each entry of `refs` spans (beyond
  /// `compositionSlack`).
  public static func bracketError(
    _ k: Transform3D, _ refs: [Transform3D], scale s: Double, translatedBy y: Double = 0, alongX: Bool = false
  ) -> Double {
    var worst = 0.0
    for i in 0..<4 {
      for j in 0..<4 {
        let values = refs.map { $0[i, j] }
        let slack = refs.map { compositionSlack(k, $0, i, j, translatedBy: y, alongX: alongX) }.max()!
        var e = k[i, j].isNaN ? .infinity : max(0, values.min()! - k[i, j] - slack, k[i, j] - values.max()! - slack)
        if i == 3 { e /= s }
        if j == 3 { e *= s }
        worst = worstOf(worst, e)
      }
    }
    return worst
  }
}
