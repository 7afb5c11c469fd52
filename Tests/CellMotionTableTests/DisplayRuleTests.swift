import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

/// 100 rows of 100 points in a 500-point viewport, scrolled 0 -> 1000 -> 0 over 2 s,
/// stepped at 60 Hz. Returns every frame's events.
private func runScriptedScroll(
  rule: DisplayRule, stagger: Stagger = .none, reloadAt reloadFrame: Int? = nil, frames: Int = 121
) throws -> [FrameEvents] {
  let layout = try TableLayout(rowCount: 100, rowHeight: 100)
  let scroll = try ScrollTrajectory.keyframes([(0, 0), (1, 1000), (2, 0)])
  var sim = try TableSimulation(
    layout: layout, viewportHeight: 500, scroll: scroll, rule: rule, stagger: stagger)
  var events = FrameEvents()
  var out: [FrameEvents] = []
  for n in 0..<frames {
    if n == reloadFrame { sim.reload() }
    try sim.step(to: FrameClock.hz60.time(ofFrame: n), into: &events)
    out.append(events)
  }
  return out
}

/// All animation starts of a run, in order.
private func starts(_ frames: [FrameEvents]) -> [AnimationStart] {
  frames.flatMap(\.animationStarts)
}

@Suite("Display rules")
struct DisplayRuleTests {
  @Test("firstAppearanceOnly: rows 0..<15 animate once each, when they first appear")
  func firstAppearanceOnly() throws {
    let frames = try runScriptedScroll(rule: .firstAppearanceOnly)
    let all = starts(frames)
    #expect(all.map(\.row) == Array(0..<15))
    #expect(all.allSatisfy { $0.appearance == .first && $0.delay == 0 })
    // Rows 0..<5 at t = 0; row r in 5..<15 at frame 6 (r - 5) + 1: its top 100 r enters
    // the half-open viewport [o, o + 500) only once o > 100 r - 500 (o = 1000 t).
    for s in all {
      let frame = s.row < 5 ? 0 : 6 * (s.row - 5) + 1
      #expect(s.startTime == FrameClock.hz60.time(ofFrame: frame), "row \(s.row)")
    }
    // Re-entries on the way back are displayed but do not animate.
    let reentries = frames[61...].flatMap(\.willDisplay)
    #expect(reentries == Array((0..<10).reversed()))
    #expect(starts(Array(frames[61...])).isEmpty)
    #expect(frames[60].visibleRange == 10..<15)
    #expect(frames[120].visibleRange == 0..<5)
  }

  @Test("firstScreenfulOnly: only rows 0..<5 animate")
  func firstScreenfulOnly() throws {
    let all = starts(try runScriptedScroll(rule: .firstScreenfulOnly))
    #expect(all.map(\.row) == Array(0..<5))
    #expect(all.allSatisfy { $0.startTime == 0 && $0.appearance == .first })
    #expect(all.map(\.batchPosition) == Array(0..<5))
  }

  @Test("always: every willDisplay animates; re-entries are marked .repeat")
  func always() throws {
    let frames = try runScriptedScroll(rule: .always)
    let all = starts(frames)
    #expect(all.map(\.row) == frames.flatMap(\.willDisplay))
    #expect(all.count == 25)
    #expect(all.filter { $0.appearance == .first }.map(\.row) == Array(0..<15))
    #expect(all.filter { $0.appearance == .repeat }.map(\.row) == Array((0..<10).reversed()))
    #expect(all.filter { $0.appearance == .repeat }.allSatisfy { $0.startTime > 1 })
  }

  @Test("reload starts over: the visible rows animate again as first appearances")
  func reloadResets() throws {
    for rule in [DisplayRule.firstAppearanceOnly, .firstScreenfulOnly] {
      // Scroll down and back, then reload at frame 121 (offset 0 again).
      let frames = try runScriptedScroll(rule: rule, reloadAt: 121, frames: 125)
      let reloaded = frames[121]
      #expect(reloaded.didEndDisplaying == Array(0..<5), "\(rule)")
      #expect(reloaded.willDisplay == Array(0..<5), "\(rule)")
      #expect(reloaded.animationStarts.map(\.row) == Array(0..<5), "\(rule)")
      #expect(reloaded.animationStarts.allSatisfy { $0.appearance == .first }, "\(rule)")
      #expect(frames[122...].allSatisfy { $0.animationStarts.isEmpty && $0.willDisplay.isEmpty })
    }
  }

  @Test("willDisplay and didEndDisplaying are the differences of consecutive ranges")
  func eventsMatchSetDifferences() throws {
    var rng = SeededGenerator(seed: 2024)
    let n = 300
    var tracker = try DisplayTracker(rowCount: n, rule: .firstAppearanceOnly)
    var events = DisplayEvents()
    var previous = Set<Int>()
    var everSeen = Set<Int>()
    for frame in 0..<2000 {
      if rng.next() % 97 == 0 {
        try tracker.reload()
        everSeen = []
        // After a reload everything displayed ends and the new range is displayed anew.
        let a = Int(rng.next() % UInt64(n + 1))
        let b = min(n, a + Int(rng.next() % 40))
        try tracker.update(visibleRange: a..<b, at: Double(frame), into: &events)
        #expect(events.didEndDisplaying == previous.sorted(), "seed \(rng.seed) frame \(frame)")
        #expect(events.willDisplay == Array(a..<b), "seed \(rng.seed) frame \(frame)")
        previous = Set(a..<b)
        everSeen.formUnion(a..<b)
        continue
      }
      // Mostly small moves, sometimes jumps.
      let a = Int(rng.next() % UInt64(n + 1))
      let b = min(n, a + Int(rng.next() % 40))
      try tracker.update(visibleRange: a..<b, at: Double(frame), into: &events)
      let current = Set(a..<b)
      #expect(
        events.willDisplay == current.subtracting(previous).sorted(),
        "seed \(rng.seed) frame \(frame)")
      #expect(
        events.didEndDisplaying == previous.subtracting(current).sorted(),
        "seed \(rng.seed) frame \(frame)")
      let expectedStarts = current.subtracting(previous).subtracting(everSeen).sorted()
      #expect(
        events.animationStarts.map(\.row) == expectedStarts, "seed \(rng.seed) frame \(frame)")
      everSeen.formUnion(current)
      previous = current
    }
  }

  @Test("stagger by absolute row gives growing delays far down; by batch position restarts at 0")
  func stagger() throws {
    let layout = try TableLayout(rowCount: 1000, rowHeight: 100)
    // Start at the top, then jump to row 600 at t = 1.
    let scroll = try ScrollTrajectory.keyframes([(0, 0), (1, 0), (1.0001, 60_000)])
    for base in [StaggerBase.row, .batchPosition] {
      let stagger = Stagger(step: 0.05, base: base)
      var sim = try TableSimulation(
        layout: layout, viewportHeight: 500, scroll: scroll, rule: .firstAppearanceOnly,
        stagger: stagger)
      let first = try sim.step(to: 0)
      let jump = try sim.step(to: 2)
      #expect(first.animationStarts.map(\.row) == Array(0..<5))
      #expect(jump.animationStarts.map(\.row) == Array(600..<605))
      #expect(jump.animationStarts.map(\.batchPosition) == Array(0..<5))
      var e = ErrorTracker("stagger delay (s), \(base)", tolerance: 1e-12)
      for s in first.animationStarts { e.record(s.delay, 0.05 * Double(s.row)) }
      for s in jump.animationStarts {
        let expected = base == .row ? 0.05 * Double(s.row) : 0.05 * Double(s.batchPosition)
        e.record(s.delay, expected, "row \(s.row)")
        e.record(s.beginTime, 2 + expected, "row \(s.row) begin")
      }
      #expect(e.passed, "\(e)")
    }
    // The absolute-row delay of row 600 is 30 s: the documented pitfall.
    #expect(Stagger(step: 0.05, base: .row).delay(index: 600, count: 601) == 30)
  }

  /// The anchors' most reported gap: a stagger order applies to each batch of rows that
  /// appear together, including rows that appear later while scrolling, each batch
  /// counted on its own (framer-motion and anime.js compute it once for a fixed list).
  @Test("stagger orders apply to every batch, including rows that appear later")
  func staggerOrdersPerBatch() throws {
    let fromLast = Stagger(step: 0.05, base: .batchPosition, from: .last)
    var tracker = try DisplayTracker(rowCount: 100, rule: .always, stagger: fromLast)
    let first = try tracker.update(visibleRange: 0..<10, at: 0)
    #expect(first.animationStarts.map(\.batchCount) == Array(repeating: 10, count: 10))
    for s in first.animationStarts { #expect(abs(s.delay - 0.05 * Double(9 - s.batchPosition)) < 1e-12) }
    let later = try tracker.update(visibleRange: 3..<13, at: 1)
    #expect(later.animationStarts.map(\.row) == [10, 11, 12])
    #expect(zip(later.animationStarts.map(\.delay), [0.1, 0.05, 0]).allSatisfy { abs($0 - $1) < 1e-12 })
    // From the centre of a grid of 3 columns: a batch of 9 cascades out from its middle.
    let centre = Stagger(step: 0.1, base: .batchPosition, from: .center, grid: StaggerGrid(columns: 3))
    var grid = try DisplayTracker(rowCount: 100, rule: .always, stagger: centre)
    let batch = try grid.update(visibleRange: 20..<29, at: 0)
    #expect(batch.animationStarts[4].delay == 0 && abs(batch.animationStarts[0].delay - 0.1 * 2.0.squareRoot()) < 1e-12)
  }

  @Test("the animate-once bitset costs 125,000 bytes for a million rows")
  func bitsetMemory() throws {
    var tracker = try DisplayTracker(rowCount: 1_000_000, rule: .firstAppearanceOnly)
    #expect(tracker.trackingStorageBytes == 125_000)
    let e1 = try tracker.update(visibleRange: 999_990..<1_000_000, at: 0)
    #expect(e1.animationStarts.count == 10)
    #expect(try tracker.hasBeenDisplayed(999_999))
    #expect(try !tracker.hasBeenDisplayed(0))
    try tracker.reload(rowCount: 64)
    #expect(tracker.trackingStorageBytes == 8)
    #expect(try !tracker.hasBeenDisplayed(63))
  }

  @Test("invalid tracker input throws typed errors")
  func validation() throws {
    #expect(throws: CellMotionError.self) { try DisplayTracker(rowCount: -1, rule: .always) }
    #expect(
      throws: CellMotionError.outOfRange(field: "stagger.step", value: -0.1, expected: "in [0, 1e5]")
    ) {
      try DisplayTracker(rowCount: 3, rule: .always, stagger: Stagger(step: -0.1))
    }
    #expect(throws: CellMotionError.self) {
      try DisplayTracker(rowCount: 3, rule: .always, stagger: Stagger(step: .nan))
    }
    var staggered = try DisplayTracker(rowCount: 3, rule: .always)
    #expect(throws: CellMotionError.self) { try staggered.setStagger(Stagger(step: .infinity)) }
    #expect(staggered.stagger == .none)
    var tracker = try DisplayTracker(rowCount: 10, rule: .always)
    #expect(throws: CellMotionError.indexOutOfRange(field: "visibleRange", index: 11, count: 11)) {
      try tracker.update(visibleRange: 5..<11, at: 0)
    }
    _ = try tracker.update(visibleRange: 0..<3, at: 1)
    #expect(throws: CellMotionError.self) { try tracker.update(visibleRange: 0..<3, at: 0.5) }
    #expect(throws: CellMotionError.self) { try tracker.update(visibleRange: 0..<3, at: .nan) }
    #expect(throws: CellMotionError.self) { try tracker.hasBeenDisplayed(10) }
    #expect(throws: CellMotionError.self) { try tracker.reload(rowCount: -3) }
    #expect(tracker.displayedRange == 0..<3, "unchanged after errors")
  }
}
