import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

@Suite("TableSimulation")
struct TableSimulationTests {
  @Test("visible rows' viewport positions include animated heights; rows below move")
  func positionsWithExpansion() throws {
    let layout = try TableLayout(rowCount: 40, rowHeight: 100)
    let expansion = try ExpansionState(rowCount: 40, detailHeights: .uniform(200))
    var sim = try TableSimulation(
      layout: layout, viewportHeight: 500,
      scroll: try .constantVelocity(from: 50, velocity: 0), rule: .firstAppearanceOnly,
      expansion: expansion)
    var events = FrameEvents()
    try sim.step(to: 0, into: &events)
    #expect(events.visibleRange == 0..<6)
    #expect(events.position(ofRow: 3) == 250)
    try sim.toggle(row: 1, at: 0)
    try sim.step(to: 0.15, into: &events)  // row 1 is 100 + 0.5 * 200 points tall
    var e = ErrorTracker("viewport y (points)", tolerance: 1e-9)
    e.record(try #require(events.position(ofRow: 1)), 50)
    e.record(events.rowHeights[1], 200)
    e.record(try #require(events.position(ofRow: 3)), 350)
    e.record(events.contentHeight, 4100)
    #expect(e.passed, "\(e)")
    #expect(events.visibleRange == 0..<5)
    #expect(events.didEndDisplaying == [5])
    #expect(events.folds.isEmpty)
    // During the fold opening, the row reports its fold.
    try sim.step(to: 0.4, into: &events)
    #expect(events.folds.count == 1)
    #expect(events.folds.first?.row == 1)
    #expect(
      events.folds.first?.fold == FoldAnimation(phase: .opening, startTime: 0.3, duration: 0.3))
    // Every visible row: y = snapshot offset - scroll offset, heights = snapshot heights.
    let snapshot = try #require(try sim.expansion?.snapshot(of: layout, at: 0.4))
    for (i, row) in events.visibleRange.enumerated() {
      e.record(events.rowPositions[i], try snapshot.rowOffset(row) - 50, "row \(row)")
      e.record(events.rowHeights[i], try snapshot.rowHeight(row), "row \(row)")
    }
    #expect(e.passed, "\(e)")
    // Collapse; after everything settles the layout is the base one again.
    try sim.toggle(row: 1, at: 1)
    try sim.step(to: 2, into: &events)
    #expect(events.contentHeight == 4000)
    #expect(events.position(ofRow: 3) == 250)
    #expect(sim.snapshot.animatedRows.isEmpty)
    #expect(events.willDisplay == [4, 5], "row 4 left while row 1 was 300 points tall")
    #expect(events.animationStarts.isEmpty, "rows 4 and 5 were displayed before")
  }

  @Test("a fling scrolls through a million-row table; ranges match the layout")
  func flingThroughLargeTable() throws {
    let layout = try TableLayout(rowCount: 1_000_000, rowHeight: 44)
    let scroll = try ScrollTrajectory.fling(
      from: 0, velocity: 12_000, limits: try layout.scrollRange(viewportHeight: 800))
    var sim = try TableSimulation(
      layout: layout, viewportHeight: 800, scroll: scroll, rule: .firstAppearanceOnly,
      stagger: Stagger(step: 0.03, base: .batchPosition), overscan: 88)
    var events = FrameEvents()
    var animated = 0
    var displayed = Set<Int>()
    for n in 0..<(120 * 8) {
      let t = FrameClock.hz120.time(ofFrame: n)
      try sim.step(to: t, into: &events)
      let expected = try layout.visibleRange(
        scrollOffset: scroll.offset(at: t), viewportHeight: 800, overscan: 88)
      #expect(events.visibleRange == expected, "frame \(n)")
      #expect(events.rowPositions.count == expected.count)
      animated += events.animationStarts.count
      displayed.formUnion(events.willDisplay)
      if let s = events.animationStarts.last {
        #expect(s.delay == 0.03 * Double(events.animationStarts.count - 1))
      }
    }
    #expect(animated == displayed.count)
    let last = try layout.visibleRange(
      scrollOffset: scroll.offset(at: 100), viewportHeight: 800, overscan: 88)
    #expect(animated == last.upperBound, "every row from 0 to the stop animated once")
  }

  @Test("reusing FrameEvents gives the same frames as fresh ones")
  func reuseMatchesFresh() throws {
    let layout = try TableLayout(rowHeights: (0..<200).map { Double(20 + $0 % 7 * 10) })
    let scroll = try ScrollTrajectory.keyframes([(0, 0), (1, 3000), (2, 1000)])
    let expansion = try ExpansionState(rowCount: 200, detailHeights: .uniform(120))
    var a = try TableSimulation(
      layout: layout, viewportHeight: 600, scroll: scroll, rule: .always, expansion: expansion)
    var b = a
    var reused = FrameEvents()
    for n in 0...240 {
      let t = FrameClock.hz120.time(ofFrame: n)
      if n % 37 == 5 {
        try a.toggle(row: n % 50, at: t)
        try b.toggle(row: n % 50, at: t)
      }
      try a.step(to: t, into: &reused)
      let fresh = try b.step(to: t)
      #expect(reused == fresh, "frame \(n)")
    }
  }

  @Test("invalid simulation input throws typed errors")
  func validation() throws {
    let layout = try TableLayout(rowCount: 10, rowHeight: 50)
    let scroll = try ScrollTrajectory.stationary(at: 0)
    #expect(throws: CellMotionError.outOfRange(field: "viewportHeight", value: 0, expected: "in [0.001, 1e6]"))
    {
      try TableSimulation(layout: layout, viewportHeight: 0, scroll: scroll, rule: .always)
    }
    #expect(throws: CellMotionError.self) {
      try TableSimulation(layout: layout, viewportHeight: -1, scroll: scroll, rule: .always)
    }
    #expect(throws: CellMotionError.self) {
      try TableSimulation(layout: layout, viewportHeight: .nan, scroll: scroll, rule: .always)
    }
    #expect(throws: CellMotionError.self) {
      try TableSimulation(
        layout: layout, viewportHeight: 100, scroll: scroll, rule: .always, overscan: -1)
    }
    #expect(throws: CellMotionError.self) {
      try TableSimulation(
        layout: layout, viewportHeight: 100, scroll: scroll, rule: .always,
        expansion: try ExpansionState(rowCount: 11, detailHeights: .uniform(1)))
    }
    var sim = try TableSimulation(
      layout: layout, viewportHeight: 100, scroll: scroll, rule: .always)
    #expect(throws: CellMotionError.self) { try sim.toggle(row: 0, at: 0) }
    _ = try sim.step(to: 1)
    #expect(throws: CellMotionError.self) { try sim.step(to: 0.5) }
    #expect(throws: CellMotionError.self) { try sim.step(to: .nan) }
    #expect(throws: CellMotionError.self) { try sim.setHeight(row: 10, height: 5) }
    #expect(throws: CellMotionError.self) { try sim.setHeight(row: 1, height: -5) }
    var withExpansion = try TableSimulation(
      layout: layout, viewportHeight: 100, scroll: scroll, rule: .always,
      expansion: try ExpansionState(rowCount: 10, detailHeights: .uniform(1)))
    #expect(throws: CellMotionError.indexOutOfRange(field: "row", index: 10, count: 10)) {
      try withExpansion.toggle(row: 10, at: 0)
    }
  }
}
