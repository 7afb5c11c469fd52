// Progress as an input (`ProgressSource.progress`): the reference against values worked
// out by hand (tip-in's ease at its symmetric midpoint, fills before and after, a delayed
// channel), and the kernel against the reference for both sources at every lane width and
// the awkward sizes, with the differential tests' tolerances (2e-5 transform entries
// normalised, 1e-5 opacity) and the velocity test's (1e-4 relative to max(1, |v|)).

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Progress as an input")
struct ProgressSourceTests {
  /// Tip-in: opacity 0.8 -> 1 over 0.4 s easeInEaseOut, fill backwards, no other part:
  /// progress f is local time 0.4 f, the time fraction f.
  @Test("Reference: tip-in's opacity and its rate at hand-worked progress values")
  func handWorked() throws {
    let g = CellGeometry(width: 320, height: 80)
    // easeInEaseOut (0.42, 0, 0.58, 1) is symmetric about (0.5, 0.5): y(0.5) = 0.5.
    #expect(abs(try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: 0.5).opacity - 0.9) < 1e-12)
    #expect(try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: 0).opacity == 0.8)
    #expect(try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: 1).opacity == 1)
    // Before the start the backwards fill holds the start value; after the end no forward
    // fill: the model value (the end value) shows.
    #expect(try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: -0.5).opacity == 0.8)
    #expect(try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: 1.5).opacity == 1)
    // d(opacity)/df at f = 0.5: 0.2 x y'(s)/x'(s) at s = 0.5 (local time 0.4 f, so dx/df = 1):
    // x'(0.5) = 3/4 (0.42 + 0.42) + 6/4 (0.58 - 0.42) = 0.87, y'(0.5) = 6/4 = 1.5.
    let v = try ReferenceEvaluator.channelVelocities(.tipIn, geometry: g, progress: 0.5)
    #expect(abs(v.opacity - 0.2 * 1.5 / 0.87) < 1e-9, "\(v.opacity)")
    // The start transform: Rotate(-15 deg) then Translate(-20, -20), as the clock at the start.
    let start = try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: 0).transform
    let clock = ReferenceEvaluator.evaluate(.tipIn, geometry: g, time: 0).transform
    #expect(start == clock)
  }

  @Test("Reference: a delayed channel waits for its part of the timeline; stagger adds nothing")
  func delayedChannel() throws {
    // Opacity 0 -> 1 over [0.2, 0.4] s, translation over [0, 0.4] s: the timeline is 0.4 s.
    let recipe = Recipe(
      name: "delayed",
      channels: [
        ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.linear), duration: 0.2, delay: 0.2),
        ChannelAnimation(.translationY, from: 40, to: 0, curve: .bezier(.linear), duration: 0.4),
      ],
      stagger: Stagger(step: 0.05), timing: RecipeTiming(fillMode: .both))
    let g = CellGeometry(width: 320, height: 80)
    let quarter = try ReferenceEvaluator.channelValues(recipe, geometry: g, progress: 0.25)
    #expect(quarter.opacity == 0)  // local 0.1 s: before the opacity's start, filled backwards
    #expect(abs(quarter.translationY - 30) < 1e-12)
    let threeQuarters = try ReferenceEvaluator.channelValues(recipe, geometry: g, progress: 0.75)
    #expect(abs(threeQuarters.opacity - 0.5) < 1e-12)
    #expect(abs(threeQuarters.translationY - 10) < 1e-12)
    // Per unit of progress: the translation's -40 over the whole timeline; the opacity
    // still before its start at f = 0.25, then 1 per 0.2 s = 2 per unit of progress.
    let early = try ReferenceEvaluator.channelVelocities(recipe, geometry: g, progress: 0.25)
    #expect(abs(early.translationY + 40) < 1e-9)
    #expect(early.opacity == 0)
    let late = try ReferenceEvaluator.channelVelocities(recipe, geometry: g, progress: 0.75)
    #expect(abs(late.opacity - 2) < 1e-9)
  }

  @Test("Bad progress and bad uses are typed errors")
  func errors() throws {
    let g = CellGeometry(width: 320, height: 80)
    #expect(throws: CellMotionError.self) { try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: .nan) }
    #expect(throws: CellMotionError.self) { try ReferenceEvaluator.evaluate(.tipIn, geometry: g, progress: 1e9) }
    var batch = try CellBatch(recipes: [.tipIn], capacity: 2, source: .progress)
    #expect(throws: CellMotionError.self) { try batch.append(recipe: 0, row: 0, startTime: 0, geometry: g) }
    #expect(throws: CellMotionError.self) { try batch.append(recipe: 0, row: 0, progress: .infinity, geometry: g) }
    try batch.append(recipe: 0, row: 0, progress: 0.3, geometry: g)
    #expect(throws: CellMotionError.self) { try batch.setProgress(.nan, ofCell: 0) }
    #expect(throws: CellMotionError.self) { try batch.setProgress(0.5, ofCell: 1) }
    let bad: [Float] = [0.5, .nan]
    #expect(throws: CellMotionError.self) { try bad.withUnsafeBufferPointer { try batch.setProgress($0) } }
    #expect(Array(batch.progress) == [0.3])  // nothing changed by the refused calls
    #expect(throws: CellMotionError.self) {
      try batch.retarget(cell: 0, channel: .opacity, to: 0.5, at: 0, policy: .additive(curve: .bezier(.linear), duration: 0.2))
    }
    var clock = try CellBatch(recipes: [.tipIn], capacity: 1)
    #expect(throws: CellMotionError.self) { try clock.append(recipe: 0, row: 0, progress: 0.5, geometry: g) }
    // A timeline longer than the Float window the tolerances need.
    let long = Recipe(
      name: "long", channels: [ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.linear), duration: 20)])
    #expect(throws: CellMotionError.self) { try CellBatch(recipes: [long], source: .progress) }
  }

  @Test("Kernel vs reference, both sources, every lane width, sizes 0, 1, 7, 9, 1023")
  func kernelAgainstReference() throws {
    var g = SeededGenerator(seed: 0x9_50C)
    var c = Comparison("progress source")
    var velocity = ErrorTracker("progress source velocity (relative to max(1, |v|))", tolerance: 1e-4)
    var recipes = Recipe.presets
    for k in 0..<Sweep.count(quick: 3, full: 12) { recipes.append(try randomRecipe(&g, name: "random\(k)")) }
    for k in 0..<Sweep.count(quick: 2, full: 6) { recipes.append(try randomKeyframeRecipe(&g, name: "keys\(k)")) }
    for n in [0, 1, 7, 9, 1023] {
      // One batch of every recipe in runs, cells at progress values either side of [0, 1].
      var batch = try BatchPrototypes.batch(recipes, capacity: n, source: .progress)
      var cells: [(recipe: Int, progress: Double, geometry: CellGeometry)] = []
      var recipe = 0
      for i in 0..<n {
        if g.next() % 7 == 0 { recipe = Int(g.next() % UInt64(recipes.count)) }
        let geometry = CellGeometry(
          width: g.uniform(100...800), height: g.uniform(20...300), tableWidth: g.uniform(100...800),
          detailHeight: g.uniform(20...400))
        // Exact in Float, so the kernel's input is the reference's.
        let f = Double(Float(g.uniform(-0.3...1.3)))
        cells.append((recipe, f, geometry))
        try batch.append(recipe: recipe, row: i, progress: f, geometry: geometry)
      }
      for lanes in LaneWidth.allCases {
        var out = try FrameOutput(capacity: n, includeFold: true, includeCorners: true, includeVelocities: true)
        try Kernel.evaluate(batch, at: 0, into: &out, options: KernelOptions(lanes: lanes))
        for (i, cell) in cells.enumerated() {
          let r = recipes[cell.recipe]
          let context = "\(r.name) cell \(i) f=\(cell.progress) \(lanes)"
          let ref = try ReferenceEvaluator.evaluate(r, geometry: cell.geometry, progress: cell.progress)
          let scale = max(cell.geometry.width, cell.geometry.height, cell.geometry.tableWidth)
          var (e, _) = normalisedError(out.transform(ofCell: i), ref.transform, scale: scale)
          if e > transformTolerance {
            // As the clock's tests: within the Float rounding of the cell's time (1 us of
            // its timeline) the reference may move fast or jump; take the range it spans.
            let span = r.activeDuration, df = span > 0 ? CellSpec.clockWindow / span : 0
            let near = try [-df, df].map {
              try ReferenceEvaluator.evaluate(r, geometry: cell.geometry, progress: cell.progress + $0).transform
            }
            e = min(e, bracketError(out.transform(ofCell: i), near + [ref.transform], scale: scale).0)
          }
          c.transform.record(e, 0, context)
          c.opacity.record(Double(out.opacity[i]), ref.opacity, context)
          c.opacity.record(Double(out.shadowOpacity[i]), ref.shadowOpacity, "shadow " + context)
          if let fold = ref.fold {
            let s = max(cell.geometry.width, cell.geometry.detailHeight ?? 0)
            let (et, _) = normalisedError(out.foldTopTransform(ofCell: i), fold.top, scale: s)
            let (eb, _) = normalisedError(out.foldBottomTransform(ofCell: i), fold.bottom, scale: s)
            c.fold.record(worstOf(et, eb), 0, "fold " + context)
          }
          let v = try ReferenceEvaluator.channelVelocities(r, geometry: cell.geometry, progress: cell.progress)
          for channel in Channel.allCases {
            let k = Double(out.velocity(channel, ofCell: i)), rv = v[channel]
            var err = abs(k - rv) / max(1, abs(rv))
            if err > velocity.tolerance {
              // Where the velocity jumps (a part starting or ending) within the rounding
              // window, take the range either side.
              let span = r.activeDuration, df = span > 0 ? CellSpec.clockWindow / span : 0
              let near = try [-df, df].map {
                try ReferenceEvaluator.channelVelocities(r, geometry: cell.geometry, progress: cell.progress + $0)[channel]
              }
              let lo = min(rv, near.min()!), hi = max(rv, near.max()!)
              err = distanceOutside(k, lo, hi) / max(1, abs(rv))
            }
            velocity.record(err, 0, "\(channel) " + context)
          }
        }
      }
    }
    c.expectAllPassed()
    print(velocity)
    #expect(velocity.passed || velocity.count == 0, "\(velocity)")
    #expect(velocity.count > 0)
  }

  @Test("The clock and a progress at the same place give the same cells")
  func sourcesAgree() throws {
    // A tip-in cell started at 0 seen at t = 0.1 s is at progress 0.25 of its 0.4 s: the
    // two batches' kernels agree within the tolerance (their Float arithmetic differs).
    let g = CellGeometry(width: 375, height: 88)
    var clock = try CellBatch(recipes: [.tipIn, .moveUpBounce], capacity: 2)
    try clock.append(recipe: 0, row: 0, startTime: 0, geometry: g)
    try clock.append(recipe: 1, row: 0, startTime: 0, geometry: g)
    var driven = try CellBatch(recipes: [.tipIn, .moveUpBounce], capacity: 2, source: .progress)
    try driven.append(recipe: 0, row: 0, progress: 0.1 / Recipe.tipIn.activeDuration, geometry: g)
    try driven.append(recipe: 1, row: 0, progress: 0.1 / Recipe.moveUpBounce.activeDuration, geometry: g)
    for lanes in LaneWidth.allCases {
      var a = try FrameOutput(capacity: 2), b = try FrameOutput(capacity: 2)
      try Kernel.evaluate(clock, at: 0.1, into: &a, options: KernelOptions(lanes: lanes))
      try Kernel.evaluate(driven, at: 0, into: &b, options: KernelOptions(lanes: lanes))
      for i in 0..<2 {
        #expect(normalisedError(a.transform(ofCell: i), b.transform(ofCell: i), scale: 375).0 <= transformTolerance)
        #expect(abs(a.opacity[i] - b.opacity[i]) <= Float(opacityTolerance))
      }
    }
    // setProgress moves the cells: at progress 1 both show their end.
    try [Float(1), 1].withUnsafeBufferPointer { try driven.setProgress($0) }
    var end = try FrameOutput(capacity: 2)
    try Kernel.evaluate(driven, at: 0, into: &end)
    #expect(normalisedError(end.transform(ofCell: 0), .identity, scale: 375).0 <= transformTolerance)
    #expect(end.opacity[0] == 1)
  }
}
