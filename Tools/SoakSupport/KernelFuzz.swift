// The kernel fuzz target's property (`Tools/CellMotionKernelFuzz`; the update target's is
// in Tools/SoakModel/UpdateFuzz.swift): what one input is put through, and the trap that
// reports a broken property to libFuzzer (or to the plain driver's exit status).
//
// - Kernel: fuzzed recipes (every part the format has, drawn from the input's bytes),
//   geometries, start times, retargets and frame times; every cell the kernel evaluates at
//   both lane widths agrees with `ReferenceEvaluator` within the kernel tolerances (2e-5
//   normalised transform entries, 1e-5 opacity), or, where the reference itself moves
//   within the Float clock's 1e-6 s, within the range it spans there. Raw numbers from
//   the input (NaN, infinities, huge values) at the batch's boundary are refused with a
//   typed error, never a trap or a non-finite output.

import CellMotion
import CellMotionKernel
import CellMotionTable
import _TestSupport

/// The kernel against the reference on fuzzed recipes and times.
public enum KernelFuzz {
  /// Runs the property on one input; traps on a violation. Returns the cells compared.
  @discardableResult
  public static func run(_ bytes: [UInt8]) -> Int {
    var g = FuzzBytes(bytes)
    // Raw numbers at the boundary first: each must be refused or give finite output.
    boundary(&g)
    let recipeCount = 1 + Int(g.byte() % 3)
    var recipes: [Recipe] = []
    for k in 0..<recipeCount {
      recipes.append(
        g.byte() % 4 == 0
          ? Recipe.presets[Int(g.byte()) % Recipe.presets.count] : SoakRecipes.recipe(&g, name: "fuzz-\(k)", folds: true))
    }
    let policy: MotionPolicy? = [nil, MotionPolicy.full, .reduced, MotionPolicy.none][Int(g.byte() % 4)]
    let origin = [0, 86_400, 3.6e6, -500, 1e8][Int(g.byte() % 5)] + Double(g.byte())
    guard var batch = try? CellBatch(recipes: recipes, capacity: 8, timeOrigin: origin, motion: policy) else { return 0 }
    let count = 1 + Int(g.byte() % 12)
    var cells: [(recipe: Int, row: Int, position: Int, start: Double, geometry: CellGeometry)] = []
    for _ in 0..<count {
      let r = Int(g.byte()) % recipes.count
      let w = g.draw(50...1000)
      let geometry = CellGeometry(
        width: w, height: g.draw(20...600), tableWidth: g.byte() % 2 == 0 ? w : g.draw(50...1000),
        detailHeight: g.draw(20...400))
      let row = Int(g.byte() % 64), position = Int(g.byte() % 16)
      let start = origin + g.draw(-4...4)
      do {
        try batch.append(
          recipe: r, row: row, batchPosition: position, rowCount: 64, batchCount: 16, startTime: start, geometry: geometry)
        cells.append((r, row, position, start, geometry))
      } catch {
        continue  // e.g. an angle beyond the kernel's for this geometry: refused, typed
      }
    }
    // Retargets of some channels (and folds) at a time within the window.
    let retargets = Int(g.byte() % 4)
    var foldRetargeted = Set<Int>()
    for _ in 0..<retargets where !cells.isEmpty {
      let i = Int(g.byte()) % cells.count
      let recipe = recipes[cells[i].recipe]
      let policy: RetargetPolicy
      switch g.byte() % 3 {
      case 0: policy = .additive(curve: SoakRecipes.bezier(&g), duration: g.draw(0.05...0.8))
      case 1:
        guard let s = try? Spring.swiftUI(response: g.draw(0.2...1), dampingFraction: g.draw(0.2...1.2)) else { continue }
        policy = .carryVelocity(spring: s, dropsOpposingVelocity: g.byte() % 2 == 0)
      default: policy = .fromCurrentState(curve: SoakRecipes.curve(&g), duration: g.draw(0.05...0.8))
      }
      let at = origin + g.draw(-2...4)
      if recipe.fold != nil, g.byte() % 3 == 0 {
        if (try? batch.retargetFold(cell: i, to: g.draw(0...1), at: at, policy: policy)) != nil { foldRetargeted.insert(i) }
      } else if let c = recipe.channels.randomElement(using: &g) {
        let target = SoakRecipes.values(c.channel, &g).1.constant
        try? batch.retarget(cell: i, channel: c.channel, to: target, at: at, policy: policy)
      }
    }
    let times = (0..<(1 + Int(g.byte() % 4))).map { _ in origin + g.draw(-3...10) }
    var compared = 0
    for time in times {
      var outputs: [(FrameOutput, LaneWidth)] = []
      for lanes in LaneWidth.allCases {
        guard var out = try? FrameOutput(capacity: batch.count, includeFold: true) else { fatalError("FrameOutput") }
        do {
          try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
        } catch {
          fatalError("Kernel.evaluate refused a valid batch at \(time) (origin \(origin)): \(error)")
        }
        outputs.append((out, lanes))
      }
      for (i, c) in cells.enumerated() {
        let recipe = recipes[c.recipe]
        let motions = batch.motions(ofCell: i)
        let fold = foldRetargeted.contains(i) ? try? batch.foldMotion(ofCell: i) : nil
        func reference(_ t: Double) -> CellState {
          ReferenceEvaluator.evaluate(
            recipe, geometry: c.geometry, row: c.row, batchPosition: c.position, rowCount: 64, batchCount: 16,
            startTime: c.start, time: t, motion: policy, retargeted: motions, fold: fold)
        }
        let ref = reference(time)
        let window = SoakKernelCheck.window(time, start: c.start).map(reference)
        let scale = max(c.geometry.width, c.geometry.height, c.geometry.tableWidth)
        for (out, lanes) in outputs {
          let k = out.transform(ofCell: i)
          var e = SoakKernelCheck.normalisedError(k, ref.transform, scale: scale)
          if e > SoakKernelCheck.transformTolerance {
            e = min(e, SoakKernelCheck.bracketError(k, window.map(\.transform), scale: scale))
          }
          guard e <= SoakKernelCheck.transformTolerance else {
            fatalError("kernel \(lanes) cell \(i) (\(recipe)) at \(time) start \(c.start): normalised error \(e)")
          }
          let o = Double(out.opacity[i])
          let lo = window.map(\.opacity).min()!, hi = window.map(\.opacity).max()!
          guard o >= lo - SoakKernelCheck.opacityTolerance, o <= hi + SoakKernelCheck.opacityTolerance else {
            fatalError("kernel \(lanes) cell \(i) (\(recipe.name)) at \(time): opacity \(o), reference \(ref.opacity)")
          }
          compared += 1
        }
      }
    }
    return compared
  }

  /// Raw inputs at the batch's boundary: refused with a typed error or finite output.
  static func boundary(_ g: inout FuzzBytes) {
    guard g.byte() % 4 == 0 else { return }
    let recipe = Recipe.presets[Int(g.byte()) % Recipe.presets.count]
    let origin = g.byte() % 2 == 0 ? g.raw() : 0
    guard var batch = try? CellBatch(recipes: [recipe], capacity: 2, timeOrigin: origin) else { return }
    let geometry = CellGeometry(
      width: g.byte() % 2 == 0 ? g.raw() : 375, height: g.byte() % 2 == 0 ? g.raw() : 80,
      tableWidth: g.byte() % 2 == 0 ? g.raw() : 375, detailHeight: g.byte() % 2 == 0 ? g.raw() : 160)
    let row = g.byte() % 2 == 0 ? Int(truncatingIfNeeded: g.next()) : 3
    let start = g.byte() % 2 == 0 ? g.raw() : origin
    do {
      try batch.append(recipe: 0, row: row, batchPosition: 0, rowCount: 64, batchCount: 1, startTime: start, geometry: geometry)
    } catch {
      _ = error.description
    }
    let time = g.byte() % 2 == 0 ? g.raw() : origin
    guard var out = try? FrameOutput(capacity: 2, includeFold: true) else { return }
    do {
      try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions())
    } catch {
      return
    }
    for i in 0..<batch.count {
      let t = out.transform(ofCell: i)
      for k in 0..<16 where !t[k / 4, k % 4].isFinite {
        fatalError("non-finite output from accepted inputs: origin \(origin), start \(start), time \(time), \(geometry)")
      }
      if !out.opacity[i].isFinite { fatalError("non-finite opacity") }
    }
  }
}
