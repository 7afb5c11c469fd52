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
      var o = abs(Double(out.opacity[0]) - ref.opacity)
      if o.isNaN { o = .infinity }
      worst.transform = e > worst.transform || e.isNaN ? (e.isNaN ? .infinity : e) : worst.transform
      worst.opacity = o > worst.opacity ? o : worst.opacity
    }
    return worst
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

  static func spin(from: Double, to: Double, _ channel: Channel = .rotationZ) -> Recipe {
    Recipe(name: "spin", channels: [ChannelAnimation(channel, from: ChannelValue(from), to: ChannelValue(to), curve: .bezier(.easeInEaseOut), duration: 1)])
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
}
