import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

/// Checks, at every millisecond of [from, to], that the snapshot's offsets match a fresh
/// prefix-sum recompute from the per-row heights, that heights stay within [collapsed,
/// expanded], and that no height jumps (at most `maxSpeed` points per second).
private func checkConsistent(
  _ state: ExpansionState, base: TableLayout, from: Double, to: Double, maxSpeed: Double,
  _ label: String
) throws {
  var offsets = ErrorTracker(
    "snapshot offsets vs fresh recompute (points), \(label)", tolerance: 1e-9)
  var previous: [Double]? = nil
  var t = from
  while t <= to + 1e-12 {
    let snapshot = try state.snapshot(of: base, at: t)
    var heights = [Double]()
    for row in 0..<base.rowCount {
      let h = try state.height(row: row, at: t, in: base)
      let collapsed = try base.rowHeight(row)
      let expanded = collapsed + (try state.detailHeight(row: row))
      #expect(h >= collapsed && h <= expanded, "\(label) row \(row) t \(t): \(h)")
      #expect(try snapshot.rowHeight(row) == h, "\(label) row \(row) t \(t)")
      heights.append(h)
    }
    let fresh = try TableLayout(rowHeights: heights)
    for row in 0...base.rowCount {
      offsets.record(try snapshot.rowOffset(row), try fresh.rowOffset(row), "t=\(t) row \(row)")
    }
    if let previous {
      for row in heights.indices {
        #expect(
          abs(heights[row] - previous[row]) <= maxSpeed * 0.001 * (1 + 1e-9),
          "\(label) jump at row \(row) t \(t): \(previous[row]) -> \(heights[row])")
      }
    }
    previous = heights
    t += 0.001
  }
  #expect(offsets.passed, "\(offsets)")
}

@Suite("Expand and collapse")
struct ExpansionTests {
  let base: TableLayout
  init() throws {
    var rng = SeededGenerator(seed: 11)
    base = try TableLayout(rowHeights: randomHeights(count: 12, using: &rng))
  }

  @Test("expand: height grows, THEN the fold opens; collapse: fold closes, THEN height shrinks")
  func fullTimeline() throws {
    var state = try ExpansionState(rowCount: 12, detailHeights: .uniform(200))
    #expect(try state.toggle(row: 4, at: 0))
    var e = ErrorTracker("detail fraction", tolerance: 1e-12)
    e.record(try state.detailFraction(row: 4, at: 0.15), 0.5)
    e.record(try state.detailFraction(row: 4, at: 0.3), 1)
    e.record(try state.detailFraction(row: 4, at: 5), 1)
    #expect(try state.foldAnimation(row: 4, at: 0.2) == nil, "still growing: folded")
    #expect(
      try state.foldAnimation(row: 4, at: 0.3)
        == FoldAnimation(phase: .opening, startTime: 0.3, duration: 0.3))
    #expect(try state.foldAnimation(row: 4, at: 0.6) == nil, "open")
    #expect(try !state.toggle(row: 4, at: 1))
    #expect(
      try state.foldAnimation(row: 4, at: 1.1)
        == FoldAnimation(phase: .closing, startTime: 1, duration: 0.3))
    e.record(try state.detailFraction(row: 4, at: 1.29), 1)
    e.record(try state.detailFraction(row: 4, at: 1.45), 0.5)
    e.record(try state.detailFraction(row: 4, at: 1.6), 0)
    #expect(try state.foldAnimation(row: 4, at: 1.35) == nil)
    #expect(e.passed, "\(e)")
    try checkConsistent(state, base: base, from: 1, to: 1.7, maxSpeed: 200 / 0.3, "full")
    #expect(state.isSettled(at: 1.6))
    state.removeSettled(at: 1.6)
    #expect(try state.snapshot(of: base, at: 2).animatedRows.isEmpty)
  }

  @Test("collapse mid-growth reverses from the current height, layout stays consistent")
  func collapseDuringGrowth() throws {
    var state = try ExpansionState(rowCount: 12, detailHeights: .uniform(150))
    try state.toggle(row: 2, at: 0)
    try checkConsistent(state, base: base, from: 0, to: 0.12, maxSpeed: 150 / 0.3, "grow")
    try state.toggle(row: 2, at: 0.12)  // fraction 0.4 -> 0 over 0.3 * 0.4 s, no fold
    #expect(try state.foldAnimation(row: 2, at: 0.15) == nil)
    try checkConsistent(state, base: base, from: 0.12, to: 0.5, maxSpeed: 150 / 0.3, "reverse")
    var e = ErrorTracker("detail fraction", tolerance: 1e-12)
    e.record(try state.detailFraction(row: 2, at: 0.12), 0.4)
    e.record(try state.detailFraction(row: 2, at: 0.18), 0.2)
    e.record(try state.detailFraction(row: 2, at: 0.24), 0)
    #expect(e.passed, "\(e)")
    #expect(try state.height(row: 2, at: 10, in: base) == base.rowHeight(2), "ends collapsed")
  }

  @Test("collapse while the fold opens reverses the fold without a jump, then shrinks")
  func collapseDuringFold() throws {
    var state = try ExpansionState(
      rowCount: 12, detailHeights: .perRow((0..<12).map { Double($0 + 1) * 10 }))
    try state.toggle(row: 7, at: 0)
    let opening = try #require(try state.foldAnimation(row: 7, at: 0.45))
    try state.toggle(row: 7, at: 0.45)
    // Opening local time 0.15 -> closing starts at 0.45 - (0.3 - 0.15) = 0.3.
    let closing = try #require(try state.foldAnimation(row: 7, at: 0.45))
    #expect(closing.phase == .closing)
    #expect(abs(closing.startTime - 0.3) <= 1e-12)
    #expect(abs(closing.linearOpenness(at: 0.45) - opening.linearOpenness(at: 0.45)) <= 1e-12)
    var e = ErrorTracker("detail fraction", tolerance: 1e-12)
    e.record(try state.detailFraction(row: 7, at: 0.59), 1)
    e.record(try state.detailFraction(row: 7, at: 0.75), 0.5)
    e.record(try state.detailFraction(row: 7, at: 0.9), 0)
    #expect(e.passed, "\(e)")
    // Expand again while the fold is closing: the fold reverses again, height stays full.
    try state.toggle(row: 7, at: 0.5)
    let reopened = try #require(try state.foldAnimation(row: 7, at: 0.5))
    #expect(reopened.phase == .opening)
    #expect(abs(reopened.linearOpenness(at: 0.5) - closing.linearOpenness(at: 0.5)) <= 1e-12)
    #expect(try state.detailFraction(row: 7, at: 0.5) == 1)
    try checkConsistent(state, base: base, from: 0.5, to: 1.2, maxSpeed: 80 / 0.3, "refold")
  }

  @Test("random toggles with an eased curve: consistent layout, bounded heights, no jumps, between every two toggles")
  func randomToggles() throws {
    var rng = SeededGenerator(seed: 31337)
    // Smoothstep: slope up to 1.5, so speed up to 1.5 * detail / duration.
    var state = try ExpansionState(
      rowCount: 12, detailHeights: .uniform(90), heightCurve: { u in u * u * (3 - 2 * u) })
    // Visual state of a row: its height, and how open its detail is (0 folded, 1 flat).
    func visual(_ state: ExpansionState, _ row: Int, _ t: Double) throws -> (Double, Double) {
      let f = try state.detailFraction(row: row, at: t)
      let open =
        try state.foldAnimation(row: row, at: t)?.linearOpenness(at: t)
        ?? (state.isExpanded(row) && f == 1 ? 1 : 0)
      return (try state.height(row: row, at: t, in: base), open)
    }
    var continuity = ErrorTracker("height and openness across toggles", tolerance: 1e-9)
    var t = 0.0
    for step in 0..<40 {
      let before = try (0..<12).map { try visual(state, $0, t) }
      try state.toggle(row: Int(rng.next() % 12), at: t)
      let after = try (0..<12).map { try visual(state, $0, t) }
      for row in 0..<12 {
        continuity.record(
          after[row].0, before[row].0, "seed \(rng.seed) step \(step) row \(row) height")
        continuity.record(
          after[row].1, before[row].1, "seed \(rng.seed) step \(step) row \(row) openness")
      }
      // Between this toggle and the next: heights within [collapsed, expanded], the
      // snapshot consistent, no jump (not only after the last toggle).
      let next = t + rng.uniform(0...0.25)
      try checkConsistent(state, base: base, from: t, to: next, maxSpeed: 1.5 * 90 / 0.3, "seed \(rng.seed) step \(step)")
      t = next
    }
    #expect(continuity.passed, "\(continuity)")
    // The snapshot between toggles; after the last toggle, everything settles collapsed
    // or expanded.
    try checkConsistent(
      state, base: base, from: t, to: t + 1.5, maxSpeed: 1.5 * 90 / 0.3, "seed \(rng.seed)")
    for row in 0..<12 {
      let f = try state.detailFraction(row: row, at: t + 10)
      #expect(f == (state.isExpanded(row) ? 1 : 0), "seed \(rng.seed) row \(row)")
    }
  }

  @Test("single policy: expanding one row collapses the other")
  func singlePolicy() throws {
    var state = try ExpansionState(rowCount: 12, detailHeights: .uniform(100), policy: .single)
    try state.toggle(row: 1, at: 0)
    try state.toggle(row: 5, at: 1)
    #expect(state.expandedRows == [5])
    #expect(
      try state.foldAnimation(row: 1, at: 1)
        == FoldAnimation(phase: .closing, startTime: 1, duration: 0.3))
    #expect(abs(try state.detailFraction(row: 5, at: 1.15) - 0.5) <= 1e-12)
    try state.toggle(row: 9, at: 1.1)  // 5 is still growing: it shrinks back at once
    #expect(state.expandedRows == [9])
    #expect(try state.foldAnimation(row: 5, at: 1.2) == nil)
    try checkConsistent(state, base: base, from: 1.1, to: 2.5, maxSpeed: 100 / 0.3, "single")
    #expect(try state.detailFraction(row: 1, at: 3) == 0)
    #expect(try state.detailFraction(row: 5, at: 3) == 0)
    #expect(try state.detailFraction(row: 9, at: 3) == 1)
    // Multiple policy keeps both.
    var multi = try ExpansionState(rowCount: 12, detailHeights: .uniform(100))
    try multi.toggle(row: 1, at: 0)
    try multi.toggle(row: 5, at: 1)
    #expect(multi.expandedRows == [1, 5])
  }

  @Test("invalid expansion input throws typed errors")
  func validation() throws {
    #expect(throws: CellMotionError.bufferSize(field: "detailHeights", expected: 3, actual: 2)) {
      try ExpansionState(rowCount: 3, detailHeights: .perRow([1, 2]))
    }
    #expect(throws: CellMotionError.self) {
      try ExpansionState(rowCount: 3, detailHeights: .uniform(-1))
    }
    #expect(throws: CellMotionError.self) {
      try ExpansionState(rowCount: 3, detailHeights: .perRow([1, .nan, 2]))
    }
    #expect(throws: CellMotionError.self) {
      try ExpansionState(rowCount: 3, detailHeights: .uniform(1), heightDuration: -0.1)
    }
    #expect(throws: CellMotionError.self) {
      try ExpansionState(rowCount: -3, detailHeights: .uniform(1))
    }
    var state = try ExpansionState(rowCount: 12, detailHeights: .uniform(10))
    #expect(throws: CellMotionError.indexOutOfRange(field: "row", index: 12, count: 12)) {
      try state.toggle(row: 12, at: 0)
    }
    #expect(throws: CellMotionError.self) { try state.toggle(row: -1, at: 0) }
    #expect(throws: CellMotionError.self) { try state.toggle(row: 1, at: .nan) }
    try state.toggle(row: 1, at: 2)
    #expect(throws: CellMotionError.self) { try state.toggle(row: 2, at: 1) }
    #expect(state.expandedRows == [1], "unchanged after errors")
    let other = try TableLayout(rowCount: 5, rowHeight: 10)
    #expect(throws: CellMotionError.self) { try state.snapshot(of: other, at: 0) }
    #expect(throws: CellMotionError.self) { try state.height(row: 1, at: 0, in: other) }
    #expect(throws: CellMotionError.self) { try state.detailFraction(row: 1, at: .nan) }
  }
}
