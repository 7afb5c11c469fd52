// Retargeted batches: the kernel against the reference (issue 15). Random recipes and
// presets, random cells retargeted one to four times on random animated channels with
// random policies (additive stacks of up to four, velocity-carrying springs in every
// regime with and without the guard, from the current state with Bezier and spring
// curves), evaluated before, during and after the retargets' motions, at every lane
// width and the awkward sizes, with the differential tests' tolerances (2e-5 normalised
// transform entries, 1e-5 opacity).

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

/// A target in the channel's usual range.
func randomTarget(_ channel: Channel, _ g: inout SeededGenerator) -> Double {
  switch channel {
  case .opacity, .shadowOpacity: return g.uniform(0...1)
  case .rotationX, .rotationY, .rotationZ: return g.uniform(-1.5...1.5)
  case .scale, .scaleX, .scaleY: return g.uniform(0.4...1.6)
  default: return g.uniform(-120...120)
  }
}

/// Sixteen random curves (Bezier and spring) that the quick sweep's retargets draw from: a
/// retarget compiles its curve, and at -Onone choosing a fresh random Bezier's solve
/// (`CompiledCurve.SolveGrid`) cost more than everything else the retarget tests do. A pool
/// the solve cache keeps lets the same time go to cells, sizes and times; the exhaustive
/// sweep draws a fresh curve for every retarget.
let retargetCurvePool: [AnimationCurve] = {
  var g = SeededGenerator(seed: 0xC0_4E5)
  return (0..<16).map { _ in try! randomCurve(&g) }
}()

/// A retarget's curve: fresh in the exhaustive sweep, from `retargetCurvePool` otherwise.
func retargetCurve(_ g: inout SeededGenerator) throws -> AnimationCurve {
  Sweep.exhaustive ? try randomCurve(&g) : retargetCurvePool[Int(g.next() % UInt64(retargetCurvePool.count))]
}

func randomPolicy(_ g: inout SeededGenerator) throws -> RetargetPolicy {
  switch g.next() % 5 {
  case 0, 1: return .additive(curve: try retargetCurve(&g), duration: g.uniform(0.1...0.8))
  case 2, 3:
    let k = g.uniform(40...400)
    let zeta = g.next() % 4 == 0 ? 1.0 : g.uniform(0.1...2.5)
    let spring = try Spring(stiffness: k, damping: zeta * 2 * k.squareRoot())
    return .carryVelocity(spring: spring, dropsOpposingVelocity: g.next() % 2 == 0)
  default: return .fromCurrentState(curve: try retargetCurve(&g), duration: g.uniform(0.1...0.8))
  }
}

/// Retargets a random third of the cells 1-4 times each, between `from` and `to` seconds,
/// on channels their recipe animates; returns how many retargets landed.
@discardableResult
func retargetRandomly(
  _ batch: inout CellBatch, _ specs: [CellSpec], recipes: [Recipe], from: Double, to: Double,
  additiveOnly: Bool = false, _ g: inout SeededGenerator
) throws -> Int {
  var landed = 0
  for (i, s) in specs.enumerated() where g.next() % 3 == 0 {
    let channels = Array(Set(recipes[s.recipe].channels.map(\.channel))).sorted { $0.rawValue < $1.rawValue }
    guard !channels.isEmpty else { continue }
    var t = from
    for _ in 0..<(1 + Int(g.next() % 4)) {
      t += g.uniform(0...(to - from) / 4)
      let channel = channels[Int(g.next() % UInt64(channels.count))]
      let policy =
        additiveOnly
        ? RetargetPolicy.additive(curve: .bezier(.easeInEaseOut), duration: g.uniform(0.2...0.6)) : try randomPolicy(&g)
      do {
        try batch.retarget(cell: i, channel: channel, to: randomTarget(channel, &g), at: t, policy: policy)
        landed += 1
      } catch {
        // Only a fifth running additive layer is refused here.
        guard case .outOfRange(let field, _, _) = error, field.hasPrefix("additive layers") else { throw error }
      }
    }
  }
  return landed
}

@Suite("Kernel vs reference: retargeted batches")
struct RetargetKernelTests {
  @Test("random recipes and presets, random retargets and policies, every lane width and awkward size")
  func randomRetargets() throws {
    var g = SeededGenerator(seed: 0x4E7A_46E7)
    var c = Comparison("retargeted")
    var landed = 0
    let sizes = [0, 1, 7, 9, 1023] + Sweep.pick(quick: [], full: [4097])
    for round in 0..<Sweep.count(quick: 2, full: 8) {
      var recipes = try (0..<3).map { try randomRecipe(&g, name: "r\(round)-\($0)") }
      recipes.append(Recipe.presets[Int(g.next() % UInt64(Recipe.presets.count))])
      for n in sizes {
        // Before, during and long after the retargets (which start between 0.1 and 0.9 s).
        let times = [g.uniform(0.1...0.5), g.uniform(0.5...1.2), g.uniform(1.2...3), 9]
        // 1023 cells at one time in the quick sweep; 4097 at one time in the exhaustive one.
        for (k, time) in times.enumerated() where n < 1023 || k == 1 || (Sweep.exhaustive && n == 1023) {
          try compare(recipes: recipes, count: n, time: time, lanes: LaneWidth.allCases, g: &g, into: &c) {
            batch, specs, g in
            landed += try retargetRandomly(&batch, specs, recipes: recipes, from: 0.1, to: 0.9, &g)
          }
        }
      }
    }
    print("retargets landed: \(landed)")
    #expect(landed > 500)
    c.expectAllPassed()
  }

  @Test("every preset, a third of its cells retargeted by stacks of up to four additive animations (511 cells; 4097 exhaustive)")
  func additiveStacks() throws {
    var g = SeededGenerator(seed: 0xADD_57AC)
    var c = Comparison("additive stacks")
    var landed = 0, cells = 0
    for preset in Recipe.presets where !preset.channels.isEmpty {
      for time in [0.3, 0.8, 2] {
        let n = Sweep.pick(quick: 511, full: 4097)
        cells += n
        try compare(recipes: [preset], count: n, time: time, lanes: LaneWidth.allCases, g: &g, into: &c) {
          batch, specs, g in
          landed += try retargetRandomly(&batch, specs, recipes: [preset], from: 0.05, to: 0.6, additiveOnly: true, &g)
        }
      }
    }
    // About a third of the cells, each 1-4 times (a fifth running layer is refused).
    print("additive retargets landed: \(landed) over \(cells) cells")
    #expect(landed > cells / 3, "\(landed) retargets over \(cells) cells")
    c.expectAllPassed(folds: false)
  }

  @Test("reduce motion: retargeted held channels jump to their target in the kernel as in the reference")
  func reducedMotion() throws {
    // The jump itself: a held translation retargeted mid-flight shows its new target at
    // once (no animation under reduce motion), in the kernel and the reference alike.
    for policy in [MotionPolicy.reduced, .none] {
      var batch = try CellBatch(recipes: [.moveUpFade], capacity: 1, motion: policy)
      let geometry = CellGeometry(width: 320, height: 80)
      try batch.append(recipe: 0, row: 0, startTime: 0, geometry: geometry)
      try batch.retarget(
        cell: 0, channel: .translationY, to: -30, at: 0.1, policy: .additive(curve: .bezier(.easeInEaseOut), duration: 0.4))
      for time in [0.1, 0.15, 0.3] {
        for lanes in LaneWidth.allCases {
          var out = try FrameOutput(capacity: 1)
          try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
          #expect(abs(out.transform(ofCell: 0).m42 + 30) < 1e-4, "\(policy) t=\(time) \(lanes): \(out.transform(ofCell: 0).m42)")
        }
        let ref = ReferenceEvaluator.evaluate(
          .moveUpFade, geometry: geometry, time: time, motion: policy, retargeted: batch.motions(ofCell: 0), fold: nil)
        #expect(abs(ref.transform.m42 + 30) < 1e-12, "\(policy) t=\(time): reference \(ref.transform.m42)")
      }
    }
    var g = SeededGenerator(seed: 0x2ED_4E7)
    var c = Comparison("retargeted, reduce motion")
    for policy in MotionPolicy.allCases {
      for preset in Recipe.presets where !preset.channels.isEmpty {
        try compare(recipes: [preset], count: 9, time: g.uniform(0.2...1.5), lanes: LaneWidth.allCases, motion: policy, g: &g, into: &c) {
          batch, specs, g in
          try retargetRandomly(&batch, specs, recipes: [preset], from: 0.05, to: 0.6, &g)
        }
      }
    }
    c.expectAllPassed(folds: false)
  }

  /// Fold recipes (the presets and random ones, each direction, random curves), a third of
  /// the cells' folds retargeted 1-3 times with random policies toward random progress
  /// (reverse included), some also on a channel, some set from a segment
  /// (`setFoldMotion`, as a table's toggles do); every reduce-motion policy; every lane
  /// width and awkward size; the halves against `ReferenceEvaluator.foldState` at the
  /// motion's progress (tolerance 2e-5, the differential tests').
  @Test("folds retargeted: presets and random fold recipes, every policy, lane width and awkward size")
  func foldRetargets() throws {
    var g = SeededGenerator(seed: 0xF01D_4E7)
    var c = Comparison("folds retargeted")
    var landed = 0
    for round in 0..<Sweep.count(quick: 3, full: 10) {
      var recipes = Recipe.presets.filter { $0.fold != nil }
      for k in 0..<2 {
        var r = try randomRecipe(&g, name: "fold\(round)-\(k)")
        r.fold = FoldSpec(
          direction: k == 0 ? .open : .close, curve: try randomCurve(&g), duration: g.uniform(0.2...0.6),
          perspectiveDistance: g.uniform(300...900))
        recipes.append(r)
      }
      let motion: MotionPolicy? = round % 2 == 1 ? MotionPolicy.allCases[round % MotionPolicy.allCases.count] : nil
      for n in [0, 1, 7, 9, 1023] + Sweep.pick(quick: [], full: [4097]) {
        for time in [g.uniform(0.1...0.6), g.uniform(0.6...2)] where n < 1023 || time < 0.6 {
          try compare(recipes: recipes, count: n, time: time, lanes: LaneWidth.allCases, motion: motion, g: &g, into: &c) {
            batch, specs, g in
            for i in specs.indices where g.next() % 3 == 0 {
              var t = g.uniform(0.05...0.4)
              for _ in 0..<(1 + Int(g.next() % 3)) {
                switch g.next() % 4 {
                case 0:
                  // A segment from where the fold is, as the table sets it.
                  let here = try batch.foldMotion(ofCell: i).value(at: t)
                  let segment = try MotionSegment(
                    from: here, to: Double(g.next() % 2), curve: try retargetCurve(&g), duration: g.uniform(0.1...0.5),
                    begin: t)
                  try batch.setFoldMotion(ChannelMotion(segment, channel: .rotationX), cell: i)
                case 1:
                  let channels = Array(Set(recipes[specs[i].recipe].channels.map(\.channel))).sorted { $0.rawValue < $1.rawValue }
                  if let channel = channels.first {
                    try batch.retarget(cell: i, channel: channel, to: randomTarget(channel, &g), at: t, policy: try randomPolicy(&g))
                  }
                  try batch.retargetFold(cell: i, to: g.uniform(0...1), at: t, policy: try randomPolicy(&g))
                default:
                  do {
                    try batch.retargetFold(cell: i, to: Double(g.next() % 2), at: t, policy: try randomPolicy(&g))
                  } catch let error as CellMotionError {
                    guard case .outOfRange(let field, _, _) = error, field.hasPrefix("additive layers") else { throw error }
                  }
                }
                landed += 1
                t += g.uniform(0...0.2)
              }
            }
          }
        }
      }
    }
    print("fold retargets landed: \(landed)")
    #expect(landed > 300)
    c.expectAllPassed()
  }

  @Test("fold retargets: typed errors, bookkeeping, the segment check")
  func foldBookkeeping() throws {
    let geometry = CellGeometry(width: 320, height: 60, detailHeight: 120)
    var batch = try CellBatch(recipes: [.foldOpen, .moveUpFade], capacity: 8)
    try batch.append(recipe: 0, row: 0, startTime: 0, geometry: geometry)
    try batch.append(recipe: 1, row: 1, startTime: 0, geometry: geometry)
    // Not a fold recipe; a cell out of range.
    #expect(throws: CellMotionError.self) { try batch.retargetFold(cell: 1, to: 0, at: 0.1, policy: .uiKit) }
    #expect(throws: CellMotionError.self) { try batch.retargetFold(cell: 5, to: 0, at: 0.1, policy: .uiKit) }
    // A motion from another recipe's channel is refused.
    let other = try ChannelMotion(.moveUpFade, channel: .opacity, geometry: geometry)
    #expect(throws: CellMotionError.self) { try batch.setFoldMotion(other, cell: 0) }
    #expect(batch.recipes.count == 2)
    // The cell's own fold, unretargeted, matches the reference's progress.
    let own = try batch.foldMotion(ofCell: 0)
    let reference = try ChannelMotion(foldOf: .foldOpen, geometry: geometry)
    #expect(own == reference)
    // Reverse mid-way: the end time grows, the motion heads back to 0.
    let end = batch.endTime(ofCell: 0)
    try batch.retargetFold(cell: 0, to: 0, at: 0.15, policy: .carryVelocity(spring: try Spring(stiffness: 200, damping: 20)))
    #expect(batch.endTime(ofCell: 0) > end)
    #expect(try batch.foldMotion(ofCell: 0).target == 0)
    #expect(batch.recipes.count == 3 && batch.baseRecipe(ofCell: 0) == 0)
  }

  @Test("the batch keeps retargets through compaction and rebasing; end times include them")
  func bookkeeping() throws {
    let recipe = Recipe.moveUpFade
    var batch = try CellBatch(recipes: [recipe], capacity: 16)
    let geometry = CellGeometry(width: 320, height: 60)
    for i in 0..<10 { try batch.append(recipe: 0, row: i, startTime: 0, geometry: geometry) }
    let spring = try Spring(stiffness: 120, damping: 8)
    try batch.retarget(cell: 7, channel: .translationY, to: 200, at: 0.2, policy: .carryVelocity(spring: spring))
    #expect(batch.recipes.count == 2 && batch.baseRecipe(ofCell: 7) == 0)
    let end = batch.endTime(ofCell: 7)
    #expect(end > batch.endTime(ofCell: 6))
    let motion = try batch.channelMotion(ofCell: 7, channel: .translationY)
    // Remove the cells before it: the retargeted one moves to index 3 with its rows.
    batch.removeCells { $0 < 4 }
    #expect(try batch.channelMotion(ofCell: 3, channel: .translationY) == motion)
    #expect(batch.endTime(ofCell: 3) == end)
    try batch.rebase(to: 5)
    var out = try FrameOutput(capacity: 16)
    try Kernel.evaluate(batch, at: 0.4, into: &out)
    let ref = ReferenceEvaluator.evaluate(
      recipe, geometry: geometry, row: 7, startTime: 0, time: 0.4, retargeted: batch.motions(ofCell: 3))
    let (e, _) = normalisedError(out.transform(ofCell: 3), ref.transform, scale: 320)
    #expect(e < transformTolerance)
    // The same shape reuses the derived recipe; a cell not retargeted keeps its recipe.
    try batch.retarget(cell: 4, channel: .translationY, to: -50, at: 0.3, policy: .carryVelocity(spring: spring))
    #expect(batch.recipes.count == 2 && batch.recipeIndex[4] == batch.recipeIndex[3] && batch.recipeIndex[0] == 0)
    // Typed errors leave the batch as it was.
    #expect(throws: CellMotionError.self) { try batch.retarget(cell: 99, channel: .opacity, to: 0, at: 0.3, policy: .uiKit) }
    #expect(throws: CellMotionError.self) { try batch.retarget(cell: 0, channel: .rotationZ, to: 0, at: 0.3, policy: .uiKit) }
    #expect(throws: CellMotionError.self) { try batch.append(recipe: 1, row: 0, startTime: 0, geometry: geometry) }
    #expect(batch.motions(ofCell: 0).isEmpty)
  }
}

@Suite("Kernel velocities vs reference")
struct VelocityKernelTests {
  /// |kernel - reference| / max(1, |reference|), units per second.
  static let tolerance = 1e-4

  @Test("every cell of a last partial lane group, retargeted from its current state or additively: sizes 9-15, 20")
  func partialGroups() throws {
    // A retarget's velocity in the last partial group once took the first cell's `from`
    // (and the running sum) in every lane (`addRate`, `RowRateStage`: a load inferred as
    // one Float). Every cell retargeted, begins staggered or at one instant.
    var g = SeededGenerator(seed: 0x7E10_C18)
    var tracker = ErrorTracker("partial-group retarget velocity (relative to max(1, |v|))", tolerance: Self.tolerance)
    let policies: [RetargetPolicy] = [
      .fromCurrentState(curve: .bezier(.easeOut), duration: 0.3),
      .fromCurrentState(curve: .spring(try Spring(stiffness: 300, damping: 20)), duration: 0.5),
      .additive(curve: .bezier(.easeInEaseOut), duration: 0.4),
    ]
    for recipe in [Recipe.moveUpFade, .tipInChannels] {
      for policy in policies {
        for n in [9, 10, 11, 12, 13, 14, 15, 20] {
          for staggered in [false, true] {
            var batch = try CellBatch(recipes: [recipe], capacity: n)
            var starts: [Double] = []
            for _ in 0..<n {
              starts.append(g.uniform(0...0.3))
              try batch.append(
                recipe: 0, row: 0, rowCount: 1, batchCount: 1, startTime: starts.last!,
                geometry: CellGeometry(width: g.uniform(120...800), height: g.uniform(30...200), tableWidth: 800))
            }
            let channel = recipe.channels[Int(g.next() % UInt64(recipe.channels.count))].channel
            for i in 0..<n {
              let at = 0.35 + (staggered ? Double(i) * 1e-3 : 0)
              try batch.retarget(cell: i, channel: channel, to: randomTarget(channel, &g), at: at, policy: policy)
            }
            let time = 0.35 + g.uniform(0.02...0.25)
            for lanes in LaneWidth.allCases {
              var out = try FrameOutput(capacity: n, includeVelocities: true)
              try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
              for i in 0..<n {
                var ref = ReferenceEvaluator.channelVelocities(
                  recipe, geometry: batch.geometry(ofCell: i), row: 0, batchPosition: 0, rowCount: 1, batchCount: 1,
                  startTime: starts[i], time: time)
                for m in batch.motions(ofCell: i) { ref[m.channel] = m.velocity(at: time) }
                for c in Channel.allCases {
                  let k = Double(out.velocity(c, ofCell: i)), r = ref[c]
                  tracker.record(
                    abs(k - r) / max(1, abs(r)), 0,
                    "\(recipe.name) \(channel.rawValue) \(policy) cell \(i) of \(n) \(c) \(lanes) staggered \(staggered)")
                }
              }
            }
          }
        }
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("every channel's velocity: random recipes and presets, random retargets, every lane width and awkward size")
  func velocities() throws {
    var g = SeededGenerator(seed: 0x7E10_C17)
    var tracker = ErrorTracker("kernel velocity vs reference (relative to max(1, |v|))", tolerance: Self.tolerance)
    let presets = Recipe.presets
    for round in 0..<Sweep.count(quick: 4, full: 10) {
      var recipes = try (0..<2).map { try randomRecipe(&g, name: "v\(round)-\($0)") }
      recipes.append(try randomKeyframeRecipe(&g, name: "v\(round)-keys"))
      recipes.append(presets[Int(g.next() % UInt64(presets.count))])
      for n in [0, 1, 7, 9, 1023] + Sweep.pick(quick: [], full: [4097]) {
        for time in [g.uniform(0...0.6), g.uniform(0.6...1.5)] where n < 1023 || time < 0.6 {
          var batch = try BatchPrototypes.batch(recipes, capacity: n)
          var specs: [CellSpec] = []
          var recipe = Int(g.next() % UInt64(recipes.count))
          for i in 0..<n {
            if g.next() % 13 == 0 { recipe = Int(g.next() % UInt64(recipes.count)) }
            let geometry = CellGeometry(width: g.uniform(100...800), height: g.uniform(20...300))
            let spec = CellSpec(recipe: recipe, row: i, batchPosition: 0, start: g.uniform(0...1), geometry: geometry)
            specs.append(spec)
            try batch.append(
              recipe: recipe, row: i, batchPosition: 0, rowCount: n + 50, batchCount: 20, startTime: spec.start,
              geometry: geometry)
          }
          try retargetRandomly(&batch, specs, recipes: recipes, from: 0.1, to: 0.9, &g)
          for lanes in LaneWidth.allCases {
            var out = try FrameOutput(capacity: n, includeVelocities: true)
            try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
            for (i, s) in specs.enumerated() {
              func reference(_ t: Double) -> ChannelValues {
                var v = ReferenceEvaluator.channelVelocities(
                  recipes[s.recipe], geometry: batch.geometry(ofCell: i), row: s.row, batchPosition: 0, rowCount: n + 50,
                  batchCount: 20, startTime: s.start, time: t)
                for m in batch.motions(ofCell: i) { v[m.channel] = m.velocity(at: t) }
                return v
              }
              let ref = reference(time)
              for c in Channel.allCases {
                let k = Double(out.velocity(c, ofCell: i)), r = ref[c]
                var e = abs(k - r) / max(1, abs(r))
                if e > Self.tolerance {
                  // The Float clock cannot tell times within 1 us apart (`CellSpec.clockWindow`):
                  // where the velocity jumps (an animation starting or ending) take the range.
                  let near = [reference(time - CellSpec.clockWindow)[c], reference(time + CellSpec.clockWindow)[c]]
                  let lo = min(r, near.min()!), hi = max(r, near.max()!)
                  e = distanceOutside(k, lo, hi) / max(1, abs(r))
                }
                tracker.record(e, 0, "seed \(g.seed) \(recipes[s.recipe].name) cell \(i) \(c) t=\(time) \(lanes)")
              }
            }
          }
        }
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("velocities not asked for: nothing written; a reused output: rows of other recipes' channels read 0")
  func optionalAndReused() throws {
    var batch = try CellBatch(recipes: [Recipe.moveUpFade, Recipe.shake], capacity: 4)
    try batch.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 320, height: 60))
    try batch.append(recipe: 1, row: 1, startTime: 0, geometry: CellGeometry(width: 320, height: 60))
    var plain = try FrameOutput(capacity: 4)
    try Kernel.evaluate(batch, at: 0.2, into: &plain)
    #expect(plain.velocities.isEmpty && !plain.includesVelocities)
    var with = try FrameOutput(capacity: 4, includeVelocities: true)
    try Kernel.evaluate(batch, at: 0.22, into: &with)
    // The shake at 0.22 s: between keys -20 and 20 (0.2 ... 0.267 s of its 0.6): 40 points
    // in 1/15 s, 600 points per second.
    #expect(abs(with.velocity(.translationX, ofCell: 1) - 600) < 1e-2, "\(with.velocity(.translationX, ofCell: 1))")
    // One output reused by batches of different recipes: a row written for one is 0 for
    // the next batch's cells whose recipe does not animate that channel.
    var moving = try CellBatch(recipes: [Recipe.moveUpFade], capacity: 4)
    var fading = try CellBatch(recipes: [Recipe.fadeIn], capacity: 4)
    for i in 0..<4 {
      try moving.append(recipe: 0, row: i, startTime: 0, geometry: CellGeometry(width: 320, height: 60))
      try fading.append(recipe: 0, row: i, startTime: 0, geometry: CellGeometry(width: 320, height: 60))
    }
    var reused = try FrameOutput(capacity: 4, includeVelocities: true)
    try Kernel.evaluate(moving, at: 0.1, into: &reused)
    #expect((0..<4).allSatisfy { reused.velocity(.translationY, ofCell: $0) != 0 })
    try Kernel.evaluate(fading, at: 0.1, into: &reused)
    #expect((0..<4).allSatisfy { reused.velocity(.translationY, ofCell: $0) == 0 })
    #expect((0..<4).allSatisfy { reused.velocity(.opacity, ofCell: $0) > 0 })
  }
}
