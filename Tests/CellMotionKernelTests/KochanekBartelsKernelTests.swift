// The kernel's cubic keyframe channels against values worked by hand from Kochanek and
// Bartels' published tangents (SIGGRAPH 1984, eq. 9-10), not against the reference: the
// kernel compiles its segments from the reference's tangents, so a differential test
// alone cannot see a wrong tangent. The track and its derivation are those of
// `KochanekBartelsTests` (CellMotionTests): values 0, 10, 40, 20 at key times 0, 0.2, 0.7,
// 1; tension 0.5, 0.2, 0, 0; continuity 0.3, 0.5, -0.5, -0.2; bias 0, -0.5, 0.25, 0.4.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Kochanek-Bartels keyframes in the kernel against hand-worked values")
struct KochanekBartelsKernelTests {
  @Test("a cubic translation-x track with uneven keys: every lane width within Float rounding of the hand-worked values")
  func handWorked() throws {
    let keyframes = ChannelKeyframes(
      values: [0, 10, 40, 20], keyTimes: [0, 0.2, 0.7, 1], mode: .cubic, tension: [0.5, 0.2, 0, 0],
      continuity: [0.3, 0.5, -0.5, -0.2], bias: [0, -0.5, 0.25, 0.4])
    // Linear over 1 s, from time 0: the fraction is the time.
    let recipe = Recipe(name: "kb", channels: [ChannelAnimation(.translationX, keyframes: keyframes, curve: .bezier(.linear), duration: 1)])
    let samples: [(time: Double, value: Double)] = [
      (0.1, 1.71875), (0.325, 15.232421875), (0.45, 23.453125), (0.85, 31.865625), (0.2, 10), (0.7, 40),
    ]
    var batch = try CellBatch(recipes: [recipe], capacity: 1)
    try batch.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 320, height: 80))
    var worst = 0.0
    for lanes in LaneWidth.allCases {
      for (time, expected) in samples {
        var out = try FrameOutput(capacity: 1)
        try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
        // A pure translation about the anchor: m41 is the channel's value (points).
        let x = out.transform(ofCell: 0).m41
        worst = worstOf(worst, abs(x - expected))
        #expect(abs(x - expected) <= 1e-4, "\(lanes) t \(time): kernel \(x), by hand \(expected)")
      }
    }
    print("Kochanek-Bartels in the kernel: worst |kernel - hand-worked| \(worst) points")
    #expect(worst <= 1e-4)
  }
}
