// Limits of the table side: animator capacities beyond `CellBatch.maxCapacity` and kernel
// options beyond `KernelOptions.maxThreads` are typed errors, never an overflow or an
// allocation abort.

import CellMotion
import CellMotionKernel
import Testing

@testable import CellMotionTable

@Suite("Table limits")
struct TableLimitsTests {
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
