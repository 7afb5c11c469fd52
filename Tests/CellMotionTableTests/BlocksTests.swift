// The leaves behind layouts and identifiers (`_Blocks`, issue 32) against flat arrays:
// random batches on tables spanning many leaves, uniform and per-row, with runs, height
// changes on moved rows and single-row edits, every element and offset checked.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

/// Leaf invariants: counts add up, no empty leaf, explicit leaves at most `max`.
func checkLeaves<L: _BlockLeaf>(_ b: _Blocks<L>, _ context: String) {
  #expect(b.starts.count == b.leaves.count + 1 && b.starts[0] == 0, "\(context)")
  for (k, leaf) in b.leaves.enumerated() {
    #expect(leaf.count > 0, "\(context): empty leaf \(k)")
    #expect(leaf.isRun || leaf.count <= _BlockSize.max, "\(context): leaf \(k) has \(leaf.count)")
    #expect(b.starts[k + 1] - b.starts[k] == leaf.count, "\(context): leaf \(k) bounds")
  }
}

@Suite("Rows in leaves")
struct BlocksTests {
  @Test("random batches on tables of up to 6,000 rows equal a brute-force rebuild (heights, offsets, shortest row, identifiers)")
  func randomBatches() throws {
    for seed: UInt64 in 1...Sweep.pick(quick: 24, full: 120) {
      var rng = SeededGenerator(seed: seed)
      let count = Int(rng.next() % 6000)
      let uniform = seed % 3 == 0
      var heights =
        uniform ? [Double](repeating: 44, count: count) : (0..<count).map { _ in (rng.uniform(1...120) * 64).rounded() / 64 }
      var ids = (0..<count).map { RowID($0) }
      var rows = TableRows(layout: uniform ? try TableLayout(rowCount: count, rowHeight: 44) : try TableLayout(rowHeights: heights))
      var fresh = count
      for batch in 0..<6 {
        let n = heights.count
        var u = RowUpdate()
        // Changes spread over the table and clustered, kinds mixed.
        var named = Set<Int>()
        let changes = Int(rng.next() % 60)
        var deleted: [Int] = []
        var moved: [Int] = []
        var changed: [(Int, Double)] = []
        for _ in 0..<changes where n > 0 {
          let r = rng.next() % 2 == 0 ? Int(rng.next() % UInt64(n)) : min(n - 1, n / 2 + Int(rng.next() % 40))
          guard named.insert(r).inserted else { continue }
          switch rng.next() % 4 {
          case 0: deleted.append(r)
          case 1: moved.append(r)
          default:
            let h = uniform && rng.next() % 2 == 0 ? 44 : (rng.uniform(1...90) * 64).rounded() / 64
            changed.append((r, h))
          }
        }
        let inserts = Int(rng.next() % 40)
        let newCount = n - deleted.count + inserts
        var places = Array(0..<newCount).shuffled(using: &rng).prefix(inserts + moved.count).map { $0 }
        u.deleteRows(at: deleted)
        for (r, h) in changed {
          // Some height changes land on moved rows: they follow the row.
          u.setHeight(ofRow: r, to: h)
        }
        if !moved.isEmpty, !changed.isEmpty, rng.next() % 2 == 0 {
          // A moved row that also changes height.
          u.setHeight(ofRow: moved[0], to: 33.5)
        }
        var placed: [(Int, (RowID, Double))] = []
        var changedHeights = [Int: Double]()
        for (r, h) in changed { changedHeights[r] = h }
        for c in u.heightChanges { changedHeights[c.index] = c.height }
        for from in moved {
          let to = places.removeLast()
          u.moveRow(at: from, to: to)
          placed.append((to, (ids[from], changedHeights[from] ?? heights[from])))
        }
        for _ in 0..<inserts {
          let at = places.removeLast()
          let h = uniform && rng.next() % 3 != 0 ? 44 : (rng.uniform(1...90) * 64).rounded() / 64
          u.insertRow(at: at, height: h)
          placed.append((at, (RowID(-1), h)))
        }
        // Brute force.
        var model = Array(zip(ids, heights))
        for (r, h) in changedHeights { model[r].1 = h }
        for r in (deleted + moved).sorted(by: >) { model.remove(at: r) }
        for p in placed.sorted(by: { $0.0 < $1.0 }) { model.insert(p.1, at: p.0) }
        let applied = try rows.apply(u, expectedRowCount: model.count)
        var issued = applied.inserted.makeIterator()
        for k in model.indices where model[k].0 == RowID(-1) {
          model[k].0 = issued.next()!.id
          fresh += 1
        }
        ids = model.map(\.0)
        heights = model.map(\.1)
        let context = "seed \(seed) batch \(batch)"
        #expect(Array(rows.ids) == ids, "\(context)")
        #expect((0..<ids.count).allSatisfy { rows.ids[$0] == ids[$0] }, "\(context)")
        #expect(rows.ids.nextFresh == fresh, "\(context)")
        checkLeaves(rows.ids.blocks, context)
        if !rows.layout.isUniform { checkLeaves(rows.layout.blocks, context) }
        #expect(rows.layout == (rows.layout.isUniform ? try TableLayout(rowCount: heights.count, rowHeight: 44) : try TableLayout(rowHeights: heights)), "\(context)")
        // Offsets: the sequential sums (exact here: heights on a 1/64 grid), heights, fills.
        var sum = 0.0
        for (i, h) in heights.enumerated() {
          #expect(try rows.layout.rowOffset(i) == sum && rows.layout.rowHeight(i) == h, "\(context) row \(i)")
          sum += h
        }
        #expect(rows.layout.contentHeight == sum, "\(context)")
        // The shortest row, kept from the walk that sums the leaf offsets.
        #expect(rows.layout.minimumRowHeight == heights.min(), "\(context)")
        let lo = heights.isEmpty ? 0 : Int(rng.next() % UInt64(heights.count))
        let hi = min(heights.count, lo + Int(rng.next() % 700))
        var tops = [Double](repeating: .nan, count: hi - lo)
        var hs = [Double](repeating: .nan, count: hi - lo)
        tops.withUnsafeMutableBufferPointer { t in
          hs.withUnsafeMutableBufferPointer { h in
            rows.layout._fill(lo..<hi, minus: 10, tops: t.baseAddress, heights: h.baseAddress)
          }
        }
        for k in 0..<(hi - lo) {
          #expect(tops[k] == rows.layout._top(lo + k) - 10 && hs[k] == heights[lo + k], "\(context) fill \(lo + k)")
        }
      }
    }
  }

  @Test(
    "slabs: earlier versions stay intact through later batches (which build in the memory of the versions that are gone), and slab memory stays within twice the words in use"
  )
  func slabsShareAndCompact() throws {
    var rng = SeededGenerator(seed: 77)
    var heights = (0..<20_000).map { _ in (rng.uniform(1...120) * 64).rounded() / 64 }
    var rows = TableRows(layout: try TableLayout(rowHeights: heights))
    var kept: [(TableLayout, [Double], RowIdentifiers, [RowID])] = []
    var worst = 0.0
    for batch in 0..<300 {
      let n = heights.count
      var u = RowUpdate()
      // Scattered deletions and height changes, insertions at random places.
      var rowsNamed = Set<Int>()
      var deleted: [Int] = []
      var changed: [(Int, Double)] = []
      for _ in 0..<Int(rng.next() % 120) {
        let r = Int(rng.next() % UInt64(n))
        guard rowsNamed.insert(r).inserted else { continue }
        if rng.next() % 2 == 0 { deleted.append(r) } else { changed.append((r, (rng.uniform(1...90) * 64).rounded() / 64)) }
      }
      u.deleteRows(at: deleted)
      for (r, h) in changed { u.setHeight(ofRow: r, to: h) }
      let inserts = Int(rng.next() % 120)
      let newCount = n - deleted.count + inserts
      let places = Array(0..<newCount).shuffled(using: &rng).prefix(inserts).sorted()
      var insertedHeights: [Double] = []
      for at in places {
        let h = (rng.uniform(1...90) * 64).rounded() / 64
        u.insertRow(at: at, height: h)
        insertedHeights.append(h)
      }
      var model = heights
      for (r, h) in changed { model[r] = h }
      for r in deleted.sorted(by: >) { model.remove(at: r) }
      for (k, at) in places.enumerated() { model.insert(insertedHeights[k], at: at) }
      try rows.apply(u, expectedRowCount: model.count)
      heights = model
      if batch % 25 == 0 { kept.append((rows.layout, heights, rows.ids, Array(rows.ids))) }
      let (held, used) = rows.layout.blocks.slabWords
      #expect(held <= 2 * used + 4 * _BlockSize.slab, "batch \(batch): \(held) words held for \(used) used")
      worst = max(worst, Double(held) / Double(used))
      let (idHeld, idUsed) = rows.ids.blocks.slabWords
      #expect(idHeld <= 2 * idUsed + 4 * _BlockSize.slab, "batch \(batch): identifiers \(idHeld) held for \(idUsed) used")
    }
    // Memory bound: the slabs of a table edited 300 times hold at most twice its words
    // (plus a few slabs being filled).
    #expect(worst < 2.5, "worst held/used \(worst)")
    // Batches wrote again slabs that versions gone had dropped (each version between two
    // kept ones is gone when the batch after it runs), never one a kept version holds.
    #expect(rows.recycle.heights.slabsReused > 100, "\(rows.recycle.heights.slabsReused) height slabs written again")
    #expect(rows.recycle.ids.slabsReused > 10, "\(rows.recycle.ids.slabsReused) identifier slabs written again")
    // Every kept version still reads as it did, though later builds dropped and emptied
    // slabs it had shared.
    for (layout, hs, ids, idArray) in kept {
      #expect(layout == (try TableLayout(rowHeights: hs)))
      #expect(Array(ids) == idArray)
    }
    #expect(rows.layout == (try TableLayout(rowHeights: heights)))
  }

  @Test("leaves are small plain values: a batch copies the directory of them as memory")
  func leafSizes() {
    #expect(MemoryLayout<_HeightLeaf>.stride == 32)
    #expect(MemoryLayout<_IDLeaf>.stride == 16)
    #expect(_isPOD(_HeightLeaf.self) && _isPOD(_IDLeaf.self))
  }

  @Test("a partition point searched from a hint is the plain search's, for hints before, at and after it")
  func partitionPointFromHint() {
    var rng = SeededGenerator(seed: 31)
    for count in [0, 1, 2, 7, 64, 1000] {
      var a: [Int] = []
      var v = 0
      for _ in 0..<count {
        v += Int(rng.next() % 4)
        a.append(v)
      }
      for _ in 0..<300 {
        let x = Int(rng.next() % UInt64(v + 3)) - 1
        let hint = Int(rng.next() % UInt64(count + 3)) - 1
        let plain = _partitionPoint(a.count) { a[$0] >= x }
        let hinted = _partitionPoint(a.count, from: hint) { a[$0] >= x }
        #expect(hinted == plain, "count \(count) x \(x) hint \(hint)")
      }
    }
  }

  @Test("a search from a cursor finds the leaf a plain search finds, for steps of every length")
  func cursorSearch() throws {
    var rng = SeededGenerator(seed: 9)
    for n in [1, 7, 64, 65, 1023, 20_000] {
      let blocks = (0..<n).map { Double($0) }.withUnsafeBufferPointer { _Blocks<_HeightLeaf>(values: $0) }
      var i = 0
      var leaf = 0
      while i < n {
        let found = blocks.locate(i, from: leaf)
        let plain = blocks.locate(i)
        #expect(found.leaf == plain.leaf && found.offset == plain.offset, "n \(n) i \(i) from \(leaf)")
        leaf = found.leaf
        // Steps from 0 (the same leaf) to thousands of leaves.
        i += [0, 1, 63, 64, 65, 129, Int(rng.next() % 5000), Int(rng.next() % 100_000)][Int(rng.next() % 8)]
        if rng.next() % 5 == 0 { i += 1 }
      }
    }
  }

  @Test("visible rows searched leaf by leaf equal the row-by-row search: zero-height rows, edges, bands outside the content")
  func visibleRowsFast() throws {
    var rng = SeededGenerator(seed: 12)
    for trial in 0..<60 {
      let n = [0, 1, 7, 9, 64, 65, 1023, 5000][trial % 8]
      // Heights on a coarse grid (rows that end exactly on a band edge), some zero.
      let heights = (0..<n).map { _ in rng.next() % 5 == 0 ? 0 : Double(1 + rng.next() % 4) * 11 }
      var layout = try TableLayout(rowHeights: heights)
      if n > 0, trial % 3 == 0 {
        // A layout after edits: leaves of several sizes.
        var rows = TableRows(layout: layout)
        var u = RowUpdate()
        u.deleteRows(at: Array(Set((0..<min(n, 20)).map { _ in Int(rng.next() % UInt64(n)) })).sorted())
        u.insertRows(at: [0], height: 0)
        try rows.apply(u)
        layout = rows.layout
      }
      let content = layout.contentHeight
      for _ in 0..<200 {
        let lower = Double(Int(rng.next() % UInt64(Int(content) + 60))) - 30 + (rng.next() % 2 == 0 ? 0 : 0.5)
        let upper = lower + Double(rng.next() % 400) + (rng.next() % 3 == 0 ? 0 : 0.25)
        let fast = layout._visibleRowsFast(lower: lower, upper: upper)
        let plain = layout._visibleRows(lower: lower, upper: upper)
        #expect(fast == plain, "rows \(n), band \(lower)..<\(upper): \(fast) vs \(plain)")
        #expect(LayoutSnapshot(layout)._visibleRowsFast(lower: lower, upper: upper) == plain)
      }
    }
  }

  @Test("a uniform table stays O(1) memory through an edit: runs around a leaf of explicit heights")
  func runsStayRuns() throws {
    var layout = try TableLayout(rowCount: 10_000_000, rowHeight: 44)
    try layout.setHeight(row: 5_000_000, height: 60)
    #expect(!layout.isUniform && layout.blocks.leaves.count == 3)
    #expect(layout.blocks.leaves.filter(\.isRun).count == 2)
    #expect(try layout.rowOffset(5_000_001) == 5_000_000 * 44 + 60)
    #expect(try layout.rowHeight(4_999_999) == 44 && layout.rowHeight(5_000_000) == 60)
    // Identifiers: a batch in the middle of a million sequential rows keeps them as runs.
    var rows = TableRows(layout: try TableLayout(rowCount: 1_000_000, rowHeight: 44))
    var u = RowUpdate()
    u.insertRows(at: [10, 500_000], height: 44)
    u.deleteRows(at: [700_000])
    try rows.apply(u)
    #expect(rows.ids.blocks.leaves.count <= 7, "\(rows.ids.blocks.leaves.count) leaves")
    #expect(rows.ids[9] == RowID(9) && rows.ids[10] == RowID(1_000_000) && rows.ids[11] == RowID(10))
    #expect(rows.ids[999_999] == RowID(999_998))
    #expect(rows.ids.index(of: RowID(700_000)) == nil && rows.ids.index(of: RowID(700_001)) == 700_002)
  }

  @Test("setHeight on a per-row layout keeps its leaves: bitwise a fresh build, inexact sums included")
  func setHeightBitwise() throws {
    var rng = SeededGenerator(seed: 4)
    var heights = (0..<3000).map { _ in rng.uniform(0...120) }
    var layout = try TableLayout(rowHeights: heights)
    for _ in 0..<200 {
      let row = Int(rng.next() % 3000)
      heights[row] = rng.uniform(0...120)
      try layout.setHeight(row: row, height: heights[row])
    }
    let fresh = try TableLayout(rowHeights: heights)
    #expect(layout == fresh)
    #expect((0...3000).allSatisfy { (try? layout.rowOffset($0)) == (try? fresh.rowOffset($0)) })
  }

  @Test("display bits follow random batches, as a bit-by-bit rebuild moves them")
  func bitsFollowRows() throws {
    for seed: UInt64 in 1...Sweep.pick(quick: 40, full: 200) {
      var rng = SeededGenerator(seed: seed)
      let count = Int(rng.next() % 3000)
      var rows = TableRows(layout: try TableLayout(rowCount: count, rowHeight: 10))
      var bits = _RowBitset(count: count)
      for i in 0..<count where rng.next() % 3 == 0 { bits.insert(i) }
      for _ in 0..<4 {
        let n = rows.rowCount
        var u = RowUpdate()
        var named = Set<Int>()
        var deleted: [Int] = []
        var moved: [Int] = []
        for _ in 0..<Int(rng.next() % 50) where n > 0 {
          let r = Int(rng.next() % UInt64(n))
          guard named.insert(r).inserted else { continue }
          if rng.next() % 2 == 0 { deleted.append(r) } else { moved.append(r) }
        }
        let inserts = Int(rng.next() % 50)
        var places = Array(0..<(n - deleted.count + inserts)).shuffled(using: &rng).prefix(inserts + moved.count).map { $0 }
        u.deleteRows(at: deleted)
        for from in moved { u.moveRow(at: from, to: places.removeLast()) }
        for _ in 0..<inserts { u.insertRow(at: places.removeLast(), height: 10) }
        let map = try rows.apply(u).map
        // Bit by bit, as the tracker did before.
        var want = _RowBitset(count: map.newRowCount)
        for o in 0..<n where bits.contains(o) { if let to = map._newIndex(o) { want.insert(to) } }
        for n in 0..<map.newRowCount where map._isInserted(n) && n % 5 == 0 { want.insert(n) }
        bits.apply(map) { $0 % 5 == 0 }
        #expect(bits == want, "seed \(seed)")
      }
    }
  }
}

