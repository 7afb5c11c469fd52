// SolvePath: which Bezier solve a compiled curve's loops run, decided once per part when
// the recipe compiles, and the one exhaustive switch (`dispatch`) that turns it into a
// type for the progress and velocity stages.

import CellMotion

/// Something run with the Bezier solve a `SolvePath` names (`SolvePath.dispatch`): the
/// progress stage, the velocity stage.
@usableFromInline protocol SolveVisitor {
  func visit<S: BezierSolve>(_: S.Type)
}

/// The loop a curve's progress stage runs: one case per specialised Bezier solve (its
/// counts known to the compiler, so the loop unrolls), the run-time fallback, or a spring.
///
/// Every (steps, first guess) and (degree, corrections) that `CompiledCurve` can choose
/// (Newton 1...8 steps with either guess, fitted degree 4...8 with 1...3 corrections,
/// square-root fits of degree 4...8 with 1...2 corrections) has
/// a case, and `dispatch` (below) switches over this enum without a default, so a case
/// cannot be dropped from the kernel without a compile error, nor from here without a
/// curve mapping to `.runtime`, which `SolvePathTests` checks for every preset and for
/// sampled random curves. (When the old `Steps4` type was deleted, curves compiled to 4
/// steps silently fell to the run-time loop.)
@usableFromInline enum SolvePath: Hashable, Sendable {
  /// y = x (a curve whose control points lie on the diagonal, such as linear): no solve.
  case identity
  case newton1
  case newton2
  case newton3
  case newton4
  case newton5
  case newton6
  case newton7
  case newton8
  case newton1Guess
  case newton2Guess
  case newton3Guess
  case newton4Guess
  case newton5Guess
  case newton6Guess
  case newton7Guess
  case newton8Guess
  case fitted4x1
  case fitted5x1
  case fitted6x1
  case fitted7x1
  case fitted8x1
  case fitted4x2
  case fitted5x2
  case fitted6x2
  case fitted7x2
  case fitted8x2
  case fitted4x3
  case fitted5x3
  case fitted6x3
  case fitted7x3
  case fitted8x3
  case root4x1
  case root5x1
  case root6x1
  case root7x1
  case root8x1
  case root4x2
  case root5x2
  case root6x2
  case root7x2
  case root8x2
  case runtime
  case spring

  /// The path of a compiled curve.
  @inlinable
  init(_ curve: CompiledCurve) {
    switch curve {
    case .bezier(_, _, _, _, _, _, let steps, let guess):
      switch (steps, guess) {
      case (0, false): self = .identity
      case (1, false): self = .newton1
      case (2, false): self = .newton2
      case (3, false): self = .newton3
      case (4, false): self = .newton4
      case (5, false): self = .newton5
      case (6, false): self = .newton6
      case (7, false): self = .newton7
      case (8, false): self = .newton8
      case (1, true): self = .newton1Guess
      case (2, true): self = .newton2Guess
      case (3, true): self = .newton3Guess
      case (4, true): self = .newton4Guess
      case (5, true): self = .newton5Guess
      case (6, true): self = .newton6Guess
      case (7, true): self = .newton7Guess
      case (8, true): self = .newton8Guess
      default: self = .runtime
      }
    case .fittedBezier(_, _, _, _, _, _, let fit, let steps):
      switch (fit.degree, steps) {
      case (4, 1): self = .fitted4x1
      case (5, 1): self = .fitted5x1
      case (6, 1): self = .fitted6x1
      case (7, 1): self = .fitted7x1
      case (8, 1): self = .fitted8x1
      case (4, 2): self = .fitted4x2
      case (5, 2): self = .fitted5x2
      case (6, 2): self = .fitted6x2
      case (7, 2): self = .fitted7x2
      case (8, 2): self = .fitted8x2
      case (4, 3): self = .fitted4x3
      case (5, 3): self = .fitted5x3
      case (6, 3): self = .fitted6x3
      case (7, 3): self = .fitted7x3
      case (8, 3): self = .fitted8x3
      default: self = .runtime
      }
    case .rootFittedBezier(_, _, _, _, _, _, let fit, let steps):
      switch (fit.degree, steps) {
      case (4, 1): self = .root4x1
      case (5, 1): self = .root5x1
      case (6, 1): self = .root6x1
      case (7, 1): self = .root7x1
      case (8, 1): self = .root8x1
      case (4, 2): self = .root4x2
      case (5, 2): self = .root5x2
      case (6, 2): self = .root6x2
      case (7, 2): self = .root7x2
      case (8, 2): self = .root8x2
      default: self = .runtime
      }
    case .underdamped, .critical, .overdamped:
      self = .spring
    }
  }
}

extension SolvePath {
  /// Runs `visitor` with the Bezier solve this path names; false for `.spring` (nothing
  /// run). The one switch over every solve, without a default.
  @inlinable @inline(__always)
  func dispatch<V: SolveVisitor>(_ v: V) -> Bool {
    switch self {
    case .identity: v.visit(NewtonSolve<0, 0>.self)
    case .newton1: v.visit(NewtonSolve<1, 0>.self)
    case .newton2: v.visit(NewtonSolve<2, 0>.self)
    case .newton3: v.visit(NewtonSolve<3, 0>.self)
    case .newton4: v.visit(NewtonSolve<4, 0>.self)
    case .newton5: v.visit(NewtonSolve<5, 0>.self)
    case .newton6: v.visit(NewtonSolve<6, 0>.self)
    case .newton7: v.visit(NewtonSolve<7, 0>.self)
    case .newton8: v.visit(NewtonSolve<8, 0>.self)
    case .newton1Guess: v.visit(NewtonSolve<1, 1>.self)
    case .newton2Guess: v.visit(NewtonSolve<2, 1>.self)
    case .newton3Guess: v.visit(NewtonSolve<3, 1>.self)
    case .newton4Guess: v.visit(NewtonSolve<4, 1>.self)
    case .newton5Guess: v.visit(NewtonSolve<5, 1>.self)
    case .newton6Guess: v.visit(NewtonSolve<6, 1>.self)
    case .newton7Guess: v.visit(NewtonSolve<7, 1>.self)
    case .newton8Guess: v.visit(NewtonSolve<8, 1>.self)
    case .fitted4x1: v.visit(FittedSolve<4, 1>.self)
    case .fitted5x1: v.visit(FittedSolve<5, 1>.self)
    case .fitted6x1: v.visit(FittedSolve<6, 1>.self)
    case .fitted7x1: v.visit(FittedSolve<7, 1>.self)
    case .fitted8x1: v.visit(FittedSolve<8, 1>.self)
    case .fitted4x2: v.visit(FittedSolve<4, 2>.self)
    case .fitted5x2: v.visit(FittedSolve<5, 2>.self)
    case .fitted6x2: v.visit(FittedSolve<6, 2>.self)
    case .fitted7x2: v.visit(FittedSolve<7, 2>.self)
    case .fitted8x2: v.visit(FittedSolve<8, 2>.self)
    case .fitted4x3: v.visit(FittedSolve<4, 3>.self)
    case .fitted5x3: v.visit(FittedSolve<5, 3>.self)
    case .fitted6x3: v.visit(FittedSolve<6, 3>.self)
    case .fitted7x3: v.visit(FittedSolve<7, 3>.self)
    case .fitted8x3: v.visit(FittedSolve<8, 3>.self)
    case .root4x1: v.visit(RootFittedSolve<4, 1>.self)
    case .root5x1: v.visit(RootFittedSolve<5, 1>.self)
    case .root6x1: v.visit(RootFittedSolve<6, 1>.self)
    case .root7x1: v.visit(RootFittedSolve<7, 1>.self)
    case .root8x1: v.visit(RootFittedSolve<8, 1>.self)
    case .root4x2: v.visit(RootFittedSolve<4, 2>.self)
    case .root5x2: v.visit(RootFittedSolve<5, 2>.self)
    case .root6x2: v.visit(RootFittedSolve<6, 2>.self)
    case .root7x2: v.visit(RootFittedSolve<7, 2>.self)
    case .root8x2: v.visit(RootFittedSolve<8, 2>.self)
    case .runtime: v.visit(RuntimeSolve.self)
    case .spring: return false
    }
    return true
  }
}
