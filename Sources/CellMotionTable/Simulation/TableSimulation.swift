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
  /// Row layout with collapsed heights, points.
  public private(set) var layout: TableLayout
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
  /// - Throws: `CellMotionError` for a viewport height outside `InputLimits.length`, an
  ///   overscan outside 0 ... 1e6, a layout row shorter than 1e-3 points (zero included),
  ///   a stagger step outside `InputLimits.delay`, or an expansion state whose row count
  ///   differs (`.invalidCombination`).
  public init(
    layout: TableLayout, viewportHeight: Double, scroll: ScrollTrajectory,
    rule: DisplayRule, stagger: Stagger = .none, expansion: ExpansionState? = nil,
    overscan: Double = 0
  ) throws(CellMotionError) {
    try Check.length(viewportHeight, "viewportHeight")
    if let (row, h) = layout.firstRow(shorterThan: InputLimits.length.lowerBound) {
      // Refused here rather than when the row first appears (its cell could not animate).
      throw .outOfRange(
        field: "layout.rowHeights[\(row)]", value: h,
        expected: "in [\(InputLimits.length.lowerBound), \(InputLimits.length.upperBound)] for a simulated table")
    }
    try Check.within(overscan, 0...InputLimits.length.upperBound, "overscan")
    if let expansion, expansion.rowCount != layout.rowCount {
      throw .invalidCombination(
        field: "expansion",
        reason: "expansion state has \(expansion.rowCount) rows, layout has \(layout.rowCount)")
    }
    self.layout = layout
    self.viewportHeight = viewportHeight
    self.overscan = overscan
    self.scroll = scroll
    self.display = try DisplayTracker(rowCount: layout.rowCount, rule: rule, stagger: stagger)
    self.expansion = expansion
    self.snapshot = LayoutSnapshot(layout)
  }

  /// Advances to `time` seconds and writes the frame into `events` (cleared first,
  /// capacity kept: no allocation in steady state when `events` is reused).
  ///
  /// - Throws: `CellMotionError.notFinite` for a NaN time; `.invalidCombination` if
  ///   `time` is before the previous step. On error the simulation is unchanged.
  /// - Complexity: O(log n · log k + v + c + k) for n rows, k rows with an expand plan,
  ///   v visible rows and c rows entering or leaving.
  public mutating func step(to time: Double, into events: inout FrameEvents) throws(CellMotionError)
  {
    try Check.time(time, "time")
    guard time >= lastTime else {
      throw .invalidCombination(
        field: "time", reason: "steps must be in time order (\(time) after \(lastTime))")
    }
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
    let range = snapshot._visibleRows(lower: band.lower, upper: band.upper)
    try display.update(visibleRange: range, at: time, into: &events.display)
    lastTime = time

    events.time = time
    events.scrollOffset = offset
    events.contentHeight = snapshot.contentHeight
    events.visibleRange = range
    events.rowPositions.removeAll(keepingCapacity: true)
    events.rowHeights.removeAll(keepingCapacity: true)
    events.folds.removeAll(keepingCapacity: true)
    if !range.isEmpty {
      var top = snapshot._top(range.lowerBound)
      for row in range {
        let bottom = snapshot._top(row + 1)
        events.rowPositions.append(top - offset)
        events.rowHeights.append(bottom - top)
        top = bottom
      }
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
    try layout.setHeight(row: row, height: height)
  }
}
