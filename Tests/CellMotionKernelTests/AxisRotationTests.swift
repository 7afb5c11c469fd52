// The general path's specialised shapes: a single rotation about x or y (the flips) written
// entry by entry, and the sine and cosine of an angle bounded near a centre (flips and
// folds). The kernel against the scalar reference at the tolerances stated in
// KernelDifferentialTests.swift, and the centred sine against Double precision.

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionKernel

@Suite("General path specialisations")
struct AxisRotationTests {
  /// A centred sine against Double `sin`/`cos` over its whole reach: 2,000 random centres
  /// (`centre` of a range of full width about a midpoint, `halfWidth` each side), each with
  /// 32 angles within `reach` of it.
  static func checkCentred(
    seed: UInt64, name: String, halfWidth: Double, reach: Double, tolerance: Double,
    centre: (_ from: Float, _ delta: Float) -> SIMD3<Float>?,
    sincos: (SIMD8<Float>, SIMD3<Float>) -> (sin: SIMD8<Float>, cos: SIMD8<Float>)
  ) throws {
    var g = SeededGenerator(seed: seed)
    var sinErr = ErrorTracker("sin \(name)", tolerance: tolerance)
    var cosErr = ErrorTracker("cos \(name)", tolerance: tolerance)
    for _ in 0..<2_000 {
      let mid = g.uniform(-8...8)
      // An angle range of full width around mid: its centre is mid (rounded to Float).
      let c = try #require(centre(Float(mid - halfWidth), Float(2 * halfWidth)))
      for _ in 0..<4 {
        var x = SIMD8<Float>()
        for k in 0..<8 { x[k] = Float(Double(c.x) + g.uniform(-reach...reach)) }
        let (s, co) = sincos(x, c)
        for k in 0..<8 {
          sinErr.record(Double(s[k]), Foundation.sin(Double(x[k])), "x=\(x[k]) centre \(c.x)")
          cosErr.record(Double(co[k]), Foundation.cos(Double(x[k])), "x=\(x[k]) centre \(c.x)")
        }
      }
    }
    print(sinErr)
    print(cosErr)
    #expect(sinErr.passed, "\(sinErr)")
    #expect(cosErr.passed, "\(cosErr)")
  }

  /// `Kernel.sincos(_:near:)` against Double over the whole reach it is used for (centre
  /// +- `AngleCentre.reach`, which is a little beyond pi/4), at random centres.
  @Test("Sine and cosine near a centre: within 2e-7 of Double over the whole reach")
  func sincosNear() throws {
    try Self.checkCentred(
      seed: 0xC05, name: "near a centre, |x - c| <= pi/4 + 2e-3", halfWidth: AngleCentre.reach * 0.999,
      reach: AngleCentre.reach, tolerance: 2e-7,
      centre: { AngleCentre.of(from: $0, delta: $1, bounds: (0, 1)) }, sincos: { Kernel.sincos($0, near: $1) })
    // Too wide a range, or not finite: no centre (the full-range sine instead).
    #expect(AngleCentre.of(from: 0, delta: Float.pi / 2 + 0.01, bounds: (0, 1)) == nil)
    #expect(AngleCentre.halved(from: 0, delta: Float.pi + 0.02, bounds: (0, 1)) == nil)
    #expect(AngleCentre.of(from: 0, delta: 1, bounds: (-.infinity, 1)) == nil)
  }

  /// `Kernel.sincos(_:nearHalved:)` against Double over its whole reach (centre +- 2
  /// `AngleCentre.reach`, a little beyond a half turn wide), at random centres whose ranges
  /// are too wide for `sincos(_:near:)`.
  @Test("Sine and cosine near a halved centre: within 4e-7 of Double over the whole reach")
  func sincosNearHalved() throws {
    let reach = 2 * AngleCentre.reach
    try Self.checkCentred(
      seed: 0xC06, name: "near a halved centre, |x - c| <= pi/2 + 4e-3", halfWidth: reach * 0.999, reach: reach,
      tolerance: 4e-7,
      centre: { from, delta in
        AngleCentre.of(from: from, delta: delta, bounds: (0, 1)) == nil
          ? AngleCentre.halved(from: from, delta: delta, bounds: (0, 1)) : nil
      }, sincos: { Kernel.sincos($0, nearHalved: $1) })
    // The wheel picker's half turn takes it, vertical and horizontal.
    for axis in [ScrollAxis.vertical, .horizontal] {
      let wheel = try ScrollEffect.wheelPicker(viewportExtent: 216, itemExtent: 32, axis: axis)
      let shape = try #require(try CompiledRecipe(wheel.recipe, source: .progress).matrixPlan.axisRotation)
      #expect(shape.centre == nil && shape.halvedCentre != nil, "\(axis)")
    }
  }

  @Test("Flips take the axis-rotation shape with a centred sine; folds a centred sine; others not")
  func shapes() throws {
    let flipX = try CompiledRecipe(.flipX), flipY = try CompiledRecipe(.flipY)
    #expect(flipX.matrixPlan.axisRotation?.aboutX == true)
    #expect(flipY.matrixPlan.axisRotation?.aboutX == false)
    #expect(flipX.matrixPlan.axisRotation?.centre != nil && flipY.matrixPlan.axisRotation?.centre != nil)
    for fold in [Recipe.foldOpen, .foldClosed] {
      let r = try CompiledRecipe(fold)
      #expect(r.fold?.angleCentre != nil, "\(fold.name)")
      #expect(r.matrixPlan.axisRotation == nil, "\(fold.name)")
    }
    #expect(try CompiledRecipe(.tipIn).matrixPlan.axisRotation == nil)
    // Translations join the shape (a cover flow's depth); a scale, a second rotation or a
    // matrix path make it the general one.
    var moved = Recipe.flipX
    moved.channels.append(ChannelAnimation(.translationY, from: 20, to: 0, curve: .bezier(.easeOut), duration: 0.5))
    #expect(try CompiledRecipe(moved).matrixPlan.axisRotation?.translates == true)
    #expect(try CompiledRecipe(.flipX).matrixPlan.axisRotation?.translates == false)
    for extra in [Channel.scale, .rotationY, .rotationZ] {
      var two = Recipe.flipX
      two.channels.append(ChannelAnimation(extra, from: 0.5, to: 1, curve: .bezier(.easeOut), duration: 0.5))
      #expect(try CompiledRecipe(two).matrixPlan.axisRotation == nil, "\(extra)")
    }
    // A componentwise matrix that only shears by z and translates (the wheel picker's) joins
    // the shape; one touching any other entry, or on another path, does not.
    let wheel = try ScrollEffect.wheelPicker(viewportExtent: 216, itemExtent: 32)
    let wheelShift = try #require(CompiledRecipe(wheel.recipe).matrixPlan.axisRotation?.shift)
    #expect(wheelShift.shears)
    var sheared = Transform3D.identity
    (sheared.m32, sheared.m42, sheared.m43) = (0.002, -30, -100)
    for (entry, mode, joins) in [
      (nil, TransformInterpolationMode.componentwise, true), (0, .componentwise, false), (11, .componentwise, false),
      (15, .componentwise, false), (nil, .decomposed, false),
    ] as [(Int?, TransformInterpolationMode, Bool)] {
      var end = sheared
      if let entry {
        var values = end.fieldOrder
        values[entry] += 0.25
        end = try Transform3D(fieldOrder: values)
      }
      var shifted = Recipe.flipX
      shifted.matrix = MatrixAnimation(from: .identity, to: end, mode: mode, curve: .bezier(.linear), duration: 1)
      let plan = try CompiledRecipe(shifted).matrixPlan.axisRotation
      #expect((plan != nil) == joins, "entry \(entry ?? -1), \(mode)")
      #expect(plan == nil || plan?.shift != nil, "a matrix the shape would drop: entry \(entry ?? -1), \(mode)")
    }
    // A rotation that turns more than a half turn and back (a wide spring) gets no centre.
    var wide = Recipe.flipY
    wide.channels[0] = ChannelAnimation(
      .rotationY, from: ChannelValue(Double.pi), to: 0,
      curve: .spring(try Spring.uiKit(dampingRatio: 0.2, duration: 1, initialSpringVelocity: 0)), duration: 1)
    let compiledWide = try CompiledRecipe(wide)
    #expect(compiledWide.matrixPlan.axisRotation != nil && compiledWide.matrixPlan.axisRotation?.centre == nil)
  }

  /// Random single-axis rotations (about x or y; constant or geometry-dependent angles, so
  /// both the centred and the full-range sine; any curve kind; random anchor and
  /// perspective) against the reference, every lane width, the awkward sizes.
  /// Every lane width on the same batches; 12 recipes in the quick sweep, 48 exhaustive.
  @Test("Random single-axis rotations match the reference")
  func randomAxisRotations() throws {
    var g = SeededGenerator(seed: 0xA815)
    var c = Comparison("axis rotation")
    var centred = 0, halved = 0, shaped = 0, shifted = 0, shearing = 0
    for k in 0..<Sweep.count(quick: 12, full: 48) {
      let axis: Channel = k % 2 == 0 ? .rotationX : .rotationY
      let geometric = k % 3 == 0
      let from = ChannelValue(g.uniform(-3...3), perCellHeight: geometric ? g.uniform(-0.01...0.01) : 0)
      var channels = [
        ChannelAnimation(axis, from: from, to: ChannelValue(g.uniform(-1...1)), curve: try randomCurve(&g),
          duration: g.uniform(0.2...1), delay: g.uniform(0...0.2)),
        ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeOut), duration: 0.5),
      ]
      // Every other recipe also translates (a cover flow's depth), on some axes, some
      // values depending on the cell's height, in either order.
      if k % 4 >= 2 {
        for t in [Channel.translationX, .translationY, .translationZ] where g.next() % 3 != 0 {
          channels.append(
            ChannelAnimation(
              t, from: ChannelValue(g.uniform(-80...80), perCellHeight: g.next() % 2 == 0 ? g.uniform(-0.5...0.5) : 0),
              to: ChannelValue(g.uniform(-20...20)), curve: try randomCurve(&g), duration: g.uniform(0.2...1)))
        }
      }
      // Every third recipe also has a componentwise matrix animation that shears by z and
      // translates (a wheel picker's), some only translating.
      var matrix: MatrixAnimation?
      if k % 3 == 1 {
        @inline(__always) func shift(_ g: inout SeededGenerator, shears: Bool) -> Transform3D {
          var m = Transform3D.identity
          if shears { (m.m31, m.m32) = (g.uniform(-0.01...0.01), g.uniform(-0.01...0.01)) }
          (m.m41, m.m42, m.m43) = (g.uniform(-60...60), g.uniform(-60...60), g.uniform(-150...150))
          return m
        }
        let shears = k % 2 == 1
        matrix = MatrixAnimation(
          from: shift(&g, shears: shears), to: shift(&g, shears: shears), mode: .componentwise, curve: try randomCurve(&g),
          duration: g.uniform(0.2...1), delay: g.uniform(0...0.2))
      }
      let recipe = Recipe(
        name: "axis\(k)", channels: channels, matrix: matrix, order: g.next() % 2 == 0 ? .keyPath : .translateFirst,
        anchorX: g.uniform(0...1), anchorY: g.uniform(0...1),
        perspectiveDistance: k % 4 == 3 ? nil : g.uniform(200...2000))
      let compiled = try CompiledRecipe(recipe)
      let shape = try #require(compiled.matrixPlan.axisRotation)
      shaped += 1
      if shape.centre != nil { centred += 1 }
      if shape.halvedCentre != nil { halved += 1 }
      if let x = shape.shift { shifted += 1; if x.shears { shearing += 1 } }
      for n in [0, 1, 7, 9, 1023] {
        try compare(
          recipes: [recipe], count: n, time: g.uniform(-0.2...1.6), lanes: LaneWidth.allCases, g: &g, into: &c)
      }
    }
    print("\(shaped) axis-rotation recipes, \(centred) with a centred sine, \(halved) halved, \(shifted) with a shift (\(shearing) shearing)")
    print(c.transform)
    print(c.opacity)
    #expect(centred > 0 && centred < shaped)
    #expect(shearing > 0 && shearing < shifted)
    #expect(c.transform.passed, "\(c.transform)")
    #expect(c.opacity.passed, "\(c.opacity)")
  }
}
