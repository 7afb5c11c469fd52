// TimingCurve against an independent truth: bisection on the Bernstein form with exact
// big-integer signs (every Double is a dyadic rational, so x(s) - x can be decided
// exactly), then y evaluated in Float80 at the bracketed parameter. The implementation
// uses Newton with double-double residuals; the truth shares no code with it.

import CellMotion
import Testing
import _TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - Exact truth

/// Unsigned big integer, little-endian 64-bit limbs; only what the truth needs.
private struct BigUInt: Comparable {
  var limbs: [UInt64]

  init(_ v: UInt64) { limbs = [v] }

  mutating func multiply(by m: UInt64) {
    var carry: UInt64 = 0
    for i in limbs.indices {
      let (hi, lo) = limbs[i].multipliedFullWidth(by: m)
      let (sum, overflow) = lo.addingReportingOverflow(carry)
      limbs[i] = sum
      carry = hi &+ (overflow ? 1 : 0)
    }
    if carry != 0 { limbs.append(carry) }
  }

  mutating func shiftLeft(_ bits: Int) {
    let words = bits / 64
    let rest = bits % 64
    if rest != 0 {
      var carry: UInt64 = 0
      for i in limbs.indices {
        let next = limbs[i] >> (64 - rest)
        limbs[i] = (limbs[i] << rest) | carry
        carry = next
      }
      if carry != 0 { limbs.append(carry) }
    }
    if words > 0 { limbs.insert(contentsOf: repeatElement(0, count: words), at: 0) }
  }

  static func + (a: BigUInt, b: BigUInt) -> BigUInt {
    var r = BigUInt(0)
    r.limbs = Array(repeating: 0, count: max(a.limbs.count, b.limbs.count) + 1)
    var carry: UInt64 = 0
    for i in 0..<(r.limbs.count - 1) {
      let x = i < a.limbs.count ? a.limbs[i] : 0
      let y = i < b.limbs.count ? b.limbs[i] : 0
      let (s1, o1) = x.addingReportingOverflow(y)
      let (s2, o2) = s1.addingReportingOverflow(carry)
      r.limbs[i] = s2
      carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
    }
    r.limbs[r.limbs.count - 1] = carry
    return r
  }

  private var trimmed: [UInt64] {
    var l = limbs
    while l.count > 1 && l.last == 0 { l.removeLast() }
    return l
  }

  static func < (a: BigUInt, b: BigUInt) -> Bool {
    let x = a.trimmed
    let y = b.trimmed
    if x.count != y.count { return x.count < y.count }
    for i in stride(from: x.count - 1, through: 0, by: -1) where x[i] != y[i] { return x[i] < y[i] }
    return false
  }

  static func == (a: BigUInt, b: BigUInt) -> Bool { a.trimmed == b.trimmed }
}

#if arch(x86_64) || arch(i386)
  typealias Wide = Float80
#else
  typealias Wide = Double  // less precise truth on other architectures
#endif

/// Exact truth for y(x): bisection over s = j / 2^62 deciding the sign of
/// 3 x1 (1-s)^2 s + 3 x2 (1-s) s^2 + s^3 - x exactly, then y at the bracket midpoint in
/// Float80. Error <= max|y'| 2^-63 + Float80 rounding (~1e-18).
enum ExactBezier {
  static let bits = 62

  /// A non-negative Double as (integer significand, binary exponent).
  private static func split(_ v: Double) -> (UInt64, Int) {
    if v == 0 { return (0, 0) }
    let sig = v.significandBitPattern | (v.isNormal ? (1 << 52) : 0)
    let e = v.isNormal ? Int(v.exponent) - 52 : -1074
    return (sig, e)
  }

  static func parameter(x1: Double, x2: Double, x: Double) -> (lo: UInt64, hi: UInt64) {
    let (s1, e1) = split(x1)
    let (s2, e2) = split(x2)
    let (sx, ex) = split(x)
    let f = max(0, -e1, -e2, -ex)  // fixed-point fractional bits making all integers
    let one = UInt64(1) << bits
    func fixed(_ sig: UInt64, _ e: Int) -> BigUInt {
      var b = BigUInt(sig)
      if sig != 0 { b.shiftLeft(e + f) }
      return b
    }
    // Scaled by 2^(f + 3 bits):  P = 3 X1 (1-j)^2 j + 3 X2 (1-j) j^2 + j^3 2^f;  X 2^(3 bits).
    var target = fixed(sx, ex)
    target.shiftLeft(3 * bits)
    func below(_ j: UInt64) -> Bool {
      var a = fixed(s1, e1)
      a.multiply(by: one - j); a.multiply(by: one - j); a.multiply(by: j); a.multiply(by: 3)
      var b = fixed(s2, e2)
      b.multiply(by: one - j); b.multiply(by: j); b.multiply(by: j); b.multiply(by: 3)
      var c = BigUInt(j)
      c.multiply(by: j); c.multiply(by: j); c.shiftLeft(f)
      return a + b + c < target
    }
    // Speed: bracket first with a Float80 bisection, then verify the bracket exactly and
    // widen it until it holds, so the exact bisection only refines the last ~25 bits.
    let j0 = UInt64(approximateParameter(x1: x1, x2: x2, x: x) * Wide(one))
    var width: UInt64 = 1 << 20
    var lo: UInt64 = 0
    var hi: UInt64 = one
    while width < one {
      let l = j0 > width ? j0 - width : 0
      let h = min(one, j0 + width)
      if (l == 0 || below(l)) && (h == one || !below(h)) {
        lo = l
        hi = h
        break
      }
      width <<= 8
    }
    while hi - lo > 1 {
      let mid = lo + (hi - lo) / 2
      if below(mid) { lo = mid } else { hi = mid }
    }
    return (lo, hi)
  }

  /// Plain Float80 bisection (a first guess only; the exact bisection decides).
  private static func approximateParameter(x1: Double, x2: Double, x: Double) -> Wide {
    var lo: Wide = 0
    var hi: Wide = 1
    for _ in 0..<70 {
      let s = (lo + hi) / 2
      let t = 1 - s
      let xs = 3 * t * t * s * Wide(x1) + 3 * t * s * s * Wide(x2) + s * s * s
      if xs < Wide(x) { lo = s } else { hi = s }
    }
    return (lo + hi) / 2
  }

  static func y(_ c: TimingCurve, x: Double) -> Double {
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    let (lo, _) = parameter(x1: c.x1, x2: c.x2, x: x)
    let s = (Wide(lo) + 0.5) / Wide(UInt64(1) << bits)
    let t = 1 - s
    return Double(3 * t * t * s * Wide(c.y1) + 3 * t * s * s * Wide(c.y2) + s * s * s)
  }

  /// x(s) in Float80 from the Bernstein form (for round trips).
  static func x(_ c: TimingCurve, s: Double) -> Wide {
    let s = Wide(s)
    let t = 1 - s
    return 3 * t * t * s * Wide(c.x1) + 3 * t * s * s * Wide(c.x2) + s * s * s
  }
}

// MARK: - Fixtures

/// Named curves: presets, degenerate cases (Chromium cubic_bezier_unittest style names)
/// and overshooting ones.
private let namedCurves: [(String, TimingCurve)] = {
  func c(_ a: Double, _ b: Double, _ d: Double, _ e: Double) -> TimingCurve {
    try! TimingCurve(x1: a, y1: b, x2: d, y2: e)
  }
  return TimingCurve.presets.map { ($0.name, $0.curve) } + [
    ("all_zeros", c(0, 0, 0, 0)),
    ("linear_equivalent", c(0, 0, 1, 1)),
    ("vertical_gradient", c(0, 1, 0, 1)),
    ("vertical_tangent_mid", c(1, 0, 0, 1)),
    ("horizontal_ends", c(1, 0, 0, 1).flippedAxes),
    ("near_vertical", c(1 - 1e-8, 0, 1e-8, 1)),
    ("ease_in_out_back", c(0.68, -0.55, 0.265, 1.55)),
    ("overshoot_large", c(0.3, 2.5, 0.7, -1.5)),
    ("swift_like", c(0.2, 0.9, 0.1, 1)),
  ]
}()

extension TimingCurve {
  /// (y1, x1, y2, x2) when valid: the inverse function's curve.
  fileprivate var flippedAxes: TimingCurve { try! TimingCurve(x1: y1, y1: x1, x2: y2, y2: x2) }
}

/// Dense grid: 1001 uniform points plus points approaching 0, 0.5 and 1 geometrically.
private let denseGrid: [Double] = {
  var g = (0...1000).map { Double($0) / 1000 }
  for k in 1...52 {
    let h = Double.ulpOfOne * Double(1 << (k % 52)) / 2
    g += [h, 0.5 - h, 0.5 + h, 1 - h]
  }
  return g.filter { $0 >= 0 && $0 <= 1 }
}()

// MARK: - Tests

@Suite("TimingCurve")
struct TimingCurveTests {
  /// The solver requirement: |y error| <= 1e-9 against the exact truth, on a dense grid.
  @Test("value(at:) matches the exact Bernstein truth to 1e-9", arguments: namedCurves.map(\.0))
  func valueAgainstExactTruth(name: String) {
    let curve = namedCurves.first { $0.0 == name }!.1
    var tracker = ErrorTracker("value \(name)", tolerance: 1e-9)
    for x in denseGrid {
      tracker.record(curve.value(at: x), ExactBezier.y(curve, x: x), "x=\(x)")
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
  }

  @Test("random curves match the exact truth to 1e-9")
  func randomCurves() {
    var rng = SeededGenerator(seed: 0x7157_C0DE)
    var tracker = ErrorTracker("value random", tolerance: 1e-9)
    for _ in 0..<24 {
      let curve = try! TimingCurve(
        x1: rng.uniform(0...1), y1: rng.uniform(-1...2), x2: rng.uniform(0...1), y2: rng.uniform(-1...2))
      for i in 0...200 {
        let x = Double(i) / 200
        tracker.record(curve.value(at: x), ExactBezier.y(curve, x: x), "\(curve) x=\(x)")
      }
    }
    print("seed \(rng.seed): \(tracker)")
    #expect(tracker.passed, "seed \(rng.seed): \(tracker)")
  }

  @Test("endpoints are exact and diagonal curves return x")
  func endpoints() {
    for (name, c) in namedCurves {
      #expect(c.value(at: 0).magnitude <= 0, "\(name)")
      #expect((c.value(at: 1) - 1).magnitude <= 0, "\(name)")
      #expect(c.value(at: -3).magnitude <= 0, "clamped below, \(name)")
      #expect((c.value(at: 7) - 1).magnitude <= 0, "clamped above, \(name)")
      #expect(c.value(at: .nan).isNaN)
    }
    for x in stride(from: 0.0, through: 1.0, by: 0.01) {
      for c in [TimingCurve.linear, namedCurves[5].1, namedCurves[6].1] {
        #expect((c.value(at: x) - x).magnitude <= 1e-16)
      }
    }
  }

  /// Independent closed forms for two degenerate curves:
  /// (0,1,0,1): x = s^3, y = 1 - (1-s)^3; (1,0,0,1): x - 1/2 = 4 (s - 1/2)^3, y = 3s^2 - 2s^3.
  @Test("degenerate curves match their closed forms")
  func degenerateClosedForms() throws {
    let vertical = try TimingCurve(x1: 0, y1: 1, x2: 0, y2: 1)
    let mid = try TimingCurve(x1: 1, y1: 0, x2: 0, y2: 1)
    var tv = ErrorTracker("vertical_gradient closed form", tolerance: 1e-14)
    var tm = ErrorTracker("vertical_tangent_mid closed form", tolerance: 1e-14)
    for x in denseGrid {
      let c = cbrt(x)
      tv.record(vertical.value(at: x), 1 - (1 - c) * (1 - c) * (1 - c), "x=\(x)")
      let s = 0.5 + cbrt((x - 0.5) / 4)
      tm.record(mid.value(at: x), s * s * (3 - 2 * s), "x=\(x)")
    }
    print(tv)
    print(tm)
    #expect(tv.passed, "\(tv)")
    #expect(tm.passed, "\(tm)")
    // Vertical tangents: the derivative is infinite; the slope reported is the mean over
    // the tangent window (finite, with the tangent's sign).
    let h = TimingCurve.tangentWindow
    #expect(vertical.slope(at: 0) == vertical.value(at: h) / h)
    let midMean = (mid.value(at: 0.5 + h / 2) - mid.value(at: 0.5 - h / 2)) / h
    #expect(abs(mid.slope(at: 0.5) - midMean) <= 1e-9 * midMean)
    #expect(vertical.value(at: 1e-15) > 1e-5, "y ~ 3 x^(1/3) near 0")
  }

  @Test("round trip: sample x(s), solve back")
  func roundTrip() {
    var worstS = 0.0
    var worstResidual: Wide = 0
    for (name, c) in namedCurves {
      for i in 0...1000 {
        let s = Double(i) / 1000
        let x = Double(ExactBezier.x(c, s: s))
        let back = c.parameter(forX: x)
        // The residual of the solution is at the level of x's own rounding.
        let residual = abs(ExactBezier.x(c, s: back) - Wide(x))
        worstResidual = worstOf(worstResidual, residual)
        #expect(residual <= 4e-16, "\(name) s=\(s) back=\(back)")
        // Where x'(s) is not tiny, s itself comes back: |ds| <= rounding(x) / x'(s).
        let t = 1 - s
        let dx = 3 * (c.x1 * t * t + 2 * (c.x2 - c.x1) * t * s + (1 - c.x2) * s * s)
        if dx > 1e-3 {
          let bound = 4e-16 / dx + 1e-15
          worstS = worstOf(worstS, (back - s).magnitude)
          #expect((back - s).magnitude <= bound, "\(name) s=\(s) back=\(back)")
        }
      }
    }
    print("round trip: worst |x(s') - x| = \(worstResidual), worst |s' - s| = \(worstS)")
  }

  @Test("overshoot curves leave [0, 1] and are still exact")
  func overshoot() throws {
    let back = try TimingCurve(parsing: "cubic-bezier(0.68, -0.55, 0.265, 1.55)")
    let values = denseGrid.map { back.value(at: $0) }
    #expect(values.allSatisfy { $0.isFinite })
    #expect(values.min()! < -0.09, "undershoot, min \(values.min()!)")
    #expect(values.max()! > 1.09, "overshoot, max \(values.max()!)")
    // Exact: the solved parameter puts the Bezier, in Bernstein form written out here, at x
    // (|x(s) - x| within a few ulps), and the value is y(s).
    func bernstein(_ p1: Double, _ p2: Double, _ s: Double) -> Double {
      3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s
    }
    var residual = 0.0, valueError = 0.0
    for (x, v) in zip(denseGrid, values) {
      let s = back.parameter(forX: x)
      residual = worstOf(residual, abs(bernstein(back.x1, back.x2, s) - x))
      valueError = worstOf(valueError, abs(bernstein(back.y1, back.y2, s) - v))
    }
    #expect(residual <= 1e-15 && valueError <= 1e-14, "|x(s) - x| \(residual), |y(s) - value| \(valueError)")
  }

  @Test("slope: finite differences, end tangents, L'Hopital limits")
  func slope() throws {
    var tracker = ErrorTracker("slope vs central difference (relative)", tolerance: 1e-6)
    for (name, c) in namedCurves where !name.hasPrefix("vertical") && !name.hasPrefix("near") && name != "horizontal_ends" {
      for i in 1..<100 {
        let x = Double(i) / 100
        let h = 1e-5
        let fd = (c.value(at: x + h) - c.value(at: x - h)) / (2 * h)
        let sl = c.slope(at: x)
        tracker.record(sl / max(1, sl.magnitude), fd / max(1, sl.magnitude), "\(name) x=\(x)")
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
    // End tangents are the directions P0 -> P1 and P2 -> P3, or to the next distinct point.
    #expect((TimingCurve.easeIn.slope(at: 1) - 1 / 0.58).magnitude <= 1e-14)
    #expect((TimingCurve.easeOut.slope(at: 0) - 1 / 0.58).magnitude <= 1e-14)
    #expect((TimingCurve.default.slope(at: 0) - 0.4).magnitude <= 1e-14)
    #expect((TimingCurve.easeInEaseOut.slope(at: 0)).magnitude <= 1e-14)
    #expect((TimingCurve.linear.slope(at: 0.3) - 1).magnitude <= 1e-15)
  }

  @Test("valueAndSlope(at:) is value(at:) and slope(at:), bit for bit, on every named curve and the dense grid")
  func valueAndSlopeIsBoth() {
    for (name, c) in namedCurves {
      for x in denseGrid + [-0.5, 0, 1, 1.5, .nan] {
        let both = c.valueAndSlope(at: x)
        let value = c.value(at: x), slope = c.slope(at: x)
        let same = (both.value == value || (both.value.isNaN && value.isNaN))
          && (both.slope == slope || (both.slope.isNaN && slope.isNaN))
        #expect(same, "\(name) x=\(x): \(both) against (\(value), \(slope))")
      }
    }
  }

  /// Core Animation's looser solver (Newton to |x(s) - x| < 1e-5, bisection fallback):
  /// its error in y is about slope * 1e-5 to first order.
  @Test("Core Animation's solver deviation from the exact answer")
  func coreAnimationDeviation() {
    var rng = SeededGenerator(seed: 0xCA5)
    var curves = namedCurves.filter { !$0.0.hasPrefix("vertical") && !$0.0.hasPrefix("near") }
    for i in 0..<16 {
      curves.append(
        ("random\(i)",
         try! TimingCurve(
          x1: rng.uniform(0...1), y1: rng.uniform(-1...2), x2: rng.uniform(0...1), y2: rng.uniform(-1...2))))
    }
    var overall = 0.0
    for (name, c) in curves {
      var worst = 0.0
      var maxSlope = 0.0
      for i in 0...4000 {
        let x = Double(i) / 4000
        worst = worstOf(worst, (c.coreAnimationValue(at: x) - c.value(at: x)).magnitude)
        maxSlope = worstOf(maxSlope, c.slope(at: x).magnitude)
      }
      let bound = 1.5 * TimingCurve.coreAnimationEpsilon * maxSlope + 1e-12
      if c.name != nil { print("CA solver deviation \(name): \(worst) (max slope \(maxSlope))") }
      overall = worstOf(overall, worst)
      #expect(worst <= bound, "\(name): \(worst) > \(bound)")
    }
    print("CA solver deviation, worst over \(curves.count) curves (seed \(rng.seed)): \(overall)")
    #expect(overall > 0, "the looser solver does differ")
  }

  @Test("polynomial form agrees with the Bernstein form")
  func polynomial() {
    for (_, c) in namedCurves {
      let p = c.polynomial
      for i in 0...100 {
        let s = Double(i) / 100
        let x = ((p.ax * s + p.bx) * s + p.cx) * s
        let y = ((p.ay * s + p.by) * s + p.cy) * s
        let t = 1 - s
        #expect((x - Double(ExactBezier.x(c, s: s))).magnitude <= 1e-15)
        #expect((y - (3 * t * t * s * c.y1 + 3 * t * s * s * c.y2 + s * s * s)).magnitude <= 1e-14)
      }
    }
  }

  @Test("invalid control points are rejected")
  func rejection() {
    let bad: [(Double, Double, Double, Double, String)] = [
      (-0.01, 0, 1, 1, "x1"), (1.01, 0, 1, 1, "x1"), (0, 0, -1e-9, 1, "x2"), (0, 0, 2, 1, "x2"),
    ]
    for (a, b, c, d, field) in bad {
      #expect(throws: CellMotionError.self) { try TimingCurve(x1: a, y1: b, x2: c, y2: d) }
      do {
        _ = try TimingCurve(x1: a, y1: b, x2: c, y2: d)
      } catch {
        guard case .outOfRange(let f, _, _) = error else {
          Issue.record("expected outOfRange, got \(error)")
          continue
        }
        #expect(f == field)
      }
    }
    for v in [Double.nan, .infinity, -.infinity] {
      for position in 0..<4 {
        var p = [0.25, 0.1, 0.25, 1.0]
        p[position] = v
        do {
          _ = try TimingCurve(x1: p[0], y1: p[1], x2: p[2], y2: p[3])
          Issue.record("accepted \(p)")
        } catch {
          guard case .notFinite(let f, _) = error else {
            Issue.record("expected notFinite, got \(error)")
            continue
          }
          #expect(f == ["x1", "y1", "x2", "y2"][position])
        }
      }
    }
    // y may be anything in InputLimits.bezierY (overshoot), and nothing beyond it.
    #expect((try? TimingCurve(x1: 0.5, y1: -1e3, x2: 0.5, y2: 1e3)) != nil)
    #expect((try? TimingCurve(x1: 0.5, y1: -1e6, x2: 0.5, y2: 1e6)) == nil)
  }

  @Test("parser: names, CSS keywords, cubic-bezier, whitespace")
  func parsing() throws {
    let cases: [(String, TimingCurve)] = [
      ("linear", .linear), ("easeIn", .easeIn), ("easeOut", .easeOut),
      ("easeInEaseOut", .easeInEaseOut), ("default", .default), ("ease", .default),
      ("ease-in", .easeIn), ("ease-out", .easeOut), ("ease-in-out", .easeInEaseOut),
      ("  EASE-IN-OUT\n", .easeInEaseOut),
      ("cubic-bezier(0.25, 0.1, 0.25, 1)", .default),
      ("cubic-bezier(0.42,0,0.58,1.0)", .easeInEaseOut),
      (" \tcubic-bezier ( 0.42 ,  0 , 1 , +1e0 ) ", .easeIn),
      ("Cubic-Bezier(.42, 0., 1, 1)", .easeIn),
    ]
    for (text, expected) in cases {
      let parsed = try TimingCurve(parsing: text)
      #expect(parsed == expected, "\(text)")
    }
    #expect(TimingCurve.default.name == "default")
    #expect(try TimingCurve(parsing: "ease").name == "default")
    #expect(try TimingCurve(x1: 0.1, y1: 0.2, x2: 0.3, y2: 0.4).name == nil)
    // description round-trips bit for bit.
    var rng = SeededGenerator(seed: 99)
    for _ in 0..<200 {
      let c = try TimingCurve(
        x1: rng.uniform(0...1), y1: rng.uniform(-3...3), x2: rng.uniform(0...1), y2: rng.uniform(-3...3))
      let back = try TimingCurve(parsing: c.description)
      #expect(
        [back.x1, back.y1, back.x2, back.y2].map(\.bitPattern) == [c.x1, c.y1, c.x2, c.y2].map(\.bitPattern),
        "\(c)")
    }
    for (_, c) in namedCurves {
      #expect(try TimingCurve(parsing: c.description) == c)
    }
  }

  @Test("parser errors")
  func parsingErrors() {
    func error(_ text: String) -> CellMotionError? {
      do {
        _ = try TimingCurve(parsing: text)
        return nil
      } catch { return error }
    }
    if case .unknownName(let kind, let name, _)? = error("bounce") {
      #expect(kind == "timing function")
      #expect(name == "bounce")
    } else {
      Issue.record("bounce: \(String(describing: error("bounce")))")
    }
    do {
      _ = try TimingCurve(parsing: "easeInOut", location: "line 3")
      Issue.record("easeInOut is not a name")
    } catch {
      if case .unknownName(_, _, let location) = error {
        #expect(location == "line 3")
      } else {
        Issue.record("expected unknownName, got \(error)")
      }
    }
    let syntax = [
      "", "   ", "cubic-bezier(0.1, 0.2, 0.3)", "cubic-bezier(0.1, 0.2, 0.3, 0.4",
      "cubic-bezier(0.1, 0.2, 0.3, 0.4, 0.5)", "cubic-bezier(0.1,,0.3,0.4)", "steps(4, end)",
      "cubic-bezier(nan, 0, 1, 1)", "cubic-bezier(inf, 0, 1, 1)", "cubic-bezier(0x1p-2, 0, 1, 1)",
      "cubic-bezier(1e, 0, 1, 1)", "cubic-bezier(0.1, 0.2, 0.3, 0.4) x", "ease in", "linear(0, 1)",
    ]
    for text in syntax {
      guard case .invalidSyntax(let field, _, _)? = error(text) else {
        Issue.record("\"\(text)\": expected invalidSyntax, got \(String(describing: error(text)))")
        continue
      }
      #expect(field == "timing function")
    }
    guard case .outOfRange(let f, _, _)? = error("cubic-bezier(1.5, 0, 1, 1)") else {
      Issue.record("x1 = 1.5 must be outOfRange")
      return
    }
    #expect(f == "x1")
    guard case .notFinite(let g, _)? = error("cubic-bezier(0.5, 1e999, 1, 1)") else {
      Issue.record("1e999 must be notFinite")
      return
    }
    #expect(g == "y1")
  }
}
