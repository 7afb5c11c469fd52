// Blocks whose cells share one input (`Kernel.isUniform`): cells that started at one
// instant, were retargeted at one instant (one event retargets every cell on screen), or
// sit at one progress. The progress stage then computes one lane group and copies it, and
// must give every cell the bits the group-by-group loop gives it. Truth: each cell
// evaluated alone, in a batch of one (a block of one cell never takes the copy), bit for
// bit, for the matrices, opacities and velocities.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Blocks of one input: the copied group gives each cell its own bits")
struct UniformBlockTests {
  /// Cell `i`'s start time, geometry and row, as both batches get them.
  struct Cell {
    var start: Double
    var geometry: CellGeometry
    var progress: Double
  }

  /// Every Float of cell `i` in `a` against cell 0 of `b`: matrices, opacity, shadow
  /// opacity, velocities when both have them.
  func sameBits(_ a: FrameOutput, _ i: Int, _ b: FrameOutput, _ context: String) {
    let f = a.layout.floatsPerCell
    let m = (0..<f).first { a.matrices[f * i + $0].bitPattern != b.matrices[$0].bitPattern }
    #expect(m == nil, "matrix Float \(m ?? -1) of cell \(i), \(context)")
    #expect(a.opacity[i].bitPattern == b.opacity[0].bitPattern, "opacity of cell \(i), \(context)")
    #expect(a.shadowOpacity[i].bitPattern == b.shadowOpacity[0].bitPattern, "shadow opacity of cell \(i), \(context)")
    if a.includesVelocities {
      for c in Channel.allCases {
        let (u, v) = (a.velocity(c, ofCell: i), b.velocity(c, ofCell: 0))
        #expect(u.bitPattern == v.bitPattern, "\(c.rawValue) velocity of cell \(i) (\(u) alone \(v)), \(context)")
      }
    }
  }

  /// Evaluates `n` cells of `recipe` in one batch and each alone (`prepare(&batch, k, i)`
  /// retargets cell `k` of the batch, which is cell `i` of `cells`), and compares every
  /// cell's bits.
  func check(
    _ recipe: Recipe, cells: [Cell], source: ProgressSource, time: Double, velocities: Bool, lanes: LaneWidth,
    _ context: String, prepare: (inout CellBatch, _ cell: Int, _ of: Int) throws -> Void = { _, _, _ in }
  ) throws {
    let n = cells.count
    func batch(_ range: Range<Int>) throws -> CellBatch {
      var b = try CellBatch(recipes: [recipe], capacity: range.count, source: source)
      for i in range {
        let c = cells[i]
        switch source {
        case .clock: try b.append(recipe: 0, row: 0, rowCount: 1, batchCount: 1, startTime: c.start, geometry: c.geometry)
        case .progress: try b.append(recipe: 0, row: 0, progress: c.progress, geometry: c.geometry)
        }
      }
      for i in range { try prepare(&b, i - range.lowerBound, i) }
      return b
    }
    let options = KernelOptions(lanes: lanes, threads: 1)
    var all = try FrameOutput(capacity: n, includeVelocities: velocities)
    try Kernel.evaluate(try batch(0..<n), at: time, into: &all, options: options)
    for i in 0..<n {
      var alone = try FrameOutput(capacity: 1, includeVelocities: velocities)
      try Kernel.evaluate(try batch(i..<(i + 1)), at: time, into: &alone, options: options)
      sameBits(all, i, alone, "\(context), \(n) cells, \(lanes), velocities \(velocities)")
    }
  }

  func cells(_ n: Int, start: Double?, progress: Double?, _ g: inout SeededGenerator) -> [Cell] {
    (0..<n).map { _ in
      Cell(
        start: start ?? g.uniform(0...0.3),
        geometry: CellGeometry(width: g.uniform(120...800), height: g.uniform(30...200), tableWidth: 800),
        progress: progress ?? g.uniform(-0.2...1.2))
    }
  }

  @Test("Cells that start at one instant, every preset, every lane width, 5, 9 and 300 cells")
  func oneStart() throws {
    var g = SeededGenerator(seed: 0x0E1F)
    for recipe in Recipe.presets {
      for n in [5, 9, 300] {
        for lanes in LaneWidth.allCases {
          let velocities = g.next() % 2 == 0
          let start = g.uniform(0...0.2)
          try check(
            recipe, cells: cells(n, start: start, progress: nil, &g), source: .clock, time: start + g.uniform(0.02...0.5),
            velocities: velocities, lanes: lanes, recipe.name)
        }
      }
    }
  }

  @Test("Cells at one progress, every preset, every lane width, 5, 9 and 300 cells")
  func oneProgress() throws {
    var g = SeededGenerator(seed: 0x0E2F)
    for recipe in Recipe.presets {
      for n in [5, 9, 300] {
        for lanes in LaneWidth.allCases {
          let progress = [0, 1, g.uniform(0...1), g.uniform(-0.1...1.1)][Int(g.next() % 4)]
          try check(
            recipe, cells: cells(n, start: nil, progress: progress, &g), source: .progress, time: 0,
            velocities: g.next() % 2 == 0, lanes: lanes, "\(recipe.name) at \(progress)")
        }
      }
    }
  }

  @Test("Cells retargeted at one instant (their own starts), every policy kind, with and without velocities")
  func oneRetarget() throws {
    var g = SeededGenerator(seed: 0x0E3F)
    let policies: [RetargetPolicy] = [
      .additive(curve: .bezier(.easeInEaseOut), duration: 0.4),
      .additive(curve: .spring(try Spring(stiffness: 200, damping: 14)), duration: 0.6),
      .fromCurrentState(curve: .bezier(.easeOut), duration: 0.3),
      .carryVelocity(spring: try Spring(stiffness: 200, damping: 0.6 * 2 * 200.0.squareRoot())),
    ]
    for recipe in [Recipe.tipInChannels, .moveUpFade, .moveUpBounce] {
      let channel = recipe.channels[Int(g.next() % UInt64(recipe.channels.count))].channel
      for policy in policies {
        for n in [5, 9, 300] {
          for lanes in LaneWidth.allCases {
            let at = g.uniform(0.3...0.5)
            let targets = (0..<n).map { _ in randomTarget(channel, &g) }
            for velocities in [false, true] {
              try check(
                recipe, cells: cells(n, start: nil, progress: nil, &g), source: .clock, time: at + g.uniform(0...0.5),
                velocities: velocities, lanes: lanes, "\(recipe.name) \(channel.rawValue) \(policy)"
              ) { batch, k, i in
                try batch.retarget(cell: k, channel: channel, to: targets[i], at: at, policy: policy)
              }
            }
          }
        }
      }
    }
  }
}
