// Solve paths: the presets' curves take the loops specialised for them (their counts
// compile-time constants), and every other curve a run-time loop that reads its counts
// and gives the same bits as a loop specialised for it would. The specialised ones are
// the reference for that: a curve compiled to a specialised path, run through the
// run-time loop of its kind, must match it bit for bit.

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
        let path = SolvePath(part.curve)
        #expect(path.isSpecialised || path == .spring, "\(recipe.name): \(part.curve) -> \(path)")
      }
    }
    #expect(SolvePath(CompiledCurve(.bezier(.easeInEaseOut))) == .fitted7x1)
    // easeIn and easeOut (flip recipes): a fit in the square root of the distance from the
    // flat end.
    #expect(SolvePath(CompiledCurve(.bezier(.easeOut))) == .root4x1)
    #expect(SolvePath(CompiledCurve(.bezier(.easeIn))) == .root4x1)
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

  /// Progress of `curve` at `x` through the loop `S`, as the progress stage runs it.
  func progress<S: BezierSolve>(_: S.Type, _ curve: CompiledCurve, _ x: SIMD8<Float>) -> SIMD8<Float> {
    S.progress(x, BezierConstants(curve)!)
  }

  @Test("The run-time loops give the specialised loops' bits (any fit degree evaluated to degree 8)")
  func runtimeMatchesSpecialised() throws {
    let grid = (0..<1024).map { Float($0) / 1023 } + [1e-7, 1e-4, 0.999_9, 0.999_999_9]
    func groups() -> [SIMD8<Float>] {
      stride(from: 0, to: grid.count - 7, by: 8).map { i in SIMD8<Float>((0..<8).map { grid[i + $0] }) }
    }
    let easeInEaseOut = CompiledCurve(.bezier(.easeInEaseOut)), easeOut = CompiledCurve(.bezier(.easeOut))
    let easeIn = CompiledCurve(.bezier(.easeIn))
    let linear = CompiledCurve(.bezier(.linear))
    for x in groups() {
      // The identity path returns x: the bits of the Newton loop with no step on the
      // identity polynomials (the progress stage clamps x to [0, 1] before it).
      #expect(progress(IdentitySolve.self, linear, x) == progress(NewtonSolve<0, 0>.self, linear, x))
      #expect(progress(IdentitySolve.self, linear, x) == x)
    }
    // A -0 (a clamp of a negative zero) comes out +0, as the Newton loop's end select gives.
    let negativeZero = progress(IdentitySolve.self, linear, SIMD8<Float>(repeating: -0.0))
    #expect((0..<8).allSatisfy { negativeZero[$0].sign == .plus })
    for x in groups() {
      #expect(progress(FittedSolve<7, 1>.self, easeInEaseOut, x) == progress(RuntimeFittedSolve.self, easeInEaseOut, x))
      #expect(progress(RootFittedSolve<4, 1>.self, easeOut, x) == progress(RuntimeRootFittedSolve.self, easeOut, x))
      #expect(progress(RootFittedSolve<4, 1>.self, easeIn, x) == progress(RuntimeRootFittedSolve.self, easeIn, x))
    }
    // Random curves in each kind, against a loop specialised for their own counts where
    // one of the kinds below has it (Newton's counts are run-time loop bounds: the same
    // arithmetic whatever the count).
    var g = SeededGenerator(seed: 0x501E)
    var seen = Set<SolvePath>()
    for _ in 0..<150 {
      let c = try TimingCurve(x1: g.uniform(0...1), y1: g.uniform(-1...2), x2: g.uniform(0...1), y2: g.uniform(-1...2))
      let compiled = CompiledCurve(.bezier(c))
      let path = SolvePath(compiled)
      seen.insert(path)
      guard let k = BezierConstants(compiled) else { continue }
      for x in groups().prefix(16) {
        switch (path, k.degree, k.steps) {
        case (.fitted, 5, 1): #expect(FittedSolve<5, 1>.progress(x, k) == RuntimeFittedSolve.progress(x, k))
        case (.fitted, 6, 2): #expect(FittedSolve<6, 2>.progress(x, k) == RuntimeFittedSolve.progress(x, k))
        case (.rootFitted, 5, 1): #expect(RootFittedSolve<5, 1>.progress(x, k) == RuntimeRootFittedSolve.progress(x, k))
        case (.newton, _, 3) where !k.quadraticGuess:
          #expect(NewtonSolve<3, 0>.progress(x, k) == RuntimeNewtonSolve.progress(x, k))
        case (.newton, _, 2) where k.quadraticGuess:
          #expect(NewtonSolve<2, 1>.progress(x, k) == RuntimeNewtonSolve.progress(x, k))
        default: break
        }
      }
    }
    print("solve paths seen: \(seen)")
    #expect(seen.count >= 3)
  }
}
