// The headless table's row layout: where each row sits, in points, from the top of the
// content.
//
// Goals, in priority order:
// 1. Exact and reproducible: a row's offset is its leaf's offset plus the sum of the
//    heights before it in its leaf, both summed left to right, so offsets never decrease,
//    `setHeight` gives the layout a fresh build from the same heights would have (bitwise),
//    and whenever the heights' sums are exact (heights with a few fractional bits, as any
//    Float height has at table sizes below 2^29 points) offsets equal the sequential sums.
// 2. Cheap edits: heights live in leaves of 64-128 rows (`_Blocks`) with their
//    in-leaf prefix sums, and leaf offsets in a directory. A batch update rebuilds the
//    leaves it touches and shares the others with the layout before it (which stays
//    valid: `AppliedUpdate.before`), so k changes cost O(k x leaf + leaves), not O(rows),
//    and never touch a page of fresh memory per row.
// 3. Cheap reads: `rowOffset` is two binary searches (O(log n)); a frame reads the offsets
//    of its rows leaf by leaf at array speed (`_fill`). `visibleRange` is O(log n).
// 4. Small: a uniform table of any size is O(1) memory, and so is each uniform stretch of a
//    per-row one (a run leaf).
//
// Why not one array of prefix sums: an insertion near the top moves every offset below
// it, O(n) per batch (13-17 ms and two thirds page faults at a million rows, issue 32).
// Why not a Fenwick tree: every read O(log n) and partial sums in a data-dependent order.

import CellMotion

/// A leaf of heights: explicit heights with their in-leaf prefix sums, or a run of one
/// height.
struct _HeightLeaf: _BlockLeaf, @unchecked Sendable {
  // @unchecked: `storage` points into a slab of the `_Blocks` holding the leaf, read-only.
  //
  // 32 bytes: a batch copies the directory of leaves (a million rows: about 10,000 of
  // them) as plain memory, and that copy was a fifth of the batch call at 48 bytes.
  private let count32: Int32
  /// An explicit leaf's slab; -1 for a run.
  var slab: Int32
  /// Sum of the heights, points.
  let sum: Double
  /// Smallest height, points.
  let minimum: Double
  /// An explicit leaf's storage address; a run's height (its bit pattern).
  private var bits: UInt

  var count: Int { Int(count32) }

  var isRun: Bool { slab < 0 }

  /// A run's height (an explicit leaf's first).
  var first: Double { slab < 0 ? Double(bitPattern: UInt64(bits)) : storage.unsafelyUnwrapped[0] }

  /// Explicit leaves: `count` heights, then `count + 1` prefix sums (the first 0). Nil for
  /// a run.
  var storage: UnsafePointer<Double>? {
    get { slab < 0 ? nil : UnsafePointer(bitPattern: bits) }
    set { bits = UInt(bitPattern: newValue) }
  }

  static func words(_ n: Int) -> Int { 2 * n + 1 }

  init(run first: Double, count: Int) {
    count32 = Int32(count)
    bits = UInt(first.bitPattern)
    slab = -1
    sum = Double(count) * first
    minimum = first
  }

  init(written n: Int, storage p: UnsafeMutablePointer<Double>, slab: Int32) {
    // The heights are at p[0 ..< n]; their prefix sums go after them. Pointers, not
    // `p[n + 1 + j]`: that index arithmetic carried an overflow check per height, and this
    // loop runs for every height of every leaf a batch rebuilds.
    var least = Double.infinity
    var s = 0.0
    let sums = p + n
    sums[0] = 0
    var j = 0
    while j < n {
      let h = p[j]
      s += h
      j &+= 1
      sums[j] = s
      least = Swift.min(least, h)
    }
    count32 = Int32(n)
    sum = s
    minimum = least
    bits = UInt(bitPattern: p)
    self.slab = slab
  }

  /// Sum of the first `j` heights (0...count), points.
  @inline(__always)
  func prefix(_ j: Int) -> Double {
    guard let storage else { return Double(j) * first }
    return storage[count + j]
  }

  /// Height `j`, points.
  @inline(__always)
  func height(_ j: Int) -> Double {
    guard let storage else { return first }
    return storage[j]
  }
}

/// The vertical layout of a single-section table: rows stacked from y = 0 downwards.
///
/// Units are points; y grows downwards; row `i` occupies the half-open interval
/// `[rowOffset(i), rowOffset(i + 1))`. There are no sections, headers or footers: model
/// them as rows if needed.
///
/// Two representations:
/// - uniform: every row has the same height; O(1) memory for any row count;
/// - per-row: the heights in leaves of 64-128 rows with their prefix sums (16
///   bytes a row), uniform stretches as single leaves.
///
/// Every height is finite and >= 0, and the content height is finite. Equality compares
/// the representation and the heights (a uniform layout is not equal to a per-row one with
/// the same heights); offsets follow from the heights and how the layout was edited (see
/// `rowOffset`).
public struct TableLayout: Sendable, Equatable, _RowGeometry {
  /// Number of rows.
  public let rowCount: Int
  /// The common height in points when uniform; nil for per-row storage.
  private var uniformHeight: Double?
  /// Per-row heights (empty when uniform).
  private(set) var blocks: _Blocks<_HeightLeaf>
  /// `tops[b]`: the offset of leaf b's first row, points; `tops[leaves]` is the content
  /// height. Empty when uniform.
  private(set) var tops: [Double]
  /// The smallest leaf minimum (per-row), found in the walk that sums `tops`; +infinity
  /// when uniform or without rows.
  private var leastHeight: Double = .infinity

  /// Most rows a layout may have: 50,000,000. Per-row storage (which a uniform layout
  /// switches to at its first `setHeight` of another height, a leaf's worth of rows at a
  /// time) costs 16 bytes a row (a height and a prefix sum): 800 MB at the maximum;
  /// `DisplayTracker` adds a bit a row.
  public static let maxRowCount = 50_000_000

  /// Heights a layout accepts, points: 0 ... 1e6 (`InputLimits.length`'s upper bound).
  public static let rowHeightRange: ClosedRange<Double> = 0...InputLimits.length.upperBound

  /// The smallest row height in points, or nil for a layout without rows.
  /// - Complexity: O(1).
  package var minimumRowHeight: Double? {
    if let h = uniformHeight { return rowCount > 0 ? h : nil }
    return rowCount > 0 ? leastHeight : nil
  }

  /// The first row whose height is below `minimum` points, with its height, or nil.
  /// - Complexity: O(1) for a uniform layout, O(leaves + a leaf) otherwise.
  package func firstRow(shorterThan minimum: Double) -> (row: Int, height: Double)? {
    if let h = uniformHeight { return rowCount > 0 && h < minimum ? (0, h) : nil }
    for (b, leaf) in blocks.leaves.enumerated() where leaf.minimum < minimum {
      for j in 0..<leaf.count where leaf.height(j) < minimum { return (blocks.starts[b] + j, leaf.height(j)) }
    }
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
    self.blocks = _Blocks()
    self.tops = []
  }

  /// A layout with one height per row, in points, top to bottom.
  ///
  /// - Throws: `CellMotionError.outOfRange` naming `rowHeights.count` for more than
  ///   `maxRowCount` rows; `.notFinite` or `.outOfRange` naming `rowHeights[i]` for the
  ///   first NaN or infinite height or one outside `rowHeightRange`; `.outOfRange` if the
  ///   content height overflows.
  /// - Complexity: O(n) time, 2n + O(n / 64) Doubles of memory.
  public init(rowHeights: [Double]) throws(CellMotionError) {
    try Check.count(rowHeights.count, max: Self.maxRowCount, "rowHeights.count")
    // The message is built only for a bad height (a million rows of interpolation cost
    // more than the layout).
    for (i, h) in rowHeights.enumerated() where !Self.rowHeightRange.contains(h) {
      try Check.within(h, Self.rowHeightRange, "rowHeights[\(i)]")
    }
    try self.init(checkedHeights: rowHeights)
  }

  /// A per-row layout from heights each already checked by the caller (the content
  /// height still is): each finite and >= 0, within `rowHeightRange` except for a
  /// materialized `LayoutSnapshot`'s rows with their details.
  init(checkedHeights rowHeights: [Double]) throws(CellMotionError) {
    try Check.count(rowHeights.count, max: Self.maxRowCount, "rowHeights.count")
    try self.init(checkedBlocks: rowHeights.withUnsafeBufferPointer { _Blocks(values: $0) })
  }

  /// A per-row layout of checked heights in leaves; the content height is checked.
  init(checkedBlocks blocks: _Blocks<_HeightLeaf>) throws(CellMotionError) {
    var none: [Double] = []
    try self.init(checkedBlocks: blocks, topsIn: &none)
  }

  /// `init(checkedBlocks:)` with the leaf offsets written to `buffer`'s memory where nothing
  /// else holds it (`_Recycle`); `buffer` is left empty.
  init(checkedBlocks blocks: _Blocks<_HeightLeaf>, topsIn buffer: inout [Double]) throws(CellMotionError) {
    let (tops, least) = Self.tops(of: blocks, in: &buffer)
    let sum = tops[tops.count - 1]
    guard sum.isFinite else {
      throw .outOfRange(field: "rowHeights", value: sum, expected: "a finite total height")
    }
    self.rowCount = blocks.count
    self.uniformHeight = nil
    self.blocks = blocks
    self.tops = tops
    self.leastHeight = least
  }

  /// Leaf offsets: the running sum of the leaves' sums, left to right, in `spare`'s memory
  /// (`Array._reusing`), and the smallest leaf minimum (one walk of the leaves: a batch at
  /// a million rows checks the shortest row, and a walk of its own missed the cache on
  /// every leaf again).
  private static func tops(of blocks: _Blocks<_HeightLeaf>, in spare: inout [Double]) -> (
    tops: [Double], least: Double
  ) {
    let n = blocks.leaves.count + 1
    var tops = [Double]._reusing(&spare, capacity: n)
    // Filled, then written through a pointer (an append per leaf cost five times more).
    tops.append(contentsOf: repeatElement(0, count: n))
    let least = blocks.leaves.withUnsafeBufferPointer { leaves in
      tops.withUnsafeMutableBufferPointer { t in
        var s = 0.0
        var least = Double.infinity
        for b in 0..<leaves.count {
          s += leaves[b].sum
          t[b &+ 1] = s
          least = Swift.min(least, leaves[b].minimum)
        }
        return least
      }
    }
    return (tops, least)
  }

  /// The heights as leaves (a uniform layout's as one run).
  var heightBlocks: _Blocks<_HeightLeaf> {
    if let h = uniformHeight { return _Blocks(run: h, count: rowCount) }
    return blocks
  }

  /// The layout after `map` (an applied batch update), `fixedHeight(j)` the height of the
  /// map's j-th fixed row and `newHeights` (index before the update, checked height)
  /// applied on top; per-row even when the result could be uniform. With it, the places in
  /// this layout (the one before the batch) that the batch's animations read: each run's
  /// first row's top and each removed row's top and height. They are read during the walk
  /// that rebuilds the leaves, when the leaf they are in is being copied anyway: read
  /// afterwards, each was a cache miss (issue 32: a fifth of the batch call at a million
  /// rows).
  ///
  /// - Complexity: O((k + c) log k + (k + c) x leaf + leaves) for k moved rows and c
  ///   height changes.
  ///
  /// `split`: where to cut the rebuild in two parts built at once by two threads
  /// (`_Blocks.splitPosition`); nil, one part on the calling thread. The same layout and
  /// places either way.
  func applying(
    _ map: UpdateMap, fixedHeight: (Int) -> Double, newHeights: [(Int, Double)], split: _MapPosition? = nil,
    recycle: inout _Recycle<_HeightLeaf>
  ) throws(CellMotionError) -> (layout: TableLayout, places: _BeforePlaces) {
    // A changed row's place after the update (a moved row's is its destination).
    let overrides = newHeights.map { (index: map._newIndex($0.0)!, value: $0.1) }.sorted { $0.index < $1.index }
    // Each part's reads: its runs' tops and its removed rows' places, from old row
    // `from` on (the removed rows up to the next run's first are read at that run).
    struct Reader {
      var places = _BeforePlaces()
      var cursor = 0
      var next: Int
      init(from: Int, runs: Int, removed: Int) {
        next = from
        places.runTops.reserveCapacity(runs)
        places.removed.reserveCapacity(removed)
      }
      mutating func visit(_ layout: TableLayout, run o: Int, _ count: Int) {
        while next < o {
          places.removed.append(layout._place(next, cursor: &cursor))
          next += 1
        }
        places.runTops.append(layout._top(o, cursor: &cursor))
        next = o + count
      }
      mutating func finish(_ layout: TableLayout, upTo end: Int) {
        while next < end {
          places.removed.append(layout._place(next, cursor: &cursor))
          next += 1
        }
      }
    }
    let runs = map.fixed.count + map.removed.count + 1
    var read = Reader(from: 0, runs: runs, removed: map.removed.count)
    // The second part's reader (two parts only).
    var second = split.map { Reader(from: $0.old, runs: runs / 2 + 2, removed: map.removed.count - $0.removed) }
    if let split, uniformHeight == nil, split.old < rowCount { second?.cursor = blocks.locate(split.old).leaf }
    let built = heightBlocks.applying(
      map, split: split, fixedValue: fixedHeight, overrides: overrides, recycle: &recycle,
      visitRun: { part, o, count in
        if part == 0 { read.visit(self, run: o, count) } else { second!.visit(self, run: o, count) }
      })
    read.finish(self, upTo: split?.old ?? rowCount)
    if let split, var second {
      second.finish(self, upTo: rowCount)
      // A run the cut went through was visited twice: its first piece's top is its own.
      read.places.runTops += map.continuesRun(split) ? second.places.runTops.dropFirst() : second.places.runTops[...]
      read.places.removed += second.places.removed
    }
    let layout = try TableLayout(checkedBlocks: built, topsIn: &recycle.tops)
    // This layout's offsets: the next batch's, once this layout is gone.
    recycle.tops = tops
    return (layout, read.places)
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
  /// The offset is the row's leaf's offset (the leaves' sums added left to right) plus the
  /// sum of the heights before the row in its leaf (left to right): never decreasing, the
  /// same for any two layouts built or edited with `setHeight` from the same heights, and
  /// equal to the left-to-right sum of every height above whenever those sums are exact
  /// (else within a few ulps of it). A uniform layout's is `row * height`.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row <= rowCount`.
  /// - Complexity: O(log rowCount).
  public func rowOffset(_ row: Int) throws(CellMotionError) -> Double { try _checkedTop(row) }

  /// The height of `row` in points.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` unless `0 <= row < rowCount`.
  /// - Complexity: O(log rowCount).
  public func rowHeight(_ row: Int) throws(CellMotionError) -> Double { try _checkedHeight(row) }

  /// Layouts are equal when both are uniform with the same row count and height, or both
  /// per-row with the same heights in the same order.
  ///
  /// - Complexity: O(1) for uniform layouts, O(n) otherwise.
  public static func == (a: TableLayout, b: TableLayout) -> Bool {
    guard a.rowCount == b.rowCount, a.uniformHeight == b.uniformHeight else { return false }
    return a.uniformHeight != nil || a.blocks.elementsEqual(b.blocks)
  }

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
  /// - Complexity: O(log^2 rowCount): two binary searches over the rows, each step a
  ///   row's offset (O(log rowCount); O(1) when uniform).
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
  /// A uniform layout stays uniform when `height` equals its row height; otherwise it
  /// becomes per-row, the other rows a run (O(1) memory) but for a leaf's worth around the
  /// row. The result is bitwise equal to `TableLayout(rowHeights:)` built from the same
  /// heights when the layout was built per-row (`init(rowHeights:)`) and only edited with
  /// `setHeight`: leaves keep their bounds, and each offset is summed as a fresh build
  /// sums it.
  ///
  /// - Throws: `CellMotionError.indexOutOfRange` for a bad row; `.notFinite` /
  ///   `.outOfRange` for a NaN or infinite height, one outside `rowHeightRange`, or one
  ///   that makes the content height overflow. On error the layout is unchanged.
  /// - Complexity: O(leaf + leaves): the row's leaf is rebuilt, the leaf offsets summed
  ///   again.
  public mutating func setHeight(row: Int, height: Double) throws(CellMotionError) {
    guard row >= 0, row < rowCount else {
      throw .indexOutOfRange(field: "row", index: row, count: rowCount)
    }
    try Check.within(height, Self.rowHeightRange, "height")
    guard (contentHeight - _height(row) + height).isFinite else {
      throw .outOfRange(field: "height", value: height, expected: "a finite total height")
    }
    if let uniform = uniformHeight, uniform == height { return }
    let edited: _Blocks<_HeightLeaf>
    if uniformHeight == nil, !blocks.leaves[blocks.locate(row).leaf].isRun {
      // Same leaf bounds: the one leaf rebuilt, the others kept as they are.
      let (b, j) = blocks.locate(row)
      var values = blocks.leaves[b].withValues { Array($0) }
      values[j] = height
      edited = values.withUnsafeBufferPointer { blocks.replacingLeaf(b, with: $0) }
    } else {
      edited = heightBlocks.replacing(row, with: height)
    }
    // The content height was checked above.
    self = try TableLayout(checkedBlocks: edited)
  }

  // MARK: - Unchecked accessors (module internal; callers validate)

  @inline(__always)
  func _top(_ i: Int) -> Double {
    if let h = uniformHeight { return Double(i) * h }
    if i >= rowCount { return tops[tops.count - 1] }
    let (b, j) = blocks.locate(i)
    return tops[b] + blocks.leaves[b].prefix(j)
  }

  /// `_top(i)` for increasing `i`: `cursor` is the leaf of the previous call (start at 0).
  /// The same value as `_top(i)`, without a search while the rows asked for are close.
  @inline(__always)
  func _top(_ i: Int, cursor: inout Int) -> Double {
    if let h = uniformHeight { return Double(i) * h }
    if i >= rowCount { return tops[tops.count - 1] }
    let (b, j) = blocks.locate(i, from: cursor)
    cursor = b
    return tops[b] + blocks.leaves[b].prefix(j)
  }

  /// `(_top(i), _height(i))` for increasing `i` (unchecked: `0 <= i < rowCount`), with a
  /// cursor as `_top(_:cursor:)` takes it.
  @inline(__always)
  func _place(_ i: Int, cursor: inout Int) -> (top: Double, height: Double) {
    if let h = uniformHeight { return (Double(i) * h, h) }
    let (b, j) = blocks.locate(i, from: cursor)
    cursor = b
    let leaf = blocks.leaves[b]
    return (tops[b] + leaf.prefix(j), leaf.height(j))
  }

  @inline(__always)
  func _height(_ i: Int) -> Double {
    if let h = uniformHeight { return h }
    let (b, j) = blocks.locate(i)
    return blocks.leaves[b].height(j)
  }

  /// Writes `(_top(row) + shift) - offset` and `_height(row)` (with `heightShift`:
  /// `max(0, _height(row) + heightShift)`) for each row of `rows` (unchecked) to `tops` and
  /// `heights` (either may be nil), leaf by leaf: the same values as the accessors give,
  /// without a search per row.
  ///
  /// - Complexity: O(rows + log n).
  func _fill(
    _ rows: Range<Int>, shift: Double = 0, heightShift: Double? = nil, minus offset: Double,
    tops out: UnsafeMutablePointer<Double>?, heights hout: UnsafeMutablePointer<Double>?
  ) {
    @inline(__always) func drawn(_ h: Double) -> Double {
      guard let heightShift else { return h }
      return Swift.max(0, h + heightShift)
    }
    if let h = uniformHeight {
      let height = drawn(h)
      let lo = rows.lowerBound
      for k in 0..<rows.count {
        out?[k] = (Double(lo &+ k) * h + shift) - offset
        hout?[k] = height
      }
      return
    }
    guard !rows.isEmpty, !blocks.leaves.isEmpty else { return }
    var (b, j) = blocks.locate(rows.lowerBound)
    var k = 0
    let total = rows.count
    // Pointers advanced per leaf, plain indexes inside it: the loops vectorise (no
    // overflow check per element).
    tops.withUnsafeBufferPointer { tops in
      blocks.leaves.withUnsafeBufferPointer { leaves in
        while k < total {
          let leaf = leaves[b]
          let top = tops[b]
          let take = Swift.min(leaf.count - j, total - k)
          let o = out.map { $0 + k }
          let ho = hout.map { $0 + k }
          if leaf.isRun {
            let h = leaf.first
            let height = drawn(h)
            if let o {
              for m in 0..<take { o[m] = ((top + Double(j &+ m) * h) + shift) - offset }
            }
            if let ho {
              for m in 0..<take { ho[m] = height }
            }
          } else if let s = leaf.storage {
            let heights = s + j
            let prefix = s + (leaf.count + j)
            if let o {
              for m in 0..<take { o[m] = ((top + prefix[m]) + shift) - offset }
            }
            if let ho {
              if heightShift == nil {
                ho.update(from: heights, count: take)
              } else {
                for m in 0..<take { ho[m] = drawn(heights[m]) }
              }
            }
          }
          k += take
          b += 1
          j = 0
        }
      }
    }
  }

  /// `_visibleRows(lower:upper:)`, the same range, with each search over the leaves'
  /// offsets first and then inside one leaf, each step O(1) (the generic search reads each
  /// probe's offset through a search of its own).
  ///
  /// - Complexity: O(log n).
  func _visibleRowsFast(lower: Double, upper: Double) -> Range<Int> {
    guard uniformHeight == nil, !blocks.leaves.isEmpty else { return _visibleRows(lower: lower, upper: upper) }
    return tops.withUnsafeBufferPointer { tops in
      blocks.leaves.withUnsafeBufferPointer { leaves in
        /// The top of row j of leaf b, and of the row after it.
        @inline(__always) func top(_ b: Int, _ j: Int) -> Double { tops[b] + leaves[b].prefix(j) }
        @inline(__always) func next(_ b: Int, _ j: Int) -> Double {
          j + 1 < leaves[b].count ? tops[b] + leaves[b].prefix(j + 1) : tops[b + 1]
        }
        /// The first row where `holds` (monotone in row order) holds, or the row count.
        @inline(__always) func first(_ holds: (Int, Int) -> Bool) -> Int {
          let after = _partitionPoint(leaves.count) { holds($0, 0) }
          if after == 0 { return 0 }
          let b = after - 1
          return blocks.starts[b] + _partitionPoint(leaves[b].count) { holds(b, $0) }
        }
        let lo = first { b, j in next(b, j) > lower || top(b, j) >= lower }
        let hi = first { b, j in top(b, j) >= upper }
        return lo..<Swift.max(lo, hi)
      }
    }
  }

  /// The rows of `candidates` (unchecked) whose place shifted by `shift` points meets the
  /// band `[lower, upper)` by the visible-range rule, drawn at their height plus
  /// `heightShift` (stopped at 0): `top = _top(row) + shift`, `height = max(0, _height(row)
  /// + heightShift)`, as `TableSimulation.meets` decides for a single row. Binary searches
  /// over the candidates.
  ///
  /// - Complexity: O(log n x log candidates).
  func _meeting(
    _ candidates: Range<Int>, shift: Double, heightShift: Double, lower: Double, upper: Double
  ) -> Range<Int> {
    let lo = candidates.lowerBound
    let n = candidates.count
    // Rows whose drawn bottom passes the band's top (or that start inside it) ...
    let first = lo + _partitionPoint(n) { k in
      let top = _top(lo + k) + shift
      return top + Swift.max(0, _height(lo + k) + heightShift) > lower || top >= lower
    }
    // ... and that start before its bottom.
    let end = lo + _partitionPoint(n) { k in _top(lo + k) + shift >= upper }
    return first..<Swift.max(first, end)
  }
}

/// Places in a layout before a batch update, read while the batch rebuilt the layout
/// (`TableLayout.applying(_:fixedHeight:newHeights:)`), in points.
struct _BeforePlaces: Sendable {
  /// The top of each run's first row (`UpdateMap.walkRuns` order): the rows that keep
  /// their order, in maximal runs.
  var runTops: [Double] = []
  /// The top and height of each of the map's removed rows (deleted or moved from), in the
  /// map's order.
  var removed: [(top: Double, height: Double)] = []
}
