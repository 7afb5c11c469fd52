// Scroll timelines against independent truth: the CSS range formulas worked by hand (every
// named range, a cell taller than the viewport, insets, percentage and px offsets, fill
// none outside [A, B), the degenerate step), scroll() timelines, SwiftUI's phase with its
// thresholds, centred positions; the kernel's affine form against the reference on seeded
// random cells; validation.
//
// Tolerances: hand-worked values are exact in binary or within 1e-12 (a few roundings of
// numbers below 2e3); the affine form agrees with the reference within 1e-9 relative
// (one reassociation of numbers up to 1e6).

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

/// The output of a view() timeline for a cell at `s` of extent `S` at offset `o`.
func viewOutput(
  _ range: AnimationRange, fill: ScrollFill = .both, insets: ViewTimelineInsets = .auto, s: Double, S: Double, o: Double,
  V: Double = 600, i0: Double = 0, i1: Double = 0
) throws -> ScrollTimelineOutput {
  let timeline = try ScrollTimeline.view(range, insets: insets, fill: fill)
  return timeline.output(
    cell: try CellSpan(start: s, extent: S), scroll: try ScrollAxisState(offset: o, viewportExtent: V, startInset: i0, endInset: i1))
}

func expectValue(
  _ output: ScrollTimelineOutput, _ expected: Double?, tolerance: Double = 1e-12, _ note: String = "",
  sourceLocation: SourceLocation = #_sourceLocation
) {
  switch (output.value, expected) {
  case (nil, nil): break
  case (let v?, let e?):
    #expect(abs(v - e) <= tolerance, "\(note): got \(v), expected \(e)", sourceLocation: sourceLocation)
  default:
    #expect(Bool(false), "\(note): got \(output), expected \(String(describing: expected))", sourceLocation: sourceLocation)
  }
}

@Suite("Scroll timelines: CSS view() ranges worked by hand")
struct ViewTimelineRangeTests {
  /// Checks a whole named range [lo, hi] (worked by hand) at 0%, 25%, 50%, 99% of it, and
  /// fill both just outside it.
  func checkRange(
    _ name: TimelineRangeName, lo: Double, hi: Double, s: Double, S: Double, V: Double = 600, i0: Double = 0,
    i1: Double = 0, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    for k in [0.0, 0.25, 0.5, 0.99] {
      let o = lo + k * (hi - lo)
      expectValue(
        try viewOutput(.named(name), s: s, S: S, o: o, V: V, i0: i0, i1: i1), k, tolerance: 1e-12,
        "\(name) at \(k) (o = \(o))", sourceLocation: sourceLocation)
    }
    expectValue(
      try viewOutput(.named(name), s: s, S: S, o: lo - 1, V: V, i0: i0, i1: i1), 0, "\(name) before",
      sourceLocation: sourceLocation)
    expectValue(
      try viewOutput(.named(name), s: s, S: S, o: hi + 1, V: V, i0: i0, i1: i1), 1, "\(name) after",
      sourceLocation: sourceLocation)
  }

  @Test("A cell smaller than the viewport, no insets")
  func smallCell() throws {
    // V 600, s 1000, S 100: a = s - V = 400, b = s + S = 1100, c = b - S = 1000, d = a + S = 500.
    try checkRange(.cover, lo: 400, hi: 1100, s: 1000, S: 100)
    try checkRange(.contain, lo: 500, hi: 1000, s: 1000, S: 100)
    try checkRange(.entry, lo: 400, hi: 500, s: 1000, S: 100)
    try checkRange(.exit, lo: 1000, hi: 1100, s: 1000, S: 100)
    try checkRange(.entryCrossing, lo: 400, hi: 500, s: 1000, S: 100)
    try checkRange(.exitCrossing, lo: 1000, hi: 1100, s: 1000, S: 100)
    // The default range (normal) is cover: o = 750 is half-way through [400, 1100].
    expectValue(try viewOutput(.normal, s: 1000, S: 100, o: 750), 0.5)
  }

  @Test("A cell taller than the viewport: contain is where it covers the viewport")
  func tallCell() throws {
    // V 600, s 1000, S 900: a = 400, b = 1900, c = 1000, d = 1300; contain [min, max] = [1000, 1300].
    try checkRange(.cover, lo: 400, hi: 1900, s: 1000, S: 900)
    try checkRange(.contain, lo: 1000, hi: 1300, s: 1000, S: 900)
    try checkRange(.entry, lo: 400, hi: 1000, s: 1000, S: 900)
    try checkRange(.exit, lo: 1300, hi: 1900, s: 1000, S: 900)
    try checkRange(.entryCrossing, lo: 400, hi: 1300, s: 1000, S: 900)
    try checkRange(.exitCrossing, lo: 1000, hi: 1900, s: 1000, S: 900)
  }

  @Test("Insets: the end inset moves the start, the start inset the end")
  func insets() throws {
    // V 600, i0 50, i1 100, s 1000, S 100: a = 1000 - 600 + 100 = 500, b = 1100 - 50 = 1050, c = 950, d = 600.
    try checkRange(.cover, lo: 500, hi: 1050, s: 1000, S: 100, i0: 50, i1: 100)
    try checkRange(.contain, lo: 600, hi: 950, s: 1000, S: 100, i0: 50, i1: 100)
    try checkRange(.entry, lo: 500, hi: 600, s: 1000, S: 100, i0: 50, i1: 100)
    try checkRange(.exit, lo: 950, hi: 1050, s: 1000, S: 100, i0: 50, i1: 100)
    try checkRange(.entryCrossing, lo: 500, hi: 600, s: 1000, S: 100, i0: 50, i1: 100)
    try checkRange(.exitCrossing, lo: 950, hi: 1050, s: 1000, S: 100, i0: 50, i1: 100)
    // Tall with insets, S 900: a = 500, b = 1850, c = 950, d = 1400.
    try checkRange(.contain, lo: 950, hi: 1400, s: 1000, S: 900, i0: 50, i1: 100)
    try checkRange(.entry, lo: 500, hi: 950, s: 1000, S: 900, i0: 50, i1: 100)
    try checkRange(.exit, lo: 1400, hi: 1850, s: 1000, S: 900, i0: 50, i1: 100)
    try checkRange(.entryCrossing, lo: 500, hi: 1400, s: 1000, S: 900, i0: 50, i1: 100)
    try checkRange(.exitCrossing, lo: 950, hi: 1850, s: 1000, S: 900, i0: 50, i1: 100)
    // Negative insets grow the visibility range: i0 = i1 = -50: a = 1000 - 600 - 50 = 350, b = 1150.
    try checkRange(.cover, lo: 350, hi: 1150, s: 1000, S: 100, i0: -50, i1: -50)
  }

  @Test("View-timeline insets: percentages of the viewport, lengths, auto")
  func viewTimelineInsets() throws {
    // view(10% 20px) in a 600 viewport: i0 = 60, i1 = 20: a = 1000 - 600 + 20 = 420, b = 1100 - 60 = 1040.
    let insets = try ViewTimelineInsets(parsing: "10% 20px")
    expectValue(try viewOutput(.normal, insets: insets, s: 1000, S: 100, o: 420), 0)
    expectValue(try viewOutput(.normal, insets: insets, s: 1000, S: 100, o: 730), 0.5)
    // The view insets replace the scroll state's (auto would read i0 = 50, i1 = 100).
    expectValue(try viewOutput(.normal, insets: insets, s: 1000, S: 100, o: 730, i0: 50, i1: 100), 0.5)
    // auto reads them: a = 500, b = 1050.
    expectValue(try viewOutput(.normal, insets: .auto, s: 1000, S: 100, o: 775, i0: 50, i1: 100), 0.5)
    // One value for both sides: view(25%) = 150 each: a = 550, b = 950.
    expectValue(try viewOutput(.normal, insets: try ViewTimelineInsets(parsing: "25%"), s: 1000, S: 100, o: 750), 0.5)
    // auto on one side: view(auto 40px) with i0 = 50: a = 440, b = 1050.
    let mixed = try ViewTimelineInsets(parsing: "auto 40px")
    expectValue(try viewOutput(.normal, insets: mixed, s: 1000, S: 100, o: 745, i0: 50, i1: 100), 0.5)
  }

  @Test("Percentage and px offsets, bare offsets relative to cover")
  func offsets() throws {
    // s 1000, S 100, V 600: entry [400, 500], exit-crossing [1000, 1100], cover [400, 1100].
    // entry 25% = 425; exit-crossing 40px = 1040; half-way 732.5.
    let range = try AnimationRange(start: "entry 25%", end: "exit-crossing 40px")
    expectValue(try viewOutput(range, s: 1000, S: 100, o: 425), 0)
    expectValue(try viewOutput(range, s: 1000, S: 100, o: 732.5), 0.5)
    // Bare: 10% of cover = 470, 200px from cover's start = 600.
    let bare = try AnimationRange(start: "10%", end: "200px")
    expectValue(try viewOutput(bare, s: 1000, S: 100, o: 535), 0.5)
    // Offsets outside their range: cover -10% = 330, entry 150% = 550.
    let outside = try AnimationRange(start: "cover -10%", end: "entry 150%")
    expectValue(try viewOutput(outside, s: 1000, S: 100, o: 440), 0.5)
    // The percentage of contain for a tall cell is of its [1000, 1300] span: contain 50% = 1150.
    let tall = try AnimationRange(start: "contain 50%", end: "exit 100%")  // [1150, 1900]
    expectValue(try viewOutput(tall, s: 1000, S: 900, o: 1525), 0.5)
  }

  @Test("Fill none: no effect outside [A, B); forwards and backwards one side each")
  func fills() throws {
    let entry = AnimationRange.named(.entry)  // [400, 500)
    func out(_ o: Double, _ fill: ScrollFill) throws -> ScrollTimelineOutput {
      try viewOutput(entry, fill: fill, s: 1000, S: 100, o: o)
    }
    expectValue(try out(399.5, .none), nil, "before A")
    expectValue(try out(400, .none), 0, "at A")
    expectValue(try out(499.5, .none), 0.995, "inside")
    expectValue(try out(500, .none), nil, "at B: the after phase")
    expectValue(try out(600, .none), nil, "after B")
    expectValue(try out(399.5, .forwards), nil)
    expectValue(try out(500, .forwards), 1)
    expectValue(try out(399.5, .backwards), 0)
    expectValue(try out(500, .backwards), nil)
    expectValue(try out(300, .both), 0)
    expectValue(try out(900, .both), 1)
    // Extend keeps the line going: (300 - 400) / 100 = -1.
    expectValue(try out(300, .extend), -1)
    #expect(try out(300, .hide) == .hidden(0))
    #expect(try out(900, .hide) == .hidden(1))
  }

  @Test("A degenerate range steps at A (Chromium): 0 before, 1 from A on; fill none never applies")
  func degenerate() throws {
    // B < A: entry 100% (500) to entry 0% (400).
    let backwards = try AnimationRange(start: "entry 100%", end: "entry 0%")
    // B == A: contain 0% (500) to entry 100% (500).
    let empty = try AnimationRange(start: "contain 0%", end: "entry 100%")
    for range in [backwards, empty] {
      expectValue(try viewOutput(range, s: 1000, S: 100, o: 0), 0)
      expectValue(try viewOutput(range, s: 1000, S: 100, o: 499.999), 0)
      expectValue(try viewOutput(range, s: 1000, S: 100, o: 500), 1)
      expectValue(try viewOutput(range, s: 1000, S: 100, o: 1e6), 1)
      for o in [0.0, 499.999, 500, 1e6] {
        expectValue(try viewOutput(range, fill: .none, s: 1000, S: 100, o: o), nil, "fill none at \(o)")
      }
    }
    // A cell exactly as tall as the viewport has an empty contain range: c = d = 1000.
    expectValue(try viewOutput(.named(.contain), s: 1000, S: 600, o: 999), 0)
    expectValue(try viewOutput(.named(.contain), s: 1000, S: 600, o: 1000), 1)
  }

  @Test("A horizontal list reads x, width and the left and right insets")
  func horizontal() throws {
    let timeline = try ScrollTimeline.view(.named(.entry), axis: .horizontal, fill: .both)
    // Along x: V 600, i_left 50, i_right 100, s 1000, S 100: entry [500, 600].
    let scroll = try ScrollState(
      offsetX: 550, offsetY: -1234, viewportWidth: 600, viewportHeight: 900, insetTop: 7, insetLeft: 50, insetBottom: 9,
      insetRight: 100)
    let cell = try ScrollCell(x: 1000, y: 3, width: 100, height: 44)
    expectValue(timeline.output(cell: cell, scroll: scroll), 0.5)
    // The same numbers on the vertical axis.
    let vertical = try ScrollTimeline.view(.named(.entry), fill: .both)
    let scrollY = try ScrollState(
      offsetX: 3, offsetY: 550, viewportWidth: 320, viewportHeight: 600, insetTop: 50, insetBottom: 100)
    expectValue(vertical.output(cell: try ScrollCell(y: 1000, width: 320, height: 100), scroll: scrollY), 0.5)
  }
}

@Suite("Scroll timelines: scroll(), SwiftUI phase, centred, distance")
struct OtherTimelineTests {
  func scrollOutput(_ range: AnimationRange, fill: ScrollFill = .both, o: Double, content: Double?, V: Double = 600) throws
    -> ScrollTimelineOutput
  {
    try ScrollTimeline.scroll(range, fill: fill).output(
      cell: CellSpan(start: 12345, extent: 44),
      scroll: ScrollAxisState(offset: o, viewportExtent: V, startInset: 30, endInset: 40, contentExtent: content))
  }

  @Test("scroll(): offset / (scrollHeight - clientHeight); inactive when that is 0")
  func scrollTimeline() throws {
    // Content 2000, viewport 600: maximum 1400 (the insets play no part).
    expectValue(try scrollOutput(.normal, o: 350, content: 2000), 0.25)
    expectValue(try scrollOutput(.normal, o: 0, content: 2000), 0)
    // Ranges: 10% of 1400 = 140 to 50% = 700: (350 - 140) / 560 = 0.375.
    expectValue(try scrollOutput(try AnimationRange(parsing: "10% 50%"), o: 350, content: 2000), 0.375)
    // px from 0: 100px to 500px: 0.625.
    expectValue(try scrollOutput(try AnimationRange(parsing: "100px 500px"), o: 350, content: 2000), 0.625)
    // Range names stand for the whole scroll range: entry 50% is 50% of 1400.
    expectValue(try scrollOutput(try AnimationRange(start: "entry 50%", end: "exit 100%"), o: 1050, content: 2000), 0.5)
    // The offset is clamped to the reachable range: overscroll gives no progress beyond.
    expectValue(try scrollOutput(.normal, o: -50, content: 2000), 0)
    expectValue(try scrollOutput(.normal, o: 1500, content: 2000), 1)
    // At the very end the progress is 1: the after phase, so fill none gives no effect there.
    expectValue(try scrollOutput(.normal, fill: .none, o: 1400, content: 2000), nil)
    expectValue(try scrollOutput(.normal, fill: .none, o: 1399, content: 2000), 1399.0 / 1400)
    // Inactive: no overflow, or no content extent known.
    expectValue(try scrollOutput(.normal, o: 0, content: 600), nil)
    expectValue(try scrollOutput(.normal, o: 0, content: 500), nil)
    expectValue(try scrollOutput(.normal, o: 10, content: nil), nil)
  }

  func phase(_ threshold: ScrollTransitionThreshold, centre c: Double, S: Double = 100, V: Double = 600, i0: Double = 0, i1: Double = 0)
    throws -> Double?
  {
    // Place the cell so that its centre is c from the visibility range's centre (viewport
    // coordinates: centre i0 + (V - i0 - i1)/2), at offset 1000.
    let o = 1000.0
    let centre = i0 + (V - i0 - i1) / 2
    let s = o + centre + c - S / 2
    return try ScrollTimeline.transitionPhase(threshold).output(
      cell: CellSpan(start: s, extent: S), scroll: ScrollAxisState(offset: o, viewportExtent: V, startInset: i0, endInset: i1)
    ).value
  }

  @Test("SwiftUI phase: visible(a) and centered, worked by hand")
  func swiftUIPhase() throws {
    // L 600, S 100: hidden at |c| = 350; visible(1) at 250 (the cell's far edge at the container's edge).
    #expect(try phase(.visible, centre: 0) == 0)
    #expect(try phase(.visible, centre: 250) == 0)
    #expect(try phase(.visible, centre: 300) == 0.5)  // half the cell out
    #expect(try phase(.visible, centre: 325) == 0.75)
    #expect(try phase(.visible, centre: 350) == 1)
    #expect(try phase(.visible, centre: 2000) == 1)
    #expect(try phase(.visible, centre: -300) == -0.5)
    #expect(try phase(.visible, centre: -5000) == -1)
    // visible(0.5): identity from 300 in; 325 is half-way from hidden.
    #expect(try phase(.visible(0.5), centre: 300) == 0)
    #expect(try phase(.visible(0.5), centre: 325) == 0.5)
    // Amounts outside [0, 1] are clamped (Apple's documentation).
    #expect(try phase(.visible(7), centre: 325) == 0.75)
    // centered: the ramp runs from 350 to 0.
    #expect(try phase(.centered, centre: 175) == 0.5)
    #expect(abs(try phase(.centered, centre: -35)! - -0.1) < 1e-15)
    #expect(try phase(.centered, centre: 0) == 0)
    // inset(by: 50) moves visible(1) from 250 to 200: 225 is half-way... of [200, 350]: (350 - 225) / 150.
    #expect(abs(try phase(ScrollTransitionThreshold.visible.inset(by: 50), centre: 225)! - (1 - 125.0 / 150)) < 1e-15)
    // hidden (visible(0)): a step: identity while any part is inside.
    #expect(try phase(.hidden, centre: 349) == 0)
    #expect(try phase(.hidden, centre: 350) == 1)
    #expect(try phase(.hidden, centre: -350) == -1)
    // A cell taller than the container (S 900, L 600): hidden at 750; visible at 750 - 600 = 150.
    #expect(try phase(.visible, centre: 450, S: 900) == 0.5)
    #expect(try phase(.visible, centre: 150, S: 900) == 0)
    #expect(try phase(.visible, centre: -600, S: 900) == -0.75)
    // Insets shrink the container: i0 100 → L 500, centre at 350; S 100 hides at 300 and is visible at 200.
    #expect(try phase(.visible, centre: 250, i0: 100) == 0.5)
  }

  @Test("SwiftUI's timing curve rule: forward while appearing, reversed while leaving")
  func swiftUICurve() throws {
    // easeInOut (0.42, 0, 0.58, 1) at t, solved here by bisection on x(u) = t.
    func easeInOut(_ t: Double) -> Double {
      func bez(_ a: Double, _ b: Double, _ u: Double) -> Double { 3 * a * (1 - u) * (1 - u) * u + 3 * b * (1 - u) * u * u + u * u * u }
      var (lo, hi) = (0.0, 1.0)
      for _ in 0..<200 {
        let mid = (lo + hi) / 2
        if bez(0.42, 0.58, mid) < t { lo = mid } else { hi = mid }
      }
      return bez(0, 1, (lo + hi) / 2)
    }
    for p in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
      let t = 1 - p  // 0 just hidden, 1 at the threshold
      let expected = 1 - easeInOut(t)
      #expect(abs(ScrollTimeline.transitionPhaseValue(linear: p) - expected) < 1e-9, "trailing \(p)")
      #expect(abs(ScrollTimeline.transitionPhaseValue(linear: -p) + expected) < 1e-9, "leading \(p)")
    }
    // An easeIn curve: slow near the edge (t near 0), so the phase stays near +-1 there.
    let easeIn = ScrollTimeline.transitionPhaseValue(linear: 0.9, curve: .easeIn)
    #expect(easeIn > 0.9)
  }

  @Test("Centred positions: 0 at the centre, +-1 one unit away, positive below")
  func centred() throws {
    func out(_ unit: CentredUnit, viewportCentre y: Double, fill: ScrollFill = .both, S: Double = 100) throws -> ScrollTimelineOutput {
      // The cell's centre at viewport y (V 600, offset 2000, no insets).
      try ScrollTimeline.centred(unit: unit, fill: fill).output(
        cell: CellSpan(start: 2000 + y - S / 2, extent: S), scroll: ScrollAxisState(offset: 2000, viewportExtent: 600))
    }
    expectValue(try out(.points(200), viewportCentre: 300), 0)
    expectValue(try out(.points(200), viewportCentre: 500), 1)
    expectValue(try out(.points(200), viewportCentre: 200), -0.5)
    expectValue(try out(.halfVisibleExtent, viewportCentre: 450), 0.5)
    expectValue(try out(.cellExtent, viewportCentre: 375), 0.75)
    // Outside -1...1 under each fill.
    expectValue(try out(.points(200), viewportCentre: 600), 1)
    expectValue(try out(.points(200), viewportCentre: 600, fill: .none), nil)
    expectValue(try out(.points(200), viewportCentre: 600, fill: .extend), 1.5)
    #expect(try out(.points(200), viewportCentre: 600, fill: .hide) == .hidden(1))
    #expect(try out(.points(200), viewportCentre: 0, fill: .hide) == .hidden(-1))
    // The ends are inside (a closed range).
    expectValue(try out(.points(200), viewportCentre: 100, fill: .none), -1)
    // An empty visibility range has no half: no effect.
    let covered = try ScrollTimeline.centred(unit: .halfVisibleExtent, fill: .both).output(
      cell: CellSpan(start: 0, extent: 10), scroll: ScrollAxisState(offset: 0, viewportExtent: 600, startInset: 300, endInset: 300))
    #expect(covered == .noEffect)
  }

  @Test("Distances: points past a line, limited to the section's end")
  func distance() throws {
    // The visible top (o + i0) past a header's top (s): d = o + 64 - s.
    let sticky = try ScrollTimeline.distance(limit: .toSectionEnd, fill: .both)
    let scroll = try ScrollAxisState(offset: 500, viewportExtent: 800, startInset: 64)
    // Header at 400, 30 tall, section to 700: d = 164, limit [0, 700 - 430 = 270].
    expectValue(sticky.output(cell: try CellSpan(start: 400, extent: 30, sectionEnd: 700), scroll: scroll), 164)
    expectValue(sticky.output(cell: try CellSpan(start: 400, extent: 30, sectionEnd: 580), scroll: scroll), 150)
    expectValue(sticky.output(cell: try CellSpan(start: 900, extent: 30, sectionEnd: 1000), scroll: scroll), 0)
    expectValue(sticky.output(cell: try CellSpan(start: 400, extent: 30), scroll: scroll), 164)  // no section end
    // A section end before the header's end: UIKit's clamp pushes it up (min wins): 420 - 430 = -10.
    expectValue(sticky.output(cell: try CellSpan(start: 400, extent: 30, sectionEnd: 420), scroll: scroll), -10)
    // Another line and cell point: the visibility range's end (o + V) past the cell's centre:
    // 500 + 800 - (1200 + 15) = 85.
    let other = try ScrollTimeline.distance(cellPoint: 0.5, line: 1, limit: .unbounded, fill: .both)
    expectValue(other.output(cell: try CellSpan(start: 1200, extent: 30), scroll: try ScrollAxisState(offset: 500, viewportExtent: 800)), 85)
  }
}

@Suite("Scroll timelines: the affine per-cell form agrees with the reference")
struct AffineTimelineTests {
  @Test("Seeded random cells, every kind and fill")
  func affineMatchesReference() throws {
    var g = SeededGenerator(seed: 0x5C2011)
    let ranges: [AnimationRange] = try [
      .normal, .named(.entry), .named(.exit), .named(.contain), .named(.entryCrossing), .named(.exitCrossing),
      AnimationRange(start: "entry 25%", end: "exit-crossing 40px"), AnimationRange(parsing: "contain 80% entry 10%"),
      AnimationRange(parsing: "10% 120px"),
    ]
    let fills: [ScrollFill] = [.both, .none, .forwards, .backwards, .extend, .hide]
    var timelines: [ScrollTimeline] = []
    for r in ranges {
      for f in fills {
        timelines.append(try .view(r, fill: f))
        timelines.append(try .view(r, insets: ViewTimelineInsets(parsing: "10% -20px"), fill: f))
        timelines.append(try .scroll(r, fill: f))
      }
    }
    for t in [ScrollTransitionThreshold.visible, .hidden, .centered, .visible(0.3), ScrollTransitionThreshold.visible.inset(by: 40)] {
      timelines.append(try .transitionPhase(t))
    }
    for f in fills {
      timelines.append(try .centred(unit: .points(120), fill: f))
      timelines.append(try .centred(unit: .cellExtent, range: -2...1.5, fill: f))
      timelines.append(try .centred(unit: .halfVisibleExtent, fill: f))
      timelines.append(try .distance(limit: .toSectionEnd, fill: f))
      timelines.append(try .distance(cellPoint: 0.5, line: 0.25, limit: .range(-50...300), fill: f))
    }
    timelines.append(try .distance(limit: .unbounded, fill: .both))
    var tracker = ErrorTracker("affine vs reference", tolerance: 1e-9)
    var mismatches = 0
    for _ in 0..<300 {
      let V = g.uniform(50...1200)
      let scroll = try ScrollAxisState(
        offset: g.uniform(-500...5000), viewportExtent: V, startInset: g.uniform(-40...120), endInset: g.uniform(-40...120),
        contentExtent: g.next() % 4 == 0 ? V : g.uniform(0...8000))
      let S = g.next() % 3 == 0 ? g.uniform(V...(3 * V)) : g.uniform(1...V)
      let s = g.uniform(-500...6000)
      let cell = try CellSpan(start: s, extent: S, sectionEnd: g.next() % 2 == 0 ? s + S + g.uniform(-20...900) : nil)
      for t in timelines {
        let direct = t.output(cell: cell, scroll: scroll)
        let affine = t.resolved(extent: S, scroll: scroll).output(cell: cell)
        switch (direct, affine) {
        case (.noEffect, .noEffect): tracker.record(0, 0)
        case (.progress(let a), .progress(let b)), (.hidden(let a), .hidden(let b)):
          tracker.record(a / max(1, abs(b)), b / max(1, abs(b)), "\(t.kind) \(t.fill) s \(s) S \(S)")
        default:
          // A value within rounding of a range end may fall on either side; count those apart.
          mismatches += 1
        }
      }
    }
    print("\(tracker); \(mismatches) outputs of different kinds")
    #expect(tracker.passed, "\(tracker)")
    #expect(mismatches <= 3, "\(mismatches) outputs of different kinds (seed \(g.seed))")
  }
}

@Suite("Scroll timelines: validation")
struct ScrollValidationTests {
  @Test("Every number is checked once: NaN, infinities, negative sizes")
  func validation() {
    #expect(throws: CellMotionError.notFinite(field: "scroll offset", value: .infinity)) {
      try ScrollAxisState(offset: .infinity, viewportExtent: 600)
    }
    #expect(throws: CellMotionError.self) { try ScrollAxisState(offset: .nan, viewportExtent: 600) }
    #expect(throws: CellMotionError.self) { try ScrollAxisState(offset: 0, viewportExtent: -1) }
    #expect(throws: CellMotionError.self) { try ScrollAxisState(offset: 0, viewportExtent: 0) }
    #expect(throws: CellMotionError.self) { try ScrollAxisState(offset: 0, viewportExtent: 600, startInset: .nan) }
    #expect(throws: CellMotionError.self) { try ScrollAxisState(offset: 0, viewportExtent: 600, contentExtent: -5) }
    #expect(throws: CellMotionError.self) { try CellSpan(start: 0, extent: -44) }
    #expect(throws: CellMotionError.self) { try CellSpan(start: .nan, extent: 44) }
    #expect(throws: CellMotionError.self) { try CellSpan(start: 0, extent: 44, sectionEnd: .infinity) }
    #expect(throws: CellMotionError.self) { try ScrollCell(width: 0, height: 44) }
    #expect(throws: CellMotionError.self) { try ScrollState(viewportWidth: 320, viewportHeight: .nan) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.centred(unit: .points(0), fill: .both) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.centred(unit: .points(.nan), fill: .both) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.centred(unit: .points(10), range: 1...1, fill: .both) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.transitionPhase(.visible(.nan)) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.transitionPhase(ScrollTransitionThreshold.visible.inset(by: .infinity)) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.distance(cellPoint: .nan, limit: .unbounded, fill: .both) }
    #expect(throws: CellMotionError.self) { try ScrollTimeline.distance(limit: .range(0...1e9), fill: .both) }
    #expect(throws: CellMotionError.self) { try TimelineRangeOffset(.entry, .percent(.nan)) }
    #expect(throws: CellMotionError.self) { try ViewTimelineInsets(start: .length(.points(.infinity)), end: .auto) }
  }

  @Test("Accepted extremes never give NaN or infinity")
  func extremes() throws {
    var g = SeededGenerator(seed: 77)
    let timelines: [ScrollTimeline] = try [
      .view(.named(.entry), fill: .extend), .view(AnimationRange(start: "entry 0%", end: "entry 1e-300%"), fill: .extend),
      .scroll(.normal, fill: .extend), .transitionPhase(.visible), .centred(unit: .halfVisibleExtent, fill: .extend),
      .distance(limit: .toSectionEnd, fill: .extend),
    ]
    for _ in 0..<2000 {
      let scroll = try ScrollAxisState(
        offset: g.extreme(InputLimits.scrollOffset), viewportExtent: g.extreme(InputLimits.length),
        startInset: g.extreme(InputLimits.scrollLength), endInset: g.extreme(InputLimits.scrollLength),
        contentExtent: g.extreme(0...1e15))
      let cell = try CellSpan(
        start: g.extreme(InputLimits.scrollPosition), extent: g.extreme(InputLimits.length),
        sectionEnd: g.extreme(InputLimits.scrollPosition))
      for t in timelines {
        for out in [t.output(cell: cell, scroll: scroll), t.resolved(extent: cell.extent, scroll: scroll).output(cell: cell)] {
          if let v = out.value { #expect(v.isFinite, "\(t.kind) \(scroll) \(cell) -> \(out)") }
        }
      }
    }
  }
}
