// The accepted-input rule of the semantics layer: every number is checked against its
// documented range (InputLimits) at the boundary, with a typed error naming the field,
// and within the ranges every output of the reference is finite.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

/// The field named by an `outOfRange` or `notFinite` error, or nil for other errors.
func rejectedField(_ body: () throws(CellMotionError) -> Void) -> String? {
  do {
    try body()
    return nil
  } catch {
    switch error {
    case .outOfRange(let field, _, _), .notFinite(let field, _): return field
    default: return "unexpected: \(error)"
    }
  }
}

@Suite("Input limits: values that overflow Float are refused at the boundary")
struct InputLimitsTests {
  /// Each case passed `validate()` before the ranges existed and gave NaN or infinity in
  /// the kernel's Float (the hardening issue's reproductions).
  @Test("Recipe fields beyond Float's range are refused, naming the field")
  func recipeFields() {
    let base = Recipe.fadeIn
    func field(_ change: (inout Recipe) -> Void) -> String? {
      var r = base
      change(&r)
      return rejectedField { () throws(CellMotionError) in try r.validate() }
    }
    #expect(field { $0.perspectiveDistance = 1e-40 } == "fadeIn.perspectiveDistance")
    #expect(field { $0.perspectiveDistance = 1e39 } == "fadeIn.perspectiveDistance")
    #expect(field { $0.anchorX = 1e39 } == "fadeIn.anchorX")
    #expect(field { $0.channels[0].to = ChannelValue(1e39) } == "fadeIn.channels[0].to.constant")
    #expect(field { $0.channels[0].from = .cellHeight(1e30) } == "fadeIn.channels[0].from.perCellHeight")
    #expect(field { $0.channels[0].duration = 1e39 } == "fadeIn.channels[0].duration")
    #expect(field { $0.channels[0].duration = 1e-300 } == "fadeIn.channels[0].duration")
    #expect(field { $0.channels[0].delay = 1e300 } == "fadeIn.channels[0].delay")
    #expect(field { $0.stagger.step = 1e300 } == "fadeIn.stagger.step")
    #expect(field { $0.timing.speed = 1e39 } == "fadeIn.timing.speed")
    #expect(field { $0.timing.repeatCount = 1e39 } == "fadeIn.timing.repeatCount")
    #expect(
      field {
        $0.channels = [ChannelAnimation(.rotationZ, from: ChannelValue(1e30), to: 0, curve: .bezier(.linear), duration: 1)]
      } == "fadeIn.channels[0].from.constant")
    #expect(field { $0.fold = FoldSpec(direction: .open, perspectiveDistance: 1e-40) } == "fadeIn.fold.perspectiveDistance")
    // Matrix entries beyond the range, and a matrix whose entries are in range but whose
    // decomposition is not (m44 tiny: normalising by it scales everything by 1e9).
    var big = Transform3D.identity
    big.m41 = 1e39
    #expect(field { $0.matrix = MatrixAnimation(from: big, to: .identity, curve: .bezier(.linear), duration: 1) } == "fadeIn.matrix.from.m41")
    var tinyW = Transform3D.identity
    tinyW.m44 = 1e-9
    tinyW.m34 = 1e-9
    #expect(field { $0.matrix = MatrixAnimation(from: tinyW, to: .identity, curve: .bezier(.linear), duration: 1) } == "fadeIn.matrix.from")
    // The ends of each range are accepted.
    #expect(field { $0.perspectiveDistance = InputLimits.perspectiveDistance.lowerBound } == nil)
    #expect(field { $0.channels[0].duration = InputLimits.duration.upperBound } == nil)
    #expect(field { $0.timing.speed = InputLimits.speed.lowerBound } == nil)
  }

  @Test("Geometry: zero, negative and huge sizes are refused, naming the size")
  func geometry() {
    func field(_ g: CellGeometry) -> String? { rejectedField { () throws(CellMotionError) in try g.validate() } }
    #expect(field(CellGeometry(width: 1e39, height: 80)) == "cell width")
    #expect(field(CellGeometry(width: 375, height: 0)) == "cell height")
    #expect(field(CellGeometry(width: 375, height: 80, tableWidth: 0)) == "table width")
    #expect(field(CellGeometry(width: 375, height: 80, detailHeight: 0)) == "detail height")
    #expect(field(CellGeometry(width: 375, height: 80, detailHeight: 2e6)) == "detail height")
    #expect(field(CellGeometry(width: 1e-3, height: 1e6, tableWidth: 1e6, detailHeight: 1e-3)) == nil)
  }

  @Test("Bezier y beyond the range is refused")
  func bezier() {
    #expect(rejectedField { () throws(CellMotionError) in _ = try TimingCurve(x1: 0.5, y1: 1e39, x2: 0.5, y2: 1) } == "y1")
    #expect(rejectedField { () throws(CellMotionError) in _ = try TimingCurve(x1: 0.5, y1: 0, x2: 0.5, y2: -1e4) } == "y2")
    #expect(rejectedField { () throws(CellMotionError) in _ = try TimingCurve(x1: 0.5, y1: -1e3, x2: 0.5, y2: 1e3) } == nil)
  }

  @Test("Springs: extreme constants are refused, naming the field (issue item 12)")
  func springs() {
    func field(_ body: () throws(CellMotionError) -> Void) -> String? { rejectedField(body) }
    // Returned 0.5 at every time before: w0 = sqrt(5e-324) underflows.
    #expect(field { () throws(CellMotionError) in _ = try Spring(mass: 1, stiffness: Double.leastNonzeroMagnitude, damping: 10) } == "stiffness")
    #expect(field { () throws(CellMotionError) in _ = try Spring(mass: 1e-46, stiffness: 100, damping: 10) } == "mass")
    #expect(field { () throws(CellMotionError) in _ = try Spring(mass: 1, stiffness: 100, damping: 1e39) } == "damping")
    #expect(field { () throws(CellMotionError) in _ = try Spring(mass: 1, stiffness: 1e12, damping: 10) } == "stiffness")
    #expect(field { () throws(CellMotionError) in _ = try Spring(initialVelocity: 1e300) } == "initialVelocity")
    // UIKit: dampingRatio 0 or negative is a range error naming dampingRatio, not a
    // message about Newton's method.
    for ratio in [0.0, -1, -1e300, 1e-5] {
      #expect(
        field { () throws(CellMotionError) in _ = try Spring.uiKit(dampingRatio: ratio, duration: 1) } == "dampingRatio",
        "dampingRatio \(ratio)")
    }
    #expect(field { () throws(CellMotionError) in _ = try Spring.uiKit(dampingRatio: 0.4, duration: 1, initialSpringVelocity: 0.1) } == nil)
  }

  /// At the corners of the accepted spring ranges, the closed forms stay finite and stay
  /// consistent with each other: x(t2) - x(t1) equals the integral of x'(t) over [t1, t2]
  /// (composite Simpson, 2,000 panels), an identity the two closed forms satisfy only if
  /// both are right.
  @Test("Springs at the range corners: finite, and x(t) is the integral of x'(t)")
  func springCorners() throws {
    let w0s = [InputLimits.springNaturalFrequency.lowerBound, 1, InputLimits.springNaturalFrequency.upperBound]
    let alphas = [0, 1e-3, 1, InputLimits.springDecayRate.upperBound]
    let v0s = [InputLimits.springVelocity.lowerBound, 0, InputLimits.springVelocity.upperBound]
    var checked = 0
    for w0 in w0s {
      for alpha in alphas {
        for v0 in v0s {
          let s = try Spring(mass: 1, stiffness: w0 * w0, damping: 2 * alpha, initialVelocity: v0)
          // Times spanning the motion: fractions of the slower time scale.
          let scale = 1 / max(w0, min(alpha, w0 * w0 / max(alpha, 1e-300)), 1e-3)
          for f in [1e-4, 0.01, 0.3, 1, 3] {
            let t1 = f * scale, t2 = t1 * 1.01
            let x1 = s.value(at: t1), x2 = s.value(at: t2)
            #expect(x1.isFinite && x2.isFinite && s.velocity(at: t1).isFinite, "w0 \(w0) alpha \(alpha) v0 \(v0) t \(t1)")
            let n = 2000
            let h = (t2 - t1) / Double(n)
            var integral = s.velocity(at: t1) + s.velocity(at: t2)
            for k in 1..<n { integral += (k % 2 == 1 ? 4 : 2) * s.velocity(at: t1 + Double(k) * h) }
            integral *= h / 3
            let size = max(1, abs(x1), abs(x2), abs(v0) * (t2 - t1))
            #expect(abs((x2 - x1) - integral) <= 1e-7 * size, "w0 \(w0) alpha \(alpha) v0 \(v0) t \(t1): \(x2 - x1) vs \(integral)")
            checked += 1
          }
        }
      }
    }
    #expect(checked == 3 * 4 * 3 * 5)
  }

  @Test("MediaTiming: times and speeds beyond the range are refused")
  func mediaTiming() {
    #expect(rejectedField { () throws(CellMotionError) in _ = try MediaTiming(beginTime: 1e300, duration: 1) } == "beginTime")
    #expect(rejectedField { () throws(CellMotionError) in _ = try MediaTiming(duration: 1, speed: 1e39) } == "speed")
    #expect(rejectedField { () throws(CellMotionError) in _ = try MediaTiming(duration: 1e39) } == "duration")
  }

  /// The property: recipes and geometries drawn from the whole accepted range, ends
  /// included, evaluate to finite states through the reference at times spread over
  /// before, during and long after each animation.
  @Test("Property: every accepted recipe and geometry gives finite reference output")
  func referenceFinite() {
    var g = SeededGenerator(seed: 0xF1_7173)
    var evaluated = 0
    for i in 0..<400 {
      let recipe = g.extremeRecipe(name: "r\(i)")
      let geometry = g.extremeGeometry()
      let row = Int(g.next() % 1000), start = g.extreme(-100...100)
      for _ in 0..<6 {
        let time = start + g.extreme(-10...1e5)
        let s = ReferenceEvaluator.evaluate(recipe, geometry: geometry, row: row, batchPosition: row % 7, startTime: start, time: time)
        #expect(s.isFinite, "seed \(g.seed) recipe \(i) \(recipe) geometry \(geometry) t \(time)")
        evaluated += 1
      }
    }
    #expect(evaluated == 2400)
  }
}
