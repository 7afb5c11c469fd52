// A table's rows with their identities: the layout (heights, prefix sums) and one stable
// identifier per row, updated in batches.
//
// Goals, in priority order:
// 1. Exact: after any batch, the heights and the identifiers equal a brute-force rebuild
//    (delete in descending order, then insert in ascending order, as UIKit describes its
//    batch semantics).
// 2. Cheap at a million rows: a batch of k changes validates in O(k log k) and rebuilds
//    only the leaves of heights and identifiers it touches (`_Blocks`), sharing the rest
//    with the rows before it: O(k x leaf + leaves), whatever the table's size (issue 32:
//    the whole-table rebuild cost 13-17 ms a batch at a million rows).
// 3. Identifiers cost nothing until a batch changes them: a table's initial rows are
//    numbered 0, 1, 2, ... as one run, and runs of consecutive identifiers stay runs.

import CellMotion

/// A leaf of identifiers: explicit, or a run counting up from `first`.
struct _IDLeaf: _BlockLeaf, @unchecked Sendable {
  // @unchecked: `storage` points into a slab of the `_Blocks` holding the leaf, read-only.
  // 16 bytes (the directory a batch copies; see `_HeightLeaf`).
  private let count32: Int32
  /// An explicit leaf's slab; -1 for a run.
  var slab: Int32
  /// An explicit leaf's storage address; a run's first identifier.
  private var bits: Int

  var count: Int { Int(count32) }

  var isRun: Bool { slab < 0 }

  /// A run's first identifier (an explicit leaf's first).
  var first: RowID { slab < 0 ? RowID(bits) : storage.unsafelyUnwrapped[0] }

  /// Explicit identifiers (nil for a run).
  var storage: UnsafePointer<RowID>? {
    get { slab < 0 ? nil : UnsafePointer(bitPattern: bits) }
    set { bits = Int(bitPattern: newValue) }
  }

  static func words(_ n: Int) -> Int { n }

  init(run first: RowID, count: Int) {
    count32 = Int32(count)
    bits = first.rawValue
    slab = -1
  }

  init(written n: Int, storage p: UnsafeMutablePointer<RowID>, slab: Int32) {
    count32 = Int32(n)
    bits = Int(bitPattern: p)
    self.slab = slab
  }
}

/// The stable identifiers of a table's rows, in row order.
///
/// Before any update a table's rows are `RowID(0) ..< RowID(rowCount)`, stored as one run
/// (O(1) memory). Batches store what they change in leaves of 64-128 rows; runs of
/// consecutive identifiers between the changes stay runs, so memory grows with the changes
/// (at most 8 bytes a row).
public struct RowIdentifiers: Sendable, Equatable, RandomAccessCollection {
  /// Identifiers a row may have: 0 ..< 2^62. The table issues fresh ones above the largest
  /// any row has had; once a row has had the largest, 2^62 - 1, it issues the smallest
  /// identifiers no row has (every identifier it issues is in this range).
  public static let valueRange: Range<Int> = 0..<(1 << 62)

  /// The identifiers in leaves.
  private(set) var blocks: _Blocks<_IDLeaf>
  public var count: Int { blocks.count }
  /// One more than the largest identifier any row has had (at most 2^62, the end of
  /// `valueRange`): the table's fresh identifiers start here while it is below 2^62, and
  /// an identifier at or above it cannot be in use.
  public private(set) var nextFresh: Int

  /// The identifiers `RowID(0) ..< RowID(count)`.
  init(sequentialCount count: Int) {
    blocks = _Blocks(run: RowID(0), count: count)
    nextFresh = count
  }

  /// The given identifiers (checked distinct and in `valueRange` by the caller), with the
  /// fresh identifiers starting at `nextFresh` (default: above the largest given).
  init(explicit ids: [RowID], nextFresh: Int? = nil) {
    blocks = ids.withUnsafeBufferPointer { _Blocks(values: $0) }
    self.nextFresh = nextFresh ?? (ids.map(\.rawValue).max() ?? -1) + 1
  }

  private init(blocks: _Blocks<_IDLeaf>, nextFresh: Int) {
    self.blocks = blocks
    self.nextFresh = nextFresh
  }

  /// Throws unless `id` is in `valueRange`; `field` names it.
  static func check(_ id: RowID, _ field: String) throws(CellMotionError) {
    guard valueRange.contains(id.rawValue) else {
      throw .outOfRange(field: field, value: Double(id.rawValue), expected: "in 0 ..< 2^62")
    }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { count }

  /// The identifier of the row at `row`.
  ///
  /// - Precondition: `0 <= row < count`.
  /// - Complexity: O(log count).
  public subscript(row: Int) -> RowID {
    precondition(row >= 0 && row < count, "RowIdentifiers: row \(row) out of range 0..<\(count)")
    return blocks[row]
  }

  /// Iterates the identifiers in row order, leaf by leaf (O(1) per identifier).
  public struct Iterator: IteratorProtocol {
    let blocks: _Blocks<_IDLeaf>
    var leaf = 0
    var offset = 0

    public mutating func next() -> RowID? {
      while leaf < blocks.leaves.count {
        let l = blocks.leaves[leaf]
        if offset < l.count {
          defer { offset += 1 }
          return l.element(offset)
        }
        leaf += 1
        offset = 0
      }
      return nil
    }
  }

  public func makeIterator() -> Iterator { Iterator(blocks: blocks) }

  /// The row that has identifier `id`, or nil.
  ///
  /// - Complexity: O(leaves) for identifiers in runs (a table before any update), O(n)
  ///   for the others.
  public func index(of id: RowID) -> Int? {
    if id.rawValue < 0 || id.rawValue >= nextFresh { return nil }
    return firstRow(withAnyOf: [id.rawValue])?.row
  }

  /// The first row (in row order) whose identifier is in `wanted` (increasing), with that
  /// identifier.
  ///
  /// - Complexity: O(leaves x log w) for run leaves, O(leaf) for each explicit leaf.
  func firstRow(withAnyOf wanted: [Int]) -> (row: Int, id: RowID)? {
    guard !wanted.isEmpty else { return nil }
    let set = Set(wanted)
    for (b, leaf) in blocks.leaves.enumerated() {
      if leaf.isRun {
        // The smallest wanted identifier in the run is its first row among them.
        let lo = leaf.first.rawValue
        let k = _lowerBound(wanted, lo)
        if k < wanted.count, wanted[k] < lo + leaf.count { return (blocks.starts[b] + wanted[k] - lo, RowID(wanted[k])) }
      } else {
        let found = leaf.withValues { $0.firstIndex { set.contains($0.rawValue) } }
        if let j = found { return (blocks.starts[b] + j, leaf.element(j)) }
      }
    }
    return nil
  }

  /// The `count` smallest identifiers in `valueRange` that no row has and that are not in
  /// `besides`, increasing.
  /// - Complexity: O((n + b) log(n + b)) for n rows and b identifiers in `besides`.
  func unused(_ count: Int, besides: [Int]) -> [Int] {
    var taken = Array(self.lazy.map(\.rawValue)) + besides
    taken.sort()
    var result: [Int] = []
    result.reserveCapacity(count)
    var candidate = 0
    var k = 0
    while result.count < count {
      while k < taken.count, taken[k] < candidate { k += 1 }
      if k < taken.count, taken[k] == candidate {
        candidate += 1
        continue
      }
      result.append(candidate)
      candidate += 1
    }
    return result
  }

  /// The identifiers after `map`, with `fixedValue(j)` for the map's j-th fixed row.
  ///
  /// - Complexity: O(k x leaf + leaves) for k changed rows.
  func rebuilt(
    _ map: UpdateMap, fixedValue: (Int) -> RowID, nextFresh fresh: Int, split: _MapPosition? = nil,
    recycle: inout _Recycle<_IDLeaf>
  ) -> RowIdentifiers {
    RowIdentifiers(
      blocks: blocks.applying(map, split: split, fixedValue: fixedValue, recycle: &recycle),
      nextFresh: Swift.max(nextFresh, fresh))
  }

  public static func == (a: RowIdentifiers, b: RowIdentifiers) -> Bool { a.blocks.elementsEqual(b.blocks) }
}

/// What one applied batch did, for the animations that follow it: the layouts before and
/// after, the index map, and the inserted, deleted, reloaded and moved rows with their
/// identifiers and row animations.
public struct AppliedUpdate: Sendable {
  /// The layout before and after the update.
  public let before: TableLayout
  public let after: TableLayout
  /// Where each row went.
  public let map: UpdateMap
  /// Inserted rows: index after the update, identifier, animation; by increasing index.
  public let inserted: [(index: Int, id: RowID, animation: RowAnimation)]
  /// Deleted rows: index before the update, identifier, animation; by increasing index.
  public let deleted: [(index: Int, id: RowID, animation: RowAnimation)]
  /// Reloaded rows: index before and after, identifier, animation; by increasing index
  /// before.
  public let reloaded: [(oldIndex: Int, newIndex: Int, id: RowID, animation: RowAnimation)]
  /// Moved rows: index before and after, identifier; by increasing index before.
  public let moved: [(from: Int, to: Int, id: RowID)]
  /// Rows given a new height (height changes and reloads with a height): index before and
  /// after; by increasing index before.
  public let changedHeights: [(oldIndex: Int, newIndex: Int)]
  /// Places in `before` the animations read, taken while `after` was built (nil: read them
  /// from `before`).
  let beforePlaces: _BeforePlaces?
}

/// A table's rows: their heights (`layout`) and stable identifiers (`ids`), changed in
/// batches with `apply(_:)`.
public struct TableRows: Sendable, Equatable {
  /// Row heights and positions, points.
  public private(set) var layout: TableLayout
  /// One identifier per row, in row order.
  public private(set) var ids: RowIdentifiers
  /// Memory the next batch may build in (not part of the rows' value).
  private(set) var recycle = (heights: _Recycle<_HeightLeaf>(), ids: _Recycle<_IDLeaf>())

  /// Rows with `layout`'s heights and identifiers `RowID(0) ..< RowID(rowCount)`.
  public init(layout: TableLayout) {
    self.layout = layout
    self.ids = RowIdentifiers(sequentialCount: layout.rowCount)
  }

  /// Rows with `layout`'s heights and the given identifiers, one per row.
  ///
  /// - Throws: `CellMotionError.bufferSize` if `ids.count != layout.rowCount`;
  ///   `.invalidUpdate(rule: .duplicateIdentifier)` if two rows share an identifier.
  /// - Complexity: O(n log n).
  public init(layout: TableLayout, ids: [RowID]) throws(CellMotionError) {
    guard ids.count == layout.rowCount else {
      throw .bufferSize(field: "ids", expected: layout.rowCount, actual: ids.count)
    }
    for (i, id) in ids.enumerated() { try RowIdentifiers.check(id, "ids[\(i)]") }
    let sorted = ids.sorted()
    for k in sorted.indices.dropFirst() where sorted[k] == sorted[k - 1] {
      throw .invalidUpdate(field: "ids", rule: .duplicateIdentifier, reason: "identifier \(sorted[k]) is used twice")
    }
    self.layout = layout
    self.ids = RowIdentifiers(explicit: ids)
  }

  /// Number of rows.
  public var rowCount: Int { layout.rowCount }

  /// Sets one row's height without animation (`TableLayout.setHeight(row:height:)`).
  ///
  /// - Throws: as `TableLayout.setHeight(row:height:)`.
  public mutating func setHeight(row: Int, height: Double) throws(CellMotionError) {
    try layout.setHeight(row: row, height: height)
  }

  /// Applies a batch update, as `UITableView.performBatchUpdates` does: deletions, reloads,
  /// move sources and height changes name rows before it; insertions and move destinations
  /// rows after it. Rows the batch does not name keep their order.
  ///
  /// - Parameters:
  ///   - update: the batch.
  ///   - expectedRowCount: the row count the caller's data holds after the update (UIKit
  ///     checks the data source's count against before - deletions + insertions); nil:
  ///     not checked.
  ///   - minimumHeight: the least height in points an inserted or changed row may have
  ///     (`TableSimulation` passes `InputLimits.length.lowerBound`).
  ///   - threads: 1 or 2. With 2, a large batch (1,024 changed rows or more on 262,144 rows
  ///     or more) rebuilds its heights, then its identifiers, in two parts at once, the
  ///     second on one of Dispatch's threads (`DispatchQueue.concurrentPerform`): the
  ///     rebuild waits on memory, and two cores wait on it in parallel. The same rows
  ///     either way.
  /// - Returns: what the batch did, for animating it.
  /// - Throws: `CellMotionError.invalidUpdate` naming the broken `UpdateRule` and the entry
  ///   (an index out of range, an index named twice, a row deleted and moved, reloaded and
  ///   moved, deleted and reloaded, a height for a deleted row, an identifier already in
  ///   use, a row count other than `expectedRowCount`); `.notFinite` / `.outOfRange` for a
  ///   bad height or a content height that overflows; `.outOfRange` for more rows than
  ///   `TableLayout.maxRowCount` or `threads` outside 1...2. On error the rows are
  ///   unchanged.
  /// - Complexity: O(k log k) to validate k entries and O(k x leaf + leaves) to rebuild the
  ///   heights and identifiers (leaves of 64-128 rows; O(k) when a uniform layout
  ///   stays uniform), for any row count; an insertion that gives an identifier below
  ///   `ids.nextFresh` (one the table may have issued) adds a search of the identifiers
  ///   (O(leaves) while they are runs, O(n) at worst). The rebuild writes to memory the
  ///   versions before the last batch used when nothing else holds them any more (a copy
  ///   of these rows, or a layout kept from a batch, keeps its memory its own).
  @discardableResult
  public mutating func apply(
    _ update: RowUpdate, expectedRowCount: Int? = nil, minimumHeight: Double = 0, threads: Int = 1
  ) throws(CellMotionError) -> AppliedUpdate {
    try apply(
      update, expectedRowCount: expectedRowCount, minimumHeight: minimumHeight, threads: threads,
      checkingAfter: { _ in })
  }

  /// `apply(_:expectedRowCount:minimumHeight:)`, with `check` given the layout after the
  /// batch before the rows change: if it throws, the rows stay as they were. (A caller
  /// that kept a copy of the rows to restore would hold the memory the batch builds in.)
  mutating func apply(
    _ update: RowUpdate, expectedRowCount: Int?, minimumHeight: Double, threads: Int,
    checkingAfter check: (TableLayout) throws(CellMotionError) -> Void
  ) throws(CellMotionError) -> AppliedUpdate {
    let prepared = try prepare(
      update, expectedRowCount: expectedRowCount, minimumHeight: minimumHeight, threads: threads, checkingAfter: check)
    var recycle = takeIdentifierRecycle()
    let newIDs = Self.identifiers(after: prepared, threads: threads, recycle: &recycle)
    return complete(prepared, ids: newIDs, recycle: recycle)
  }

  /// A batch validated, its layout rebuilt and checked, its identifiers not yet: what
  /// `prepare`, `identifiers(after:threads:recycle:)` and `complete` pass on. A caller may
  /// do other work of the batch while the identifiers rebuild (`TableSimulation` with two
  /// threads): everything here is read-only.
  struct Prepared {
    let plan: UpdatePlan
    let before: TableLayout
    let after: TableLayout
    /// Places the animations read from the layout before (nil: a uniform layout's,
    /// arithmetic).
    let places: _BeforePlaces?
    let oldIDs: RowIdentifiers
    /// For each of the map's fixed rows that is inserted, its identifier.
    let insertedIDs: [RowID?]
    let inserted: [(index: Int, id: RowID, animation: RowAnimation)]
    /// Where the table's fresh identifiers start after the batch.
    let fresh: Int
    /// Rows given a new height (height changes and reloads with a height): index before and
    /// after, by increasing index before.
    let changedHeights: [(oldIndex: Int, newIndex: Int)]
    var map: UpdateMap { plan.map }
  }

  /// Checks a batch update's thread count, 1 or 2; `field` names it in the error.
  static func checkThreads(_ threads: Int, field: String) throws(CellMotionError) {
    guard threads == 1 || threads == 2 else {
      throw .outOfRange(field: field, value: Double(threads), expected: "1 or 2")
    }
  }

  /// The first step of `apply`: validates the batch, rebuilds the heights (in two parts at
  /// once with two threads), checks the layout after it with `check` and issues the
  /// inserted rows' identifiers. The rows do not change; on error nothing has.
  mutating func prepare(
    _ update: RowUpdate, expectedRowCount: Int?, minimumHeight: Double, threads: Int,
    checkingAfter check: (TableLayout) throws(CellMotionError) -> Void
  ) throws(CellMotionError) -> Prepared {
    try Self.checkThreads(threads, field: "threads")
    let plan = try UpdatePlan(update, rows: self, expectedRowCount: expectedRowCount, minimumHeight: minimumHeight)
    // Moved out for the batch, so that this holds its only reference.
    var recycle = self.recycle.heights
    self.recycle.heights = _Recycle()
    defer { self.recycle.heights = recycle }
    let map = plan.map
    let before = layout
    // Heights after: a row keeps its height unless changed (height changes and reloads name
    // it before the update); a fixed row is inserted (its height) or moved (its old one).
    let after: TableLayout
    // Places the animations read from the layout before, taken during the rebuild (a
    // uniform layout's are arithmetic: nil, read when needed).
    var places: _BeforePlaces? = nil
    if let h = before.uniformRowHeight, plan.keepsUniform(h) {
      after = try TableLayout(rowCount: map.newRowCount, rowHeight: h)
    } else {
      // Every height is one the layout held or one the plan checked.
      let rebuilt = try before.applying(
        map,
        fixedHeight: { j in
          let from = map.fixedFrom[j]
          return from < 0 ? plan.insertionOfFixed[j]!.height : before._height(from)
        }, newHeights: plan.newHeights,
        split: Self.split(before.heightBlocks, map, overrides: plan.newHeights.count, threads: threads),
        recycle: &recycle)
      after = rebuilt.layout
      places = rebuilt.places
    }
    try check(after)
    // Fresh identifiers start above every identifier the table or the batch has used.
    var fresh = ids.nextFresh
    var given: [Int] = []
    var needed = 0
    for case let ins? in plan.insertionOfFixed {
      if let id = ins.id {
        fresh = max(fresh, id.rawValue &+ 1)
        given.append(id.rawValue)
      } else {
        needed += 1
      }
    }
    // Once the top of `RowIdentifiers.valueRange` has been reached (a row was given the
    // largest identifier), the fresh ones are the smallest identifiers no row has, before
    // or after the batch: there are always some (at most `maxRowCount` rows).
    let spare = needed > RowIdentifiers.valueRange.upperBound - fresh ? ids.unused(needed, besides: given) : []
    var nextSpare = 0
    var insertedIDs = [RowID?](repeating: nil, count: map.fixed.count)
    var inserted: [(index: Int, id: RowID, animation: RowAnimation)] = []
    for j in map.fixed.indices {
      guard let insertion = plan.insertionOfFixed[j] else { continue }
      let id: RowID
      if let given = insertion.id {
        id = given
      } else if spare.isEmpty {
        id = RowID(fresh)
        fresh += 1
      } else {
        id = RowID(spare[nextSpare])
        nextSpare += 1
      }
      insertedIDs[j] = id
      inserted.append((map.fixed[j], id, insertion.animation))
    }
    return Prepared(
      plan: plan, before: before, after: after, places: places, oldIDs: ids, insertedIDs: insertedIDs,
      inserted: inserted, fresh: fresh,
      changedHeights: plan.newHeights.map { (oldIndex: $0.0, newIndex: map._newIndex($0.0)!) })
  }

  /// The memory the identifiers' next rebuild may build in, moved out (so that the
  /// rebuild holds its only reference) until `complete` puts it back.
  mutating func takeIdentifierRecycle() -> _Recycle<_IDLeaf> {
    defer { recycle.ids = _Recycle() }
    return recycle.ids
  }

  /// The second step of `apply`: the identifiers after the prepared batch (in two parts at
  /// once with two threads, for a large batch).
  static func identifiers(after p: Prepared, threads: Int, recycle: inout _Recycle<_IDLeaf>) -> RowIdentifiers {
    let map = p.map
    if map.fixed.isEmpty && map.removed.isEmpty { return p.oldIDs }
    let oldIDs = p.oldIDs
    let insertedIDs = p.insertedIDs
    return oldIDs.rebuilt(
      map, fixedValue: { j in insertedIDs[j] ?? oldIDs[map.fixedFrom[j]] }, nextFresh: p.fresh,
      split: split(oldIDs.blocks, map, overrides: 0, threads: threads), recycle: &recycle)
  }

  /// The last step of `apply`: the rows become the prepared layout and `newIDs`, the
  /// identifiers' memory (`recycle`) goes back, and what the batch did is returned.
  mutating func complete(_ p: Prepared, ids newIDs: RowIdentifiers, recycle: _Recycle<_IDLeaf>) -> AppliedUpdate {
    let map = p.map
    let oldIDs = p.oldIDs
    var deleted: [(index: Int, id: RowID, animation: RowAnimation)] = []
    var moved: [(from: Int, to: Int, id: RowID)] = []
    // The removed rows come by increasing index: their identifiers are read with a cursor.
    var cursor = 0
    for q in map.removed.indices {
      let o = map.removed[q]
      let id = oldIDs.blocks.element(o, cursor: &cursor)
      if map.removedTo[q] < 0 {
        deleted.append((o, id, p.plan.removedAnimation[q]!))
      } else {
        moved.append((o, map.removedTo[q], id))
      }
    }
    let reloaded = p.plan.reloads.map { r in
      (oldIndex: r.index, newIndex: map._newIndex(r.index)!, id: oldIDs[r.index], animation: r.animation)
    }
    layout = p.after
    ids = newIDs
    self.recycle.ids = recycle
    return AppliedUpdate(
      before: p.before, after: p.after, map: map, inserted: p.inserted, deleted: deleted, reloaded: reloaded,
      moved: moved, changedHeights: p.changedHeights, beforePlaces: p.places)
  }

  /// Where a rebuild of `blocks` by `map` is cut in two parts built at once: with two
  /// threads, for a batch `worthTwoThreads`; else nil.
  static func split<Leaf>(_ blocks: _Blocks<Leaf>, _ map: UpdateMap, overrides: Int, threads: Int) -> _MapPosition? {
    guard threads == 2, worthTwoThreads(map, overrides: overrides) else { return nil }
    return blocks.splitPosition(map, overrides: overrides)
  }

  /// Whether a batch's rebuild is worth a second thread: at least 1,024 changed rows (moved,
  /// inserted, deleted, given a height) on a table of at least 262,144 rows. The second
  /// thread pays where the rebuild waits on memory: many leaves copied out of a table
  /// larger than the caches. Below that, its start (tens of microseconds, twice a call),
  /// the join and the slabs given out cost more than it saves. Interleaved update
  /// sessions, two threads over one (medians of per-run ratios): 1,000,000 rows x 200
  /// changed rows 1.34 (slower), 100,000 x 2,000 0.98, 1,000,000 x 2,000 0.77, 4,000,000 x
  /// 2,000 0.83, 1,000,000 x 20,000 0.72.
  static func worthTwoThreads(_ map: UpdateMap, overrides: Int) -> Bool {
    map.fixed.count + map.removed.count + overrides >= 1024 && map.oldRowCount >= 1 << 18
  }

  /// Rows equal when their identifiers and heights are (and the layouts' representations,
  /// as `TableLayout`'s equality has it).
  public static func == (a: TableRows, b: TableRows) -> Bool { a.layout == b.layout && a.ids == b.ids }
}

/// A validated batch: the index map and what the rebuild needs.
struct UpdatePlan {
  let map: UpdateMap
  /// For each of the map's fixed rows that is inserted: its insertion.
  let insertionOfFixed: [RowUpdate.Insertion?]
  /// For each of the map's removed rows: its deletion's animation (nil: moved).
  let removedAnimation: [RowAnimation?]
  /// Reloads by increasing index before the update.
  let reloads: [RowUpdate.Reload]
  /// New heights by index before the update (height changes and reloads with a height).
  let newHeights: [(Int, Double)]

  /// Whether every height the batch brings is `h` (a uniform layout stays uniform).
  func keepsUniform(_ h: Double) -> Bool {
    insertionOfFixed.allSatisfy { $0 == nil || $0!.height == h } && newHeights.allSatisfy { $0.1 == h }
  }

  init(_ u: RowUpdate, rows: TableRows, expectedRowCount: Int?, minimumHeight: Double) throws(CellMotionError) {
    let oldCount = rows.rowCount
    // Field names ("deletions[3]", "insertions[7].height") are built only for an error:
    // building one per entry was a tenth of a 2,000-change batch (issue 32).
    func inRange(_ i: Int, _ count: Int, _ list: StaticString, _ e: Int, _ suffix: StaticString = "", when: String)
      throws(CellMotionError)
    {
      guard i >= 0, i < count else {
        throw .invalidUpdate(
          field: "\(list)[\(e)]\(suffix)", rule: .indexOutOfRange,
          reason: "row \(i) is out of range 0..<\(count) \(when) the update")
      }
    }
    func height(_ h: Double, _ list: StaticString, _ e: Int) throws(CellMotionError) {
      guard TableLayout.rowHeightRange.contains(h), h >= minimumHeight else {
        let field = "\(list)[\(e)].height"
        try Check.within(h, TableLayout.rowHeightRange, field)
        throw .outOfRange(field: field, value: h, expected: ">= \(minimumHeight) (a displayed row)")
      }
    }
    // Rows before the update: each named at most once by a deletion, a reload or a move.
    // Kinds: 0 deletion, 1 reload, 2 move (the order decides which rule a clash breaks).
    var oldSide: [(index: Int, kind: Int, entry: Int)] = []
    oldSide.reserveCapacity(u.deletions.count + u.reloads.count + u.moves.count)
    for (e, d) in u.deletions.enumerated() {
      try inRange(d.index, oldCount, "deletions", e, when: "before")
      oldSide.append((d.index, 0, e))
    }
    for (e, r) in u.reloads.enumerated() {
      try inRange(r.index, oldCount, "reloads", e, when: "before")
      if let h = r.height { try height(h, "reloads", e) }
      oldSide.append((r.index, 1, e))
    }
    for (e, m) in u.moves.enumerated() {
      try inRange(m.from, oldCount, "moves", e, ".from", when: "before")
      oldSide.append((m.from, 2, e))
    }
    _sortUnlessSorted(&oldSide) { ($0.index, $0.kind, $0.entry) < ($1.index, $1.kind, $1.entry) }
    let names = ["deletions", "reloads", "moves"]
    for k in oldSide.indices.dropFirst() where oldSide[k].index == oldSide[k - 1].index {
      let (a, b) = (oldSide[k - 1], oldSide[k])
      let rule: UpdateRule
      switch (a.kind, b.kind) {
      case (0, 1): rule = .deletedAndReloaded
      case (0, 2): rule = .deletedAndMoved
      case (1, 2): rule = .reloadedAndMoved
      default: rule = .repeatedIndex
      }
      throw .invalidUpdate(
        field: "\(names[b.kind])[\(b.entry)]", rule: rule,
        reason: "row \(b.index) is also named by \(names[a.kind])[\(a.entry)]")
    }
    let newCount = oldCount - u.deletions.count + u.insertions.count
    if let expectedRowCount, expectedRowCount != newCount {
      throw .invalidUpdate(
        field: "expectedRowCount", rule: .rowCountMismatch,
        reason: "the table has \(newCount) rows after the update (\(oldCount) before, \(u.insertions.count) "
          + "inserted, \(u.deletions.count) deleted), not \(expectedRowCount)")
    }
    try Check.count(newCount, max: TableLayout.maxRowCount, "row count after the update")
    // Rows after the update: each named at most once by an insertion or a move.
    var newSide: [(index: Int, kind: Int, entry: Int)] = []
    newSide.reserveCapacity(u.insertions.count + u.moves.count)
    for (e, ins) in u.insertions.enumerated() {
      try inRange(ins.index, newCount, "insertions", e, when: "after")
      try height(ins.height, "insertions", e)
      newSide.append((ins.index, 0, e))
    }
    for (e, m) in u.moves.enumerated() {
      try inRange(m.to, newCount, "moves", e, ".to", when: "after")
      newSide.append((m.to, 1, e))
    }
    _sortUnlessSorted(&newSide) { ($0.index, $0.kind, $0.entry) < ($1.index, $1.kind, $1.entry) }
    for k in newSide.indices.dropFirst() where newSide[k].index == newSide[k - 1].index {
      let (a, b) = (newSide[k - 1], newSide[k])
      let field = b.kind == 0 ? "insertions[\(b.entry)]" : "moves[\(b.entry)].to"
      let other = a.kind == 0 ? "insertions[\(a.entry)]" : "moves[\(a.entry)].to"
      throw .invalidUpdate(
        field: field, rule: .repeatedIndex, reason: "row \(b.index) after the update is also named by \(other)")
    }
    // Identifiers: an inserted row's must be new to the table and to the batch.
    var given: [(id: RowID, entry: Int)] = []
    for (e, ins) in u.insertions.enumerated() { if let id = ins.id { given.append((id, e)) } }
    _sortUnlessSorted(&given) { ($0.id, $0.entry) < ($1.id, $1.entry) }
    for k in given.indices.dropFirst() where given[k].id == given[k - 1].id {
      throw .invalidUpdate(
        field: "insertions[\(given[k].entry)].id", rule: .duplicateIdentifier,
        reason: "identifier \(given[k].id) is also given to insertions[\(given[k - 1].entry)]")
    }
    for (id, e) in given { try RowIdentifiers.check(id, "insertions[\(e)].id") }
    // Identifiers at or above `nextFresh` are new; the others are looked up in one pass.
    let older = given.filter { $0.id.rawValue < rows.ids.nextFresh }
    if !older.isEmpty {
      let wanted = Dictionary(older.map { ($0.id, $0.entry) }, uniquingKeysWith: min)
      if let (row, id) = rows.ids.firstRow(withAnyOf: wanted.keys.map(\.rawValue).sorted()) {
        throw .invalidUpdate(
          field: "insertions[\(wanted[id]!)].id", rule: .duplicateIdentifier,
          reason: "identifier \(id) belongs to row \(row) of the table")
      }
    }
    // The rows that leave their place (deleted or moved from), by increasing index before
    // the update (distinct: checked above), with the deletion's entry (-1: a move).
    var removed: [(index: Int, to: Int, deletion: Int)] = u.deletions.enumerated().map { ($1.index, -1, $0) }
    removed += u.moves.map { ($0.from, $0.to, -1) }
    _sortUnlessSorted(&removed) { $0.index < $1.index }
    // Heights: for rows that stay (not deleted), once each.
    // (row, height, kind: 0 a height change, 1 a reload; entry); the field is named on error.
    var heights: [(Int, Double, Int, Int)] = []
    for (e, c) in u.heightChanges.enumerated() {
      try inRange(c.index, oldCount, "heightChanges", e, when: "before")
      try height(c.height, "heightChanges", e)
      heights.append((c.index, c.height, 0, e))
    }
    for (e, r) in u.reloads.enumerated() { if let h = r.height { heights.append((r.index, h, 1, e)) } }
    _sortUnlessSorted(&heights) { ($0.0, $0.2, $0.3) < ($1.0, $1.2, $1.3) }
    func heightField(_ k: Int) -> String { "\(heights[k].2 == 0 ? "heightChanges" : "reloads")[\(heights[k].3)]" }
    for k in heights.indices {
      let q = removed.withUnsafeBufferPointer { r in _partitionPoint(r.count) { r[$0].index >= heights[k].0 } }
      if q < removed.count, removed[q].index == heights[k].0, removed[q].to < 0 {
        throw .invalidUpdate(
          field: heightField(k), rule: .changedDeletedRow, reason: "row \(heights[k].0) is deleted by this batch")
      }
      if k > 0, heights[k].0 == heights[k - 1].0 {
        throw .invalidUpdate(
          field: heightField(k), rule: .changedDeletedRow,
          reason: "row \(heights[k].0) also gets a height from \(heightField(k - 1))")
      }
    }
    // The map: removed rows (deleted or moved from) and fixed rows (inserted or moved to).
    var fixed: [(Int, Int, Int)] = u.insertions.enumerated().map { ($1.index, -1, $0) }
    fixed += u.moves.map { ($0.to, $0.from, -1) }
    _sortUnlessSorted(&fixed) { $0.0 < $1.0 }
    map = UpdateMap(
      oldRowCount: oldCount, newRowCount: newCount, removed: removed.map(\.index), removedTo: removed.map(\.to),
      fixed: fixed.map(\.0), fixedFrom: fixed.map(\.1))
    insertionOfFixed = fixed.map { $0.1 < 0 ? u.insertions[$0.2] : nil }
    removedAnimation = removed.map { $0.deletion < 0 ? nil : u.deletions[$0.deletion].animation }
    reloads = u.reloads.sorted { $0.index < $1.index }
    newHeights = heights.map { ($0.0, $0.1) }
  }
}

/// Sorts `a` by `less` (a strict order) unless no element is less than the one before it:
/// then `a` is in order already and a stable sort would leave it as it is. A batch's
/// entries usually come sorted; the check is one pass, where the sort's own run detection
/// cost about 25 instructions an element (issue 32).
@inline(__always)
func _sortUnlessSorted<T>(_ a: inout [T], by less: (T, T) -> Bool) {
  let inOrder = a.withUnsafeBufferPointer { p in
    var k = 1
    while k < p.count {
      if less(p[k], p[k - 1]) { return false }
      k += 1
    }
    return true
  }
  if !inOrder { a.sort(by: less) }
}
