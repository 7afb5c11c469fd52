import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

/// Where each row is drawn in a frame, by identifier: the rows in the visible range, moved
/// rows drawn outside it, and deleted rows (their row animation's cell); with `band`, only
/// those that meet the viewport band (viewport points).
private func drawn(_ sim: TableSimulation, _ e: FrameEvents, band: (Double, Double)? = nil) -> [RowID: Double] {
  var out = [RowID: Double]()
  func add(_ id: RowID, _ y: Double, _ h: Double) {
    if let band, !TableSimulation.meets(top: y, height: h, band) { return }
    out[id] = y
  }
  for (k, row) in e.visibleRange.enumerated() { add(sim.rows.ids[row], e.rowPositions[k], e.rowHeights[k]) }
  for m in e.movingRows { add(sim.rows.ids[m.row], m.y, m.height) }
  for c in e.updateCells where c.cell.kind == .deleted { add(c.cell.id, c.y, c.height) }
  return out
}

/// Records every row of `before` that is not drawn `after`, and the largest move of those
/// that are; counts them.
private func compareDrawn(
  _ before: [RowID: Double], _ after: [RowID: Double], _ label: String, _ worstJump: inout Double, _ checked: inout Int
) {
  for (id, y) in before {
    guard let y2 = after[id] else {
      Issue.record("\(label): row \(id) drawn at \(y) before the batch is not drawn after it")
      continue
    }
    worstJump = worstOf(worstJump, abs(y2 - y))
    checked += 1
  }
}

private func simulation(seed: UInt64, count: Int, timing: UpdateTiming, offset: Double) throws -> TableSimulation {
  var rng = SeededGenerator(seed: seed)
  let heights = (0..<count).map { _ in rng.uniform(20...90) }
  return try TableSimulation(
    layout: try TableLayout(rowHeights: heights), viewportHeight: 500, scroll: try .stationary(at: offset),
    rule: .firstAppearanceOnly, updateRecipes: RowAnimationRecipes(timing: timing))
}

@Suite("Update animations")
struct UpdateAnimationTests {
  @Test("every drawn row's position and velocity are continuous across each batch, batches landing while others run")
  func continuity() throws {
    var checked = 0
    var worstJump = 0.0
    var worstRate = 0.0
    for seed: UInt64 in 1...40 {
      var rng = SeededGenerator(seed: seed)
      let timing = seed % 2 == 0 ? UpdateTiming.uiKit : UpdateTiming.recyclerView
      var sim = try simulation(seed: seed, count: 40 + Int(rng.next() % 80), timing: timing, offset: rng.uniform(0...1500))
      var t = 0.0
      _ = try sim.step(to: t)
      for _ in 0..<4 {
        t += rng.uniform(0.02...0.4)
        let before = try sim.step(to: t)
        let drawnBefore = drawn(sim, before, band: (0, 500))
        let ratesBefore = Dictionary(
          uniqueKeysWithValues: (0..<sim.rows.rowCount).map { (sim.rows.ids[$0], sim.updates.shift(ofRow: $0, at: t).topRate) })
        var fresh = sim.rows.ids.nextFresh
        let batch = RandomBatch(
          rows: (0..<sim.rows.rowCount).map { (sim.rows.ids[$0], try! sim.layout.rowHeight($0)) }, uniform: nil,
          nextFresh: &fresh, using: &rng)
        // Heights a simulated table accepts (RandomBatch draws from 0.5 points up).
        try sim.performBatchUpdates(batch.update, at: t, expectedRowCount: batch.expected.count)
        // A row drawn before is drawn at the same place after (deleted rows as their cell),
        // unless it is drawn neither before nor after within the band.
        compareDrawn(drawnBefore, drawn(sim, try sim.step(to: t)), "seed \(seed)", &worstJump, &checked)
        // Velocity: the new slide starts at rest (ease-in-ease-out, accelerate-decelerate).
        for n in 0..<sim.rows.rowCount {
          guard let rate = ratesBefore[sim.rows.ids[n]] else { continue }
          let now = sim.updates.shift(ofRow: n, at: t).topRate
          worstRate = worstOf(worstRate, abs(now - rate) / max(1, abs(rate)))
        }
      }
    }
    #expect(checked > 1500)
    #expect(worstJump <= 1e-9, "worst position jump \(worstJump)")
    #expect(worstRate <= 1e-9, "worst velocity jump \(worstRate)")
  }

  @Test("deleted rows keep their slides through many overlapping batches while the slide pool compacts")
  func slidePoolCompacts() throws {
    var rng = SeededGenerator(seed: 77)
    var sim = try simulation(seed: 77, count: 220, timing: .uiKit, offset: 600)
    var t = 0.0
    _ = try sim.step(to: t)
    var checked = 0
    var worstJump = 0.0
    var shrinks = 0
    var largest = 0
    for _ in 0..<60 {
      t += rng.uniform(0.03...0.12)
      var pool = sim.updates.slidePoolCount
      let before = try sim.step(to: t)
      if sim.updates.slidePoolCount < pool { shrinks += 1 }
      let drawnBefore = drawn(sim, before, band: (0, 500))
      var fresh = sim.rows.ids.nextFresh
      let batch = RandomBatch(
        rows: (0..<sim.rows.rowCount).map { (sim.rows.ids[$0], try! sim.layout.rowHeight($0)) }, uniform: nil,
        nextFresh: &fresh, using: &rng)
      pool = sim.updates.slidePoolCount
      try sim.performBatchUpdates(batch.update, at: t, expectedRowCount: batch.expected.count)
      if sim.updates.slidePoolCount < pool { shrinks += 1 }
      largest = max(largest, sim.updates.slidePoolCount)
      let live = sim.updates.cells.reduce(0) { $0 + $1.slideCount }
      #expect(sim.updates.slidePoolCount <= 2 * live + 256 + 2 * sim.updates.cells.count)
      // A deleted row (as its cell) and every other row is drawn where it was the moment
      // before the batch: its slides were read back from the pool, compacted or not.
      compareDrawn(drawnBefore, drawn(sim, try sim.step(to: t)), "pool", &worstJump, &checked)
    }
    #expect(shrinks >= 2, "the pool compacted \(shrinks) times (largest \(largest) slides)")
    #expect(checked > 1000)
    #expect(worstJump <= 1e-9, "worst position jump \(worstJump)")
  }

  @Test("shift rates equal differences of the shifts, and every row meeting the viewport is drawn")
  func ratesAndCompleteness() throws {
    for seed: UInt64 in 1...20 {
      var rng = SeededGenerator(seed: seed)
      var sim = try simulation(seed: seed, count: 120, timing: seed % 2 == 0 ? .uiKit : .recyclerView, offset: 1200)
      var t = 0.0
      _ = try sim.step(to: t)
      for _ in 0..<3 {
        var fresh = sim.rows.ids.nextFresh
        let batch = RandomBatch(
          rows: (0..<sim.rows.rowCount).map { (sim.rows.ids[$0], try! sim.layout.rowHeight($0)) }, uniform: nil,
          nextFresh: &fresh, using: &rng)
        try sim.performBatchUpdates(batch.update, at: t)
        for _ in 0..<4 {
          t += rng.uniform(0.01...0.15)
          let e = try sim.step(to: t)
          let h = 1e-5
          for n in 0..<sim.rows.rowCount {
            let s = sim.updates.shift(ofRow: n, at: t)
            let a = sim.updates.shift(ofRow: n, at: t - h)
            let b = sim.updates.shift(ofRow: n, at: t + h)
            #expect(abs((b.top - a.top) / (2 * h) - s.topRate) <= 1e-4 * max(1, abs(s.topRate)), "seed \(seed) row \(n)")
            #expect(abs((b.height - a.height) / (2 * h) - s.heightRate) <= 1e-4 * max(1, abs(s.heightRate)))
            // Brute force: is the row drawn inside [offset, offset + 500)?
            let top = try sim.layout.rowOffset(n) + s.top
            let height = try sim.layout.rowHeight(n) + s.height
            if TableSimulation.meets(top: top, height: height, (1200, 1700)) {
              let inRange = e.visibleRange.contains(n)
              #expect(inRange || e.movingRows.contains { $0.row == n }, "seed \(seed): row \(n) at \(top) not drawn")
              if inRange { #expect(abs(e.rowPositions[n - e.visibleRange.lowerBound] - (top - 1200)) <= 1e-9) }
            }
          }
        }
      }
      // Long after: every row at its place, nothing in flight.
      t += 2
      let e = try sim.step(to: t)
      #expect(!sim.updates.isActive && e.updateCells.isEmpty && e.movingRows.isEmpty)
      for (k, row) in e.visibleRange.enumerated() { #expect(e.rowPositions[k] == (try sim.layout.rowOffset(row)) - 1200) }
    }
  }

  @Test("one batch from rest: rows slide linearly in the curve's progress between the brute-force layouts")
  func slideBetweenLayouts() throws {
    var sim = try TableSimulation(
      layout: try TableLayout(rowHeights: (0..<30).map { 30 + Double($0) }), viewportHeight: 600,
      scroll: try .stationary(at: 0), rule: .always)
    _ = try sim.step(to: 0)
    let before = sim.layout
    var u = RowUpdate()
    u.deleteRows(at: [2, 3])
    u.insertRow(at: 0, height: 50)
    u.moveRow(at: 10, to: 1)
    u.setHeight(ofRow: 5, to: 80)
    let applied = try sim.performBatchUpdates(u, at: 1)
    // Brute-force layout after: rows 0..29 minus 2, 3 and 10; 50 at 0, row 10 at 1.
    var heights = (0..<30).map { 30 + Double($0) }
    heights[5] = 80
    var order = Array(0..<30).filter { ![2, 3, 10].contains($0) }
    order.insert(10, at: 0)
    var expected = order.map { heights[$0] }
    expected.insert(50, at: 0)
    #expect(sim.layout == (try TableLayout(rowHeights: expected)))
    for t in [1.0, 1.05, 1.15, 1.2999, 1.3, 2] {
      let p = UpdateTiming.uiKit.curve.progress(localTime: min(t - 1, 0.3), duration: 0.3)
      let e = try sim.step(to: t)
      for (k, row) in e.visibleRange.enumerated() {
        guard let o = applied.map._oldIndex(row) else { continue }
        let want = p * (try sim.layout.rowOffset(row)) + (1 - p) * (try before.rowOffset(o))
        #expect(abs(e.rowPositions[k] - want) <= 1e-9, "t \(t) row \(row)")
        let wantHeight = p * (try sim.layout.rowHeight(row)) + (1 - p) * (try before.rowHeight(o))
        #expect(abs(e.rowHeights[k] - wantHeight) <= 1e-9)
      }
    }
  }

  @Test("phase order: UIKit starts everything at once; RecyclerView removes, then moves and changes, then adds")
  func phases() throws {
    func cells(_ timing: UpdateTiming, _ build: (inout RowUpdate) -> Void) throws -> (UpdateAnimations, Double) {
      var sim = try simulation(seed: 3, count: 30, timing: timing, offset: 0)
      _ = try sim.step(to: 0)
      var u = RowUpdate()
      build(&u)
      try sim.performBatchUpdates(u, at: 2)
      return (sim.updates, 2)
    }
    func begin(_ a: UpdateAnimations, _ kind: UpdateCell.Kind) -> Double? { a.cells.first { $0.kind == kind }?.beginTime }
    // Everything: delete, reload, insert (rows shift).
    let all: (inout RowUpdate) -> Void = {
      $0.deleteRows(at: [3], with: .fade)
      $0.reloadRows(at: [5], with: .fade)
      $0.insertRow(at: 10, height: 40, with: .fade)
    }
    var (a, t) = try cells(.uiKit, all)
    #expect(begin(a, .deleted) == t && begin(a, .reloadedOld) == t && begin(a, .inserted) == t)
    #expect(a.batches[0].clock.start == t && a.batches[0].clock.duration == 0.3)
    #expect(abs(a.cells.first { $0.kind == .inserted }!.endTime - (t + 0.3)) <= 1e-12)
    (a, t) = try cells(.recyclerView, all)
    #expect(begin(a, .deleted) == t)
    #expect(begin(a, .reloadedOld) == t + 0.12 && begin(a, .reloadedNew) == t + 0.12)
    #expect(a.batches[0].clock.start == t + 0.12 && a.batches[0].clock.duration == 0.25)
    #expect(abs(begin(a, .inserted)! - (t + 0.12 + 0.25)) <= 1e-12)
    // No removal: moves and changes at once, additions after the longer of them.
    (a, t) = try cells(.recyclerView) { $0.insertRow(at: 4, height: 40) }
    #expect(a.batches[0].clock.start == t && abs(begin(a, .inserted)! - (t + 0.25)) <= 1e-12)
    // An insertion at the end moves no row: it starts at once.
    (a, t) = try cells(.recyclerView) { $0.insertRow(at: 30, height: 40) }
    #expect(begin(a, .inserted) == t)
    // A removal at the end and an addition: additions wait only for the removal... and
    // the rows the addition pushes down.
    (a, t) = try cells(.recyclerView) { $0.deleteRows(at: [29]) }
    #expect(begin(a, .deleted) == t && a.batches[0].maxShift == 0)
    // Stagger of inserted rows by their position among them.
    var staggered = UpdateTiming.uiKit
    staggered.insertionStagger = Stagger(step: 0.05, base: .batchPosition)
    (a, t) = try cells(staggered) { $0.insertRows(at: [9, 2, 5], height: 40) }
    let inserted = a.cells.filter { $0.kind == .inserted }
    #expect(inserted.map(\.row) == [2, 5, 9])
    #expect(inserted.map { ($0.beginTime - t) / 0.05 }.map { $0.rounded() } == [0, 1, 2])
    #expect(inserted.allSatisfy { abs(($0.beginTime - t) / 0.05 - Double($0.batchPosition)) <= 1e-9 })
  }

  @Test("the accelerate-decelerate Bezier follows Android's interpolator 0.5 - 0.5 cos(pi x) to 0.003")
  func accelerateDecelerate() {
    var worst = 0.0
    for k in 0...10_000 {
      let x = Double(k) / 10_000
      worst = worstOf(worst, abs(UpdateTiming.accelerateDecelerate.value(at: x) - (0.5 - 0.5 * cos(Double.pi * x))))
    }
    #expect(worst <= 0.003, "worst \(worst)")
    #expect(worst >= 1e-4, "not the same curve: the bound is meaningful")
  }

  @Test("the duration table's key slots: one per (style, change, reload), all in range")
  func keySlotsAreDistinct() {
    var seen = Set<Int>()
    for style in RowAnimation.allCases {
      for change in RowChange.allCases {
        for reload in [false, true] {
          let slot = RowAnimationKey(style: style, change: change, reload: reload)._slot
          #expect((0..<RowAnimationKey._slots).contains(slot), "\(style) \(change) \(reload): slot \(slot)")
          #expect(seen.insert(slot).inserted, "\(style) \(change) \(reload): slot \(slot) taken")
        }
      }
    }
    #expect(seen.count == RowAnimation.allCases.count * RowChange.allCases.count * 2)
  }

  @Test("every row animation style's start and end states, insertion and deletion")
  func styles() {
    let g = CellGeometry(width: 320, height: 50, tableWidth: 320)
    // (style, insertion start translation x, y, opacity); a deletion ends there.
    let away: [(RowAnimation, Double, Double, Double)] = [
      (.fade, 0, 0, 0), (.right, 320, 0, 1), (.left, -320, 0, 1), (.top, 0, -50, 0), (.bottom, 0, 50, 0),
      (.middle, 0, -25, 0), (.none, 0, 0, 1),
    ]
    for (style, x, y, opacity) in away {
      let insert = RowAnimationRecipes().recipe(style, .insertion)
      let delete = RowAnimationRecipes().recipe(style, .deletion)
      for (recipe, offAt, homeAt) in [(insert, 0.0, 0.3), (delete, 0.3, 0.0)] {
        let off = ReferenceEvaluator.evaluate(recipe, geometry: g, time: offAt)
        let home = ReferenceEvaluator.evaluate(recipe, geometry: g, time: homeAt)
        #expect(abs(off.transform.m41 - x) <= 1e-9 && abs(off.transform.m42 - y) <= 1e-9, "\(recipe.name)")
        #expect(abs(off.opacity - opacity) <= 1e-9, "\(recipe.name)")
        #expect(home.transform == .identity && home.opacity == 1, "\(recipe.name)")
      }
      #expect(style == .none ? insert.activeDuration == 0 : abs(insert.activeDuration - 0.3) <= 1e-12)
    }
    // Automatic: .bottom at the start, .top at the end, .fade elsewhere and for reloads.
    #expect(RowAnimationRecipes.resolve(.automatic, row: 0, rowCount: 10) == .bottom)
    #expect(RowAnimationRecipes.resolve(.automatic, row: 9, rowCount: 10) == .top)
    #expect(RowAnimationRecipes.resolve(.automatic, row: 4, rowCount: 10) == .fade)
    #expect(RowAnimationRecipes.resolve(.automatic, row: 0, rowCount: 10, reload: true) == .fade)
    #expect(RowAnimationRecipes.resolve(.left, row: 0, rowCount: 10) == .left)
    // Custom recipes replace the standard ones.
    var recipes = RowAnimationRecipes()
    recipes.custom[RowAnimationKey(style: .fade, change: .insertion)] = .tipIn
    #expect(recipes.recipe(.fade, .insertion).name == "tipIn" && recipes.recipe(.fade, .deletion).name != "tipIn")
  }

  @Test("rows pushed out of view slide out and are drawn until they leave; rows pulled in slide in from below")
  func predictiveRows() throws {
    var sim = try TableSimulation(
      layout: try TableLayout(rowCount: 100, rowHeight: 50), viewportHeight: 500, scroll: try .stationary(at: 0),
      rule: .always)
    let first = try sim.step(to: 0)
    #expect(first.visibleRange == 0..<10)
    var u = RowUpdate()
    u.insertRows(at: 0..<5, height: 50, with: .fade)
    try sim.performBatchUpdates(u, at: 1)
    // Just after: rows 0-9 (now 5-14) are where they were; the inserted ones, in their
    // places, are behind them.
    let e0 = try sim.step(to: 1)
    #expect(e0.visibleRange == 0..<15)
    let inPlace: [Double] = (0..<5).map { Double($0) * 50 }
    let where0: [Double] = (0..<10).map { Double($0) * 50 }
    #expect(e0.rowPositions == inPlace + where0)
    #expect(e0.updateCells.count == 5 && e0.updateCells.allSatisfy { $0.cell.kind == .inserted && $0.cell.isBehind })
    // Mid-way: the old rows 5-9 are still partly in view.
    let e1 = try sim.step(to: 1.15)
    #expect(e1.visibleRange.upperBound > 10)
    // After: rows 0-9 in view, the old ones below it.
    let e2 = try sim.step(to: 1.5)
    #expect(e2.visibleRange == 0..<10 && e2.rowPositions == (0..<10).map { Double($0) * 50 })
    // Deleting the top 5 pulls rows 10-14 in from below: they start where they were (500...).
    var d = RowUpdate()
    d.deleteRows(at: 0..<5, with: .left)
    try sim.performBatchUpdates(d, at: 2)
    let e3 = try sim.step(to: 2)
    let deletedTops: [Double] = [0, 50, 100, 150, 200]
    #expect(e3.updateCells.filter { $0.cell.kind == .deleted }.map(\.y) == deletedTops)
    let e4 = try sim.step(to: 2.1)
    let pulled = e4.visibleRange.filter { $0 >= 5 }
    #expect(!pulled.isEmpty && pulled.allSatisfy { e4.rowPositions[$0 - e4.visibleRange.lowerBound] < Double($0 + 5) * 50 })
    // A move far down the table is drawn on its way.
    var m = RowUpdate()
    m.moveRow(at: 2, to: 80)
    try sim.performBatchUpdates(m, at: 3)
    let e5 = try sim.step(to: 3.05)
    #expect(e5.movingRows.map(\.row) == [80])
  }

  @Test("display events through a batch: a far move does not stretch the displayed rows; inserted rows off screen appear later")
  func displayEvents() throws {
    var sim = try TableSimulation(
      layout: try TableLayout(rowCount: 1_000_000, rowHeight: 50), viewportHeight: 500, scroll: try .stationary(at: 0),
      rule: .firstAppearanceOnly)
    let first = try sim.step(to: 0)
    #expect(first.visibleRange == 0..<10 && first.animationStarts.count == 10)
    var u = RowUpdate()
    u.moveRow(at: 5, to: 999_999)
    u.insertRow(at: 0, height: 50)      // at the edge of the displayed rows
    u.insertRow(at: 500, height: 50)    // far below
    try sim.performBatchUpdates(u, at: 0.1)
    let e = try sim.step(to: 0.1)
    // No million didEndDisplaying events, and the row inserted at the edge starts no
    // appearance (its insertion animates it).
    #expect(e.didEndDisplaying.count < 20, "\(e.didEndDisplaying.count)")
    #expect(!e.animationStarts.contains { $0.row == 0 })
    // Scrolled to later, the row inserted far below appears for the first time.
    sim.scroll = try .stationary(at: 499 * 50)
    let later = try sim.step(to: 1)
    #expect(later.visibleRange.contains(500) && later.animationStarts.contains { $0.row == 500 })
    // A batch cannot go back in time, and steps cannot go back before a batch.
    #expect(throws: CellMotionError.self) { try sim.performBatchUpdates(RowUpdate(), at: 0.5) }
    try sim.performBatchUpdates(RowUpdate(), at: 2)
    #expect(throws: CellMotionError.self) { try sim.step(to: 1.5) }
  }

  @Test("a timing changed after it was made is checked again by the simulation")
  func timingChecked() throws {
    var timing = UpdateTiming.uiKit
    timing.moveDuration = .nan
    #expect(throws: CellMotionError.self) {
      try TableSimulation(
        layout: try TableLayout(rowCount: 10, rowHeight: 44), viewportHeight: 400, scroll: try .stationary(at: 0),
        rule: .always, updateRecipes: RowAnimationRecipes(timing: timing))
    }
    #expect(throws: CellMotionError.self) {
      try UpdateTiming(order: .simultaneous, removeDuration: -1, moveDuration: 0.3, changeDuration: 0.3, addDuration: 0.3, curve: .bezier(.linear))
    }
  }
}
