// The GLM peer baseline (C++ -O3, per cell): the tip-in card the way a C++ engineer
// writes it, angle and offset scaled by (1 - p), M = T * R about the anchor. That is the
// math of the `tipInChannels` preset, so it joins that group (ratio glm / simd8 at every
// size); at N = 10,000 it is also placed in the `tipIn` group (the faithful
// decompose-and-recompose path, which costs the kernel a few more flops). Same inputs as
// KernelScenarios (same seed and draw order).
//
// Work counted per cell (nominal: the Bezier solve is iterative, so this is indicative):
//
// | part                                   | flops                               |
// |----------------------------------------|-------------------------------------|
// | local time (subtract, scale, clamp)    | 2                                   |
// | Bezier solve: 3 Newton steps x 12 + y  | 41                                  |
// | angle, offset, anchor (scaled by q)    | 5                                   |
// | sin, cos (polynomial equivalent)       | 40                                  |
// | closed-form matrix (m11..m22, m41 m42) | 10                                  |
// | opacity                                | 2                                   |
// | total                                  | 100                                 |
// Bytes written: 16 floats + 1 opacity = 68.

import _GLMBaseline

#if canImport(Glibc)
  import Glibc
#endif

enum TipInScenarios {
  static let sizes = [100, 1_000, 10_000, 100_000]
  /// The evaluation time, seconds: with start times spread over [0, 0.8] s, about a
  /// quarter of the cells are before their start, half mid-flight, a quarter done.
  static let time = Float(KernelScenarios.time)

  static func all(sizes: [Int]?) -> [Scenario] {
    (sizes ?? Self.sizes).map { glm($0, group: "tipInChannels") }
      + (sizes ?? [KernelScenarios.comparisonSize]).map { glm($0, group: "tipIn") }
  }

  /// SoA inputs shared by every tip-in variant: start times (s), widths, heights (pt).
  final class Inputs {
    let startTime, width, height: FloatBuffer
    init(count n: Int) {
      startTime = FloatBuffer(count: n)
      width = FloatBuffer(count: n)
      height = FloatBuffer(count: n)
      var rng = BenchRandom(seed: KernelScenarios.inputSeed)
      for i in 0..<n {
        (startTime.pointer[i], width.pointer[i], height.pointer[i]) = KernelScenarios.cellInput(&rng)
      }
    }
  }

  static func glm(_ n: Int, group: String) -> Scenario {
    Scenario(
      group: group, variant: "glm", cells: n, bytesWrittenPerCell: 68, flopsPerCell: 100,
      note: "C++ -O3 GLM per cell, double Bezier (Newton + bisection)"
    ) {
      let inputs = Inputs(count: n)
      let matrices = FloatBuffer(count: 16 * n), opacity = FloatBuffer(count: n)
      let st = inputs.startTime.pointer.baseAddress, w = inputs.width.pointer.baseAddress
      let h = inputs.height.pointer.baseAddress
      let o = matrices.pointer.baseAddress, a = opacity.pointer.baseAddress
      let count = Int32(n), t = time
      return {
        cm_glm_tipin(count, st, w, h, t, o, a)
        blackHole(o)
        withExtendedLifetime((inputs, matrices, opacity)) {}
      }
    }
  }
}

/// The tip-in channel math in Double, written from the recipe (row-vector CA matrices),
/// to check the GLM baseline.
enum TipInReference {
  /// easeInEaseOut (0.42, 0, 0.58, 1) at x, by bisection to double precision.
  static func easeInEaseOut(_ x: Double) -> Double {
    func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
      let u = 1 - s
      return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
    }
    var lo = 0.0, hi = 1.0
    for _ in 0..<100 {
      let mid = 0.5 * (lo + hi)
      if bezier(mid, 0.42, 0.58) < x { lo = mid } else { hi = mid }
    }
    return bezier(0.5 * (lo + hi), 0, 1)
  }

  /// Row-major 4x4 product a * b.
  static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
    var r = [Double](repeating: 0, count: 16)
    for i in 0..<4 {
      for j in 0..<4 {
        var s = 0.0
        for k in 0..<4 { s += a[4 * i + k] * b[4 * k + j] }
        r[4 * i + j] = s
      }
    }
    return r
  }

  static func translation(_ x: Double, _ y: Double) -> [Double] {
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, 0, 1]
  }

  /// CATransform3DMakeRotation(angle, 0, 0, 1).
  static func rotationZ(_ angle: Double) -> [Double] {
    let c = cos(angle), s = sin(angle)
    return [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  }

  /// Matrix (CATransform3D field order) and opacity of one cell.
  static func cell(startTime: Double, width: Double, height: Double, time: Double)
    -> (matrix: [Double], opacity: Double)
  {
    let local = min(max((time - startTime) / 0.4, 0), 1)
    let p = easeInEaseOut(local), q = 1 - p
    let angle = -15 * Double.pi / 180 * q
    // CATransform3DTranslate(CATransform3DRotate(identity, angle, 0, 0, 1), o, o, 0)
    // = Translate(o) * Rotate(angle), then about the anchor (bounds centre).
    let model = multiply(translation(-20 * q, -20 * q), rotationZ(angle))
    let ax = width / 2, ay = height / 2
    let matrix = multiply(multiply(translation(-ax, -ay), model), translation(ax, ay))
    return (matrix, 0.8 + 0.2 * p)
  }
}
