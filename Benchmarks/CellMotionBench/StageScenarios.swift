// Scenarios for the matrix stages (CellMotionKernel.MatrixStages), SIMD vs BLAS.
//
// Work counted by hand, per cell (the same for both backends, so ratios compare equal
// work; the BLAS projection additionally writes and reads 128 scratch bytes per cell):
//
// | stage            | flops                                   | bytes written | read |
// |------------------|-----------------------------------------|---------------|------|
// | compose          | 4x4 product: 64 mul + 48 add = 112      | 64 (matrix)   | 64   |
// | project (xy)     | 4 corners x (q: 16, h_x h_y h_w: 21,    | 32 (4 x xy)   | 96   |
// |                  |   2 divisions) = 156 (direct form)      |               |      |

import CellMotionKernel

/// Deterministic inputs for benchmarks (SplitMix64), independent of the test support.
struct BenchRandom {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// Uniform in [lower, upper).
  mutating func float(_ lower: Float, _ upper: Float) -> Float {
    lower + (upper - lower) * Float(next() >> 40) * 0x1p-24
  }
}

enum StageScenarios {
  static let composeSizes = [100, 1_000, 10_000, 100_000, 1_000_000]
  static let projectSizes = [100, 1_000, 10_000, 100_000]

  static func all(sizes: [Int]?) -> [Scenario] {
    var result: [Scenario] = []
    for n in sizes ?? composeSizes {
      for engine in StageEngine.all { result.append(compose(n, engine)) }
    }
    for n in sizes ?? projectSizes {
      for engine in StageEngine.all { result.append(project(n, engine)) }
    }
    return result
  }

  /// A cell matrix: rotation and scale in the plane, small tilt, translation.
  static func fillMatrices(_ buffer: FloatBuffer, seed: UInt64) {
    var rng = BenchRandom(seed: seed)
    let p = buffer.pointer
    for i in 0..<(p.count / 16) {
      let row: [Float] = [
        rng.float(-1.5, 1.5), rng.float(-1.5, 1.5), rng.float(-0.2, 0.2), 0,
        rng.float(-1.5, 1.5), rng.float(-1.5, 1.5), rng.float(-0.2, 0.2), 0,
        rng.float(-1, 1), rng.float(-1, 1), rng.float(0.5, 1.5), 0,
        rng.float(-300, 300), rng.float(-300, 300), rng.float(-50, 50), 1,
      ]
      for e in 0..<16 { p[16 * i + e] = row[e] }
    }
  }

  /// A perspective view-projection (m34 = -1/500) with scale and offset.
  static let viewProjection: [Float] = [1.2, 0, 0, 0, 0, 1.2, 0, 0, 0, 0, 1, -1.0 / 500, 20, -35, 0, 1]

  static func compose(_ n: Int, _ engine: StageEngine) -> Scenario {
    let backend = engine.backend, sgemm = engine.sgemm
    return Scenario(
      group: "compose", variant: engine.variant, cells: n,
      bytesWrittenPerCell: 64, flopsPerCell: 112, isRatioReference: backend == .simd,
      note: backend == .simd
        ? "SIMD8 row pairs, in-lane rotations of the cell rows"
        : "one cblas_sgemm (4N x 4)(4 x 4), row-major"
    ) {
      let matrices = FloatBuffer(count: 16 * n)
      fillMatrices(matrices, seed: 1)
      let parent = FloatBuffer(count: 16)
      fillMatrices(parent, seed: 2)
      let output = FloatBuffer(count: 16 * n)
      let m = matrices.readOnly, p = parent.readOnly, o = output.pointer
      // Validate once outside the timing (throws here rather than in the loop).
      try MatrixStages.composeWithParent(m, count: n, parent: p, into: o, sgemm: sgemm)
      return {
        try! MatrixStages.composeWithParent(m, count: n, parent: p, into: o, sgemm: sgemm)
        blackHole(o.baseAddress)
        withExtendedLifetime((matrices, parent, output)) {}
      }
    }
  }

  static func project(_ n: Int, _ engine: StageEngine) -> Scenario {
    let backend = engine.backend, sgemm = engine.sgemm
    return Scenario(
      group: "project", variant: engine.variant, cells: n,
      bytesWrittenPerCell: 32, flopsPerCell: 156, isRatioReference: backend == .simd,
      note: backend == .simd
        ? "one cell per iteration, SIMD4 lanes = corners, q = (x,y,0,1) M then q V, divide"
        : "SIMD corners -> scratch, one cblas_sgemm by V, SIMD divide (128 B scratch/cell extra)"
    ) {
      var rng = BenchRandom(seed: 3)
      let corners = FloatBuffer(count: 8 * n) { _ in rng.float(0, 400) }
      let matrices = FloatBuffer(count: 16 * n)
      fillMatrices(matrices, seed: 4)
      let view = FloatBuffer(count: 16) { viewProjection[$0] }
      let points = FloatBuffer(count: 8 * n)
      let scratch = FloatBuffer(count: MatrixStages.projectionScratchCount(count: n, backend: backend))
      let c = corners.readOnly, m = matrices.readOnly, v = view.readOnly
      let o = points.pointer, s = scratch.pointer
      try MatrixStages.projectCorners(
        c, matrices: m, count: n, viewProjection: v, into: o, scratch: s, sgemm: sgemm)
      return {
        try! MatrixStages.projectCorners(
          c, matrices: m, count: n, viewProjection: v, into: o, scratch: s, sgemm: sgemm)
        blackHole(o.baseAddress)
        withExtendedLifetime((corners, matrices, view, points, scratch)) {}
      }
    }
  }
}
