// The lane-group evaluation: every cell of a run shares one recipe, whose constants are
// broadcast; lanes differ only in start time and geometry. All branches below are on
// recipe constants (uniform across lanes); per-lane choices are masks and selects.

import CellMotion
import Foundation

/// Pointers to a batch's SoA inputs, valid for one evaluation.
@usableFromInline
struct KernelInputs: @unchecked Sendable {
  @usableFromInline let start: UnsafePointer<Float>
  @usableFromInline let width: UnsafePointer<Float>
  @usableFromInline let height: UnsafePointer<Float>
  @usableFromInline let tableWidth: UnsafePointer<Float>
  @usableFromInline let detailHeight: UnsafePointer<Float>
  @inlinable init(
    start: UnsafePointer<Float>, width: UnsafePointer<Float>, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, detailHeight: UnsafePointer<Float>
  ) {
    self.start = start
    self.width = width
    self.height = height
    self.tableWidth = tableWidth
    self.detailHeight = detailHeight
  }
}

/// Pointers to a frame's outputs; optional parts are nil when not requested.
@usableFromInline
struct KernelOutputs: @unchecked Sendable {
  @usableFromInline let matrices: UnsafeMutablePointer<Float>
  @usableFromInline let opacity: UnsafeMutablePointer<Float>
  @usableFromInline let shadow: UnsafeMutablePointer<Float>
  @usableFromInline let foldTop: UnsafeMutablePointer<Float>?
  @usableFromInline let foldBottom: UnsafeMutablePointer<Float>?
  @usableFromInline let foldShadow: UnsafeMutablePointer<Float>?
  @usableFromInline let corners: UnsafeMutablePointer<Float>?
  /// `matrices` holds 6 Floats per cell (`MatrixLayout.affine2D`), not 16.
  @usableFromInline let affine: Bool
  @inlinable init(
    matrices: UnsafeMutablePointer<Float>, opacity: UnsafeMutablePointer<Float>,
    shadow: UnsafeMutablePointer<Float>, foldTop: UnsafeMutablePointer<Float>?,
    foldBottom: UnsafeMutablePointer<Float>?, foldShadow: UnsafeMutablePointer<Float>?,
    corners: UnsafeMutablePointer<Float>?, affine: Bool = false
  ) {
    self.affine = affine
    self.matrices = matrices
    self.opacity = opacity
    self.shadow = shadow
    self.foldTop = foldTop
    self.foldBottom = foldBottom
    self.foldShadow = foldShadow
    self.corners = corners
  }
}

/// A general 4x4 in lanes (row-vector convention, field order).
@usableFromInline
struct LaneMatrix<L: FloatLanes> {
  @usableFromInline var m: (L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L)
  @inlinable init(_ m: (L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L)) { self.m = m }

  /// A 3x3 linear part plus translation, m44 = 1.
  @inlinable @inline(__always)
  init(linear r: (L, L, L, L, L, L, L, L, L), translation t: (L, L, L)) {
    let z = L(repeating: 0), o = L(repeating: 1)
    m = (r.0, r.1, r.2, z, r.3, r.4, r.5, z, r.6, r.7, r.8, z, t.0, t.1, t.2, o)
  }

  /// self * b (self applies first).
  @inlinable @inline(__always)
  func times(_ b: LaneMatrix<L>) -> LaneMatrix<L> {
    let a = m, c = b.m
    @inline(__always) func row(_ x: L, _ y: L, _ z: L, _ w: L) -> (L, L, L, L) {
      (
        L.muladd(x, c.0, L.muladd(y, c.4, L.muladd(z, c.8, w * c.12))),
        L.muladd(x, c.1, L.muladd(y, c.5, L.muladd(z, c.9, w * c.13))),
        L.muladd(x, c.2, L.muladd(y, c.6, L.muladd(z, c.10, w * c.14))),
        L.muladd(x, c.3, L.muladd(y, c.7, L.muladd(z, c.11, w * c.15)))
      )
    }
    let r0 = row(a.0, a.1, a.2, a.3), r1 = row(a.4, a.5, a.6, a.7)
    let r2 = row(a.8, a.9, a.10, a.11), r3 = row(a.12, a.13, a.14, a.15)
    return LaneMatrix((r0.0, r0.1, r0.2, r0.3, r1.0, r1.1, r1.2, r1.3, r2.0, r2.1, r2.2, r2.3, r3.0, r3.1, r3.2, r3.3))
  }

  /// self * Perspective(m34 = k): column 4 += column 3 * k.
  @inlinable @inline(__always)
  mutating func applyPerspective(_ k: Float) {
    m.3 = m.3 + m.2 * k
    m.7 = m.7 + m.6 * k
    m.11 = m.11 + m.10 * k
    m.15 = m.15 + m.14 * k
  }

  /// Translate(-a) * self * Translate(+a) for an anchor (ax, ay, 0).
  @inlinable @inline(__always)
  mutating func applyAnchor(_ ax: L, _ ay: L) {
    m.12 = m.12 - ax * m.0 - ay * m.4
    m.13 = m.13 - ax * m.1 - ay * m.5
    m.14 = m.14 - ax * m.2 - ay * m.6
    m.15 = m.15 - ax * m.3 - ay * m.7
    m.0 = m.0 + m.3 * ax
    m.1 = m.1 + m.3 * ay
    m.4 = m.4 + m.7 * ax
    m.5 = m.5 + m.7 * ay
    m.8 = m.8 + m.11 * ax
    m.9 = m.9 + m.11 * ay
    m.12 = m.12 + m.15 * ax
    m.13 = m.13 + m.15 * ay
  }
}

/// Transform channel values of one lane group (opacities have a stage of their own).
@usableFromInline
struct LaneChannels<L: FloatLanes> {
  @usableFromInline var tx = L(repeating: 0), ty = L(repeating: 0), tz = L(repeating: 0)
  @usableFromInline var rx = L(repeating: 0), ry = L(repeating: 0), rz = L(repeating: 0)
  @usableFromInline var s = L(repeating: 1), sx = L(repeating: 1), sy = L(repeating: 1)
  @inlinable init() {}
}

/// The affine result of a planar group: [a b 0 0; c d 0 0; 0 0 1 0; tx ty 0 1].
@usableFromInline
struct LanePlanar<L: FloatLanes> {
  @usableFromInline var a, b, c, d, tx, ty: L
  @inlinable init(a: L, b: L, c: L, d: L, tx: L, ty: L) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }
}

/// A planar recipe's 2D matrix path as plain Floats, computed once when the recipe is
/// compiled (`CompiledRecipe.planarConstants`; no array access or bounds check per group):
/// start values and deltas of (tx, ty, sx, sy, angle, m11, m12, m21, m22), and the flags
/// that pick the planar loop (`PlanarShape`).
@usableFromInline
struct PlanarConstants: Sendable {
  @usableFromInline var part: Int?
  /// Start values (f) and deltas (d) of tx, ty, sx, sy, angle, m11, m12, m21, m22.
  @usableFromInline var ftx: Float = 0, fty: Float = 0, fsx: Float = 0, fsy: Float = 0, fan: Float = 0
  @usableFromInline var f11: Float = 0, f12: Float = 0, f21: Float = 0, f22: Float = 0
  @usableFromInline var dtx: Float = 0, dty: Float = 0, dsx: Float = 0, dsy: Float = 0, dan: Float = 0
  @usableFromInline var d11: Float = 0, d12: Float = 0, d21: Float = 0, d22: Float = 0
  /// Whether the decomposition's remaining 2x2 (m11 m12 m21 m22) is not the identity at
  /// both ends (a skew); without one, Scale * Rotation is all there is.
  @usableFromInline var hasRemainder = false
  /// Whether the matrix path's angle, and the winning rotation-about-z channel, stay within
  /// [-pi/4, pi/4] for every progress the curves can produce (`progressBounds`), so the
  /// group can use `sincosSmall` (no argument reduction).
  @usableFromInline var smallAngle = false
  @usableFromInline var smallRotationZ = false
  /// Whether the matrix path's scale is 1 on both axes at every time (fsx = fsy = 1,
  /// dsx = dsy = 0): S * R is R (tip-in).
  @usableFromInline var unitScale = false
  init(_ r: CompiledRecipe) {
    func small(_ from: Float, _ delta: Float, _ part: Int) -> Bool {
      let b = r.parts[part].curve.progressBounds
      let ends = [Double(from) + Double(delta) * b.lo, Double(from) + Double(delta) * b.hi]
      return ends.allSatisfy { abs($0) <= Double.pi / 4 }
    }
    if let rz = r.transformChannels.last(where: { $0.channel == .rotationZ }) {
      let d = rz.to - rz.from
      smallRotationZ = rz.from.y == 0 && rz.from.z == 0 && d.y == 0 && d.z == 0 && small(rz.from.x, d.x, rz.part)
    } else {
      smallRotationZ = true
    }
    part = nil
    if case .twoD(let p, let a, let b) = r.matrix {
      part = p
      (ftx, fty, fsx, fsy, fan) = (a[0], a[1], a[2], a[3], a[4])
      (f11, f12, f21, f22) = (a[5], a[6], a[7], a[8])
      (dtx, dty, dsx, dsy, dan) = (b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3], b[4] - a[4])
      (d11, d12, d21, d22) = (b[5] - a[5], b[6] - a[6], b[7] - a[7], b[8] - a[8])
      hasRemainder = (f11, f12, f21, f22) != (1, 0, 0, 1) || (d11, d12, d21, d22) != (0, 0, 0, 0)
      smallAngle = small(fan, dan, p)
      unitScale = (fsx, fsy, dsx, dsy) == (1, 1, 0, 0)
    }
  }
}

/// Which planar path a block takes, known to the compiler: each flag is a constant in a
/// specialised kernel (the group loop is then straight-line code with no per-group tests,
/// phi moves or spills), or nil to read it from the recipe at run time (`AnyPlanar`).
/// `Kernel.evaluatePlanarRun` picks the shape once per block.
@usableFromInline protocol PlanarShape {
  /// Whether channels move the transform (`CompiledRecipe.hasChannelTransform`).
  static var channels: Bool? { get }
  /// Whether a whole-matrix animation applies (`PlanarConstants.part != nil`).
  static var matrix: Bool? { get }
  /// Whether fold halves or corners are written (`groupExtras`).
  static var extras: Bool? { get }
  static var smallAngle: Bool? { get }
  static var remainder: Bool? { get }
  static var unitScale: Bool? { get }
  static var smallRotationZ: Bool? { get }
  static var translateFirst: Bool? { get }
}
@usableFromInline protocol StaticFlag { static var value: Bool { get } }
@usableFromInline enum Yes: StaticFlag { @inlinable static var value: Bool { true } }
@usableFromInline enum No: StaticFlag { @inlinable static var value: Bool { false } }

/// Every flag read at run time: recipes with channels and a matrix, fold or corners.
@usableFromInline enum AnyPlanar: PlanarShape {
  @inlinable static var channels: Bool? { nil }
  @inlinable static var matrix: Bool? { nil }
  @inlinable static var extras: Bool? { nil }
  @inlinable static var smallAngle: Bool? { nil }
  @inlinable static var remainder: Bool? { nil }
  @inlinable static var unitScale: Bool? { nil }
  @inlinable static var smallRotationZ: Bool? { nil }
  @inlinable static var translateFirst: Bool? { nil }
}

/// A whole-matrix animation only (tip-in), no extras.
@usableFromInline enum MatrixPlanar<SmallAngle: StaticFlag, Remainder: StaticFlag, UnitScale: StaticFlag>: PlanarShape {
  @inlinable static var channels: Bool? { false }
  @inlinable static var matrix: Bool? { true }
  @inlinable static var extras: Bool? { false }
  @inlinable static var smallAngle: Bool? { SmallAngle.value }
  @inlinable static var remainder: Bool? { Remainder.value }
  @inlinable static var unitScale: Bool? { UnitScale.value }
  @inlinable static var smallRotationZ: Bool? { nil }
  @inlinable static var translateFirst: Bool? { nil }
}

/// Channels only (slide-in, move-up, the channel form of tip-in), no extras.
@usableFromInline enum ChannelPlanar<SmallRotationZ: StaticFlag, TranslateFirst: StaticFlag>: PlanarShape {
  @inlinable static var channels: Bool? { true }
  @inlinable static var matrix: Bool? { false }
  @inlinable static var extras: Bool? { false }
  @inlinable static var smallAngle: Bool? { nil }
  @inlinable static var remainder: Bool? { nil }
  @inlinable static var unitScale: Bool? { nil }
  @inlinable static var smallRotationZ: Bool? { SmallRotationZ.value }
  @inlinable static var translateFirst: Bool? { TranslateFirst.value }
}

/// A fold's two halves and their shadow opacity, per lane.
@usableFromInline
struct LaneFold<L: FloatLanes> {
  @usableFromInline var top: LaneMatrix<L>
  @usableFromInline var bottom: LaneMatrix<L>
  @usableFromInline var shadow: L
  @inlinable init(top: LaneMatrix<L>, bottom: LaneMatrix<L>, shadow: L) {
    self.top = top
    self.bottom = bottom
    self.shadow = shadow
  }
}

/// How `Kernel.bezierStage` solves a curve: a fixed step count and first guess known to
/// the compiler (the loop unrolls), or the compiled curve's own (`RuntimeSolve`).
@usableFromInline protocol BezierSolve {
  /// true: the fitted inverse (`CompiledCurve.fittedBezier`); false: Newton; nil: the curve's.
  static var fitted: Bool? { get }
  static var steps: Int? { get }
  static var quadraticGuess: Bool? { get }
  /// Degree of the fitted inverse.
  static var degree: Int? { get }
}
/// Newton's solve with `n` steps, from the quadratic first guess when `guess` is 1 (Swift's
/// integer generic parameters: every count is a type without a hand-written type per count).
@usableFromInline enum NewtonSolve<let n: Int, let guess: Int>: BezierSolve {
  @inlinable static var fitted: Bool? { false }
  @inlinable static var steps: Int? { n }
  @inlinable static var quadraticGuess: Bool? { guess != 0 }
  @inlinable static var degree: Int? { 0 }
}
/// A fitted inverse of degree `d` with `n` corrections.
@usableFromInline enum FittedSolve<let d: Int, let n: Int>: BezierSolve {
  @inlinable static var fitted: Bool? { true }
  @inlinable static var steps: Int? { n }
  @inlinable static var quadraticGuess: Bool? { false }
  @inlinable static var degree: Int? { d }
}

@usableFromInline enum RuntimeSolve: BezierSolve {
  @inlinable static var fitted: Bool? { nil }
  @inlinable static var steps: Int? { nil }
  @inlinable static var quadraticGuess: Bool? { nil }
  @inlinable static var degree: Int? { nil }
}

/// The loop a curve's progress stage runs: one case per specialised Bezier solve (its
/// counts known to the compiler, so the loop unrolls), the run-time fallback, or a spring.
///
/// Every (steps, first guess) and (degree, corrections) that `CompiledCurve` can choose
/// (Newton 1...8 steps with either guess, fitted degree 4...8 with 1...3 corrections) has
/// a case, and `Kernel.progressStage` switches over this enum without a default, so a case
/// cannot be dropped from the kernel without a compile error, nor from here without a
/// curve mapping to `.runtime`, which `SolvePathTests` checks for every preset and for
/// sampled random curves. (When the old `Steps4` type was deleted, curves compiled to 4
/// steps silently fell to the run-time loop.)
@usableFromInline enum SolvePath: Hashable, Sendable {
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
  case runtime
  case spring

  /// The path of a compiled curve.
  @inlinable
  init(_ curve: CompiledCurve) {
    switch curve {
    case .bezier(_, _, _, _, _, _, let steps, let guess):
      switch (steps, guess) {
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
    case .underdamped, .critical, .overdamped:
      self = .spring
    }
  }
}

/// Stage 1's output for one block: the progress of part k (`CompiledRecipe.parts`) for the
/// block's cell i at `base[k * stride + i]`.
@usableFromInline
struct StagedProgress: @unchecked Sendable {
  @usableFromInline let base: UnsafePointer<Float>
  @usableFromInline let stride: Int
  @inlinable init(base: UnsafePointer<Float>, stride: Int) {
    self.base = base
    self.stride = stride
  }
  /// The lane group of part `part` at the block's cell `i`.
  @inlinable @inline(__always)
  func callAsFunction<L: FloatLanes>(_ part: Int, _ i: Int) -> L { L.load(base + part * stride + i) }
}

extension Kernel {
  /// Solves x(s) = x for the Bezier parameter, per lane, branch-free: a fixed number of
  /// Newton steps, each safeguarded by a bracket [lo, hi] that bisection falls back to
  /// where Newton would leave it (or its derivative vanishes). x(s) is non-decreasing
  /// because the x control points lie in [0, 1], so the bracket is valid.
  @inlinable @inline(__always)
  static func bezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float,
    steps: Int = bezierSteps, quadraticGuess: Bool = true
  ) -> L {
    // Well-conditioned curves converge from s = x in as few steps as the quadratic guess
    // needs plus its own cost (a square root and a divide); the compiler picks per curve.
    var s = x
    if quadraticGuess { s = quadraticFirstGuess(x, ax, bx, cx) }
    var lo = L(repeating: 0), hi = L(repeating: 1)
    let ax3 = ax * 3, bx2 = bx * 2
    let negX = L(repeating: 0) - x
    for _ in 0..<steps {
      let fx = L.muladd(L.muladd(L.muladd(s, ax, bx), s, cx), s, negX)
      let below = L.lt(fx, L(repeating: 0))
      lo = lo.replacing(with: s, where: below)
      hi = s.replacing(with: hi, where: below)
      let d = L.muladd(L.muladd(s, ax3, bx2), s, cx)
      let newton = s - fx / d
      let mid = (lo + hi) * 0.5
      // Keep Newton inside the bracket, ends included (a converged step lands on one);
      // NaN and infinities fail this test and bisect instead.
      let inside = L.and(L.ge(newton, lo), L.ge(hi, newton))
      s = mid.replacing(with: newton, where: inside)
    }
    let y = L.muladd(L.muladd(s, ay, by), s, cy) * s
    // The ends are exact (0 -> 0, 1 -> 1), as in the reference; the Float polynomial at
    // s = 1 is not exactly 1, and x'(1) = 0 for curves with x2 = 1 stalls Newton there.
    let end = L.ge(x, L(repeating: 1))
    return y.replacing(with: L(repeating: 1), where: end)
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// Progress of a Bezier through its fitted inverse (`CompiledCurve.fittedBezier`): s0 =
  /// P(x), then `steps` corrections s -= (x(s) - x) P'(x), then y(s). (No clamp of s0: P
  /// stays within its fit error of [0, 1] for x in [0, 1], and the compiler checked the
  /// result near both ends.)
  /// Multiply-adds only: no divide, no select until the exact ends. `p` and `dp` are
  /// `InverseFit.p` and `.dp`.
  @inlinable @inline(__always)
  static func fittedBezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float,
    p: SIMD16<Float>, dp: SIMD16<Float>, degree: Int, steps: Int
  ) -> L {
    let t = L.muladd(x, 2, -1), t2 = t * t, t4 = t2 * t2
    var s = estrin(p, degree: degree, t, t2, t4)
    let negD = L(repeating: 0) - estrin(dp, degree: degree - 1, t, t2, t4)
    let negX = L(repeating: 0) - x
    for _ in 0..<steps {
      let fx = L.muladd(L.muladd(L.muladd(s, ax, bx), s, cx), s, negX)
      s = L.muladd(fx, negD, s)
    }
    let y = L.muladd(L.muladd(s, ay, by), s, cy) * s
    // The ends exact, as in `bezierProgress`.
    return y.replacing(with: L(repeating: 1), where: L.ge(x, L(repeating: 1)))
      .replacing(with: L(repeating: 0), where: L.ge(L(repeating: 0), x))
  }

  /// The polynomial with coefficients `c` (lowest first, degree <= 15) at t, by Estrin's
  /// scheme: pairs c_2j + c_2j+1 t, then pairs of those with t^2, t^4, t^8. The same
  /// multiply-add count as Horner's rule, but a dependency chain of about log2(degree)
  /// steps instead of `degree` (the solve is latency-bound). `degree` is a constant in
  /// the specialised kernels, so every test here folds away.
  @inlinable @inline(__always)
  static func estrin<L: FloatLanes>(_ c: SIMD16<Float>, degree d: Int, _ t: L, _ t2: L, _ t4: L) -> L {
    @inline(__always) func q(_ j: Int) -> L {
      2 * j + 1 <= d ? L.muladd(t, L(repeating: c[2 * j + 1]), L(repeating: c[2 * j])) : L(repeating: c[2 * j])
    }
    @inline(__always) func r(_ j: Int) -> L { 4 * j + 2 <= d ? L.muladd(t2, q(2 * j + 1), q(2 * j)) : q(2 * j) }
    @inline(__always) func u(_ j: Int) -> L { 8 * j + 4 <= d ? L.muladd(t4, r(2 * j + 1), r(2 * j)) : r(2 * j) }
    return d >= 8 ? L.muladd(t4 * t4, u(1), u(0)) : u(0)
  }

  /// `fittedBezierProgress` with the fit's own degree.
  @inlinable
  static func fittedBezierProgress<L: FloatLanes>(
    _ x: L, _ ax: Float, _ bx: Float, _ cx: Float, _ ay: Float, _ by: Float, _ cy: Float, _ fit: InverseFit,
    degree: Int? = nil, steps: Int
  ) -> L {
    fittedBezierProgress(x, ax, bx, cx, ay, by, cy, p: fit.p, dp: fit.dp, degree: degree ?? fit.degree, steps: steps)
  }

  /// The quadratic first guess of `bezierProgress`, in [0, 1].
  @inlinable @inline(__always)
  static func quadraticFirstGuess<L: FloatLanes>(_ x: L, _ ax: Float, _ bx: Float, _ cx: Float) -> L {
    // First guess from the quadratic expansion at the nearer end, exact as s -> 0 or 1,
    // where x'(s) may vanish (x1 = 0 or x2 = 1) and plain Newton from s = x crawls:
    // near 0, x ~ cx s + bx s^2; near 1, 1 - x ~ d u + e u^2 with u = 1 - s,
    // d = x'(1) = 3ax + 2bx + cx, e = -(3ax + bx). Solved in the cancellation-free form
    // r = 2 c / (b + sqrt(b^2 + 4 a c)).
    let back = L.ge(x, L(repeating: 0.5))
    let xr = x.replacing(with: 1 - x, where: back)
    let qa = L(repeating: bx).replacing(with: L(repeating: -(3 * ax + bx)), where: back)
    let qb = L(repeating: cx).replacing(with: L(repeating: 3 * ax + 2 * bx + cx), where: back)
    let disc = L.maximum(qb * qb + qa * xr * 4, L(repeating: 0))
    let r = (xr * 2) / (qb + L.sqrt(disc))
    var s = L.clamp(r.replacing(with: 1 - r, where: back), 0, 1)
    // 0/0 (degenerate curves) fails every comparison: start from x there.
    s = x.replacing(with: s, where: L.and(L.ge(s, L(repeating: 0)), L.ge(L(repeating: 1), s)))
    return s
  }

  /// Most Newton/bisection steps of `bezierProgress`: 8 keep the kernel within 2e-6 of the
  /// exact progress on the presets and 1e-5 on random curves with near-vertical ends
  /// (measured by KernelDifferentialTests.bezierSolveBound). Each compiled curve runs the
  /// fewest steps that do as well (`CompiledCurve.newtonSteps`).
  @usableFromInline static var bezierSteps: Int { 8 }

  /// Local time of one timed part per lane at frame time `t` (relative to the batch
  /// origin), in seconds within [0, duration], and the lanes where the part is inactive
  /// (no fill: the model value shows, as progress 1).
  @inlinable @inline(__always)
  static func partLocalTime<L: FloatLanes>(
    _ part: CompiledPart, _ r: CompiledRecipe, start: L, t: Float
  ) -> (local: L, inactive: L.Mask) {
    let dur = part.duration
    var ta = (L(repeating: t) - start) - part.delay
    var local: L
    var inactive: L.Mask
    if r.simpleTiming {
      local = L.clamp(ta, 0, dur)
      // Inactive before the start unless filling backwards, and from the end on unless
      // filling forwards (the model value, = to, shows: same as p = 1 for a single
      // non-reversing iteration, but kept explicit). Thresholds, not branches on the flags,
      // so the mask stays in a register.
      let before: Float = r.fillsBackwards ? -.infinity : 0
      let after: Float = r.fillsForwards ? .infinity : dur
      inactive = L.or(L.lt(ta, L(repeating: before)), L.ge(ta, L(repeating: after)))
    } else {
      ta = ta * r.speed
      let active = dur * max(r.repeatCount, 1) * (r.autoreverses ? 2 : 1)
      let k = L.floor(ta * (1 / dur))
      var tl = L.clamp(ta - k * dur, 0, dur)
      if r.autoreverses {
        let odd = L.ge(k - L.floor(k * 0.5) * 2, L(repeating: 0.5))
        tl = tl.replacing(with: dur - tl, where: odd)
      }
      let before = L.lt(ta, L(repeating: 0))
      let after = L.ge(ta, L(repeating: active))
      local = tl.replacing(with: L(repeating: 0), where: before)
      local = local.replacing(with: L(repeating: part.endLocalTime), where: after)
      inactive = L.lt(ta, L(repeating: -Float.infinity))
      if !r.fillsBackwards { inactive = L.or(inactive, before) }
      if !r.fillsForwards { inactive = L.or(inactive, after) }
    }
    return (local, inactive)
  }

  /// Progress of one timed part per lane at frame time `t` (relative to the batch origin).
  @inlinable @inline(__always)
  static func partProgress<L: FloatLanes>(
    _ part: CompiledPart, _ r: CompiledRecipe, start: L, t: Float
  ) -> L {
    let (local, inactive) = partLocalTime(part, r, start: start, t: t)
    return curveProgress(part.curve, local: local, duration: part.duration)
      .replacing(with: L(repeating: 1), where: inactive)
  }

  /// Progress of `curve` at local time `local` (seconds in [0, duration]) per lane.
  @inlinable @inline(__always)
  static func curveProgress<L: FloatLanes>(_ curve: CompiledCurve, local: L, duration dur: Float) -> L {
    var p: L
    switch curve {
    case .bezier(let ax, let bx, let cx, let ay, let by, let cy, let steps, let guess):
      p = bezierProgress(
        L.clamp(local * (1 / dur), 0, 1), ax, bx, cx, ay, by, cy, steps: steps, quadraticGuess: guess)
    case .fittedBezier(let ax, let bx, let cx, let ay, let by, let cy, let fit, let steps):
      p = fittedBezierProgress(L.clamp(local * (1 / dur), 0, 1), ax, bx, cx, ay, by, cy, fit, steps: steps)
    case .underdamped(let a, let wd, let b):
      let e = L.exp(local * -a)
      let sc = L.sincos(local * wd)
      p = 1 - e * (sc.cos + sc.sin * b)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    case .critical(let w0, let c):
      p = 1 - (local * c + 1) * L.exp(local * -w0)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    case .overdamped(let a, let beta, let c, let slow, let fast):
      // e^(-a t) cosh(beta t) = (e1 + e2) / 2 and e^(-a t) sinh(beta t) / (beta t) with
      // e1,2 = e^(-slow t), e^(-fast t) (slow = a - beta without cancellation), both
      // decaying (no overflow). For small y = beta t the difference cancels, so use the
      // series sinh(y)/y = 1 + y^2/6 + y^4/120 + y^6/5040 (relative error < 3e-9 for y < 0.5).
      let e1 = L.exp(local * -slow), e2 = L.exp(local * -fast)
      let y = local * beta
      let y2 = y * y
      let series = L.exp(local * -a) * (((y2 * (1 / 5040) + (1 / 120)) * y2 + (1 / 6)) * y2 + 1)
      let direct = (e1 - e2) / L.maximum(y * 2, L(repeating: 1e-30))
      let sinhc = series.replacing(with: direct, where: L.ge(y, L(repeating: 0.5)))
      p = 1 - ((e1 + e2) * 0.5 + local * c * sinhc)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    }
    return p
  }

  /// Stage 1 of a block: the progress of `part` for `count` cells starting at `start`,
  /// written to `out` in whole lane groups (the last group padded with its first lane's
  /// input, so `out` needs room for `count` rounded up to `L.width`). The curve is chosen
  /// once, outside the loop, so each curve runs as its own small loop whose iterations
  /// the processor overlaps (the Bezier solve is a chain of dependent steps).
  @inlinable @inline(__always)
  static func progressStage<L: FloatLanes>(
    _: L.Type, _ part: CompiledPart, _ r: CompiledRecipe, t: Float, start: UnsafePointer<Float>, count: Int,
    into out: UnsafeMutablePointer<Float>
  ) {
    // Bezier solves run as types, so their loops specialise to straight-line code (a
    // literal argument to an inlined function was not enough: the optimiser kept the stage
    // out of line with the step count as a run-time value). No default: see `SolvePath`.
    @inline(__always) func run<S: BezierSolve>(_: S.Type) {
      bezierStage(L.self, S.self, part, r, t: t, start: start, count: count, into: out)
    }
    switch part.solvePath {
    case .newton1: run(NewtonSolve<1, 0>.self)
    case .newton2: run(NewtonSolve<2, 0>.self)
    case .newton3: run(NewtonSolve<3, 0>.self)
    case .newton4: run(NewtonSolve<4, 0>.self)
    case .newton5: run(NewtonSolve<5, 0>.self)
    case .newton6: run(NewtonSolve<6, 0>.self)
    case .newton7: run(NewtonSolve<7, 0>.self)
    case .newton8: run(NewtonSolve<8, 0>.self)
    case .newton1Guess: run(NewtonSolve<1, 1>.self)
    case .newton2Guess: run(NewtonSolve<2, 1>.self)
    case .newton3Guess: run(NewtonSolve<3, 1>.self)
    case .newton4Guess: run(NewtonSolve<4, 1>.self)
    case .newton5Guess: run(NewtonSolve<5, 1>.self)
    case .newton6Guess: run(NewtonSolve<6, 1>.self)
    case .newton7Guess: run(NewtonSolve<7, 1>.self)
    case .newton8Guess: run(NewtonSolve<8, 1>.self)
    case .fitted4x1: run(FittedSolve<4, 1>.self)
    case .fitted5x1: run(FittedSolve<5, 1>.self)
    case .fitted6x1: run(FittedSolve<6, 1>.self)
    case .fitted7x1: run(FittedSolve<7, 1>.self)
    case .fitted8x1: run(FittedSolve<8, 1>.self)
    case .fitted4x2: run(FittedSolve<4, 2>.self)
    case .fitted5x2: run(FittedSolve<5, 2>.self)
    case .fitted6x2: run(FittedSolve<6, 2>.self)
    case .fitted7x2: run(FittedSolve<7, 2>.self)
    case .fitted8x2: run(FittedSolve<8, 2>.self)
    case .fitted4x3: run(FittedSolve<4, 3>.self)
    case .fitted5x3: run(FittedSolve<5, 3>.self)
    case .fitted6x3: run(FittedSolve<6, 3>.self)
    case .fitted7x3: run(FittedSolve<7, 3>.self)
    case .fitted8x3: run(FittedSolve<8, 3>.self)
    case .runtime: run(RuntimeSolve.self)
    case .spring:
      var i = 0
      while i < count {
        partProgress(part, r, start: loadGroup(start + i, count - i) as L, t: t).store(to: out + i)
        i += L.width
      }
    }
  }

  /// The Bezier loop of `progressStage`; `S` fixes the solve (`BezierSolve`).
  @inlinable
  static func bezierStage<L: FloatLanes, S: BezierSolve>(
    _: L.Type, _: S.Type, _ part: CompiledPart, _ r: CompiledRecipe, t: Float, start: UnsafePointer<Float>,
    count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    // Constants only (`let`): the local function below must not capture a variable, which
    // would put it in a heap box on every call.
    let ax: Float, bx: Float, cx: Float, ay: Float, by: Float, cy: Float
    let runtimeFitted: Bool, runtimeSteps: Int, runtimeGuess: Bool, runtimeDegree: Int
    let p: SIMD16<Float>, dp: SIMD16<Float>
    switch part.curve {
    case .bezier(let a0, let a1, let a2, let a3, let a4, let a5, let st, let g):
      (ax, bx, cx, ay, by, cy) = (a0, a1, a2, a3, a4, a5)
      (runtimeFitted, runtimeSteps, runtimeGuess, runtimeDegree, p, dp) = (false, st, g, 0, .zero, .zero)
    case .fittedBezier(let a0, let a1, let a2, let a3, let a4, let a5, let fit, let st):
      (ax, bx, cx, ay, by, cy) = (a0, a1, a2, a3, a4, a5)
      (runtimeFitted, runtimeSteps, runtimeGuess, runtimeDegree, p, dp) = (true, st, false, fit.degree, fit.p, fit.dp)
    default: return
    }
    let fitted = S.fitted ?? runtimeFitted, steps = S.steps ?? runtimeSteps
    let guess = S.quadraticGuess ?? runtimeGuess, degree = S.degree ?? runtimeDegree
    @inline(__always) func solve(_ x: L) -> L {
      fitted
        ? fittedBezierProgress(x, ax, bx, cx, ay, by, cy, p: p, dp: dp, degree: degree, steps: steps)
        : bezierProgress(x, ax, bx, cx, ay, by, cy, steps: steps, quadraticGuess: guess)
    }
    let dur = part.duration, inv = 1 / dur
    if r.simpleTiming {
      // `partLocalTime`'s simple case with every recipe constant in a local first (read
      // through `r` they were reloaded and re-tested per group), and the inactive lanes
      // as two selects at the end (no mask kept alive across the solve).
      let t0 = t - part.delay
      let before: Float = r.fillsBackwards ? -.infinity : 0
      let after: Float = r.fillsForwards ? .infinity : dur
      var i = 0
      while i < count {
        let st: L = loadGroup(start + i, count &- i)
        let ta = L(repeating: t0) - st
        // x = (t0 - start) / dur as one multiply-add (off the solve's critical path: the
        // selects below use ta).
        let x = L.clamp(L.muladd(st, -inv, t0 * inv), 0, 1)
        solve(x)
          .replacing(with: L(repeating: 1), where: L.lt(ta, L(repeating: before)))
          .replacing(with: L(repeating: 1), where: L.ge(ta, L(repeating: after)))
          .store(to: out + i)
        i &+= L.width
      }
      return
    }
    var i = 0
    while i < count {
      let (local, inactive) = partLocalTime(part, r, start: loadGroup(start + i, count - i) as L, t: t)
      solve(L.clamp(local * inv, 0, 1)).replacing(with: L(repeating: 1), where: inactive).store(to: out + i)
      i += L.width
    }
  }

  /// The opacity (or shadow opacity) stage of a block: the winning channel's value clamped
  /// to [0, 1], or `modelValue` where the recipe does not animate it, written straight to
  /// `out` for the block's `count` cells (a last partial group stores only its valid
  /// lanes).
  @inlinable @inline(__always)
  static func opacityStage<L: FloatLanes>(
    _: L.Type, _ channel: CompiledChannel?, modelValue: Float, progress: StagedProgress, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let w = L.width
    guard let ch = channel else {
      var i = 0
      while i + w <= count {
        L(repeating: modelValue).store(to: out + i)
        i += w
      }
      while i < count {
        out[i] = modelValue
        i += 1
      }
      return
    }
    let f = ch.from, d = ch.to - ch.from
    let usesGeometry = f.y != 0 || f.z != 0 || d.y != 0 || d.z != 0
    var i = 0
    while i < count {
      let p: L = progress(ch.part, i)
      var v: L
      if usesGeometry {
        let rest = count - i
        let he: L = loadGroup(height + i, rest), tw: L = loadGroup(tableWidth + i, rest)
        let from = L.muladd(he, f.y, L.muladd(tw, f.z, L(repeating: f.x)))
        let delta = L.muladd(he, d.y, L.muladd(tw, d.z, L(repeating: d.x)))
        v = L.muladd(delta, p, from)
      } else {
        v = L.muladd(p, d.x, f.x)
      }
      v = L.clamp(v, 0, 1)
      if i + w <= count {
        v.store(to: out + i)
      } else {
        for k in 0..<(count - i) { out[i + k] = v[lane: k] }
      }
      i += w
    }
  }

  /// Loads a lane group from `p`; when fewer than `L.width` values remain (`available`),
  /// only those are read and the other lanes repeat the first (finite, like real input).
  @inlinable @inline(__always)
  static func loadGroup<L: FloatLanes>(_ p: UnsafePointer<Float>, _ available: Int) -> L {
    if available >= L.width { return L.load(p) }
    var v = L(repeating: p[0])
    for k in 1..<available { v[lane: k] = p[k] }
    return v
  }

  /// Every channel's value for one lane group (model values where nothing animates), from
  /// the staged progress of the group at the block's cell `i`.
  @inlinable @inline(__always)
  static func channelValues<L: FloatLanes>(
    _ r: CompiledRecipe, progress: StagedProgress, at i: Int, height: L, tableWidth: L
  ) -> LaneChannels<L> {
    var c = LaneChannels<L>()
    for ch in r.transformChannels {
      let p: L = progress(ch.part, i)
      // from + (to - from) p, each end c + h * cellHeight + w * tableWidth.
      let f = ch.from, d = ch.to - ch.from
      let from = L.muladd(height, f.y, L.muladd(tableWidth, f.z, L(repeating: f.x)))
      let delta = L.muladd(height, d.y, L.muladd(tableWidth, d.z, L(repeating: d.x)))
      let v = L.muladd(delta, p, from)
      switch ch.channel {
      case .opacity, .shadowOpacity: break  // opacityStage
      case .translationX: c.tx = v
      case .translationY: c.ty = v
      case .translationZ: c.tz = v
      case .rotationX: c.rx = v
      case .rotationY: c.ry = v
      case .rotationZ: c.rz = v
      case .scale: c.s = v
      case .scaleX: c.sx = v
      case .scaleY: c.sy = v
      }
    }
    return c
  }

  /// Evaluates one lane group of a planar recipe (`CompiledRecipe.isPlanar`: no rotation
  /// about x or y, no z translation, no perspective, a 2D matrix path if any): only the six
  /// entries of the affine matrix [a b 0 0; c d 0 0; 0 0 1 0; tx ty 0 1] are computed,
  /// with the same formulas as `evaluateGroup` restricted to them. Fewer live vectors than
  /// the general 4x4 (6 instead of 16), so nothing spills.
  @inlinable @inline(__always)
  static func evaluatePlanarGroup<L: FloatLanes, S: PlanarShape>(
    _ r: CompiledRecipe, _ k: PlanarConstants, _: S.Type, progress: StagedProgress, at i: Int, width: L, height: L,
    tableWidth: L
  ) -> LanePlanar<L> {
    let one = L(repeating: 1), z = L(repeating: 0)
    let hasChannels = S.channels ?? r.hasChannelTransform
    var m = LanePlanar<L>(a: one, b: z, c: z, d: one, tx: z, ty: z)
    if hasChannels {
      let v: LaneChannels<L> = channelValues(r, progress: progress, at: i, height: height, tableWidth: tableWidth)
      let ex = v.s * v.sx, ey = v.s * v.sy
      let cz = (S.smallRotationZ ?? k.smallRotationZ) ? L.sincosSmall(v.rz) : L.sincos(v.rz)
      // S * Rz rows [ex cz, ex sz], [-ey sz, ey cz]; translation first or last.
      m.a = ex * cz.cos
      m.b = ex * cz.sin
      m.c = -(ey * cz.sin)
      m.d = ey * cz.cos
      if S.translateFirst ?? r.translateFirst {
        m.tx = L.muladd(v.tx, m.a, v.ty * m.c)
        m.ty = L.muladd(v.tx, m.b, v.ty * m.d)
      } else {
        m.tx = v.tx
        m.ty = v.ty
      }
    }
    if S.matrix ?? (k.part != nil) {
      let p: L = progress(k.part ?? 0, i)
      let angle = L.muladd(p, k.dan, k.fan)
      let cs = (S.smallAngle ?? k.smallAngle) ? L.sincosSmall(angle) : L.sincos(angle)
      // Scale * Rotation * Remainder; rotation rows [cos, sin], [-sin, cos].
      var a2 = cs.cos, b2 = cs.sin, c2 = -cs.sin, d2 = cs.cos
      if !(S.unitScale ?? k.unitScale) {
        let dsx = L.muladd(p, k.dsx, k.fsx), dsy = L.muladd(p, k.dsy, k.fsy)
        (a2, b2, c2, d2) = (dsx * a2, dsx * b2, dsy * c2, dsy * d2)
      }
      if S.remainder ?? k.hasRemainder {
        let r11 = L.muladd(p, k.d11, k.f11), r12 = L.muladd(p, k.d12, k.f12)
        let r21 = L.muladd(p, k.d21, k.f21), r22 = L.muladd(p, k.d22, k.f22)
        (a2, b2, c2, d2) = (
          L.muladd(a2, r11, b2 * r21), L.muladd(a2, r12, b2 * r22),
          L.muladd(c2, r11, d2 * r21), L.muladd(c2, r12, d2 * r22)
        )
      }
      let tx2 = L.muladd(p, k.dtx, k.ftx), ty2 = L.muladd(p, k.dty, k.fty)
      if hasChannels {
        // channels * matrix (2D affine product, row vectors).
        m = LanePlanar(
          a: L.muladd(m.a, a2, m.b * c2), b: L.muladd(m.a, b2, m.b * d2),
          c: L.muladd(m.c, a2, m.d * c2), d: L.muladd(m.c, b2, m.d * d2),
          tx: L.muladd(m.tx, a2, L.muladd(m.ty, c2, tx2)), ty: L.muladd(m.tx, b2, L.muladd(m.ty, d2, ty2)))
      } else {
        m = LanePlanar(a: a2, b: b2, c: c2, d: d2, tx: tx2, ty: ty2)
      }
    }
    // About the anchor: Translate(-anchor) * M * Translate(+anchor).
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    let nax = width * -r.anchor.x, nay = height * -r.anchor.y
    m.tx = L.muladd(nax, m.a, L.muladd(nay, m.c, m.tx + ax))
    m.ty = L.muladd(nax, m.b, L.muladd(nay, m.d, m.ty + ay))
    return m
  }

  /// Evaluates one lane group of cells sharing recipe `r`.
  @inlinable @inline(__always)
  static func evaluateGroup<L: FloatLanes>(
    _ r: CompiledRecipe, progress: StagedProgress, at i: Int, width: L, height: L, tableWidth: L
  ) -> LaneMatrix<L> {
    let v: LaneChannels<L> = channelValues(r, progress: progress, at: i, height: height, tableWidth: tableWidth)
    let (tx, ty, tz) = (v.tx, v.ty, v.tz)
    let (rx, ry, rz, s, sx, sy) = (v.rx, v.ry, v.rz, v.s, v.sx, v.sy)
    let z = L(repeating: 0), one = L(repeating: 1)
    var m = LaneMatrix<L>(linear: (one, z, z, z, one, z, z, z, one), translation: (z, z, z))
    if r.hasChannelTransform {
      let ex = s * sx, ey = s * sy
      let cz = L.sincos(rz)
      // S * Rz (rows): [ex cz, ex sz, 0], [-ey sz, ey cz, 0], [0, 0, 1].
      var l = (ex * cz.cos, ex * cz.sin, z, -(ey * cz.sin), ey * cz.cos, z, z, z, one)
      if r.hasRotationXY {
        // S * Rx * Ry * Rz in full.
        let cx = L.sincos(rx), cy = L.sincos(ry)
        // Rx * Ry rows: [cy, 0, -sy], [sx sy, cx, sx cy], [cx sy, -sx, cx cy].
        let a = (
          cy.cos, z, -cy.sin,
          cx.sin * cy.sin, cx.cos, cx.sin * cy.cos,
          cx.cos * cy.sin, -cx.sin, cx.cos * cy.cos
        )
        // (Rx Ry) * Rz, Rz rows [cz, sz, 0], [-sz, cz, 0], [0, 0, 1]; then scale rows.
        l = (
          ex * (a.0 * cz.cos - a.1 * cz.sin), ex * (a.0 * cz.sin + a.1 * cz.cos), ex * a.2,
          ey * (a.3 * cz.cos - a.4 * cz.sin), ey * (a.3 * cz.sin + a.4 * cz.cos), ey * a.5,
          a.6 * cz.cos - a.7 * cz.sin, a.6 * cz.sin + a.7 * cz.cos, a.8
        )
      }
      var t = (tx, ty, tz)
      if r.translateFirst {
        // T * L: the translation row goes through L.
        t = (
          tx * l.0 + ty * l.3 + tz * l.6,
          tx * l.1 + ty * l.4 + tz * l.7,
          tx * l.2 + ty * l.5 + tz * l.8
        )
      }
      m = LaneMatrix(linear: l, translation: t)
    }
    if let matrix = r.matrix {
      let mm: LaneMatrix<L>
      switch matrix {
      case .twoD(let part, let a, let b):
        let p: L = progress(part, i)
        @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
        let dtx = lerp(0), dty = lerp(1), dsx = lerp(2), dsy = lerp(3), angle = lerp(4)
        let r11 = lerp(5), r12 = lerp(6), r21 = lerp(7), r22 = lerp(8)
        let cs = L.sincos(angle)
        // Scale * Rotation * Remainder.
        let row0 = (cs.cos * r11 + cs.sin * r21, cs.cos * r12 + cs.sin * r22)
        let row1 = (cs.cos * r21 - cs.sin * r11, cs.cos * r22 - cs.sin * r12)
        mm = LaneMatrix(
          linear: (dsx * row0.0, dsx * row0.1, z, dsy * row1.0, dsy * row1.1, z, z, z, one),
          translation: (dtx, dty, z))
      case .threeD(let part, let a, let b, let qa, let qb, let theta, let nlerp):
        let p: L = progress(part, i)
        @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
        var wa: L, wb: L
        if nlerp {
          wa = 1 - p
          wb = p
        } else {
          let inv = 1 / sin(theta)
          wa = L.sincos((1 - p) * theta).sin * inv
          wb = L.sincos(p * theta).sin * inv
        }
        var qx = wa * qa.x + wb * qb.x, qy = wa * qa.y + wb * qb.y
        var qz = wa * qa.z + wb * qb.z, qw = wa * qa.w + wb * qb.w
        if nlerp {
          let xy2: L = qx * qx + qy * qy
          let zw2: L = qz * qz + qw * qw
          let n: L = 1 / (xy2 + zw2).squareRoot()
          qx = qx * n
          qy = qy * n
          qz = qz * n
          qw = qw * n
        }
        // Rotation (row-vector) from the quaternion.
        let xx = qx * qx, yy = qy * qy, zz = qz * qz
        let xy = qx * qy, xz = qx * qz, yz = qy * qz, xw = qx * qw, yw = qy * qw, zw = qz * qw
        let r0 = (1 - (yy + zz) * 2, (xy + zw) * 2, (xz - yw) * 2)
        let r1 = ((xy - zw) * 2, 1 - (xx + zz) * 2, (yz + xw) * 2)
        let r2 = ((xz + yw) * 2, (yz - xw) * 2, 1 - (xx + yy) * 2)
        let p0 = lerp(0), p1 = lerp(1), p2 = lerp(2), p3 = lerp(3)
        let t0 = lerp(4), t1 = lerp(5), t2 = lerp(6)
        let s0 = lerp(7), s1 = lerp(8), s2 = lerp(9)
        let kxy = lerp(10), kxz = lerp(11), kyz = lerp(12)
        // Scale * Skew * Rotation (rows).
        let k1 = (r1.0 + kxy * r0.0, r1.1 + kxy * r0.1, r1.2 + kxy * r0.2)
        let k2 = (
          r2.0 + kxz * r0.0 + kyz * r1.0, r2.1 + kxz * r0.1 + kyz * r1.1, r2.2 + kxz * r0.2 + kyz * r1.2
        )
        let l0 = (s0 * r0.0, s0 * r0.1, s0 * r0.2)
        let l1 = (s1 * k1.0, s1 * k1.1, s1 * k1.2)
        let l2 = (s2 * k2.0, s2 * k2.1, s2 * k2.2)
        // * Translation * Perspective(column 4 = p).
        mm = LaneMatrix((
          l0.0, l0.1, l0.2, l0.0 * p0 + l0.1 * p1 + l0.2 * p2,
          l1.0, l1.1, l1.2, l1.0 * p0 + l1.1 * p1 + l1.2 * p2,
          l2.0, l2.1, l2.2, l2.0 * p0 + l2.1 * p1 + l2.2 * p2,
          t0, t1, t2, t0 * p0 + t1 * p1 + t2 * p2 + p3
        ))
      case .componentwise(let part, let a, let b):
        let p: L = progress(part, i)
        @inline(__always) func lerp(_ i: Int) -> L { p * (b[i] - a[i]) + a[i] }
        mm = LaneMatrix((
          lerp(0), lerp(1), lerp(2), lerp(3), lerp(4), lerp(5), lerp(6), lerp(7),
          lerp(8), lerp(9), lerp(10), lerp(11), lerp(12), lerp(13), lerp(14), lerp(15)
        ))
      case .discrete(let part, let a, let b):
        let p: L = progress(part, i)
        let late = L.ge(p, L(repeating: 0.5))
        @inline(__always) func pick(_ i: Int) -> L { L(repeating: a[i]).replacing(with: L(repeating: b[i]), where: late) }
        mm = LaneMatrix((
          pick(0), pick(1), pick(2), pick(3), pick(4), pick(5), pick(6), pick(7),
          pick(8), pick(9), pick(10), pick(11), pick(12), pick(13), pick(14), pick(15)
        ))
      }
      m = r.hasChannelTransform ? m.times(mm) : mm
    }
    if r.m34 != 0 { m.applyPerspective(r.m34) }
    m.applyAnchor(width * r.anchor.x, height * r.anchor.y)
    return m
  }

  /// The fold halves of one lane group (recipes with a fold only).
  @inlinable @inline(__always)
  static func evaluateFold<L: FloatLanes>(
    _ fold: (part: Int, opening: Bool, m34: Float), progress: StagedProgress, at i: Int, width: L,
    detailHeight: L
  ) -> LaneFold<L> {
    let z = L(repeating: 0), one = L(repeating: 1)
    let p: L = progress(fold.part, i)
    let openness = fold.opening ? p : 1 - p
    let angle = (1 - openness) * (-Float.pi / 2)
    let cs = L.sincos(angle)
    let (sn, c) = (cs.sin, cs.cos)
    let k = fold.m34
    let hw = width * 0.5
    let h = detailHeight * 0.5
    let skw = sn * k * hw, ckw = c * k * hw
    // Top half: T(-w/2, 0) * Rx(angle) * P * T(w/2, 0).
    let top = LaneMatrix((
      one, z, z, z,
      skw, c, sn, sn * k,
      ckw, -sn, c, c * k,
      z, z, z, one
    ))
    // Bottom half: T(-w/2, -h) * Rx(-angle) * P * T(w/2, 2h cos/w); w = 1 + h sin k.
    let w = h * sn * k + 1
    let yHinge = (h * c * 2) / w
    let bottom = LaneMatrix((
      one, z, z, z,
      -skw, c - sn * k * yHinge, -sn, -(sn * k),
      ckw, sn + c * k * yHinge, c, c * k,
      h * skw, h * c, h * sn, w
    ))
    return LaneFold(top: top, bottom: bottom, shadow: L.clamp(1 - openness, 0, 1))
  }
}
