// Scroll effects through the kernel (`ScrollEffectBatch`) against the reference
// (`ScrollEffect.evaluate(cell:scroll:)`): every preset, vertical and horizontal, cells of
// one size and of several, scroll offsets across the content, every lane width and the
// awkward sizes 0, 1, 7, 9, 1023, with the differential tests' tolerances (2e-5 on
// transform entries normalised by the cell's size, 1e-5 on opacity).

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Scroll effects: kernel vs reference")
struct ScrollEffectKernelTests {
  static func presets() throws -> [ScrollEffect] {
    [
      try .reveal(), try .reveal(range: AnimationRange(parsing: "entry 25% exit 75%"), axis: .horizontal),
      try .edgeFadeScale(), try .edgeFadeScale(threshold: .centered), try .coverFlow(pitch: 180),
      try .wheelPicker(viewportExtent: 216, itemExtent: 32), try .carouselKeylines(pitch: 200),
      try .parallaxContent(overflow: 60), try .stretchyHeader(height: 200), try .stickyHeader(), try .depthPage(),
      try .zoomOutPage(),
      // Fills the presets do not use: CSS's initial `none` (no effect outside the range),
      // `forwards`, a scroll() timeline, a centred position that extends.
      try ScrollEffect(
        name: "entryNone", timeline: .view(AnimationRange(parsing: "entry 10% cover 60%"), fill: .none), recipe: .tipIn),
      try ScrollEffect(
        name: "exitForwards", timeline: .view(AnimationRange(parsing: "exit"), axis: .horizontal, fill: .forwards),
        recipe: .moveUpFade),
      try ScrollEffect(name: "scrollBoth", timeline: .scroll(fill: .both), recipe: .slideIn),
      try ScrollEffect(
        name: "centredExtend", timeline: .centred(unit: .cellExtent, fill: .extend), recipe: .tipInChannels,
        domain: -3...3),
    ]
  }

  /// Lays out `n` cells along the effect's axis from `first` (content points), each `extent`
  /// points or cycling through `extents`; returns their leading edges (content points).
  static func layout(_ n: Int, first: Double, extents: [Double]) -> (starts: [Double], extents: [Double]) {
    var starts: [Double] = [], sizes: [Double] = []
    var s = first
    for i in 0..<n {
      let e = extents[i % extents.count]
      starts.append(s)
      sizes.append(e)
      s += e
    }
    return (starts, sizes)
  }

  @Test("The scan for the next run of equal extents finds what a walk over the runs finds")
  func nextLongRunMatchesRuns() {
    var rng = SeededGenerator(seed: 33)
    var checked = 0
    for trial in 0..<400 {
      let n = [0, 1, 7, 8, 9, 15, 16, 17, 63, 1023][trial % 10] + Int(rng.uniform(0...3))
      // Runs of random lengths, mostly single values (rows of different heights), some of 7,
      // 8 and longer; values mostly distinct, sometimes one of a few (neighbouring runs merge).
      var p: [Float] = []
      while p.count < n {
        let length = [1, 1, 1, 1, 1, 1, 2, 3, 7, 8, 9, 20][Int(rng.uniform(0...11.99))]
        let v = rng.uniform(0...1) < 0.3 ? Float(Int(rng.uniform(0...3.99))) : Float(rng.uniform(10...1000))
        p.append(contentsOf: repeatElement(v, count: Swift.min(length, n - p.count)))
      }
      for from in Set([0, n / 3, Swift.max(n - 1, 0)]) where from <= n {
        // The maximal runs of [from, n), walked one value at a time.
        var expected = n, s = from
        while s < n {
          var e = s + 1
          while e < n && p[e] == p[s] { e += 1 }
          if e - s >= ScrollEffectBatch.longRun {
            expected = s
            break
          }
          s = e
        }
        let found = p.withUnsafeBufferPointer { b in
          ScrollEffectBatch.nextLongRun(b.baseAddress ?? UnsafePointer(bitPattern: 8)!, from: from, to: n)
        }
        #expect(found == expected, "trial \(trial), n \(n), from \(from): \(found), expected \(expected)")
        checked += 1
      }
    }
    #expect(checked > 900)
  }

  @Test("Every preset, both axes, equal and mixed extents, every lane width and awkward size")
  func presetsAgainstReference() throws {
    var transform = ErrorTracker("scroll effects transform (normalised)", tolerance: 2e-5)
    var opacity = ErrorTracker("scroll effects opacity", tolerance: 1e-5)
    var kinds = [0, 0, 0]
    var g = SeededGenerator(seed: 0x5C_E1)
    for effect in try Self.presets() {
      let vertical = effect.timeline.axis == .vertical
      for extents in [[Double(g.uniform(30...120))], [44, 88, 60.5]] {
        for n in [0, 1, 7, 9, 1023] {
          // Cells from above the viewport to below it, the viewport scrolled to a random
          // place; cross size and viewport fixed.
          let (starts, sizes) = Self.layout(n, first: g.uniform(-300...0), extents: extents)
          let content = (starts.last ?? 0) + (sizes.last ?? 0)
          let offset = g.uniform(-100...max(0, content - 300))
          let viewport = (width: 375.0, height: 640.0)
          let scroll = try ScrollState(
            offsetX: vertical ? 0 : offset, offsetY: vertical ? offset : 0, viewportWidth: viewport.width,
            viewportHeight: viewport.height, insetTop: vertical ? 20 : 0, insetLeft: vertical ? 0 : 10,
            contentWidth: vertical ? nil : max(content, 1), contentHeight: vertical ? max(content, 1) : nil)
          let leading = starts.map { Float($0 - offset) }
          let extent = sizes.map { Float($0) }
          // Sticky headers: every 5 cells a section ends.
          let sectionEnds = starts.indices.map { i -> Float in
            let end = min(starts.count, (i / 5 + 1) * 5)
            return end == 0 ? 0 : Float(starts[end - 1] + sizes[end - 1] - offset)
          }
          try Self.compare(
            effect, leading: leading, extent: extent, sectionEnds: sectionEnds, offset: offset, scroll: scroll,
            transform: &transform, opacity: &opacity, kinds: &kinds)
        }
      }
    }
    print(transform)
    print(opacity)
    print("outputs: \(kinds[0]) with the effect, \(kinds[1]) no effect, \(kinds[2]) hidden")
    #expect(transform.passed, "\(transform)")
    #expect(opacity.passed, "\(opacity)")
    // The sweep reaches every kind of output.
    #expect(kinds.allSatisfy { $0 > 0 }, "\(kinds)")
  }

  /// Evaluates `effect` for the cells at every lane width and records each cell's error
  /// against the reference (from the same Float positions the kernel read), and its kind.
  static func compare(
    _ effect: ScrollEffect, leading: [Float], extent: [Float], sectionEnds: [Float], offset: Double,
    scroll: ScrollState, transform: inout ErrorTracker, opacity: inout ErrorTracker, kinds: inout [Int]
  ) throws {
    let n = leading.count, cross = 320.0
    let vertical = effect.timeline.axis == .vertical
    var batch = try ScrollEffectBatch(effect: effect, capacity: n)
    for lanes in LaneWidth.allCases {
      var out = try FrameOutput(capacity: n)
      try leading.withUnsafeBufferPointer { l in
        try extent.withUnsafeBufferPointer { e in
          try sectionEnds.withUnsafeBufferPointer { se in
            try batch.evaluate(
              leading: l, extent: e, crossExtent: cross, sectionEnds: se, scroll: scroll, into: &out,
              options: KernelOptions(lanes: lanes))
          }
        }
      }
      #expect(out.count == n)
      for i in 0..<n {
        let s = Double(leading[i]) + offset, e = Double(extent[i])
        let cell = vertical
          ? try ScrollCell(x: 0, y: s, width: cross, height: e, sectionEnd: Double(sectionEnds[i]) + offset)
          : try ScrollCell(x: s, y: 0, width: e, height: cross, sectionEnd: Double(sectionEnds[i]) + offset)
        let ref = effect.evaluate(cell: cell, scroll: scroll)
        switch ref.output {
        case .progress: kinds[0] += 1
        case .noEffect: kinds[1] += 1
        case .hidden: kinds[2] += 1
        }
        let size = max(cross, e, scroll.viewportWidth)
        let context = "\(effect.name) \(effect.timeline.axis) n=\(n) cell \(i) \(lanes) \(ref.output)"
        transform.record(normalisedError(out.transform(ofCell: i), ref.transform, scale: size).0, 0, context)
        opacity.record(Double(out.opacity[i]), ref.opacity, context)
      }
    }
  }

  @Test("Cells at the effect's identity skip the kernel: a tall viewport under edge fades and reveals, against the reference")
  func identityRunsSkipTheKernel() throws {
    // Which presets have an identity progress: 0 for the edge fade (the middle of the
    // list), 1 for a reveal (revealed rows); none with perspective or a slide everywhere.
    #expect(ScrollEffectBatch.identityProgress(of: try .edgeFadeScale()) == 0)
    #expect(ScrollEffectBatch.identityProgress(of: try .edgeFadeScale().withoutMotion) == 0)
    #expect(ScrollEffectBatch.identityProgress(of: try .reveal()) == 1)
    #expect(ScrollEffectBatch.identityProgress(of: try .coverFlow(pitch: 180)) == nil)
    #expect(ScrollEffectBatch.identityProgress(of: try .wheelPicker(viewportExtent: 216, itemExtent: 32)) == nil)
    #expect(ScrollEffectBatch.identityProgress(of: try .parallaxContent(overflow: 60)) == nil)
    var transform = ErrorTracker("identity skips transform (normalised)", tolerance: 2e-5)
    var opacity = ErrorTracker("identity skips opacity", tolerance: 1e-5)
    var kinds = [0, 0, 0]
    var skipped = 0, frames = 0
    var g = SeededGenerator(seed: 0x1D_5C)
    let effects = [
      try ScrollEffect.edgeFadeScale(), try .edgeFadeScale(threshold: .centered), try .edgeFadeScale().withoutMotion,
      try .reveal(), try .reveal(axis: .horizontal),
    ]
    for effect in effects {
      let vertical = effect.timeline.axis == .vertical
      for extents in [[44.0], [44, 88, 60.5, 31]] {
        for n in [0, 1, 7, 9, 1023, 2000] {
          // A viewport of a few thousand points: most cells sit well inside it. (Not longer:
          // a ramp's progress is a Float multiply-add of the cell's place relative to the
          // viewport, which loses about 3e-8 of progress per cell extent of place; a
          // 44-point reveal 2,000 points down is within 6e-6 of the reference.)
          let viewport = g.uniform(1_500...2_000)
          let (starts, sizes) = Self.layout(n, first: g.uniform(-300...0), extents: extents)
          let content = (starts.last ?? 0) + (sizes.last ?? 0)
          let offset = g.uniform(-100...max(0, content - 3_000))
          let scroll = try ScrollState(
            offsetX: vertical ? 0 : offset, offsetY: vertical ? offset : 0, viewportWidth: vertical ? 375 : viewport,
            viewportHeight: vertical ? viewport : 375, contentWidth: vertical ? nil : max(content, 1),
            contentHeight: vertical ? max(content, 1) : nil)
          let leading = starts.map { Float($0 - offset) }
          let extent = sizes.map { Float($0) }
          try Self.compare(
            effect, leading: leading, extent: extent, sectionEnds: leading, offset: offset, scroll: scroll,
            transform: &transform, opacity: &opacity, kinds: &kinds)
          // The skip itself, at the default lane width.
          var batch = try ScrollEffectBatch(effect: effect, capacity: n)
          var out = try FrameOutput(capacity: n)
          try leading.withUnsafeBufferPointer { l in
            try extent.withUnsafeBufferPointer { e in
              try batch.evaluate(leading: l, extent: e, crossExtent: 320, scroll: scroll, into: &out)
            }
          }
          skipped += batch.skippedCells
          frames += batch.skippedCells > 0 ? 1 : 0
        }
      }
    }
    print(transform)
    print(opacity)
    print("outputs: \(kinds[0]) with the effect, \(kinds[1]) no effect, \(kinds[2]) hidden; \(skipped) cells skipped in \(frames) frames")
    #expect(transform.passed, "\(transform)")
    #expect(opacity.passed, "\(opacity)")
    #expect(frames >= 10 && skipped > 1_000, "\(frames) frames, \(skipped) cells")
  }

  /// The quiet-phase runs in a batch reused frame after frame: a list of small rows scrolled
  /// through a viewport tall enough to hold runs of hundreds of quiet rows, so that rows
  /// move between the runs and the resolved cells from one frame to the next (a run whose
  /// cells kept the last frame's kinds, progress or matrices would show it), against the
  /// reference at every lane width.
  @Test("Quiet-phase runs in a reused batch: rows moving in and out of them, against the reference")
  func quietRunsAcrossFrames() throws {
    var transform = ErrorTracker("quiet runs transform (normalised)", tolerance: 2e-5)
    var opacity = ErrorTracker("quiet runs opacity", tolerance: 1e-5)
    var g = SeededGenerator(seed: 0x0_9A1E7)
    var quietFrames = 0, frames = 0
    // Ramps of 80 points or more: a progress is a Float multiply-add of a place up to the
    // viewport's length, within the tolerance for ramps of about 1/100 of it (the type's
    // note); the rows are small so that hundreds fit in the quiet middle.
    let effects = [
      try ScrollEffect.edgeFadeScale(threshold: .visible.inset(by: 80)),
      try .edgeFadeScale(threshold: .centered.inset(by: -400)),
      try .edgeFadeScale(threshold: .visible(0.5).inset(by: 80)),
      try .edgeFadeScale(threshold: .visible.inset(by: 80), axis: .horizontal),
    ]
    for effect in effects {
      let vertical = effect.timeline.axis == .vertical
      let (starts, sizes) = Self.layout(900, first: 0, extents: [8, 12.5, 9, 20, 6])
      let content = starts.last! + sizes.last!
      let viewport = 2_400.0
      for lanes in LaneWidth.allCases {
        var batch = try ScrollEffectBatch(effect: effect, capacity: 900)
        var out = try FrameOutput(capacity: 900)
        for _ in 0..<8 {
          let offset = g.uniform(-200...(content - viewport + 200))
          let scroll = try ScrollState(
            offsetX: vertical ? 0 : offset, offsetY: vertical ? offset : 0, viewportWidth: vertical ? 375 : viewport,
            viewportHeight: vertical ? viewport : 375, contentWidth: vertical ? nil : content,
            contentHeight: vertical ? content : nil)
          // Every row, or a stretch of them (the cells change places in the batch too).
          let first = g.uniform(0...1) < 0.5 ? 0 : Int(g.uniform(0...100))
          let leading = starts[first...].map { Float($0 - offset) }, extent = sizes[first...].map { Float($0) }
          try leading.withUnsafeBufferPointer { l in
            try extent.withUnsafeBufferPointer { e in
              try batch.evaluate(
                leading: l, extent: e, crossExtent: 320, scroll: scroll, into: &out, options: KernelOptions(lanes: lanes))
            }
          }
          frames += 1
          quietFrames += batch.quietRuns.isEmpty ? 0 : 1
          for i in 0..<leading.count {
            let s = Double(leading[i]) + offset, e = Double(extent[i])
            let cell = vertical
              ? try ScrollCell(x: 0, y: s, width: 320, height: e) : try ScrollCell(x: s, y: 0, width: e, height: 320)
            let ref = effect.evaluate(cell: cell, scroll: scroll)
            let context = "\(effect.name) \(effect.timeline.axis) \(lanes) offset \(offset) cell \(i)"
            transform.record(normalisedError(out.transform(ofCell: i), ref.transform, scale: max(320, e)).0, 0, context)
            opacity.record(Double(out.opacity[i]), ref.opacity, context)
          }
        }
      }
    }
    print(transform)
    print(opacity)
    print("quiet runs in \(quietFrames) of \(frames) frames")
    #expect(transform.passed, "\(transform)")
    #expect(opacity.passed, "\(opacity)")
    #expect(quietFrames > frames / 2, "\(quietFrames) of \(frames) frames")
  }

  /// A random case for the quiet-phase tests: a viewport of 50 to 900,000 points (V) with
  /// or without insets, a visible(a) or centred threshold (with an inset in every third
  /// round), a scroll offset o; its timeline, scroll axis, `QuietPhase` and visible extent L.
  static func quietCase(_ g: inout SeededGenerator, round: Int) throws -> (
    V: Double, threshold: ScrollTransitionThreshold, timeline: ScrollTimeline, o: Double, axis: ScrollAxisState,
    quiet: QuietPhase, L: Double
  ) {
    let V = g.uniform(0...1) < 0.3 ? g.uniform(50...2_000) : g.uniform(2_000...900_000)
    let i0 = g.uniform(0...1) < 0.5 ? 0 : g.uniform(0...80), i1 = g.uniform(0...1) < 0.5 ? 0 : g.uniform(0...80)
    let base: ScrollTransitionThreshold = round % 4 == 3 ? .centered : .visible(g.uniform(-0.2...1.2))
    let threshold = round % 3 == 0 ? base.inset(by: g.uniform(-60...60)) : base
    let timeline = try ScrollTimeline.transitionPhase(threshold)
    let o = g.uniform(-1_000...5_000_000)
    let axis = try ScrollAxisState(offset: o, viewportExtent: V, startInset: i0, endInset: i1)
    let quiet = try #require(TimelineResolver(timeline, scroll: axis).quietPhase)
    let L = max(axis.visibleExtent, 0)
    return (V, threshold, timeline, o, axis, quiet, L)
  }

  /// `QuietPhase` against the reference: every group of eight cells it passes has the
  /// reference phase exactly 0 (`ScrollTimeline.output`, in Double), and each cell's own
  /// lane resolution (`TimelinePass` from `resolved(extent:scroll:)`, u as one multiply-add
  /// and as a multiply then an add) gives the value 0 too. Cells are placed at the
  /// threshold's distance plus or minus a few points (the bounds), anywhere inside it, or
  /// anywhere, in viewports from 50 to 900,000 points, with insets, thresholds visible(a)
  /// and centred with and without an inset, extents up to past the viewport.
  @Test("Cells the quiet-phase test passes have phase exactly 0, in the reference and in their lanes")
  func quietPhase() throws {
    var g = SeededGenerator(seed: 0x9_0175)
    var quietGroups = 0, boundaryCells = 0, cells = 0
    for round in 0..<300 {
      let (V, threshold, timeline, o, axis, quiet, L) = try Self.quietCase(&g, round: round)
      for _ in 0..<40 {
        var p = SIMD8<Float>(), S = SIMD8<Float>()
        // Most groups: cells inside the threshold with up to three within 3 points of it
        // (either side); some groups anywhere.
        let anywhere = g.uniform(0...1) < 0.2
        let nearBound = anywhere ? 0 : Int(g.uniform(0...3.99))
        for k in 0..<8 {
          let s = Float(g.uniform(0...1) < 0.1 ? g.uniform(1...min(2 * V, 999_000)) : g.uniform(1...300))
          let d = threshold.distance(extent: Double(s), container: L)
          let c =
            anywhere
            ? g.uniform(-V...V)
            : k < nearBound ? (g.uniform(0...1) < 0.5 ? -1 : 1) * (d + g.uniform(-3...3)) : g.uniform(-d...d) * 0.9
          S[k] = s
          p[k] = Float(c + axis.visibleCentre - Double(s) / 2)
        }
        cells += 8
        guard QuietPhase.allQuiet(quiet.slack(p, S)) else { continue }
        quietGroups += 1
        boundaryCells += nearBound
        for k in 0..<8 {
          let cell = try CellSpan(start: Double(p[k]) + o, extent: Double(S[k]))
          #expect(
            timeline.output(cell: cell, scroll: axis) == .progress(0),
            "reference: V \(V) threshold \(threshold) p \(p[k]) S \(S[k])")
          let pass = TimelinePass(
            timeline.resolved(extent: Double(S[k]), scroll: axis), domain: 0...1, folds: false, offset: o)
          for u in [p[k] * pass.slope + pass.intercept, pass.intercept.addingProduct(p[k], pass.slope)] {
            let value: Float
            switch pass.mode {
            case .phase: value = min(max(u, 0), 1) - min(max(pass.span - u, 0), 1)
            case .phaseStep: value = (-pass.span < u ? 1 : 0) - (u < pass.span ? 1 : 0)
            default: value = .nan
            }
            #expect(value == 0, "lanes: V \(V) threshold \(threshold) p \(p[k]) S \(S[k]) mode \(pass.mode) u \(u)")
          }
        }
      }
    }
    print("quiet phase: \(quietGroups) of \(cells / 8) groups quiet, \(boundaryCells) of their cells within 3 points of the threshold")
    #expect(quietGroups > 1_000 && boundaryCells > 300, "\(quietGroups) groups, \(boundaryCells) near the bounds")
  }

  /// `QuietPhase.rangeQuiet` (a block of 64 or a chunk of 512 cells from its ranges alone,
  /// reading the extents or, when all are equal, only the first) against the test cell by
  /// cell: a block it passes has every group passing `slack` (which the test above checks
  /// against the reference and the lanes). Blocks of a list's rows, of extents
  /// around the viewport's (the threshold's kink at S = L inside the range), of cells mostly
  /// inside the threshold with some within 3 points of it, and of cells anywhere.
  @Test("A block of cells the bounds pass has every group passing the quiet-phase test")
  func quietBlocks() throws {
    var g = SeededGenerator(seed: 0xB_10C5)
    var passed = 0, nearPassed = 0, blocks = 0, missed = 0, equalBlocks = 0
    for round in 0..<300 {
      let (V, threshold, _, o, axis, quiet, L) = try Self.quietCase(&g, round: round)
      for _ in 0..<20 {
        let cells = g.uniform(0...1) < 0.7 ? QuietPhase.blockCells : QuietPhase.chunkCells
        var p = [Float](repeating: 0, count: cells), S = p
        /// A cell of extent `s` whose centre is `c` from the visible centre.
        func place(_ k: Int, _ s: Float, _ c: Double) {
          S[k] = s
          p[k] = Float(c + axis.visibleCentre - Double(s) / 2)
        }
        let mode = g.uniform(0...1)
        let oneSize = g.uniform(0...1) < 0.3 ? Float(g.uniform(1...300)) : nil
        if mode < 0.35 {
          // A list's rows one after another, starting anywhere in or near the viewport (a
          // tall one holds the block whole).
          var edge = Float(axis.visibleCentre - L / 2 + g.uniform(-100...max(L, 100)))
          for k in 0..<cells {
            S[k] = oneSize ?? Float(g.uniform(20...120))
            p[k] = edge
            edge += S[k]
          }
        } else if mode < 0.55 && L >= 20 && L <= 900_000 {
          // Extents on both sides of the viewport's (the threshold's kink: with a share above
          // a half, the least distance is at S = L, not at an end of the range), centres out
          // to between that least distance and the ends' distances.
          let (s0, s1) = (0.95 * L, 1.05 * L)
          let dL = threshold.distance(extent: L, container: L)
          let dEnds = min(threshold.distance(extent: s0, container: L), threshold.distance(extent: s1, container: L))
          let reach = dL + max(0, dEnds - dL) * g.uniform(0...0.8)
          for k in 0..<cells { place(k, Float(g.uniform(s0...s1)), g.uniform(-reach...reach)) }
        } else {
          // Cells anywhere, or most inside the threshold with up to three within 3 points of
          // it (either side).
          let anywhere = g.uniform(0...1) < 0.25
          let nearBound = anywhere ? 0 : Int(g.uniform(0...3.99))
          for k in 0..<cells {
            let s = oneSize ?? Float(g.uniform(0...1) < 0.1 ? g.uniform(1...min(2 * V, 999_000)) : g.uniform(1...300))
            let d = threshold.distance(extent: Double(s), container: L)
            let c =
              anywhere
              ? g.uniform(-V...V)
              : k < nearBound ? (g.uniform(0...1) < 0.5 ? -1 : 1) * (d + g.uniform(-3...3)) : g.uniform(-d...d) * 0.9
            place(k, s, c)
          }
        }
        blocks += 1
        // Equal extents read as such (only the first) where they are.
        let equal = S.allSatisfy { $0 == S[0] }
        equalBlocks += equal ? 1 : 0
        // Each group's test, and the least slack of any cell (points).
        let (groups, least, block) = p.withUnsafeBufferPointer { p in
          S.withUnsafeBufferPointer { S in
            let p = p.baseAddress!, S = S.baseAddress!
            let slacks = stride(from: 0, to: cells, by: 8).map { k in
              quiet.slack(SIMD8<Float>.load(p + k), SIMD8<Float>.load(S + k))
            }
            return (slacks.map(QuietPhase.allQuiet), slacks.map { $0.min() }.min()!, quiet.rangeQuiet(p, S, count: cells, equalExtents: equal))
          }
        }
        guard block else {
          if groups.allSatisfy({ $0 }) { missed += 1 }
          continue
        }
        passed += 1
        nearPassed += least < 3 ? 1 : 0
        #expect(groups.allSatisfy { $0 }, "V \(V) threshold \(threshold) offset \(o): a block passed with a group that fails")
      }
    }
    print("quiet blocks: \(passed) of \(blocks) passed (\(nearPassed) with a cell within 3 points of failing its group's test); \(missed) whose groups all pass did not; \(equalBlocks) of equal extents")
    #expect(passed > 300 && nearPassed > 15 && equalBlocks > 300, "\(passed) blocks passed, \(nearPassed) near the bounds, \(equalBlocks) equal")
  }

  /// `skipIdentityRuns` against a walk: every cell outside the ranges is at the identity
  /// (kind 1, or kind 0 at the identity progress) and now kind 1; the runs skipped are at
  /// least `shortestSkip` long and start and end on multiples of eight (or the end); every
  /// other cell keeps its kind, and the ranges cover exactly the cells not skipped.
  @Test("Runs of cells at the identity: the ranges between them cover every other cell")
  func skipIdentityRuns() {
    var g = SeededGenerator(seed: 0x5C1F)
    let identity: Float = 0
    var skippedTrials = 0
    for trial in 0..<600 {
      let n = [0, 1, 7, 64, 65, 71, 72, 200, 1023, 3000][trial % 10]
      var kinds = [Float](repeating: 0, count: n), progress = [Float](repeating: 0, count: n)
      var i = 0
      while i < n {
        // Runs of one kind and of progress at the identity or not.
        let length = Int(g.uniform(1...200))
        let kind = Float(Int(g.uniform(0...2.99)))
        let atIdentity = g.uniform(0...1) < 0.6
        for k in i..<Swift.min(n, i + length) {
          kinds[k] = kind
          progress[k] = atIdentity ? identity : Float(g.uniform(0.001...1))
        }
        i += length
      }
      let before = kinds
      var ranges: [Range<Int>] = []
      let skipped = progress.withUnsafeBufferPointer { p in
        kinds.withUnsafeMutableBufferPointer { k in
          ScrollEffectBatch.skipIdentityRuns(
            p.baseAddress ?? UnsafePointer(bitPattern: 8)!, k.baseAddress ?? UnsafeMutablePointer(bitPattern: 8)!,
            count: n, at: identity, into: &ranges)
        }
      }
      if skipped == 0 {
        #expect(kinds == before, "trial \(trial): kinds changed with nothing skipped")
        continue
      }
      skippedTrials += 1
      var covered = [Bool](repeating: false, count: n)
      var last = 0
      for r in ranges {
        #expect(r.lowerBound >= last && !r.isEmpty, "trial \(trial): ranges \(ranges)")
        for k in r { covered[k] = true }
        last = r.upperBound
      }
      let gaps = covered.indices.filter { !covered[$0] }
      #expect(gaps.count == skipped, "trial \(trial)")
      for k in 0..<n {
        let wasIdentity = before[k] == 1 || (before[k] == 0 && progress[k] == identity)
        if covered[k] {
          #expect(kinds[k] == before[k], "trial \(trial): cell \(k) evaluated but its kind changed")
        } else {
          #expect(wasIdentity && kinds[k] == 1, "trial \(trial): cell \(k) skipped but not at the identity")
        }
      }
      // Each gap (a maximal run of cells not covered) is long and aligned.
      var s = 0
      while s < gaps.count {
        var e = s + 1
        while e < gaps.count && gaps[e] == gaps[e - 1] + 1 { e += 1 }
        let (lo, hi) = (gaps[s], gaps[e - 1] + 1)
        #expect(hi - lo >= ScrollEffectBatch.shortestSkip && lo % 8 == 0 && (hi % 8 == 0 || hi == n), "trial \(trial): \(lo)..<\(hi)")
        s = e
      }
    }
    #expect(skippedTrials > 200, "\(skippedTrials) trials skipped cells")
  }

  @Test("Runs of equal progress: each copies a cell the ranges keep, and the ranges cover every other cell")
  func splitEqualRuns() {
    var g = SeededGenerator(seed: 0xE9_0A1)
    var splitTrials = 0
    for trial in 0..<600 {
      let n = [0, 1, 7, 40, 41, 47, 48, 200, 1023, 3000][trial % 10]
      var progress = [Float](repeating: 0, count: n)
      var i = 0
      while i < n {
        // Runs of one progress (0, 1 or another value) or of distinct values.
        let length = Int(g.uniform(1...300))
        let held = g.uniform(0...1) < 0.6
        let value = [Float(0), 1, Float(g.uniform(0...1))][Int(g.uniform(0...2.99))]
        for k in i..<Swift.min(n, i + length) { progress[k] = held ? value : Float(g.uniform(0...1)) }
        i += length
      }
      // The ranges given: the whole frame, or pieces of it from multiples of eight (as
      // `skipIdentityRuns` leaves them).
      var given: [Range<Int>] = []
      if trial % 2 == 0 || n < 64 {
        given = n > 0 ? [0..<n] : []
      } else {
        var a = 0
        while a < n {
          let b = Swift.min(n, a + 8 * Int(g.uniform(1...60)))
          if g.uniform(0...1) < 0.7 { given.append(a..<b) }
          a = Swift.min(n, b + 8 * Int(g.uniform(0...5)))
        }
      }
      var evaluated: [Range<Int>] = [], copies: [Range<Int>] = []
      progress.withUnsafeBufferPointer { p in
        ScrollEffectBatch.splitEqualRuns(
          p.baseAddress ?? UnsafePointer(bitPattern: 8)!, given, into: &evaluated, copies: &copies)
      }
      if !copies.isEmpty { splitTrials += 1 }
      var role = [Int](repeating: 0, count: n)  // 1 evaluated, 2 copied
      for r in evaluated { for k in r { role[k] += 1 } }
      for r in copies {
        #expect(r.count >= ScrollEffectBatch.shortestSkip && r.lowerBound % 8 == 0, "trial \(trial): \(r)")
        let source = r.lowerBound - 8
        #expect(source >= 0 && role[source] == 1, "trial \(trial): the source of \(r) is not evaluated")
        for k in r {
          role[k] += 2
          #expect(progress[k] == progress[source], "trial \(trial): cell \(k) copied from \(source) with another progress")
        }
      }
      var inGiven = [Bool](repeating: false, count: n)
      for r in given { for k in r { inGiven[k] = true } }
      for k in 0..<n {
        // Each given cell evaluated or copied, once; no other cell either.
        let expected: Set<Int> = inGiven[k] ? [1, 2] : [0]
        #expect(expected.contains(role[k]), "trial \(trial): cell \(k) role \(role[k])")
      }
      var last = 0
      for r in evaluated {
        #expect(r.lowerBound >= last && !r.isEmpty && r.lowerBound % 8 == 0, "trial \(trial): ranges \(evaluated)")
        last = r.upperBound
      }
    }
    #expect(splitTrials > 200, "\(splitTrials) trials copied cells")
  }

  @Test("Runs of equal progress copied rather than evaluated: bit for bit what the kernel writes for every cell, both layouts, every lane width")
  func equalRunsCopied() throws {
    var g = SeededGenerator(seed: 0xC0_B1E5)
    var framesCopying = 0, copied = 0, frames = 0  // (frames: those long enough to hold a run)
    for effect in try Self.presets() {
      let vertical = effect.timeline.axis == .vertical
      let planar = try ScrollEffectBatch(effect: effect).batch.recipes[0].isPlanar
      for layout in MatrixLayout.allCases where layout == .transform3D || planar {
        for lanes in LaneWidth.allCases {
          var batch = try ScrollEffectBatch(effect: effect)
          for n in [0, 1, 7, 9, 47, 1023, 3000] {
            // Equal extents, a viewport of a few cells: most cells lie past the range's ends.
            let extent = [32.0, 44, 180, 300][Int(g.uniform(0...3.99))]
            let (starts, sizes) = Self.layout(n, first: 0, extents: [extent])
            let content = Swift.max(1, (starts.last ?? 0) + (sizes.last ?? 0))
            let viewport = g.uniform(200...700)
            let offset = g.uniform(-300...content)
            let scroll = try ScrollState(
              offsetX: vertical ? 0 : offset, offsetY: vertical ? offset : 0, viewportWidth: vertical ? 375 : viewport,
              viewportHeight: vertical ? viewport : 375)
            let leading = starts.map { Float($0 - offset) }, sizesF = sizes.map { Float($0) }
            let ends = leading.map { $0 + 600 }
            var out = try FrameOutput(capacity: n, layout: layout)
            try leading.withUnsafeBufferPointer { l in
              try sizesF.withUnsafeBufferPointer { e in
                try ends.withUnsafeBufferPointer { se in
                  try batch.evaluate(
                    leading: l, extent: e, crossExtent: 320, sectionEnds: se, scroll: scroll, into: &out,
                    options: KernelOptions(lanes: lanes))
                }
              }
            }
            frames += n >= 1023 ? 1 : 0
            let runs = batch.copiedRuns.reduce(0) { $0 + $1.count }
            copied += runs
            framesCopying += runs > 0 ? 1 : 0
            // The oracle: the kernel over every cell of the batch's progress columns, then
            // the same fills.
            var full = try FrameOutput(capacity: n, layout: layout)
            try Kernel.evaluate(batch.batch, at: 0, into: &full, options: KernelOptions(lanes: lanes))
            ScrollEffectBatch.applyFills(batch.kinds, count: n, into: &full)
            let floats = layout == .affine2D ? 6 : 16
            for i in 0..<n {
              let same = (0..<floats).allSatisfy { out.matrices[floats * i + $0] == full.matrices[floats * i + $0] }
              #expect(same && out.opacity[i] == full.opacity[i], "\(effect.name) \(layout) \(lanes) n=\(n) cell \(i)")
            }
          }
        }
      }
    }
    print("equal-progress runs: \(copied) cells copied in \(framesCopying) frames (\(frames) of 1,023 cells or more)")
    #expect(framesCopying > frames / 2 && copied > 100_000, "\(copied) cells in \(framesCopying) frames, \(frames) long")
  }

  @Test("A batch reused frame after frame (cells added and removed, the cross size and viewport width changing) writes what a fresh batch writes, bit for bit")
  func reusedBatch() throws {
    var g = SeededGenerator(seed: 0x5C_E2)
    for effect in try Self.presets() {
      let vertical = effect.timeline.axis == .vertical
      var reused = try ScrollEffectBatch(effect: effect)
      for frame in 0..<8 {
        let n = [9, 1023, 7, 0, 64, 1, 300, 301][frame]
        let cross = [320.0, 320, 200, 200, 375, 375, 375, 90][frame]
        let width = [375.0, 375, 375, 414, 414, 320, 320, 320][frame]
        let extents = frame % 2 == 0 ? [44.0] : [44, 88, 60.5]
        let (starts, sizes) = Self.layout(n, first: g.uniform(-300...0), extents: extents)
        let scroll = try ScrollState(
          offsetX: 0, offsetY: 0, viewportWidth: vertical ? width : 640, viewportHeight: vertical ? 640 : width)
        let leading = starts.map { Float($0) }
        let extent = sizes.map { Float($0) }
        let ends = starts.map { Float($0 + 500) }
        var fresh = try ScrollEffectBatch(effect: effect)
        var a = try FrameOutput(capacity: n), b = try FrameOutput(capacity: n)
        try leading.withUnsafeBufferPointer { l in
          try extent.withUnsafeBufferPointer { e in
            try ends.withUnsafeBufferPointer { se in
              try reused.evaluate(leading: l, extent: e, crossExtent: cross, sectionEnds: se, scroll: scroll, into: &a)
              try fresh.evaluate(leading: l, extent: e, crossExtent: cross, sectionEnds: se, scroll: scroll, into: &b)
            }
          }
        }
        for i in 0..<n {
          #expect(a.transform(ofCell: i) == b.transform(ofCell: i) && a.opacity[i] == b.opacity[i], "\(effect.name) frame \(frame) cell \(i)")
        }
      }
    }
  }

  @Test("Extents whose timelines resolve to different shapes in one frame (a contain range that steps where the cell fills the viewport)")
  func mixedShapes() throws {
    var transform = ErrorTracker("mixed shapes transform (normalised)", tolerance: 2e-5)
    var opacity = ErrorTracker("mixed shapes opacity", tolerance: 1e-5)
    var kinds = [0, 0, 0]
    let effect = try ScrollEffect(
      name: "containMixed", timeline: .view(AnimationRange(parsing: "contain"), fill: .both), recipe: .tipInChannels)
    let viewport = 640.0
    // Runs of one extent and of several; 640 (the viewport) makes contain degenerate.
    let pattern: [Double] = [44, 640, 640, 88, 640, 1500, 60.5, 60.5, 640]
    var g = SeededGenerator(seed: 0x5C_E2)
    for (n, nudge) in [(1, 0.0), (7, -0.25), (9, 0.25), (1023, 0.5)] {
      let (starts, sizes) = Self.layout(n, first: g.uniform(-700...0), extents: pattern)
      let content = (starts.last ?? 0) + (sizes.last ?? 0)
      // The viewport's top a fraction of a point from the top of a cell that fills it,
      // where its step and a ramp through the same place disagree most.
      let full = sizes.indices.last { sizes[$0] == viewport }
      let offset = full.map { starts[$0] + nudge } ?? g.uniform(0...max(0, content - viewport))
      let scroll = try ScrollState(
        offsetX: 0, offsetY: offset, viewportWidth: 375, viewportHeight: viewport, contentHeight: max(content, 1))
      // The premise: the frame's cells resolve to a step and to a ramp.
      let shapes = Set(sizes.map { e -> String in
        switch effect.timeline.resolved(extent: e, scroll: scroll.along(.vertical)).shape {
        case .step: return "step"
        case .ramp: return "ramp"
        default: return "other"
        }
      })
      #expect(n < 7 || shapes == ["step", "ramp"], "n=\(n): \(shapes)")
      try Self.compare(
        effect, leading: starts.map { Float($0 - offset) }, extent: sizes.map { Float($0) },
        sectionEnds: sizes.map { _ in Float(content - offset) }, offset: offset, scroll: scroll,
        transform: &transform, opacity: &opacity, kinds: &kinds)
    }
    print(transform)
    print(opacity)
    #expect(transform.passed, "\(transform)")
    #expect(opacity.passed, "\(opacity)")
  }

  @Test("Timelines resolved in lanes equal the scalar resolution bit for bit: every kind, named range, unit and limit, 4,000 extents each")
  func resolverMatchesScalar() throws {
    var timelines: [ScrollTimeline] = try Self.presets().map(\.timeline)
    for name in TimelineRangeName.allCases {
      for (a, b) in [(RangeLength.percent(0), RangeLength.percent(100)), (.percent(-20), .points(37.5)), (.points(-12), .percent(140))] {
        let range = AnimationRange(start: try TimelineRangeOffset(name, a), end: try TimelineRangeOffset(name, b))
        timelines.append(try .view(range, fill: .both))
        timelines.append(try .view(range, insets: ViewTimelineInsets(parsing: "10% 25px"), fill: .none))
      }
    }
    for threshold in [ScrollTransitionThreshold.visible, .hidden, .centered, .visible(0.3), .visible(1.7), .visible(0.5).inset(by: 30), .centered.inset(by: -25)] {
      timelines.append(try .transitionPhase(threshold))
    }
    for unit in [CentredUnit.points(180), .cellExtent, .halfVisibleExtent] {
      timelines.append(try .centred(unit: unit, fill: .both))
    }
    for limit in [DistanceLimit.unbounded, .range(-40...120), .toSectionEnd] {
      timelines.append(try .distance(cellPoint: 0.5, line: 0.25, limit: limit, fill: .both))
    }
    timelines.append(try .scroll(fill: .both))
    var g = SeededGenerator(seed: 0x5C_E3)
    var compared = 0
    for timeline in timelines {
      let viewport = g.uniform(100...900)
      let scroll = try ScrollState(
        offsetX: 0, offsetY: g.uniform(-200...5000), viewportWidth: 375, viewportHeight: viewport,
        insetTop: g.uniform(0...40), insetBottom: g.uniform(0...40), contentHeight: g.uniform(0...20_000))
      let axis = scroll.along(.vertical)
      // Extents from the smallest accepted to beyond the viewport, the viewport's own size
      // (where ranges degenerate) among them; 4,000 of them, so groups end unevenly.
      var extents: [Float] = (0..<3_997).map { _ in Float(g.uniform(0...1) < 0.5 ? g.uniform(0.001...2) : g.uniform(2...3 * viewport)) }
      extents += [Float(viewport), Float(axis.visibleExtent), 1e-3]
      var columns = [Float](repeating: .nan, count: 5 * extents.count)
      let n = extents.count
      extents.withUnsafeBufferPointer { e in
        columns.withUnsafeMutableBufferPointer { c in
          let p = c.baseAddress!
          TimelineResolver(timeline, scroll: axis).resolve(
            e.baseAddress!, count: n, slopes: p, intercepts: p + n, spans: p + 2 * n, extents: p + 3 * n, modes: p + 4 * n)
        }
      }
      for (i, e) in extents.enumerated() {
        let pass = TimelinePass(timeline.resolved(extent: Double(e), scroll: axis), domain: 0...1, folds: false, offset: axis.offset)
        let lanes = (columns[i], columns[n + i], columns[2 * n + i], columns[3 * n + i], columns[4 * n + i])
        let same = lanes.0.bitPattern == pass.slope.bitPattern && lanes.1.bitPattern == pass.intercept.bitPattern
          && lanes.2.bitPattern == pass.span.bitPattern && lanes.3.bitPattern == pass.extent.bitPattern
          && lanes.4 == Float(pass.mode.rawValue)
        #expect(same, "\(timeline.kind) extent \(e): lanes \(lanes), scalar \((pass.slope, pass.intercept, pass.span, pass.extent, pass.mode))")
        if !same { break }
        compared += 1
      }
    }
    #expect(compared == timelines.count * 4_000)
  }

  @Test("The Double entry (a table's places and heights) writes what the Float entry writes for the same values rounded, extents clamped, bit for bit")
  func doubleEntry() throws {
    var g = SeededGenerator(seed: 0xD0_0B1E)
    let lengths = InputLimits.length
    var quietCells = 0
    for effect in try Self.presets() {
      let vertical = effect.timeline.axis == .vertical
      var viaDouble = try ScrollEffectBatch(effect: effect), viaFloat = try ScrollEffectBatch(effect: effect)
      viaDouble.fillsNoEffectCells = false
      viaFloat.fillsNoEffectCells = false
      for (frame, n) in [0, 1, 7, 9, 1023, 3000].enumerated() {
        // A tall viewport (long quiet runs under an edge fade), rows of one height or of
        // several, some collapsed to 0 or past the longest length (clamped).
        let viewport = [640.0, 200_000][frame % 2]
        let extents = frame % 3 == 0 ? [44.0] : [44, 88.25, 60.5]
        var (starts, sizes) = Self.layout(n, first: g.uniform(-300...0), extents: extents)
        if n > 8 && frame % 3 != 0 {
          sizes[n / 3] = 0
          sizes[n / 2] = -2
          sizes[n - 1] = 3e6
        }
        let scroll = try ScrollState(
          offsetX: 0, offsetY: 0, viewportWidth: vertical ? 375 : viewport, viewportHeight: vertical ? viewport : 375)
        let leading = starts.map { Float($0) }
        let clamped = sizes.map { Float(min(max($0, lengths.lowerBound), lengths.upperBound)) }
        var a = try FrameOutput(capacity: n), b = try FrameOutput(capacity: n)
        try starts.withUnsafeBufferPointer { p in
          try sizes.withUnsafeBufferPointer { s in
            try viaDouble.evaluate(leadingPlaces: p, clampingExtents: s, crossExtent: 320, scroll: scroll, into: &a)
          }
        }
        try leading.withUnsafeBufferPointer { l in
          try clamped.withUnsafeBufferPointer { e in
            try viaFloat.evaluate(leading: l, extent: e, crossExtent: 320, scroll: scroll, into: &b)
          }
        }
        #expect(viaDouble.kinds.prefix(n) == viaFloat.kinds.prefix(n), "\(effect.name) \(n) cells: kinds")
        #expect(viaDouble.quietRuns == viaFloat.quietRuns, "\(effect.name) \(n) cells: quiet runs")
        quietCells += viaFloat.quietRuns.reduce(0) { $0 + $1.count }
        for i in 0..<n where viaFloat.kinds[i] != 1 {
          #expect(
            a.transform(ofCell: i) == b.transform(ofCell: i) && a.opacity[i] == b.opacity[i],
            "\(effect.name) \(n) cells: cell \(i)")
        }
      }
    }
    // The tall viewports hold long quiet runs (edge fades): the runs were compared, not
    // only empty lists.
    #expect(quietCells > 2_000, "\(quietCells) cells in quiet runs")
    // Bad places and NaN heights are named as in the Float entry; nothing is clamped into a
    // valid one (a NaN stays NaN).
    var batch = try ScrollEffectBatch(effect: try .edgeFadeScale(), capacity: 9)
    var out = try FrameOutput(capacity: 9)
    let scroll = try ScrollState(viewportWidth: 320, viewportHeight: 480)
    for (k, (place, height)) in [(Double.nan, 44.0), (1e300, 44), (0, .nan)].enumerated() {
      var places = (0..<9).map { Double($0) * 44 }, heights = [Double](repeating: 44, count: 9)
      places[k + 3] = place
      heights[k + 3] = height
      let field = Self.refusedField {
        try places.withUnsafeBufferPointer { p in
          try heights.withUnsafeBufferPointer { h in
            try batch.evaluate(leadingPlaces: p, clampingExtents: h, crossExtent: 320, scroll: scroll, into: &out)
          }
        }
      }
      #expect(field == (height.isNaN ? "extent[\(k + 3)]" : "leading[\(k + 3)]"), "\(place), \(height): \(field ?? "no error")")
      let kept = batch.batch.columns.height.prefix(9).allSatisfy {
        $0.isFinite && Double($0) >= lengths.lowerBound && Double($0) <= lengths.upperBound
      }
      #expect(kept, "\(place), \(height): an extent the call refused stayed in the batch")
    }
  }

  @Test("Bad columns are typed errors, and nothing is evaluated")
  func errors() throws {
    var batch = try ScrollEffectBatch(effect: try .edgeFadeScale(), capacity: 4)
    var out = try FrameOutput(capacity: 4)
    let scroll = try ScrollState(viewportWidth: 320, viewportHeight: 480)
    let good: [Float] = [0, 44], extents: [Float] = [44, 44]
    for (leading, extent) in [([Float.nan, 0], extents), (good, [44, -1]), (good, [44]), ([0, 1, 2, 3, 4], [Float](repeating: 44, count: 5))] {
      #expect(throws: CellMotionError.self) {
        try leading.withUnsafeBufferPointer { l in
          try extent.withUnsafeBufferPointer { e in
            try batch.evaluate(leading: l, extent: e, crossExtent: 320, scroll: scroll, into: &out)
          }
        }
      }
    }
  }

  /// The field a call's `.notFinite` or `.outOfRange` error names (another error: its
  /// description), or nil when it does not throw.
  static func refusedField(_ call: () throws -> Void) -> String? {
    do {
      try call()
      return nil
    } catch let error as CellMotionError {
      switch error {
      case .notFinite(let f, _), .outOfRange(let f, _, _): return f
      default: return "\(error)"
      }
    } catch {
      return "\(error)"
    }
  }

  @Test("A bad place or extent anywhere in the columns is named with its index, the leading column's first")
  func badColumnsNamed() throws {
    var rng = SeededGenerator(seed: 91)
    let scroll = try ScrollState(viewportWidth: 320, viewportHeight: 480)
    var checked = 0
    for n in [1, 7, 8, 9, 16, 17, 1023] {
      var batch = try ScrollEffectBatch(effect: try .edgeFadeScale(), capacity: n)
      var out = try FrameOutput(capacity: n)
      // Outside each column's limits: not finite, past either end.
      let far = Float(InputLimits.scrollPosition.upperBound) * 2
      let places: [Float] = [.nan, .infinity, -.infinity, far, -far]
      let extents: [Float] = [.nan, .infinity, -.infinity, 2e6, 0]
      for (b, bad) in places.enumerated() {
        for column in ["leading", "extent", "both"] {
          var leading = (0..<n).map { Float($0) * 44 - 100 }, extent = [Float](repeating: 44, count: n)
          let k = Int(rng.uniform(0...Double(n) - 0.001)), j = Int(rng.uniform(0...Double(n) - 0.001))
          if column != "extent" { leading[k] = bad }
          if column != "leading" { extent[j] = extents[b] }
          let field = Self.refusedField {
            try leading.withUnsafeBufferPointer { l in
              try extent.withUnsafeBufferPointer { e in
                try batch.evaluate(leading: l, extent: e, crossExtent: 320, scroll: scroll, into: &out)
              }
            }
          }
          let expected = column == "extent" ? "extent[\(j)]" : "leading[\(k)]"
          #expect(field == expected, "n \(n), \(bad) in \(column): \(field ?? "no error")")
          // The batch keeps only valid extents (they are copied as they are checked), so
          // evaluating it directly cannot produce NaN from a refused call's input.
          let lengths = InputLimits.length
          let kept = batch.batch.columns.height.prefix(n).allSatisfy {
            $0.isFinite && Double($0) >= lengths.lowerBound && Double($0) <= lengths.upperBound
          }
          #expect(kept, "n \(n), \(bad) in \(column): an extent the call refused stayed in the batch")
          checked += 1
        }
      }
    }
    #expect(checked == 7 * 5 * 3)
  }

  @Test("A bad section end anywhere in its column is named with its index")
  func badSectionEndNamed() throws {
    var rng = SeededGenerator(seed: 92)
    let scroll = try ScrollState(viewportWidth: 320, viewportHeight: 480)
    let far = Float(InputLimits.scrollPosition.upperBound) * 2
    var checked = 0
    for n in [1, 7, 8, 9, 17, 1023] {
      var batch = try ScrollEffectBatch(effect: try .stickyHeader(), capacity: n)
      var out = try FrameOutput(capacity: n)
      let leading = (0..<n).map { Float($0) * 44 - 100 }, extent = [Float](repeating: 44, count: n)
      for bad: Float in [.nan, .infinity, -.infinity, far, -far] {
        var ends = leading.map { $0 + 440 }
        let k = Int(rng.uniform(0...Double(n) - 0.001))
        ends[k] = bad
        var field: String? = nil
        do {
          try leading.withUnsafeBufferPointer { l in
            try extent.withUnsafeBufferPointer { e in
              try ends.withUnsafeBufferPointer { se in
                try batch.evaluate(leading: l, extent: e, crossExtent: 320, sectionEnds: se, scroll: scroll, into: &out)
              }
            }
          }
        } catch let error as CellMotionError {
          switch error {
          case .notFinite(let f, _), .outOfRange(let f, _, _): field = f
          default: field = "\(error)"
          }
        }
        #expect(field == "sectionEnds[\(k)]", "n \(n), \(bad): \(field ?? "no error")")
        checked += 1
      }
    }
    #expect(checked == 6 * 5)
  }
}
