// Compile cost follows the distinct curves of a recipe, not its channels: parts are merged
// and the limits checked before any curve is compiled (a Bezier's compilation runs
// dense-grid solves, tens of milliseconds each). Counted through
// `CurveCompilationCounter`, so nothing here depends on timing.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

/// Runs `body` with a fresh compilation counter bound to this task; returns its result and
/// the number of curves compiled.
func countingCompilations<T>(_ body: () throws(CellMotionError) -> T) -> (result: Result<T, CellMotionError>, compiled: Int) {
  let counter = CurveCompilationCounter()
  let result = CurveCompilationCounter.$current.withValue(counter) { Result(catching: body) }
  return (result, counter.count)
}

func channel(_ k: Int, curve: AnimationCurve, duration: Double = 0.5, delay: Double = 0) -> ChannelAnimation {
  // Cycle through channels whose values the reference and kernel both handle; the later
  // channel of a kind wins.
  let kinds: [Channel] = [.opacity, .translationY, .rotationZ, .scale]
  let kind = kinds[k % kinds.count]
  let from: ChannelValue = kind == .opacity ? 0 : kind == .scale ? 0.8 : kind == .rotationZ ? 0.3 : .cellHeight(0.5)
  let to: ChannelValue = kind == .opacity || kind == .scale ? 1 : 0
  return ChannelAnimation(kind, from: from, to: to, curve: curve, duration: duration, delay: delay)
}

@Suite("Recipe compile cost")
struct CompileCostTests {
  @Test("A thousand identical channels compile their one curve once, and match the reference")
  func identicalChannels() throws {
    let n = 1000
    let recipe = Recipe(name: "same", channels: (0..<n).map { channel($0, curve: .bezier(.easeInEaseOut)) })
    let (result, compiled) = countingCompilations { () throws(CellMotionError) in try CompiledRecipe(recipe) }
    let r = try result.get()
    #expect(compiled == 1)
    #expect(r.parts == [CompiledPart(curve: CompiledCurve(.bezier(.easeInEaseOut)), duration: 0.5, delay: 0, endLocalTime: 0.5)])
    #expect(r.channels.count == n && r.channels.allSatisfy { $0.part == 0 })
    var g = SeededGenerator(seed: 0xC0_57)
    var c = Comparison("identical channels")
    for time in [0.1, 0.3, 0.7] {
      try compare(recipes: [recipe], count: 9, time: time, lanes: .simd8, g: &g, into: &c)
    }
    #expect(c.transform.passed, "\(c.transform)")
    #expect(c.opacity.passed, "\(c.opacity)")
  }

  @Test("Parts that share a curve compile it once; every part is the curve compiled alone")
  func sharedCurves() throws {
    let curves: [AnimationCurve] = [
      .bezier(.easeIn), .bezier(try TimingCurve(x1: 0.3, y1: -0.4, x2: 0.6, y2: 1.3)),
      .spring(try Spring.uiKit(dampingRatio: 0.6, duration: 0.8)),
    ]
    // 1,000 channels over 3 curves x 4 durations x 2 delays: 24 distinct parts; the fold
    // (curve 0, 0.3 s, no delay) is the same part as channel 0.
    let channels = (0..<1000).map { k in
      channel(k, curve: curves[k % 3], duration: [0.3, 0.5, 0.7, 0.9][k % 4], delay: [0, 0.1][(k / 12) % 2])
    }
    let recipe = Recipe(name: "shared", channels: channels, fold: FoldSpec(direction: .open, curve: curves[0]))
    let (result, compiled) = countingCompilations { () throws(CellMotionError) in try CompiledRecipe(recipe) }
    let r = try result.get()
    #expect(compiled == curves.count)
    #expect(r.parts.count == 24)
    #expect(r.fold?.part == r.channels[0].part)
    let alone = curves.map { CompiledCurve($0) }
    for (k, c) in r.channels.enumerated() {
      let part = r.parts[c.part]
      #expect(part.curve == alone[k % 3])
      #expect(part.duration == Float(channels[k].duration) && part.delay == Float(channels[k].delay))
    }
    #expect(r.parts[r.fold!.part].curve == alone[0])
    #expect(r.parts[r.fold!.part].duration == 0.3 && r.parts[r.fold!.part].delay == 0)
  }

  @Test("A Bezier compiled again comes from the solve cache, equal to a fresh compile; the cache stays bounded")
  func solveCache() throws {
    var g = SeededGenerator(seed: 0xCAC4E)
    let curves = try (0..<40).map { _ in
      try TimingCurve(x1: g.uniform(0...1), y1: g.uniform(-1...2), x2: g.uniform(0...1), y2: g.uniform(-1...2))
    }
    for b in curves {
      let first = CompiledCurve(.bezier(b))
      #expect(BezierSolveCache.shared[b] == first)
      #expect(CompiledCurve(.bezier(b)) == first)
      #expect(CompiledCurve.compileBezier(b) == first, "\(b): the cached solve differs from a fresh one")
    }
    // Past its capacity a cache starts over (a private one: the shared cache serves the
    // tests running beside this one).
    let cache = BezierSolveCache()
    let value = CompiledCurve(.bezier(curves[0]))
    for k in 0..<(BezierSolveCache.capacity + 5) {
      cache[try TimingCurve(x1: 0.3, y1: 0.1, x2: 0.3, y2: 1 + Double(k) * 1e-6)] = value
      #expect(cache.count <= BezierSolveCache.capacity)
    }
    #expect(cache.count == 5)
  }

  @Test("More channels than maxChannels are refused before anything is compiled")
  func tooManyChannels() throws {
    #expect(CompiledRecipe.maxChannels == 1024)
    let identical = Recipe(name: "wide", channels: (0..<10_000).map { channel($0, curve: .bezier(.easeOut)) })
    let (result, compiled) = countingCompilations { () throws(CellMotionError) in try CompiledRecipe(identical) }
    #expect(throws: CellMotionError.outOfRange(field: "wide.channels.count", value: 10_000, expected: "<= 1024")) {
      try result.get()
    }
    #expect(compiled == 0)
    // 10,000 distinct parts (each its own curve and delay): refused as fast.
    let distinct = Recipe(
      name: "distinct",
      channels: (0..<10_000).map { k in
        channel(k, curve: .bezier(try! TimingCurve(x1: 0.1 + Double(k) * 8e-5, y1: 0, x2: 0.6, y2: 1)), delay: Double(k) * 1e-3)
      })
    let (refused, compiledDistinct) = countingCompilations { () throws(CellMotionError) in try CompiledRecipe(distinct) }
    #expect(throws: CellMotionError.outOfRange(field: "distinct.channels.count", value: 10_000, expected: "<= 1024")) {
      try refused.get()
    }
    #expect(compiledDistinct == 0)
    #expect(throws: CellMotionError.self) { try CellBatch(recipes: [identical]) }
  }

  @Test("More distinct parts than maxParts are refused before any curve is compiled")
  func tooManyPartsBeforeCompiling() throws {
    let n = CompiledRecipe.maxChannels
    let recipe = Recipe(
      name: "parts",
      channels: (0..<n).map { k in
        channel(k, curve: .bezier(try! TimingCurve(x1: 0.1 + Double(k) * 5e-4, y1: 0, x2: 0.6, y2: 1)), delay: Double(k) * 1e-3)
      })
    let (result, compiled) = countingCompilations { () throws(CellMotionError) in try CompiledRecipe(recipe) }
    #expect(
      throws: CellMotionError.outOfRange(
        field: "parts: distinct (curve, duration, delay) parts", value: Double(n),
        expected: "<= \(CompiledRecipe.maxParts)")
    ) { try result.get() }
    #expect(compiled == 0)
  }

  @Test("A recipe given to a batch twice is compiled once")
  func batchCompilesRepeatedRecipeOnce() throws {
    let (one, once) = countingCompilations { () throws(CellMotionError) in try CellBatch(recipes: [.tipIn]) }
    let (two, twice) = countingCompilations { () throws(CellMotionError) in try CellBatch(recipes: [.tipIn, .fadeIn, .tipIn]) }
    let (fade, fadeOnly) = countingCompilations { () throws(CellMotionError) in try CellBatch(recipes: [.fadeIn]) }
    _ = try one.get()
    _ = try fade.get()
    #expect(try two.get().recipes.count == 3)
    #expect(once > 0)
    #expect(twice == once + fadeOnly)
  }
}
