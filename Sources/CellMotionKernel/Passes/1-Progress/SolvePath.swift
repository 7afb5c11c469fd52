// SolvePath: which Bezier solve loop a compiled curve's progress stage runs, decided once
// per part when the recipe compiles, and the one switch (`dispatch`) that turns it into a
// type for the progress stage.
//
// The compile model: a handful of loops per lane width, not one per (steps, guess,
// degree, corrections) product. The curves the presets use (easeInEaseOut's fitted
// inverse, easeOut's and easeIn's square-root fit, linear) get loops with their counts as
// compile-time constants, which the benchmark shows pay (they are every preset's hot
// loop); every other curve runs one of three loops that read the curve's counts at run
// time. Those give the same bits as a specialised loop would (`SolvePathTests`), at the
// cost of a loop counter per Newton step and a degree-8 polynomial for any fit degree.

/// Something run with the Bezier solve a `SolvePath` names (`SolvePath.dispatch`): the
/// progress stage.
protocol SolveVisitor {
  func visit<S: BezierSolve>(_: S.Type)
}

/// The loop a curve's progress stage runs.
enum SolvePath: Hashable, Sendable, CaseIterable {
  /// y = x (a curve whose control points lie on the diagonal, such as linear): no solve.
  case identity
  /// easeInEaseOut's solve (tip-in and most presets): a fitted inverse of degree 7, one
  /// correction.
  case fitted7x1
  /// easeOut's and easeIn's solve (the flips, the grid cascade): a square-root fit of
  /// degree 4, one Newton correction.
  case root4x1
  /// Any other Newton solve: its step count and first guess read at run time.
  case newton
  /// Any other fitted inverse: degree and corrections read at run time.
  case fitted
  /// Any other square-root fit: degree and corrections read at run time.
  case rootFitted
  /// A spring: no Bezier solve (`dispatch` runs nothing).
  case spring

  /// The path of a compiled curve.
  init(_ curve: CompiledCurve) {
    switch curve {
    case .bezier(let ax, let bx, let cx, let ay, let by, let cy, let steps, _):
      // Only the identity polynomials (a curve on the diagonal) skip the solve; another
      // curve with x(s) = s and no step still needs y(s), which the run-time loop computes.
      self = steps == 0 && (ax, bx, cx, ay, by, cy) == (0, 0, 1, 0, 0, 1) ? .identity : .newton
    case .fittedBezier(_, _, _, _, _, _, let fit, let steps):
      self = (fit.degree, steps) == (7, 1) ? .fitted7x1 : .fitted
    case .rootFittedBezier(_, _, _, _, _, _, let fit, let steps):
      self = (fit.degree, steps) == (4, 1) ? .root4x1 : .rootFitted
    case .underdamped, .critical, .overdamped:
      self = .spring
    }
  }

  /// Whether the path's counts are compile-time constants (a loop of its own).
  var isSpecialised: Bool {
    switch self {
    case .identity, .fitted7x1, .root4x1: return true
    case .newton, .fitted, .rootFitted, .spring: return false
    }
  }
}

extension SolvePath {
  /// Runs `visitor` with the Bezier solve this path names; false for `.spring` (nothing
  /// run). The one switch over every solve, without a default.
  @inline(__always)
  func dispatch<V: SolveVisitor>(_ v: V) -> Bool {
    switch self {
    case .identity: v.visit(IdentitySolve.self)
    case .fitted7x1: v.visit(FittedSolve<7, 1>.self)
    case .root4x1: v.visit(RootFittedSolve<4, 1>.self)
    case .newton: v.visit(RuntimeNewtonSolve.self)
    case .fitted: v.visit(RuntimeFittedSolve.self)
    case .rootFitted: v.visit(RuntimeRootFittedSolve.self)
    case .spring: return false
    }
    return true
  }
}
