// KeyframeTrack against values worked by hand, closed forms and measured pace: every
// calculation mode, Kochanek-Bartels at zero parameters against the Catmull-Rom matrix
// form, tension 1 against smoothstep, the paced modes' constant speed by finite
// differences, and the UIKit keyframe form.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("Keyframe tracks")
struct KeyframeTrackTests {
  func near(_ a: Double, _ b: Double, _ tol: Double = 1e-12) -> Bool { abs(a - b) <= tol }

  /// Key times spread evenly over three segments (typed once: as an array literal inside
  /// `#expect` it took the type checker 8.7 s per use).
  static let thirds: [Double] = [0, 1.0 / 3, 2.0 / 3, 1]

  @Test("linear: at and between keys, given and even key times, eased segments, a zero-length segment jumps")
  func linear() throws {
    let t = try KeyframeTrack(values: [0, 10, 5], keyTimes: [0, 0.25, 1])
    #expect(t.value(at: 0) == 0 && t.value(at: 0.25) == 10 && t.value(at: 1) == 5)
    #expect(near(t.value(at: 0.125), 5) && near(t.value(at: 0.625), 7.5))
    #expect(t.value(at: -1) == 0 && t.value(at: 2) == 5, "clamped")
    let even = try KeyframeTrack(values: [0, 4, 8, 0])
    #expect(even.keyTimes == Self.thirds)
    #expect(near(even.value(at: 0.5), 6) && near(even.value(at: 5.0 / 6), 4))
    // Segment 0 eased by easeIn: u = 0.5 becomes easeIn(0.5).
    let eased = try KeyframeTrack(values: [0, 10, 5], keyTimes: [0, 0.5, 1], timingFunctions: [.bezier(.easeIn), .bezier(.linear)])
    #expect(near(eased.value(at: 0.25), 10 * TimingCurve.easeIn.value(at: 0.5)))
    #expect(near(eased.value(at: 0.75), 7.5))
    // A spring segment runs on the segment's seconds: 1 s animation, segment 0.5 s.
    let spring = try Spring(mass: 1, stiffness: 200, damping: 10)
    let bouncy = try KeyframeTrack(values: [0, 1, 1], keyTimes: [0, 0.5, 1], timingFunctions: [.spring(spring), .bezier(.linear)])
    #expect(near(bouncy.value(at: 0.2, duration: 1), spring.value(at: 0.2)))
    #expect(bouncy.value(at: 0.5, duration: 1) == 1)
    // Keys 1 and 2 share a time: a jump from 1 to 5 at f = 0.5, the later value there.
    let jump = try KeyframeTrack(values: [0, 1, 5, 5], keyTimes: [0, 0.5, 0.5, 1])
    #expect(near(jump.value(at: 0.4), 0.8) && jump.value(at: 0.5) == 5 && jump.value(at: 0.75) == 5)
  }

  @Test("discrete: each value holds over its interval, n + 1 key times, the last value at 1")
  func discrete() throws {
    let t = try KeyframeTrack(values: [1, 2, 3], keyTimes: [0, 0.2, 0.7, 1], mode: .discrete)
    let times: [Double] = [0, 0.1, 0.2, 0.69, 0.7, 0.99, 1], held: [Double] = [1, 1, 2, 2, 3, 3, 3]
    #expect(times.map { t.value(at: $0) } == held)
    let even = try KeyframeTrack(values: [1, 2, 3], mode: .discrete)
    #expect(even.keyTimes == Self.thirds)
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [1, 2, 3], keyTimes: [0, 0.5, 1], mode: .discrete) }
  }

  @Test("paced: key times from distances, constant speed by finite differences; timing functions ignored")
  func paced() throws {
    let t = try KeyframeTrack(
      values: [0, 3, 1], keyTimes: [0, 0.9, 1], timingFunctions: [.bezier(.easeIn), .bezier(.easeOut)], mode: .paced)
    #expect(t.keyTimes == [0, 0.6, 1])
    let h = 1e-4
    for k in 1..<100 {
      let f = Double(k) / 100
      guard abs(f - 0.6) > 2 * h else { continue }
      let speed = abs(t.value(at: f + h) - t.value(at: f - h)) / (2 * h)
      #expect(abs(speed - 5) < 1e-6, "f \(f): \(speed)")
    }
    #expect(try KeyframeTrack(values: [2, 2, 2], mode: .paced).keyTimes == [0, 0.5, 1], "nothing moves: even")
  }

  /// Catmull-Rom in matrix form, P(u) = 1/2 [1 u u^2 u^3] M [P0 P1 P2 P3], with the ends
  /// repeated; written independently of the Hermite code.
  func catmullRom(_ v: [Double], _ i: Int, _ u: Double) -> Double {
    let p0 = v[max(i - 1, 0)], p1 = v[i], p2 = v[i + 1], p3 = v[min(i + 2, v.count - 1)]
    return 0.5 * (2 * p1 + (-p0 + p2) * u + (2 * p0 - 5 * p1 + 4 * p2 - p3) * u * u + (-p0 + 3 * p1 - 3 * p2 + p3) * u * u * u)
  }

  @Test("cubic: Kochanek-Bartels at zero parameters is Catmull-Rom and passes through every value; tension 1 is smoothstep")
  func cubic() throws {
    let v = [0.0, 4, -2, 7, 7, 1]
    let t = try KeyframeTrack(values: v, mode: .cubic)
    for (i, key) in t.keyTimes.enumerated() { #expect(near(t.value(at: key), v[i], 1e-12), "key \(i)") }
    for i in 0..<(v.count - 1) {
      for u in stride(from: 0.0, through: 1, by: 0.125) {
        let f = (Double(i) + u) / Double(v.count - 1)
        #expect(near(t.value(at: min(f, 1)), catmullRom(v, i, u), 1e-9), "segment \(i) u \(u)")
      }
    }
    let tight = try KeyframeTrack(values: [0, 10, 4], mode: .cubic, tension: [1, 1, 1])
    for u in stride(from: 0.0, through: 1, by: 0.25) {
      #expect(near(tight.value(at: u / 2), 10 * (3 * u * u - 2 * u * u * u), 1e-12))
    }
    // Bias 1 with tension 0: the outgoing tangent is the whole backward difference.
    let biased = try KeyframeTrack(values: [0, 10, 10], mode: .cubic, bias: [0, 1, 0])
    #expect(biased.outTangents[1] == 10 && biased.inTangents[1] == 10)
  }

  /// Continuity c opens a corner at a key: Kochanek and Bartels (SIGGRAPH 1984, eq. 9-10)
  /// give the incoming tangent (1-t)(1+b)(1-c)/2 back + (1-t)(1-b)(1+c)/2 ahead and the
  /// outgoing one with c negated. Values [0, 10, 4], c = 0.5 at the middle key (t = b = 0):
  /// back = 10, ahead = -6, so incoming 0.25 x 10 + 0.75 x -6 = -2 and outgoing
  /// 0.75 x 10 + 0.25 x -6 = 6 per unit u (worked by hand here). With three keys u = 2 f,
  /// so the spline's slope in f just before the key is -4 and just after it 12; measured
  /// by one-sided finite differences of the evaluated track.
  @Test("cubic: continuity makes a corner whose one-sided slopes are Kochanek-Bartels' hand-worked tangents")
  func continuityCorner() throws {
    let t = try KeyframeTrack(values: [0, 10, 4], mode: .cubic, continuity: [0, 0.5, 0])
    #expect(near(t.inTangents[1], -2, 1e-12) && near(t.outTangents[1], 6, 1e-12), "\(t.inTangents) \(t.outTangents)")
    let h = 1e-6
    let left = (t.value(at: 0.5) - t.value(at: 0.5 - h)) / h
    let right = (t.value(at: 0.5 + h) - t.value(at: 0.5)) / h
    #expect(near(left, -4, 1e-3), "left slope \(left)")
    #expect(near(right, 12, 1e-3), "right slope \(right)")
    // Bias tilts both toward the backward difference, continuity still splits them: b = 0.5,
    // c = -0.5, t = 0.2: in = 0.8 (1.5 x 1.5 / 2 x 10 + 0.5 x 0.5 / 2 x -6) = 8.4,
    // out = 0.8 (1.5 x 0.5 / 2 x 10 + 0.5 x 1.5 / 2 x -6) = 1.2.
    let mixed = try KeyframeTrack(
      values: [0, 10, 4], mode: .cubic, tension: [0, 0.2, 0], continuity: [0, -0.5, 0], bias: [0, 0.5, 0])
    #expect(near(mixed.inTangents[1], 8.4, 1e-12) && near(mixed.outTangents[1], 1.2, 1e-12))
    let l2 = (mixed.value(at: 0.5) - mixed.value(at: 0.5 - h)) / h
    let r2 = (mixed.value(at: 0.5 + h) - mixed.value(at: 0.5)) / h
    #expect(near(l2, 16.8, 1e-3) && near(r2, 2.4, 1e-3), "\(l2) \(r2)")
  }

  @Test("cubicPaced: through every value, at constant speed along the spline (finite differences)")
  func cubicPaced() throws {
    let v = [0.0, 1, 6, 7]
    let t = try KeyframeTrack(values: v, mode: .cubicPaced)
    for (i, key) in t.keyTimes.enumerated() { #expect(near(t.value(at: key), v[i], 1e-9)) }
    // Monotone values: arc length = total change 7, so the speed is 7 everywhere.
    let h = 1e-4
    var worst = 0.0
    for k in 1..<200 {
      let f = Double(k) / 200
      guard t.keyTimes.allSatisfy({ abs(f - $0) > 2 * h }) else { continue }
      let speed = abs(t.value(at: f + h) - t.value(at: f - h)) / (2 * h)
      worst = worstOf(worst, abs(speed - 7) / 7)
    }
    #expect(worst < 1e-6, "worst relative speed error \(worst)")
    // Values that turn back inside a segment (its slope changes sign): still one speed.
    let turning = try KeyframeTrack(values: [0, 1, 1.1, 0], mode: .cubicPaced)
    var speeds: [Double] = []
    for k in 1..<200 {
      let f = Double(k) / 200
      guard turning.keyTimes.allSatisfy({ abs(f - $0) > 2 * h }) else { continue }
      // One-sided differences: v(f) is piecewise linear in f here (|dv/df| = the arc
      // length), and at the turn (f = 0.5: half the way up and down) one side is straight.
      let v = turning.value(at: f)
      speeds.append(worstOf(abs(turning.value(at: f + h) - v), abs(v - turning.value(at: f - h))) / h)
    }
    #expect(speeds.allSatisfy { $0.isFinite }, "a speed is not finite")
    let spread = (worstOf(speeds) - speeds.min()!) / worstOf(speeds)
    #expect(spread < 1e-4, "speed spread \(spread)")
  }

  @Test("A spring segment with no duration is at its end; a Bezier one needs none")
  func zeroDuration() throws {
    let t = try KeyframeTrack(
      values: [0, 1, 2], timingFunctions: [.bezier(.easeIn), .spring(try Spring())])
    #expect(t.value(at: 0.25, duration: 0) == TimingCurve.easeIn.value(at: 0.5))
    #expect(t.value(at: 0.75, duration: 0) == 2)
  }

  @Test("UIKit form: keyframes by relative start and duration hold between them, each with its own curve")
  func uiKit() throws {
    let t = try KeyframeTrack.uiKit(
      initial: 0,
      keyframes: [(0, 0.5, 10, .bezier(.linear)), (0.75, 0.25, 0, .bezier(.linear))])
    #expect(t.value(at: 0.25) == 5 && t.value(at: 0.5) == 10 && t.value(at: 0.6) == 10)
    #expect(near(t.value(at: 0.875), 5) && t.value(at: 1) == 0)
    let eased = try KeyframeTrack.uiKit(initial: 2, keyframes: [(0.2, 0.4, 6, .bezier(.easeOut))])
    #expect(eased.value(at: 0.1) == 2 && eased.value(at: 0.9) == 6)
    #expect(near(eased.value(at: 0.4), 2 + 4 * TimingCurve.easeOut.value(at: 0.5)))
    #expect(throws: CellMotionError.self) {
      try KeyframeTrack.uiKit(initial: 0, keyframes: [(0.5, 0.5, 1, .bezier(.linear)), (0.2, 0.1, 2, .bezier(.linear))])
    }
  }

  @Test("Bad tracks are typed errors: no values, too many, key times out of order or range, wrong counts, NaN")
  func errors() {
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: []) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: Array(repeating: 1, count: 65)) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [0, 1, 2], keyTimes: [0, 0.8, 0.5]) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [0, 1, 2], keyTimes: [0.1, 0.5, 1]) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [0, 1], keyTimes: [0, 0.5, 1]) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [0, 1], timingFunctions: []) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [0, .nan]) }
    #expect(throws: CellMotionError.self) { try KeyframeTrack(values: [0, 1], mode: .cubic, tension: [0]) }
    #expect((try? KeyframeTrack(values: [3]))?.value(at: 0.5) == 3)
  }
}

// MARK: - Keyframe channels in recipes

@Suite("Keyframe channels in recipes")
struct KeyframeChannelTests {
  let cell = CellGeometry(width: 375, height: 80)
  func near(_ a: Double, _ b: Double, _ tol: Double = 1e-12) -> Bool { abs(a - b) <= tol }
  func tx(_ r: Recipe, _ t: Double, geometry: CellGeometry? = nil) -> Double {
    ReferenceEvaluator.evaluate(r, geometry: geometry ?? cell, time: t).transform.m41
  }

  @Test("shake: translation x through its values at even key times, worked by hand")
  func shake() {
    // 10 values over 0.6 s: a key every 0.6 / 9 s. Half-way through segment 0 (0 -> -20)
    // is -10; half-way through segment 1 (-20 -> 20) is 0; at key 4 it is 20.
    let r = Recipe.shake
    let step = 0.6 / 9
    #expect(near(tx(r, step / 2), -10, 1e-9))
    #expect(near(tx(r, 1.5 * step), 0, 1e-9))
    #expect(near(tx(r, 4 * step), 20, 1e-9))
    #expect(near(tx(r, 7.25 * step), -5 + 0.25 * 10, 1e-9))
    #expect(tx(r, -1) == 0 && tx(r, 5) == 0, "at rest before (fill backwards: the first value) and after")
  }

  @Test("pulse: Catmull-Rom through the scale values; mid-segment (p0 + p1) / 2 + (m0 - m1) / 8")
  func pulse() {
    let r = Recipe.pulse
    func scale(_ t: Double) -> Double { ReferenceEvaluator.evaluate(r, geometry: cell, time: t).transform.m11 }
    let values = [0.5, 1.12, 0.92, 1.05, 0.97, 1.015, 0.995, 1]
    for (k, v) in values.enumerated() { #expect(near(scale(0.1 * Double(k)), v, 1e-9), "key \(k)") }
    // Segment 1 (1.12 -> 0.92), tangents (0.92 - 0.5) / 2 and (1.05 - 1.12) / 2.
    let m0 = (0.92 - 0.5) / 2, m1 = (1.05 - 1.12) / 2
    #expect(near(scale(0.15), (1.12 + 0.92) / 2 + (m0 - m1) / 8, 1e-9))
  }

  @Test("values that depend on the geometry: each cell's track is the constant's plus height and width times theirs")
  func geometry() throws {
    let kf = ChannelKeyframes(
      values: [ChannelValue(perTableWidth: 1), ChannelValue(-10, perCellHeight: 0.5), 0], mode: .cubic,
      tension: [0, 0.3, 0])
    let r = Recipe(name: "g", channels: [ChannelAnimation(.translationX, keyframes: kf, curve: .bezier(.easeOut), duration: 1)])
    // For height 60 and width 320 the values are 320, -10 + 30 = 20 and 0. Worked by hand
    // (Kochanek-Bartels with the ends repeated): tangents per unit u at the keys are
    // out0 = -300 / 2 = -150; in1 = out1 = 0.7 x (-300 - 20) / 2 = -112; in2 = -20 / 2 = -10.
    // Each segment is the cubic Hermite piece between its keys (key times 0, 0.5, 1).
    func hermite(_ p0: Double, _ m0: Double, _ p1: Double, _ m1: Double, _ u: Double) -> Double {
      let u2 = u * u, u3 = u2 * u
      return (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1
    }
    for t in stride(from: 0.0, through: 1, by: 0.05) {
      let g = CellGeometry(width: 300, height: 60, tableWidth: 320)
      let f = TimingCurve.easeOut.value(at: t)
      let expected = f < 0.5 ? hermite(320, -150, 20, -112, f / 0.5) : hermite(20, -112, 0, -10, min((f - 0.5) / 0.5, 1))
      #expect(near(tx(r, t, geometry: g), expected, 1e-9), "t = \(t)")
    }
    #expect(near(tx(r, 0, geometry: CellGeometry(width: 300, height: 60, tableWidth: 320)), 320))
  }

  @Test("settleTime: a keyframe channel on a spring curve ends at its duration, not when the spring settles")
  func settle() throws {
    // The spring (UIKit damping 1, 0.3 s) settles within 0.001 of 1 long before 2 s, but
    // f within 0.001 of 1 is still far from the end on this steep last segment.
    let spring = AnimationCurve.spring(try Spring.uiKit(dampingRatio: 1, duration: 0.3, initialSpringVelocity: 0))
    let kf = ChannelKeyframes(values: [0, 0, 100], keyTimes: [0, 0.999, 1])
    let r = Recipe(name: "s", channels: [ChannelAnimation(.translationX, keyframes: kf, curve: spring, duration: 2)])
    #expect(r.settleTime == 2)
    let plain = Recipe(name: "p", channels: [ChannelAnimation(.translationX, from: 0, to: 100, curve: spring, duration: 2)])
    #expect(plain.settleTime < 1)
  }

  @Test("validation names the field; paced modes need constant values; parameters in [-1, 1]")
  func validation() {
    func error(_ k: ChannelKeyframes) -> CellMotionError? {
      do {
        try Recipe(name: "r", channels: [ChannelAnimation(.translationY, keyframes: k, duration: 1)]).validate()
        return nil
      } catch { return error }
    }
    guard case .outOfRange(let field, _, _)? = error(ChannelKeyframes(values: [0, 1, 2], keyTimes: [0, 0.7, 0.5])) else {
      Issue.record("decreasing key times accepted")
      return
    }
    #expect(field == "r.channels[0].keyframes.keyTimes[2]")
    #expect(error(ChannelKeyframes(values: [])) != nil)
    #expect(error(ChannelKeyframes(values: Array(repeating: 1, count: 65))) != nil)
    #expect(error(ChannelKeyframes(values: [0, 1], timingFunctions: [])) != nil)
    guard case .invalidCombination? = error(ChannelKeyframes(values: [0, .cellHeight()], mode: .paced)) else {
      Issue.record("paced keyframes with geometry accepted")
      return
    }
    guard case .outOfRange(let f2, _, _)? = error(ChannelKeyframes(values: [0, 1], mode: .cubic, tension: [0, 1.5])) else {
      Issue.record("tension 1.5 accepted")
      return
    }
    #expect(f2 == "r.channels[0].keyframes.tensionValues[1]")
    #expect(error(ChannelKeyframes(values: [0, ChannelValue(.nan)])) != nil)
    #expect(error(ChannelKeyframes(values: [0, 2e6])) != nil)
  }

  @Test("recipe files: CAKeyframeAnimation's names, the UIKit form, strict errors")
  func files() throws {
    func decode(_ s: String) throws(CellMotionError) -> Recipe { try Recipe.decodeFile(Data(s.utf8), source: "k.json") }
    let r = try decode(
      """
      {"name": "k", "channels": [{"channel": "translationX", "duration": 0.5,
        "keyframes": {"values": [0, -20, {"perTableWidth": 0.1}, 0], "keyTimes": [0, 0.2, 0.6, 1],
                      "timingFunctions": ["easeOut", {"spring": {"damping": 12}}, "linear"],
                      "calculationMode": "cubic", "tensionValues": [0, 0.5, 0, 0]}}]}
      """)
    let k = try #require(r.channels[0].keyframes)
    #expect(k.values == [0, -20, .tableWidth(0.1), 0] && k.mode == .cubic && k.keyTimes == [0, 0.2, 0.6, 1])
    #expect(r.channels[0].curve == .bezier(.linear), "the animation's own timing defaults to linear")
    #expect(r.channels[0].from == 0 && r.channels[0].to == 0)
    // Written back and read again: the same recipe.
    #expect(try decode(String(decoding: try JSONEncoder().encode(r), as: UTF8.self)) == r)
    // The UIKit form reads as its expansion.
    let u = try decode(
      """
      {"name": "u", "channels": [{"channel": "opacity", "duration": 1,
        "keyframes": {"initial": 0, "relative": [{"start": 0, "duration": 0.25, "value": 1, "curve": "easeOut"},
                                                 {"start": 0.5, "duration": 0.5, "value": 0.5}]}}]}
      """)
    let expected = try ChannelKeyframes.uiKit(
      initial: 0,
      keyframes: [.init(start: 0, duration: 0.25, value: 1, curve: .bezier(.easeOut)), .init(start: 0.5, duration: 0.5, value: 0.5)])
    #expect(u.channels[0].keyframes == expected)
    #expect(expected.values == [0, 1, 1, 0.5] && expected.keyTimes == [0, 0.25, 0.5, 1])
    // Refused: both forms, from with keyframes, an unknown mode, a key outside the schema,
    // overlapping UIKit keyframes, paced values with geometry.
    let bad = [
      #"{"name": "b", "channels": [{"channel": "opacity", "duration": 1, "from": 0, "keyframes": {"values": [0, 1]}}]}"#,
      #"{"name": "b", "channels": [{"channel": "opacity", "duration": 1, "keyframes": {"values": [0, 1], "calculationMode": "spline"}}]}"#,
      #"{"name": "b", "channels": [{"channel": "opacity", "duration": 1, "keyframes": {"values": [0, 1], "keytimes": [0, 1]}}]}"#,
      #"{"name": "b", "channels": [{"channel": "opacity", "duration": 1, "keyframes": {"values": [0, 1], "initial": 0, "relative": []}}]}"#,
      #"{"name": "b", "channels": [{"channel": "opacity", "duration": 1, "keyframes": {"initial": 0, "relative": [{"start": 0.5, "duration": 0.5, "value": 1}, {"start": 0.2, "duration": 0.1, "value": 0}]}}]}"#,
      #"{"name": "b", "channels": [{"channel": "translationX", "duration": 1, "keyframes": {"values": [0, {"perCellHeight": 1}], "calculationMode": "paced"}}]}"#,
    ]
    for text in bad {
      #expect(throws: CellMotionError.self, "\(text)") { try decode(text) }
    }
  }
}

// MARK: - Matrix keyframes

@Suite("Matrix keyframes")
struct MatrixKeyframeTests {
  let cell = CellGeometry(width: 100, height: 100)

  func expectClose(_ a: Transform3D, _ b: Transform3D, _ tolerance: Double = 1e-9, _ note: String = "") {
    var worst = 0.0
    for i in 0..<4 { for j in 0..<4 { worst = worstOf(worst, abs(a[i, j] - b[i, j])) } }
    #expect(worst <= tolerance, "\(note): \(a) vs \(b)")
  }

  @Test("each segment interpolates its two matrices: translations and z rotations worked by hand")
  func segments() throws {
    // Three translations, keys at 0, 0.25, 1: at 0.125 half-way to the second, at 0.625
    // half-way from the second to the third.
    let k = MatrixKeyframes(
      values: [.identity, .translation(10, 0, 0), .translation(10, 20, 0)], keyTimes: [0, 0.25, 1])
    expectClose(k.value(at: 0.125, duration: 1, interpolation: .decomposed), .translation(5, 0, 0), 1e-12, "first")
    expectClose(k.value(at: 0.625, duration: 1, interpolation: .decomposed), .translation(10, 10, 0), 1e-12, "second")
    // Rotations about z by 0, pi/2 and pi (each pair affine: the 2D path lerps the angle).
    let r = MatrixKeyframes(values: [.identity, .rotation(.pi / 2, 0, 0, 1), .rotation(.pi, 0, 0, 1)])
    expectClose(r.value(at: 0.75, duration: 1, interpolation: .decomposed), .rotation(3 * .pi / 4, 0, 0, 1), 1e-12, "rotation")
    // Discrete: each matrix over its interval.
    let d = MatrixKeyframes(values: [.identity, .scale(2, 2, 1)], keyTimes: [0, 0.5, 1], mode: .discrete)
    expectClose(d.value(at: 0.49, duration: 1, interpolation: .decomposed), .identity, 0, "discrete before")
    expectClose(d.value(at: 0.5, duration: 1, interpolation: .decomposed), .scale(2, 2, 1), 0, "discrete after")
    // Through a recipe: the reference applies it about the anchor, and shows the model
    // value (the last matrix) before the start with no backwards fill and after the end.
    let recipe = Recipe(
      name: "m", matrix: MatrixAnimation(keyframes: k, duration: 2), timing: RecipeTiming(fillMode: .removed))
    let mid = ReferenceEvaluator.evaluate(recipe, geometry: cell, time: 0.25).transform
    expectClose(mid, Transform3D.translation(5, 0, 0).about(Vector3(50, 50, 0)), 1e-9, "recipe")
    let after = ReferenceEvaluator.evaluate(recipe, geometry: cell, time: 5).transform
    expectClose(after, Transform3D.translation(10, 20, 0).about(Vector3(50, 50, 0)), 1e-9, "after")
  }

  @Test("validation: linear and discrete only, counts, and every pair's decomposition in range")
  func validation() {
    func error(_ k: MatrixKeyframes) -> CellMotionError? {
      do {
        try Recipe(name: "r", matrix: MatrixAnimation(keyframes: k, duration: 1)).validate()
        return nil
      } catch { return error }
    }
    guard case .invalidCombination(let field, _)? = error(MatrixKeyframes(values: [.identity, .scale(2, 2, 1)], mode: .cubic))
    else {
      Issue.record("cubic matrix keyframes accepted")
      return
    }
    #expect(field == "r.matrix.keyframes.calculationMode")
    #expect(error(MatrixKeyframes(values: [])) != nil)
    #expect(error(MatrixKeyframes(values: [.identity, .identity], keyTimes: [0, 0.5])) != nil)
    #expect(error(MatrixKeyframes(values: [.identity, .translation(2e6, 0, 0)])) != nil)
    #expect(error(MatrixKeyframes(values: [.identity, .translation(20, 0, 0)])) == nil)
  }

  @Test("recipe files: matrix keyframes by their CATransform3D fields, strictly")
  func files() throws {
    func m(_ t: Transform3D) -> String {
      "{" + t.fieldOrder.enumerated().map { "\"m\($0.offset / 4 + 1)\($0.offset % 4 + 1)\": \($0.element)" }.joined(separator: ", ") + "}"
    }
    let text = """
      {"name": "k", "matrix": {"duration": 0.5, "keyframes": {"values": [\(m(.identity)), \(m(.translation(0, -8, 0))), \(m(.identity))],
        "timingFunctions": ["easeOut", "easeIn"]}}}
      """
    let r = try Recipe.decodeFile(Data(text.utf8), source: "m.json")
    #expect(r.matrix?.keyframes?.values.count == 3 && r.matrix?.curve == .bezier(.linear))
    #expect(try Recipe.decodeFile(try JSONEncoder().encode(r), source: "again") == r)
    let cubic = text.replacingOccurrences(of: "\"timingFunctions\"", with: "\"calculationMode\": \"cubic\", \"timingFunctions\"")
    #expect(throws: CellMotionError.self) { try Recipe.decodeFile(Data(cubic.utf8), source: "cubic.json") }
  }
}
