// The table side of the frame stepper: layout + viewport + scroll + display rules +
// expand/collapse, advanced frame by frame.
//
// Goals, in priority order:
// 1. Each frame is a pure function of the inputs and the history of visible ranges and
//    toggles: scroll offsets and animated heights are closed forms of time.
// 2. Allocation-light: the layout snapshot and the caller's `FrameEvents` are reused;
//    per-frame work is O(log n + visible rows + changes + k animating rows).

import CellMotion

/// A headless table view advanced frame by frame.
///
/// Per frame (`step(to:into:)`): the animated layout at `time` (base heights plus
/// expand/collapse deltas), the scroll offset, the visible range, display events and
/// animation starts under the display rule, the viewport y and height of every visible
/// row, and the fold animations running on visible rows.
public struct TableSimulation: Sendable {
  /// The rows: collapsed heights (points) and identifiers.
  public private(set) var rows: TableRows
  /// Row layout with collapsed heights, points.
  public var layout: TableLayout { rows.layout }
  /// Viewport height in points, > 0.
  public let viewportHeight: Double
  /// Extra points above and below the viewport that count as visible, >= 0.
  public let overscan: Double
  /// The scroll offset over time. Replace it at any time (e.g. a new fling from the
  /// current offset); it is an already-validated value.
  public var scroll: ScrollTrajectory
  /// Display tracking and rules.
  public private(set) var display: DisplayTracker
  /// Expand/collapse state (nil: rows never expand).
  public private(set) var expansion: ExpansionState?
  /// Time of the last step in seconds (-infinity before the first).
  public private(set) var lastTime = -Double.infinity
  /// The animated layout of the last step; reused across frames.
  public private(set) var snapshot: LayoutSnapshot
  /// The batch updates in flight (`performBatchUpdates`): slides and row animations.
  public private(set) var updates: UpdateAnimations
  /// Scratch: the update cells near the band this frame (positions in `updates.cells`).
  var updateHits: [Int] = []
  /// Threads a batch update may use, 1 or 2. With 2, a large batch (`TableRows.apply`'s
  /// `threads`: 1,024 changed rows or more on 262,144 rows or more) builds its heights in
  /// two parts at once, then its identifiers while its slides are worked out. The same
  /// rows, animations and frames either way. Default 1: the calling thread only.
  public var updateThreads = 1

  /// A simulation of a table with `layout` in a viewport `viewportHeight` points tall.
  ///
  /// - Parameters:
  ///   - layout: collapsed row heights, points.
  ///   - viewportHeight: points, > 0.
  ///   - scroll: the scroll offset over time (e.g. a fling limited to
  ///     `layout.scrollRange(viewportHeight:)`).
  ///   - rule: which displays animate.
  ///   - stagger: delays of animations starting in the same frame (CellMotion's `Stagger`,
  ///     e.g. the recipe's).
  ///   - expansion: expand/collapse state with the same row count, or nil.
  ///   - overscan: points added above and below the viewport, >= 0.
  ///   - updateRecipes: how batch updates animate (`performBatchUpdates`): their timing
  ///     and the recipe of each row animation style.
  /// - Throws: `CellMotionError` for a viewport height outside `InputLimits.length`, an
  ///   overscan outside 0 ... 1e6, a layout row shorter than 1e-3 points (zero included),
  ///   a stagger step outside `InputLimits.delay`, an expansion state whose row count
  ///   differs or a custom row animation recipe that folds (`.invalidCombination`), or a
  ///   viewport that would show more than `maxVisibleRows` rows (`.outOfRange`).
  public init(
    layout: TableLayout, viewportHeight: Double, scroll: ScrollTrajectory,
    rule: DisplayRule, stagger: Stagger = .none, expansion: ExpansionState? = nil,
    overscan: Double = 0, updateRecipes: RowAnimationRecipes = RowAnimationRecipes()
  ) throws(CellMotionError) {
    try Check.length(viewportHeight, "viewportHeight")
    if let (row, h) = layout.firstRow(shorterThan: InputLimits.length.lowerBound) {
      // Refused here rather than when the row first appears (its cell could not animate).
      throw .outOfRange(
        field: "layout.rowHeights[\(row)]", value: h,
        expected: "in [\(InputLimits.length.lowerBound), \(InputLimits.length.upperBound)] for a simulated table")
    }
    try Check.within(overscan, 0...InputLimits.length.upperBound, "overscan")
    try Self.checkVisibleRows(layout, band: viewportHeight + 2 * overscan, field: "viewportHeight")
    if let expansion, expansion.rowCount != layout.rowCount {
      throw .invalidCombination(
        field: "expansion",
        reason: "expansion state has \(expansion.rowCount) rows, layout has \(layout.rowCount)")
    }
    try updateRecipes.timing.validate()
    for (key, recipe) in updateRecipes.custom {
      let field = "updateRecipes.custom[\(key.style.rawValue), \(key.change.rawValue)]"
      do { try recipe.validate() } catch {
        throw .invalidCombination(field: field, reason: "\(error)")
      }
      // Refused here rather than at every frame of a batch update: a row animation's
      // cell is the row itself, with no detail to fold (the animator's update output has
      // no fold halves).
      if recipe.fold != nil {
        throw .invalidCombination(field: field, reason: "recipe \(recipe.name) folds; a row animation cannot fold")
      }
    }
    self.rows = TableRows(layout: layout)
    self.updates = UpdateAnimations(recipes: updateRecipes)
    self.viewportHeight = viewportHeight
    self.overscan = overscan
    self.scroll = scroll
    self.display = try DisplayTracker(rowCount: layout.rowCount, rule: rule, stagger: stagger)
    self.expansion = expansion
    self.snapshot = LayoutSnapshot(layout)
  }

  /// Advances to `time` seconds and writes the frame into `events` (cleared first,
  /// capacity kept: no allocation in steady state when `events` is reused). At most
  /// `maxVisibleRows` rows are visible (the first ones of the band, should animated rows
  /// drawn 0 points tall let it meet more).
  ///
  /// - Throws: `CellMotionError.notFinite` for a NaN time; `.invalidCombination` if
  ///   `time` is before the previous step. On error the simulation is unchanged.
  /// - Complexity: O(log² n + log n · log k + v + c + k) for n rows, k rows with an
  ///   expand plan, v visible rows and c rows entering or leaving; with batch updates in
  ///   flight O(p log n + m log m) more for the p pieces of one shift the rows near the band
  ///   fall into and the m row animations near it. No allocation in steady state.
  public mutating func step(to time: Double, into events: inout FrameEvents) throws(CellMotionError)
  {
    try checkTimeOrder(time)
    let offset = scroll.offset(at: time)
    let band = try _visibleBand(
      scrollOffset: offset, viewportHeight: viewportHeight, overscan: overscan)
    // Nothing below can fail: the time is finite and in order, row counts agree.
    if expansion != nil {
      expansion!.removeSettled(at: time)
      try expansion!.updateSnapshot(&snapshot, of: layout, at: time)
    } else {
      snapshot._reset(base: layout)
    }
    updates.removeFinished(at: time)
    let sliding = updates.isActive
    var range = Self.capped(snapshot._visibleRowsFast(lower: band.lower, upper: band.upper))
    // With updates in flight rows are drawn shifted: the candidates lie within the bound of
    // any shift around the band, cut into pieces of one shift each; the drawn rows are
    // those whose shifted place meets it (rows of a piece keep their order, so a binary
    // search per piece finds them).
    var candidates = range
    if sliding {
      updates.prepareFrame(at: time)
      let b = updates.bound
      candidates = snapshot._visibleRowsFast(lower: band.lower - b, upper: band.upper + b)
      updates.cut(candidates)
      // The pieces are disjoint and in row order: the first drawn row is in the first
      // piece that meets the band, the last in the last one. The pieces between them are
      // not searched (a frame has dozens of pieces and only the ends matter).
      var first = Int.max
      var last = Int.min
      updates.pieces.withUnsafeBufferPointer { pieces in
        @inline(__always) func meeting(_ k: Int) -> Range<Int> {
          layout._meeting(
            pieces[k].rows, shift: pieces[k].top, heightShift: pieces[k].height, lower: band.lower, upper: band.upper)
        }
        var i = 0
        while i < pieces.count {
          let m = meeting(i)
          if !m.isEmpty {
            first = m.lowerBound
            last = m.upperBound
            break
          }
          i += 1
        }
        var j = pieces.count - 1
        while j > i {
          let m = meeting(j)
          if !m.isEmpty {
            last = m.upperBound
            break
          }
          j -= 1
        }
      }
      range = Self.capped(
        first > last ? candidates.lowerBound..<candidates.lowerBound : first..<last)
    }
    try display.update(visibleRange: range, at: time, into: &events.display)
    lastTime = time

    events.time = time
    events.scrollOffset = offset
    events.contentHeight = snapshot.contentHeight
    events.visibleRange = range
    Self.resize(&events.rowPositions, to: range.count)
    Self.resize(&events.rowHeights, to: range.count)
    events.folds.removeAll(keepingCapacity: true)
    events.rowPositions.withUnsafeMutableBufferPointer { positions in
      events.rowHeights.withUnsafeMutableBufferPointer { heights in
        guard let p = positions.baseAddress, let h = heights.baseAddress else { return }
        if sliding {
          // Each piece's rows at their place plus its shift, height plus its height shift
          // (stopped at 0).
          for piece in updates.pieces {
            let rows = piece.rows.clamped(to: range)
            guard !rows.isEmpty else { continue }
            let k = rows.lowerBound - range.lowerBound
            layout._fill(rows, shift: piece.top, heightShift: piece.height, minus: offset, tops: p + k, heights: h + k)
          }
        } else {
          // Each row's own height, not the difference of two offsets: that difference rounds
          // (a row of 1e-3 points at offset 1 came out 0.9999999999999992e-3).
          snapshot._fill(range, minus: offset, tops: p, heights: h)
        }
      }
    }
    events.updateCells.removeAll(keepingCapacity: true)
    events.movingRows.removeAll(keepingCapacity: true)
    if sliding {
      collectUpdateCells(range: range, candidates: candidates, band: band, offset: offset, time: time, into: &events)
    }
    if let expansion {
      // Folding rows have fraction 1, so they are among the snapshot's animated rows.
      for row in snapshot.deltaRows where range.contains(row) {
        if let fold = try expansion.foldAnimation(row: row, at: time) {
          events.folds.append((row: row, fold: fold))
        }
      }
    }
  }

  /// Sets `a`'s count to `n`, keeping its capacity (no allocation within it); new
  /// elements are 0.
  @inline(__always)
  static func resize<T: Numeric>(_ a: inout [T], to n: Int) {
    if a.count > n {
      a.removeLast(a.count - n)
    } else if a.count < n {
      a.append(contentsOf: repeatElement(0, count: n - a.count))
    }
  }

  /// Most rows one frame shows: 100,000 (the CLI's cap on visible cells too). A frame
  /// costs memory and time per visible row (the animator keeps 16 Floats of matrix and a
  /// few more numbers for each), so a viewport of 1e6 points over rows of 0.02 points (5e7
  /// rows, gigabytes per frame) is refused up front: `init` and `performBatchUpdates`
  /// throw `.outOfRange` when (viewport height + 2 x overscan) / the shortest row + 2 (the
  /// most rows such a band can meet), capped at the row count, exceeds it. Rows drawn
  /// shorter than their layout height for a moment (an overshooting height animation
  /// holds a row at 0 points) can let a band meet more; `step` then reports the first
  /// `maxVisibleRows` of them.
  public static let maxVisibleRows = 100_000

  /// The first `maxVisibleRows` rows of `range`.
  @inline(__always)
  static func capped(_ range: Range<Int>) -> Range<Int> {
    range.count <= maxVisibleRows ? range : range.lowerBound..<(range.lowerBound + maxVisibleRows)
  }

  /// Throws `.outOfRange` naming `field` when a band of `band` points over `layout` could
  /// meet more than `maxVisibleRows` rows (see there).
  /// - Complexity: O(1) (`TableLayout.minimumRowHeight`).
  static func checkVisibleRows(_ layout: TableLayout, band: Double, field: String) throws(CellMotionError) {
    guard let shortest = layout.minimumRowHeight else { return }
    let most = min(Double(layout.rowCount), band / shortest + 2)
    guard most <= Double(maxVisibleRows) else {
      throw .outOfRange(
        field: field, value: band,
        expected: "small enough to show at most \(maxVisibleRows) rows (viewport height + 2 x overscan "
          + "<= \(maxVisibleRows - 2) x the shortest row, \(shortest) points)")
    }
  }

  /// Throws unless `time` is a valid time no earlier than the last step or batch.
  package func checkTimeOrder(_ time: Double) throws(CellMotionError) {
    try Check.time(time, "time")
    guard time >= lastTime else {
      throw .invalidCombination(
        field: "time", reason: "steps and batch updates must be in time order (\(time) after \(lastTime))")
    }
  }

  /// The height a row is drawn with: `height` (points: its layout height plus the shifts
  /// of the slides in flight) stopped at 0. An update curve that overshoots (a Bezier with
  /// y beyond 1, an under-damped spring) takes a shrinking row past its new height for a
  /// moment; UIKit never shows a negative frame, so neither does the simulation.
  @inline(__always)
  static func drawn(_ height: Double) -> Double { max(0, height) }

  /// Whether a row drawn at `top` with `height` (content points) meets the band, by the
  /// visible-range rule (`TableLayout.visibleRange`).
  @inline(__always)
  static func meets(top: Double, height: Double, _ band: (lower: Double, upper: Double)) -> Bool {
    top < band.upper && (top + height > band.lower || top >= band.lower)
  }

  /// The row animations and the moved rows drawn this frame: the cells near the rows that
  /// can meet the band (`UpdateAnimations.cells(near:lower:upper:into:)`), in the order
  /// they started, and the moved rows.
  ///
  /// - Complexity: O(log c + m log m) for m cells near the band, plus O(movers).
  mutating func collectUpdateCells(
    range: Range<Int>, candidates: Range<Int>, band: (lower: Double, upper: Double), offset: Double, time: Double,
    into events: inout FrameEvents
  ) {
    let b = updates.bound
    // Where a row of the table is drawn (content points); nil when it cannot meet the band.
    func place(_ row: Int, tracked: Bool) -> (top: Double, height: Double)? {
      if range.contains(row) {
        let k = row - range.lowerBound
        return (events.rowPositions[k] + offset, events.rowHeights[k])
      }
      let top = snapshot._top(row)
      let height = snapshot._height(row)
      // Rows that keep their order are drawn within `b` of their place; moved ones anywhere.
      if !tracked, top - b >= band.upper || top + height + b <= band.lower { return nil }
      let s = updates.shift(ofRow: row, at: time)
      return (top + s.top, Self.drawn(height + s.height))
    }
    updates.cells(near: candidates, lower: band.lower, upper: band.upper, into: &updateHits)
    for i in updateHits {
      let c = updates.cells[i]
      let g: (top: Double, height: Double)
      if let row = c.row {
        guard let p = place(row, tracked: false) else { continue }
        g = p
      } else {
        let frozen = updates.frozenGeometry(c)
        g = (frozen.top, Self.drawn(frozen.height))
      }
      guard Self.meets(top: g.top, height: g.height, band) else { continue }
      events.updateCells.append(UpdateCellFrame(cell: c, y: g.top - offset, height: g.height))
    }
    for m in updates.movers where !range.contains(m.row) {
      guard !events.movingRows.contains(where: { $0.row == m.row }), let g = place(m.row, tracked: true),
        Self.meets(top: g.top, height: g.height, band)
      else { continue }
      events.movingRows.append((row: m.row, y: g.top - offset, height: g.height))
    }
  }

  /// Convenience form of `step(to:into:)` returning a fresh `FrameEvents` (allocates).
  ///
  /// - Throws: as `step(to:into:)`.
  public mutating func step(to time: Double) throws(CellMotionError) -> FrameEvents {
    var events = FrameEvents()
    try step(to: time, into: &events)
    return events
  }

  /// Toggles `row`'s expansion at `time` seconds (see `ExpansionState.toggle(row:at:)`).
  ///
  /// - Returns: whether the row is now expanded.
  /// - Throws: `.invalidCombination` if the simulation has no expansion state; otherwise
  ///   as `ExpansionState.toggle(row:at:)`.
  @discardableResult
  public mutating func toggle(row: Int, at time: Double) throws(CellMotionError) -> Bool {
    guard expansion != nil else {
      throw .invalidCombination(field: "toggle", reason: "the simulation has no expansion state")
    }
    return try expansion!.toggle(row: row, at: time)
  }

  /// Makes the storage that every step writes this simulation's own: a simulation copied
  /// from another (`TableAnimator(simulation:)` keeps a copy of the caller's) shares it
  /// until the first write, which then copies it inside a frame.
  package mutating func ownStorage() { display.ownStorage() }

  /// Refresh: starts the display rules over (`DisplayTracker.reload()`); at the next step
  /// the visible rows are displayed again as first appearances.
  ///
  /// - Complexity: O(n / 64).
  public mutating func reload() {
    // Keeping the row count cannot fail.
    try? display.reload()
  }

  /// Sets the collapsed height of `row` in points (see `TableLayout.setHeight(row:height:)`),
  /// effective from the next step, without animation.
  ///
  /// - Throws: as `TableLayout.setHeight(row:height:)`, and `.outOfRange` for a height
  ///   outside `InputLimits.length` (a simulated row must be displayable).
  /// - Complexity: O(n - row).
  public mutating func setHeight(row: Int, height: Double) throws(CellMotionError) {
    try Check.length(height, "height")
    try rows.setHeight(row: row, height: height)
  }

  /// Applies a batch update at `time` seconds, as `UITableView.performBatchUpdates` does,
  /// and starts its animations: every row slides from where it is drawn to its new place
  /// (rows already sliding from an earlier batch add the new slide to theirs, so position
  /// stays continuous), inserted, deleted and reloaded rows run their row animation
  /// (`RowAnimationRecipes`), with the timing of `updates.recipes.timing` (UIKit's at once,
  /// or RecyclerView's phases).
  ///
  /// Rows off screen before the update that it brings into view slide in from where they
  /// were; rows it takes out of view slide out, and are drawn until they have left.
  ///
  /// - Parameters:
  ///   - update: the batch (indexes as `RowUpdate` says).
  ///   - time: seconds, not before the last step.
  ///   - expectedRowCount: the row count the caller's data has after the update, or nil.
  /// - Returns: what the batch did.
  /// - Throws: as `TableRows.apply`; `.invalidCombination` for a time before the last
  ///   step or batch, or a simulation with an expansion state (not supported with updates
  ///   yet); `.outOfRange` when the rows after it are so short that the viewport could show
  ///   more than `maxVisibleRows` of them, or `updateThreads` outside 1...2. On error the
  ///   simulation is unchanged. Steps after it must not go back before `time`.
  /// - Complexity: O(k log k + k x leaf + L + n / 64 + c) for k changes, n rows in L leaves
  ///   of 64-128 rows and c row animations in flight (`TableRows.apply`,
  ///   `DisplayTracker`'s bits moved a word at a time).
  @discardableResult
  public mutating func performBatchUpdates(
    _ update: RowUpdate, at time: Double, expectedRowCount: Int? = nil
  ) throws(CellMotionError) -> AppliedUpdate {
    try checkTimeOrder(time)
    try TableRows.checkThreads(updateThreads, field: "updateThreads")
    guard expansion == nil else {
      throw .invalidCombination(field: "update", reason: "batch updates of a table with expanding rows are not supported yet")
    }
    let band = viewportHeight + 2 * overscan
    let prepared = try rows.prepare(
      update, expectedRowCount: expectedRowCount, minimumHeight: InputLimits.length.lowerBound, threads: updateThreads,
      checkingAfter: { after throws(CellMotionError) in try Self.checkVisibleRows(after, band: band, field: "update") })
    var recycle = rows.takeIdentifierRecycle()
    var ids: RowIdentifiers? = nil
    // The batch's slides, when worked out beside the identifiers (else `record` does).
    var batch: ActiveBatch? = nil
    if updateThreads == 2, TableRows.worthTwoThreads(prepared.map, overrides: prepared.changedHeights.count) {
      // The identifiers rebuild on one thread while the batch's slides are worked out and
      // the display bits moved on the other: each needs only the prepared batch.
      let clock = updates.slideClock(at: time)
      _bothAtOnce(
        { ids = TableRows.identifiers(after: prepared, threads: 1, recycle: &recycle) },
        {
          batch = ActiveBatch(
            map: prepared.map, before: prepared.before, after: prepared.after,
            changedHeights: prepared.changedHeights, places: prepared.places, clock: clock)
          display.applyUpdate(prepared.map)
        })
    } else {
      ids = TableRows.identifiers(after: prepared, threads: 1, recycle: &recycle)
      display.applyUpdate(prepared.map)
    }
    let applied = rows.complete(prepared, ids: ids!, recycle: recycle)
    updates.removeFinished(at: time)
    updates.record(applied, at: time, batch: batch)
    lastTime = time
    return applied
  }
}
