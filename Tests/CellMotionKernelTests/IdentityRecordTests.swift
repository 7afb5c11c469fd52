// The output's record of cells whose matrices already hold the identity
// (`FrameOutput.identityCells`): a batch of fade or fold cells does not store them again,
// so every sequence of frames into one output must leave exactly what fresh outputs hold.
// Truth here is the plainest one: each frame is also evaluated into a new output, and
// every Float of the reused output's matrices must equal it bit for bit (a store moves
// bits; the record only decides whether it runs), and cells past a frame's batch must keep
// what the earlier frames left.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Identity record of a reused output")
struct IdentityRecordTests {
  /// A batch of `n` cells of `recipes` (cell i takes recipe i % recipes.count).
  func batch(_ recipes: [Recipe], _ n: Int, _ g: inout SeededGenerator) throws -> CellBatch {
    var b = try CellBatch(recipes: recipes, capacity: n)
    for i in 0..<n {
      let geometry = CellGeometry(width: g.uniform(100...800), height: g.uniform(20...300), tableWidth: 800)
      try b.append(
        recipe: i % recipes.count, row: i, rowCount: n, batchCount: 1, startTime: g.uniform(0...0.2), geometry: geometry)
    }
    return b
  }

  @Test(
    "Frames of identity and moving recipes into one output equal fresh outputs, every layout and width",
    arguments: [MatrixLayout.transform3D, .affine2D])
  func sequences(layout: MatrixLayout) throws {
    var g = SeededGenerator(seed: 0x1D3 + UInt64(layout.floatsPerCell))
    let fold = layout == .transform3D
    let still: [Recipe] = fold ? [.foldOpen] : [.fade]
    let stillMixed: [Recipe] = fold ? [.fade, .foldClosed] : [.fade, .fadeIn]
    let moving: [Recipe] = [.tipIn]
    let mixed: [Recipe] = [.fade, .tipIn]
    // (recipes, cells, what the record must be after the frame): growing, shrinking and
    // moving frames in the order that would expose a stale or missing record.
    let frames: [([Recipe], Int, Int)] = [
      (still, 7, 7), (still, 1023, 1023), (moving, 1023, 0), (still, 9, 9), (still, 1, 9), (stillMixed, 9, 9),
      (still, 1023, 1023), (mixed, 8, 0), (still, 0, 0), (still, 1023, 1023), (moving, 1, 0), (stillMixed, 1023, 1023),
      (still, 17, 1023),
    ]
    for lanes in LaneWidth.allCases {
      for threads in [1, 2] {
        let options = KernelOptions(lanes: lanes, threads: threads, parallelThreshold: 0)
        var reused = try FrameOutput(capacity: 1023, layout: layout, includeFold: true)
        var expected = [Float](repeating: 0, count: layout.floatsPerCell * 1023)
        for (k, (recipes, n, record)) in frames.enumerated() {
          let b = try batch(recipes, n, &g)
          let time = g.uniform(0.05...0.5)
          try Kernel.evaluate(b, at: time, into: &reused, options: options)
          var fresh = try FrameOutput(capacity: max(n, 1), layout: layout, includeFold: true)
          try Kernel.evaluate(b, at: time, into: &fresh, options: options)
          let floats = layout.floatsPerCell * n
          expected.replaceSubrange(0..<floats, with: fresh.matrices[0..<floats])
          let context = "frame \(k) (\(recipes.map(\.name)), \(n) cells), \(lanes), \(threads) threads"
          #expect(reused.identityCells == record, "record, \(context)")
          let i = reused.matrices.indices.first { reused.matrices[$0].bitPattern != expected[$0].bitPattern }
          #expect(i == nil, "Float \(i ?? -1) (cell \((i ?? 0) / layout.floatsPerCell)) differs after \(context)")
          // The fold halves of the folding cells (other cells' halves are left as they were).
          let folding = (0..<n).filter { recipes[$0 % recipes.count].fold != nil }
          func halves(_ o: FrameOutput) -> [Float] {
            var values: [Float] = []
            for c in folding {
              values += o.foldTop[(16 * c)..<(16 * c + 16)]
              values += o.foldBottom[(16 * c)..<(16 * c + 16)]
            }
            return values
          }
          #expect(halves(reused) == halves(fresh), "fold halves, \(context)")
        }
      }
    }
  }

  @Test("A grown output keeps its record only for the cells it had; the new ones are stored")
  func growth() throws {
    var g = SeededGenerator(seed: 0x1D4)
    var out = try FrameOutput(capacity: 9)
    try Kernel.evaluate(try batch([.foldOpen], 9, &g), at: 0.2, into: &out)
    try out.ensureCapacity(1023)
    #expect(out.identityCells == 9)
    try Kernel.evaluate(try batch([.foldOpen], 1023, &g), at: 0.2, into: &out)
    let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    let wrong = (0..<1023).first { Array(out.matrices[(16 * $0)..<(16 * $0 + 16)]) != identity }
    #expect(wrong == nil, "cell \(wrong ?? -1) is not the identity")
    #expect(out.identityCells == 1023)
    // The grown halves start as identities too (their constant rows are never stored) and
    // the fold wrote every cell's halves: equal to a fresh output's.
    var fresh = try FrameOutput(capacity: 1023)
    let b = try batch([.foldOpen], 1023, &g)
    try Kernel.evaluate(b, at: 0.25, into: &out)
    try Kernel.evaluate(b, at: 0.25, into: &fresh)
    #expect(out.foldTop == fresh.foldTop && out.foldBottom == fresh.foldBottom)
  }

  @Test("A still frame within the record does not store the matrices; one beyond it does")
  func skips() throws {
    var g = SeededGenerator(seed: 0x1D6)
    var out = try FrameOutput(capacity: 64)
    try Kernel.evaluate(try batch([.fade], 64, &g), at: 0.2, into: &out)
    // A marker where the record says the identity is (a test may write `matrices`; the
    // library never does): a frame that skips the stores leaves it, which is the saving.
    out.matrices[16 * 9 + 5] = 99
    try Kernel.evaluate(try batch([.fade], 64, &g), at: 0.3, into: &out)
    #expect(out.matrices[16 * 9 + 5] == 99, "a still frame within the record stored the identity")
    out.identityCells = 8
    try Kernel.evaluate(try batch([.fade], 64, &g), at: 0.3, into: &out)
    #expect(out.matrices[16 * 9 + 5] == 1, "a still frame beyond the record did not store the identity")
  }

  @Test("Projected corners make identity cells compute their matrices: no record is kept")
  func corners() throws {
    var g = SeededGenerator(seed: 0x1D5)
    var out = try FrameOutput(capacity: 9, includeCorners: true)
    try Kernel.evaluate(try batch([.fade], 9, &g), at: 0.2, into: &out)
    #expect(out.identityCells == 0)
  }
}
