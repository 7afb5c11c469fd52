// The 2D affine output layout (6 Floats per cell, CGAffineTransform order): against the
// scalar reference with the differential tests' tolerance, bit-identical to the six
// entries of the 16-Float layout, at every lane width and the awkward sizes; refused for
// recipes that do not stay affine.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Affine 2D output layout")
struct AffineLayoutTests {
  /// Planar presets and random recipes that compile to the planar path.
  func planarRecipes(_ g: inout SeededGenerator) throws -> [Recipe] {
    var recipes = try Recipe.presets.filter { try CompiledRecipe($0).isPlanar && $0.fold == nil }
    #expect(recipes.map(\.name).contains("tipIn"))
    var k = 0
    while recipes.count < 14 {
      let r = try randomRecipe(&g, name: "planar\(k)")
      k += 1
      if r.fold == nil, try CompiledRecipe(r).isPlanar { recipes.append(r) }
    }
    return recipes
  }

  @Test("Matches the reference and the 16-Float layout, every lane width, awkward sizes", arguments: LaneWidth.allCases)
  func matches(lanes: LaneWidth) throws {
    var g = SeededGenerator(seed: 0xAFF1 + UInt64(lanes.rawValue.count))
    let recipes = try planarRecipes(&g)
    var transform = ErrorTracker("affine vs reference (normalised, \(lanes))", tolerance: transformTolerance)
    var checked = 0
    // 4097 cells (several blocks and a tail) in the exhaustive sweep only.
    let sizes = Sweep.pick(quick: [0, 1, 7, 9, 17, 1023], full: [0, 1, 7, 9, 17, 1023, 4097])
    for n in sizes {
      var batch = try BatchPrototypes.batch(recipes, capacity: n)
      var specs: [(recipe: Int, row: Int, start: Double, geometry: CellGeometry)] = []
      var recipe = Int(g.next() % UInt64(recipes.count))
      for i in 0..<n {
        if g.next() % 11 == 0 { recipe = Int(g.next() % UInt64(recipes.count)) }
        let w = g.uniform(100...800)
        let geometry = CellGeometry(width: w, height: g.uniform(20...300), tableWidth: g.uniform(100...800))
        let start = g.uniform(0...1)
        specs.append((recipe, i, start, geometry))
        try batch.append(recipe: recipe, row: i, rowCount: n, batchCount: 1, startTime: start, geometry: geometry)
      }
      // Sentinels past the batch: the affine store must write exactly 6 Floats per cell.
      var affine = try FrameOutput(capacity: n + 3, layout: .affine2D, includeFold: false)
      for k in (6 * n)..<(6 * (n + 3)) { affine.matrices[k] = -7 }
      var full = try FrameOutput(capacity: n, includeFold: false)
      for time in [-0.2, 0.1, 0.3, 0.7, 2.0] {
        try Kernel.evaluate(batch, at: time, into: &affine, options: KernelOptions(lanes: lanes))
        try Kernel.evaluate(batch, at: time, into: &full, options: KernelOptions(lanes: lanes))
        for (i, s) in specs.enumerated() {
          let six = Array(affine.matrices[(6 * i)..<(6 * i + 6)])
          let m = full.matrices[(16 * i)..<(16 * i + 16)].map { $0 }
          #expect(six == [m[0], m[1], m[4], m[5], m[12], m[13]], "cell \(i) n \(n) t \(time) \(lanes)")
          let ref = ReferenceEvaluator.evaluate(
            recipes[s.recipe], geometry: s.geometry, row: s.row, rowCount: n, batchCount: 1, startTime: s.start, time: time)
          let scale = max(s.geometry.width, s.geometry.height, s.geometry.tableWidth)
          let (e, at) = normalisedError(affine.transform(ofCell: i), ref.transform, scale: scale)
          transform.record(e, 0, "seed \(g.seed) \(recipes[s.recipe].name) cell \(i) t \(time) entry \(at)")
          checked += 1
        }
        #expect(affine.matrices[(6 * n)...].allSatisfy { $0 == -7 }, "wrote past the batch (n \(n))")
      }
    }
    print(transform)
    #expect(checked == 5 * sizes.reduce(0, +))
    #expect(transform.passed, "\(transform)")
  }

  @Test("Recipes that are not affine are a typed error; the 16-Float layout takes them")
  func refusesNonAffine() throws {
    for recipe in [Recipe.flipX, .flipY, .foldOpen] where !(try CompiledRecipe(recipe).isPlanar) {
      var batch = try CellBatch(recipes: [.tipIn, recipe])
      try batch.append(recipe: 1, row: 0, startTime: 0, geometry: CellGeometry(width: 320, height: 80))
      var out = try FrameOutput(capacity: 1, layout: .affine2D)
      do {
        try Kernel.evaluate(batch, at: 0.1, into: &out)
        Issue.record("\(recipe.name) was written in the affine layout")
      } catch {
        guard case .invalidCombination(let field, let reason) = error else {
          Issue.record("expected invalidCombination, got \(error)")
          continue
        }
        #expect(field == "FrameOutput.layout" && reason.contains(recipe.name))
      }
      var full = try FrameOutput(capacity: 1)
      try Kernel.evaluate(batch, at: 0.1, into: &full)
    }
    #expect(MatrixLayout.affine2D.floatsPerCell == 6 && MatrixLayout.transform3D.floatsPerCell == 16)
  }
}
