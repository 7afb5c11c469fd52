// The animations that follow batch updates: every row slides from where it was to where
// the batch put it, and inserted, deleted and reloaded rows run their row animation.
//
// Model (additive, as UIKit animates positions since iOS 8): a batch b changes the layout
// from `before_b` to `after_b`. A row that keeps its identity through b carries the term
// D_b = (its top in before_b - its top in after_b) * (1 - p_b(t)), with p_b the slide
// progress (0 until the slide starts, 1 once it ends), and likewise for its height.
// Displayed top = top in the current layout + the sum of its terms over the batches in
// flight. At the instant a batch lands its new term equals the jump of the layout, so the
// position is continuous; its velocity gains -D_b p_b'(0), zero for curves that start at
// rest (ease-in-ease-out, a spring from rest), so with those it is continuous too.
//
// Goals, in priority order:
// 1. Exact and continuous (tested by differences around every batch).
// 2. Per frame O(v + p log k) for v rows drawn and p pieces: a batch's D_b is constant
//    between its change points, so each batch is kept as an edit list (segments of rows
//    that keep their order, with their old index and top shift; the moved rows; the rows
//    that change height) and the rows drawn are cut into pieces with one shift each, newest
//    batch first (issue 32: walking every row back through every batch took a fifth of a
//    10,000-row frame). Per batch update O(k log k + cells in flight).
// 3. Row animations found by row range (an index of the cells by row, one of the deleted
//    cells by place), never by scanning every cell in flight; finished ones dropped only
//    when one has finished.

import CellMotion

/// A slide's clock: progress 0 before `start`, the curve's progress over `duration`
/// seconds, 1 after.
struct SlideClock: Sendable, Equatable {
  var start: Double
  var duration: Double
  var curve: AnimationCurve

  var end: Double { start + duration }

  /// 1 - progress at `t` seconds.
  func remaining(at t: Double) -> Double {
    if t <= start { return 1 }
    if t >= end { return 0 }
    return 1 - curve.progress(localTime: t - start, duration: duration)
  }

  /// d(remaining)/dt at `t`, per second (0 outside the slide).
  func remainingRate(at t: Double) -> Double {
    t <= start || t >= end ? 0 : -curve.velocity(localTime: t - start, duration: duration)
  }
}

/// One batch whose slides may still run, as an edit list over the rows after it: its
/// rows that keep their order in segments (consecutive rows with one old-index offset and
/// one top shift; a segment's last row may change height), and its moved rows with their
/// shifts. The layouts before and after are not kept.
struct ActiveBatch: Sendable {
  let map: UpdateMap
  var clock: SlideClock
  /// The largest |top shift| + the largest |height change| over the rows that keep their
  /// order (moved rows are tracked one by one).
  let maxShift: Double
  /// Segments, by increasing first row (after the batch): rows `segStart[s] ..<
  /// segEnd[s]` were rows `segOld[s] ...` before it; each moved `segTop[s]` points (top
  /// before minus top after), and the last of them changed height by `segLastHeight[s]`
  /// points (height before minus after; 0 when it did not). Every row that is not fixed
  /// is in one segment.
  let segStart: [Int]
  let segEnd: [Int]
  let segOld: [Int]
  let segTop: [Double]
  let segLastHeight: [Double]
  /// For the map's j-th fixed row when it was moved: its top and height before minus
  /// after, points (0 for inserted rows).
  let fixedTop: [Double]
  let fixedHeight: [Double]

  init(_ applied: AppliedUpdate, clock: SlideClock) {
    self.init(
      map: applied.map, before: applied.before, after: applied.after, changedHeights: applied.changedHeights,
      places: applied.beforePlaces, clock: clock)
  }

  /// The batch that took `before` to `after` by `map`, `changedHeights` its rows given a
  /// new height (index before and after) and `places` what the rebuild read of `before`
  /// (`AppliedUpdate.beforePlaces`).
  init(
    map: UpdateMap, before: TableLayout, after: TableLayout, changedHeights: [(oldIndex: Int, newIndex: Int)],
    places: _BeforePlaces?, clock: SlideClock
  ) {
    self.map = map
    self.clock = clock
    // Rows that keep their order and change height, by index after the batch (a segment
    // ends with each).
    var changed: [(row: Int, height: Double)] = []
    for r in changedHeights where !map._isFixed(r.newIndex) {
      changed.append((r.newIndex, before._height(r.oldIndex) - after._height(r.newIndex)))
    }
    changed.sort { $0.row < $1.row }
    var segStart: [Int] = [], segEnd: [Int] = [], segOld: [Int] = []
    var segTop: [Double] = [], segLastHeight: [Double] = []
    var fixedTop = [Double](repeating: 0, count: map.fixed.count)
    var fixedHeight = [Double](repeating: 0, count: map.fixed.count)
    let reserve = map.fixed.count + map.removed.count + changed.count + 1
    segStart.reserveCapacity(reserve)
    segEnd.reserveCapacity(reserve)
    segOld.reserveCapacity(reserve)
    segTop.reserveCapacity(reserve)
    segLastHeight.reserveCapacity(reserve)
    var shift = 0.0
    var n = 0
    var c = 0
    // The runs come in row order, before and after: the tops are read with cursors (a
    // run's first top before the batch was read while the batch rebuilt the layout).
    var beforeLeaf = 0
    var afterLeaf = 0
    let runTops = places?.runTops
    var runIndex = 0
    map.walkRuns(
      run: { o, count in
        var a = n
        let end = n + count
        while a < end {
          // Up to and including the next row that changes height, or to the run's end.
          while c < changed.count, changed[c].row < a { c += 1 }
          let last = c < changed.count && changed[c].row < end ? changed[c].row : end - 1
          let old = o + (a - n)
          let topBefore = a == n && runTops != nil ? runTops![runIndex] : before._top(old, cursor: &beforeLeaf)
          let top = topBefore - after._top(a, cursor: &afterLeaf)
          segStart.append(a)
          segEnd.append(last + 1)
          segOld.append(old)
          segTop.append(top)
          segLastHeight.append(c < changed.count && changed[c].row == last ? changed[c].height : 0)
          shift = Swift.max(shift, abs(top))
          a = last + 1
        }
        runIndex += 1
        n = end
      },
      fixed: { j in
        let from = map.fixedFrom[j]
        if from >= 0 {
          fixedTop[j] = before._top(from) - after._top(n)
          fixedHeight[j] = before._height(from) - after._height(n)
        }
        n += 1
      })
    var heightShift = 0.0
    for r in changedHeights {
      heightShift = Swift.max(heightShift, abs(before._height(r.oldIndex) - after._height(r.newIndex)))
    }
    maxShift = shift + heightShift
    self.segStart = segStart
    self.segEnd = segEnd
    self.segOld = segOld
    self.segTop = segTop
    self.segLastHeight = segLastHeight
    self.fixedTop = fixedTop
    self.fixedHeight = fixedHeight
  }

  /// The segment holding row `n` (after the batch; not a fixed row), searched from segment
  /// `hint` on (`_partitionPoint(_:from:_:)`: 0, a plain search).
  @inline(__always)
  func segment(of n: Int, from hint: Int = 0) -> Int {
    segEnd.withUnsafeBufferPointer { e in _partitionPoint(e.count, from: hint) { e[$0] > n } }
  }

  /// Row `n` (after the batch): its index before it (nil: inserted by it) and how much it
  /// moved and grew (top and height before minus after, points). Unchecked.
  ///
  /// - Complexity: O(log k).
  func change(at n: Int) -> (old: Int?, top: Double, height: Double) {
    change(at: n, from: ChangeCursor()).change
  }

  /// Where `change(at:from:)` found the previous row: its fixed slot and segment.
  struct ChangeCursor {
    var fixed = 0
    var segment = 0
  }

  /// `change(at:)` for rows asked for mostly in increasing order: the fixed rows and the
  /// segments are searched from where the previous row was found (`cursor`; O(log d) for a
  /// move of d, a row before it costs a plain search). Returns where this row was found.
  /// (A returned cursor, not an inout one: with an inout argument the caller copied the
  /// whole batch for the call.)
  func change(at n: Int, from cursor: ChangeCursor) -> (
    change: (old: Int?, top: Double, height: Double), cursor: ChangeCursor
  ) {
    let fixed = map.fixed
    let j = fixed.withUnsafeBufferPointer { f in _partitionPoint(f.count, from: cursor.fixed) { f[$0] >= n } }
    if j < fixed.count && fixed[j] == n {
      let from = map.fixedFrom[j]
      return (from < 0 ? (nil, 0, 0) : (from, fixedTop[j], fixedHeight[j]), ChangeCursor(fixed: j, segment: cursor.segment))
    }
    let s = segment(of: n, from: cursor.segment)
    return (
      (segOld[s] + (n - segStart[s]), segTop[s], n == segEnd[s] - 1 ? segLastHeight[s] : 0),
      ChangeCursor(fixed: j, segment: s)
    )
  }

  /// Cuts `piece` (rows in a newer batch's space mapped to rows `piece.index ...` after this
  /// one) at this batch's change points, adds this batch's shifts times `w` (its slide
  /// remaining) and maps each part to the rows before this batch, appending the parts to
  /// `out` in row order.
  ///
  /// - Complexity: O(log k + parts).
  func split(_ piece: _ShiftPiece, w: Double, into out: inout [_ShiftPiece]) {
    var i = piece.index
    let end = piece.index + piece.count
    var row = piece.row
    let fixed = map.fixed
    var f = _lowerBound(fixed, i)
    var s = -1
    while i < end {
      if f < fixed.count, fixed[f] == i {
        let from = map.fixedFrom[f]
        if from < 0 {
          // Inserted by this batch: older batches do not move it.
          out.append(_ShiftPiece(row: row, count: 1, index: i, top: piece.top, height: piece.height, alive: false))
        } else {
          out.append(
            _ShiftPiece(
              row: row, count: 1, index: from, top: w != 0 ? piece.top + fixedTop[f] * w : piece.top,
              height: w != 0 ? piece.height + fixedHeight[f] * w : piece.height, alive: true))
        }
        i += 1
        row += 1
        f += 1
        continue
      }
      if s < 0 { s = segment(of: i) }
      while segEnd[s] <= i { s += 1 }
      // Segments hold no fixed row, so a fixed row ends the one before it.
      let stop = Swift.min(end, segEnd[s])
      let old = segOld[s] + (i - segStart[s])
      let top = w != 0 ? piece.top + segTop[s] * w : piece.top
      let lastHeight = segLastHeight[s]
      if lastHeight != 0, stop == segEnd[s] {
        if stop - 1 > i {
          out.append(_ShiftPiece(row: row, count: stop - 1 - i, index: old, top: top, height: piece.height, alive: true))
        }
        out.append(
          _ShiftPiece(
            row: row + (stop - 1 - i), count: 1, index: old + (stop - 1 - i), top: top,
            height: w != 0 ? piece.height + lastHeight * w : piece.height, alive: true))
      } else {
        out.append(_ShiftPiece(row: row, count: stop - i, index: old, top: top, height: piece.height, alive: true))
      }
      row += stop - i
      i = stop
    }
  }
}

/// Consecutive rows drawn with one shift: rows `row ..< row + count` (now) were rows
/// `index ...` in the space of the batch being walked; `top` and `height` are the shifts
/// (points) of the newer batches; `alive` is false once a batch inserted the row (older
/// batches do not move it).
struct _ShiftPiece: Sendable {
  var row: Int
  var count: Int
  var index: Int
  var top: Double
  var height: Double
  var alive: Bool

  var rows: Range<Int> { row..<(row + count) }
}

/// A row animation in flight after a batch update: an inserted or deleted row, or a
/// reloaded row's old or new contents.
public struct UpdateCell: Sendable, Equatable {
  public enum Kind: String, Sendable, Equatable, CaseIterable {
    /// An inserted row (its row animation's insertion recipe).
    case inserted
    /// A deleted row, drawn where it was until its deletion recipe ends.
    case deleted
    /// A reloaded row's old contents (the deletion recipe), drawn over the row's place.
    case reloadedOld
    /// A reloaded row's new contents (the insertion recipe), in the row's place.
    case reloadedNew
  }
  public var kind: Kind
  /// The row's identifier.
  public var id: RowID
  /// The row's index in the table now; nil for a deleted row.
  public var row: Int?
  /// A deleted row's index before the batch that deleted it (nil for the other kinds).
  public var deletedFrom: Int? = nil
  /// Which recipe runs (`RowAnimationRecipes.recipe`): the resolved style, never `.automatic`.
  public var key: RowAnimationKey
  /// Seconds: when the recipe's local time is 0 (after the phase's delay and the stagger).
  public var beginTime: Double
  /// Seconds: when the recipe ends (the cell is dropped then).
  public var endTime: Double
  /// Position among the batch's cells of the same kind, in increasing row order, and their
  /// number (for the recipe's own stagger).
  public var batchPosition: Int
  public var batchCount: Int
  /// Whether the cell draws behind the rows that stay (inserted and deleted rows).
  public var isBehind: Bool { kind == .inserted || kind == .deleted }
  /// A deleted row: its top and height (content points) in the layout it left, and the
  /// slides it was making then (they go on): `slideCount` of them at `slideStart` in its
  /// `UpdateAnimations`' slide pool. No array per cell: a cell is a plain value, copied
  /// without reference counting (issue 32: a cell's own array was an allocation per
  /// deleted row and a retain and release per copy).
  var frozenTop = 0.0
  var frozenHeight = 0.0
  var slideStart = 0
  var slideCount = 0

  /// Equal when every field but the slides' place in the pool is.
  public static func == (a: UpdateCell, b: UpdateCell) -> Bool {
    a.kind == b.kind && a.id == b.id && a.row == b.row && a.deletedFrom == b.deletedFrom && a.key == b.key
      && a.beginTime == b.beginTime && a.endTime == b.endTime && a.batchPosition == b.batchPosition
      && a.batchCount == b.batchCount && a.frozenTop == b.frozenTop && a.frozenHeight == b.frozenHeight
      && a.slideCount == b.slideCount
  }
}

/// A slide a deleted row keeps making: shift `top` and `height` points times the clock's
/// remaining fraction.
struct FrozenSlide: Sendable, Equatable {
  var clock: SlideClock
  var top: Double
  var height: Double
}

/// The batch updates in flight: their slides, the row animations they started and the rows
/// they moved.
public struct UpdateAnimations: Sendable {
  /// The recipes of the row animation styles, and the timing.
  public var recipes: RowAnimationRecipes {
    didSet { durations = [Double](repeating: .nan, count: RowAnimationKey._slots) }
  }
  var batches: [ActiveBatch] = []
  /// Row animations in flight, in the order they started.
  public private(set) var cells: [UpdateCell] = []
  /// The deleted cells' frozen slides (`UpdateCell.slideStart`, `slideCount`); compacted
  /// by `reindex` once most of it belongs to cells that have ended.
  private var slidePool: [FrozenSlide] = []
  /// The pool's memory before its last compaction, which the next compaction writes into
  /// (a fresh pool each time was grown again by the next batches: a copy to fresh memory,
  /// about 150,000 instructions of a batch at a million rows).
  private var spareSlides: [FrozenSlide] = []
  /// Slides the pool holds (tests of its compaction).
  var slidePoolCount: Int { slidePool.count }
  /// Rows a batch moved (explicitly) whose slide runs until `until` seconds: drawn wherever
  /// they are, even far from the visible rows.
  var movers: [(row: Int, until: Double)] = []
  /// `prepareFrame`: each batch's remaining slide at `frameTime`.
  var remainingNow: [Double] = []
  var frameTime = -Double.infinity
  /// `prepareFrame`: how far (points) any row that keeps its order may be drawn from its
  /// place in the layout at `frameTime`, a bound on |top shift| + |height change|.
  private(set) var bound = 0.0
  /// `pieces(of:)`: the rows asked for, cut into pieces with one shift each, in row order.
  private(set) var pieces: [_ShiftPiece] = []
  /// Scratch for `pieces(of:)`.
  private var nextPieces: [_ShiftPiece] = []
  /// The cells that have a row (all but the deleted ones), by row then position in
  /// `cells`: (row, position).
  private(set) var rowIndex: [(row: Int, cell: Int)] = []
  /// The deleted cells by where they were (their `frozenTop`, content points): (top,
  /// position in `cells`).
  private(set) var placeIndex: [(top: Double, cell: Int)] = []
  /// The largest `frozenReach` and the largest `frozenHeight` of the deleted cells in
  /// flight: a deleted cell is drawn within `deletedReach x maxRemaining` above its
  /// `frozenTop` and that plus `deletedHeight` below it.
  private(set) var deletedReach = 0.0
  private(set) var deletedHeight = 0.0
  /// `prepareFrame`: the largest |remaining slide| of the batches in flight, at least 1
  /// (an overshooting curve takes it past 1 for a moment).
  private(set) var maxRemaining = 1.0
  /// The earliest and the latest `endTime` of the cells, and the earliest `until` of the
  /// movers (+infinity / -infinity when there are none).
  private var firstCellEnd = Double.infinity
  private var lastCellEnd = -Double.infinity
  private var firstMoverEnd = Double.infinity
  /// The active duration (seconds) of each row animation recipe used so far, by
  /// `RowAnimationKey._slot` (NaN: not worked out yet). An array, not a dictionary: hashing
  /// the key (its style hashes its raw string) per cell was a tenth of a batch update.
  private var durations = [Double](repeating: .nan, count: RowAnimationKey._slots)

  public init(recipes: RowAnimationRecipes = RowAnimationRecipes()) { self.recipes = recipes }

  /// Whether any batch or row animation is kept (the last `removeFinished` left some).
  var isActive: Bool { !batches.isEmpty || !cells.isEmpty || !movers.isEmpty }

  /// Whether anything is still moving or animating at `time` seconds.
  ///
  /// - Complexity: O(batches).
  public func isAnimating(at time: Double) -> Bool {
    batches.contains { $0.clock.end > time } || lastCellEnd > time
  }

  /// The clock of the slides of a batch applied at `time` before its phases' delays
  /// (`record` sets its start).
  func slideClock(at time: Double) -> SlideClock {
    SlideClock(start: time, duration: recipes.timing.moveDuration, curve: recipes.timing.curve)
  }

  /// Adds the animations of a batch applied at `time`: the slides, the row animations of
  /// the inserted, deleted and reloaded rows, and the moved rows. `batch`: the batch's
  /// slides when the caller built them already (`ActiveBatch(map:...clock: slideClock(at:
  /// time))`, while the identifiers rebuilt), else nil.
  ///
  /// - Complexity: O(k log k + c) for k changed rows and c cells in flight.
  mutating func record(_ applied: AppliedUpdate, at time: Double, batch built: ActiveBatch? = nil) {
    let timing = recipes.timing
    // The batch's slides; their start waits for the phases before them.
    var batch = built ?? ActiveBatch(applied, clock: slideClock(at: time))
    let removes = !applied.deleted.isEmpty
    let changes = !applied.reloaded.isEmpty
    // Something moves when a row that stays changes place or height, or a row is moved.
    let moves = batch.maxShift > 0 || !applied.moved.isEmpty
    let delays = timing.delays(removes: removes, moves: moves, changes: changes)
    batch.clock.start = time + delays.move
    // The new cells go straight to `cells`, after the ones in flight (no staging array).
    cells.reserveAmortized(cells.count + applied.deleted.count + 2 * applied.reloaded.count + applied.inserted.count)
    // Deleted rows keep the slides they were making (the batches so far, before this one).
    // The deleted rows come by increasing index: their places were read while the batch
    // rebuilt the layout (the map's removed rows, in the same order), or are read here with
    // a cursor.
    var cursor = 0
    var removedSlot = 0
    let removed = applied.map.removed
    let removedPlaces = applied.beforePlaces?.removed
    // The deleted rows come in increasing order, and so (but for moved rows) do the rows
    // they trace back to through each batch: each batch is searched from where the
    // previous row was found.
    var changeCursors = [ActiveBatch.ChangeCursor](repeating: .init(), count: batches.count)
    for (k, d) in applied.deleted.enumerated() {
      let style = RowAnimationRecipes.resolve(d.animation, row: d.index, rowCount: applied.map.oldRowCount)
      var cell = makeCell(.deleted, d.id, nil, RowAnimationKey(style: style, change: .deletion), time + delays.remove, k, applied.deleted.count)
      cell.deletedFrom = d.index
      if let removedPlaces {
        while removed[removedSlot] < d.index { removedSlot += 1 }
        (cell.frozenTop, cell.frozenHeight) = removedPlaces[removedSlot]
      } else {
        (cell.frozenTop, cell.frozenHeight) = applied.before._place(d.index, cursor: &cursor)
      }
      cell.slideStart = slidePool.count
      var index = d.index
      for q in batches.indices.reversed() {
        let (change, found) = batches[q].change(at: index, from: changeCursors[q])
        changeCursors[q] = found
        guard let o = change.old else { break }
        slidePool.append(FrozenSlide(clock: batches[q].clock, top: change.top, height: change.height))
        index = o
      }
      cell.slideCount = slidePool.count - cell.slideStart
      cells.append(cell)
    }
    // Rows tracked by index follow the batch; those it deleted are dropped. In place, in
    // row order (`rowIndex`, up to date since the last `reindex`: it lists every cell with
    // a row, none of those just added), so the map is read with a cursor.
    var dropped = false
    var mapCursor = UpdateMap.Cursor()
    rowIndex.withUnsafeBufferPointer { index in
      cells.withUnsafeMutableBufferPointer { cells in
        for (r, k) in index {
          if let n = applied.map._newIndex(r, cursor: &mapCursor) {
            cells[k].row = n
          } else {
            cells[k].row = Int.min
            dropped = true
          }
        }
      }
    }
    if dropped { cells.removeAll { $0.row == Int.min } }
    movers = movers.compactMap { m in applied.map._newIndex(m.row).map { (row: $0, until: m.until) } }
    batches.append(batch)
    for m in applied.moved { movers.append((m.to, batch.clock.end)) }
    // A reloaded row's new contents replace the row animation its slot was running (an
    // insertion or an earlier reload still in flight): one animation per slot.
    if !applied.reloaded.isEmpty {
      let reloadedRows = Set(applied.reloaded.map(\.newIndex))
      cells.removeAll { ($0.kind == .inserted || $0.kind == .reloadedNew) && reloadedRows.contains($0.row ?? -1) }
    }
    for (k, r) in applied.reloaded.enumerated() {
      let style = RowAnimationRecipes.resolve(r.animation, row: r.newIndex, rowCount: applied.map.newRowCount, reload: true)
      let begin = time + delays.change
      cells.append(makeCell(.reloadedOld, r.id, r.newIndex, RowAnimationKey(style: style, change: .deletion, reload: true), begin, k, applied.reloaded.count))
      cells.append(makeCell(.reloadedNew, r.id, r.newIndex, RowAnimationKey(style: style, change: .insertion, reload: true), begin, k, applied.reloaded.count))
    }
    let count = applied.inserted.count
    for (k, ins) in applied.inserted.enumerated() {
      let style = RowAnimationRecipes.resolve(ins.animation, row: ins.index, rowCount: applied.map.newRowCount)
      let stagger = ReferenceEvaluator.staggerDelay(
        timing.insertionStagger, row: ins.index, batchPosition: k, rowCount: applied.map.newRowCount, batchCount: count)
      cells.append(makeCell(.inserted, ins.id, ins.index, RowAnimationKey(style: style, change: .insertion), time + delays.add + stagger, k, count))
    }
    reindex()
  }

  private mutating func makeCell(
    _ kind: UpdateCell.Kind, _ id: RowID, _ row: Int?, _ key: RowAnimationKey, _ begin: Double, _ position: Int, _ count: Int
  ) -> UpdateCell {
    UpdateCell(
      kind: kind, id: id, row: row, key: key, beginTime: begin, endTime: begin + duration(key),
      batchPosition: position, batchCount: count)
  }

  /// The active duration of `key`'s recipe, seconds: worked out once per recipe (not a
  /// `Recipe` built per cell).
  private mutating func duration(_ key: RowAnimationKey) -> Double {
    let slot = key._slot
    let known = durations[slot]
    if !known.isNaN { return known }
    let d = recipes.recipe(key.style, key.change, reload: key.reload).activeDuration
    durations[slot] = d
    return d
  }

  /// Rebuilds the indexes of the cells and their end times.
  ///
  /// - Complexity: O(c) when the cells' rows are already in order (they stay in order
  ///   through batches but for moved rows), O(c log c) at worst.
  private mutating func reindex() {
    rowIndex.removeAll(keepingCapacity: true)
    placeIndex.removeAll(keepingCapacity: true)
    firstCellEnd = .infinity
    lastCellEnd = -.infinity
    deletedReach = 0
    deletedHeight = 0
    var rowsSorted = true
    var placesSorted = true
    rowIndex.reserveAmortized(cells.count)
    var live = 0
    let pool = slidePool
    cells.withUnsafeBufferPointer { cells in
      // Fields read through the pointer: no copy of a cell (it holds an array).
      var lastRow = Int.min
      var lastTop = -Double.infinity
      for k in cells.indices {
        let end = cells[k].endTime
        firstCellEnd = Swift.min(firstCellEnd, end)
        lastCellEnd = Swift.max(lastCellEnd, end)
        if let r = cells[k].row {
          if lastRow > r { rowsSorted = false }
          lastRow = r
          rowIndex.append((r, k))
        } else {
          let top = cells[k].frozenTop
          if lastTop > top { placesSorted = false }
          lastTop = top
          placeIndex.append((top, k))
          deletedReach = Swift.max(deletedReach, Self.frozenReach(cells[k], pool))
          live += cells[k].slideCount
          deletedHeight = Swift.max(deletedHeight, cells[k].frozenHeight)
        }
      }
    }
    // The slides' contents do not move, only their place: the reaches above stand.
    compactSlides(live: live)
    if !rowsSorted { rowIndex.sort { ($0.row, $0.cell) < ($1.row, $1.cell) } }
    if !placesSorted { placeIndex.sort { ($0.top, $0.cell) < ($1.top, $1.cell) } }
    firstMoverEnd = movers.lazy.map(\.until).min() ?? .infinity
  }

  /// How far (points) a deleted cell's slides can take its top, plus how far they can grow
  /// it, when no slide has more than all of its shift left: with `frozenHeight`, a bound on
  /// where it is drawn around `frozenTop`.
  static func frozenReach(_ c: UpdateCell, _ pool: [FrozenSlide]) -> Double {
    var r = 0.0
    for s in pool[c.slideStart..<(c.slideStart + c.slideCount)] { r += abs(s.top) + abs(s.height) }
    return r
  }

  /// Rewrites the slide pool with only the slides of the cells in flight, once it holds
  /// more than twice as many (and a few hundred besides), so it stays within about twice
  /// what the cells use.
  ///
  /// - Complexity: O(c + s) for c cells and s slides when it compacts; O(1) otherwise
  ///   (`live`: the slides the cells use, counted by `reindex`).
  private mutating func compactSlides(live: Int) {
    guard slidePool.count > 2 * live + 256 else { return }
    // As much room as the pool had: the batches after this one grow it as far again.
    var pool = [FrozenSlide]._reusing(&spareSlides, capacity: Swift.max(2 * live + 256, slidePool.capacity))
    // Every cell's start moves (an empty range too: it must stay within the new pool).
    for k in cells.indices {
      let start = cells[k].slideStart
      cells[k].slideStart = pool.count
      if cells[k].slideCount > 0 { pool.append(contentsOf: slidePool[start..<(start + cells[k].slideCount)]) }
    }
    spareSlides = slidePool
    slidePool = pool
  }

  /// Drops what has ended by `time`: row animations, movers, and the oldest batches whose
  /// slides are over (a newer batch that ended stays while an older one runs: rows are
  /// traced through it).
  ///
  /// - Complexity: O(batches) unless a cell or mover has ended, then O(c) (c in flight).
  mutating func removeFinished(at time: Double) {
    if time >= firstCellEnd || time >= firstMoverEnd {
      cells.removeAll { $0.endTime <= time }
      movers.removeAll { $0.until <= time }
      reindex()
    }
    while let b = batches.first, b.clock.end <= time {
      batches.removeFirst()
    }
  }

  /// The shift of row `row`'s top and height (points) at `time`, and their rates (points
  /// per second). Unchecked: `0 <= row < rowCount`.
  ///
  /// - Complexity: O(batches x log k).
  func shift(ofRow row: Int, at time: Double) -> (top: Double, height: Double, topRate: Double, heightRate: Double) {
    var index = row
    var s = (top: 0.0, height: 0.0, topRate: 0.0, heightRate: 0.0)
    for b in batches.reversed() {
      let change = b.change(at: index)
      guard let o = change.old else { break }
      let w = b.clock.remaining(at: time)
      let dw = b.clock.remainingRate(at: time)
      s.top += change.top * w
      s.height += change.height * w
      s.topRate += change.top * dw
      s.heightRate += change.height * dw
      index = o
    }
    return s
  }

  /// Cuts the consecutive rows `rows` into `pieces` (in row order) with one top and
  /// height shift each (points) at the time of the last `prepareFrame`: the same values as
  /// `shift(ofRow:at:)`, batch by batch, newest first.
  ///
  /// - Complexity: O(batches x (p + log k)) for p pieces; no allocation once the scratch
  ///   has grown.
  mutating func cut(_ rows: Range<Int>) {
    pieces.removeAll(keepingCapacity: true)
    guard !rows.isEmpty else { return }
    pieces.append(_ShiftPiece(row: rows.lowerBound, count: rows.count, index: rows.lowerBound, top: 0, height: 0, alive: true))
    var k = batches.count - 1
    while k >= 0 {
      let w = remainingNow[k]
      nextPieces.removeAll(keepingCapacity: true)
      batches.withUnsafeBufferPointer { batches in
        for p in pieces {
          if p.alive {
            batches[k].split(p, w: w, into: &nextPieces)
          } else {
            nextPieces.append(p)
          }
        }
      }
      swap(&pieces, &nextPieces)
      k -= 1
    }
  }

  /// Each batch's slide remaining (1 - progress) at `time`, once per frame, for `cut`,
  /// `frozenGeometry` (a deleted row's slides are its batches' clocks) and `bound`, so the
  /// curves are solved once per batch and frame.
  mutating func prepareFrame(at time: Double) {
    remainingNow.removeAll(keepingCapacity: true)
    bound = 0
    maxRemaining = 1
    for b in batches {
      let w = b.clock.remaining(at: time)
      remainingNow.append(w)
      bound += b.maxShift * abs(w)
      maxRemaining = Swift.max(maxRemaining, abs(w))
    }
    frameTime = time
  }

  /// A deleted cell's top and height (content points) at the time of the last
  /// `prepareFrame`.
  func frozenGeometry(_ c: UpdateCell) -> (top: Double, height: Double) {
    var top = c.frozenTop
    var height = c.frozenHeight
    for s in slidePool[c.slideStart..<(c.slideStart + c.slideCount)] {
      let w: Double
      if frameTime >= s.clock.end {
        w = 0
      } else if let k = batches.firstIndex(where: { $0.clock == s.clock }) {
        w = remainingNow[k]
      } else {
        w = s.clock.remaining(at: frameTime)
      }
      top += s.top * w
      height += s.height * w
    }
    return (top, height)
  }

  /// Positions in `cells` of the cells that may be drawn in the frame of the last
  /// `prepareFrame` whose rows `rows` can meet the band `[lower, upper)` (content points):
  /// those with a row in `rows`, and the deleted ones whose slides can bring them into the
  /// band. Written to `out` (cleared first) in increasing position (the order the cells
  /// started).
  ///
  /// - Complexity: O(log c + m log m) for m cells found; no allocation once `out` has
  ///   grown.
  func cells(near rows: Range<Int>, lower: Double, upper: Double, into out: inout [Int]) {
    out.removeAll(keepingCapacity: true)
    rowIndex.withUnsafeBufferPointer { index in
      var k = _partitionPoint(index.count) { index[$0].row >= rows.lowerBound }
      while k < index.count, index[k].row < rows.upperBound {
        out.append(index[k].cell)
        k += 1
      }
    }
    let reach = deletedReach * maxRemaining
    let height = deletedHeight
    placeIndex.withUnsafeBufferPointer { index in
      var k = _partitionPoint(index.count) { index[$0].top >= lower - reach - height }
      while k < index.count, index[k].top <= upper + reach {
        out.append(index[k].cell)
        k += 1
      }
    }
    out.withUnsafeMutableBufferPointer { _sortInPlace($0) }
  }
}

/// Sorts `a` increasing, in place, without allocating: insertion sort for a few values,
/// heapsort beyond.
func _sortInPlace(_ a: UnsafeMutableBufferPointer<Int>) {
  let n = a.count
  if n <= 32 {
    for i in 1..<Swift.max(n, 1) {
      let x = a[i]
      var j = i - 1
      while j >= 0, a[j] > x {
        a[j + 1] = a[j]
        j -= 1
      }
      a[j + 1] = x
    }
    return
  }
  func siftDown(_ root: Int, _ end: Int) {
    var parent = root
    while true {
      var child = 2 * parent + 1
      guard child < end else { return }
      if child + 1 < end, a[child] < a[child + 1] { child += 1 }
      guard a[parent] < a[child] else { return }
      a.swapAt(parent, child)
      parent = child
    }
  }
  for root in stride(from: n / 2 - 1, through: 0, by: -1) { siftDown(root, n) }
  for end in stride(from: n - 1, to: 0, by: -1) {
    a.swapAt(0, end)
    siftDown(0, end)
  }
}

extension Array {
  /// Room for `n` elements, growing by at least doubling: `reserveCapacity(n)` allocates
  /// exactly `n`, so an array reserved a little larger each batch was copied to fresh
  /// memory (page faults on every page) each batch.
  mutating func reserveAmortized(_ n: Int) {
    if capacity < n { reserveCapacity(Swift.max(n, 2 * capacity)) }
  }
}
