// A batch's rebuild cut in two parts built at once (`_Blocks.applying(_:split:...)`,
// `TableRows.apply(threads: 2)`, issue 32) against the rebuild in one part: the same
// elements, offsets, identifiers and places read before the batch, at every kind of cut.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

/// A random batch on `n` rows: deletions, moves, height changes (some on moved rows) and
/// insertions, scattered and clustered; heights on a 1/64 grid (sums exact).
private func randomBatch(rows n: Int, changes: Int, _ rng: inout SeededGenerator) -> RowUpdate {
  var u = RowUpdate()
  guard n > 0 else { return u }
  var named = Set<Int>()
  var deleted: [Int] = []
  var moved: [Int] = []
  for _ in 0..<changes {
    let r = rng.next() % 3 == 0 ? min(n - 1, n / 3 + Int(rng.next() % 50)) : Int(rng.next() % UInt64(n))
    guard named.insert(r).inserted else { continue }
    switch rng.next() % 5 {
    case 0, 1: deleted.append(r)
    case 2: moved.append(r)
    default: u.setHeight(ofRow: r, to: (rng.uniform(1...90) * 64).rounded() / 64)
    }
  }
  if let m = moved.first, rng.next() % 2 == 0 { u.setHeight(ofRow: m, to: 33.5) }
  u.deleteRows(at: deleted)
  let inserts = Int(rng.next() % UInt64(changes + 1))
  let newCount = n - deleted.count + inserts
  var places = Array(0..<newCount).shuffled(using: &rng).prefix(inserts + moved.count).map { $0 }
  for from in moved { u.moveRow(at: from, to: places.removeLast()) }
  for at in places { u.insertRow(at: at, height: (rng.uniform(1...90) * 64).rounded() / 64) }
  return u
}

private func samePlaces(_ a: _BeforePlaces, _ b: _BeforePlaces) -> Bool {
  a.runTops == b.runTops && a.removed.count == b.removed.count
    && zip(a.removed, b.removed).allSatisfy { $0.top == $1.top && $0.height == $1.height }
}

@Suite("Rebuilds in two parts")
struct SplitRebuildTests {
  @Test("a rebuild cut at any kept leaf start equals the rebuild in one part: heights, identifiers, places read before")
  func everyCut() throws {
    for seed: UInt64 in 1...Sweep.pick(quick: 6, full: 30) {
      var rng = SeededGenerator(seed: seed)
      let count = 300 + Int(rng.next() % 6000)
      // Runs of equal heights between explicit ones: cuts next to run leaves too.
      let heights = (0..<count).map { i in i % 2000 < 700 ? 44 : (rng.uniform(1...120) * 64).rounded() / 64 }
      let ids = (0..<count).map { RowID($0 * 3 + 1) }.shuffled(using: &rng)
      var rows = try TableRows(layout: try TableLayout(rowHeights: heights), ids: ids)
      for batch in 0..<4 {
        let u = randomBatch(rows: rows.rowCount, changes: 1 + Int(rng.next() % 300), &rng)
        let plan = try UpdatePlan(u, rows: rows, expectedRowCount: nil, minimumHeight: 0)
        let map = plan.map
        let before = rows.layout
        let fixedHeight: (Int) -> Double = { j in
          map.fixedFrom[j] < 0 ? plan.insertionOfFixed[j]!.height : before._height(map.fixedFrom[j])
        }
        let fixedID: (Int) -> RowID = { j in
          map.fixedFrom[j] < 0 ? RowID(1_000_000 + j) : rows.ids[map.fixedFrom[j]]
        }
        var r1 = _Recycle<_HeightLeaf>()
        let one = try before.applying(map, fixedHeight: fixedHeight, newHeights: plan.newHeights, recycle: &r1)
        var i1 = _Recycle<_IDLeaf>()
        let oneIDs = rows.ids.blocks.applying(map, fixedValue: fixedID, recycle: &i1)
        // Every kept leaf start of the heights (and of the identifiers), in a sample.
        for (blocks, isHeights) in [(before.blocks.starts, true), (rows.ids.blocks.starts, false)] {
          let starts = blocks.dropFirst().dropLast().filter { o in
            let q = _lowerBound(map.removed, o)
            return q == map.removed.count || map.removed[q] != o
          }
          for o in starts where rng.next() % 4 == 0 || o == starts.first || o == starts.last {
            let cut = map.position(ofKeptRow: o)
            guard cut.new > 0, cut.new < map.newRowCount else { continue }
            let context = "seed \(seed) batch \(batch) cut at old row \(o) (\(isHeights ? "heights" : "identifiers"))"
            if isHeights {
              var r2 = _Recycle<_HeightLeaf>()
              let two = try before.applying(
                map, fixedHeight: fixedHeight, newHeights: plan.newHeights, split: cut, recycle: &r2)
              #expect(two.layout == one.layout, "\(context)")
              checkLeaves(two.layout.blocks, context)
              #expect(samePlaces(two.places, one.places), "\(context): places")
              #expect(two.layout.contentHeight == one.layout.contentHeight, "\(context)")
              for i in stride(from: 0, to: two.layout.rowCount, by: 7) {
                #expect(try two.layout.rowOffset(i) == one.layout.rowOffset(i), "\(context) row \(i)")
              }
            } else {
              var i2 = _Recycle<_IDLeaf>()
              let two = rows.ids.blocks.applying(map, split: cut, fixedValue: fixedID, recycle: &i2)
              #expect(two.elementsEqual(oneIDs), "\(context)")
              checkLeaves(two, context)
            }
          }
        }
        try rows.apply(u)
      }
    }
  }

  @Test("rows updated with two threads equal rows updated with one through random batches, within the memory bound")
  func twoThreadsAsOne() throws {
    var rng = SeededGenerator(seed: 32)
    // Large enough for two threads (`TableRows.worthTwoThreads`).
    let heights = (0..<270_000).map { _ in (rng.uniform(1...120) * 64).rounded() / 64 }
    var one = TableRows(layout: try TableLayout(rowHeights: heights))
    var two = one
    var split = 0
    for batch in 0..<Sweep.pick(quick: 12, full: 40) {
      // Some batches too small to be cut (a few changes), most large enough.
      let changes = batch % 5 == 0 ? 5 : 1000 + Int(rng.next() % 1000)
      let u = randomBatch(rows: one.rowCount, changes: changes, &rng)
      let plan = try UpdatePlan(u, rows: two, expectedRowCount: nil, minimumHeight: 0)
      if TableRows.split(two.layout.heightBlocks, plan.map, overrides: plan.newHeights.count, threads: 2) != nil {
        split += 1
      }
      let a = try one.apply(u)
      let b = try two.apply(u, threads: 2)
      let context = "batch \(batch)"
      #expect(two.layout == one.layout && two.ids == one.ids, "\(context)")
      #expect(two.layout.contentHeight == one.layout.contentHeight, "\(context)")
      for i in stride(from: 0, to: one.rowCount, by: 331) {
        #expect(try two.layout.rowOffset(i) == one.layout.rowOffset(i), "\(context) row \(i)")
      }
      checkLeaves(two.layout.blocks, context)
      checkLeaves(two.ids.blocks, context)
      #expect(b.map == a.map, "\(context)")
      #expect(b.inserted.map(\.id) == a.inserted.map(\.id) && b.deleted.map(\.id) == a.deleted.map(\.id), "\(context)")
      #expect(b.moved.map(\.id) == a.moved.map(\.id) && b.reloaded.map(\.id) == a.reloaded.map(\.id), "\(context)")
      if let pa = a.beforePlaces, let pb = b.beforePlaces {
        #expect(samePlaces(pa, pb), "\(context): places")
      } else {
        #expect(a.beforePlaces == nil && b.beforePlaces == nil, "\(context)")
      }
      let (held, used) = two.layout.blocks.slabWords
      #expect(held <= 2 * used + 4 * _BlockSize.slab, "\(context): \(held) words held for \(used) used")
    }
    // Most batches were cut in two (the test covers the parts, not only the fallback).
    #expect(split >= Sweep.pick(quick: 12, full: 40) / 2, "\(split) batches cut")
  }

  @Test("an animator whose batch updates use two threads draws the same frames, bit for bit, as one that uses one")
  func twoThreadFrames() throws {
    var rng = SeededGenerator(seed: 2029)
    let heights = (0..<270_000).map { _ in (rng.uniform(20...120) * 64).rounded() / 64 }
    func animator(threads: Int) throws -> TableAnimator {
      var sim = try TableSimulation(
        layout: try TableLayout(rowHeights: heights), viewportHeight: 4000,
        scroll: try .constantVelocity(from: 0, velocity: 1500, startTime: 0, limits: 0...18_000_000),
        rule: .firstAppearanceOnly)
      sim.updateThreads = threads
      return try TableAnimator(simulation: sim, recipes: TableRecipes(first: .tipIn), cellWidth: 390, capacity: 512)
    }
    var one = try animator(threads: 1)
    var two = try animator(threads: 2)
    var cut = 0
    for n in 0..<160 {
      let t = Double(n) / 60
      if n % 12 == 3 {
        // A large batch (cut in two) that also lands in view: deletions, insertions, moves,
        // reloads and height changes around the visible rows and across the table.
        let count = one.simulation.layout.rowCount
        let top = one.frame.rows.lowerBound
        var u = randomBatch(rows: count, changes: 1200, &rng)
        var named = Set(u.deletions.map(\.index) + u.moves.map(\.from) + u.heightChanges.map(\.index))
        for r in [top + 2, top + 5, top + 9] where r < count && named.insert(r).inserted {
          u.reloadRows(at: [r], height: 70, with: .fade)
        }
        let plan = try UpdatePlan(u, rows: two.simulation.rows, expectedRowCount: nil, minimumHeight: 0)
        let blocks = two.simulation.layout.heightBlocks
        if TableRows.split(blocks, plan.map, overrides: plan.newHeights.count, threads: 2) != nil {
          cut += 1
        }
        let a = try one.performBatchUpdates(u, at: t)
        let b = try two.performBatchUpdates(u, at: t)
        #expect(a.map == b.map && a.inserted.map(\.id) == b.inserted.map(\.id), "frame \(n)")
      }
      try one.step(to: t)
      try two.step(to: t)
      let (f, g) = (one.frame, two.frame)
      #expect(f.rows == g.rows && f.matrices == g.matrices, "frame \(n)")
      #expect(f.opacity == g.opacity && f.heights == g.heights, "frame \(n)")
      #expect(f.events.updateCells == g.events.updateCells, "frame \(n): update cells")
      #expect(f.extraMatrices == g.extraMatrices && f.extraOpacity == g.extraOpacity, "frame \(n): extra cells")
    }
    #expect(one.simulation.rows == two.simulation.rows)
    #expect(cut >= 10, "\(cut) batches cut in two")
  }

  @Test("threads other than 1 or 2 are a typed error, and the rows stay as they were")
  func badThreads() throws {
    var rows = TableRows(layout: try TableLayout(rowHeights: [44, 50, 60]))
    var u = RowUpdate()
    u.deleteRows(at: [1])
    for threads in [0, 3, -1] {
      #expect(throws: CellMotionError.self) { try rows.apply(u, threads: threads) }
    }
    #expect(rows.rowCount == 3)
    var sim = try TableSimulation(
      layout: rows.layout, viewportHeight: 100, scroll: .stationary(at: 0), rule: .firstAppearanceOnly)
    sim.updateThreads = 4
    #expect(throws: CellMotionError.outOfRange(field: "updateThreads", value: 4, expected: "1 or 2")) {
      try sim.performBatchUpdates(u, at: 0)
    }
    #expect(sim.layout.rowCount == 3)
  }
}
