// CompiledRecipe: a Recipe flattened once into Float constants the kernel broadcasts
// across lanes: Bezier polynomial coefficients, spring constants, decomposed start and end
// transforms, slerp angles, media-timing constants. Compiling validates the recipe.

import CellMotion
import Foundation

/// A unique (curve, duration, delay) of a recipe: its progress is computed once per lane
/// group and shared by every channel that uses it (tip-in: matrix and opacity share one).
package struct CompiledPart: Sendable, Hashable {
  package var curve: CompiledCurve {
    didSet { (solvePath, bezier) = (SolvePath(curve), BezierConstants(curve) ?? .none) }
  }
  /// Seconds.
  package var duration: Float
  /// Seconds after the cell's (staggered) start.
  package var delay: Float
  /// Local time held after the end when the fill mode fills forwards (seconds).
  package var endLocalTime: Float
  /// The loop `Kernel.progressStage` runs for `curve`, decided once here rather than per
  /// block.
  private(set) var solvePath: SolvePath
  /// The Bezier constants the progress stage reads per block (`BezierConstants.none` for a
  /// spring), unpacked from `curve` once here.
  private(set) var bezier: BezierConstants

  package init(curve: CompiledCurve, duration: Float, delay: Float, endLocalTime: Float) {
    self.curve = curve
    self.duration = duration
    self.delay = delay
    self.endLocalTime = endLocalTime
    solvePath = SolvePath(curve)
    bezier = BezierConstants(curve) ?? .none
  }
}

/// One channel: value = from + (to - from) * progress(part); from/to resolved per cell as
/// c + h * cellHeight + w * tableWidth.
package struct CompiledChannel: Sendable, Hashable {
  package var channel: Channel
  package var part: Int
  package var from: SIMD3<Float>
  package var to: SIMD3<Float>
  /// Whether either end depends on the cell's height or the table's width.
  package var usesGeometry: Bool { from.y != 0 || from.z != 0 || to.y != 0 || to.z != 0 }
}

/// The whole-matrix animation in its interpolation path, as Float constants.
package enum CompiledMatrix: Sendable, Hashable {
  /// 2D path: lerp (tx, ty, sx, sy, angle, m11, m12, m21, m22) from `a` to `b`.
  case twoD(part: Int, a: [Float], b: [Float])
  /// 3D path: lerp perspective(4) translate(3) scale(3) skew(3) from `a` to `b` (13 each),
  /// slerp quaternions qa -> qb with the constant angle theta (shortest path, nlerp when
  /// |dot| > 0.9999, `nlerp` true).
  case threeD(part: Int, a: [Float], b: [Float], qa: SIMD4<Float>, qb: SIMD4<Float>, theta: Float, nlerp: Bool)
  /// Element-wise lerp of 16 entries.
  case componentwise(part: Int, a: [Float], b: [Float])
  /// Discrete fallback (undecomposable end): `a` before progress 0.5, `b` from it on.
  case discrete(part: Int, a: [Float], b: [Float])
  /// Keyframes: each lane's segment, eased, interpolated on that segment's path.
  case keyframes(part: Int, CompiledMatrixKeyframes)

  /// The part whose progress drives the matrix.
  var part: Int {
    switch self {
    case .twoD(let part, _, _), .threeD(let part, _, _, _, _, _, _), .componentwise(let part, _, _),
      .discrete(let part, _, _), .keyframes(let part, _):
      return part
    }
  }

  /// A pair of matrices on the path `interpolation` chose, as Float constants; `held`
  /// (reduce motion) interpolates from the end to the end on that path.
  static func pair(_ interpolation: TransformInterpolator, part i: Int, held: Bool) -> CompiledMatrix {
    let fa = interpolation.from.fieldOrder.map(Float.init), fb = interpolation.to.fieldOrder.map(Float.init)
    switch interpolation.path {
    case .twoD(let a, let b):
      func pack(_ d: Decomposed2D) -> [Float] {
        [d.translateX, d.translateY, d.scaleX, d.scaleY, d.angle, d.m11, d.m12, d.m21, d.m22].map(Float.init)
      }
      return .twoD(part: i, a: pack(held ? b : a), b: pack(b))
    case .threeD(let a, let b):
      func pack(_ d: Decomposed3D) -> [Float] {
        [
          d.perspective.0, d.perspective.1, d.perspective.2, d.perspective.3,
          d.translate.x, d.translate.y, d.translate.z, d.scale.x, d.scale.y, d.scale.z,
          d.skew.x, d.skew.y, d.skew.z,
        ].map(Float.init)
      }
      var qb = b.quaternion
      var dot = a.quaternion.dot(qb)
      if dot < 0 {
        qb = -qb
        dot = -dot
      }
      let qa = held ? qb : a.quaternion
      if held { dot = 1 }
      return .threeD(
        part: i, a: pack(held ? b : a), b: pack(b),
        qa: SIMD4(Float(qa.x), Float(qa.y), Float(qa.z), Float(qa.w)),
        qb: SIMD4(Float(qb.x), Float(qb.y), Float(qb.z), Float(qb.w)),
        theta: Float(acos(min(dot, 1))), nlerp: dot > Quaternion.nlerpThreshold)
    case .componentwise:
      return .componentwise(part: i, a: held ? fb : fa, b: fb)
    case .discrete:
      return .discrete(part: i, a: held ? fb : fa, b: fb)
    }
  }
}

/// A recipe ready for the kernel. Build with `CompiledRecipe(_:)`, which validates.
public struct CompiledRecipe: Sendable {
  public let recipe: Recipe
  package let parts: [CompiledPart]
  package let channels: [CompiledChannel]
  /// The channels that move the transform (all but opacity and shadow opacity), in recipe
  /// order: where two animate the same channel, the later one wins.
  package let transformChannels: [CompiledChannel]
  /// The transform channels that show (the last of each kind), one slot per kind: what the
  /// matrix passes read per lane group, without a loop over the channels.
  let channelSlots: ChannelSlots
  /// The opacity and shadow-opacity channels that win (the last of each kind), if any.
  package let opacityChannel: CompiledChannel?
  package let shadowChannel: CompiledChannel?
  package let matrix: CompiledMatrix?
  /// The keyframe channels (not held by the motion policy), in order: each reads its part's
  /// progress and writes its value to scratch row `parts.count + index`, which its
  /// `CompiledChannel` reads as progress with from 0 and to 1.
  package let keyframes: [CompiledKeyframes]
  /// The rotation channels whose angle depends on the cell's geometry, with how far it can
  /// reach (`checkAngles`, run for each cell `CellBatch.append` adds).
  package let angleReaches: [AngleReach]
  /// Retargeted channels (derived recipes only, `CellBatch.retarget`): each writes its
  /// value to scratch row `parts.count + keyframes.count + index`, which its
  /// `CompiledChannel` reads as progress with from 0 and to 1; their staged progress rows
  /// follow.
  package let retargets: [CompiledRetarget]
  /// Per-cell retarget rows the retargets read (`RetargetShape.inputRows` summed).
  package let retargetInputRows: Int
  /// The recipe this one derives from (its index in the batch), for derived recipes.
  package internal(set) var baseRecipe: Int? = nil
  /// Every curve compiled for this recipe, to seed the compilation of derived recipes.
  package let compiledCurves: [AnimationCurve: CompiledCurve]
  /// The block's scratch rows: every part's progress, every keyframe channel's value,
  /// every retargeted channel's value and staged progress, then the matrix rows; and the
  /// cells per block that fit (`ScratchLayout`).
  let layout: ScratchLayout
  /// The passes a block runs (`KernelPass` order): progress, keyframes and retargets
  /// where the recipe has them, opacity, velocities (in frames that ask), matrices, fold.
  private(set) var passes: PassSet = []
  /// How the matrix pass makes the cells' matrices.
  private(set) var matrixPlan = MatrixPlan.general
  /// Where each channel's velocity comes from (`Kernel.velocityStage`).
  package private(set) var velocityPlan = VelocityPlan.empty
  /// Uniform flags that pick the kernel path for this recipe.
  package let hasChannelTransform: Bool
  package let hasRotationXY: Bool
  /// Which rotation channels animate (about x, y, z): the general path skips the sine and
  /// cosine of the others (their angle is 0).
  let rotates: (x: Bool, y: Bool, z: Bool)
  package let hasTranslationZ: Bool
  package let translateFirst: Bool
  /// m34 added after the animated transform (0 when none).
  package let m34: Float
  package let anchor: SIMD2<Float>
  /// Media timing: speed, repeat, autoreverse, fill.
  package let timing: PartTiming
  /// The fold's plan (recipes with a fold).
  private(set) var fold: FoldPlan? = nil
  /// Whether the fold shows its end state (reduce motion holds it).
  package var holdsFold: Bool { fold?.held == true }
  /// The reduce-motion policy compiled in (the recipe's own, or the one given to `init`).
  public let motion: MotionPolicy
  /// Where the cells' progress comes from (`ProgressSource`).
  public let source: ProgressSource
  /// Seconds of the recipe's timeline that progress 0...1 covers (`ProgressSource.progress`:
  /// its active duration, at most `CellBatch.precisionWindow`); 0 on the clock.
  let progressSpan: Float
  /// Whether the transform stays affine 2D at every time (the kernel's 6-entry path).
  public let isPlanar: Bool
  /// Seconds from a cell's staggered start until nothing changes (`Recipe.activeDuration`).
  public let activeDuration: Double
  /// Seconds added (in Double) to a cell's staggered start where the kernel's Float times
  /// are measured from: the earliest delay of the recipe's timed parts, whose delays are
  /// then taken relative to it, so a long delay they share costs no precision
  /// (`timelineShift`); 0 for cells driven by progress.
  public let startShift: Double
  /// Whether the kernel stores this recipe's cell matrices as the identity from constants,
  /// computing no entries: nothing moves the cells (`MatrixPlan.identity`: the fade and
  /// fold recipes) and no projected corners are asked for.
  func storesIdentity(corners: Bool) -> Bool {
    if case .identity = matrixPlan { return !corners }
    return false
  }
  /// Most distinct timed parts (curve, duration, delay) one recipe may have, 240: enough
  /// for a block of 16 cells in the kernel's scratch (`ScratchLayout.maxStagedRows`; a
  /// fold's halves take none of it). Counted on the recipe's own values (curve, duration,
  /// delay and end time as Floats) before any curve is compiled.
  public static var maxParts: Int { ScratchLayout.maxStagedRows }
  /// Most channels one recipe may have: 1,024. There are 11 channel kinds and where two
  /// channels animate the same one the later wins, so real recipes have a handful; the
  /// bound keeps compiling, and the kernel's per-cell work over the channels, in
  /// proportion. Checked first, before the recipe is validated or anything compiled.
  public static let maxChannels = 1024

  /// A timed part as the recipe states it: the key that merges parts before any curve is
  /// compiled (a Bezier's compilation runs dense-grid solves, tens of milliseconds).
  private struct PartKey: Hashable {
    var curve: AnimationCurve
    var duration: Float
    var delay: Float
    var endLocalTime: Float
  }

  /// Compiles and validates `recipe` under a reduce-motion policy (`motion`, or the
  /// recipe's own when nil).
  ///
  /// The policy is compiled as a per-channel mask, not a second recipe: a held channel's
  /// delta (to - from) is multiplied by 0, so it evaluates to its end value with the same
  /// code; a held matrix interpolates from its end to its end; a held fold takes progress
  /// 1; `.reduced` adds `Recipe.reducedMotionCrossFade` as one more opacity channel.
  ///
  /// - Throws: `CellMotionError.outOfRange` for more than `maxChannels` channels or more
  ///   than `maxParts` distinct timed parts (both before any curve is compiled), or the
  ///   first problem `Recipe.validate()` finds.
  /// - Complexity: O(channels) plus one curve compilation per distinct curve (at most
  ///   `maxParts`).
  ///
  /// With `source` `.progress` the recipe's active duration must be at most
  /// `CellBatch.precisionWindow` (16 s: the Float time quantum the stated tolerances need),
  /// else `.outOfRange`. On the clock, a timed part's timeline must span at most
  /// `maxTimelineDurations` of its durations, and the angles the kernel forms must stay
  /// within `maximumAngle` (`.outOfRange` otherwise, naming the part).
  public init(_ recipe: Recipe, motion: MotionPolicy? = nil, source: ProgressSource = .clock) throws(CellMotionError) {
    try self.init(recipe, motion: motion, source: source, retargets: [])
  }

  /// `init(_:motion:)` for a derived recipe whose channels in `retargets` (each the last
  /// channel of its kind, animated by the recipe) and, with `foldRetarget`, whose fold's
  /// progress read the batch's retarget rows; `curves` seeds the compiled curves (those
  /// of the recipe it derives from).
  ///
  /// Compiled unoptimised (`@_optimize(none)`): it runs once per recipe (and per
  /// retargeted shape) over a handful of channels, while optimising it cost every build of
  /// the kernel about 1.3 s of its 32 s of SIL time (`-Xllvm -sil-print-pass-time`). Its
  /// generic code then goes through the runtime (metadata and witness lookups): about a
  /// third more instructions per compilation (0.3-0.6 ms more to set up the benchmark's
  /// scroll sessions). The curve fits, tables and plans it calls stay optimised.
  @_optimize(none)
  package init(
    _ recipe: Recipe, motion: MotionPolicy? = nil, source: ProgressSource = .clock, retargets shapes: [RetargetShape],
    foldRetarget: RetargetShape? = nil, curves: [AnimationCurve: CompiledCurve] = [:]
  ) throws(CellMotionError) {
    guard recipe.channels.count <= Self.maxChannels else {
      throw .outOfRange(
        field: "\(recipe.name).channels.count", value: Double(recipe.channels.count),
        expected: "<= \(Self.maxChannels)")
    }
    try recipe.validate()
    self.recipe = recipe
    let policy = motion ?? recipe.motion
    self.motion = policy
    self.source = source
    // Part delays count from the earliest one, which each cell's start takes in Double.
    let shift = source == .clock ? try Self.timelineShift(recipe) : 0
    startShift = shift
    switch source {
    case .clock:
      progressSpan = 0
    case .progress:
      let span = recipe.activeDuration
      guard span <= CellBatch.precisionWindow else {
        throw .outOfRange(
          field: "\(recipe.name).activeDuration", value: span,
          expected: "<= \(Int(CellBatch.precisionWindow)) s for a recipe driven by progress")
      }
      progressSpan = Float(span)
    }
    // The channels as evaluated: the recipe's, plus the cross-fade of `.reduced`.
    var recipeChannels = recipe.channels
    if policy == .reduced, let fade = recipe.reducedMotionCrossFade { recipeChannels.append(fade) }
    activeDuration = recipe.activeDuration
    let timing = recipe.timing
    // 1. Every timed use (channels, matrix, fold) to a distinct key, in order of first use;
    //    nothing compiled yet, so the parts limit costs O(channels) to check.
    var keys: [PartKey] = []
    var keyIndex: [PartKey: Int] = [:]
    func key(_ curve: AnimationCurve, _ duration: Double, _ delay: Double) -> Int {
      // End state of the last iteration, as MediaTiming defines it, for forward fills.
      let probe = try? MediaTiming(
        beginTime: 0, duration: duration, speed: 1, repeatCount: timing.repeatCount,
        autoreverses: timing.autoreverses, fillMode: .forwards)
      let endLocal = probe.flatMap { $0.localTime(parentTime: $0.activeDuration + 1) } ?? duration
      let k = PartKey(curve: curve, duration: Float(duration), delay: Float(delay - shift), endLocalTime: Float(endLocal))
      if let i = keyIndex[k] { return i }
      keys.append(k)
      keyIndex[k] = keys.count - 1
      return keys.count - 1
    }
    let channelKeys = recipeChannels.map { key($0.curve, $0.duration, $0.delay) }
    let matrixKey = recipe.matrix.map { key($0.curve, $0.duration, $0.delay) }
    let foldKey = recipe.fold.map { key($0.curve, $0.duration, 0) }
    // Keyframe channels take one more row each.
    let partLimit = Self.maxParts
    let keyframeRows = recipeChannels.filter { $0.keyframes != nil && !policy.holds($0.channel) }.count
    // Retargets: one value row each plus staged progress (a timed segment, each layer).
    let foldShapes = recipe.fold != nil ? foldRetarget.map { [$0] } ?? [] : []
    let retargetRows = (shapes + foldShapes).reduce(0) { $0 + $1.scratchRows }
    guard keys.count + keyframeRows + retargetRows <= partLimit else {
      throw .outOfRange(
        field: "\(recipe.name): distinct (curve, duration, delay) parts"
          + (keyframeRows > 0 ? " plus keyframe channels" : "") + (retargetRows > 0 ? " plus retarget rows" : ""),
        value: Double(keys.count + keyframeRows + retargetRows), expected: "<= \(partLimit)")
    }
    // 2. Each distinct curve compiled once. Keys whose compiled parts coincide (curves that
    //    differ only below Float precision) share one part, in order of first use.
    var compiledCurves = curves
    var parts: [CompiledPart] = []
    let partOfKey = keys.map { k -> Int in
      let curve = compiledCurves[k.curve] ?? CompiledCurve(k.curve)
      compiledCurves[k.curve] = curve
      let part = CompiledPart(curve: curve, duration: k.duration, delay: k.delay, endLocalTime: k.endLocalTime)
      if let i = parts.firstIndex(of: part) { return i }
      parts.append(part)
      return parts.count - 1
    }
    var channels: [CompiledChannel] = []
    var keyframes: [CompiledKeyframes] = []
    var angleReaches: [AngleReach] = []
    var retargets: [CompiledRetarget] = []
    var retargetInputs = 0
    // Retarget rows follow the keyframe rows; their staged progress follows all of them.
    var progressRow = parts.count + keyframeRows + shapes.count + foldShapes.count
    func compile(_ curve: AnimationCurve) -> CompiledCurve {
      let compiled = compiledCurves[curve] ?? CompiledCurve(curve)
      compiledCurves[curve] = compiled
      return compiled
    }
    /// Compiles a retarget of `base` (a channel's, or the fold's progress) into the next
    /// value row; returns that row.
    func addRetarget(_ shape: RetargetShape, base: CompiledChannel, isFold: Bool = false) -> Int {
      let row = parts.count + keyframeRows + retargets.count
      let compiled = CompiledRetarget(
        shape, base: base, input: retargetInputs, row: row, progressRow: progressRow, isFold: isFold, compile: compile)
      retargets.append(compiled)
      retargetInputs += shape.inputRows
      progressRow += compiled.progressRows
      return row
    }
    channels.reserveCapacity(recipeChannels.count)
    for (n, c) in recipeChannels.enumerated() {
      let i = partOfKey[channelKeys[n]]
      let held = policy.holds(c.channel)
      var channel: CompiledChannel
      if let k = c.keyframes, !held {
        // The keyframe stage writes the value itself to its row: read it as progress
        // from 0 to 1.
        let row = parts.count + keyframes.count
        keyframes.append(try CompiledKeyframes(k, part: i, row: row, duration: c.duration))
        channel = CompiledChannel(channel: c.channel, part: row, from: .zero, to: SIMD3(1, 0, 0))
        if c.channel == .rotationX || c.channel == .rotationY || c.channel == .rotationZ {
          try Self.admit(
            Self.angleReach(k, field: "\(recipe.name).channels[\(n)].keyframes"),
            into: &angleReaches)
        }
      } else {
        let end = c.endValue
        // A rotation's whole turns come off both constants in Double (`reducedTurns`).
        let (fromC, toC) = Self.reducedTurns(c.channel, c.from.constant, end.constant)
        let from = SIMD3(Float(fromC), Float(c.from.perCellHeight), Float(c.from.perTableWidth))
        let to = SIMD3(Float(toC), Float(end.perCellHeight), Float(end.perTableWidth))
        if c.channel == .rotationX || c.channel == .rotationY || c.channel == .rotationZ, !held {
          try Self.admit(
            Self.angleReach(
              from: SIMD3(fromC, c.from.perCellHeight, c.from.perTableWidth),
              to: SIMD3(toC, end.perCellHeight, end.perTableWidth), bounds: parts[i].curve.progressBounds,
              field: "\(recipe.name).channels[\(n)]"),
            into: &angleReaches)
        }
        // The mask: 1 animates, 0 holds the end value. (to - from) x 0 is applied by setting
        // from = to, so the value is exactly `to` whatever the progress.
        channel = CompiledChannel(channel: c.channel, part: i, from: held ? to : from, to: to)
      }
      // The last channel of its kind is the one shown: a retarget replaces it by its row.
      if let shape = shapes.first(where: { $0.channel == c.channel }),
        !recipeChannels[(n + 1)...].contains(where: { $0.channel == c.channel })
      {
        let row = addRetarget(shape, base: channel)
        channel = CompiledChannel(channel: c.channel, part: row, from: .zero, to: SIMD3(1, 0, 0))
      }
      channels.append(channel)
    }
    guard retargets.count == shapes.count else {
      throw .invalidCombination(
        field: "retarget", reason: "recipe \(recipe.name) does not animate every retargeted channel")
    }
    // The fold's progress as a retarget: its base is the fold's part from 0 to 1 (held:
    // 1 to 1), and the fold stage reads the value row instead of the part.
    var foldRow: Int? = nil
    if let shape = foldShapes.first, let foldKey {
      let held = policy.holdsTransforms
      let base = CompiledChannel(
        channel: .rotationX, part: partOfKey[foldKey], from: held ? SIMD3(1, 0, 0) : .zero, to: SIMD3(1, 0, 0))
      foldRow = addRetarget(shape, base: base, isFold: true)
    }
    CompiledKeyframes.markSharedSegments(&keyframes)
    self.keyframes = keyframes
    self.angleReaches = angleReaches
    self.retargets = retargets
    retargetInputRows = retargetInputs
    layout = ScratchLayout(stagedRows: progressRow)
    self.compiledCurves = compiledCurves
    let transformChannels = channels.filter { $0.channel != .opacity && $0.channel != .shadowOpacity }
    self.transformChannels = transformChannels
    channelSlots = ChannelSlots(transformChannels)
    opacityChannel = channels.last { $0.channel == .opacity }
    shadowChannel = channels.last { $0.channel == .shadowOpacity }
    hasChannelTransform = !transformChannels.isEmpty
    hasRotationXY = transformChannels.contains { $0.channel == .rotationX || $0.channel == .rotationY }
    hasTranslationZ = transformChannels.contains { $0.channel == .translationZ }
    rotates = (
      transformChannels.contains { $0.channel == .rotationX }, transformChannels.contains { $0.channel == .rotationY },
      transformChannels.contains { $0.channel == .rotationZ }
    )
    translateFirst = recipe.order == .translateFirst
    if let m = recipe.matrix, let matrixKey {
      let i = partOfKey[matrixKey]
      // Held (reduce motion): from the end to the end, on the path the recipe's ends take.
      let held = policy.holdsTransforms
      if let k = m.keyframes {
        if held {
          let end = k.modelValue(interpolation: m.mode).fieldOrder.map(Float.init)
          matrix = .componentwise(part: i, a: end, b: end)
        } else {
          matrix = .keyframes(part: i, try CompiledMatrixKeyframes(k, interpolation: m.mode, duration: m.duration))
        }
      } else {
        matrix = CompiledMatrix.pair(TransformInterpolator(from: m.from, to: m.to, mode: m.mode), part: i, held: held)
      }
    } else {
      matrix = nil
    }
    m34 = recipe.perspectiveDistance.map { Float(-1 / $0) } ?? 0
    anchor = SIMD2(Float(recipe.anchorX), Float(recipe.anchorY))
    self.timing = PartTiming(timing)
    self.parts = parts
    self.channels = channels
    var planar = !hasRotationXY && !hasTranslationZ && m34 == 0
    if let matrix {
      switch matrix {
      case .twoD: break
      default: planar = false
      }
    }
    isPlanar = planar
    // The plans, from what is decided above (they read it through `self`).
    if planar {
      let k = PlanarConstants(self)
      matrixPlan = k.isIdentity ? .identity(k) : .planar(k)
    } else if let ar = AxisRotation(self) {
      matrixPlan = .axisRotation(ar)
    }
    velocityPlan = VelocityPlan(self)
    if let f = recipe.fold, let foldKey {
      // A retargeted fold reads its row even when held: the motion is exact there.
      let row = foldRow ?? partOfKey[foldKey]
      let held = foldRow == nil && policy.holdsTransforms
      if foldRow == nil, !policy.holdsTransforms {
        try Self.checkAngle(
          Self.foldReach(opening: f.direction == .open, bounds: parts[row].curve.progressBounds), field: "\(recipe.name).fold")
      }
      // The fold's angle is (1 - openness) * (-pi/2), openness = p or 1 - p (p = 1 held).
      let bounds = held ? (lo: 1.0, hi: 1.0) : progressBounds(row: row)
      let opening = f.direction == .open
      fold = FoldPlan(
        part: row, opening: opening, m34: Float(-1 / f.perspectiveDistance), held: held,
        angleCentre: opening
          ? AngleCentre.of(from: -.pi / 2, delta: .pi / 2, bounds: bounds)
          : AngleCentre.of(from: 0, delta: -.pi / 2, bounds: bounds))
    }
    var passes: PassSet = [.init(.progress), .init(.opacity), .init(.velocities), .init(.matrices)]
    if !keyframes.isEmpty { passes.insert(.init(.keyframes)) }
    if !retargets.isEmpty { passes.insert(.init(.retargets)) }
    if fold != nil { passes.insert(.init(.fold)) }
    self.passes = passes
  }
}

extension CompiledRecipe {
  /// Bounds on what scratch row `row` can hold: a part's progress
  /// (`CompiledCurve.progressBounds`) or a keyframe channel's value
  /// (`CompiledKeyframes.valueBounds`).
  func progressBounds(row: Int) -> (lo: Double, hi: Double) {
    if row < parts.count { return parts[row].curve.progressBounds }
    if row < parts.count + keyframes.count { return keyframes[row - parts.count].valueBounds }
    return (-.infinity, .infinity)  // a retargeted channel's value: per-cell numbers
  }
}
