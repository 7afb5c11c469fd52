// Where every row goes in a batch update: the index map between the rows before and after,
// stored sparsely (O(k) for k changed rows, whatever the table's size).
//
// Model: the rows before the update that leave their place (deleted or moved) are
// "removed"; the rows after it whose place the batch names (inserted or moved to) are
// "fixed". Every other row keeps its order: the r-th row before that is not removed is the
// r-th row after that is not fixed. Both directions of the map are two binary searches.

import CellMotion

/// The index map of an applied batch update: for each row before it, where it is after it
/// (or that it was deleted), and back.
///
/// - Complexity: memory O(k) for k deleted, inserted and moved rows; each lookup
///   O(log k).
public struct UpdateMap: Sendable, Equatable {
  /// Rows before the update.
  public let oldRowCount: Int
  /// Rows after the update.
  public let newRowCount: Int
  /// Rows before the update that leave their place (deleted or moved), increasing.
  let removed: [Int]
  /// For each of `removed`: its index after the update (moved), or -1 (deleted).
  let removedTo: [Int]
  /// Rows after the update whose place the batch names (inserted or moved to), increasing.
  let fixed: [Int]
  /// For each of `fixed`: its index before the update (moved), or -1 (inserted).
  let fixedFrom: [Int]

  init(oldRowCount: Int, newRowCount: Int, removed: [Int], removedTo: [Int], fixed: [Int], fixedFrom: [Int]) {
    self.oldRowCount = oldRowCount
    self.newRowCount = newRowCount
    self.removed = removed
    self.removedTo = removedTo
    self.fixed = fixed
    self.fixedFrom = fixedFrom
  }

  /// The map of a batch that changes no row's place.
  static func identity(rowCount: Int) -> UpdateMap {
    UpdateMap(oldRowCount: rowCount, newRowCount: rowCount, removed: [], removedTo: [], fixed: [], fixedFrom: [])
  }

  /// Where the row at `oldIndex` (before the update) is after it; nil if it was deleted.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= oldIndex < oldRowCount`.
  public func newIndex(ofOldRow oldIndex: Int) throws(CellMotionError) -> Int? {
    guard oldIndex >= 0, oldIndex < oldRowCount else {
      throw .indexOutOfRange(field: "oldIndex", index: oldIndex, count: oldRowCount)
    }
    return _newIndex(oldIndex)
  }

  /// Where the row at `newIndex` (after the update) was before it; nil if it was inserted.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= newIndex < newRowCount`.
  public func oldIndex(ofNewRow newIndex: Int) throws(CellMotionError) -> Int? {
    guard newIndex >= 0, newIndex < newRowCount else {
      throw .indexOutOfRange(field: "newIndex", index: newIndex, count: newRowCount)
    }
    return _oldIndex(newIndex)
  }

  /// The position in `fixed` of the row at `newIndex` after the update, or nil when the
  /// batch did not name that place (unchecked: `0 <= newIndex < newRowCount`).
  func _fixedSlot(_ newIndex: Int) -> Int? {
    let j = _lowerBound(fixed, newIndex)
    return j < fixed.count && fixed[j] == newIndex ? j : nil
  }

  /// Whether the row at `newIndex` after the update was moved or inserted there (unchecked).
  func _isFixed(_ newIndex: Int) -> Bool { _fixedSlot(newIndex) != nil }

  /// Whether the row at `newIndex` after the update was inserted by the batch (unchecked).
  func _isInserted(_ newIndex: Int) -> Bool { _fixedSlot(newIndex).map { fixedFrom[$0] < 0 } ?? false }

  /// Unchecked `newIndex(ofOldRow:)`.
  package func _newIndex(_ o: Int) -> Int? {
    let q = _lowerBound(removed, o)
    if q < removed.count, removed[q] == o { return removedTo[q] < 0 ? nil : removedTo[q] }
    // o is the r-th row that stays in order; it becomes the r-th row that is not fixed.
    let r = o - q
    return r + Self.countShifted(fixed, atMost: r)
  }

  /// Where `_newIndex` left off, for rows asked for in increasing order.
  package struct Cursor {
    /// Removed rows before the last row asked for.
    var q = 0
    /// Fixed rows counted for it.
    var j = 0
    package init() {}
  }

  /// `_newIndex(o)` for increasing `o` from one caller (`cursor` starts as `Cursor()`):
  /// O(1) amortised, the two searches replaced by cursors that only move forward (a row's
  /// rank among the rows that keep their order never decreases as the row does not).
  package func _newIndex(_ o: Int, cursor: inout Cursor) -> Int? {
    var q = cursor.q
    while q < removed.count, removed[q] < o { q += 1 }
    cursor.q = q
    if q < removed.count, removed[q] == o { return removedTo[q] < 0 ? nil : removedTo[q] }
    let r = o - q
    var j = cursor.j
    while j < fixed.count, fixed[j] - j <= r { j += 1 }
    cursor.j = j
    return r + j
  }

  /// Unchecked `oldIndex(ofNewRow:)`.
  func _oldIndex(_ n: Int) -> Int? {
    let j = _lowerBound(fixed, n)
    if j < fixed.count, fixed[j] == n { return fixedFrom[j] < 0 ? nil : fixedFrom[j] }
    // n is the r-th row that is not fixed; it was the r-th row that stays in order.
    let r = n - j
    return r + Self.countShifted(removed, atMost: r)
  }

  /// The number of entries `a[q]` (strictly increasing) with `a[q] - q <= r`: how many of
  /// them come before the r-th index not in `a`.
  @inline(__always)
  static func countShifted(_ a: [Int], atMost r: Int) -> Int {
    a.withUnsafeBufferPointer { p in _partitionPoint(p.count) { p[$0] - $0 > r } }
  }

  /// Calls `run(oldStart, count)` for each maximal run of rows that keep their order and
  /// `fixedRow(j)` for the map's j-th fixed row, in order of the rows after the update.
  ///
  /// - Complexity: O(k) calls for k changed rows.
  func walkRuns(run: (_ oldStart: Int, _ count: Int) -> Void, fixed fixedRow: (Int) -> Void) {
    walkRuns(from: _MapPosition(), to: newRowCount, run: run, fixed: fixedRow)
  }

  /// `walkRuns(run:fixed:)` for the rows after the update from `start` (the position of a
  /// row that keeps its order, `position(ofKeptRow:)`, or the first row) to `end`
  /// (exclusive): a run that crosses `end` is cut there.
  func walkRuns(
    from start: _MapPosition, to end: Int, run: (_ oldStart: Int, _ count: Int) -> Void,
    fixed fixedRow: (Int) -> Void
  ) {
    var o = start.old
    var q = start.removed
    var j = start.fixed
    var n = start.new
    while n < end {
      if j < fixed.count, fixed[j] == n {
        fixedRow(j)
        j += 1
        n += 1
        continue
      }
      while q < removed.count, removed[q] == o {
        q += 1
        o += 1
      }
      // Both bounds are >= 1: the next fixed row is after n, the next removed row after o.
      let count = min(
        j < fixed.count ? fixed[j] - n : newRowCount - n, q < removed.count ? removed[q] - o : oldRowCount - o, end - n)
      run(o, count)
      n += count
      o += count
    }
  }

  /// Where a walk of the map stands at `oldRow`, a row before the update that keeps its
  /// place in order (not removed; unchecked).
  func position(ofKeptRow oldRow: Int) -> _MapPosition {
    let q = _lowerBound(removed, oldRow)
    let r = oldRow - q
    let j = Self.countShifted(fixed, atMost: r)
    return _MapPosition(old: oldRow, removed: q, fixed: j, new: r + j)
  }

  /// Whether the row at `p` (one the update keeps in order) continues the run of the row
  /// before it: that row is kept too and lands just before it (no fixed row between).
  func continuesRun(_ p: _MapPosition) -> Bool {
    p.old > 0 && p.new > 0 && (p.removed == 0 || removed[p.removed - 1] != p.old - 1)
      && (p.fixed == 0 || fixed[p.fixed - 1] != p.new - 1)
  }
}

/// A place in a walk of an `UpdateMap` (`walkRuns(from:to:run:fixed:)`): at old row `old`
/// and new row `new`, with `removed` removed rows before `old` and `fixed` fixed rows
/// before `new`.
struct _MapPosition: Sendable {
  var old = 0
  var removed = 0
  var fixed = 0
  var new = 0
}

/// First index of a sorted array whose element is >= `x`.
@inline(__always)
func _lowerBound(_ a: [Int], _ x: Int) -> Int {
  a.withUnsafeBufferPointer { p in _partitionPoint(p.count) { p[$0] >= x } }
}
