// Scroll-driven effects (issue 33) through the kernel (`ScrollEffectBatch`), beside tip-in
// from the clock (the ratio reference) in the same run.
//
// | variant          | what runs                                                          |
// |------------------|--------------------------------------------------------------------|
// | tipIn            | Kernel.evaluate of tip-in from the clock, SIMD8 (ratio reference)  |
// | edgeFadeScale    | SwiftUI's edge fade and scale (phase timeline, eased keyframes)    |
// | coverFlow        | a horizontal cover flow (centred position, rotation y, depth)      |
// | wheelPicker      | CupertinoPicker's wheel (centred, cylinder matrix, hidden past 90°) |
// | reveal           | CSS view() entry reveal (fade and slide)                           |
// | depthPage        | Android's depth page transformer (hidden beyond a page)            |
//
// Each frame: N cells of 44 points (pages of 300, cover flow items of 180) laid out along
// the axis around a viewport scrolled partway, their places relative to the viewport, the
// timeline pass, the kernel and the fills (everything `ScrollEffectBatch.evaluate` does).
// In such a list nearly every cell lies past the effect's range, held at one of its ends:
// those runs are evaluated once and copied (`ScrollEffectBatch.copiedRuns`), so a list
// costs the timeline pass and a copy per cell. The `-inRange` variants place every cell
// inside the range, away from the identity, neighbours at different places (cells that
// overlap, as no list does): the recipe's work per cell (see KernelScenarios) plus the
// timeline's few operations.

import CellMotion
import CellMotionKernel

enum ScrollEffectScenarios {
  static func effects() throws -> [(String, ScrollEffect, extent: Double, viewport: Double)] {
    [
      ("edgeFadeScale", try .edgeFadeScale(), 44, 640),
      ("coverFlow", try .coverFlow(pitch: 180), 180, 1024),
      ("wheelPicker", try .wheelPicker(viewportExtent: 216, itemExtent: 32), 32, 216),
      ("reveal", try .reveal(), 44, 640),
      ("depthPage", try .depthPage(), 300, 300),
    ]
  }

  static func all(sizes: [Int]?) -> [Scenario] {
    var result: [Scenario] = []
    for n in sizes ?? [KernelScenarios.comparisonSize] {
      result.append(reference(n))
      for (name, effect, extent, viewport) in (try? effects()) ?? [] {
        result.append(scenario(n, name, effect, extent: extent, viewport: viewport))
      }
      for (name, effect, extent, viewport) in (try? effects()) ?? [] {
        result.append(scenario(n, name, effect, extent: extent, viewport: viewport, inRange: true))
      }
    }
    return result
  }

  /// Tip-in from the clock, the group's ratio reference.
  static func reference(_ n: Int) -> Scenario {
    Scenario(
      group: "scroll", variant: "tipIn", cells: n, bytesWrittenPerCell: 72, flopsPerCell: 92, isRatioReference: true,
      note: "Kernel.evaluate of tip-in from the clock, SIMD8<Float>, 1 thread"
    ) {
      let (batch, _) = try KernelScenarios.makeInputs(Recipe.tipIn, n)
      let box = KernelScenarios.OutputBox(try FrameOutput(capacity: n))
      try Kernel.evaluate(batch, at: KernelScenarios.time, into: &box.output)
      return {
        try! Kernel.evaluate(batch, at: KernelScenarios.time, into: &box.output)
        blackHole(box.output.matrices.last)
      }
    }
  }

  static func scenario(
    _ n: Int, _ name: String, _ effect: ScrollEffect, extent: Double, viewport: Double, inRange: Bool = false
  ) -> Scenario {
    Scenario(
      group: "scroll", variant: inRange ? name + "-inRange" : name, cells: n, bytesWrittenPerCell: 68, flopsPerCell: 0,
      note: "ScrollEffectBatch.evaluate of \(name)\(inRange ? ", every cell inside the range" : ", a list"): "
        + "timeline pass, kernel from the progress column, fills"
    ) {
      var batch = try ScrollEffectBatch(effect: effect, capacity: n)
      let vertical = effect.timeline.axis == .vertical
      // The viewport scrolled to the middle of the cells (a list), or not scrolled.
      let offset = inRange ? 0 : Double(n / 2) * extent - viewport / 2
      let extents = [Float](repeating: Float(extent), count: n)
      let scroll = try ScrollState(
        offsetX: vertical ? 0 : offset, offsetY: vertical ? offset : 0, viewportWidth: vertical ? 375 : viewport,
        viewportHeight: vertical ? viewport : 480)
      let cross = vertical ? 375.0 : 480.0
      let leading =
        inRange
        ? try inRangePlaces(effect, n, extent: extent, viewport: viewport, cross: cross, scroll: scroll)
        : (0..<n).map { Float(Double($0) * extent - offset) }
      let box = KernelScenarios.OutputBox(try FrameOutput(capacity: n))
      func frame(_ b: inout ScrollEffectBatch) throws {
        try leading.withUnsafeBufferPointer { l in
          try extents.withUnsafeBufferPointer { e in
            try b.evaluate(leading: l, extent: e, crossExtent: cross, scroll: scroll, into: &box.output)
          }
        }
      }
      try frame(&batch)
      let holder = BatchBox(batch)
      return {
        try! frame(&holder.batch)
        blackHole(box.output.matrices.last)
      }
    }
  }

  /// `n` places along the axis (the viewport not scrolled) where `effect` applies to a cell
  /// of `extent` inside its domain and away from its identity, from a grid of 4,096 places over three viewports'
  /// length, taken in turn (so that neighbouring cells differ).
  static func inRangePlaces(
    _ effect: ScrollEffect, _ n: Int, extent: Double, viewport: Double, cross: Double, scroll: ScrollState
  ) throws -> [Float] {
    let vertical = effect.timeline.axis == .vertical
    var places: [Float] = []
    for k in 0..<4096 {
      let s = -viewport + 3 * viewport * Double(k) / 4096
      let cell =
        vertical
        ? try ScrollCell(x: 0, y: s, width: cross, height: extent) : try ScrollCell(x: s, y: 0, width: extent, height: cross)
      let state = effect.evaluate(cell: cell, scroll: scroll)
      // Inside the domain (a recipe progress strictly between 0 and 1), off the identity.
      guard case .progress(let v) = state.output, 0 < effect.recipeProgress(v), effect.recipeProgress(v) < 1,
        state.transform != .identity || state.opacity != 1
      else { continue }
      places.append(Float(s))
    }
    precondition(!places.isEmpty, "\(effect.name): no place inside its range")
    return (0..<n).map { places[$0 % places.count] }
  }

  /// Holds the batch the timed closure mutates in place.
  final class BatchBox {
    var batch: ScrollEffectBatch
    init(_ batch: ScrollEffectBatch) { self.batch = batch }
  }
}
