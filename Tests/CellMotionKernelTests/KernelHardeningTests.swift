// The kernel's side of the accepted-input rule: inputs that pass validation give finite
// outputs at every lane width; times far from the batch's origin are refused rather than
// evaluated imprecisely; rebasing is exact.

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Kernel hardening")
struct KernelHardeningTests {
  /// An extreme recipe (`extremeRecipe`) the kernel accepts: its timelines within
  /// `CompiledRecipe.maxTimelineDurations`, its constant angles within `maximumAngle`
  /// (the kernel refuses the others with a typed error: the reference evaluates them).
  static func kernelRecipe(_ g: inout SeededGenerator, name: String) -> Recipe {
    while true {
      let r = g.extremeRecipe(name: name)
      if (try? CompiledRecipe(r)) != nil { return r }
    }
  }

  /// Recipes and geometries from the whole range the kernel accepts (ends included)
  /// evaluate to finite matrices, fold halves and corners, and opacities in [0, 1], at
  /// every lane width and the awkward sizes, at times before, during and long after the
  /// animations. (A cell whose geometry turns a geometry-dependent rotation beyond
  /// `CompiledRecipe.maximumAngle` is refused by `append`, with a typed error.)
  @Test("Property: accepted extreme inputs give finite kernel output", arguments: LaneWidth.allCases)
  func finiteOutputs(lanes: LaneWidth) throws {
    var g = SeededGenerator(seed: 0xF1_7174)
    let recipes = (0..<24).map { Self.kernelRecipe(&g, name: "x\($0)") }
    var checkedCells = 0, cells = 0
    for n in [0, 1, 7, 9, 1023] {
      let origin = g.extreme(-1e6...1e6)
      var batch = try BatchPrototypes.batch(recipes, capacity: n, timeOrigin: origin)
      var recipe = 0
      for i in 0..<n {
        if g.next() % 5 == 0 { recipe = Int(g.next() % UInt64(recipes.count)) }
        let geometry = g.extremeGeometry()
        do {
          try batch.append(
            recipe: recipe, row: Int(g.next() % 100_000), batchPosition: i % 9,
            startTime: origin + g.extreme(-1e5...1e5), geometry: geometry)
        } catch {
          guard case .outOfRange(let field, _, _) = error, field.contains("largest angle") else { throw error }
          #expect(batch.recipes[recipe].angleReaches.contains { $0.at(geometry) > CompiledRecipe.maximumAngle })
        }
      }
      let n = batch.count
      cells += n
      var out = try FrameOutput(capacity: n, includeFold: true, includeCorners: true)
      for _ in 0..<4 {
        let t = origin + g.uniform(-CellBatch.precisionWindow...CellBatch.precisionWindow)
        try Kernel.evaluate(batch, at: t, into: &out, options: KernelOptions(lanes: lanes))
        for i in 0..<n {
          let m = out.matrices[(16 * i)..<(16 * i + 16)]
          let fold = out.foldTop[(16 * i)..<(16 * i + 16)] + out.foldBottom[(16 * i)..<(16 * i + 16)]
          let corners = out.corners[(8 * i)..<(8 * i + 8)]
          let ok =
            m.allSatisfy(\.isFinite) && fold.allSatisfy(\.isFinite) && corners.allSatisfy(\.isFinite)
            && (0...1).contains(out.opacity[i]) && (0...1).contains(out.shadowOpacity[i])
            && (0...1).contains(out.foldShadow[i])
          #expect(ok, "seed \(g.seed) n \(n) cell \(i) recipe \(recipes[Int(batch.recipeIndex[i])]) t \(t) \(lanes)")
          if !ok { return }
          checkedCells += 1
        }
      }
    }
    #expect(checkedCells == 4 * cells && cells > 1000, "\(cells) cells")
  }

  /// Issue reproduction: a start time near 1e9 with timeOrigin 0 gave opacity 0.0 where
  /// the reference gives 0.332 (0.2 s into fadeIn). Now the kernel refuses the time;
  /// rebased, it agrees. (1e9 s itself is the end of `InputLimits.time`.)
  @Test("Times beyond the precision window are refused; rebased batches agree with the reference")
  func precisionWindow() throws {
    let geometry = CellGeometry(width: 375, height: 80)
    var batch = try CellBatch(recipes: [.fadeIn])
    let start = 1e9 - 1
    try batch.append(recipe: 0, row: 0, startTime: start, geometry: geometry)
    var out = try FrameOutput(capacity: 1)
    let t = start + 0.2
    #expect(throws: CellMotionError.self) { try Kernel.evaluate(batch, at: t, into: &out) }
    do {
      try Kernel.evaluate(batch, at: t, into: &out)
    } catch {
      guard case .outOfRange(let field, _, _) = error else {
        Issue.record("expected outOfRange, got \(error)")
        return
      }
      #expect(field == "time - batch.timeOrigin")
    }
    try batch.rebase(to: t)
    try Kernel.evaluate(batch, at: t, into: &out)
    let ref = ReferenceEvaluator.evaluate(.fadeIn, geometry: geometry, startTime: start, time: t).opacity
    #expect(abs(ref - 0.332) < 1e-3)
    #expect(abs(Double(out.opacity[0]) - ref) <= 1e-5)
  }

  /// Rebasing recomputes relative starts from the exact Double starts: after any sequence
  /// of rebases the Floats equal those of a batch built with the final origin (before,
  /// each rebase rounded again, so far-away starts kept the error of their first origin).
  @Test("Rebasing is exact")
  func rebaseExact() throws {
    var g = SeededGenerator(seed: 0x4EBA5E)
    var moved = try CellBatch(recipes: [.tipIn], timeOrigin: 0)
    let finalOrigin = 86_400.25
    var direct = try CellBatch(recipes: [.tipIn], timeOrigin: finalOrigin)
    for i in 0..<200 {
      let start = finalOrigin + g.uniform(-3...3)
      let geometry = CellGeometry(width: 375, height: 80)
      try moved.append(recipe: 0, row: i, startTime: start, geometry: geometry)
      try direct.append(recipe: 0, row: i, startTime: start, geometry: geometry)
    }
    for origin in [1e6, -5e5, 123.456, finalOrigin] { try moved.rebase(to: origin) }
    #expect(moved.start == direct.start)
    #expect(moved.timeOrigin == finalOrigin)
  }

  /// A strongly over-damped spring (zeta = 1e4): its slow rate a - beta = 5e-5 1/s was
  /// computed in Float as a difference of two numbers near 1e4 and came out 0, so the
  /// channel never moved. With the rates computed in Double it matches the reference.
  @Test("Strongly over-damped springs match the reference")
  func overdamped() throws {
    let spring = try Spring(mass: 1, stiffness: 1, damping: 2e4)
    let recipe = Recipe(
      name: "slow", channels: [ChannelAnimation(.translationY, from: 100, to: 0, curve: .spring(spring), duration: 5000)])
    let geometry = CellGeometry(width: 375, height: 80)
    for lanes in LaneWidth.allCases {
      for local in [1.0, 100, 1000, 4000] {
        var batch = try CellBatch(recipes: [recipe], timeOrigin: local)
        try batch.append(recipe: 0, row: 0, startTime: 0, geometry: geometry)
        var out = try FrameOutput(capacity: 1)
        try Kernel.evaluate(batch, at: local, into: &out, options: KernelOptions(lanes: lanes))
        let ref = ReferenceEvaluator.evaluate(recipe, geometry: geometry, startTime: 0, time: local).transform
        // Exact: y = 100 e^(-slow t) (1 + O(1e-8)), slow = w0^2 / (a + beta) = 5e-5 1/s.
        let exact = 100 * exp(-local / (1e4 + (1e8 - 1).squareRoot()))
        #expect(abs(ref.m42 - exact) < 1e-6)
        #expect(abs(out.transform(ofCell: 0).m42 - ref.m42) <= 2e-5 * 375, "\(lanes) t \(local)")
      }
    }
  }

  /// `sincos` is finite for every finite input (it clamped nothing before and overflowed
  /// its polynomials beyond |x| ~ 1e10).
  @Test("VectorMath.sincos stays finite and bounded for huge arguments")
  func sincosHuge() {
    let x = SIMD8<Float>(1e10, -1e10, 1e30, -3e38, Float.greatestFiniteMagnitude, 4e6, 2.5e7, -1e20)
    let (s, c) = VectorMath.sincos(x)
    for i in 0..<8 {
      #expect(s[i].isFinite && c[i].isFinite && abs(s[i]) <= 1.0001 && abs(c[i]) <= 1.0001, "x = \(x[i])")
    }
    let (s4, c4) = VectorMath.sincos(SIMD4<Float>(1e30, -1e30, 3e38, 1e12))
    for i in 0..<4 { #expect(s4[i].isFinite && c4[i].isFinite) }
    // Unchanged in the documented range.
    let small = SIMD8<Float>(0.5, -3, 100, 1e4, -1e4, 7232, 1, 2)
    let (ss, cs) = VectorMath.sincos(small)
    for i in 0..<8 {
      #expect(abs(Double(ss[i]) - sin(Double(small[i]))) < 1e-7)
      #expect(abs(Double(cs[i]) - cos(Double(small[i]))) < 1e-7)
    }
  }
}
