// Kernel scenarios: every preset through Kernel.evaluate at N = 100 ... 1,000,000 cells,
// and, side by side in the same run, the same frame through slower formulations:
//
// | variant          | what runs                                                         |
// |------------------|-------------------------------------------------------------------|
// | simd8            | Kernel.evaluate, SIMD8<Float> lanes, one thread (ratio reference)  |
// | simd4            | Kernel.evaluate, SIMD4<Float> lanes, one thread                    |
// | simd8-affine     | Kernel.evaluate, SIMD8, one thread, 6-Float affine output layout   |
// |                  | (planar presets only: tip-in at every size, the rest at 10,000)    |
// | simd8-2threads   | Kernel.evaluate, SIMD8, 2 threads (concurrentPerform), N >= 16384  |
// | progress-input   | Kernel.evaluate, SIMD8, one thread, each cell's progress from a    |
// |                  | column (ProgressSource.progress) at the clock's places             |
// | reference-float  | FloatReference: the reference's algorithm per cell, in Float       |
// | reference-double | ReferenceEvaluator (the semantics, Double), result rounded to Float |
//
// Inputs: cell i has row i, start time uniform in [0, 0.8] s, width 320...430 pt, height
// 44...120 pt; the frame is at t = 0.5 s, so cells are before, during and after their
// animation (the kernel has no per-lane branches, so the mix does not change its cost).
//
// Work per cell, counted by hand from Kernel+Lanes.swift (mul, add, sub, div, sqrt, min,
// max count 1 each; an FMA counts 2; selects and compares count 0), for the path each
// preset compiles to (`cellmotion inspect <preset>` shows it). Parts:
//
// | part                                                        | flops   |
// |-------------------------------------------------------------|---------|
// | local time (one FMA), clamp to [0, 1]                       | 5       |
// | Bezier, fitted inverse (easeInEaseOut: degree 7, 1 correction): t, t^2, t^4 5, P and P' by Estrin 26, correction 9, y 5 | 45 |
// | Bezier, Newton (easeOut): quadratic guess 12, 3 safeguarded steps x 13, y 6 | 57 |
// | spring, underdamped: exp (13) + sincos (24) + 6             | 43      |
// | opacity lerp and clamp                                      | 4       |
// | channel lerp (from/to with height, width)                   | 10      |
// | sincos per rotation (sincosSmall within pi/4: 17)           | 24      |
// | channel matrix S*Rz (+ Rx Ry when present)                  | 6 (+45) |
// | 2D recompose, tip-in's shape (angle lerp, sincosSmall, tx ty lerps, sign) | 24 |
// | product channels x matrix (4x4 general)                     | 112     |
// | perspective                                                 | 8       |
// | anchor, planar (4 mul, 4 FMA, 2 add) / general 4x4          | 14 / 24 |
// | fold halves (sincos + 30)                                   | 54      |
//
// | preset        | parts                                                       | flops | bytes |
// |---------------|-------------------------------------------------------------|-------|-------|
// | tipIn         | local + fitted Bezier + opacity + 2D recompose + anchor     | 92    | 72    |
// | tipInChannels | local + fitted Bezier + 3 lerps (6) + opacity + sincosSmall + S*Rz + translate-first (6) + anchor | 103 | 72 |
// | fade, fadeIn  | local + fitted Bezier + opacity + anchor                    | 68    | 8     |
// | fadeStagger   | as fade                                                     | 68    | 8     |
// | moveUpBounce  | local + spring + lerp + anchor                              | 72    | 72    |
// | moveUpFade    | local + fitted Bezier + lerp + opacity + anchor             | 78    | 72    |
// | slideIn       | local + fitted Bezier + lerp + anchor                       | 74    | 72    |
// | foldOpen/Closed | local + fitted Bezier + general anchor + fold halves      | 128   | 140   |
// | flipX, flipY  | local + Newton Bezier + lerp + sincos + Rx Ry Rz + persp + general anchor | 174 | 72 |
// | gridCascade   | local + Newton Bezier (easeOut) + scale lerp + opacity + S*Rz + anchor | 96 | 72 |
// | reverseFade   | as fade (the stagger order is applied once, when a cell is added) | 68 | 8 |
//
// Bytes written per cell: 64 (matrix) + 4 (opacity) + 4 (shadow opacity); fold recipes
// add 2 x 64 (halves) + 4 (fold shadow); the affine layout writes 24 + 4 + 4 = 32. The
// fades' and folds' cells never move: after a scenario's first frame their identity
// matrices are already in the output (`FrameOutput` keeps that record) and no frame
// writes them again, so their bytes have no matrix (fade 8, fold 140, either layout). The
// fold's 140 count whole output lines: with AVX its stores skip the halves' constant rows
// (92 bytes stored), but those share cache lines with the rows stored.

import CellMotion
import CellMotionKernel

enum KernelScenarios {
  static let sizes = [100, 1_000, 10_000, 100_000, 1_000_000]
  /// Sizes at which the slower formulations run beside SIMD8 for every preset; tip-in gets
  /// them at every size up to `slowVariantCap`.
  static let comparisonSize = 10_000
  /// The Double and Float references cost ~0.1-1 us per cell: capped so the default run
  /// stays under 2 minutes.
  static let slowVariantCap = 100_000
  static let time = 0.5

  /// Presets whose cells nothing moves: the kernel writes their identity matrices on the
  /// first frame into an output and not again (`FrameOutput`'s record).
  static let stillPresets: Set<String> = ["fade", "fadeIn", "fadeStagger", "reverseFade", "foldOpen", "foldClosed"]

  /// Hand counts from the table above, by preset name.
  static func work(_ name: String) -> (flops: Int, bytes: Int) {
    switch name {
    case "tipIn": (92, 72)
    case "tipInChannels": (103, 72)
    case "fade", "fadeIn", "fadeStagger", "reverseFade": (68, 8)
    case "gridCascade": (96, 72)
    case "slideIn": (74, 72)
    case "moveUpBounce": (72, 72)
    case "moveUpFade": (78, 72)
    case "foldOpen", "foldClosed": (128, 140)
    case "flipX", "flipY": (174, 72)
    default: (0, 72)
    }
  }

  enum Variant: String, CaseIterable {
    case simd8, simd4
    case simd8Affine = "simd8-affine"
    case simd8TwoThreads = "simd8-2threads"
    case progressInput = "progress-input"
    case referenceFloat = "reference-float"
    case referenceDouble = "reference-double"
  }

  static func all(sizes: [Int]?) -> [Scenario] {
    var result: [Scenario] = []
    for recipe in Recipe.presets {
      for n in sizes ?? Self.sizes {
        for v in Variant.allCases where included(v, recipe: recipe.name, n: n, explicitSizes: sizes != nil) {
          result.append(scenario(recipe, n, v))
        }
      }
    }
    return result
  }

  /// The default set: SIMD8 everywhere; the other variants at N = 10,000 for every preset
  /// and at every size up to the cap for tip-in; two threads only where the kernel splits.
  static func included(_ v: Variant, recipe: String, n: Int, explicitSizes: Bool) -> Bool {
    switch v {
    case .simd8: return true
    case .simd8Affine:
      return (recipe == "tipIn" || n == comparisonSize || explicitSizes)
        && ((try? CompiledRecipe(Recipe.preset(named: recipe)).isPlanar) ?? false)
        && recipe != "foldOpen" && recipe != "foldClosed"
    case .simd8TwoThreads: return n >= KernelOptions().parallelThreshold && (recipe == "tipIn" || explicitSizes)
    case .simd4:
      return recipe == "tipIn" || n == comparisonSize || explicitSizes
    case .progressInput:
      return (recipe == "tipIn" || n == comparisonSize || explicitSizes)
        && ((try? Recipe.preset(named: recipe).activeDuration) ?? .infinity) <= CellBatch.precisionWindow
    case .referenceFloat:
      return n <= slowVariantCap && (recipe == "tipIn" || n == comparisonSize || explicitSizes)
        && ((try? FloatReference.supports(Recipe.preset(named: recipe))) ?? false)
    case .referenceDouble:
      return n <= slowVariantCap && (recipe == "tipIn" || n == comparisonSize || explicitSizes)
    }
  }

  /// `n` cells of one recipe with the inputs described in the header: the batch, and the
  /// same cells as the references take them (display start before stagger).
  /// Cell i's display start (s), width and height (pt), as described in the header: the one
  /// source of inputs for every tip-in variant, the GLM baseline included.
  static func cellInput(_ rng: inout BenchRandom) -> (start: Float, width: Float, height: Float) {
    let start = rng.float(0, 0.8), width = rng.float(320, 430), height = rng.float(44, 120)
    return (start, width, height)
  }
  static let inputSeed: UInt64 = 11

  static func makeInputs(_ recipe: Recipe, _ n: Int) throws -> (batch: CellBatch, cells: FloatReference.Cells) {
    var batch = try CellBatch(recipes: [recipe], capacity: n)
    var cells = FloatReference.Cells(
      start: [], row: [], batchPosition: [], width: [], height: [], tableWidth: [], detailHeight: [])
    var rng = BenchRandom(seed: inputSeed)
    for i in 0..<n {
      let (start, width, height) = cellInput(&rng)
      try batch.append(
        recipe: 0, row: i, batchPosition: i % 16, rowCount: n, batchCount: 16, startTime: Double(start),
        geometry: CellGeometry(
          width: Double(width), height: Double(height), tableWidth: Double(width), detailHeight: Double(height)))
      cells.start.append(start)
      cells.row.append(i)
      cells.batchPosition.append(i % 16)
      cells.width.append(width)
      cells.height.append(height)
      cells.tableWidth.append(width)
      cells.detailHeight.append(height)
    }
    return (batch, cells)
  }

  static func scenario(_ recipe: Recipe, _ n: Int, _ v: Variant) -> Scenario {
    let (flops, fullBytes) = work(recipe.name)
    // The affine layout saves 40 bytes where a frame writes matrices (not for cells that
    // never move, whose matrices are written once).
    let bytes = v == .simd8Affine && !stillPresets.contains(recipe.name) ? fullBytes - 40 : fullBytes
    let note: String
    switch v {
    case .simd8: note = "Kernel.evaluate, SIMD8<Float>, 1 thread"
    case .simd8Affine: note = "Kernel.evaluate, SIMD8<Float>, 1 thread, affine2D layout (6 Floats per cell)"
    case .simd4: note = "Kernel.evaluate, SIMD4<Float>, 1 thread"
    case .simd8TwoThreads: note = "Kernel.evaluate, SIMD8<Float>, 2 threads"
    case .progressInput: note = "Kernel.evaluate, SIMD8<Float>, 1 thread, progress per cell from a column"
    case .referenceFloat: note = "the reference algorithm per cell in Float (FloatReference)"
    case .referenceDouble: note = "ReferenceEvaluator in Double, stored as Float"
    }
    return Scenario(
      group: recipe.name, variant: v.rawValue, cells: n, bytesWrittenPerCell: bytes, flopsPerCell: flops,
      isRatioReference: v == .simd8, note: note
    ) {
      let (batch, cells) = try makeInputs(recipe, n)
      switch v {
      case .simd8, .simd4, .simd8TwoThreads, .simd8Affine:
        let lanes: LaneWidth = v == .simd4 ? .simd4 : .simd8
        let options = KernelOptions(lanes: lanes, threads: v == .simd8TwoThreads ? 2 : 1)
        let layout: MatrixLayout = v == .simd8Affine ? .affine2D : .transform3D
        let box = OutputBox(try FrameOutput(capacity: n, layout: layout, includeFold: recipe.fold != nil))
        try Kernel.evaluate(batch, at: time, into: &box.output, options: options)
        return {
          try! Kernel.evaluate(batch, at: time, into: &box.output, options: options)
          blackHole(box.output.matrices.last)
        }
      case .progressInput:
        // The same cells at the same places on their timelines as the clock's frame at
        // `time`: progress (time - start) / activeDuration.
        var driven = try CellBatch(recipes: [recipe], capacity: n, source: .progress)
        let span = recipe.activeDuration
        for i in 0..<n {
          try driven.append(
            recipe: 0, row: i, progress: span > 0 ? (time - Double(cells.start[i])) / span : 1,
            geometry: CellGeometry(
              width: Double(cells.width[i]), height: Double(cells.height[i]), tableWidth: Double(cells.tableWidth[i]),
              detailHeight: Double(cells.detailHeight[i])))
        }
        let box = OutputBox(try FrameOutput(capacity: n, includeFold: recipe.fold != nil))
        try Kernel.evaluate(driven, at: time, into: &box.output)
        return {
          try! Kernel.evaluate(driven, at: time, into: &box.output)
          blackHole(box.output.matrices.last)
        }
      case .referenceFloat:
        var reference = try FloatReference(recipe)
        reference.staggerCounts.rows = n
        let out = FloatBuffer(count: 16 * n), opacity = FloatBuffer(count: n)
        return {
          reference.evaluate(cells, time: Float(time), matrices: out.pointer, opacity: opacity.pointer)
          blackHole(out.pointer.last)
        }
      case .referenceDouble:
        let out = FloatBuffer(count: 16 * n), opacity = FloatBuffer(count: n)
        let geometry = (0..<n).map {
          CellGeometry(
            width: Double(cells.width[$0]), height: Double(cells.height[$0]),
            tableWidth: Double(cells.tableWidth[$0]), detailHeight: Double(cells.detailHeight[$0]))
        }
        return {
          for i in 0..<n {
            let s = ReferenceEvaluator.evaluate(
              recipe, geometry: geometry[i], row: cells.row[i], batchPosition: cells.batchPosition[i], rowCount: n,
              batchCount: 16, startTime: Double(cells.start[i]), time: time)
            for k in 0..<16 { out.pointer[16 * i + k] = Float(s.transform[k / 4, k % 4]) }
            opacity.pointer[i] = Float(s.opacity)
          }
          blackHole(out.pointer.last)
        }
      }
    }
  }

  /// Holds a FrameOutput the timed closure mutates in place (no copy, no allocation).
  final class OutputBox {
    var output: FrameOutput
    init(_ output: FrameOutput) { self.output = output }
  }
}
