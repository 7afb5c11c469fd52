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
// 2. Per frame O(v + k) for v rows drawn and k changed rows: the index maps are walked
//    with cursors over the contiguous visible rows, not searched per row.

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

/// One batch whose slides may still run.
struct ActiveBatch: Sendable {
  let before: TableLayout
  let after: TableLayout
  let map: UpdateMap
  var clock: SlideClock
  /// The largest |top shift| + the largest |height change| over the rows that keep their
  /// order (moved rows are tracked one by one).
  let maxShift: Double

  init(_ applied: AppliedUpdate, clock: SlideClock) {
    before = applied.before
    after = applied.after
    map = applied.map
    self.clock = clock
    // The top shift of rows that keep their order is constant between the batch's changed
    // rows: it is enough to look just after each change.
    var candidates = [0, map.newRowCount - 1]
    for n in map.fixed { candidates += [n - 1, n + 1] }
    for o in map.removed { if let n = map._newIndex(o + 1 < map.oldRowCount ? o + 1 : o) { candidates.append(n) } }
    for r in applied.changedHeights { candidates.append(r.newIndex + 1) }
    var shift = 0.0
    var heightShift = 0.0
    for n in candidates where n >= 0 && n < map.newRowCount && !map._isFixed(n) {
      shift = max(shift, abs(Self.change(applied.before, applied.after, from: map._oldIndex(n)!, to: n).top))
    }
    for r in applied.changedHeights {
      heightShift = max(heightShift, abs(Self.change(applied.before, applied.after, from: r.oldIndex, to: r.newIndex).height))
    }
    maxShift = shift + heightShift
  }

  /// How much the row at `o` before this batch and `n` after it moved and grew: its top
  /// and height before minus after, points.
  @inline(__always)
  func change(from o: Int, to n: Int) -> (top: Double, height: Double) { Self.change(before, after, from: o, to: n) }

  @inline(__always)
  static func change(_ before: TableLayout, _ after: TableLayout, from o: Int, to n: Int) -> (top: Double, height: Double) {
    (before._top(o) - after._top(n), before._height(o) - after._height(n))
  }
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
  /// slides it was making then (they go on).
  var frozenTop = 0.0
  var frozenHeight = 0.0
  var frozenSlides: [FrozenSlide] = []
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
  public var recipes: RowAnimationRecipes
  var batches: [ActiveBatch] = []
  /// Row animations in flight, in the order they started.
  public private(set) var cells: [UpdateCell] = []
  /// Rows a batch moved (explicitly) whose slide runs until `until` seconds: drawn wherever
  /// they are, even far from the visible rows.
  var movers: [(row: Int, until: Double)] = []
  /// Scratch for `shifts`: the rows' indexes walked back through the batches.
  var indexes: [Int] = []
  /// `prepareFrame`: each batch's remaining slide at `frameTime`.
  var remainingNow: [Double] = []
  var frameTime = -Double.infinity
  /// `prepareFrame`: how far (points) any row that keeps its order may be drawn from its
  /// place in the layout at `frameTime`, a bound on |top shift| + |height change|.
  private(set) var bound = 0.0

  public init(recipes: RowAnimationRecipes = RowAnimationRecipes()) { self.recipes = recipes }

  /// Whether any batch or row animation is kept (the last `removeFinished` left some).
  var isActive: Bool { !batches.isEmpty || !cells.isEmpty || !movers.isEmpty }

  /// Whether anything is still moving or animating at `time` seconds.
  public func isAnimating(at time: Double) -> Bool {
    batches.contains { $0.clock.end > time } || cells.contains { $0.endTime > time }
  }

  /// Adds the animations of a batch applied at `time`: the slides, the row animations of
  /// the inserted, deleted and reloaded rows, and the moved rows.
  mutating func record(_ applied: AppliedUpdate, at time: Double) {
    let timing = recipes.timing
    // The batch's slides; their start waits for the phases before them.
    var batch = ActiveBatch(applied, clock: SlideClock(start: time, duration: timing.moveDuration, curve: timing.curve))
    let removes = !applied.deleted.isEmpty
    let changes = !applied.reloaded.isEmpty
    // Something moves when a row that stays changes place or height, or a row is moved.
    let moves = batch.maxShift > 0 || !applied.moved.isEmpty
    let delays = timing.delays(removes: removes, moves: moves, changes: changes)
    batch.clock.start = time + delays.move
    // Deleted rows keep the slides they were making (the batches so far, before this one).
    var newCells: [UpdateCell] = []
    for (k, d) in applied.deleted.enumerated() {
      let style = RowAnimationRecipes.resolve(d.animation, row: d.index, rowCount: applied.map.oldRowCount)
      var cell = makeCell(.deleted, d.id, nil, RowAnimationKey(style: style, change: .deletion), time + delays.remove, k, applied.deleted.count)
      cell.deletedFrom = d.index
      cell.frozenTop = applied.before._top(d.index)
      cell.frozenHeight = applied.before._height(d.index)
      var index = d.index
      for b in batches.reversed() {
        guard let o = b.map._oldIndex(index) else { break }
        let change = b.change(from: o, to: index)
        cell.frozenSlides.append(FrozenSlide(clock: b.clock, top: change.top, height: change.height))
        index = o
      }
      newCells.append(cell)
    }
    // Rows tracked by index follow the batch; those it deleted are dropped.
    var kept: [UpdateCell] = []
    for var c in cells {
      if let r = c.row {
        guard let n = applied.map._newIndex(r) else { continue }
        c.row = n
      }
      kept.append(c)
    }
    cells = kept
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
      newCells.append(makeCell(.reloadedOld, r.id, r.newIndex, RowAnimationKey(style: style, change: .deletion, reload: true), begin, k, applied.reloaded.count))
      newCells.append(makeCell(.reloadedNew, r.id, r.newIndex, RowAnimationKey(style: style, change: .insertion, reload: true), begin, k, applied.reloaded.count))
    }
    let count = applied.inserted.count
    for (k, ins) in applied.inserted.enumerated() {
      let style = RowAnimationRecipes.resolve(ins.animation, row: ins.index, rowCount: applied.map.newRowCount)
      let stagger = ReferenceEvaluator.staggerDelay(
        timing.insertionStagger, row: ins.index, batchPosition: k, rowCount: applied.map.newRowCount, batchCount: count)
      newCells.append(makeCell(.inserted, ins.id, ins.index, RowAnimationKey(style: style, change: .insertion), time + delays.add + stagger, k, count))
    }
    cells += newCells
  }

  private func makeCell(
    _ kind: UpdateCell.Kind, _ id: RowID, _ row: Int?, _ key: RowAnimationKey, _ begin: Double, _ position: Int, _ count: Int
  ) -> UpdateCell {
    let recipe = recipes.recipe(key.style, key.change, reload: key.reload)
    return UpdateCell(
      kind: kind, id: id, row: row, key: key, beginTime: begin, endTime: begin + recipe.activeDuration,
      batchPosition: position, batchCount: count)
  }

  /// Drops what has ended by `time`: row animations, movers, and the oldest batches whose
  /// slides are over (a newer batch that ended stays while an older one runs: rows are
  /// traced through it).
  mutating func removeFinished(at time: Double) {
    cells.removeAll { $0.endTime <= time }
    movers.removeAll { $0.until <= time }
    while let b = batches.first, b.clock.end <= time {
      batches.removeFirst()
    }
  }


  /// The shift of row `row`'s top and height (points) at `time`, and their rates (points
  /// per second). Unchecked: `0 <= row < rowCount`.
  func shift(ofRow row: Int, at time: Double) -> (top: Double, height: Double, topRate: Double, heightRate: Double) {
    var index = row
    var s = (top: 0.0, height: 0.0, topRate: 0.0, heightRate: 0.0)
    for b in batches.reversed() {
      guard let o = b.map._oldIndex(index) else { break }
      let w = b.clock.remaining(at: time)
      let dw = b.clock.remainingRate(at: time)
      let change = b.change(from: o, to: index)
      s.top += change.top * w
      s.height += change.height * w
      s.topRate += change.top * dw
      s.heightRate += change.height * dw
      index = o
    }
    return s
  }

  /// The top and height shifts (points) of the consecutive rows `rows` at the time of the
  /// last `prepareFrame`, written to `tops` and `heights` (cleared first): the same values
  /// as `shift(ofRow:at:)`, in O(rows x batches + k). Batch by batch, newest first, every
  /// row's index is walked back with a cursor (`indexes` is scratch: -1 once a batch
  /// inserted the row).
  mutating func shifts(of rows: Range<Int>, tops: inout [Double], heights: inout [Double]) {
    tops.removeAll(keepingCapacity: true)
    heights.removeAll(keepingCapacity: true)
    indexes.removeAll(keepingCapacity: true)
    for row in rows {
      tops.append(0)
      heights.append(0)
      indexes.append(row)
    }
    var k = batches.count - 1
    while k >= 0 {
      let b = batches[k]
      let w = remainingNow[k]
      var cursor = MapCursor()
      tops.withUnsafeMutableBufferPointer { tops in
        heights.withUnsafeMutableBufferPointer { heights in
          indexes.withUnsafeMutableBufferPointer { indexes in
            for r in 0..<indexes.count {
              let index = indexes[r]
              guard index >= 0 else { continue }
              guard let o = cursor.oldIndex(index, in: b.map) else {
                indexes[r] = -1
                continue
              }
              if w != 0 {
                let change = b.change(from: o, to: index)
                tops[r] += change.top * w
                heights[r] += change.height * w
              }
              indexes[r] = o
            }
          }
        }
      }
      k -= 1
    }
  }

  /// Each batch's slide remaining (1 - progress) at `time`, once per frame, for `shifts`,
  /// `frozenGeometry` (a deleted row's slides are its batches' clocks) and `bound`, so the
  /// curves are solved once per batch and frame.
  mutating func prepareFrame(at time: Double) {
    remainingNow.removeAll(keepingCapacity: true)
    bound = 0
    for b in batches {
      let w = b.clock.remaining(at: time)
      remainingNow.append(w)
      bound += b.maxShift * abs(w)
    }
    frameTime = time
  }

  /// A deleted cell's top and height (content points) at the time of the last
  /// `prepareFrame`.
  func frozenGeometry(_ c: UpdateCell) -> (top: Double, height: Double) {
    var top = c.frozenTop
    var height = c.frozenHeight
    for s in c.frozenSlides {
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
}

/// Walks an `UpdateMap` from new to old indexes for increasing new indexes: amortised O(1)
/// per step for the rows that keep their order (moved and inserted rows are looked up).
struct MapCursor: Sendable {
  /// Fixed rows below the last index asked, removed rows counted so far.
  var j = 0
  var q = 0
  var last = Int.min

  mutating func oldIndex(_ n: Int, in map: UpdateMap) -> Int? {
    if n < last { self = MapCursor() }  // not increasing (a moved row's old index): start over
    last = n
    while j < map.fixed.count, map.fixed[j] < n { j += 1 }
    if j < map.fixed.count, map.fixed[j] == n { return map.fixedFrom[j] < 0 ? nil : map.fixedFrom[j] }
    let r = n - j
    while q < map.removed.count, map.removed[q] - q <= r { q += 1 }
    return r + q
  }
}
