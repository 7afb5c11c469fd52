// Keyframe tracks that share their segments (`CompiledKeyframes.sharedRun`): hinged lines
// (`HingeLines`) of one part with the same knot find each lane's distances to the knot
// once for the run (`Kernel.sharedHingeStage`). The run must give the bits
// each track gives on its own; the truth is the per-track stage, which the same recipe
// takes in a frame with velocities (the shared stage keeps its rows where the kept rates
// go, so it runs only without them).

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Keyframe tracks sharing their segments")
struct SharedSegmentsTests {
  /// A depth page on the clock: opacity, a slide in table widths and a scale keyed at 0,
  /// 0.5, 1 (one run of three), then a rotation keyed elsewhere and a height-scaled slide
  /// at the first times but on a part of its own (a delay): neither joins the run.
  static func recipe() throws -> Recipe {
    let times = [0, 0.5, 1.0]
    func keys(_ c: Channel, _ v: [ChannelValue], at t: [Double] = times, delay: Double = 0) -> ChannelAnimation {
      ChannelAnimation(c, keyframes: ChannelKeyframes(values: v, keyTimes: t), duration: 0.4, delay: delay)
    }
    return Recipe(
      name: "sharedSegments",
      channels: [
        keys(.opacity, [1, 1, 0]),
        keys(.translationX, [0, ChannelValue(12, perCellHeight: 0.25), .tableWidth(-1)]),
        keys(.scale, [1, 1, 0.75]),
        keys(.rotationZ, [0, 0.2, 0], at: [0, 0.3, 1]),
        keys(.translationY, [0, ChannelValue(0, perCellHeight: -1), 0], delay: 0.05),
      ])
  }

  @Test("A depth page's three tracks form one run; tracks keyed elsewhere or on another part do not join it")
  func runs() throws {
    let compiled = try CompiledRecipe(try Self.recipe())
    #expect(compiled.keyframes.map { $0.sharedRun } == [3, 0, 0, 1, 1])
    // The scroll preset compiles to the same run.
    let depth = try CompiledRecipe(try ScrollEffect.depthPage().recipe)
    #expect(depth.keyframes.map { $0.sharedRun } == [3, 0, 0])
    // The depth page's three tracks are hinged lines (`HingeLines`), evaluated as one run.
    #expect(depth.keyframes.allSatisfy { $0.hinge?.knot == 0.5 })
  }

  @Test("The run's values are the per-track stage's bits: every lane width and awkward size, scratch poisoned")
  func runMatchesTracks() throws {
    var g = SeededGenerator(seed: 0x5E6)
    let recipe = try Self.recipe()
    for n in [0, 1, 7, 9, 1023] {
      var batch = try CellBatch(recipes: [recipe, .tipIn], capacity: max(n, 1))
      for i in 0..<n {
        try batch.append(
          recipe: i % 7 == 6 ? 1 : 0, row: i, startTime: g.uniform(-0.1...0.5),
          geometry: CellGeometry(width: g.uniform(100...400), height: g.uniform(20...300), tableWidth: g.uniform(300...900)))
      }
      for lanes in LaneWidth.allCases {
        let options = KernelOptions(lanes: lanes)
        var shared = try FrameOutput(capacity: max(n, 1))
        var tracks = try FrameOutput(capacity: max(n, 1), includeVelocities: true)
        for t in [0.0, 0.12, 0.2, 0.31, 0.45] {
          for k in shared.kernelScratch.indices { shared.kernelScratch[k] = .nan }
          try Kernel.evaluate(batch, at: t, into: &shared, options: options)
          try Kernel.evaluate(batch, at: t, into: &tracks, options: options)
          let label = "n=\(n) \(lanes) t=\(t)"
          let m = n * 16
          #expect(
            zip(shared.matrices.prefix(m), tracks.matrices.prefix(m)).allSatisfy { $0.bitPattern == $1.bitPattern },
            "\(label): matrices")
          #expect(
            zip(shared.opacity.prefix(n), tracks.opacity.prefix(n)).allSatisfy { $0.bitPattern == $1.bitPattern },
            "\(label): opacity")
          #expect(shared.matrices.prefix(m).allSatisfy { $0.isFinite }, "\(label): finite")
        }
      }
    }
  }
}
