// Differential tests: the SIMD kernel (Float) against the scalar reference (Double), for
// every preset and random recipes, at random times before, during and after each
// animation, for awkward batch sizes and every lane width.
//
// Tolerances (stated once, used everywhere):
// - transform entries: |kernel - reference| <= 2e-5 after normalising by the translation
//   scale S = max(cell width, cell height, table width): entries of the translation row
//   are divided by S and entries of the w column multiplied by S, so every entry is
//   measured by its effect on a point of size S, in units of S.
// - opacity and shadow opacity: <= 1e-5 absolute.
// The kernel's clock is Float, so it cannot tell the frame time from times within 1 us
// of it (`CellSpec.clockWindow`): where the reference moves fast (steep keyframe segments)
// or jumps (keyframe steps, spring segments cut at their end, the discrete matrix
// fallback), a transform more than the tolerance from the reference is measured against
// the range each entry of the reference spans over that window instead.

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

let transformTolerance = 2e-5
let opacityTolerance = 1e-5

/// Normalised entry error as described above.
func normalisedError(_ k: Transform3D, _ r: Transform3D, scale s: Double) -> (Double, Int) {
  var worst = 0.0, at = -1
  for i in 0..<4 {
    for j in 0..<4 {
      var e = abs(k[i, j] - r[i, j])
      if i == 3 { e /= s }
      if j == 3 { e *= s }
      if e.isNaN { e = .infinity }
      if e > worst || at < 0 {
        worst = worstOf(worst, e)
        if e >= worst { at = i * 4 + j }
      }
    }
  }
  return (worst, at)
}

/// Runs `compiled` (the solve the kernel compiles for `curve`) at the local times `x` of a
/// 1 s animation, as the kernel runs it, and records each lane against the exact progress
/// of `curve` at the same Float input (so only the solve is measured): divided by
/// max(1, |dy/dx| / 5) when `slopeScaled` (Float rounding of the power-basis x(s) alone moves
/// y by about |dy/dx| x 3e-7 where the curve is steep).
func recordProgress(
  _ compiled: CompiledCurve, of curve: TimingCurve, at x: SIMD8<Float>, slopeScaled: Bool = true,
  into tracker: inout ErrorTracker
) {
  let y = Kernel.curveProgress(compiled, local: x, duration: 1)
  for k in 0..<8 {
    let exact = curve.valueAndSlope(at: Double(x[k]))
    let scale = slopeScaled ? max(1, abs(exact.slope) / 5) : 1
    tracker.record(Double(y[k]) / scale, exact.value / scale, "\(curve) x=\(x[k])")
  }
}

// MARK: - Random recipes

func randomCurve(_ g: inout SeededGenerator) throws -> AnimationCurve {
  switch g.next() % 5 {
  case 0:
    return .bezier([TimingCurve.linear, .easeIn, .easeOut, .easeInEaseOut, .default][Int(g.next() % 5)])
  case 1, 2:
    return .bezier(
      try TimingCurve(
        x1: g.uniform(0.02...1), y1: g.uniform(-0.5...1.5), x2: g.uniform(0...0.98), y2: g.uniform(-0.5...1.5)))
  case 3:
    // Physical spring in a random regime: zeta from 0.05 to 2.5, or exactly critical.
    let k = g.uniform(20...400), m = g.uniform(0.5...2)
    let zeta = g.next() % 4 == 0 ? 1.0 : g.uniform(0.05...2.5)
    let c = zeta * 2 * (k * m).squareRoot()
    return .spring(try Spring(mass: m, stiffness: k, damping: c, initialVelocity: g.uniform(-3...3)))
  default:
    return .spring(
      try Spring.uiKit(dampingRatio: g.uniform(0.1...1), duration: g.uniform(0.3...1.5), initialSpringVelocity: g.uniform(0...2)))
  }
}

func randomAffine(_ g: inout SeededGenerator) -> Transform3D {
  Transform3D.identity
    .rotatedBy(g.uniform(-3...3), 0, 0, 1)
    .translatedBy(g.uniform(-50...50), g.uniform(-50...50), 0)
    .scaledBy(g.uniform(0.5...1.5) * (g.next() % 6 == 0 ? -1 : 1), g.uniform(0.5...1.5), 1)
}

/// A random 3D transform: rotation, translation, scale, a shear half of the time (so the
/// decomposition's skew terms are not always 0: the kernel's 3D path must use them) and a
/// perspective half of the time.
func random3D(_ g: inout SeededGenerator) -> Transform3D {
  var t = Transform3D.identity
    .rotatedBy(g.uniform(-3...3), g.uniform(-1...1), g.uniform(-1...1), g.uniform(-1...1))
    .translatedBy(g.uniform(-50...50), g.uniform(-50...50), g.uniform(-50...50))
    .scaledBy(g.uniform(0.5...1.5), g.uniform(0.5...1.5), g.uniform(0.5...1.5))
  if g.next() % 2 == 0 {
    // Row-vector shear: y gains k_xy x, z gains k_xz x + k_yz y (entries below the diagonal).
    var shear = Transform3D.identity
    (shear.m21, shear.m31, shear.m32) = (g.uniform(-0.6...0.6), g.uniform(-0.6...0.6), g.uniform(-0.6...0.6))
    t = shear.concatenating(t)
  }
  if g.next() % 2 == 0 {
    var p = Transform3D.identity
    p.m34 = -1 / g.uniform(300...1000)
    t = t.concatenating(p)
  }
  return t
}

/// A stagger from every origin, in a line or a grid, reversed or not, eased or not.
func randomStagger(_ g: inout SeededGenerator) -> Stagger {
  let origins: [StaggerOrigin] = [.first, .last, .center, .index(Int(g.next() % 30)), .random(seed: g.next() >> 12)]
  return Stagger(
    step: g.uniform(0...0.05), base: g.next() % 2 == 0 ? .row : .batchPosition, from: origins[Int(g.next() % 5)],
    grid: g.next() % 3 == 0 ? StaggerGrid(columns: 1 + Int(g.next() % 6), axis: StaggerAxis.allCases[Int(g.next() % 3)]) : nil,
    reversed: g.next() % 4 == 0, ease: g.next() % 4 == 0 ? .easeInEaseOut : nil)
}

func randomRecipe(_ g: inout SeededGenerator, name: String) throws -> Recipe {
  var channels: [ChannelAnimation] = []
  let all = Channel.allCases
  for c in all where g.next() % 3 == 0 {
    let (from, to): (ChannelValue, ChannelValue)
    switch c {
    case .opacity, .shadowOpacity: (from, to) = (ChannelValue(g.uniform(0...1)), ChannelValue(g.uniform(0...1)))
    case .rotationX, .rotationY, .rotationZ:
      (from, to) = (ChannelValue(g.uniform(-3...3)), ChannelValue(g.uniform(-1...1)))
    case .scale, .scaleX, .scaleY: (from, to) = (ChannelValue(g.uniform(0.3...1.7)), ChannelValue(g.uniform(0.5...1.5)))
    default:
      (from, to) = (
        ChannelValue(g.uniform(-40...40), perCellHeight: g.uniform(-1...1), perTableWidth: g.uniform(-0.5...0.5)),
        ChannelValue(g.uniform(-10...10))
      )
    }
    channels.append(
      ChannelAnimation(c, from: from, to: to, curve: try randomCurve(&g), duration: g.uniform(0.1...1.2), delay: g.uniform(0...0.3)))
  }
  var matrix: MatrixAnimation? = nil
  switch g.next() % 4 {
  case 0:
    matrix = MatrixAnimation(from: randomAffine(&g), to: randomAffine(&g), curve: try randomCurve(&g), duration: g.uniform(0.1...1))
  case 1:
    matrix = MatrixAnimation(from: random3D(&g), to: random3D(&g), curve: try randomCurve(&g), duration: g.uniform(0.1...1))
  case 2:
    matrix = MatrixAnimation(
      from: random3D(&g), to: random3D(&g), mode: .componentwise, curve: try randomCurve(&g), duration: g.uniform(0.1...1))
  default: break
  }
  let fills = FillMode.allCases
  let timing: RecipeTiming =
    g.next() % 3 == 0
    ? RecipeTiming(
      speed: g.uniform(0.5...2), repeatCount: Double(g.next() % 3) + (g.next() % 2 == 0 ? 0.5 : 0),
      autoreverses: g.next() % 2 == 0, fillMode: fills[Int(g.next() % 4)])
    : RecipeTiming(fillMode: fills[Int(g.next() % 4)])
  return Recipe(
    name: name, channels: channels, matrix: matrix,
    stagger: randomStagger(&g),
    order: g.next() % 2 == 0 ? .keyPath : .translateFirst,
    anchorX: g.uniform(0...1), anchorY: g.uniform(0...1),
    perspectiveDistance: g.next() % 3 == 0 ? g.uniform(300...1500) : nil, timing: timing,
    fold: g.next() % 5 == 0
      ? FoldSpec(direction: g.next() % 2 == 0 ? .open : .close, curve: try randomCurve(&g), duration: g.uniform(0.2...0.6))
      : nil)
}

// MARK: - The comparison

struct Comparison {
  var transform: ErrorTracker
  var opacity: ErrorTracker
  var fold: ErrorTracker
  init(_ name: String) {
    transform = ErrorTracker("\(name) transform (normalised)", tolerance: transformTolerance)
    opacity = ErrorTracker("\(name) opacity", tolerance: opacityTolerance)
    fold = ErrorTracker("\(name) fold halves (normalised)", tolerance: transformTolerance)
  }

  /// Prints the three trackers and expects each within its tolerance (the fold one only
  /// when `folds`: recipes without a fold record nothing there).
  func expectAllPassed(folds: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
    print(transform)
    print(opacity)
    print(fold)
    #expect(transform.passed, "\(transform)", sourceLocation: sourceLocation)
    #expect(opacity.passed, "\(opacity)", sourceLocation: sourceLocation)
    if folds { #expect(fold.passed, "\(fold)", sourceLocation: sourceLocation) }
  }
}

extension CellSpec {
  /// Seconds either side of a frame time that the kernel's Float clock cannot tell apart
  /// from it: times up to the batch's 16 s precision window round to within 1e-6 s.
  static let clockWindow = 1e-6
}

/// The normalised error (as `normalisedError`) of `k` against the range each entry of
/// `refs` spans: 0 inside it, the distance to it outside.
func bracketError(_ k: Transform3D, _ refs: [Transform3D], scale s: Double) -> (Double, Int) {
  var worst = 0.0, at = 0
  for i in 0..<4 {
    for j in 0..<4 {
      let values = refs.map { $0[i, j] }
      // A NaN entry is an infinite error (`max` would take 0 over it).
      var e = distanceOutside(k[i, j], values.min()!, values.max()!)
      if i == 3 { e /= s }
      if j == 3 { e *= s }
      if e.isNaN { e = .infinity }
      if e > worst {
        worst = e
        at = i * 4 + j
      }
    }
  }
  return (worst, at)
}

struct CellSpec {
  var recipe: Int, row: Int, batchPosition: Int, start: Double, geometry: CellGeometry
}

/// Builds a batch of `count` cells over `recipes` (runs of random length), evaluates it at
/// `time` with `lanes`, and records every cell's error against the reference.
func compare(
  recipes: [Recipe], count: Int, time: Double, lanes: LaneWidth, g: inout SeededGenerator, into c: inout Comparison
) throws {
  try compare(recipes: recipes, count: count, time: time, lanes: [lanes], g: &g, into: &c)
}


/// `compare` at several lane widths: one batch, evaluated at each width, every output
/// checked against the same reference values (computed once per cell); `motion`, a
/// reduce-motion policy given to the batch and the reference alike.
///
/// `prepare` runs on the filled batch before it is evaluated (retargets); the reference
/// then evaluates each cell with the batch's retargeted motions of it (channels and fold).
func compare(
  recipes: [Recipe], count: Int, time: Double, lanes: [LaneWidth], motion motionPolicy: MotionPolicy? = nil,
  g: inout SeededGenerator, into c: inout Comparison,
  prepare: (inout CellBatch, [CellSpec], inout SeededGenerator) throws -> Void = { _, _, _ in }
) throws {
  var batch = try BatchPrototypes.batch(recipes, capacity: count, motion: motionPolicy)
  var specs: [CellSpec] = []
  var recipe = Int(g.next() % UInt64(recipes.count))
  for i in 0..<count {
    if g.next() % 13 == 0 { recipe = Int(g.next() % UInt64(recipes.count)) }
    let w = g.uniform(100...800)
    let geometry = CellGeometry(
      width: w, height: g.uniform(20...300), tableWidth: g.next() % 2 == 0 ? w : g.uniform(100...800),
      detailHeight: g.uniform(20...400))
    let spec = CellSpec(
      recipe: recipe, row: i + Int(g.next() % 50), batchPosition: Int(g.next() % 20), start: g.uniform(0...1),
      geometry: geometry)
    specs.append(spec)
    try batch.append(
      recipe: spec.recipe, row: spec.row, batchPosition: spec.batchPosition, rowCount: count + 50, batchCount: 20,
      startTime: spec.start, geometry: geometry)
  }
  try prepare(&batch, specs, &g)
  var outputs: [FrameOutput] = []
  for width in lanes {
    var out = try FrameOutput(capacity: count, includeFold: true, includeCorners: true)
    try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: width))
    #expect(out.count == count)
    outputs.append(out)
  }
  for (i, s) in specs.enumerated() {
    let motions = batch.motions(ofCell: i), foldMotion = batch.motions[i]?.fold
    let ref = ReferenceEvaluator.evaluate(
      recipes[s.recipe], geometry: s.geometry, row: s.row, batchPosition: s.batchPosition, rowCount: count + 50,
      batchCount: 20, startTime: s.start, time: time, motion: motionPolicy, retargeted: motions, fold: foldMotion)
    let scale = max(s.geometry.width, s.geometry.height, s.geometry.tableWidth)
    for (out, width) in zip(outputs, lanes) {
      var (e, at) = normalisedError(out.transform(ofCell: i), ref.transform, scale: scale)
      if e > transformTolerance {
        // Within the Float clock's rounding of the frame time (`CellSpec.clockWindow`)
        // the reference moves too: where it is steep, or jumps, accept the kernel's
        // entries within the tolerance of the range the reference's sweep over that window.
        func near(_ dt: Double) -> Transform3D {
          ReferenceEvaluator.evaluate(
            recipes[s.recipe], geometry: s.geometry, row: s.row, batchPosition: s.batchPosition, rowCount: count + 50,
            batchCount: 20, startTime: s.start, time: time + dt, motion: motionPolicy, retargeted: motions,
            fold: foldMotion
          ).transform
        }
        let windowed = bracketError(
          out.transform(ofCell: i), [near(-CellSpec.clockWindow), ref.transform, near(CellSpec.clockWindow)], scale: scale)
        if windowed.0 < e { (e, at) = windowed }
      }
      c.transform.record(e, 0, "seed \(g.seed) \(recipes[s.recipe].name) cell \(i) t=\(time) entry \(at) \(width)")
      c.opacity.record(
        Double(out.opacity[i]), ref.opacity, "seed \(g.seed) \(recipes[s.recipe].name) cell \(i) t=\(time) \(width)")
      c.opacity.record(Double(out.shadowOpacity[i]), ref.shadowOpacity, "shadow \(recipes[s.recipe].name) cell \(i) \(width)")
      if let f = ref.fold {
        let scaleF = max(s.geometry.width, s.geometry.detailHeight ?? 0)
        let (et, _) = normalisedError(out.foldTopTransform(ofCell: i), f.top, scale: scaleF)
        let (eb, _) = normalisedError(out.foldBottomTransform(ofCell: i), f.bottom, scale: scaleF)
        c.fold.record(worstOf(et, eb), 0, "seed \(g.seed) \(recipes[s.recipe].name) fold cell \(i) t=\(time) \(width)")
        c.opacity.record(
          Double(out.foldShadow[i]), f.topShadowOpacity, "fold shadow \(recipes[s.recipe].name) cell \(i) \(width)")
      }
    }
  }
}

@Suite("Kernel vs scalar reference")
struct KernelDifferentialTests {
  static let sizes = [0, 1, 3, 4, 5, 7, 8, 9, 1023, 4097]

  /// Every lane width evaluates the same batches against one reference computation. The
  /// quick sweep takes 4097 cells for tip-in only and six of the ten times at 1023 cells;
  /// the exhaustive one every time at every size, 4097 for the 3D specialisations too.
  @Test("Every preset, all lane widths, awkward sizes, times before/during/after")
  func presets() throws {
    var g = SeededGenerator(seed: 0x5EED_0001)
    var c = Comparison("presets")
    let large = Sweep.pick(quick: ["tipIn"], full: ["tipIn", "flipX", "foldOpen"])
    let times = [-0.5, 0.0, 0.05, 0.2, 0.37, 0.61, 0.9, 1.3, 2.5, 10]
    for preset in Recipe.presets {
      // 4097 cells: several blocks and a tail.
      for n in Self.sizes where n <= 1023 || large.contains(preset.name) {
        for (k, time) in times.enumerated() where n < 1023 || Sweep.exhaustive || k % 2 == 0 || k == 1 {
          try compare(recipes: [preset], count: n, time: time, lanes: LaneWidth.allCases, g: &g, into: &c)
        }
      }
    }
    c.expectAllPassed()
  }

  /// Every reduce-motion policy, given to the batch, on every preset and on random recipes
  /// (each with its own policy as well), every lane width, the awkward sizes.
  @Test("Reduce motion: every policy, presets and random recipes, every lane width and size")
  func reduceMotion() throws {
    var g = SeededGenerator(seed: 0x2ED0_CE)
    var c = Comparison("reduce motion")
    for policy in MotionPolicy.allCases {
      for preset in Recipe.presets {
        for n in [0, 1, 7, 9] {
          try compare(
            recipes: [preset], count: n, time: g.uniform(-0.2...1.2), lanes: LaneWidth.allCases, motion: policy, g: &g,
            into: &c)
        }
      }
      for round in 0..<Sweep.count(quick: 2, full: 8) {
        var recipes: [Recipe] = []
        for k in 0..<4 {
          var r = try randomRecipe(&g, name: "motion\(round).\(k)")
          r.motion = MotionPolicy.allCases[Int(g.next() % 3)]
          recipes.append(r)
        }
        // The recipes' own policies (nil), then the batch's.
        for n in [1, 9, 1023] {
          try compare(
            recipes: recipes, count: n, time: g.uniform(-0.2...2), lanes: LaneWidth.allCases, motion: nil, g: &g, into: &c)
          try compare(
            recipes: recipes, count: n, time: g.uniform(-0.2...2), lanes: LaneWidth.allCases, motion: policy, g: &g,
            into: &c)
        }
      }
    }
    c.expectAllPassed()
  }

  /// Six random recipes per round, every size, every lane width on the same batch: 5
  /// rounds in the quick sweep, 36 in the exhaustive one.
  @Test("Random recipes (random curves, springs in all regimes, random transforms)")
  func randomRecipes() throws {
    var g = SeededGenerator(seed: 0xA11_CE)
    var c = Comparison("random")
    for round in 0..<Sweep.count(quick: 5, full: 36) {
      var recipes: [Recipe] = []
      for k in 0..<6 { recipes.append(try randomRecipe(&g, name: "random\(round).\(k)")) }
      for n in Self.sizes {
        let time = g.uniform(-0.5...4)
        try compare(recipes: recipes, count: n, time: time, lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    c.expectAllPassed()
  }

  /// Many distinct parts shrink the kernel's block (`CompiledRecipe.blockCells`) down to
  /// 16 cells (`maxParts`); blocks, tails and the part-progress rows must still line up.
  @Test(
    "Recipes with many timed parts (small blocks) match, with and without a fold",
    arguments: [(1, false), (20, false), (60, false), (CompiledRecipe.maxParts, false), (1, true),
      (CompiledRecipe.maxParts, true)])
  func manyParts(parts: Int, fold: Bool) throws {
    var g = SeededGenerator(seed: 0xB10C + UInt64(parts))
    var channels: [ChannelAnimation] = []
    let kinds: [Channel] = [.opacity, .translationX, .translationY, .rotationZ, .scale, .shadowOpacity]
    for k in 0..<parts {
      let kind = kinds[k % kinds.count]
      let (from, to): (ChannelValue, ChannelValue) =
        kind == .opacity || kind == .shadowOpacity
        ? (ChannelValue(g.uniform(0...1)), ChannelValue(g.uniform(0...1)))
        : kind == .scale ? (ChannelValue(g.uniform(0.5...1.5)), ChannelValue(1))
        : kind == .rotationZ ? (ChannelValue(g.uniform(-3...3)), ChannelValue(0))
        : (ChannelValue(g.uniform(-40...40), perCellHeight: g.uniform(-1...1)), ChannelValue(0))
      // A distinct delay per channel: every channel is its own part.
      channels.append(
        ChannelAnimation(
          kind, from: from, to: to, curve: try randomCurve(&g), duration: g.uniform(0.2...1), delay: Double(k) * 1e-3))
    }
    // With a fold, its curve is one more part (every channel's delay is distinct): one
    // channel fewer keeps the count at `parts`.
    if fold { channels.removeLast() }
    let recipe = Recipe(
      name: "parts\(parts)", channels: channels, fold: fold ? FoldSpec(direction: .open, duration: 0.4) : nil)
    let compiled = try CompiledRecipe(recipe)
    #expect(compiled.parts.count == parts)
    #expect(compiled.layout.blockCells >= 8 && compiled.layout.blockCells % 8 == 0)
    #expect(compiled.layout.blockCells * (parts + 16) <= ScratchLayout.floats)
    if fold && parts == CompiledRecipe.maxParts {
      // One part more than the scratch holds is a typed error, with a fold as without.
      var more = recipe
      more.channels.append(
        ChannelAnimation(.translationX, from: 1, to: 0, curve: .bezier(.easeIn), duration: 0.3, delay: 5))
      #expect(throws: CellMotionError.self) { try CompiledRecipe(more) }
    }
    print("\(parts) parts: \(compiled.layout.blockCells) cells per block")
    var c = Comparison("parts\(parts)")
    // Every lane width on the same batch; the quick sweep's largest batch for wide recipes
    // is 65 cells for 60 parts (a 48-cell block and a tail) and 33 for more (two 16-cell
    // blocks and a tail): the reference's cost grows with parts x cells.
    let largest = Sweep.exhaustive || parts < 60 ? 1023 : parts > 60 ? 33 : 65
    for round in 0..<Sweep.count(quick: 1, full: 3) {
      for n in [0, 1, 7, 9, 17, largest] {
        _ = round
        try compare(recipes: [recipe], count: n, time: g.uniform(-0.2...1.5), lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    print(c.transform)
    print(c.opacity)
    print(c.fold)
    #expect(c.transform.passed, "\(c.transform)")
    #expect(c.opacity.passed, "\(c.opacity)")
    if fold {
      #expect(c.fold.passed, "\(c.fold)")
    } else {
      #expect(c.fold.count == 0, "a recipe without a fold wrote fold halves")
    }
  }

  /// The kernel takes the reduction-free sine and cosine only when the angle's whole range
  /// (`CompiledCurve.progressBounds`) stays in [-pi/4, pi/4]: the bounds must contain every
  /// progress the curve produces, and the flag must be set for tip-in (so the differential
  /// tests above exercise that path) and cleared for wide rotations.
  @Test("Progress bounds contain the curve; the small-angle path is chosen only when safe")
  func progressBoundsAndSmallAngle() throws {
    var g = SeededGenerator(seed: 0xB0_0D)
    var outside = 0, samples = 0
    for _ in 0..<Sweep.count(quick: 60, full: 400) {
      let curve = try randomCurve(&g)
      let bounds = CompiledCurve(curve).progressBounds
      #expect(bounds.lo <= 0 && bounds.hi >= 1)
      let duration = 1.0
      for i in 0...2000 {
        let p = curve.progress(localTime: duration * Double(i) / 2000, duration: duration)
        samples += 1
        if p < bounds.lo || p > bounds.hi {
          outside += 1
          Issue.record("\(curve): progress \(p) outside \(bounds)")
        }
      }
    }
    print("progress bounds: \(outside) of \(samples) sampled values outside")
    #expect(outside == 0)
    let tip = try CompiledRecipe(.tipIn)
    #expect(tip.matrixPlan.planarConstants?.smallAngle == true)
    // A z rotation with m33 exactly 1 (affine, so the 2D path; `Transform3D.rotation`'s
    // t z^2 + c need not round to 1).
    func rotationZ(_ angle: Double) -> Transform3D {
      var m = Transform3D.identity
      (m.m11, m.m12, m.m21, m.m22) = (cos(angle), sin(angle), -sin(angle), cos(angle))
      return m
    }
    let wide = Recipe(
      name: "wide", matrix: MatrixAnimation(from: rotationZ(2.5), to: .identity, curve: .bezier(.easeOut), duration: 1))
    let wideCompiled = try CompiledRecipe(wide)
    #expect(wideCompiled.isPlanar)
    #expect(wideCompiled.matrixPlan.planarConstants?.smallAngle == false)
    // 0.7 rad is inside pi/4, but a spring with damping ratio 0.2 overshoots by 53 %.
    let eased = Recipe(
      name: "eased", matrix: MatrixAnimation(from: .identity, to: rotationZ(0.7), curve: .bezier(.easeOut), duration: 1))
    #expect(try CompiledRecipe(eased).matrixPlan.planarConstants?.smallAngle == true)
    let spring = Recipe(
      name: "springy",
      matrix: MatrixAnimation(
        from: .identity, to: rotationZ(0.7),
        curve: .spring(try Spring.uiKit(dampingRatio: 0.2, duration: 1, initialSpringVelocity: 0)), duration: 1))
    #expect(try CompiledRecipe(spring).matrixPlan.planarConstants?.smallAngle == false)
    // Both paths against the reference.
    var c = Comparison("small/large angle")
    for lanes in LaneWidth.allCases {
      for time in [-0.1, 0.1, 0.3, 0.55, 0.8, 1.2] {
        try compare(
          recipes: [wide, eased, spring, .tipIn], count: Sweep.count(quick: 255, full: 1023), time: time, lanes: lanes,
          g: &g, into: &c)
      }
    }
    print(c.transform)
    #expect(c.transform.passed, "\(c.transform)")
  }

  /// A stagger that depends on the number of cells needs the count at the boundary; the
  /// default stagger does not; a count below index + 1 is out of range.
  @Test("Staggers that need a count: append refuses a missing or short count, takes a given one")
  func staggerCounts() throws {
    var centred = Recipe.fadeIn
    centred.stagger = Stagger(step: 0.05, base: .batchPosition, from: .center)
    var batch = try CellBatch(recipes: [centred, .fadeStagger], capacity: 8)
    let g = CellGeometry(width: 320, height: 44)
    #expect(throws: CellMotionError.self) { try batch.append(recipe: 0, row: 3, batchPosition: 1, startTime: 0, geometry: g) }
    #expect(throws: CellMotionError.self) {
      try batch.append(recipe: 0, row: 3, batchPosition: 4, batchCount: 4, startTime: 0, geometry: g)
    }
    try batch.append(recipe: 0, row: 3, batchPosition: 0, batchCount: 5, startTime: 0, geometry: g)
    try batch.append(recipe: 1, row: 3, batchPosition: 0, startTime: 0, geometry: g)
    #expect(abs(batch.startExact[0] - 0.1) < 1e-12 && abs(batch.startExact[1] - 0.15) < 1e-12)
  }

  @Test("More timed parts than the kernel's scratch holds is a typed error")
  func tooManyParts() throws {
    let channels = (0...CompiledRecipe.maxParts).map { k in
      ChannelAnimation(.opacity, from: ChannelValue(0), to: ChannelValue(1), curve: .bezier(.linear), duration: 1, delay: Double(k) * 1e-3)
    }
    let recipe = Recipe(name: "tooMany", channels: channels)
    #expect(
      throws: CellMotionError.outOfRange(
        field: "tooMany: distinct (curve, duration, delay) parts", value: Double(CompiledRecipe.maxParts + 1),
        expected: "<= \(CompiledRecipe.maxParts)")
    ) { try CompiledRecipe(recipe) }
    #expect(throws: CellMotionError.self) { try CellBatch(recipes: [recipe]) }
  }

  @Test("Undecomposable end (scale 0): discrete fallback matches")
  func discrete() throws {
    var g = SeededGenerator(seed: 3)
    let r = Recipe(
      name: "toZero",
      matrix: MatrixAnimation(from: .identity, to: .scale(0, 0, 1), curve: .bezier(.linear), duration: 1))
    var c = Comparison("discrete")
    for time in [0.2, 0.49, 0.51, 0.9, 2] {
      try compare(recipes: [r], count: 9, time: time, lanes: .simd8, g: &g, into: &c)
    }
    print(c.transform)
    #expect(c.transform.passed, "\(c.transform)")
  }

  @Test("The fixed-step Bezier solve: within 2e-6 on the presets, 2e-6 x max(1, |dy/dx|/5) on any curve")
  func bezierSolveBound() throws {
    var g = SeededGenerator(seed: 11)
    let presets: [TimingCurve] = [.linear, .easeIn, .easeOut, .easeInEaseOut, .default]
    var random: [TimingCurve] = []
    for _ in 0..<Sweep.count(quick: 30, full: 200) {
      random.append(
        try TimingCurve(x1: g.uniform(0...1), y1: g.uniform(-1...2), x2: g.uniform(0...1), y2: g.uniform(-1...2)))
    }
    // Presets are well conditioned. Random curves include steep ends where Float rounding
    // of the power-basis x(s) alone moves y by ~|dy/dx| x 3e-7, so there the error is
    // measured relative to max(1, |dy/dx| / 5).
    var onPresets = ErrorTracker("Bezier progress on presets, kernel Float vs exact", tolerance: 2e-6)
    var onRandom = ErrorTracker(
      "Bezier progress on random curves (seed \(g.seed)), kernel Float vs exact / max(1, |slope|/5)", tolerance: 2e-6)
    func sweep(_ curves: [TimingCurve], _ tracker: inout ErrorTracker, slopeScaled: Bool) {
      for curve in curves {
        // The solve the kernel compiles for this curve (Newton or fitted inverse), run as the
        // kernel runs it, at local time x of a 1 s animation.
        let compiled = CompiledCurve(.bezier(curve))
        for i in stride(from: 0, through: 4096, by: 8) {
          var x = SIMD8<Float>()
          for k in 0..<8 { x[k] = Float(i + k) / 4103 }
          recordProgress(compiled, of: curve, at: x, slopeScaled: slopeScaled, into: &tracker)
        }
      }
    }
    // Step counts the compiler picks: presets are well conditioned (the first guess is
    // exact to second order), so a few steps do what 8 do.
    for curve in presets {
      switch CompiledCurve(.bezier(curve)) {
      case .bezier(_, _, _, _, _, _, let steps, let guess):
        print("\(curve): \(steps) Newton steps from \(guess ? "the quadratic guess" : "s = x")")
        // linear is the identity: no step (SolvePath.identity); the others take some.
        #expect(curve.isIdentity ? steps == 0 : steps >= 1 && steps <= Kernel.bezierSteps)
      case .fittedBezier(_, _, _, _, _, _, let fit, let steps):
        print("\(curve): fitted inverse of degree \(fit.degree), \(steps) corrections")
      case .rootFittedBezier(_, _, _, _, _, _, let fit, let steps):
        print("\(curve): square-root fitted inverse of degree \(fit.degree), \(steps) corrections")
      default: Issue.record("\(curve) not compiled as a Bezier")
      }
    }
    sweep(presets, &onPresets, slopeScaled: false)
    sweep(random, &onRandom, slopeScaled: true)
    print(onPresets)
    print(onRandom)
    #expect(onPresets.passed, "\(onPresets)")
    #expect(onRandom.passed, "\(onRandom)")
  }

  /// The fitted inverse (`CompiledCurve.fittedBezier`) against independent truth: the
  /// Double inverse `TimingCurve.parameter(forX:)` for the fit itself, and the exact
  /// progress on 100,000 random x (20,000 in the quick sweep; not the grid the compiler checked) for the kernel's
  /// Float solve. Chosen for easeInEaseOut (tip-in); never for a curve with a vertical or
  /// flat end in x (easeIn, easeOut: x'(s) = 0 at an end, so the inverse is not smooth).
  @Test("Fitted Bezier inverse: interpolates the exact inverse; chosen only where smooth; within 2e-6 between grid points")
  func fittedInverse() throws {
    // Interpolation: P equals the exact inverse at the degree + 1 Chebyshev points, and
    // the error elsewhere shrinks as the degree grows (a smooth inverse).
    let curve = TimingCurve.easeInEaseOut
    var previous = Double.infinity
    for degree in [4, 6, 8, 10] {
      let fit = InverseFit(curve, degree: degree)
      func p(_ x: Double) -> Double {
        var v = 0.0
        for k in stride(from: degree, through: 0, by: -1) { v = v * (2 * x - 1) + Double(fit.p[k]) }
        return v
      }
      var atNodes = 0.0, elsewhere = 0.0
      for k in 0...degree {
        let x = (1 + cos(Double.pi * (Double(k) + 0.5) / Double(degree + 1))) / 2
        atNodes = worstOf(atNodes, abs(p(x) - curve.parameter(forX: x)))
      }
      for i in 0...2000 {
        let x = Double(i) / 2000
        elsewhere = worstOf(elsewhere, abs(p(x) - curve.parameter(forX: x)))
      }
      print("InverseFit degree \(degree): \(atNodes) at the nodes, \(elsewhere) on [0, 1]")
      #expect(atNodes < 1e-6, "degree \(degree): \(atNodes) at the nodes")
      #expect(elsewhere < previous, "degree \(degree): \(elsewhere) not below \(previous)")
      previous = elsewhere
      // dP/dx against a central difference of P.
      var derivative = 0.0
      for i in 1..<100 {
        let x = Double(i) / 100, h = 1e-4
        var d = 0.0
        for k in stride(from: degree - 1, through: 0, by: -1) { d = d * (2 * x - 1) + Double(fit.dp[k]) }
        derivative = worstOf(derivative, abs(d - (p(x + h) - p(x - h)) / (2 * h)))
      }
      #expect(derivative < 1e-3, "degree \(degree): dP/dx off by \(derivative)")
    }
    // Which curves get it.
    guard case .fittedBezier = CompiledCurve(.bezier(.easeInEaseOut)) else {
      Issue.record("easeInEaseOut not compiled with a fitted inverse")
      return
    }
    for flatEnd in [TimingCurve.easeIn, .easeOut, .linear] {
      if case .fittedBezier = CompiledCurve(.bezier(flatEnd)) { Issue.record("\(flatEnd) got a fitted inverse") }
    }
    // Accuracy off the grid, for every random curve that gets a fitted inverse.
    var g = SeededGenerator(seed: 0xF17)
    var tracker = ErrorTracker("fitted-inverse progress, \(Sweep.count(quick: 8_000, full: 100_000)) random x per curve, kernel Float vs exact", tolerance: 2e-6)
    var fittedCurves = 0
    for _ in 0..<60 {
      let c = try TimingCurve(x1: g.uniform(0.1...0.9), y1: g.uniform(-0.5...1.5), x2: g.uniform(0.1...0.9), y2: g.uniform(-0.5...1.5))
      let compiled = CompiledCurve(.bezier(c))
      guard case .fittedBezier = compiled else { continue }
      fittedCurves += 1
      for _ in 0..<(Sweep.count(quick: 8_000, full: 100_000) / 8) {
        var x = SIMD8<Float>()
        for k in 0..<8 { x[k] = Float(g.uniform(0...1)) }
        recordProgress(compiled, of: c, at: x, into: &tracker)
      }
    }
    print("\(fittedCurves) of 60 random curves compiled with a fitted inverse")
    print(tracker)
    #expect(fittedCurves > 0)
    #expect(tracker.passed, "\(tracker)")
  }
}

extension KernelDifferentialTests {
  /// The square-root fitted inverse (`CompiledCurve.rootFittedBezier`) against independent
  /// truth: end + v P(v) interpolates the exact Double inverse at its Chebyshev nodes in
  /// v = sqrt(x) (or sqrt(1 - x)); easeOut and easeIn (flat start and flat end) get it;
  /// curves flat at both ends do not; and on 100,000 random x per curve (20,000 quick; not the
  /// compiler's grid) the kernel's Float progress is within 2e-6 x max(1, |dy/dx| / 5) of
  /// the exact progress, for easeIn, easeOut and random curves with a flat end.
  @Test("Square-root fitted inverse: interpolates the exact inverse in sqrt(x); easeIn/easeOut get it; within 2e-6 off the grid")
  func rootFittedInverse() throws {
    for (curve, domain) in [(TimingCurve.easeOut, InverseFit.Domain.sqrtX), (.easeIn, .sqrtOneMinusX)] {
      let fit = InverseFit(curve, degree: 8, domain: domain)
      var atNodes = 0.0
      for k in 0...8 {
        let v = (1 + cos(Double.pi * (Double(k) + 0.5) / 9)) / 2
        var p = 0.0
        for j in stride(from: 8, through: 0, by: -1) { p = p * (2 * v - 1) + Double(fit.p[j]) }
        let x = domain == .sqrtX ? v * v : 1 - v * v
        // s = end + v P(v): exact (0 or 1) at the flat end, the inverse at the nodes.
        let end = domain == .sqrtX ? 0.0 : 1.0
        atNodes = worstOf(atNodes, abs(end + v * p - curve.parameter(forX: x)))
      }
      #expect(atNodes < 1e-6, "\(curve): \(atNodes) at the nodes")
      guard case .rootFittedBezier(_, _, _, _, _, _, let chosen, let steps) = CompiledCurve(.bezier(curve)) else {
        Issue.record("\(curve) not compiled with a square-root fit: \(CompiledCurve(.bezier(curve)))")
        continue
      }
      print("\(curve): square-root fit of degree \(chosen.degree) in \(chosen.domain), \(steps) Newton corrections")
      #expect(chosen.domain == domain)
    }
    // Flat at both ends (x1 = 0, x2 = 1): no fit in either root domain is smooth.
    let bothFlat = try TimingCurve(x1: 0, y1: 0.3, x2: 1, y2: 0.7)
    if case .rootFittedBezier = CompiledCurve(.bezier(bothFlat)) { Issue.record("\(bothFlat) got a square-root fit") }
    var g = SeededGenerator(seed: 0x500F)
    var curves: [TimingCurve] = [.easeIn, .easeOut]
    for k in 0..<40 {
      let a = g.uniform(0.05...1), b = g.uniform(-0.5...1.5), c = g.uniform(-0.5...1.5)
      curves.append(
        k % 2 == 0 ? try TimingCurve(x1: 0, y1: b, x2: a, y2: c) : try TimingCurve(x1: a * 0.95, y1: b, x2: 1, y2: c))
    }
    var tracker = ErrorTracker(
      "square-root-fit progress, \(Sweep.count(quick: 8_000, full: 100_000)) random x per curve (seed \(g.seed)), kernel Float vs exact / max(1, |slope|/5)",
      tolerance: 2e-6)
    var fitted = 0
    for c in curves {
      let compiled = CompiledCurve(.bezier(c))
      guard case .rootFittedBezier = compiled else { continue }
      fitted += 1
      for _ in 0..<(Sweep.count(quick: 8_000, full: 100_000) / 8) {
        var x = SIMD8<Float>()
        // Half the samples near the flat end, where the square root matters.
        for k in 0..<8 { x[k] = Float(k < 4 ? g.uniform(0...1) : pow(g.uniform(0...1), 4)) }
        if c.x2 == 1 { for k in 4..<8 { x[k] = 1 - x[k] } }
        recordProgress(compiled, of: c, at: x, into: &tracker)
      }
    }
    print("\(fitted) of \(curves.count) flat-ended curves compiled with a square-root fit")
    print(tracker)
    #expect(fitted >= curves.count / 2)
    #expect(tracker.passed, "\(tracker)")
  }
}

@Suite("Kernel behaviour")
struct KernelBehaviourTests {
  @Test("One thread and many give bit-identical results on 8,001 cells (50,001 exhaustive)")
  func threadsBitIdentical() throws {
    var g = SeededGenerator(seed: 77)
    var recipes = Recipe.presets
    for k in 0..<4 { recipes.append(try randomRecipe(&g, name: "r\(k)")) }
    // Odd sizes, so chunks and lane groups end unevenly; runs of one recipe 1/71 of the
    // cells long, so every recipe appears in several chunks.
    let n = Sweep.count(quick: 8_001, full: 50_001)
    let run = n / 71
    var batch = try CellBatch(recipes: recipes, capacity: n)
    for i in 0..<n {
      try batch.append(
        recipe: (i / run) % recipes.count, row: i, batchPosition: i % 17, rowCount: n, batchCount: 17, startTime: g.uniform(0...2),
        geometry: CellGeometry(width: 375, height: g.uniform(40...120)))
    }
    var one = try FrameOutput(capacity: n, includeCorners: true)
    var many = try FrameOutput(capacity: n, includeCorners: true)
    // 2 threads: the persistent pair worker; 4: concurrentPerform chunks.
    for (time, threads) in [(0.3, 4), (1.1, 4), (2.2, 4), (0.3, 2), (1.1, 2), (2.2, 2)] {
      try Kernel.evaluate(batch, at: time, into: &one, options: KernelOptions(threads: 1))
      try Kernel.evaluate(batch, at: time, into: &many, options: KernelOptions(threads: threads, parallelThreshold: 0))
      #expect(one.matrices == many.matrices)
      #expect(one.opacity == many.opacity)
      #expect(one.foldTop == many.foldTop && one.foldBottom == many.foldBottom)
      #expect(one.corners == many.corners)
    }
  }

  @Test("The output's kernel scratch carries nothing between frames: NaN-filled, every output bit is the same")
  func scratchCarriesNothing() throws {
    // The kernel reuses the output's block scratch across frames (`FrameOutput.kernelScratch`)
    // rather than zeroing a stack array per run: that is only sound if every pass writes a
    // scratch row before any pass reads it. Filled with NaN, a read before a write would
    // show in some output (NaN propagates through every arithmetic path).
    var g = SeededGenerator(seed: 91)
    var recipes = Recipe.presets
    for k in 0..<4 { recipes.append(try randomRecipe(&g, name: "r\(k)")) }
    for n in [1, 7, 9, 1023] {
      var batch = try CellBatch(recipes: recipes, capacity: n)
      for i in 0..<n {
        try batch.append(
          recipe: (i / 37) % recipes.count, row: i, batchPosition: i % 5, rowCount: n, batchCount: 5,
          startTime: g.uniform(0...0.6), geometry: CellGeometry(width: 375, height: g.uniform(40...120)))
      }
      for i in stride(from: 0, to: n, by: 4) {
        try? batch.retarget(
          cell: i, channel: .opacity, to: 0.5, at: 0.3,
          policy: i % 8 == 0 ? .additive(curve: .bezier(.easeInEaseOut), duration: 0.4)
            : .fromCurrentState(curve: .bezier(.easeOut), duration: 0.3))
      }
      for lanes in LaneWidth.allCases {
        for threads in [1, 2] {
          let options = KernelOptions(lanes: lanes, threads: threads, parallelThreshold: 0)
          var fresh = try FrameOutput(capacity: n, includeCorners: true, includeVelocities: true)
          var poisoned = try FrameOutput(capacity: n, includeCorners: true, includeVelocities: true)
          try Kernel.evaluate(batch, at: 0.1, into: &poisoned, options: options)
          #expect(!poisoned.kernelScratch.isEmpty, "one- and two-thread frames keep their scratch in the output")
          for k in poisoned.kernelScratch.indices { poisoned.kernelScratch[k] = .nan }
          try Kernel.evaluate(batch, at: 0.45, into: &fresh, options: options)
          try Kernel.evaluate(batch, at: 0.45, into: &poisoned, options: options)
          let label = "n=\(n) \(lanes) threads=\(threads)"
          // The first index whose bits differ, or nil (arrays of different lengths differ at
          // the shorter one's end).
          func firstDifference(_ x: [Float], _ y: [Float]) -> Int? {
            guard x.count == y.count else { return min(x.count, y.count) }
            return x.indices.first { x[$0].bitPattern != y[$0].bitPattern }
          }
          let buffers: [(String, [Float], [Float])] = [
            ("matrices", fresh.matrices, poisoned.matrices), ("opacity", fresh.opacity, poisoned.opacity),
            ("shadow", fresh.shadowOpacity, poisoned.shadowOpacity), ("fold top", fresh.foldTop, poisoned.foldTop),
            ("fold bottom", fresh.foldBottom, poisoned.foldBottom), ("corners", fresh.corners, poisoned.corners),
            ("velocities", fresh.velocities, poisoned.velocities),
          ]
          for (name, x, y) in buffers {
            let d = firstDifference(x, y)
            #expect(d == nil, "\(label): \(name) differ first at index \(d ?? -1)")
          }
          #expect(fresh.matrices.allSatisfy { $0.isFinite }, "\(label): finite")
        }
      }
    }
  }

  @Test("SIMD4 and SIMD8 agree within tolerance; outputs past the batch are untouched")
  func lanesAgreeAndTails() throws {
    var g = SeededGenerator(seed: 5)
    for n in [1, 7, 9, 1023] {
      var batch = try CellBatch(recipes: [.tipIn, .moveUpBounce], capacity: n)
      for i in 0..<n {
        try batch.append(recipe: i % 2, row: i, startTime: g.uniform(0...0.5), geometry: CellGeometry(width: 320, height: 60))
      }
      var a = try FrameOutput(capacity: n + 8)
      var b = try FrameOutput(capacity: n + 8)
      // Sentinels beyond the batch.
      a.matrices.withUnsafeMutableBufferPointer { p in for k in (16 * n)..<p.count { p[k] = 12345 } }
      try Kernel.evaluate(batch, at: 0.4, into: &a, options: KernelOptions(lanes: .simd8))
      try Kernel.evaluate(batch, at: 0.4, into: &b, options: KernelOptions(lanes: .simd4))
      #expect(a.matrices[(16 * n)...].allSatisfy { $0 == 12345 }, "n=\(n): wrote past the batch")
      var worst: Float = 0
      for k in 0..<(16 * n) { worst = worstOf(worst, abs(a.matrices[k] - b.matrices[k]) / 320) }
      #expect(worst <= 2e-6, "n=\(n) SIMD4 vs SIMD8 worst \(worst)")
    }
  }

  @Test("Bad input is a typed error at the boundary")
  func validation() throws {
    var batch = try CellBatch(recipes: [.tipIn], capacity: 4)
    #expect(throws: CellMotionError.indexOutOfRange(field: "recipe index", index: 3, count: 1)) {
      try batch.append(recipe: 3, row: 0, startTime: 0, geometry: CellGeometry(width: 1, height: 1))
    }
    #expect(throws: CellMotionError.self) {
      try batch.append(recipe: 0, row: 0, startTime: .nan, geometry: CellGeometry(width: 1, height: 1))
    }
    #expect(throws: CellMotionError.self) {
      try batch.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: -1, height: 1))
    }
    try batch.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 10, height: 10))
    try batch.append(recipe: 0, row: 1, startTime: 0, geometry: CellGeometry(width: 10, height: 10))
    var small = try FrameOutput(capacity: 1)
    #expect(throws: CellMotionError.bufferSize(field: "FrameOutput capacity", expected: 2, actual: 1)) {
      try Kernel.evaluate(batch, at: 0, into: &small)
    }
    var out = try FrameOutput(capacity: 2)
    #expect(throws: CellMotionError.notFinite(field: "time", value: .infinity)) {
      try Kernel.evaluate(batch, at: .infinity, into: &out)
    }
    #expect(throws: CellMotionError.self) { try Kernel.evaluate(batch, at: .nan, into: &out) }
    let fold = try CellBatch(recipes: [.foldOpen])
    var noFold = try FrameOutput(capacity: 1, includeFold: false)
    #expect(throws: CellMotionError.self) { try Kernel.evaluate(fold, at: 0, into: &noFold) }
    var bad = Recipe.fadeIn
    bad.channels[0].duration = -1
    #expect(throws: CellMotionError.outOfRange(field: "fadeIn.channels[0].duration", value: -1, expected: "in [1e-6, 1e5]")) {
      try CellBatch(recipes: [bad])
    }
    #expect(throws: CellMotionError.self) { try FrameOutput(capacity: -1) }
  }

  @Test("Dropping finished cells and rebasing keep results")
  func removeAndRebase() throws {
    var batch = try CellBatch(recipes: [.fadeIn], capacity: 10, timeOrigin: 1000)
    for i in 0..<10 {
      try batch.append(recipe: 0, row: i, startTime: 1000 + Double(i) * 0.2, geometry: CellGeometry(width: 100, height: 40))
    }
    let now = 1001.0
    let ends = (0..<batch.count).map { batch.endTime(ofCell: $0) }
    batch.removeCells { ends[$0] <= now }
    // fadeIn lasts 0.5 s: cells started at <= 1000.5 are done.
    #expect(Array(batch.row) == [3, 4, 5, 6, 7, 8, 9])
    var out = try FrameOutput(capacity: 10)
    try Kernel.evaluate(batch, at: now, into: &out)
    let before = Array(out.opacity[0..<7])
    try batch.rebase(to: 1001)
    try Kernel.evaluate(batch, at: now, into: &out)
    for k in 0..<7 { #expect(abs(out.opacity[k] - before[k]) < 1e-6) }
    let ref = ReferenceEvaluator.evaluate(.fadeIn, geometry: CellGeometry(width: 100, height: 40), startTime: 1000.6, time: now)
    #expect(abs(Double(out.opacity[0]) - ref.opacity) < 1e-5)
  }
}
