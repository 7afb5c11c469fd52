// Regression tests for the soak issue's findings that live in the scalar reference: each
// test reproduces one finding through the public API and states the behaviour decided for
// it (numbered as in the issue).

import Foundation
import Testing

@testable import CellMotion

@Suite("Soak findings: reference")
struct FindingsRegressionTests {
  /// easings.net's easeOutCirc: x1 = 0 with y1 != 0, a vertical tangent at the start.
  static let vertical = try! TimingCurve(x1: 0, y1: 0.55, x2: 0.45, y2: 1)

  static func recipe(_ curve: TimingCurve) -> Recipe {
    Recipe(
      name: "vertical",
      channels: [ChannelAnimation(.translationY, from: 100, to: 0, curve: .bezier(curve), duration: 0.5)])
  }

  @Test("Finding 3a: TimingCurve.slope is finite at a vertical tangent (the mean slope over TimingCurve.tangentWindow)")
  func slopeAtVerticalTangent() throws {
    let h = TimingCurve.tangentWindow
    let start = Self.vertical.slope(at: 0)
    #expect(start.isFinite && start > 0)
    #expect(abs(start - Self.vertical.value(at: h) / h) <= 1e-12 * start)
    // The mirrored curve has its vertical tangent at the end; (1, 0, 0, 1) in the middle.
    let end = try TimingCurve(x1: 0.55, y1: 0, x2: 1, y2: 0.45)
    let endSlope = end.slope(at: 1)
    #expect(endSlope.isFinite && abs(endSlope - (1 - end.value(at: 1 - h)) / h) <= 1e-12 * endSlope)
    let middle = try TimingCurve(x1: 1, y1: 0, x2: 0, y2: 1)
    let m = middle.slope(at: 0.5)
    #expect(m.isFinite && abs(m - (middle.value(at: 0.5 + h / 2) - middle.value(at: 0.5 - h / 2)) / h) <= 1e-9 * m)
    // Next to the tangent the exact derivative, never beyond TimingCurve.maximumSlope.
    for x in [1e-300, 1e-200, 1e-30, 1e-12, 1e-6, 1e-3] {
      let s = Self.vertical.slope(at: x)
      #expect(s.isFinite && s > 0 && s <= TimingCurve.maximumSlope, "x \(x): \(s)")
    }
    // Ordinary curves are unchanged: easeOut (x1 = y1 = 0) keeps its L'Hopital limit.
    #expect(abs(TimingCurve.easeOut.slope(at: 0) - 1 / 0.58) < 1e-12)
  }

  @Test("Finding 3b: channelVelocities at the start instant of a vertical-tangent curve are finite")
  func channelVelocitiesAtStart() {
    let r = Self.recipe(Self.vertical)
    let g = CellGeometry(width: 320, height: 44)
    let v = ReferenceEvaluator.channelVelocities(r, geometry: g, startTime: 2, time: 2)
    // d(value)/dt = (to - from) x slope / duration.
    #expect(v.translationY.isFinite)
    #expect(abs(v.translationY - (-100) * Self.vertical.slope(at: 0) / 0.5) <= 1e-9 * abs(v.translationY))
    for c in Channel.allCases { #expect(v[c].isFinite, "\(c)") }
  }

  @Test("Finding 3c: ChannelMotion.velocity at the start instant is finite")
  func channelMotionVelocityAtStart() throws {
    let m = try ChannelMotion(Self.recipe(Self.vertical), channel: .translationY, geometry: CellGeometry(width: 320, height: 44))
    let v = m.velocity(at: 0)
    #expect(v.isFinite && v < 0)
    let segment = ChannelMotion(
      try MotionSegment(from: 0, to: 1, curve: .bezier(Self.vertical), duration: 0.3, begin: 1), channel: .scaleY)
    #expect(segment.velocity(at: 1).isFinite)
  }

  @Test("Finding 3d: a carryVelocity retarget at the start instant keeps the position (no jump to the target)")
  func carryAtStart() throws {
    var m = try ChannelMotion(Self.recipe(Self.vertical), channel: .translationY, geometry: CellGeometry(width: 320, height: 44))
    let v0 = m.velocity(at: 0)
    try m.retarget(to: 50, at: 0, policy: .carryVelocity(spring: try Spring()))
    #expect(m.value(at: 0) == 100)
    // It leaves with the carried velocity: after 1 ms it has moved about v0 x 1 ms.
    let after = m.value(at: 1e-3)
    #expect(after.isFinite && abs(after - 100) < 2 * abs(v0) * 1e-3 + 1e-9 && after < 100, "\(after)")
    #expect(abs(m.velocity(at: 0) - v0) <= 1e-9 * abs(v0))
    // It still ends at the target.
    #expect(m.value(at: m.endTime) == 50)
  }

  @Test("Finding 4a: MotionSegment refuses a zero duration (it made NaN fold output)")
  func motionSegmentDuration() throws {
    for d in [0, -1, Double.nan, .infinity, 2e-7, 2e5] {
      #expect(throws: CellMotionError.self, "duration \(d)") {
        try MotionSegment(from: 0, to: 1, curve: .bezier(.linear), duration: d, begin: 0)
      }
    }
    let ok = try MotionSegment(from: 0, to: 1, curve: .bezier(.linear), duration: InputLimits.duration.lowerBound, begin: 0)
    #expect(ok.value(at: 1).isFinite)
  }

  @Test("Finding 4b: MotionSegment refuses NaN or out-of-range values, times and velocities")
  func motionSegmentValues() throws {
    let spring = try Spring()
    for (from, to, begin) in [(Double.nan, 1.0, 0.0), (0, .infinity, 0), (0, 1, .nan), (2e10, 0, 0), (0, -2e10, 0), (0, 1, 2e9)] {
      #expect(throws: CellMotionError.self, "\(from) \(to) \(begin)") {
        try MotionSegment(from: from, to: to, curve: .bezier(.linear), duration: 0.3, begin: begin)
      }
      #expect(throws: CellMotionError.self, "\(from) \(to) \(begin)") {
        try MotionSegment(from: from, to: to, velocity: 0, spring: spring, begin: begin)
      }
    }
    for v in [Double.nan, .infinity, -1e300] {
      #expect(throws: CellMotionError.self, "velocity \(v)") {
        try MotionSegment(from: 0, to: 1, velocity: v, spring: spring, begin: 0)
      }
    }
  }

  @Test("Finding 4c: cubic keyframes with values of +-1e308 are refused (they gave NaN values)")
  func cubicHugeValues() {
    #expect(throws: CellMotionError.self) {
      try KeyframeTrack(values: [1e308, -1e308, 1e308], mode: .cubic)
    }
    #expect(throws: CellMotionError.self) {
      try KeyframeTrack(values: [0, InputLimits.channelValue.upperBound * 2], mode: .linear)
    }
    // The largest accepted values evaluate finitely in every mode.
    let big = InputLimits.channelValue.upperBound
    for mode in KeyframeCalculationMode.allCases {
      let track = try? KeyframeTrack(values: [big, -big, big, -big], mode: mode, tension: [-1, -1, -1, -1])
      #expect(track != nil, "\(mode)")
      guard let track else { continue }
      for k in 0...64 {
        let f = Double(k) / 64
        #expect(track.value(at: f).isFinite && track.slope(at: f).isFinite, "\(mode) f \(f)")
      }
      #expect(track.keyTimes.allSatisfy { $0.isFinite })
    }
  }

  @Test("Finding 4d: paced keyframes with values of +-1e308 are refused (they gave NaN key times)")
  func pacedHugeValues() {
    for mode in [KeyframeCalculationMode.paced, .cubicPaced] {
      #expect(throws: CellMotionError.self, "\(mode)") {
        try KeyframeTrack(values: [1e308, -1e308, 1e308], mode: mode)
      }
    }
  }

  @Test("Finding 4e: Kochanek-Bartels parameters outside [-1, 1] are refused by KeyframeTrack")
  func tensionRange() throws {
    for (t, c, b) in [(1e300, 0.0, 0.0), (0, -1.5, 0), (0, 0, 2)] {
      #expect(throws: CellMotionError.self, "\(t) \(c) \(b)") {
        try KeyframeTrack(values: [0, 1, 0], mode: .cubic, tension: [t, 0, 0], continuity: [c, 0, 0], bias: [b, 0, 0])
      }
    }
    _ = try KeyframeTrack(values: [0, 1, 0], mode: .cubic, tension: [-1, 1, 0], continuity: [1, -1, 0], bias: [0, 1, -1])
  }

  @Test("Finding 4f: positive inputs refuse subnormal numbers (a perspective distance of 2.2e-310 gave m34 = -inf)")
  func subnormalPerspective() throws {
    for d in [Double.leastNormalMagnitude / 100, .leastNonzeroMagnitude, Double.leastNormalMagnitude.nextDown] {
      #expect(throws: CellMotionError.self, "\(d)") { try Transform3D.perspective(distance: d) }
    }
    let p = try Transform3D.perspective(distance: 500)
    #expect(p.m34 == -1.0 / 500)
  }
}
