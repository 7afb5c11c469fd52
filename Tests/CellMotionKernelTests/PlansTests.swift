// The kernel's plans and named numbers follow their one source: the velocity rows' mask
// the channel list, the widest lane group the lane widths, the scratch layout its sizes,
// the passes their one order, and a batch's columns their one list (every column keeps the
// batch's count through appends, removals and compaction).

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Kernel plans and named numbers")
struct PlansTests {
  @Test("Velocity rows: one bit per channel of Channel.allCases, and recipes that animate every channel move every row")
  func channelRows() throws {
    #expect(ChannelRows.count == Channel.allCases.count)
    #expect(ChannelRows.count <= UInt16.bitWidth, "the row mask is a UInt16: widen it before adding channels")
    #expect(ChannelRows.all.nonzeroBitCount == Channel.allCases.count)
    for row in 0..<ChannelRows.count { #expect(ChannelRows.all & ChannelRows.bit(row) != 0) }
    // A recipe animating every channel writes every row; one animating none writes none.
    let every = Recipe(
      name: "every",
      channels: Channel.allCases.map { ChannelAnimation($0, from: 0, to: 1, curve: .bezier(.linear), duration: 0.5) })
    #expect(try CompiledRecipe(every).velocityPlan.movingRows == ChannelRows.all)
    #expect(try CompiledRecipe(Recipe(name: "none")).velocityPlan.movingRows == 0)
    // Each channel alone moves exactly its own row.
    for (row, c) in Channel.allCases.enumerated() {
      let one = Recipe(name: "one", channels: [ChannelAnimation(c, from: 0, to: 1, curve: .bezier(.linear), duration: 1)])
      #expect(try CompiledRecipe(one).velocityPlan.movingRows == ChannelRows.bit(row), "\(c)")
    }
    // The output's default clears every row.
    var out = try FrameOutput(capacity: 8, includeVelocities: true)
    out.withKernelOutputs { #expect($0.velocityRowsToClear == ChannelRows.all) }
  }

  @Test("The widest lane group is the widest lane width; blocks are whole groups that fit the scratch")
  func layout() {
    #expect(LaneWidth.widest == LaneWidth.allCases.map(\.lanes).max())
    #expect(ScratchLayout.floats == 4096)
    #expect(CompiledRecipe.maxParts == ScratchLayout.maxStagedRows)
    for staged in 0...ScratchLayout.maxStagedRows {
      let l = ScratchLayout(stagedRows: staged)
      #expect(l.blockCells % LaneWidth.widest == 0 && l.blockCells >= ScratchLayout.minimumBlockCells)
      #expect(l.blockCells <= ScratchLayout.maximumBlockCells)
      #expect(l.blockCells * (staged + ScratchLayout.matrixRows) <= ScratchLayout.floats, "\(staged) rows")
    }
  }

  @Test("Passes run in KernelPass order; each recipe has the passes it needs")
  func passes() throws {
    var all: PassSet = []
    for p in KernelPass.allCases { all.insert(PassSet(p)) }
    var seen: [KernelPass] = []
    all.forEach { seen.append($0) }
    #expect(seen == KernelPass.allCases)
    let fold = try CompiledRecipe(.foldOpen), tip = try CompiledRecipe(.tipIn), shake = try CompiledRecipe(.shake)
    #expect(fold.passes.contains(PassSet(.fold)) && !tip.passes.contains(PassSet(.fold)))
    #expect(shake.passes.contains(PassSet(.keyframes)) && !tip.passes.contains(PassSet(.keyframes)))
    #expect(!tip.passes.contains(PassSet(.retargets)))
    if case .identity = fold.matrixPlan {} else { Issue.record("a fold moves no cell: the identity plan") }
    if case .planar = tip.matrixPlan {} else { Issue.record("tip-in is planar") }
    if case .axisRotation = try CompiledRecipe(.flipX).matrixPlan {} else { Issue.record("flipX rotates about x") }
  }

  @Test("Every batch column keeps the batch's count through appends, removals, compaction and clearing")
  func columns() throws {
    var batch = try CellBatch(recipes: [.tipIn, .fade], capacity: 4)
    let g = CellGeometry(width: 320, height: 60)
    for i in 0..<9 { try batch.append(recipe: i % 2, row: i, startTime: Double(i) * 0.1, geometry: g) }
    #expect(batch.columns.counts().allSatisfy { $0 == 9 }, "\(batch.columns.counts())")
    batch.removeCells { $0 % 3 == 0 }
    #expect(batch.columns.counts().allSatisfy { $0 == 6 }, "\(batch.columns.counts())")
    #expect(Array(batch.row) == [1, 2, 4, 5, 7, 8])
    batch.removeCells(finishedBy: 0.95, orRow: { $0 == 8 })
    #expect(batch.columns.counts().allSatisfy { $0 == batch.count }, "\(batch.columns.counts())")
    // Without a row test: the cells finished by the time go, the others stay in order,
    // as with a row test that keeps every row.
    for i in 9..<15 { try batch.append(recipe: i % 2, row: i, startTime: Double(i) * 0.1, geometry: g) }
    var withTest = batch
    let before = batch.count, t = batch.endTime(ofCell: batch.count / 2)
    let kept = (0..<batch.count).filter { batch.endTime(ofCell: $0) > t }.map { batch.row[$0] }
    withTest.removeCells(finishedBy: t, orRow: { _ in false })
    batch.removeCells(finishedBy: t)
    #expect(Array(batch.row) == kept && Array(withTest.row) == kept && !kept.isEmpty && kept.count < before, "\(kept)")
    #expect(batch.columns.counts().allSatisfy { $0 == batch.count }, "\(batch.columns.counts())")
    batch.removeAll()
    #expect(batch.columns.counts().allSatisfy { $0 == 0 })
  }

  /// A table removes the batch's first cells most frames (they finish in the order they
  /// started, and leave the screen from one edge): the columns then start later instead of
  /// moving their cells down. The batch must still hold the same cells as one built from
  /// them afresh (the same kernel output, bit for bit), and take the dropped front back
  /// before its storage would grow, so a reserved batch never reallocates.
  @Test("A batch whose front is removed keeps its cells, its output and its storage")
  func frontRemoval() throws {
    let recipes: [Recipe] = [.tipIn, .fade]
    let capacity = 64
    var batch = try CellBatch(recipes: recipes, capacity: capacity)
    let reserved = batch.start.capacity
    let g = CellGeometry(width: 320, height: 60)
    var rng = SeededGenerator(seed: 0xF407)
    var model: [(recipe: Int, row: Int, start: Double)] = []
    var nextRow = 0
    var frontDrops = 0, general = 0, reclaimed = 0
    for step in 0..<400 {
      let t = Double(step) * 0.03  // within the batch's 16 s window
      // New cells start now (up to the capacity): their ends come after every earlier one's.
      let headBeforeAppends = batch.columns.start.head
      for _ in 0..<min(Int(rng.next() % 9), capacity - batch.count) {
        let recipe = Int(rng.next() % 2)
        try batch.append(recipe: recipe, row: nextRow, startTime: t, geometry: g)
        model.append((recipe, nextRow, t))
        nextRow += 1
      }
      let headBefore = batch.columns.start.head
      if headBefore < headBeforeAppends { reclaimed += 1 }
      let ends = (0..<batch.count).map { batch.endTime(ofCell: $0) }
      if step % 7 == 3 {
        // Rows from the middle too (the general compaction).
        let drop = nextRow - 1 - Int(rng.next() % 20)
        batch.removeCells(finishedBy: t, orRow: { $0 == drop })
        model = model.indices.filter { ends[$0] > t && model[$0].row != drop }.map { model[$0] }
        general += 1
      } else {
        batch.removeCells(finishedBy: t)
        model = model.indices.filter { ends[$0] > t }.map { model[$0] }
      }
      if batch.columns.start.head > headBefore { frontDrops += 1 }
      #expect(Array(batch.row) == model.map(\.row), "step \(step)")
      #expect(batch.columns.counts().allSatisfy { $0 == batch.count }, "step \(step): \(batch.columns.counts())")
      #expect(batch.start.capacity == reserved, "step \(step): the storage grew from \(reserved) to \(batch.start.capacity)")
      if step % 10 == 0 || step == 399 {
        var fresh = try CellBatch(recipes: recipes, capacity: capacity)
        for c in model { try fresh.append(recipe: c.recipe, row: c.row, startTime: c.start, geometry: g) }
        var a = try FrameOutput(capacity: capacity), b = try FrameOutput(capacity: capacity)
        for time in [t, t + 0.1, t + 0.3] {
          try Kernel.evaluate(batch, at: time, into: &a)
          try Kernel.evaluate(fresh, at: time, into: &b)
          let n = batch.count
          #expect(a.matrices[..<(16 * n)] == b.matrices[..<(16 * n)], "step \(step) time \(time)")
          #expect(a.opacity[..<n] == b.opacity[..<n], "step \(step) time \(time)")
        }
      }
    }
    // The cases this test is about happened: fronts dropped without a move, the front taken
    // back before an append, and the general compaction between them.
    #expect(frontDrops > 40 && reclaimed > 10 && general > 50, "fronts \(frontDrops) reclaimed \(reclaimed) general \(general)")
  }

  /// Soak seed 34 (session 10226066640712208008, frame 388): the compaction scratch grew
  /// inside `compact`, so the first compaction of a batch larger than any before allocated
  /// in a steady table frame. Appends now grow it; compaction must find it long enough.
  @Test("Appends grow the compaction scratch, so compacting never allocates")
  func compactionScratchFollowsAppends() throws {
    var batch = try CellBatch(recipes: [.tipIn, .fade], capacity: 2)
    let g = CellGeometry(width: 320, height: 60)
    for i in 0..<37 {
      try batch.append(recipe: i % 2, row: i, startTime: Double(i) * 0.01, geometry: g)
      #expect(batch.keepScratch.count >= batch.count, "after \(batch.count) appends")
    }
    let scratch = batch.keepScratch.count
    batch.removeCells(finishedBy: 0.6, orRow: { _ in false })
    #expect(batch.keepScratch.count == scratch, "compaction resized its scratch")
    #expect(batch.count < 37)
    var progress = try CellBatch(recipes: [.tipIn], source: .progress)
    try progress.resizeForProgress(count: 300)
    #expect(progress.keepScratch.count >= 300)
    // Resizing writes its columns one by one: every column has the new count.
    #expect(progress.columns.counts().allSatisfy { $0 == 300 }, "\(progress.columns.counts())")
    try progress.resizeForProgress(count: 120)
    #expect(progress.columns.counts().allSatisfy { $0 == 120 }, "\(progress.columns.counts())")
  }
}
