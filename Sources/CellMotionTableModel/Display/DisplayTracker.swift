// willDisplay / didEndDisplaying from consecutive visible ranges, and which of them start
// an animation under a display rule, with stagger delays.
//
// Goals, in priority order:
// 1. The display rules of tutorial recipe 8 (the Recipes article of the CellMotion
//    documentation) exactly: animate once, first screenful only,
//    refresh (reload) starts over.
// 2. O(changes) per frame (difference of two ranges), O(n / 64) words of memory for the
//    animate-once bits, no allocation in steady state.

import CellMotion

/// Tracks which rows are displayed, frame by frame, and decides which newly displayed
/// rows start an animation.
///
/// Feed it the visible range of every frame in time order with
/// `update(visibleRange:at:into:)`. The first update (and the first after `reload()`)
/// displays the whole range.
public struct DisplayTracker: Sendable {
  /// Number of rows in the table.
  public private(set) var rowCount: Int
  /// Which displays start an animation.
  public var rule: DisplayRule
  /// Stagger applied to the animations that start in one frame (CellMotion's `Stagger`;
  /// `step` validated finite and >= 0).
  public private(set) var stagger: Stagger
  /// The rows displayed after the last update (empty before the first).
  public private(set) var displayedRange: Range<Int> = 0..<0
  /// Rows displayed at least once since creation or the last reload.
  private var seen: _RowBitset
  /// Rows to report as `didEndDisplaying` at the next update (set by `reload()`).
  private var pendingEnd: Range<Int> = 0..<0
  /// `.firstScreenfulOnly`: whether the first screenful has been animated.
  private var firstScreenfulDone = false
  /// Time of the last update, seconds.
  private var lastTime = -Double.infinity

  /// A tracker for a table of `rowCount` rows.
  ///
  /// - Throws: `CellMotionError.outOfRange` if `rowCount` is outside
  ///   `0...TableLayout.maxRowCount` or `stagger.step` is negative; `.notFinite` if
  ///   `stagger.step` is NaN or infinite.
  /// - Complexity: O(rowCount / 64) time; memory `8 * ceil(rowCount / 64)` bytes
  ///   (125,000 bytes for a million rows).
  public init(rowCount: Int, rule: DisplayRule, stagger: Stagger = .none) throws(CellMotionError) {
    try Check.count(rowCount, max: TableLayout.maxRowCount, "rowCount")
    self.stagger = try stagger._validated("stagger")
    self.rowCount = rowCount
    self.rule = rule
    self.seen = _RowBitset(count: rowCount)
  }

  /// Replaces the stagger, effective from the next update.
  ///
  /// - Throws: `CellMotionError` unless `stagger.step` is finite and >= 0.
  public mutating func setStagger(_ stagger: Stagger) throws(CellMotionError) {
    self.stagger = try stagger._validated("stagger")
  }

  /// Whether `row` has been displayed since creation or the last reload.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row < rowCount`.
  /// - Complexity: O(1).
  public func hasBeenDisplayed(_ row: Int) throws(CellMotionError) -> Bool {
    guard row >= 0, row < rowCount else {
      throw .indexOutOfRange(field: "row", index: row, count: rowCount)
    }
    return seen.contains(row)
  }

  /// Bytes used by the animate-once bitset (test hook).
  package var trackingStorageBytes: Int { seen.storageBytes }

  /// Makes the tracker's bits its own (copied now if another tracker shares them), so the
  /// first update does not copy them (125 KB at a million rows).
  package mutating func ownStorage() { seen.ownStorage() }

  /// Starts over, like `UITableView.reloadData()` after a refresh: forgets which rows
  /// have been displayed and re-arms `.firstScreenfulOnly`. At the next update the rows
  /// displayed now get `didEndDisplaying` and the then-visible rows get `willDisplay`
  /// again (as first appearances), as the table re-creates its cells.
  ///
  /// - Parameter newCount: the new number of rows, or nil to keep it.
  /// - Throws: `CellMotionError.outOfRange` if `rowCount` is outside
  ///   `0...TableLayout.maxRowCount`; the tracker is unchanged.
  /// - Complexity: O(rowCount / 64).
  public mutating func reload(rowCount newCount: Int? = nil) throws(CellMotionError) {
    if let newCount { try Check.count(newCount, max: TableLayout.maxRowCount, "rowCount") }
    pendingEnd = displayedRange
    displayedRange = 0..<0
    firstScreenfulDone = false
    if let newCount { rowCount = newCount }
    seen.removeAll(resizingTo: rowCount)
  }

  /// Follows a batch update: the animate-once bits move with their rows; the displayed
  /// rows become the span of where the displayed rows that keep their order went (a row
  /// moved far away does not stretch it), widened over rows inserted right at its edges;
  /// inserted rows inside that span count as displayed (their row animation shows them, so
  /// they do not also start an appearance), those elsewhere appear when they are scrolled to.
  ///
  /// - Complexity: O(k log k + n / 64) for k changed rows and n rows: the spans from the
  ///   map's ends, the bits moved by runs a word at a time.
  mutating func applyUpdate(_ map: UpdateMap) {
    /// Where the rows of `r` (before) that keep their order went: from the first of them
    /// to the last (rows that keep their order keep it, so no other lies outside), widened
    /// over rows inserted at its edges.
    func span(_ r: Range<Int>) -> Range<Int> {
      guard !r.isEmpty else { return 0..<0 }
      var q = _lowerBound(map.removed, r.lowerBound)
      var first = r.lowerBound
      while q < map.removed.count, map.removed[q] == first {
        q += 1
        first += 1
      }
      guard first < r.upperBound else { return 0..<0 }
      var p = _lowerBound(map.removed, r.upperBound) - 1
      var last = r.upperBound - 1
      while p >= 0, map.removed[p] == last {
        p -= 1
        last -= 1
      }
      // Rows that keep their order are not fixed after the update.
      var lo = map._newIndex(first)!
      var hi = map._newIndex(last)!
      while lo > 0, map._isInserted(lo - 1) { lo -= 1 }
      while hi + 1 < map.newRowCount, map._isInserted(hi + 1) { hi += 1 }
      return lo..<(hi + 1)
    }
    let displayed = span(displayedRange)
    seen.apply(map) { displayed.contains($0) }
    displayedRange = displayed
    pendingEnd = span(pendingEnd)
    rowCount = map.newRowCount
  }

  /// Advances to a frame at `time` seconds whose visible range is `visibleRange`, writing
  /// the frame's events into `events` (cleared first, capacity kept).
  ///
  /// `willDisplay` = new range minus old range and `didEndDisplaying` = old minus new,
  /// both increasing. Each `willDisplay` row starts an animation if the rule allows:
  /// `.always` every one; `.firstAppearanceOnly` those not displayed before;
  /// `.firstScreenfulOnly` all rows of the first non-empty range, then none. Animating
  /// rows get batch positions 0, 1, 2, ... in increasing row order and the stagger delay
  /// of `stagger`.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` if the range is not within
  ///   `0...rowCount`; `.notFinite` for a NaN time; `.invalidCombination` if `time` is
  ///   before the previous update's. On error the tracker is unchanged.
  /// - Complexity: O(number of rows entering or leaving).
  public mutating func update(
    visibleRange: Range<Int>, at time: Double, into events: inout DisplayEvents
  ) throws(CellMotionError) {
    guard visibleRange.lowerBound >= 0, visibleRange.upperBound <= rowCount else {
      let bad = visibleRange.lowerBound < 0 ? visibleRange.lowerBound : visibleRange.upperBound
      throw .indexOutOfRange(field: "visibleRange", index: bad, count: rowCount + 1)
    }
    try Check.time(time, "time")
    guard time >= lastTime else {
      throw .invalidCombination(
        field: "time", reason: "updates must be in time order (\(time) after \(lastTime))")
    }
    lastTime = time
    events.removeAll()

    let old = displayedRange
    let new = visibleRange
    // Rows leaving: rows displayed before a reload, then old minus new (two pieces).
    for row in pendingEnd { events.didEndDisplaying.append(row) }
    pendingEnd = 0..<0
    for row in old.lowerBound..<max(old.lowerBound, min(old.upperBound, new.lowerBound)) {
      events.didEndDisplaying.append(row)
    }
    for row in max(old.lowerBound, new.upperBound)..<max(old.upperBound, new.upperBound) {
      events.didEndDisplaying.append(row)
    }
    // Rows entering: new minus old, in the same two pieces.
    let screenfulArmed = rule == .firstScreenfulOnly && !firstScreenfulDone && !new.isEmpty
    var batchPosition = 0
    let enterAbove = new.lowerBound..<max(new.lowerBound, min(new.upperBound, old.lowerBound))
    let enterBelow = max(new.lowerBound, old.upperBound)..<max(new.upperBound, old.upperBound)
    // Room for them at once (a first frame displays a whole screen: 10,000 rows in the
    // dense session).
    let entering = enterAbove.count + enterBelow.count
    events.willDisplay.reserveCapacity(events.willDisplay.count + entering)
    events.animationStarts.reserveCapacity(events.animationStarts.count + entering)
    // Every entering row is displayed: both pieces at once, then the animations row by row.
    events.willDisplay.append(contentsOf: enterAbove)
    events.willDisplay.append(contentsOf: enterBelow)
    for piece in 0..<2 {
      for row in piece == 0 ? enterAbove : enterBelow {
        let first = seen.insert(row)
        let animates: Bool
        switch rule {
        case .always: animates = true
        case .firstAppearanceOnly: animates = first
        case .firstScreenfulOnly: animates = screenfulArmed
        }
        guard animates else { continue }
        events.animationStarts.append(
          AnimationStart(row: row, startTime: time, delay: 0, appearance: first ? .first : .repeat, batchPosition: batchPosition))
        batchPosition += 1
      }
    }
    // The batch is complete: its size, then each delay (a stagger from the last or the
    // centre of the batch needs the size).
    let staggered = stagger.step != 0
    events.animationStarts.withUnsafeMutableBufferPointer { starts in
      for k in starts.indices {
        starts[k].batchCount = batchPosition
        // Without a stagger every delay is 0 (`Stagger.delay`), so none is worked out.
        starts[k].delay =
          staggered
          ? ReferenceEvaluator.staggerDelay(
            stagger, row: starts[k].row, batchPosition: starts[k].batchPosition, rowCount: rowCount,
            batchCount: batchPosition) : 0
      }
    }
    if screenfulArmed { firstScreenfulDone = true }
    displayedRange = new
  }

  /// Convenience form of `update(visibleRange:at:into:)` returning fresh events (allocates).
  ///
  /// - Throws: as `update(visibleRange:at:into:)`.
  /// - Complexity: O(number of rows entering or leaving).
  public mutating func update(visibleRange: Range<Int>, at time: Double) throws(CellMotionError)
    -> DisplayEvents
  {
    var events = DisplayEvents()
    try update(visibleRange: visibleRange, at: time, into: &events)
    return events
  }
}
