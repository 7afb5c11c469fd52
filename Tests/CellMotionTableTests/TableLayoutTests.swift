import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

@Suite("TableLayout")
struct TableLayoutTests {
  @Test(
    "visible range equals a brute-force scan on random layouts (zero heights, boundaries, overscan)"
  )
  func visibleRangeMatchesBruteForce() throws {
    for seed: UInt64 in 1...40 {
      var rng = SeededGenerator(seed: seed)
      let count = Int(rng.next() % 150)
      let layout = try TableLayout(rowHeights: randomHeights(count: count, using: &rng))
      for trial in 0..<200 {
        // Offsets: random (including before and beyond the content) or exactly on a row edge.
        let offset: Double
        switch rng.next() % 3 {
        case 0: offset = try layout.rowOffset(Int(rng.next() % UInt64(count + 1)))
        default: offset = rng.uniform(-300...(layout.contentHeight + 300))
        }
        var viewport = rng.uniform(0.25...600)
        if rng.next() % 4 == 0, count > 0 {
          // Make the bottom edge land exactly on a row edge too.
          let edge = try layout.rowOffset(Int(rng.next() % UInt64(count + 1)))
          if edge > offset { viewport = edge - offset }
        }
        let overscan = rng.next() % 2 == 0 ? 0 : rng.uniform(0...150)
        let range = try layout.visibleRange(
          scrollOffset: offset, viewportHeight: viewport, overscan: overscan)
        let expected = try bruteForceVisible(
          rowCount: count, top: { try layout.rowOffset($0) },
          lower: offset - overscan, upper: offset + viewport + overscan)
        #expect(
          expected.range == range,
          "seed \(seed) trial \(trial): offset \(offset) viewport \(viewport) overscan \(overscan)")
      }
    }
  }

  @Test("half-open edges and zero-height rows")
  func halfOpenEdges() throws {
    // Rows: [0,100) [100,100) zero [100,100) zero [100,200) [200,300)
    let layout = try TableLayout(rowHeights: [100, 0, 0, 100, 100])
    // Viewport [100, 200): row 0 ends at 100 (not visible), the zero rows at 100 are.
    #expect(try layout.visibleRange(scrollOffset: 100, viewportHeight: 100) == 1..<4)
    // Viewport [0, 100): rows at top 100 start at the bottom edge: not visible.
    #expect(try layout.visibleRange(scrollOffset: 0, viewportHeight: 100) == 0..<1)
    // Viewport [0, 100.5): now the zero rows and row 3 are.
    #expect(try layout.visibleRange(scrollOffset: 0, viewportHeight: 100.5) == 0..<4)
    // Beyond the content: empty, located after the last row.
    #expect(try layout.visibleRange(scrollOffset: 1000, viewportHeight: 100) == 5..<5)
    // Above the content (rubber band): empty at 0, then the first rows.
    #expect(try layout.visibleRange(scrollOffset: -200, viewportHeight: 100) == 0..<0)
    #expect(try layout.visibleRange(scrollOffset: -50, viewportHeight: 100) == 0..<1)
    // Overscan extends both ways.
    // Band [90, 220): row 0 ends at 100 > 90, row 4 starts at 200 < 220.
    #expect(try layout.visibleRange(scrollOffset: 150, viewportHeight: 10, overscan: 60) == 0..<5)
    #expect(try layout.visibleRange(scrollOffset: 140, viewportHeight: 10, overscan: 40) == 1..<4)
    // All zero heights: every row is a point at 0.
    let flat = try TableLayout(rowCount: 7, rowHeight: 0)
    #expect(try flat.visibleRange(scrollOffset: 0, viewportHeight: 1) == 0..<7)
    #expect(try flat.visibleRange(scrollOffset: 0.5, viewportHeight: 1) == 7..<7)
    #expect(try flat.visibleRange(scrollOffset: -1, viewportHeight: 1) == 0..<0)
    // Empty table.
    let empty = try TableLayout(rowHeights: [])
    #expect(try empty.visibleRange(scrollOffset: 0, viewportHeight: 500) == 0..<0)
    #expect(empty.contentHeight == 0)
  }

  @Test("uniform layout with 1,000,000 rows: O(1) memory, ranges match a full scan")
  func millionRows() throws {
    let n = 1_000_000
    let h = 44.0
    let layout = try TableLayout(rowCount: n, rowHeight: h)
    #expect(layout.isUniform)
    #expect(layout.contentHeight == Double(n) * h)
    #expect(try layout.rowOffset(n) == layout.contentHeight)
    #expect(try layout.rowOffset(500_000) == 22_000_000)
    #expect(try layout.rowHeight(999_999) == h)
    var rng = SeededGenerator(seed: 0xC0FFEE)
    var offsets: [Double] = [
      0, -10, 22_000_000, layout.contentHeight - 600, layout.contentHeight,
      layout.contentHeight + 1e6, 43.999, 44,
    ]
    for _ in 0..<5 { offsets.append(rng.uniform(-100...(layout.contentHeight + 100))) }
    for offset in offsets {
      let range = try layout.visibleRange(scrollOffset: offset, viewportHeight: 600, overscan: 100)
      let expected = bruteForceVisible(
        rowCount: n, top: { Double($0) * h }, lower: offset - 100, upper: offset + 700)
      #expect(expected.range == range, "seed \(rng.seed) offset \(offset)")
    }
    #expect(
      try layout.visibleRange(scrollOffset: 22_000_000, viewportHeight: 600) == 500_000..<500_014)
  }

  @Test("uniform and per-row storage agree")
  func uniformMatchesPerRow() throws {
    let uniform = try TableLayout(rowCount: 300, rowHeight: 37)
    let perRow = try TableLayout(rowHeights: Array(repeating: 37, count: 300))
    var rng = SeededGenerator(seed: 7)
    for _ in 0..<500 {
      let offset = rng.uniform(-100...11_500)
      let viewport = rng.uniform(1...900)
      #expect(
        try uniform.visibleRange(scrollOffset: offset, viewportHeight: viewport)
          == perRow.visibleRange(scrollOffset: offset, viewportHeight: viewport),
        "seed \(rng.seed) offset \(offset) viewport \(viewport)")
    }
    #expect(uniform.contentHeight == perRow.contentHeight)
  }

  @Test("setHeight keeps prefix sums bitwise equal to a fresh recompute")
  func setHeightMatchesRecompute() throws {
    var rng = SeededGenerator(seed: 99)
    var heights = randomHeights(count: 400, using: &rng)
    var layout = try TableLayout(rowHeights: heights)
    for edit in 0..<300 {
      let row = Int(rng.next() % 400)
      let h = rng.next() % 3 == 0 ? 0 : rng.uniform(0...200)
      try layout.setHeight(row: row, height: h)
      heights[row] = h
      // Same sequential summation order, so exact equality is the claim under test.
      #expect(layout == (try TableLayout(rowHeights: heights)), "seed \(rng.seed) edit \(edit)")
    }
  }

  @Test("a uniform layout converts to per-row storage on its first different height")
  func uniformConversion() throws {
    var layout = try TableLayout(rowCount: 10, rowHeight: 50)
    try layout.setHeight(row: 3, height: 50)
    #expect(layout.isUniform)
    try layout.setHeight(row: 3, height: 80)
    #expect(!layout.isUniform)
    var heights = Array(repeating: 50.0, count: 10)
    heights[3] = 80
    #expect(layout == (try TableLayout(rowHeights: heights)))
    #expect(try layout.rowOffset(4) == 230)
    #expect(layout.contentHeight == 530)
    #expect(try layout.scrollRange(viewportHeight: 500) == 0...30)
    #expect(try layout.scrollRange(viewportHeight: 600) == 0...0)
  }

  @Test("invalid input throws typed errors")
  func validation() throws {
    #expect(throws: CellMotionError.outOfRange(field: "rowHeights[1]", value: -1, expected: "in [0, 1e6]"))
    {
      try TableLayout(rowHeights: [10, -1])
    }
    #expect(throws: CellMotionError.self) { try TableLayout(rowHeights: [10, .nan]) }
    #expect(throws: CellMotionError.self) { try TableLayout(rowHeights: [.infinity]) }
    #expect(throws: CellMotionError.self) {
      try TableLayout(rowHeights: [.greatestFiniteMagnitude, .greatestFiniteMagnitude])
    }
    #expect(throws: CellMotionError.self) { try TableLayout(rowCount: -1, rowHeight: 10) }
    #expect(throws: CellMotionError.self) { try TableLayout(rowCount: 10, rowHeight: -0.5) }
    #expect(throws: CellMotionError.self) { try TableLayout(rowCount: 10, rowHeight: .nan) }
    #expect(throws: CellMotionError.self) {
      try TableLayout(rowCount: Int.max, rowHeight: .greatestFiniteMagnitude)
    }

    var layout = try TableLayout(rowCount: 5, rowHeight: 10)
    #expect(throws: CellMotionError.indexOutOfRange(field: "row", index: 5, count: 5)) {
      try layout.rowHeight(5)
    }
    #expect(throws: CellMotionError.indexOutOfRange(field: "row", index: 6, count: 6)) {
      try layout.rowOffset(6)
    }
    #expect(throws: CellMotionError.indexOutOfRange(field: "row", index: -1, count: 6)) {
      try layout.rowOffset(-1)
    }
    #expect(throws: CellMotionError.indexOutOfRange(field: "row", index: 9, count: 5)) {
      try layout.setHeight(row: 9, height: 1)
    }
    #expect(throws: CellMotionError.outOfRange(field: "height", value: -3, expected: "in [0, 1e6]")) {
      try layout.setHeight(row: 1, height: -3)
    }
    #expect(throws: CellMotionError.notFinite(field: "height", value: .infinity)) {
      try layout.setHeight(row: 1, height: .infinity)
    }
    #expect(layout == (try TableLayout(rowCount: 5, rowHeight: 10)), "unchanged after errors")
    #expect(throws: CellMotionError.outOfRange(field: "viewportHeight", value: 0, expected: "> 0"))
    {
      try layout.visibleRange(scrollOffset: 0, viewportHeight: 0)
    }
    #expect(throws: CellMotionError.self) {
      try layout.visibleRange(scrollOffset: 0, viewportHeight: -5)
    }
    #expect(throws: CellMotionError.self) {
      try layout.visibleRange(scrollOffset: .nan, viewportHeight: 5)
    }
    #expect(throws: CellMotionError.self) {
      try layout.visibleRange(scrollOffset: 0, viewportHeight: 5, overscan: -1)
    }
    #expect(throws: CellMotionError.self) {
      try layout.visibleRange(
        scrollOffset: .greatestFiniteMagnitude, viewportHeight: .greatestFiniteMagnitude)
    }
    #expect(throws: CellMotionError.self) { try layout.scrollRange(viewportHeight: 0) }
  }
}
