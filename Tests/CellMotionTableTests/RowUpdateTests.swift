import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

/// A random valid batch for a table of `rowCount` rows, and the rows after it by brute
/// force: UIKit's description of a batch (height changes and reloads by the rows they name,
/// then deletions and move sources removed in descending order, then insertions and move
/// destinations inserted in ascending order).
struct RandomBatch {
  var update = RowUpdate()
  var expected: [(id: RowID, height: Double)] = []

  init(rows: [(id: RowID, height: Double)], uniform: Double?, nextFresh: inout Int, using rng: inout SeededGenerator) {
    let n = rows.count
    var role = [Int](repeating: 0, count: n)  // 0 stays, 1 deleted, 2 moved, 3 reloaded
    for i in 0..<n {
      switch rng.next() % 10 {
      case 0, 1: role[i] = 1
      case 2: role[i] = 2
      case 3: role[i] = 3
      default: role[i] = 0
      }
    }
    func height() -> Double { uniform ?? (rng.next() % 3 == 0 ? Double(1 + rng.next() % 90) : rng.uniform(0.5...120)) }
    var rows = rows
    let animations = RowAnimation.allCases
    // Heights by the rows they name (before any index moves).
    for i in 0..<n where role[i] != 1 && rng.next() % 6 == 0 {
      let h = height()
      if role[i] == 3, rng.next() % 2 == 0 {
        update.reloadRows(at: [i], height: h, with: animations[Int(rng.next() % 8)])
        role[i] = 4  // reloaded, height given
      } else {
        update.setHeight(ofRow: i, to: h)
      }
      rows[i].height = h
    }
    for i in 0..<n where role[i] == 3 { update.reloadRows(at: [i], with: .fade) }
    let deleted = (0..<n).filter { role[$0] == 1 }
    update.deleteRows(at: deleted.shuffled(using: &rng), with: .left)
    let movedFrom = (0..<n).filter { role[$0] == 2 }
    let insertCount = Int(rng.next() % UInt64(max(2, n / 3 + 2)))
    let newCount = n - deleted.count + insertCount
    // Destinations for the insertions and moves: distinct random rows after the update.
    let destinations = Array((0..<newCount).shuffled(using: &rng).prefix(insertCount + movedFrom.count))
    var placed: [(index: Int, row: (id: RowID, height: Double))] = []
    for (k, from) in movedFrom.enumerated() {
      update.moveRow(at: from, to: destinations[k])
      placed.append((destinations[k], rows[from]))
    }
    for k in 0..<insertCount {
      let h = height()
      let id: RowID? = rng.next() % 2 == 0 ? RowID(nextFresh + 1000 + k) : nil
      update.insertRow(at: destinations[movedFrom.count + k], height: h, id: id, with: animations[Int(rng.next() % 8)])
      placed.append((destinations[movedFrom.count + k], (id ?? RowID(-1), h)))
    }
    // Brute force: remove in descending order, insert in ascending order.
    for i in (deleted + movedFrom).sorted(by: >) { rows.remove(at: i) }
    for p in placed.sorted(by: { $0.index < $1.index }) { rows.insert(p.row, at: p.index) }
    expected = rows
  }
}

@Suite("Row updates")
struct RowUpdateTests {
  @Test("1,000 random batches on random tables equal a brute-force rebuild (layout, identifiers, index map)")
  func randomBatchesMatchBruteForce() throws {
    var batches = 0
    var placesChecked = 0
    for seed: UInt64 in 1...200 {
      var rng = SeededGenerator(seed: seed)
      let count = Int(rng.next() % 80)
      let uniform: Double? = seed % 3 == 0 ? 44 : nil
      let heights = uniform.map { [Double](repeating: $0, count: count) } ?? (0..<count).map { _ in rng.uniform(0.5...120) }
      var rows = uniform != nil ? TableRows(layout: try TableLayout(rowCount: count, rowHeight: 44))
        : TableRows(layout: try TableLayout(rowHeights: heights))
      var model = (0..<count).map { (id: RowID($0), height: heights[$0]) }
      for _ in 0..<5 {
        var fresh = rows.ids.nextFresh
        var batch = RandomBatch(rows: model, uniform: uniform, nextFresh: &fresh, using: &rng)
        let before = model
        let applied = try rows.apply(batch.update, expectedRowCount: batch.expected.count)
        batches += 1
        // Identifiers the table issued: fill them into the brute-force rows, then compare.
        var issued = applied.inserted.makeIterator()
        for k in batch.expected.indices where batch.expected[k].id == RowID(-1) {
          var next = issued.next()
          while let n = next, batch.update.insertions.contains(where: { $0.id == n.id }) { next = issued.next() }
          batch.expected[k].id = next!.id
        }
        #expect(rows.ids.map(\.self) == batch.expected.map(\.id), "seed \(seed)")
        #expect(Set(rows.ids).count == rows.rowCount, "identifiers are distinct (seed \(seed))")
        let expectedHeights = batch.expected.map(\.height)
        if rows.layout.isUniform {
          #expect(uniform != nil && expectedHeights.allSatisfy { $0 == uniform })
          #expect(rows.layout == (try TableLayout(rowCount: expectedHeights.count, rowHeight: 44)))
        } else {
          // Bitwise: a rebuilt layout's prefix sums are the sequential sums.
          #expect(rows.layout == (try TableLayout(rowHeights: expectedHeights)), "seed \(seed)")
        }
        // The index map, both ways, against the identifiers.
        var newIndexOf = [RowID: Int]()
        for (i, r) in batch.expected.enumerated() { newIndexOf[r.id] = i }
        for (o, r) in before.enumerated() {
          #expect(try applied.map.newIndex(ofOldRow: o) == newIndexOf[r.id], "seed \(seed) old \(o)")
        }
        for (n, r) in batch.expected.enumerated() {
          #expect(try applied.map.oldIndex(ofNewRow: n) == before.firstIndex { $0.id == r.id }, "seed \(seed) new \(n)")
        }
        #expect(applied.deleted.map(\.index) == batch.update.deletions.map(\.index).sorted())
        #expect(applied.inserted.map(\.index) == batch.update.insertions.map(\.index).sorted())
        #expect(applied.moved.count == batch.update.moves.count)
        #expect(applied.reloaded.count == batch.update.reloads.count)
        for r in applied.reloaded { #expect(rows.ids[r.newIndex] == r.id && before[r.oldIndex].id == r.id) }
        // The places in the layout before that were read during the rebuild: each removed
        // row's top (the sum of the heights above it) and height, each run's first top.
        if let places = applied.beforePlaces {
          let removed = applied.map.removed
          #expect(places.removed.count == removed.count, "seed \(seed)")
          for (q, r) in removed.enumerated() where q < places.removed.count {
            let top = before[..<r].reduce(0.0) { $0 + $1.height }
            #expect(abs(places.removed[q].top - top) <= 1e-9 * max(1, top), "seed \(seed) removed row \(r)")
            #expect(places.removed[q].top == applied.before._top(r) && places.removed[q].height == before[r].height)
            placesChecked += 1
          }
          var runs: [Int] = []
          applied.map.walkRuns(run: { o, _ in runs.append(o) }, fixed: { _ in })
          #expect(places.runTops == runs.map { applied.before._top($0) }, "seed \(seed)")
          placesChecked += runs.count
        }
        model = batch.expected
      }
    }
    #expect(batches == 1000)
    #expect(placesChecked > 5000)
  }

  @Test("a uniform table stays uniform (O(1)) when the batch brings its own height, and a million rows rebuild")
  func uniformAndLarge() throws {
    var rows = TableRows(layout: try TableLayout(rowCount: 1_000_000, rowHeight: 44))
    var u = RowUpdate()
    u.insertRows(at: stride(from: 0, to: 1_000_000, by: 1000), height: 44)
    u.deleteRows(at: stride(from: 500, to: 1_000_000, by: 1000))
    let applied = try rows.apply(u)
    #expect(rows.layout.isUniform && rows.rowCount == 1_000_000)
    // Row 1000 before: one deletion above it (500), two insertions at or above its place
    // (0 and 1000 after the update): it moves down by one.
    #expect(try applied.map.newIndex(ofOldRow: 1000) == 1001)
    #expect(try applied.map.newIndex(ofOldRow: 500) == nil)
    #expect(rows.ids[0] == RowID(1_000_000) && rows.ids[1] == RowID(0))
    var v = RowUpdate()
    v.insertRow(at: 10, height: 60)
    try rows.apply(v)
    #expect(!rows.layout.isUniform && rows.rowCount == 1_000_001)
    #expect(try rows.layout.rowHeight(10) == 60)
    #expect(try rows.layout.rowOffset(11) == 10 * 44 + 60)
  }

  @Test("invalid batches are typed errors naming the rule, and leave the rows unchanged")
  func invalidBatches() throws {
    let start = TableRows(layout: try TableLayout(rowHeights: [10, 20, 30, 40, 50]))
    func rule(_ build: (inout RowUpdate) -> Void, expected: Int? = nil) -> (UpdateRule, String)? {
      var u = RowUpdate()
      build(&u)
      var rows = start
      do {
        try rows.apply(u, expectedRowCount: expected, minimumHeight: 1e-3)
        return nil
      } catch {
        #expect(rows == start)
        if case .invalidUpdate(let field, let rule, _) = error { return (rule, field) }
        return nil
      }
    }
    #expect(rule { $0.deleteRows(at: [5]) }! == (.indexOutOfRange, "deletions[0]"))
    #expect(rule { $0.deleteRows(at: [-1]) }! == (.indexOutOfRange, "deletions[0]"))
    #expect(rule { $0.reloadRows(at: [7]) }! == (.indexOutOfRange, "reloads[0]"))
    #expect(rule { $0.moveRow(at: 5, to: 0) }! == (.indexOutOfRange, "moves[0].from"))
    // After one deletion there are 4 rows: index 4 is out of range after the update.
    #expect(rule { $0.deleteRows(at: [0]); $0.moveRow(at: 1, to: 4) }! == (.indexOutOfRange, "moves[0].to"))
    #expect(rule { $0.insertRow(at: 7, height: 10) }! == (.indexOutOfRange, "insertions[0]"))
    #expect(rule { $0.setHeight(ofRow: 9, to: 10) }! == (.indexOutOfRange, "heightChanges[0]"))
    #expect(rule { $0.deleteRows(at: [2, 2]) }! == (.repeatedIndex, "deletions[1]"))
    #expect(rule { $0.deleteRows(at: [2]); $0.moveRow(at: 2, to: 0) }! == (.deletedAndMoved, "moves[0]"))
    #expect(rule { $0.reloadRows(at: [3]); $0.moveRow(at: 3, to: 0) }! == (.reloadedAndMoved, "moves[0]"))
    #expect(rule { $0.deleteRows(at: [1]); $0.reloadRows(at: [1]) }! == (.deletedAndReloaded, "reloads[0]"))
    #expect(rule { $0.insertRow(at: 1, height: 10); $0.moveRow(at: 0, to: 1) }! == (.repeatedIndex, "moves[0].to"))
    #expect(rule { $0.insertRows(at: [2, 2], height: 10) }! == (.repeatedIndex, "insertions[1]"))
    #expect(rule { $0.deleteRows(at: [1]); $0.setHeight(ofRow: 1, to: 5) }! == (.changedDeletedRow, "heightChanges[0]"))
    #expect(rule { $0.setHeight(ofRow: 1, to: 5); $0.reloadRows(at: [1], height: 6) }! == (.changedDeletedRow, "reloads[0]"))
    #expect(rule { $0.insertRow(at: 0, height: 10, id: RowID(3)) }! == (.duplicateIdentifier, "insertions[0].id"))
    #expect(
      rule { $0.insertRow(at: 0, height: 10, id: RowID(9)); $0.insertRow(at: 1, height: 10, id: RowID(9)) }!
        == (.duplicateIdentifier, "insertions[1].id"))
    #expect(rule({ $0.deleteRows(at: [0]) }, expected: 5)! == (.rowCountMismatch, "expectedRowCount"))
    // Bad heights are the usual number errors.
    for h in [Double.nan, -1, 0, 2e6] {
      var rows = start
      var u = RowUpdate()
      u.insertRow(at: 0, height: h)
      #expect(throws: CellMotionError.self) { try rows.apply(u, minimumHeight: 1e-3) }
      #expect(rows == start)
    }
    // Messages say it in words.
    var u = RowUpdate()
    u.deleteRows(at: [2])
    u.moveRow(at: 2, to: 0)
    var rows = start
    #expect(throws: CellMotionError.invalidUpdate(field: "moves[0]", rule: .deletedAndMoved, reason: "row 2 is also named by deletions[0]")) {
      try rows.apply(u)
    }
    #expect(
      CellMotionError.invalidUpdate(field: "moves[0]", rule: .deletedAndMoved, reason: "row 2 is also named by deletions[0]")
        .description == "invalid batch update: moves[0]: row 2 is also named by deletions[0]")
    // Identifiers stay in 0 ..< 2^62, so fresh ones never overflow.
    for id in [Int.max, -1, 1 << 62] {
      var rows = start
      var u = RowUpdate()
      u.insertRow(at: 0, height: 10, id: RowID(id))
      u.insertRow(at: 1, height: 10)
      #expect(throws: CellMotionError.self) { try rows.apply(u) }
      #expect(rows == start)
      #expect(throws: CellMotionError.self) { try TableRows(layout: try TableLayout(rowCount: 1, rowHeight: 10), ids: [RowID(id)]) }
    }
    var big = start
    var top = RowUpdate()
    top.insertRow(at: 0, height: 10, id: RowID((1 << 62) - 1))
    top.insertRow(at: 1, height: 10)
    try big.apply(top)
    // With the largest identifier taken, a fresh one is the smallest no row has (it stays
    // in `valueRange`), and nothing is issued above the range.
    let smallestFree = (0...).first { !start.ids.contains(RowID($0)) }!
    #expect(big.ids[1] == RowID(smallestFree) && big.ids.nextFresh == 1 << 62)
    // A deleted row's identifier given again to an insertion: the table no longer has it.
    var reuse = start
    var d = RowUpdate()
    d.deleteRows(at: [2])
    try reuse.apply(d)
    var again = RowUpdate()
    again.insertRow(at: 0, height: 10, id: RowID(2))
    try reuse.apply(again)
    #expect(reuse.ids.first == RowID(2))
    var twice = RowUpdate()
    twice.insertRow(at: 0, height: 10, id: RowID(3))
    #expect(throws: CellMotionError.self) { try reuse.apply(twice) }
    // Identifiers given at creation must be distinct and one per row.
    #expect(throws: CellMotionError.self) { try TableRows(layout: start.layout, ids: [1, 2, 3, 4, 1].map(RowID.init)) }
    #expect(throws: CellMotionError.self) { try TableRows(layout: start.layout, ids: [1, 2].map(RowID.init)) }
  }
}
