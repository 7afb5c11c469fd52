// MediaTiming against hand-computed local times (the "Media timing" formulas of the
// Semantics article in the CellMotion documentation; worked by hand for each case).
// Tolerance 1e-12 s: the inputs are short decimal times, so only a few roundings separate
// the implementation from the exact value.

import CellMotion
import Foundation
import Testing
import _TestSupport

private let tolerance = 1e-12

private func close(_ a: Double?, _ b: Double?) -> Bool {
  switch (a, b) {
  case (nil, nil): return true
  case (let x?, let y?): return (x - y).magnitude <= tolerance
  default: return false
  }
}

@Suite("MediaTiming")
struct MediaTimingTests {
  @Test("fill modes before and after", arguments: FillMode.allCases)
  func fillModes(mode: FillMode) throws {
    let m = try MediaTiming(beginTime: 2, duration: 0.5, fillMode: mode)
    let backwards = mode == .backwards || mode == .both
    let forwards = mode == .forwards || mode == .both
    #expect(close(m.localTime(parentTime: 1.9), backwards ? 0 : nil))
    #expect(close(m.localTime(parentTime: -100), backwards ? 0 : nil))
    #expect(close(m.localTime(parentTime: 2), 0))
    #expect(close(m.localTime(parentTime: 2.2), 0.2))
    #expect(close(m.localTime(parentTime: 2.5), forwards ? 0.5 : nil), "the end is after the active duration")
    #expect(close(m.localTime(parentTime: 9), forwards ? 0.5 : nil))
    #expect(close(m.fraction(parentTime: 2.1), 0.2))
    #expect(m.phase(parentTime: 1.9) == .before)
    #expect(m.phase(parentTime: 2.25) == .active)
    #expect(m.phase(parentTime: 2.5) == .after)
    #expect((m.endTime - 2.5).magnitude <= tolerance)
  }

  @Test("repeat with autoreverse")
  func repeatAutoreverse() throws {
    // D = 1, 2 iterations, autoreverse: active 4 s; forward, back, forward, back.
    let m = try MediaTiming(duration: 1, repeatCount: 2, autoreverses: true, fillMode: .both)
    #expect((m.activeDuration - 4).magnitude <= 0)
    let expected: [(Double, Double)] = [
      (0, 0), (0.25, 0.25), (0.999, 0.999), (1, 1), (1.25, 0.75), (1.75, 0.25), (2, 0), (2.5, 0.5),
      (3, 1), (3.5, 0.5), (3.9, 0.1), (4, 0), (5, 0),
    ]
    for (t, local) in expected {
      #expect(close(m.localTime(parentTime: t), local), "t \(t): \(String(describing: m.localTime(parentTime: t)))")
    }
    // Fractional repeat count without autoreverse: D 1 x 2.5 ends mid-iteration at 0.5.
    let partial = try MediaTiming(duration: 1, repeatCount: 2.5, fillMode: .forwards)
    #expect(close(partial.localTime(parentTime: 2.25), 0.25))
    #expect(close(partial.localTime(parentTime: 2.5), 0.5))
    #expect(close(partial.localTime(parentTime: 7), 0.5))
    // repeatDuration overrides repeatCount.
    let byDuration = try MediaTiming(duration: 0.4, repeatCount: 10, repeatDuration: 1, fillMode: .forwards)
    #expect((byDuration.activeDuration - 1).magnitude <= 0)
    #expect(close(byDuration.localTime(parentTime: 0.9), 0.1))
    #expect(close(byDuration.localTime(parentTime: 1.2), 0.2), "end state: t_a = 1 -> k = 2, t_l = 0.2")
  }

  @Test("end state at exactly the end of odd and even iteration counts")
  func endStates() throws {
    for count in 1...5 {
      let plain = try MediaTiming(duration: 0.3, repeatCount: Double(count), fillMode: .forwards)
      #expect(close(plain.localTime(parentTime: 0.3 * Double(count)), 0.3), "count \(count): end of last iteration")
      #expect(close(plain.fraction(parentTime: 100), 1))
      let reversing = try MediaTiming(
        duration: 0.3, repeatCount: Double(count), autoreverses: true, fillMode: .forwards)
      // Each iteration ends reversed, back at the start.
      #expect(close(reversing.localTime(parentTime: 0.6 * Double(count)), 0), "count \(count)")
      #expect(close(reversing.fraction(parentTime: 100), 0))
    }
    // Autoreverse with a half repeat: active 2 x 0.3 x 1.5 = 0.9 = 3 half-iterations; the
    // third is forward again, so it ends at the end value.
    let halves = try MediaTiming(duration: 0.3, repeatCount: 1.5, autoreverses: true, fillMode: .forwards)
    #expect(close(halves.localTime(parentTime: 0.9), 0.3))
    // The end state is exact, not "close": a spring part jumps to its end value at its
    // duration, so a hair before D would freeze an unsettled value. For 9% of durations D,
    // (D x 1.5 x 2) / D rounds to 2.9999999999999996 (this D, found by the kernel's random
    // differential test, is one); counted in iterations the end is D exactly, and 0 exactly
    // for a whole count ending reversed.
    for d in [0.3426800130627793, 0.3, 0.1, 1.7] {
      for speed in [1.0, 1.2634581263309852] {
        let t = try MediaTiming(duration: d, speed: speed, repeatCount: 1.5, autoreverses: true, fillMode: .both)
        #expect(t.localTime(parentTime: t.endTime + 1) == d, "D \(d) speed \(speed)")
        let whole = try MediaTiming(duration: d, speed: speed, repeatCount: 3, autoreverses: true, fillMode: .forwards)
        #expect(whole.localTime(parentTime: whole.endTime + 1) == 0, "D \(d) speed \(speed)")
        let forward = try MediaTiming(duration: d, speed: speed, repeatCount: 2.5, fillMode: .forwards)
        #expect(forward.localTime(parentTime: forward.endTime + 1) == d / 2, "D \(d) speed \(speed)")
      }
    }
    // Reversed odd half-iteration via repeatDuration: active 0.6 ends reversed at 0.
    let half = try MediaTiming(duration: 0.3, repeatDuration: 0.6, autoreverses: true, fillMode: .both)
    #expect(close(half.localTime(parentTime: 0.6), 0))
    #expect(close(half.localTime(parentTime: 0.45), 0.15))
    // No fill: nothing at the end.
    let removed = try MediaTiming(duration: 0.3, repeatCount: 2)
    #expect(removed.localTime(parentTime: 0.6) == nil)
    #expect(close(removed.localTime(parentTime: 0.59), 0.29))
  }

  @Test("speed 2 and 0.5")
  func speed() throws {
    let fast = try MediaTiming(beginTime: 1, duration: 1, speed: 2, fillMode: .forwards)
    #expect(close(fast.localTime(parentTime: 1.25), 0.5))
    #expect(close(fast.localTime(parentTime: 1.5), 1))
    #expect((fast.endTime - 1.5).magnitude <= tolerance)
    let slow = try MediaTiming(beginTime: 1, duration: 1, speed: 0.5, fillMode: .forwards)
    #expect(close(slow.localTime(parentTime: 2), 0.5))
    #expect(close(slow.localTime(parentTime: 2.9), 0.95))
    #expect(slow.phase(parentTime: 2.9) == .active)
    #expect((slow.endTime - 3).magnitude <= tolerance)
  }

  @Test("timeOffset starts part-way and wraps around")
  func timeOffset() throws {
    // D 1, offset 0.4: C D E A B (local 0.4 ... 1, then 0 ... 0.4), still 1 s long.
    let m = try MediaTiming(beginTime: 10, duration: 1, timeOffset: 0.4, fillMode: .both)
    #expect(close(m.localTime(parentTime: 10), 0.4))
    #expect(close(m.localTime(parentTime: 10.5), 0.9))
    #expect(close(m.localTime(parentTime: 10.7), 0.1))
    #expect(close(m.localTime(parentTime: 10.99), 0.39))
    #expect(close(m.localTime(parentTime: 11.5), 0.4), "end state: t_a = 1.4")
    #expect(close(m.localTime(parentTime: 9), 0.4), "start state: t_a = timeOffset")
    // An offset of a whole duration ends at the end of the wrapped iteration.
    let whole = try MediaTiming(duration: 1, timeOffset: 1, fillMode: .forwards)
    #expect(close(whole.localTime(parentTime: 0.25), 0.25))
    #expect(close(whole.localTime(parentTime: 1), 1))
  }

  @Test("infinite repeatCount never ends")
  func infinite() throws {
    let m = try MediaTiming(duration: 0.5, repeatCount: .infinity, autoreverses: true)
    #expect(m.activeDuration == .infinity)
    #expect(m.endTime == .infinity)
    // Binary fractions, so the large parent time carries no rounding.
    #expect(close(m.localTime(parentTime: 1e6 + 0.125), 0.125))
    #expect(close(m.localTime(parentTime: 1e6 + 0.625), 0.375), "odd iteration, reversed")
    #expect(m.phase(parentTime: 1e12) == .active)
    #expect(m.localTime(parentTime: .infinity) == nil)
  }

  @Test("UIView-style delay: beginTime = now + delay, fill backwards")
  func delayed() throws {
    let m = try MediaTiming.delayed(start: 100, delay: 0.15, duration: 0.5)
    #expect(m.fillMode == .backwards)
    #expect((m.beginTime - 100.15).magnitude <= tolerance)
    #expect(close(m.fraction(parentTime: 100), 0), "start state held during the delay")
    #expect(close(m.fraction(parentTime: 100.4), 0.5))
    #expect(m.fraction(parentTime: 100.7) == nil, "removed at the end (the model value shows)")
  }

  @Test("validation errors")
  func validation() {
    func error(_ body: () throws(CellMotionError) -> MediaTiming) -> CellMotionError? {
      do {
        _ = try body()
        return nil
      } catch { return error }
    }
    let cases: [(String, String, () throws(CellMotionError) -> MediaTiming)] = [
      ("duration", "range", { () throws(CellMotionError) in try MediaTiming(duration: 0) }),
      ("duration", "range", { () throws(CellMotionError) in try MediaTiming(duration: -1) }),
      ("duration", "finite", { () throws(CellMotionError) in try MediaTiming(duration: .infinity) }),
      ("duration", "finite", { () throws(CellMotionError) in try MediaTiming(duration: .nan) }),
      ("speed", "range", { () throws(CellMotionError) in try MediaTiming(duration: 1, speed: 0) }),
      ("speed", "range", { () throws(CellMotionError) in try MediaTiming(duration: 1, speed: -1) }),
      ("speed", "finite", { () throws(CellMotionError) in try MediaTiming(duration: 1, speed: .infinity) }),
      ("beginTime", "finite", { () throws(CellMotionError) in try MediaTiming(beginTime: .nan, duration: 1) }),
      ("timeOffset", "finite", { () throws(CellMotionError) in try MediaTiming(duration: 1, timeOffset: .infinity) }),
      ("repeatCount", "range", { () throws(CellMotionError) in try MediaTiming(duration: 1, repeatCount: -1) }),
      ("repeatCount", "finite", { () throws(CellMotionError) in try MediaTiming(duration: 1, repeatCount: .nan) }),
      ("repeatDuration", "range", { () throws(CellMotionError) in try MediaTiming(duration: 1, repeatDuration: -0.5) }),
      ("repeatDuration", "finite", { () throws(CellMotionError) in try MediaTiming(duration: 1, repeatDuration: .nan) }),
      ("delay", "range", { () throws(CellMotionError) in try MediaTiming.delayed(start: 0, delay: -0.1, duration: 1) }),
      ("now", "finite", { () throws(CellMotionError) in try MediaTiming.delayed(start: .nan, delay: 0, duration: 1) }),
    ]
    for (field, kind, body) in cases {
      switch error(body) {
      case .outOfRange(let f, _, _)?: #expect(f == field && kind == "range", "\(field)")
      case .notFinite(let f, _)?: #expect(f == field && kind == "finite", "\(field)")
      case let other: Issue.record("\(field): unexpected \(String(describing: other))")
      }
    }
    // Infinity is allowed for the repeat fields.
    #expect(error({ () throws(CellMotionError) in try MediaTiming(duration: 1, repeatDuration: .infinity) }) == nil)
    // Mutation bypasses init; validate() catches it.
    var m = try! MediaTiming(duration: 1)
    m.duration = 0
    #expect(throws: CellMotionError.self) { try m.validate() }
    #expect(m.localTime(parentTime: 0.5) == nil)
  }

  @Test("Codable round trips and validates on decode (all three timing types)")
  func codable() throws {
    let timing = try MediaTiming(
      beginTime: 1.5, duration: 0.3, speed: 2, timeOffset: 0.1, repeatCount: 3, repeatDuration: nil,
      autoreverses: true, fillMode: .both)
    let curve = try TimingCurve(x1: 0.68, y1: -0.55, x2: 0.265, y2: 1.55)
    let spring = try Spring(mass: 2, stiffness: 300, damping: 7, initialVelocity: -1.5)
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    #expect(try decoder.decode(MediaTiming.self, from: encoder.encode(timing)) == timing)
    #expect(try decoder.decode(TimingCurve.self, from: encoder.encode(curve)) == curve)
    #expect(try decoder.decode(Spring.self, from: encoder.encode(spring)) == spring)
    let minimal = try decoder.decode(MediaTiming.self, from: Data(#"{"duration": 0.5}"#.utf8))
    #expect(minimal == (try MediaTiming(duration: 0.5)))
    for bad in [#"{"duration": 0}"#, #"{"duration": 1, "speed": -2}"#, #"{"duration": 1, "fillMode": "sideways"}"#] {
      #expect(throws: DecodingError.self) { try decoder.decode(MediaTiming.self, from: Data(bad.utf8)) }
    }
    #expect(throws: DecodingError.self) {
      try decoder.decode(TimingCurve.self, from: Data(#"{"x1": 1.5, "y1": 0, "x2": 0.5, "y2": 1}"#.utf8))
    }
    #expect(throws: DecodingError.self) {
      try decoder.decode(
        Spring.self, from: Data(#"{"mass": 0, "stiffness": 1, "damping": 1, "initialVelocity": 0}"#.utf8))
    }
  }
}
