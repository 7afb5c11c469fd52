// The headless table's row layout: where each row sits, in points, from the top of the
// content.
//
// Goals, in priority order:
// 1. Exact and reproducible: prefix sums are always the left-to-right sequential sum of
//    the heights, so a layout edited with `setHeight` is bitwise equal to one built fresh
//    from the same heights.
// 2. Cheap reads: `rowOffset` is O(1) and `visibleRange` O(log n); a frame reads the
//    offset of every visible row, while heights change rarely (a commit of an expand or
//    collapse). Animated heights never touch this type: `LayoutSnapshot` overlays them
//    as sparse deltas.
// 3. Small: a uniform table of any size is O(1) memory.
//
// Why prefix sums in an array and not a Fenwick tree: a Fenwick tree makes `setHeight`
// O(log n) but every `rowOffset` O(log n) too, and its partial sums add in a different
// order, so its offsets are not bitwise the sequential sums. Reads dominate (every visible
// row, every frame) and writes are rare, and per-frame height animation is handled by the
// sparse overlay in `LayoutSnapshot`, so the O(n - row) update is the better trade.

import CellMotion

/// The vertical layout of a single-section table: rows stacked from y = 0 downwards.
///
/// Units are points; y grows downwards; row `i` occupies the half-open interval
/// `[rowOffset(i), rowOffset(i + 1))`. There are no sections, headers or footers: model
/// them as rows if needed.
///
/// Two representations:
/// - uniform: every row has the same height; O(1) memory for any row count;
/// - per-row: the heights and their prefix sums (`rowCount + 1` values, the first 0).
///
/// Every height is finite and >= 0, and the content height is finite. Equality compares
/// the representation as well as the heights (a uniform layout is not equal to a per-row
/// one with the same heights).
public struct TableLayout: Sendable, Equatable, _RowGeometry {
  /// Number of rows.
  public let rowCount: Int
  /// The common height in points when uniform; nil for per-row storage.
  private var uniformHeight: Double?
  /// Per-row heights in points (empty when uniform).
  private var heights: [Double]
  /// Prefix sums, `prefix[i]` = sum of `heights[0..<i]` (empty when uniform).
  private var prefix: [Double]

  /// Most rows a layout may have: 50,000,000. Per-row storage (which a uniform layout
  /// switches to at its first `setHeight`) costs 16 bytes a row (a height and a prefix
  /// sum): 800 MB at the maximum; `DisplayTracker` adds a bit a row.
  public static let maxRowCount = 50_000_000

  /// Heights a layout accepts, points: 0 ... 1e6 (`InputLimits.length`'s upper bound).
  public static let rowHeightRange: ClosedRange<Double> = 0...InputLimits.length.upperBound

  /// The smallest row height in points, or nil for a layout without rows.
  /// - Complexity: O(1) for a uniform layout, O(rowCount) otherwise.
  package var minimumRowHeight: Double? {
    if let h = uniformHeight { return rowCount > 0 ? h : nil }
    return heights.min()
  }

  /// The first row whose height is below `minimum` points, with its height, or nil.
  /// - Complexity: O(1) for a uniform layout, O(rowCount) otherwise.
  package func firstRow(shorterThan minimum: Double) -> (row: Int, height: Double)? {
    if let h = uniformHeight { return rowCount > 0 && h < minimum ? (0, h) : nil }
    for (i, h) in heights.enumerated() where h < minimum { return (i, h) }
    return nil
  }

  /// A layout of `rowCount` rows that all have height `rowHeight` points.
  ///
  /// - Throws: `CellMotionError.outOfRange` if `rowCount` is outside
  ///   `0...maxRowCount`, `rowHeight` is outside
  ///   0 ... 1e6 points (`TableLayout.rowHeightRange`) or the content height
  ///   `rowCount * rowHeight` is not finite; `.notFinite` for a NaN or infinite `rowHeight`.
  ///   Zero is a valid layout height (a hidden row), but a `TableSimulation`, which
  ///   animates its rows, refuses layouts with rows below `InputLimits.length`.
  /// - Complexity: O(1) time and memory.
  public init(rowCount: Int, rowHeight: Double) throws(CellMotionError) {
    try Check.count(rowCount, max: Self.maxRowCount, "rowCount")
    try Check.within(rowHeight, Self.rowHeightRange, "rowHeight")
    guard (Double(rowCount) * rowHeight).isFinite else {
      throw .outOfRange(
        field: "rowHeight", value: rowHeight, expected: "small enough for a finite content height")
    }
    self.rowCount = rowCount
    self.uniformHeight = rowHeight
    self.heights = []
    self.prefix = []
  }

  /// A layout with one height per row, in points, top to bottom.
  ///
  /// - Throws: `CellMotionError.outOfRange` naming `rowHeights.count` for more than
  ///   `maxRowCount` rows; `.notFinite` or `.outOfRange` naming `rowHeights[i]` for the
  ///   first NaN or infinite height or one outside `rowHeightRange`; `.outOfRange` if the
  ///   content height overflows.
  /// - Complexity: O(n) time, 2n + 1 Doubles of memory.
  public init(rowHeights: [Double]) throws(CellMotionError) {
    try Check.count(rowHeights.count, max: Self.maxRowCount, "rowHeights.count")
    for (i, h) in rowHeights.enumerated() { try Check.within(h, Self.rowHeightRange, "rowHeights[\(i)]") }
    try self.init(checkedHeights: rowHeights)
  }

  /// A per-row layout from heights each already checked by the caller (the content
  /// height still is): each finite and >= 0, within `rowHeightRange` except for a
  /// materialized `LayoutSnapshot`'s rows with their details. The prefix sums as
  /// `init(rowHeights:)` computes them.
  init(checkedHeights rowHeights: [Double]) throws(CellMotionError) {
    try Check.count(rowHeights.count, max: Self.maxRowCount, "rowHeights.count")
    var prefix = [Double](repeating: 0, count: rowHeights.count + 1)
    var sum = 0.0
    rowHeights.withUnsafeBufferPointer { h in
      prefix.withUnsafeMutableBufferPointer { p in
        for i in 0..<h.count {
          sum += h[i]
          p[i + 1] = sum
        }
      }
    }
    guard sum.isFinite else {
      throw .outOfRange(field: "rowHeights", value: sum, expected: "a finite total height")
    }
    self.rowCount = rowHeights.count
    self.uniformHeight = nil
    self.heights = rowHeights
    self.prefix = prefix
  }

  /// Appends the heights of `rows` (points) to `out`.
  func appendHeights(_ rows: Range<Int>, to out: inout [Double]) {
    if let h = uniformHeight {
      out.append(contentsOf: repeatElement(h, count: rows.count))
    } else {
      out.append(contentsOf: heights[rows])
    }
  }

  /// Whether the layout uses the O(1) uniform representation.
  public var isUniform: Bool { uniformHeight != nil }

  /// The common height in points of a uniform layout, nil for per-row storage.
  var uniformRowHeight: Double? { uniformHeight }

  /// Total height of all rows, in points.
  ///
  /// - Complexity: O(1).
  public var contentHeight: Double { _top(rowCount) }

  /// The y of the top edge of `row`, in points from the top of the content.
  /// `rowOffset(rowCount)` is the content height (the bottom of the last row).
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row <= rowCount`.
  /// - Complexity: O(1).
  public func rowOffset(_ row: Int) throws(CellMotionError) -> Double { try _checkedTop(row) }

  /// The height of `row` in points.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row < rowCount`.
  /// - Complexity: O(1).
  public func rowHeight(_ row: Int) throws(CellMotionError) -> Double { try _checkedHeight(row) }

  /// The rows that intersect the viewport `[scrollOffset - overscan,
  /// scrollOffset + viewportHeight + overscan)`, in content points.
  ///
  /// Half-open semantics: a row of positive height is visible iff its interval
  /// `[top, bottom)` overlaps the band with positive length, so a row whose bottom equals
  /// the band's top edge, or whose top equals the band's bottom edge, is not visible. A
  /// zero-height row is a point at its top, visible iff `lower <= top < upper`. The
  /// scroll offset may be negative or beyond the content (rubber-banding); the result is
  /// then clipped to the rows that exist, possibly empty. An empty result is `k..<k` with
  /// `k` the first row below the band's top edge.
  ///
  /// - Parameters:
  ///   - scrollOffset: y of the viewport's top edge in content points (any finite value).
  ///   - viewportHeight: height of the viewport in points, > 0.
  ///   - overscan: extra points added above and below the viewport, >= 0.
  /// - Throws: `CellMotionError.notFinite` / `.outOfRange` for invalid arguments.
  /// - Complexity: O(log rowCount): two binary searches on the prefix sums (or on
  ///   `i * rowHeight` when uniform).
  public func visibleRange(scrollOffset: Double, viewportHeight: Double, overscan: Double = 0)
    throws(CellMotionError) -> Range<Int>
  {
    try _visibleRange(scrollOffset: scrollOffset, viewportHeight: viewportHeight, overscan: overscan)
  }

  /// The scroll offsets that keep the viewport inside the content, in points:
  /// `0...max(0, contentHeight - viewportHeight)`.
  ///
  /// - Throws: `CellMotionError` if `viewportHeight` is not finite and > 0.
  /// - Complexity: O(1).
  public func scrollRange(viewportHeight: Double) throws(CellMotionError) -> ClosedRange<Double> {
    try Check.length(viewportHeight, "viewportHeight")
    return 0...max(0, contentHeight - viewportHeight)
  }

  /// Sets the height of one row, in points, and updates the offsets of the rows below.
  ///
  /// A uniform layout stays uniform when `height` equals its row height; otherwise it is
  /// converted to per-row storage first (O(n) time, 2n + 1 Doubles). The prefix sums from
  /// `row` on are recomputed sequentially, so the result is bitwise equal to
  /// `TableLayout(rowHeights:)` built from the same heights.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` for a bad row; `.notFinite` /
  ///   `.outOfRange` for a NaN or infinite height, one outside `rowHeightRange`, or one
  ///   that makes the content height overflow. On error the layout is unchanged.
  /// - Complexity: O(rowCount - row), O(rowCount) on the first edit of a uniform layout.
  public mutating func setHeight(row: Int, height: Double) throws(CellMotionError) {
    guard row >= 0, row < rowCount else {
      throw .indexOutOfRange(field: "row", index: row, count: rowCount)
    }
    try Check.within(height, Self.rowHeightRange, "height")
    guard (contentHeight - _height(row) + height).isFinite else {
      throw .outOfRange(field: "height", value: height, expected: "a finite total height")
    }
    if let uniform = uniformHeight {
      if uniform == height { return }
      heights = [Double](repeating: uniform, count: rowCount)
      prefix = [Double](repeating: 0, count: rowCount + 1)
      uniformHeight = nil
      heights[row] = height
      _recomputePrefix(from: 0)
    } else {
      heights[row] = height
      _recomputePrefix(from: row)
    }
  }

  /// Recomputes `prefix[(start + 1)...]` sequentially from `prefix[start]`.
  private mutating func _recomputePrefix(from start: Int) {
    heights.withUnsafeBufferPointer { h in
      prefix.withUnsafeMutableBufferPointer { p in
        var sum = p[start]
        for i in start..<h.count {
          sum += h[i]
          p[i + 1] = sum
        }
      }
    }
  }

  // MARK: - Unchecked accessors (module internal; callers validate)

  @inline(__always)
  func _top(_ i: Int) -> Double {
    if let h = uniformHeight { return Double(i) * h }
    return prefix[i]
  }

  @inline(__always)
  func _height(_ i: Int) -> Double {
    if let h = uniformHeight { return h }
    return heights[i]
  }
}
