// Regression tests for the soak issue's findings at the kernel's boundary: each test
// reproduces one finding through the public API and states the behaviour decided for it
// (numbered as in the issue). Kernel against reference with the differential tests'
// tolerances (`transformTolerance`, `opacityTolerance`, `normalisedError`).

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Soak findings: kernel")
struct KernelFindingsRegressionTests {
  static let geometry = CellGeometry(width: 320, height: 44)

  /// Evaluates cell 0 of a one-recipe batch (origin `origin`, the cell appended with
  /// `start`) at `time` in every lane width, and returns the worst normalised transform
  /// error and opacity error against the reference (NaN counts as infinite).
  static func worstError(
    _ recipe: Recipe, row: Int = 0, start: Double, origin: Double, at time: Double, rowCount: Int? = nil
  ) throws -> (transform: Double, opacity: Double) {
    var worst = (transform: 0.0, opacity: 0.0)
    let ref = ReferenceEvaluator.evaluate(recipe, geometry: geometry, row: row, rowCount: rowCount, startTime: start, time: time)
    for lanes in LaneWidth.allCases {
      var batch = try CellBatch(recipes: [recipe], timeOrigin: origin)
      try batch.append(recipe: 0, row: row, rowCount: rowCount, startTime: start, geometry: geometry)
      var out = try FrameOutput(capacity: 1)
      try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
      let (e, _) = normalisedError(out.transform(ofCell: 0), ref.transform, scale: 320)
      let o = abs(Double(out.opacity[0]) - ref.opacity)
      worst = (worstOf(worst.transform, e), worstOf(worst.opacity, o))
    }
    return worst
  }

  @Test("Finding 2b: a channel delay of 99,999.7 s evaluates within the tolerances (the delay is applied in Double)")
  func longDelay() throws {
    let recipe = Recipe(
      name: "late",
      channels: [
        ChannelAnimation(.translationX, from: 30, to: 0, curve: .bezier(.easeInEaseOut), duration: 0.5, delay: 99_999.7),
        ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.5, delay: 99_999.7),
      ])
    for k in 0..<30 {
      let t = 99_999.5 + Double(k) * 0.03
      let e = try Self.worstError(recipe, start: 0, origin: t, at: t)
      #expect(e.transform <= transformTolerance && e.opacity <= opacityTolerance, "t \(t): \(e)")
    }
  }

  static func blink(repeatCount: Double, delay: Double = 0, secondDelay: Double = 0) -> Recipe {
    Recipe(
      name: "blink",
      channels: [
        ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.3, delay: delay),
        ChannelAnimation(.translationY, from: 40, to: 0, curve: .bezier(.easeInEaseOut), duration: 0.3, delay: secondDelay),
      ],
      timing: RecipeTiming(repeatCount: repeatCount, autoreverses: true))
  }

  @Test("Finding 2c: a timeline longer than CompiledRecipe.maxTimelineDurations is refused; one at the bound is exact")
  func longRepeat() throws {
    // A million autoreversed repeats (still moving 1e5 s after it began), or a channel
    // delayed 100 s after another of 0.3 s: typed errors naming the part.
    for recipe in [Self.blink(repeatCount: 1e6), Self.blink(repeatCount: 1, secondDelay: 100)] {
      do {
        _ = try CellBatch(recipes: [recipe])
        Issue.record("\(recipe.timing) accepted")
      } catch {
        guard case .outOfRange(let field, let value, _) = error else { throw error }
        #expect(field.contains("blink.channels[") && field.contains("timeline") && value > CompiledRecipe.maxTimelineDurations)
      }
      // The reference still evaluates it.
      let ref = ReferenceEvaluator.evaluate(recipe, geometry: Self.geometry, startTime: 0, time: 1e5 + 0.1)
      #expect(ref.isFinite)
    }
    // At the bound (16 autoreversed repeats: 32 durations, 9.6 s), every frame of the last
    // iterations is within the tolerances, the cell started long before the batch's origin.
    let atBound = Self.blink(repeatCount: 16)
    _ = try CompiledRecipe(atBound)
    var worst = (transform: 0.0, opacity: 0.0)
    for k in 0..<40 {
      let t = 8.0 + Double(k) * 0.041
      let e = try Self.worstError(atBound, start: 0, origin: t, at: t)
      #expect(e.transform <= transformTolerance && e.opacity <= opacityTolerance, "t \(t): \(e)")
      worst = (worstOf(worst.transform, e.transform), worstOf(worst.opacity, e.opacity))
    }
    print("Finding 2c: worst errors at the bound \(worst)")
    // A delay every part shares does not count; the same delay on one part alone does.
    _ = try CompiledRecipe(Self.blink(repeatCount: 16, delay: 1e3, secondDelay: 1e3))
    #expect(throws: CellMotionError.self) { try CompiledRecipe(Self.blink(repeatCount: 16, delay: 1e3)) }
  }

  static func spin(from: Double, to: Double, _ channel: Channel = .rotationZ) -> Recipe {
    Recipe(name: "spin", channels: [ChannelAnimation(channel, from: ChannelValue(from), to: ChannelValue(to), curve: .bezier(.easeInEaseOut), duration: 1)])
  }

  @Test("Finding 2d: a z rotation from 0 to 1e6 rad is refused; whole turns of a large constant are exact")
  func hugeRotation() throws {
    #expect(throws: CellMotionError.self) { try CellBatch(recipes: [Self.spin(from: 0, to: 1e6)]) }
    #expect(throws: CellMotionError.self) { try CompiledRecipe(Self.spin(from: 0, to: 70, .rotationX)) }
    // An angle that depends on the geometry is checked for each cell, and by a table for
    // its tallest rows (1e6 points).
    let perHeight = Recipe(
      name: "tilt", channels: [ChannelAnimation(.rotationY, from: .cellHeight(0.01), to: 0, curve: .bezier(.linear), duration: 1)])
    var tilts = try CellBatch(recipes: [perHeight])
    #expect(throws: CellMotionError.self) {
      try tilts.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 320, height: 7e3))
    }
    try tilts.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 320, height: 6e3))
    #expect(tilts.count == 1)
    let e = try Self.worstError(perHeight, start: 0, origin: 0, at: 0.3)
    #expect(e.transform <= transformTolerance)
    // Far from zero but a small span: the constants lose their whole turns in Double, so
    // the kernel agrees with the reference, at every lane width alike.
    var worst = 0.0
    for recipe in [Self.spin(from: 1e6 - 3, to: 1e6), Self.spin(from: -1e6 + 20, to: -1e6 + 0.5, .rotationX), Self.spin(from: 0, to: 60)] {
      for k in 0...40 {
        let t = Double(k) * 0.0271
        let e = try Self.worstError(recipe, start: 0, origin: 0, at: t)
        #expect(e.transform <= transformTolerance, "\(recipe.channels[0]) t \(t): \(e)")
        worst = worstOf(worst, e.transform)
      }
    }
    print("Finding 2d: worst normalised error \(worst)")
  }

  @Test("Finding 2e: retargetFold(to: 1e6) is a typed error; retargets within the angle bound are exact")
  func hugeFoldTarget() throws {
    let g = CellGeometry(width: 320, height: 100, detailHeight: 100)
    var batch = try CellBatch(recipes: [.foldOpen, .flipX])
    try batch.append(recipe: 0, row: 0, startTime: 0, geometry: g)
    try batch.append(recipe: 1, row: 1, startTime: 0, geometry: g)
    let policy = RetargetPolicy.fromCurrentState(curve: .bezier(.linear), duration: 0.3)
    for target in [1e6, -1e3, 45] {
      #expect(throws: CellMotionError.self, "\(target)") { try batch.retargetFold(cell: 0, to: target, at: 0.1, policy: policy) }
    }
    #expect(throws: CellMotionError.self) { try batch.retarget(cell: 1, channel: .rotationX, to: 1e6, at: 0.1, policy: policy) }
    #expect(batch.motions[0] == nil && batch.motions[1] == nil, "nothing changes when it throws")
    try batch.retargetFold(cell: 0, to: 3, at: 0.1, policy: policy)
    try batch.retarget(cell: 1, channel: .rotationX, to: 20, at: 0.1, policy: .carryVelocity(spring: try Spring()))
    var out = try FrameOutput(capacity: 2, includeFold: true)
    for t in [0.15, 0.25, 0.39, 0.6] {
      try Kernel.evaluate(batch, at: t, into: &out)
      let fold = ReferenceEvaluator.evaluate(
        .foldOpen, geometry: g, time: t, retargeted: [], fold: try batch.foldMotion(ofCell: 0))
      let (e, _) = normalisedError(out.foldTopTransform(ofCell: 0), fold.fold!.top, scale: 320)
      #expect(e <= transformTolerance, "fold t \(t): \(e)")
      let flip = ReferenceEvaluator.evaluate(.flipX, geometry: g, row: 1, time: t, retargeted: batch.motions(ofCell: 1))
      let (f, _) = normalisedError(out.transform(ofCell: 1), flip.transform, scale: 320)
      #expect(f <= transformTolerance, "flip t \(t): \(f)")
    }
  }

  @Test("Finding 2f: row 1 << 40 with Stagger(step: 1e5): kernel and reference agree (the start state before the start)")
  func farStaggeredRow() throws {
    let recipe = Recipe(
      name: "far", channels: [ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.5)],
      stagger: Stagger(step: 1e5))
    let ref = ReferenceEvaluator.evaluate(recipe, geometry: Self.geometry, row: 1 << 40, startTime: 0, time: 1)
    #expect(ref.opacity == 0)
    let e = try Self.worstError(recipe, row: 1 << 40, start: 0, origin: 0, at: 1)
    #expect(e.opacity == 0 && e.transform == 0)
  }

  @Test("Finding 5a: append(row: .max) with fadeStagger appends (no overflow in row + 1)")
  func maxRow() throws {
    var batch = try CellBatch(recipes: [.fadeStagger])
    try batch.append(recipe: 0, row: .max, startTime: 0, geometry: Self.geometry)
    var out = try FrameOutput(capacity: 1)
    try Kernel.evaluate(batch, at: 1, into: &out)
    let ref = ReferenceEvaluator.evaluate(.fadeStagger, geometry: Self.geometry, row: .max, startTime: 0, time: 1)
    #expect(Double(out.opacity[0]) == ref.opacity)
  }

  @Test("Finding 5b: huge batch positions and counts with a reversed stagger are typed errors, not traps")
  func maxBatchPosition() throws {
    let reversed = Recipe(
      name: "reversed", channels: Recipe.fadeIn.channels, stagger: Stagger(step: 0.05, base: .batchPosition, reversed: true))
    let byRow = Recipe(name: "reversedRows", channels: Recipe.fadeIn.channels, stagger: Stagger(step: 0.05, reversed: true))
    var batch = try CellBatch(recipes: [reversed, byRow])
    for (position, count) in [(Int.max, Int.max), (Int.max, 5), (Int.max - 1, Int.max)] {
      #expect(throws: CellMotionError.self, "\(position) \(count)") {
        try batch.append(recipe: 0, row: 0, batchPosition: position, batchCount: count, startTime: 0, geometry: Self.geometry)
      }
    }
    for (row, count) in [(Int.max, Int.max), (Int.max, 5)] {
      #expect(throws: CellMotionError.self, "\(row) \(count)") {
        try batch.append(recipe: 1, row: row, rowCount: count, startTime: 0, geometry: Self.geometry)
      }
    }
    #expect(batch.count == 0)
  }

  @Test("Finding 5c: baseRecipe(ofCell:) outside the cells traps naming the index and the range")
  func baseRecipeOutOfRange() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var batch = try CellBatch(recipes: [.fadeIn])
      try batch.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 10, height: 10))
      _ = batch.baseRecipe(ofCell: 99)
    }
    expectTrapMessage(result, "CellBatch: cell index 99 out of range 0..<1")
  }

  @Test("Finding 3: at a vertical tangent's instant the kernel's velocity is the reference's (finite), every lane width")
  func verticalTangentVelocity() throws {
    // cubic-bezier(0, 0.55, 0.45, 1): x'(0) = 0 while y'(0) > 0. The reference reports the
    // mean slope over `TimingCurve.tangentWindow`; the kernel takes the same value there.
    let curve = try TimingCurve(x1: 0, y1: 0.55, x2: 0.45, y2: 1)
    let recipe = Recipe(
      name: "vertical", channels: [ChannelAnimation(.translationY, from: 40, to: 0, curve: .bezier(curve), duration: 0.5)])
    let expected = ReferenceEvaluator.channelVelocities(recipe, geometry: Self.geometry, startTime: 0, time: 0).translationY
    #expect(expected.isFinite && expected != 0)
    for lanes in LaneWidth.allCases {
      var batch = try CellBatch(recipes: [recipe])
      try batch.append(recipe: 0, row: 0, startTime: 0, geometry: Self.geometry)
      var out = try FrameOutput(capacity: 1, includeVelocities: true)
      try Kernel.evaluate(batch, at: 0, into: &out, options: KernelOptions(lanes: lanes))
      let v = Double(out.velocity(.translationY, ofCell: 0))
      #expect(abs(v - expected) <= 1e-4 * max(1, abs(expected)), "\(lanes): kernel \(v), reference \(expected)")
    }
  }
}
