// Keyframe channels in the kernel against the scalar reference (`KeyframeTrack` through
// `ReferenceEvaluator`), with the differential tests' tolerances: random tracks of 1 to
// 64 keys in every calculation mode, Bezier and spring segments, values that depend on
// the geometry, under staggers and every reduce-motion policy, at every lane width and
// the awkward sizes.

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

/// Random key times for `count` keys, half the time (nil, evenly spaced, otherwise): uneven
/// gaps within a factor 2 of each other, sometimes one of zero (a jump).
func randomKeyTimes(_ g: inout SeededGenerator, count keyCount: Int) -> [Double]? {
  guard g.next() % 2 == 0, keyCount > 1 else { return nil }
  var gaps = (0..<(keyCount - 1)).map { _ in g.uniform(0.7...1.3) }
  if gaps.count > 2, g.next() % 3 == 0 { gaps[1] = 0 }
  let total = gaps.reduce(0, +)
  var times = [0.0], sum = 0.0
  for gap in gaps.dropLast() {
    sum += gap
    times.append(sum / total)
  }
  return times + [1]
}

/// A random keyframe channel of kind `channel`: 1 to 64 keys (often few), a random mode,
/// key times (sometimes with repeated times: jumps), per-segment Beziers and springs in
/// all regimes, Kochanek-Bartels parameters, values that depend on the geometry where the
/// mode allows it.
func randomKeyframeChannel(_ g: inout SeededGenerator, _ channel: Channel) throws -> ChannelAnimation {
  let n = g.next() % 4 == 0 ? 1 + Int(g.next() % UInt64(KeyframeTrack.maximumKeys)) : 1 + Int(g.next() % 9)
  let mode = KeyframeCalculationMode.allCases[Int(g.next() % 5)]
  let paced = mode == .paced || mode == .cubicPaced
  func value() -> ChannelValue {
    switch channel {
    case .opacity, .shadowOpacity: return ChannelValue(g.uniform(0...1))
    case .rotationX, .rotationY, .rotationZ: return ChannelValue(g.uniform(-1.5...1.5))
    case .scale, .scaleX, .scaleY: return ChannelValue(g.uniform(0.4...1.6))
    default:
      if !paced && g.next() % 3 == 0 {
        return ChannelValue(g.uniform(-30...30), perCellHeight: g.uniform(-0.5...0.5), perTableWidth: g.uniform(-0.3...0.3))
      }
      return ChannelValue(g.uniform(-40...40))
    }
  }
  // Many keys move less from one to the next (a random walk towards each new draw), as
  // real tracks do; the kernel's arithmetic is the same either way.
  var values = [value()]
  for _ in 1..<max(n, 1) {
    let target = value(), last = values[values.count - 1], step = min(1, 8 / Double(n))
    values.append(
      ChannelValue(
        last.constant + (target.constant - last.constant) * step,
        perCellHeight: last.perCellHeight + (target.perCellHeight - last.perCellHeight) * step,
        perTableWidth: last.perTableWidth + (target.perTableWidth - last.perTableWidth) * step))
  }
  let keyTimes = randomKeyTimes(&g, count: mode == .discrete ? n + 1 : n)
  var timing: [AnimationCurve]? = nil
  if n > 1, g.next() % 3 != 0 {
    timing = try (0..<(n - 1)).map { _ in try randomCurve(&g) }
  }
  func parameters() -> [Double]? { g.next() % 2 == 0 ? (0..<n).map { _ in g.uniform(-1...1) } : nil }
  let keyframes = ChannelKeyframes(
    values: values, keyTimes: keyTimes, timingFunctions: timing, mode: mode, tension: parameters(),
    continuity: parameters(), bias: parameters())
  let outer: AnimationCurve = g.next() % 3 == 0 ? try randomCurve(&g) : .bezier(.linear)
  // At least 60 ms per segment: the error of a value that changes faster than that is
  // mostly the Float time's rounding (about 6e-8 s) times its speed (steep Bezier segments
  // multiply it), not the kernel's arithmetic.
  return ChannelAnimation(
    channel, keyframes: keyframes, curve: outer, duration: max(g.uniform(0.2...1.5), 0.06 * Double(n)),
    delay: g.uniform(0...0.2))
}

/// A recipe with keyframe channels (and sometimes a plain channel beside them).
func randomKeyframeRecipe(_ g: inout SeededGenerator, name: String) throws -> Recipe {
  var channels: [ChannelAnimation] = []
  for c in Channel.allCases where g.next() % 3 == 0 {
    channels.append(try randomKeyframeChannel(&g, c))
  }
  if channels.isEmpty { channels.append(try randomKeyframeChannel(&g, .translationX)) }
  if g.next() % 3 == 0 {
    channels.append(ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeOut), duration: 0.3))
  }
  return Recipe(
    name: name, channels: channels, stagger: g.next() % 2 == 0 ? randomStagger(&g) : .none,
    order: g.next() % 2 == 0 ? .keyPath : .translateFirst,
    perspectiveDistance: g.next() % 4 == 0 ? g.uniform(300...1500) : nil,
    timing: g.next() % 4 == 0 ? RecipeTiming(speed: 1.5, repeatCount: 1.5, autoreverses: true, fillMode: .both) : .uiKit)
}

/// A random matrix keyframe animation: 1 to 12 matrices (affine, 3D, with perspective, and
/// sometimes one that does not decompose), linear or discrete, Bezier and spring segments,
/// either interpolation mode.
func randomMatrixKeyframes(_ g: inout SeededGenerator) throws -> MatrixAnimation {
  let n = 1 + Int(g.next() % 12)
  let values: [Transform3D] = (0..<n).map { _ in
    switch g.next() % 6 {
    case 0, 1: return randomAffine(&g)
    case 2, 3, 4: return random3D(&g)
    default: return Transform3D.scale(0, 1, 1)  // no decomposition: the discrete fallback
    }
  }
  let mode: KeyframeCalculationMode = g.next() % 4 == 0 ? .discrete : .linear
  let keyTimes = randomKeyTimes(&g, count: mode == .discrete ? n + 1 : n)
  let timing: [AnimationCurve]? = n > 1 && g.next() % 3 != 0 ? try (0..<(n - 1)).map { _ in try randomCurve(&g) } : nil
  return MatrixAnimation(
    keyframes: MatrixKeyframes(values: values, keyTimes: keyTimes, timingFunctions: timing, mode: mode),
    mode: g.next() % 4 == 0 ? .componentwise : .decomposed, curve: g.next() % 3 == 0 ? try randomCurve(&g) : .bezier(.linear),
    duration: max(g.uniform(0.5...1.5), 0.1 * Double(n)), delay: g.uniform(0...0.2))
}

/// A random key value for the three-key and lookup tests: a constant, or (`geometric`) one
/// with parts per cell height and table width.
func keyValue(_ g: inout SeededGenerator, _ geometric: Bool) -> ChannelValue {
  geometric
    ? ChannelValue(g.uniform(-30...30), perCellHeight: g.uniform(-0.5...0.5), perTableWidth: g.uniform(-0.3...0.3))
    : ChannelValue(g.uniform(-40...40))
}

@Suite("Keyframes: kernel vs scalar reference")
struct KeyframeKernelTests {
  static let sizes = [0, 1, 7, 9, 1023, 4097]

  @Test("Random keyframe tracks (1 to 64 keys, every mode, Bezier and spring segments), every lane width, sizes 0-1023 (4097 exhaustive)")
  func randomTracks() throws {
    var g = SeededGenerator(seed: 0x4B_E7F2)
    var c = Comparison("keyframes")
    for round in 0..<Sweep.count(quick: 6, full: 40) {
      var recipes: [Recipe] = []
      for k in 0..<4 { recipes.append(try randomKeyframeRecipe(&g, name: "keyframes\(round).\(k)")) }
      // Quick sweep (-Onone): 1023 cells every other round, no 4097.
      for n in Self.sizes where n < 1023 || (n == 1023 && (Sweep.exhaustive || round % 2 == 0)) || (Sweep.exhaustive && round % 3 == 0) {
        try compare(recipes: recipes, count: n, time: g.uniform(-0.3...2.5), lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    c.expectAllPassed(folds: false)
  }

  @Test("Every mode at many times through each track: at, between and around the keys")
  func everyMode() throws {
    var g = SeededGenerator(seed: 0x4B_E7F3)
    var c = Comparison("keyframe modes")
    for mode in KeyframeCalculationMode.allCases {
      for keys in [1, 2, 3, 8, 64] {
        var channels: [ChannelAnimation] = []
        for channel in [Channel.translationY, .rotationZ, .scale, .opacity] {
          var ch = try randomKeyframeChannel(&g, channel)
          var k = ch.keyframes!
          k.mode = mode
          k.values = Array((k.values + k.values + k.values).prefix(keys))
          while k.values.count < keys { k.values.append(k.values[k.values.count - 1]) }
          if mode == .paced || mode == .cubicPaced { k.values = k.values.map { ChannelValue($0.constant) } }
          k.keyTimes = nil
          k.timingFunctions = keys > 1 ? try (0..<(keys - 1)).map { _ in try randomCurve(&g) } : nil
          for list in [\ChannelKeyframes.tension, \.continuity, \.bias] where k[keyPath: list] != nil {
            k[keyPath: list] = (0..<keys).map { _ in g.uniform(-1...1) }
          }
          ch = ChannelAnimation(channel, keyframes: k, duration: 1)
          channels.append(ch)
        }
        let recipe = Recipe(name: "\(mode)-\(keys)", channels: channels)
        for time in stride(from: -0.1, through: 2.2, by: 0.0625) {
          try compare(recipes: [recipe], count: 9, time: time, lanes: LaneWidth.allCases, g: &g, into: &c)
        }
      }
    }
    c.expectAllPassed(folds: false)
  }

  @Test("Matrix keyframes (2D, 3D, componentwise and discrete segments), every lane width, sizes 0-1023 (4097 exhaustive)")
  func matrixTracks() throws {
    var g = SeededGenerator(seed: 0x4B_E7F5)
    var c = Comparison("matrix keyframes")
    for round in 0..<Sweep.count(quick: 8, full: 40) {
      var recipes: [Recipe] = []
      for k in 0..<3 {
        var r = Recipe(name: "matrix\(round).\(k)", matrix: try randomMatrixKeyframes(&g))
        if g.next() % 2 == 0 { r.channels = [try randomKeyframeChannel(&g, .opacity)] }
        if g.next() % 3 == 0 { r.motion = MotionPolicy.allCases[Int(g.next() % 3)] }
        recipes.append(r)
      }
      for n in Self.sizes where n < 1023 || (n == 1023 && (Sweep.exhaustive || round % 2 == 0)) || (Sweep.exhaustive && round % 4 == 0) {
        try compare(recipes: recipes, count: n, time: g.uniform(-0.3...2.5), lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    c.expectAllPassed(folds: false)
  }

  @Test("Keyframe recipes under every reduce-motion policy")
  func reduceMotion() throws {
    var g = SeededGenerator(seed: 0x4B_E7F4)
    var c = Comparison("keyframes, reduce motion")
    for policy in MotionPolicy.allCases {
      let recipes = try (0..<3).map { try randomKeyframeRecipe(&g, name: "motion\($0)") }
      for n in [1, 9, 1023] {
        try compare(
          recipes: recipes, count: n, time: g.uniform(-0.2...2), lanes: LaneWidth.allCases, motion: policy, g: &g, into: &c)
      }
    }
    c.expectAllPassed(folds: false)
  }

  @Test("Compiled segments: cubicPaced becomes lines through the turning points; limits and held channels")
  func compiled() throws {
    // 0 -> 1 -> 20 with Catmull-Rom: the middle tangent (9.5 per unit) is far steeper than
    // the first piece's rise, so that piece turns twice (up, down below 0, up to 1): the
    // polyline has 3 lines there and 1 in the second piece.
    let kf = ChannelKeyframes(values: [0, 1, 20], mode: .cubicPaced)
    let recipe = Recipe(name: "paced", channels: [ChannelAnimation(.translationX, keyframes: kf, duration: 1)])
    let compiled = try CompiledRecipe(recipe)
    #expect(compiled.keyframes.count == 1)
    let segments = compiled.keyframes[0].segments
    #expect(segments.count == 4, "\(segments.count) segments")
    // Each line moves at the same speed: its value change over its span is the same size.
    var speeds: [Double] = []
    for (k, s) in segments.enumerated() {
      let end = k + 1 < segments.count ? Double(segments[k + 1].start) : 1
      speeds.append(abs(Double(s.poly[2])) / (end - Double(s.start)))
    }
    for v in speeds { #expect(abs(v - speeds[0]) <= 1e-4 * speeds[0], "\(speeds)") }
    // Held under reduce motion: no keyframe stage, the channel shows its last value.
    let held = try CompiledRecipe(recipe, motion: MotionPolicy.none)
    #expect(held.keyframes.isEmpty)
    // The parts limit counts keyframe channels.
    let many = (0..<CompiledRecipe.maxParts).map { k in
      ChannelAnimation(.translationX, keyframes: ChannelKeyframes(values: [0, ChannelValue(Double(k))]), duration: 1)
    }
    #expect(throws: CellMotionError.self) { try CompiledRecipe(Recipe(name: "many", channels: many)) }
  }

  @Test("Key times closer than Float's range (1e-40 apart) stay finite and match the reference")
  func tinySpans() throws {
    var g = SeededGenerator(seed: 0x4B_E7F6)
    var c = Comparison("tiny spans")
    let spring = AnimationCurve.spring(try Spring(mass: 1, stiffness: 200, damping: 12))
    let scalar = ChannelKeyframes(values: [0, 30, -10], keyTimes: [0, 1e-40, 1], timingFunctions: [spring, .bezier(.easeIn)])
    let matrix = MatrixKeyframes(
      values: [.identity, .translation(30, 0, 0), .rotation(0.5, 0, 0, 1)], keyTimes: [0, 1e-40, 1])
    let recipe = Recipe(
      name: "tiny", channels: [ChannelAnimation(.translationY, keyframes: scalar, duration: 0.5)],
      matrix: MatrixAnimation(keyframes: matrix, duration: 0.5), timing: RecipeTiming(fillMode: .both))
    for time in [-0.2, 0, 1e-9, 0.001, 0.25, 0.5, 0.9] {
      try compare(recipes: [recipe], count: 9, time: time, lanes: LaneWidth.allCases, g: &g, into: &c)
    }
    c.expectAllPassed(folds: false)
  }

  /// Three keys without easing take a loop of their own (`plainKeyframeStage` and
  /// `plainGeometryKeyframeStage` with two segments): lines and cubics, constant values and
  /// values per cell height and table width, even and uneven key times, every lane width.
  @Test("Three-key tracks (lines and cubics, values with the cell's geometry) match the reference")
  func threeKeyTracks() throws {
    var g = SeededGenerator(seed: 0x4B_E7F9)
    var c = Comparison("three-key keyframes")
    for round in 0..<16 {
      let geometric = round % 2 == 0
      let mode: KeyframeCalculationMode = round % 4 < 2 ? .linear : .cubic
      let middle = round % 3 == 0 ? 0.5 : g.uniform(0.2...0.8)
      var channels: [ChannelAnimation] = []
      for channel in [Channel.translationX, .translationY] {
        let keys = ChannelKeyframes(
          values: (0..<3).map { _ in keyValue(&g, geometric) }, keyTimes: [0, middle, 1], timingFunctions: nil, mode: mode)
        channels.append(ChannelAnimation(channel, keyframes: keys, curve: .bezier(.linear), duration: g.uniform(0.3...1)))
      }
      let opacity = ChannelKeyframes(
        values: [ChannelValue(g.uniform(0...1)), ChannelValue(g.uniform(0...1)), ChannelValue(g.uniform(0...1))],
        keyTimes: [0, middle, 1], timingFunctions: nil, mode: mode)
      channels.append(ChannelAnimation(.opacity, keyframes: opacity, curve: .bezier(.easeInEaseOut), duration: 0.6))
      let recipe = Recipe(name: "threeKeys\(round)", channels: channels)
      let compiled = try CompiledRecipe(recipe)
      #expect(compiled.keyframes.allSatisfy { $0.table.count / CompiledKeyframes.tableStride == 2 }, "round \(round)")
      for n in [0, 1, 7, 9, 1023] {
        try compare(recipes: [recipe], count: n, time: g.uniform(-0.2...1.4), lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    c.expectAllPassed(folds: false)
  }

  /// Three-key lines from fraction 0 to 1 are one hinged line (`HingeLines`: the value at
  /// the knot plus each side's slope times the distance on that side, no segment
  /// selected), when both segments span at least `HingeLines.shortestSpan`; others keep
  /// the segment loops. Taken or not for knots from near 0 to near 1; against the
  /// reference for knots the Float progress resolves (a segment of span s multiplies the
  /// progress's rounding by 1/s, in either form); and, for every knot (steep slopes
  /// included), on the same Float fractions as the segment loop against the exact line
  /// through the keys: no further from it than the segment loop.
  @Test("Three-key lines as hinged lines: taken where both spans are long enough, as exact as the segment loop, the reference's")
  func hingedLines() throws {
    var g = SeededGenerator(seed: 0x4B_E80)
    var c = Comparison("hinged three-key lines")
    var hinged = 0
    var worst = (hinge: 0.0, segments: 0.0)
    let knots = [0.0001, 0.0002, 1.0 / 4096, 0.001, 0.02, 0.3, 0.5, 0.7, 0.98, 0.999, 1 - 1.0 / 4096, 0.9998, 0.9999]
    for (round, knot) in knots.enumerated() {
      let geometric = round % 2 == 0
      var channels: [ChannelAnimation] = []
      var values: [[ChannelValue]] = []
      for channel in [Channel.translationX, .scale] {
        // Scales of a card (a scale of 40 and Float progress sit at the tolerance in
        // either form).
        values.append(
          (0..<3).map { _ in channel == .scale ? ChannelValue(g.uniform(0.2...3)) : keyValue(&g, geometric) })
        let keys = ChannelKeyframes(values: values.last!, keyTimes: [0, knot, 1], timingFunctions: nil, mode: .linear)
        channels.append(ChannelAnimation(channel, keyframes: keys, curve: .bezier(.easeOut), duration: g.uniform(0.3...1)))
      }
      let recipe = Recipe(name: "hinged\(round)", channels: channels)
      let compiled = try CompiledRecipe(recipe)
      let long = knot >= HingeLines.shortestSpan && 1 - knot >= HingeLines.shortestSpan
      #expect(compiled.keyframes.allSatisfy { ($0.hinge != nil) == long }, "knot \(knot)")
      for track in compiled.keyframes where track.hinge != nil {
        hinged += 1
        // The track's keys: the channel whose middle value is its value at the knot.
        let keys = try #require(values.first { Float($0[1].constant) == track.hinge?.atKnot.x })
        let e = try Self.hingeAgainstSegments(track, keys: keys, knot: knot, &g)
        worst = (Swift.max(worst.hinge, e.hinge), Swift.max(worst.segments, e.segments))
      }
      if (0.2...0.8).contains(knot) {
        for n in [0, 1, 7, 9, 1023] {
          for _ in 0..<3 {
            try compare(recipes: [recipe], count: n, time: g.uniform(-0.2...1.4), lanes: LaneWidth.allCases, g: &g, into: &c)
          }
        }
      }
    }
    // Not hinged: discrete keys (no lines), two keys (one segment), a cubic, a jump at the knot.
    func track(_ values: [ChannelValue], _ times: [Double], _ mode: KeyframeCalculationMode) throws -> CompiledKeyframes {
      let keys = ChannelKeyframes(values: values, keyTimes: times, timingFunctions: nil, mode: mode)
      let recipe = Recipe(name: "notHinged", channels: [ChannelAnimation(.translationX, keyframes: keys, duration: 0.5)])
      return try CompiledRecipe(recipe).keyframes[0]
    }
    #expect(try track([0, 10, 20], [0, 0.3, 0.6, 1], .discrete).hinge == nil)
    #expect(try track([0, 10], [0, 1], .linear).hinge == nil)
    #expect(try track([0, 30, 5], [0, 0.5, 1], .cubic).hinge == nil)
    #expect(try track([0, 10, 20, 40], [0, 0.5, 0.5, 1], .linear).hinge == nil)
    #expect(try track([0, 10, 20], [0, 0.5, 1], .linear).hinge != nil)
    print("hinged lines, \(hinged) tracks, on Float fractions against the exact line (over the values' size): worst \(worst.hinge), the segment loop's \(worst.segments)")
    c.expectAllPassed(folds: false)
    #expect(hinged == 18, "\(hinged) tracks hinged")
    #expect(worst.hinge <= worst.segments * 1.01 + 1e-6, "hinged \(worst.hinge), segments \(worst.segments)")
  }

  /// The hinged stage and the two-segment loop on the same 1,024 Float fractions (0, 1, the
  /// knot and its neighbours among them) and geometry, each against the line through
  /// `keys` at 0, `knot` and 1 in Double at those fractions: the largest errors over the
  /// values' size (the largest |key value|, at least 1).
  static func hingeAgainstSegments(
    _ track: CompiledKeyframes, keys: [ChannelValue], knot: Double, _ g: inout SeededGenerator
  ) throws -> (hinge: Double, segments: Double) {
    let n = 1024
    var f = (0..<n).map { _ in Float(g.uniform(0...1)) }
    let k = Float(knot)
    for (j, v) in [0, 1, k, k.nextUp, k.nextDown, k.nextUp.nextUp, 0.5].enumerated() { f[j] = v }
    let heights = (0..<n).map { _ in Float(g.uniform(20...300)) }, widths = (0..<n).map { _ in Float(g.uniform(300...900)) }
    var hingedOut = [Float](repeating: .nan, count: n), segmentOut = [Float](repeating: .nan, count: n)
    let hinge = try #require(track.hinge)
    f.withUnsafeBufferPointer { fp in
      heights.withUnsafeBufferPointer { h in
        widths.withUnsafeBufferPointer { w in
          let progress = StagedProgress(base: fp.baseAddress!, stride: n)
          hingedOut.withUnsafeMutableBufferPointer { out in
            Kernel.hingeStage(
              SIMD8<Float>.self, hinge, part: 0, geometry: true, progress: progress, height: h.baseAddress!,
              tableWidth: w.baseAddress!, count: n, into: out.baseAddress!)
          }
          segmentOut.withUnsafeMutableBufferPointer { out in
            Kernel.plainGeometryKeyframeStage(
              SIMD8<Float>.self, part: 0, progress: progress, track.table.base, 2, height: h.baseAddress!,
              tableWidth: w.baseAddress!, count: n, into: out.baseAddress!)
          }
        }
      }
    }
    var worst = (hinge: 0.0, segments: 0.0)
    for i in 0..<n {
      let v = keys.map { $0.constant + $0.perCellHeight * Double(heights[i]) + $0.perTableWidth * Double(widths[i]) }
      let x = Double(f[i])
      let exact = x < knot ? v[0] + (v[1] - v[0]) * x / knot : v[1] + (v[2] - v[1]) * (x - knot) / (1 - knot)
      let size = Swift.max(1, v.map(abs).max()!)
      worst.hinge = Swift.max(worst.hinge, abs(Double(hingedOut[i]) - exact) / size)
      worst.segments = Swift.max(worst.segments, abs(Double(segmentOut[i]) - exact) / size)
    }
    return worst
  }

  /// `tableKeyframeStage` and `tableGeometryKeyframeStage` (SIMD8 with AVX2: each lane's
  /// segment counted, its constants looked up): plain tracks of 4 to 9 keys, lines and
  /// cubics, with and without the cell's geometry, uneven key times and two keys at one
  /// time (equal segment starts: the later segment holds from there), every lane width.
  @Test("Plain tracks of 4 to 9 keys (the segment lookup) match the reference")
  func lookupTracks() throws {
    var g = SeededGenerator(seed: 0x4B_E7FA)
    var c = Comparison("4-9 key keyframes")
    for round in 0..<24 {
      let keys = 4 + round % 6
      let geometric = round % 2 == 0
      let mode: KeyframeCalculationMode = round % 4 < 2 ? .linear : .cubic
      var times = (0..<keys).map { Double($0) / Double(keys - 1) }
      if round % 3 != 0 {
        for j in 1..<(keys - 1) { times[j] = (Double(j) + g.uniform(-0.3...0.3)) / Double(keys - 1) }
      }
      // Two keys at one time (a jump in the track) in a third of the rounds.
      if round % 3 == 1 { times[2] = times[1] }
      var channels: [ChannelAnimation] = []
      for channel in [Channel.translationX, .translationY] {
        let track = ChannelKeyframes(
          values: (0..<keys).map { _ in keyValue(&g, geometric) }, keyTimes: times, timingFunctions: nil, mode: mode)
        channels.append(ChannelAnimation(channel, keyframes: track, curve: .bezier(.linear), duration: g.uniform(0.4...1.2)))
      }
      let recipe = Recipe(name: "lookup\(round)", channels: channels)
      let compiled = try CompiledRecipe(recipe)
      #expect(
        compiled.keyframes.allSatisfy { (3...8).contains($0.table.count / CompiledKeyframes.tableStride) },
        "round \(round): \(compiled.keyframes.map { $0.table.count / CompiledKeyframes.tableStride }) segments")
      for n in [0, 1, 7, 9, 1023] {
        try compare(recipes: [recipe], count: n, time: g.uniform(-0.2...1.4), lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    c.expectAllPassed(folds: false)
  }
}
