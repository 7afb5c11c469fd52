import CellMotion

// Shared row geometry: one visible-range search for every layout representation.
//
// Goals, in priority order:
// 1. One definition of "visible" (half-open, zero-height rows included), used by
//    `TableLayout`, `LayoutSnapshot` and the brute-force oracle in the tests alike.
// 2. O(log n) per query: two binary searches over monotone row edges.

/// Row edges of a vertical stack of rows: row `i` spans `[top(i), top(i + 1))` in points.
/// `_top` must be non-decreasing in `0...rowCount` (heights >= 0).
protocol _RowGeometry {
  var rowCount: Int { get }
  /// Top edge of row `i` in points for `i` in `0...rowCount`; `_top(rowCount)` is the
  /// content height. Unchecked.
  func _top(_ i: Int) -> Double
  /// Height of row `i` in points for `i` in `0..<rowCount`. Unchecked.
  func _height(_ i: Int) -> Double
}

/// First index in `0..<count` for which `predicate` holds, or `count` if none. The
/// predicate must be monotone (false...false true...true).
///
/// - Complexity: O(log count) calls of `predicate`.
@inline(__always)
func _partitionPoint(_ count: Int, _ predicate: (Int) -> Bool) -> Int {
  var low = 0
  var high = count
  while low < high {
    let mid = low + (high - low) / 2
    if predicate(mid) { high = mid } else { low = mid + 1 }
  }
  return low
}

/// `_partitionPoint(count, predicate)` searched from `hint` (where the point is expected,
/// at or after it): forward in steps that double, then back within the last step, so
/// searches for increasing points cost O(log d) for a move of d. A point before the hint
/// is found by a plain search.
func _partitionPoint(_ count: Int, from hint: Int, _ predicate: (Int) -> Bool) -> Int {
  var low = Swift.min(Swift.max(hint, 0), count)
  // No hint, or the point is before it: a plain search.
  if low == 0 { return _partitionPoint(count, predicate) }
  if predicate(low - 1) { return _partitionPoint(low, predicate) }
  // The point is in low ... count: every index below `low` fails the predicate.
  var step = 1
  var high = low
  while high < count && !predicate(high) {
    low = high + 1
    high = low + step
    step &<<= 1
  }
  high = Swift.min(high, count)
  while low < high {
    let mid = low + (high - low) / 2
    if predicate(mid) { high = mid } else { low = mid + 1 }
  }
  return low
}

extension _RowGeometry {
  /// `_top(row)` after checking `0 <= row <= rowCount` (the public `rowOffset`).
  func _checkedTop(_ row: Int) throws(CellMotionError) -> Double {
    guard row >= 0, row <= rowCount else {
      throw .indexOutOfRange(field: "row", index: row, count: rowCount + 1)
    }
    return _top(row)
  }

  /// `_height(row)` after checking `0 <= row < rowCount` (the public `rowHeight`).
  func _checkedHeight(_ row: Int) throws(CellMotionError) -> Double {
    guard row >= 0, row < rowCount else {
      throw .indexOutOfRange(field: "row", index: row, count: rowCount)
    }
    return _height(row)
  }

  /// The public `visibleRange`: the query validated into a band, then `_visibleRows`.
  func _visibleRange(scrollOffset: Double, viewportHeight: Double, overscan: Double)
    throws(CellMotionError) -> Range<Int>
  {
    let band = try _visibleBand(
      scrollOffset: scrollOffset, viewportHeight: viewportHeight, overscan: overscan)
    return _visibleRows(lower: band.lower, upper: band.upper)
  }

  /// The rows visible in the half-open band `[lower, upper)` of content coordinates.
  ///
  /// Row `i` with top `a` and bottom `b` is visible iff `a < upper` and (`b > lower` or
  /// `a >= lower`). For rows of positive height this is "the half-open intervals
  /// `[a, b)` and `[lower, upper)` overlap with positive length"; a row of zero height is
  /// a point at `a`, visible iff `lower <= a < upper`. Both conditions are monotone in
  /// `i`, so the visible rows are contiguous and found by two binary searches. When no
  /// row is visible the result is the empty range at the first row below the band start
  /// (`lo..<lo`).
  ///
  /// - Complexity: O(log rowCount) evaluations of `_top`.
  func _visibleRows(lower: Double, upper: Double) -> Range<Int> {
    let n = rowCount
    let lo = _partitionPoint(n) { i in _top(i + 1) > lower || _top(i) >= lower }
    let hi = _partitionPoint(n) { i in _top(i) >= upper }
    // lo <= hi always holds: row `hi` (if any) has top >= upper > lower, so it satisfies
    // the first predicate. The max() only guards against a non-monotone `_top`.
    return lo..<max(lo, hi)
  }
}

/// Shared validation of a visible-range query. Returns the band `[lower, upper)`.
@inline(__always)
func _visibleBand(scrollOffset: Double, viewportHeight: Double, overscan: Double)
  throws(CellMotionError) -> (lower: Double, upper: Double)
{
  try Check.finite(scrollOffset, "scrollOffset")
  try Check.positive(viewportHeight, "viewportHeight")
  try Check.nonNegative(overscan, "overscan")
  let lower = scrollOffset - overscan
  let upper = scrollOffset + viewportHeight + overscan
  guard upper.isFinite, lower.isFinite else {
    throw .invalidCombination(
      field: "scrollOffset", reason: "scrollOffset + viewportHeight + overscan overflows")
  }
  return (lower, upper)
}
