// A layout at one instant of an animation: the base layout plus sparse height deltas.
//
// Goals, in priority order:
// 1. Rows below an animating row move with it: offsets include every animated delta above.
// 2. O(k) to build per frame for k animating rows, never O(n): the base prefix sums are
//    shared, the deltas are kept sorted with their own prefix sums.
// 3. The same query API and visible-range semantics as `TableLayout`.

import CellMotion

/// A read-only layout equal to a base `TableLayout` with some rows' heights changed by
/// a delta (in points, finite, never below minus the row's base height, so every height
/// is >= 0), as produced by `ExpansionState.snapshot(of:at:)` at one instant. A delta is
/// usually >= 0 (a detail showing); an under-damped spring makes it negative for a moment
/// (the row overshoots its collapsed height, down to 0), and a row with its detail can be
/// taller than `TableLayout.rowHeightRange` allows a base row.
///
/// `rowOffset(i)` = base offset of `i` + the sum of the deltas of rows above `i`. The
/// deltas are added after the base prefix sum, so offsets agree with a layout built from
/// the combined heights up to rounding (relative 1e-15 per row above), not bitwise; use
/// `materialized()` for the sequential form.
public struct LayoutSnapshot: Sendable, _RowGeometry {
  /// The layout without animated deltas.
  public private(set) var base: TableLayout
  /// Rows with a delta, strictly increasing.
  private(set) var deltaRows: [Int]
  /// The delta of `deltaRows[j]`, in points.
  private(set) var deltas: [Double]
  /// `deltaPrefix[j]` = sum of `deltas[0..<j]`; count `deltaRows.count + 1`.
  private(set) var deltaPrefix: [Double]

  /// A snapshot with no deltas: the same geometry as `base`.
  ///
  /// - Complexity: O(1).
  public init(_ base: TableLayout) {
    self.base = base
    self.deltaRows = []
    self.deltas = []
    self.deltaPrefix = [0]
  }

  /// Number of rows (the same as the base layout).
  public var rowCount: Int { base.rowCount }

  /// The rows whose height differs from the base layout, in increasing order.
  public var animatedRows: [Int] { deltaRows }

  /// Total height in points, including the deltas.
  ///
  /// - Complexity: O(1).
  public var contentHeight: Double { _top(rowCount) }

  /// The y of the top edge of `row` in points, including the deltas of the rows above.
  /// `rowOffset(rowCount)` is the content height.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row <= rowCount`.
  /// - Complexity: O(log k) for k animated rows.
  public func rowOffset(_ row: Int) throws(CellMotionError) -> Double { try _checkedTop(row) }

  /// The height of `row` in points, including its delta.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row < rowCount`.
  /// - Complexity: O(log k) for k animated rows.
  public func rowHeight(_ row: Int) throws(CellMotionError) -> Double { try _checkedHeight(row) }

  /// The visible rows, with the semantics of `TableLayout.visibleRange` applied to the
  /// animated geometry.
  ///
  /// - Throws: `CellMotionError.notFinite` / `.outOfRange` for invalid arguments.
  /// - Complexity: O(log n · log k) for n rows and k animated rows.
  public func visibleRange(scrollOffset: Double, viewportHeight: Double, overscan: Double = 0)
    throws(CellMotionError) -> Range<Int>
  {
    try _visibleRange(scrollOffset: scrollOffset, viewportHeight: viewportHeight, overscan: overscan)
  }

  /// The same geometry as a plain `TableLayout` with per-row heights, prefix sums
  /// recomputed sequentially. Its heights are the snapshot's: >= 0, and possibly above
  /// `TableLayout.rowHeightRange` (a base row plus its detail).
  ///
  /// - Complexity: O(n) time and memory.
  public func materialized() -> TableLayout {
    var heights = [Double]()
    heights.reserveCapacity(rowCount)
    for i in 0..<rowCount { heights.append(_height(i)) }
    // Heights are base heights (valid) plus finite deltas of at least minus the base
    // height (`_append`), so each is finite and >= 0, and their sum is the finite content
    // height this snapshot already reports; the row count is the base layout's.
    do {
      return try TableLayout(checkedHeights: heights)
    } catch {
      preconditionFailure("LayoutSnapshot invariant broken: \(error)")
    }
  }

  /// `_visibleRows(lower:upper:)`, through the base layout's leaves when no row has a
  /// delta.
  func _visibleRowsFast(lower: Double, upper: Double) -> Range<Int> {
    deltaRows.isEmpty ? base._visibleRowsFast(lower: lower, upper: upper) : _visibleRows(lower: lower, upper: upper)
  }

  // MARK: - Building (module internal)

  /// Clears the deltas and sets the base, keeping array capacity.
  mutating func _reset(base: TableLayout) {
    self.base = base
    deltaRows.removeAll(keepingCapacity: true)
    deltas.removeAll(keepingCapacity: true)
    deltaPrefix.removeAll(keepingCapacity: true)
    deltaPrefix.append(0)
  }

  /// Appends a delta (points, finite, >= -the row's base height) for a row not yet
  /// appended. Rows may come in any order; call
  /// `_finish()` once after the last append.
  mutating func _append(row: Int, delta: Double) {
    deltaRows.append(row)
    deltas.append(delta)
  }

  /// Sorts the deltas by row and computes their prefix sums.
  ///
  /// - Complexity: O(k) when appended in row order (the usual case), O(k log k) otherwise.
  mutating func _finish() {
    var sorted = true
    if deltaRows.count > 1 {
      for j in 1..<deltaRows.count where deltaRows[j - 1] >= deltaRows[j] {
        sorted = false
        break
      }
    }
    if !sorted {
      // Heapsort on the parallel arrays: no allocation. ExpansionState hands its rows in
      // order except after toggles out of row order, until its next `removeSettled`.
      deltaRows.withUnsafeMutableBufferPointer { rows in
        deltas.withUnsafeMutableBufferPointer { values in
          Self.heapSort(rows, values)
        }
      }
    }
    deltaPrefix.removeAll(keepingCapacity: true)
    deltaPrefix.append(0)
    var sum = 0.0
    for d in deltas {
      sum += d
      deltaPrefix.append(sum)
    }
  }

  /// Sorts `rows` increasing, moving `values` with them: heapsort, in place.
  static func heapSort(_ rows: UnsafeMutableBufferPointer<Int>, _ values: UnsafeMutableBufferPointer<Double>) {
    func swapAt(_ i: Int, _ j: Int) {
      (rows[i], rows[j]) = (rows[j], rows[i])
      (values[i], values[j]) = (values[j], values[i])
    }
    /// Restores the max-heap below `root` within `0..<end`.
    func siftDown(_ root: Int, _ end: Int) {
      var parent = root
      while true {
        var child = 2 * parent + 1
        guard child < end else { return }
        if child + 1 < end, rows[child] < rows[child + 1] { child += 1 }
        guard rows[parent] < rows[child] else { return }
        swapAt(parent, child)
        parent = child
      }
    }
    let n = rows.count
    for root in stride(from: n / 2 - 1, through: 0, by: -1) { siftDown(root, n) }
    for end in stride(from: n - 1, to: 0, by: -1) {
      swapAt(0, end)
      siftDown(0, end)
    }
  }

  /// Writes `_top(row) - offset` and `_height(row)` for each row of `rows` (unchecked) to
  /// `tops` and `heights`: the base layout's leaf by leaf, the deltas by a cursor.
  ///
  /// - Complexity: O(rows + log n + log k).
  func _fill(_ rows: Range<Int>, minus offset: Double, tops: UnsafeMutablePointer<Double>, heights: UnsafeMutablePointer<Double>) {
    guard !deltaRows.isEmpty else {
      base._fill(rows, minus: offset, tops: tops, heights: heights)
      return
    }
    guard !rows.isEmpty else { return }
    // Base offsets first (exactly `base._top(row)`), then the deltas above each row.
    base._fill(rows, minus: 0, tops: tops, heights: heights)
    deltaRows.withUnsafeBufferPointer { deltaRows in
      deltas.withUnsafeBufferPointer { deltas in
        deltaPrefix.withUnsafeBufferPointer { deltaPrefix in
          var j = _partitionPoint(deltaRows.count) { deltaRows[$0] >= rows.lowerBound }
          for (k, row) in rows.enumerated() {
            while j < deltaRows.count, deltaRows[j] < row { j += 1 }
            tops[k] = (tops[k] + deltaPrefix[j]) - offset
            if j < deltaRows.count, deltaRows[j] == row { heights[k] = heights[k] + deltas[j] }
          }
        }
      }
    }
  }

  /// Number of animated rows strictly above `row`.
  @inline(__always)
  func _deltaCount(below row: Int) -> Int {
    deltaRows.withUnsafeBufferPointer { rows in
      _partitionPoint(rows.count) { rows[$0] >= row }
    }
  }

  @inline(__always)
  func _top(_ i: Int) -> Double {
    if deltaRows.isEmpty { return base._top(i) }
    return base._top(i) + deltaPrefix[_deltaCount(below: i)]
  }

  @inline(__always)
  func _height(_ i: Int) -> Double {
    if deltaRows.isEmpty { return base._height(i) }
    let j = _deltaCount(below: i)
    if j < deltaRows.count, deltaRows[j] == i { return base._height(i) + deltas[j] }
    return base._height(i)
  }
}
