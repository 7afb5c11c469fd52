// Limits of the table side: row counts beyond `TableLayout.maxRowCount` and animator
// capacities beyond `CellBatch.maxCapacity` are typed errors, never an overflow or an
// allocation abort; the largest accepted table still runs.

import CellMotion
import CellMotionKernel
import Testing

@testable import CellMotionTable
@testable import CellMotionTableModel

@Suite("Table limits")
struct TableLimitsTests {
  static let rowsExpected = "<= \(TableLayout.maxRowCount)"

  @Test("Row counts beyond maxRowCount are typed errors in layouts and trackers")
  func rowCounts() throws {
    #expect(TableLayout.maxRowCount == 50_000_000)
    for rows in [1 << 40, Int.max, TableLayout.maxRowCount + 1] {
      #expect(throws: CellMotionError.outOfRange(field: "rowCount", value: Double(rows), expected: Self.rowsExpected)) {
        try TableLayout(rowCount: rows, rowHeight: 44)
      }
      #expect(throws: CellMotionError.outOfRange(field: "rowCount", value: Double(rows), expected: Self.rowsExpected)) {
        try DisplayTracker(rowCount: rows, rule: .always)
      }
    }
    var tracker = try DisplayTracker(rowCount: 10, rule: .always)
    #expect(throws: CellMotionError.outOfRange(field: "rowCount", value: Double(Int.max), expected: Self.rowsExpected)) {
      try tracker.reload(rowCount: Int.max)
    }
    #expect(tracker.rowCount == 10 && tracker.trackingStorageBytes == 8, "unchanged after the error")
  }

  @Test("A table of maxRowCount rows builds and steps")
  func largestTable() throws {
    let layout = try TableLayout(rowCount: TableLayout.maxRowCount, rowHeight: 44)
    #expect(layout.contentHeight == 44 * Double(TableLayout.maxRowCount))
    var sim = try TableSimulation(
      layout: layout, viewportHeight: 640, scroll: .stationary(at: layout.contentHeight - 640),
      rule: .firstAppearanceOnly)
    #expect(sim.display.trackingStorageBytes == TableLayout.maxRowCount / 8)
    let events = try sim.step(to: 0)
    #expect(events.visibleRange.upperBound == TableLayout.maxRowCount)
    #expect(events.animationStarts.count == events.visibleRange.count)
  }

  @Test("Bitset word counts never overflow")
  func bitsetWordCount() {
    #expect(_RowBitset.wordCount(0) == 0)
    #expect(_RowBitset.wordCount(1) == 1)
    #expect(_RowBitset.wordCount(64) == 1)
    #expect(_RowBitset.wordCount(65) == 2)
    #expect(_RowBitset.wordCount(Int.max) == Int.max / 64 + 1)
    var bits = _RowBitset(count: 130)
    #expect(bits.words.count == 3)
    bits.removeAll(resizingTo: 64)
    #expect(bits.words.count == 1)
  }

  @Test("TableAnimator capacity and kernel options are checked at construction")
  func animatorLimits() throws {
    let layout = try TableLayout(rowCount: 10, rowHeight: 44)
    let sim = try TableSimulation(layout: layout, viewportHeight: 200, scroll: .stationary(at: 0), rule: .always)
    let recipes = TableRecipes(first: .fadeIn)
    for capacity in [Int.max, Int.max / 16 + 1, CellBatch.maxCapacity + 1] {
      #expect(
        throws: CellMotionError.outOfRange(
          field: "capacity", value: Double(capacity), expected: "<= \(CellBatch.maxCapacity)")
      ) { try TableAnimator(simulation: sim, recipes: recipes, cellWidth: 320, capacity: capacity) }
    }
    #expect(throws: CellMotionError.outOfRange(field: "capacity", value: -1, expected: ">= 0")) {
      try TableAnimator(simulation: sim, recipes: recipes, cellWidth: 320, capacity: -1)
    }
    #expect(
      throws: CellMotionError.outOfRange(
        field: "threads", value: Double(1 << 40), expected: "in [1, \(KernelOptions.maxThreads)]")
    ) { try TableAnimator(simulation: sim, recipes: recipes, cellWidth: 320, options: KernelOptions(threads: 1 << 40)) }
    // A zero capacity grows on the first rows (through the now throwing `grow`).
    var animator = try TableAnimator(simulation: sim, recipes: recipes, cellWidth: 320, capacity: 0)
    try animator.step(to: 0)
    #expect(animator.batch.count == 5)
    #expect(animator.output.capacity == 16)
  }
}
