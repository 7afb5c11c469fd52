// Accuracy and consistency of VectorMath against Double-precision Glibc (via Foundation).
// Each test sweeps a dense grid plus seeded random inputs, prints the maximum absolute
// and ulp errors (the numbers quoted in the doc comments) and asserts documented bounds.

import CellMotion
import CellMotionKernel
import Foundation
import Testing
import _TestSupport

/// Worst absolute error (via ErrorTracker) and worst error in ulps of the Float result.
private struct AccuracyReport: CustomStringConvertible {
  var absolute: ErrorTracker
  var worstULP: Double = 0
  var worstULPContext = ""
  var nonFinite = 0

  init(_ name: String, absoluteTolerance: Double) {
    absolute = ErrorTracker(name, tolerance: absoluteTolerance)
  }

  mutating func record(_ actual: Float, _ expected: Double, _ context: @autoclosure () -> String) {
    if !actual.isFinite { nonFinite += 1 }
    absolute.record(Double(actual), expected, context())
    let rounded = Float(expected)
    let ulp = Double(rounded == 0 ? Float.leastNonzeroMagnitude : rounded.ulp)
    let ulps = (Double(actual) - expected).magnitude / ulp
    if ulps > worstULP || ulps.isNaN {
      worstULP = ulps.isNaN ? .infinity : ulps
      worstULPContext = "\(context()) actual=\(actual) expected=\(expected)"
    }
  }

  var description: String {
    "\(absolute)\n    worst \(worstULP) ulp at \(worstULPContext); non-finite results: \(nonFinite)"
  }
}

/// Evaluates `f8` and `f4` over `xs` (and `ys`) in 8- and 4-lane chunks, checks the two
/// widths agree bit for bit, and returns the SIMD8 results.
private func evaluate(
  _ xs: [Float], _ ys: [Float]? = nil,
  _ f8: (SIMD8<Float>, SIMD8<Float>) -> SIMD8<Float>,
  _ f4: (SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>
) -> [Float] {
  var xs = xs
  var ys = ys ?? xs
  let count = xs.count
  while xs.count % 8 != 0 {
    xs.append(xs[0])
    ys.append(ys[0])
  }
  var out8 = [Float](repeating: 0, count: xs.count)
  var out4 = [Float](repeating: 0, count: xs.count)
  for base in stride(from: 0, to: xs.count, by: 8) {
    var a = SIMD8<Float>()
    var b = SIMD8<Float>()
    for i in 0..<8 {
      a[i] = xs[base + i]
      b[i] = ys[base + i]
    }
    let r = f8(a, b)
    for i in 0..<8 { out8[base + i] = r[i] }
  }
  for base in stride(from: 0, to: xs.count, by: 4) {
    let a = SIMD4<Float>(xs[base], xs[base + 1], xs[base + 2], xs[base + 3])
    let b = SIMD4<Float>(ys[base], ys[base + 1], ys[base + 2], ys[base + 3])
    let r = f4(a, b)
    for i in 0..<4 { out4[base + i] = r[i] }
  }
  var mismatches = 0
  for i in 0..<count where out8[i].bitPattern != out4[i].bitPattern { mismatches += 1 }
  #expect(mismatches == 0, "SIMD8 and SIMD4 results differ in \(mismatches) lanes")
  return Array(out8[0..<count])
}

private func grid(_ lower: Float, _ upper: Float, count: Int) -> [Float] {
  (0..<count).map { i in
    Float(Double(lower) + (Double(upper) - Double(lower)) * Double(i) / Double(count - 1))
  }
}

private func random(_ lower: Double, _ upper: Double, count: Int, seed: UInt64) -> [Float] {
  var generator = SeededGenerator(seed: seed)
  return (0..<count).map { _ in Float(generator.uniform(lower...upper)) }
}

/// pi and pi/2 rounded to nearest, as VectorMath and Glibc return them (Swift's
/// `Float.pi` is rounded toward zero, one ulp lower).
private let piNearest = Float(Double.pi)
private let halfPiNearest = Float(Double.pi / 2)

@Suite("VectorMath accuracy against Double Glibc")
struct VectorMathTests {
  @Test func expAccuracy() {
    let xs = grid(-87, 88, count: 175_001) + random(-87, 88, count: 100_000, seed: 0xE1)
    let got = evaluate(xs, nil, { a, _ in VectorMath.exp(a) }, { a, _ in VectorMath.exp(a) })
    var report = AccuracyReport("exp [-87, 88] relative", absoluteTolerance: .infinity)
    var worstRelative = 0.0
    for (x, y) in zip(xs, got) {
      let expected = Foundation.exp(Double(x))
      report.record(y, expected, "x=\(x)")
      worstRelative = worstOf(worstRelative, (Double(y) - expected).magnitude / expected)
    }
    print(report, "\n    worst relative error \(worstRelative)")
    #expect(report.nonFinite == 0)
    #expect(report.worstULP <= 1, "\(report)")
    #expect(worstRelative <= 1e-7)
  }

  @Test func expLimits() {
    let x = SIMD8<Float>(-87, -87.0001, -100, -1e30, 0, 88, 88.5, 1e30)
    let y = VectorMath.exp(x)
    #expect(y[0] > 0 && y[0].isNormal)
    #expect(y[1] == 0 && y[2] == 0 && y[3] == 0)
    #expect(y[4] == 1)
    #expect(y[5].isFinite && y[6] == y[5] && y[7] == y[5])
    #expect(VectorMath.exp(SIMD8<Float>(repeating: -.infinity)) == SIMD8<Float>(repeating: 0))
    let nan = VectorMath.exp(SIMD4<Float>(.nan, 0, 1, -1))
    #expect(nan[0].isNaN && nan[1] == 1)
  }

  private func trigReport(
    _ name: String, _ xs: [Float], tolerance: Double
  ) -> (sin: AccuracyReport, cos: AccuracyReport) {
    let s = evaluate(xs, nil, { a, _ in VectorMath.sin(a) }, { a, _ in VectorMath.sin(a) })
    let c = evaluate(xs, nil, { a, _ in VectorMath.cos(a) }, { a, _ in VectorMath.cos(a) })
    let both = evaluate(
      xs, nil, { a, _ in let r = VectorMath.sincos(a); return r.sin - r.cos },
      { a, _ in let r = VectorMath.sincos(a); return r.sin - r.cos })
    var sinReport = AccuracyReport("sin \(name)", absoluteTolerance: tolerance)
    var cosReport = AccuracyReport("cos \(name)", absoluteTolerance: tolerance)
    for i in xs.indices {
      sinReport.record(s[i], Foundation.sin(Double(xs[i])), "x=\(xs[i])")
      cosReport.record(c[i], Foundation.cos(Double(xs[i])), "x=\(xs[i])")
      #expect(both[i] == s[i] - c[i], "sincos differs from sin/cos at x=\(xs[i])")
    }
    print(sinReport)
    print(cosReport)
    #expect(sinReport.absolute.passed && sinReport.nonFinite == 0, "\(sinReport)")
    #expect(cosReport.absolute.passed && cosReport.nonFinite == 0, "\(cosReport)")
    return (sinReport, cosReport)
  }

  @Test func sinCosPrimaryRange() {
    let quarter = Float.pi / 4
    let xs = grid(-quarter, quarter, count: 100_001)
    let r = trigReport("|x| <= pi/4", xs, tolerance: 7e-8)
    #expect(r.sin.worstULP <= 1.0 && r.cos.worstULP <= 1.0)
  }

  /// sincosSmall skips the reduction: on |x| <= pi/4 it must keep sincos's bound (checked
  /// against Glibc, not against sincos) and, since the reduction is exact there (q = 0),
  /// give sincos's result bit for bit; SIMD4 must match SIMD8 lane for lane.
  @Test func sinCosSmallPrimaryRange() {
    let quarter = Float(Double.pi / 4)
    let xs =
      grid(-quarter, quarter, count: 100_001) + random(-Double.pi / 4, Double.pi / 4, count: 50_000, seed: 0x5A)
      + [0, -0.0, quarter, -quarter, .leastNormalMagnitude, 1e-20]
    let sines = evaluate(xs, nil, { a, _ in VectorMath.sincosSmall(a).sin }, { a, _ in VectorMath.sincosSmall(a).sin })
    let cosines = evaluate(xs, nil, { a, _ in VectorMath.sincosSmall(a).cos }, { a, _ in VectorMath.sincosSmall(a).cos })
    let fullSines = evaluate(xs, nil, { a, _ in VectorMath.sin(a) }, { a, _ in VectorMath.sin(a) })
    let fullCosines = evaluate(xs, nil, { a, _ in VectorMath.cos(a) }, { a, _ in VectorMath.cos(a) })
    var sinReport = AccuracyReport("sincosSmall sin, |x| <= pi/4", absoluteTolerance: 7e-8)
    var cosReport = AccuracyReport("sincosSmall cos, |x| <= pi/4", absoluteTolerance: 7e-8)
    var differFromFull = 0
    for (i, x) in xs.enumerated() {
      sinReport.record(sines[i], Foundation.sin(Double(x)), "x=\(x)")
      cosReport.record(cosines[i], Foundation.cos(Double(x)), "x=\(x)")
      if sines[i].bitPattern != fullSines[i].bitPattern || cosines[i].bitPattern != fullCosines[i].bitPattern {
        differFromFull += 1
      }
    }
    print(sinReport)
    print(cosReport)
    #expect(sinReport.absolute.passed && sinReport.nonFinite == 0 && sinReport.worstULP <= 1, "\(sinReport)")
    #expect(cosReport.absolute.passed && cosReport.nonFinite == 0 && cosReport.worstULP <= 1, "\(cosReport)")
    #expect(differFromFull == 0, "sincosSmall differs from sincos in \(differFromFull) of \(xs.count) inputs")
  }

  @Test func sinCosAnimationRange() {
    let xs = grid(-100, 100, count: 200_001) + random(-100, 100, count: 100_000, seed: 0x51)
    _ = trigReport("|x| <= 100", xs, tolerance: 1e-7)
  }

  @Test func sinCosWideRange() {
    let xs = random(-1e4, 1e4, count: 200_000, seed: 0x52) + grid(9_990, 10_000, count: 20_001)
    _ = trigReport("|x| <= 1e4", xs, tolerance: 1e-7)
  }

  @Test func sinCosQuadrantsAndZero() {
    let x = SIMD8<Float>(0, -0.0, .pi / 2, .pi, -.pi / 2, 3 * .pi / 2, 2 * .pi, -.pi)
    let r = VectorMath.sincos(x)
    #expect(r.sin[0] == 0 && r.cos[0] == 1)
    #expect(r.sin[1] == 0 && r.cos[1] == 1)
    for i in 2..<8 {
      #expect(abs(Double(r.sin[i]) - Foundation.sin(Double(x[i]))) < 1e-7)
      #expect(abs(Double(r.cos[i]) - Foundation.cos(Double(x[i]))) < 1e-7)
    }
  }

  @Test func atan2Accuracy() {
    var generator = SeededGenerator(seed: 0xA7)
    var ys: [Float] = []
    var xs: [Float] = []
    // Polar grid at unit radius, then random angles at log-uniform radii.
    for i in 0..<100_000 {
      let theta = -Double.pi + 2 * Double.pi * Double(i) / 99_999
      ys.append(Float(Foundation.sin(theta)))
      xs.append(Float(Foundation.cos(theta)))
    }
    for _ in 0..<100_000 {
      let theta = generator.uniform(-Double.pi...Double.pi)
      let radius = Foundation.pow(10, generator.uniform(-30...30))
      ys.append(Float(radius * Foundation.sin(theta)))
      xs.append(Float(radius * Foundation.cos(theta)))
    }
    // Independent magnitudes, axes and signed zeros.
    for _ in 0..<50_000 {
      ys.append(Float(generator.uniform(-1e3...1e3)))
      xs.append(Float(generator.uniform(-1e3...1e3)))
    }
    let specials: [Float] = [0, -0.0, 1, -1, 1e-30, -1e30, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
    for a in specials {
      for b in specials {
        ys.append(a)
        xs.append(b)
      }
    }
    let got = evaluate(
      ys, xs, { y, x in VectorMath.atan2(y, x) }, { y, x in VectorMath.atan2(y, x) })
    var report = AccuracyReport("atan2", absoluteTolerance: 3e-7)
    for i in xs.indices {
      report.record(got[i], Foundation.atan2(Double(ys[i]), Double(xs[i])), "y=\(ys[i]) x=\(xs[i])")
    }
    print(report)
    #expect(report.absolute.passed && report.nonFinite == 0, "\(report)")
    #expect(report.worstULP <= 2.5, "\(report)")
  }

  @Test func atan2SignedZerosAndAxes() {
    let y = SIMD8<Float>(0, -0.0, 0, -0.0, 1, -1, 0, 0)
    let x = SIMD8<Float>(0, 0, -0.0, -0.0, 0, 0, 1, -1)
    let r = VectorMath.atan2(y, x)
    #expect(r[0] == 0 && r[0].sign == .plus)  // atan2(0, 0) = 0, no NaN
    #expect(r[1] == 0 && r[1].sign == .minus)
    #expect(r[2] == piNearest && r[3] == -piNearest)
    #expect(r[4] == halfPiNearest && r[5] == -halfPiNearest)
    #expect(r[6] == 0 && r[7] == piNearest)
  }

  @Test func asinAcosAccuracy() {
    let xs = grid(-1, 1, count: 200_001) + random(-1, 1, count: 100_000, seed: 0xA5)
      + grid(0.999, 1, count: 10_001) + grid(-1, -0.999, count: 10_001)
    let s = evaluate(xs, nil, { a, _ in VectorMath.asin(a) }, { a, _ in VectorMath.asin(a) })
    let c = evaluate(xs, nil, { a, _ in VectorMath.acos(a) }, { a, _ in VectorMath.acos(a) })
    var asinReport = AccuracyReport("asin [-1, 1]", absoluteTolerance: 2e-7)
    var acosReport = AccuracyReport("acos [-1, 1]", absoluteTolerance: 3e-7)
    for i in xs.indices {
      asinReport.record(s[i], Foundation.asin(Double(xs[i])), "x=\(xs[i])")
      acosReport.record(c[i], Foundation.acos(Double(xs[i])), "x=\(xs[i])")
    }
    print(asinReport)
    print(acosReport)
    #expect(asinReport.absolute.passed && asinReport.nonFinite == 0, "\(asinReport)")
    #expect(acosReport.absolute.passed && acosReport.nonFinite == 0, "\(acosReport)")
    #expect(asinReport.worstULP <= 3 && acosReport.worstULP <= 2)
  }

  @Test func asinAcosClampAndEndpoints() {
    let x = SIMD8<Float>(1, -1, 1.5, -7, 0, -0.0, 0.5, -0.5)
    let s = VectorMath.asin(x)
    let c = VectorMath.acos(x)
    #expect(s[0] == halfPiNearest && s[1] == -halfPiNearest)
    #expect(s[2] == s[0] && s[3] == s[1])
    #expect(c[0] == 0 && c[1] == piNearest && c[2] == 0 && c[3] == piNearest)
    #expect(s[4] == 0 && s[5] == 0 && s[5].sign == .minus)
    #expect(c[4] == halfPiNearest && c[5] == halfPiNearest)
  }

  @Test func sqrtAccuracy() {
    var generator = SeededGenerator(seed: 0x5F)
    var xs: [Float] = (0..<200_000).map { _ in
      // Log-uniform over the whole positive range, denormals included.
      Float(Foundation.pow(2, generator.uniform(-149...127.99)))
    }
    xs += grid(0, 4, count: 100_001)
    xs += [0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude]
    let got = evaluate(xs, nil, { a, _ in VectorMath.sqrt(a) }, { a, _ in VectorMath.sqrt(a) })
    var report = AccuracyReport("sqrt [0, max]", absoluteTolerance: .infinity)
    for (x, y) in zip(xs, got) {
      report.record(y, Foundation.sqrt(Double(x)), "x=\(x)")
    }
    print(report)
    #expect(report.nonFinite == 0)
    // Correctly rounded: the hardware square root.
    #expect(report.worstULP <= 0.5, "\(report)")
    let special = VectorMath.sqrt(SIMD4<Float>(-1, .infinity, -0.0, 4))
    #expect(special[0].isNaN && special[1] == .infinity && special[2] == 0 && special[3] == 2)
  }

  @Test func simd4MatchesSIMD8LaneForLane() {
    var generator = SeededGenerator(seed: 0x48)
    for _ in 0..<2_000 {
      var a = SIMD8<Float>()
      var b = SIMD8<Float>()
      for i in 0..<8 {
        a[i] = Float(generator.uniform(-300...300))
        b[i] = Float(generator.uniform(-300...300))
      }
      let lo = a.lowHalf
      let hi = a.highHalf
      let checks: [(SIMD8<Float>, SIMD4<Float>, SIMD4<Float>)] = [
        (VectorMath.exp(a * 0.25), VectorMath.exp(lo * 0.25), VectorMath.exp(hi * 0.25)),
        (VectorMath.sin(a), VectorMath.sin(lo), VectorMath.sin(hi)),
        (VectorMath.cos(a), VectorMath.cos(lo), VectorMath.cos(hi)),
        (VectorMath.atan2(a, b), VectorMath.atan2(lo, b.lowHalf), VectorMath.atan2(hi, b.highHalf)),
        (VectorMath.asin(a / 300), VectorMath.asin(lo / 300), VectorMath.asin(hi / 300)),
        (VectorMath.acos(a / 300), VectorMath.acos(lo / 300), VectorMath.acos(hi / 300)),
        (VectorMath.sqrt(a * a), VectorMath.sqrt(lo * lo), VectorMath.sqrt(hi * hi)),
      ]
      for (wide, low, high) in checks {
        let joined = SIMD8<Float>(lowHalf: low, highHalf: high)
        #expect(
          unsafeBitCast(wide, to: SIMD8<UInt32>.self) == unsafeBitCast(joined, to: SIMD8<UInt32>.self))
      }
    }
  }
}
