// `CellBatch.append(contentsOf:)` stores the same cells as one `append` per start, bit for
// bit (every column, the recipe runs, the frame the kernel evaluates from them), and
// appends nothing when any start is refused.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Bulk append")
struct BulkAppendTests {
  /// Random starts over every preset (staggered ones included, with their counts), rows and
  /// batch positions in range, times within the batch's window, varied sizes.
  static func starts(_ n: Int, recipes: Int, seed: UInt64) -> [CellBatch.Start] {
    var g = SeededGenerator(seed: seed)
    return (0..<n).map { i in
      // Runs of one recipe, broken now and then (the batch counts recipe changes).
      let recipe = (i / 5 + Int(g.uniform(0...1.99))) % recipes
      return CellBatch.Start(
        recipe: recipe, row: i * 3 + Int(g.uniform(0...2)), batchPosition: i % 17, rowCount: 3 * n + 10,
        batchCount: 17, startTime: g.uniform(0...2),
        geometry: CellGeometry(width: g.uniform(200...420), height: g.uniform(30...120), tableWidth: 420))
    }
  }

  /// The presets, and tip-in with every part delayed 0.3 s (a recipe whose start shift is
  /// not 0: the kernel's Float start is measured from the shared delay).
  static var recipes: [Recipe] {
    var delayed = Recipe.tipIn
    for k in delayed.channels.indices { delayed.channels[k].delay += 0.3 }
    if delayed.matrix != nil { delayed.matrix!.delay += 0.3 }
    return Recipe.presets + [delayed]
  }

  @Test("the same columns and the same frame as one append per start, at awkward sizes")
  func sameAsSingleAppends() throws {
    let recipes = Self.recipes
    #expect(try CompiledRecipe(recipes[recipes.count - 1]).startShift == 0.3, "the delayed recipe shifts its start")
    for n in [0, 1, 7, 9, 1023] {
      let starts = Self.starts(n, recipes: recipes.count, seed: 0xB01C_0000 + UInt64(n))
      var one = try CellBatch(recipes: recipes, capacity: 4)
      var bulk = try CellBatch(recipes: recipes, capacity: 4)
      // Cells already in the batch: the first bulk cell's recipe change is counted against them.
      for b in [0, 3] {
        try one.append(recipe: b, row: 0, startTime: 0.5, geometry: CellGeometry(width: 320, height: 44))
        try bulk.append(recipe: b, row: 0, startTime: 0.5, geometry: CellGeometry(width: 320, height: 44))
      }
      for s in starts {
        try one.append(
          recipe: s.recipe, row: s.row, batchPosition: s.batchPosition, rowCount: s.rowCount,
          batchCount: s.batchCount, startTime: s.startTime, geometry: s.geometry)
      }
      try starts.withUnsafeBufferPointer { p throws(CellMotionError) in try bulk.append(contentsOf: p) }
      let a = one.columns
      var b = bulk.columns
      #expect(a.start.map(\.bitPattern) == b.start.map(\.bitPattern), "n \(n): start")
      #expect(a.startExact.map(\.bitPattern) == b.startExact.map(\.bitPattern), "n \(n): startExact")
      #expect(a.progress.map(\.bitPattern) == b.progress.map(\.bitPattern), "n \(n): progress")
      #expect(a.width.map(\.bitPattern) == b.width.map(\.bitPattern), "n \(n): width")
      #expect(a.height.map(\.bitPattern) == b.height.map(\.bitPattern), "n \(n): height")
      #expect(a.tableWidth.map(\.bitPattern) == b.tableWidth.map(\.bitPattern), "n \(n): tableWidth")
      #expect(a.detailHeight.map(\.bitPattern) == b.detailHeight.map(\.bitPattern), "n \(n): detailHeight")
      #expect(a.recipeIndex == b.recipeIndex && a.row == b.row && a.batchPosition == b.batchPosition, "n \(n)")
      #expect(a.endExact.map(\.bitPattern) == b.endExact.map(\.bitPattern), "n \(n): endExact")
      #expect(b.counts().allSatisfy { $0 == n + 2 }, "n \(n): \(b.counts())")
      #expect(one.recipeChanges == bulk.recipeChanges, "n \(n): recipe changes")
      #expect(bulk.keepScratch.count >= bulk.count, "n \(n): compaction scratch")
      let ends = (0..<bulk.count).map { bulk.endTime(ofCell: $0) }
      #expect(bulk.earliestEndTime == ends.min() ?? .infinity, "n \(n): earliest end")
      // The kernel's frame from each, bit for bit.
      var outA = try FrameOutput(capacity: n + 2)
      var outB = try FrameOutput(capacity: n + 2)
      for t in [0.6, 1.1, 2.3] {
        try Kernel.evaluate(one, at: t, into: &outA)
        try Kernel.evaluate(bulk, at: t, into: &outB)
        #expect(outA.matrices.map(\.bitPattern) == outB.matrices.map(\.bitPattern), "n \(n) t \(t): matrices")
        #expect(outA.opacity.map(\.bitPattern) == outB.opacity.map(\.bitPattern), "n \(n) t \(t): opacity")
      }
    }
  }

  @Test("a refused start appends nothing and throws what a single append throws")
  func refusedStartAppendsNothing() throws {
    let recipes = Recipe.presets
    let good = Self.starts(9, recipes: recipes.count, seed: 0xBAD0)
    let stagger = recipes.firstIndex { $0.stagger.needsCount }
    var bad: [(String, CellBatch.Start)] = []
    var s = good[4]
    s.startTime = .nan
    bad.append(("NaN start time", s))
    s = good[4]
    s.recipe = recipes.count
    bad.append(("unknown recipe", s))
    s = good[4]
    s.geometry.height = 0
    bad.append(("zero height", s))
    s = good[4]
    s.row = -1
    bad.append(("negative row", s))
    if let stagger {
      s = good[4]
      s.recipe = stagger
      s.rowCount = nil
      s.batchCount = nil
      bad.append(("stagger without its count", s))
    }
    for (name, start) in bad {
      var batch = try CellBatch(recipes: recipes, capacity: 4)
      try batch.append(recipe: 0, row: 0, startTime: 0.5, geometry: CellGeometry(width: 320, height: 44))
      var starts = good
      starts[4] = start
      var single: CellMotionError? = nil
      var copy = batch
      do {
        try copy.append(
          recipe: start.recipe, row: start.row, batchPosition: start.batchPosition, rowCount: start.rowCount,
          batchCount: start.batchCount, startTime: start.startTime, geometry: start.geometry)
      } catch { single = error }
      #expect(single != nil, "\(name): a single append refuses it")
      var bulkError: CellMotionError? = nil
      do {
        try starts.withUnsafeBufferPointer { p throws(CellMotionError) in try batch.append(contentsOf: p) }
      } catch { bulkError = error }
      // Compared as text: an error carrying a NaN value is not equal to itself.
      #expect(
        bulkError.map { "\($0)" } == single.map { "\($0)" },
        "\(name): \(String(describing: bulkError)) vs \(String(describing: single))")
      #expect(batch.count == 1 && batch.columns.counts().allSatisfy { $0 == 1 }, "\(name): cells were appended")
    }
  }

  @Test("a batch driven by progress refuses starts on the clock")
  func progressBatchRefuses() throws {
    var batch = try CellBatch(recipes: [.tipIn], source: .progress)
    let starts = Self.starts(3, recipes: 1, seed: 1)
    #expect(throws: CellMotionError.self) {
      try starts.withUnsafeBufferPointer { p throws(CellMotionError) in try batch.append(contentsOf: p) }
    }
    #expect(batch.count == 0)
  }
}
