// Every compiled curve reaches a specialised solve loop: `SolvePath` maps a curve's counts
// to the case `Kernel.progressStage` switches over (exhaustively, no default), so a
// combination `CompiledCurve` can choose but the kernel lacks shows up here (when
// `Steps4` was deleted, easeIn/easeOut-style curves compiled to 3 steps with the quadratic
// guess fell to the run-time loop and no test noticed).

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("Kernel solve paths")
struct SolvePathTests {
  @Test("Every preset's curves take a specialised loop; the CA presets take the expected ones")
  func presets() throws {
    for recipe in Recipe.presets {
      for part in try CompiledRecipe(recipe).parts {
        #expect(SolvePath(part.curve) != .runtime, "\(recipe.name): \(part.curve)")
      }
    }
    let easeInEaseOut = CompiledCurve(.bezier(.easeInEaseOut))
    #expect("\(SolvePath(easeInEaseOut))".hasPrefix("fitted"), "easeInEaseOut (tip-in): \(SolvePath(easeInEaseOut))")
    // easeIn and easeOut (flip recipes): a fit in the square root of the distance from the
    // flat end.
    for curve in [TimingCurve.easeIn, .easeOut] {
      let path = SolvePath(CompiledCurve(.bezier(curve)))
      #expect("\(path)".hasPrefix("root"), "\(curve): \(path)")
    }
    for curve in [TimingCurve.easeIn, .easeOut, .linear, .default] {
      let path = SolvePath(CompiledCurve(.bezier(curve)))
      #expect(path != .runtime, "\(curve): \(path)")
    }
    let spring = CompiledCurve(.spring(try Spring()))
    #expect(SolvePath(spring) == .spring)
    // Curves on the diagonal (linear: keyframe channels' default timing) need no solve,
    // and give the time fraction back exactly.
    for curve in [TimingCurve.linear, try TimingCurve(x1: 0.3, y1: 0.3, x2: 0.6, y2: 0.6)] {
      let compiled = CompiledCurve(.bezier(curve))
      #expect(SolvePath(compiled) == .identity, "\(curve)")
      let x = SIMD8<Float>(0, 1e-7, 0.1, 0.25, 0.5, 0.7, 0.999_999, 1)
      #expect(Kernel.curveProgress(compiled, local: x, duration: 1) == x)
    }
  }

  @Test("Random Bezier curves never take the run-time loop")
  func randomCurves() throws {
    var g = SeededGenerator(seed: 0x501E)
    var seen = Set<SolvePath>()
    for _ in 0..<150 {
      let c = try TimingCurve(x1: g.uniform(0...1), y1: g.uniform(-1...2), x2: g.uniform(0...1), y2: g.uniform(-1...2))
      let path = SolvePath(CompiledCurve(.bezier(c)))
      #expect(path != .runtime, "seed \(g.seed): \(c) -> \(path)")
      seen.insert(path)
    }
    print("solve paths seen: \(seen)")
    #expect(seen.count >= 3)
  }
}
