import CellMotion
import CellMotionTable
import Testing
import _TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Scrolling")
struct ScrollTrajectoryTests {
  @Test("keyframes interpolate linearly and hold outside")
  func keyframes() throws {
    let s = try ScrollTrajectory.keyframes([(0, 0), (1, 1000), (2, 0), (3, -40)])
    var e = ErrorTracker("keyframe offset (points)", tolerance: 1e-9)
    e.record(s.offset(at: -1), 0)
    e.record(s.offset(at: 0.25), 250)
    e.record(s.offset(at: 1), 1000)
    e.record(s.offset(at: 1.5), 500)
    e.record(s.offset(at: 2.5), -20)
    e.record(s.offset(at: 99), -40)
    e.record(s.velocity(at: 0.5), 1000)
    e.record(s.velocity(at: 1.5), -1000)
    e.record(s.velocity(at: 3), 0)
    #expect(e.passed, "\(e)")
    #expect(s.endTime == 3)
    #expect(try ScrollTrajectory.stationary(at: 12).offset(at: 5) == 12)
  }

  @Test(
    "fling closed form agrees with stepping the per-millisecond factor",
    arguments: [
      DecelerationRate.normal, .fast,
    ])
  func flingMatchesPerMillisecondSteps(rate: DecelerationRate) throws {
    let r = rate.perMillisecond
    let v0 = 4000.0
    let o0 = 120.0
    let fling = try ScrollTrajectory.fling(
      from: o0, velocity: v0, rate: rate, startTime: 0.5, limits: -1e9...1e9, stopSpeed: 1e-3)
    let travel = v0 / (1000 * -log(r))  // total distance to the asymptote
    // 1. Velocity: exactly v0 r^n after n milliseconds (repeated multiplication).
    var velocity = ErrorTracker("velocity at ms ticks / v0", tolerance: 1e-12)
    // 2. Offset stepped with the exact within-millisecond integral of the decaying velocity:
    //    the closed form composed 1000 times per second (only rounding differs).
    var exactStep = ErrorTracker("offset, exact per-ms steps / travel", tolerance: 1e-12)
    // 3. Trapezoid steps: relative error (1 + r)/2 * (-ln r)/(1 - r) - 1 (3.3e-7 at .normal,
    //    8.4e-6 at .fast).
    var trapezoid = ErrorTracker("offset, trapezoid per-ms steps / travel", tolerance: 1e-5)
    // 4. Forward Euler (offset += v * 1 ms, then v *= r): short by (-ln r)/(1 - r) - 1
    //    of the travel so far: 0.1 % at .normal, 0.5 % at .fast.
    let eulerBound = -log(r) / (1 - r) - 1
    var euler = ErrorTracker("offset, Euler per-ms steps / travel", tolerance: eulerBound * 1.0001)
    var v = v0
    var oExact = o0
    var oTrap = o0
    var oEuler = o0
    let perMsIntegral = (r - 1) / (1000 * log(r))  // seconds: integral of r^(1000 s) over 1 ms
    // Up to 5 s or the stop (|v| < 1e-3 points/s: 1.5 s at .fast), whichever comes first.
    for n in 1...5000 where 0.5 + Double(n) / 1000 < fling.endTime {
      oExact += v * perMsIntegral
      oTrap += 0.0005 * (v + v * r)
      oEuler += 0.001 * v
      v *= r
      let t = 0.5 + Double(n) / 1000
      velocity.record(fling.velocity(at: t) / v0, v / v0, "n=\(n)")
      let closed = fling.offset(at: t)
      exactStep.record(closed / travel, oExact / travel, "n=\(n)")
      trapezoid.record(closed / travel, oTrap / travel, "n=\(n)")
      euler.record(closed / travel, oEuler / travel, "n=\(n)")
    }
    for e in [velocity, exactStep, trapezoid, euler] { #expect(e.passed, "\(e)") }
    // The closed form itself: o0 + v0 (r^(1000 t) - 1) / (1000 ln r).
    let t = 0.75
    let direct = o0 + v0 * (pow(r, 1000 * t) - 1) / (1000 * log(r))
    #expect(abs(fling.offset(at: 0.5 + t) - direct) <= 1e-9 * travel)
    #expect(fling.offset(at: 0.4) == o0, "before the release the offset holds")
  }

  @Test("fling stops at the stop speed and never leaves its limits")
  func flingStopsAndClamps() throws {
    // Free fling: stops when |v| falls to 0.5 points/s.
    let free = try ScrollTrajectory.fling(from: 0, velocity: 3000, limits: 0...1e7)
    let k = DecelerationRate.normal.decayPerSecond
    let stop = log(0.5 / 3000) / k
    #expect(abs(free.endTime - stop) <= 1e-12 * stop)
    #expect(abs(free.velocity(at: free.endTime.nextDown) - 0.5) <= 1e-9)
    #expect(free.velocity(at: free.endTime) == 0)
    #expect(free.offset(at: free.endTime + 10) == free.offset(at: free.endTime))
    // Remaining travel skipped: 0.5 / (1000 ln(1/r)) points.
    let asymptote = 3000 / -k
    #expect(abs(asymptote - free.offset(at: 1e6) - 0.5 / -k) <= 1e-9)

    // Downwards into the bottom limit: content 5000, viewport 600 -> limits 0...4400.
    let layout = try TableLayout(rowCount: 50, rowHeight: 100)
    let limits = try layout.scrollRange(viewportHeight: 600)
    #expect(limits == 0...4400)
    let fling = try ScrollTrajectory.fling(from: 3000, velocity: 8000, limits: limits)
    // Hit time by bisection on the unclamped closed form.
    var lo = 0.0
    var hi = 5.0
    for _ in 0..<200 {
      let mid = (lo + hi) / 2
      if 3000 + 8000 * expm1(k * mid) / k < 4400 { lo = mid } else { hi = mid }
    }
    #expect(abs(fling.endTime - lo) <= 1e-9)
    var previous = 3000.0
    for n in 0...600 {
      let t = Double(n) / 120
      let o = fling.offset(at: t)
      #expect(o >= previous && o <= 4400, "t=\(t) offset \(o)")
      previous = o
    }
    #expect(fling.offset(at: 10) == 4400)
    #expect(fling.velocity(at: fling.endTime + 0.01) == 0)

    // Upwards into the top limit, starting outside the limits (clamped first).
    let up = try ScrollTrajectory.fling(from: 5000, velocity: -20000, limits: limits)
    #expect(up.offset(at: 0) == 4400)
    #expect(up.offset(at: 60) == 0)
    // At .fast the same release travels only 20000 x 0.0995 s = 1990 points.
    let fast = try ScrollTrajectory.fling(from: 4400, velocity: -20000, rate: .fast, limits: limits)
    #expect(abs(fast.offset(at: 60) - (4400 - 20000 / -DecelerationRate.fast.decayPerSecond)) < 0.1)
    // Moving away from a limit it sits on, then too slow to reach the other one.
    let slow = try ScrollTrajectory.fling(from: 0, velocity: 100, limits: limits)
    #expect(slow.offset(at: 100) < 100 * 0.4996 && slow.offset(at: 100) > 49)
    // Zero velocity: stationary.
    let still = try ScrollTrajectory.fling(from: 10, velocity: 0, limits: limits)
    #expect(still.offset(at: 3) == 10 && still.endTime == 0)
  }

  @Test("constant velocity, clamped")
  func constantVelocity() throws {
    let s = try ScrollTrajectory.constantVelocity(
      from: 100, velocity: -50, startTime: 1, limits: 0...1000)
    #expect(s.offset(at: 0) == 100)
    #expect(s.offset(at: 2) == 50)
    #expect(s.offset(at: 100) == 0)
    #expect(s.endTime == 3)
    let open = try ScrollTrajectory.constantVelocity(from: 0, velocity: 10)
    #expect(open.endTime == .infinity && open.offset(at: 1e6) == 1e7)
  }

  @Test("frame clock: t_n = n / rate without drift")
  func frameClock() throws {
    #expect(FrameClock.hz60.time(ofFrame: 60) == 1)
    #expect(FrameClock.hz120.time(ofFrame: 1_000_000) == 1_000_000 / 120.0)
    #expect(try FrameClock(rate: 90).frameInterval == 1 / 90.0)
    #expect(try FrameClock.hz60.frameCount(through: 2) == 121)
    #expect(try FrameClock.hz120.frameCount(through: 0) == 1)
    #expect(throws: CellMotionError.outOfRange(field: "rate", value: 0, expected: "> 0")) {
      try FrameClock(rate: 0)
    }
    #expect(throws: CellMotionError.self) { try FrameClock(rate: -60) }
    #expect(throws: CellMotionError.self) { try FrameClock(rate: .nan) }
    #expect(throws: CellMotionError.self) { try FrameClock.hz60.frameCount(through: -1) }
  }

  @Test("invalid scroll input throws typed errors")
  func validation() throws {
    #expect(throws: CellMotionError.self) { try ScrollTrajectory.keyframes([]) }
    #expect(throws: CellMotionError.notFinite(field: "keyframes[1].offset", value: .infinity)) {
      try ScrollTrajectory.keyframes([(0, 0), (1, .infinity)])
    }
    #expect(throws: CellMotionError.self) { try ScrollTrajectory.keyframes([(0, 0), (0, 5)]) }
    #expect(throws: CellMotionError.self) { try ScrollTrajectory.keyframes([(1, 0), (.nan, 5)]) }
    #expect(throws: CellMotionError.self) {
      try ScrollTrajectory.fling(from: .nan, velocity: 10, limits: 0...100)
    }
    #expect(throws: CellMotionError.self) {
      try ScrollTrajectory.fling(from: 0, velocity: .nan, limits: 0...100)
    }
    #expect(throws: CellMotionError.self) {
      try ScrollTrajectory.fling(from: 0, velocity: 10, limits: 0...Double.infinity)
    }
    #expect(throws: CellMotionError.self) {
      try ScrollTrajectory.fling(from: 0, velocity: 10, limits: 0...100, stopSpeed: 0)
    }
    #expect(throws: CellMotionError.self) {
      try ScrollTrajectory.constantVelocity(from: 0, velocity: .infinity)
    }
    #expect(throws: CellMotionError.self) { try ScrollTrajectory.stationary(at: .nan) }
    #expect(throws: CellMotionError.self) { try DecelerationRate(perMillisecond: 1) }
    #expect(throws: CellMotionError.self) { try DecelerationRate(perMillisecond: 0) }
    #expect(throws: CellMotionError.self) { try DecelerationRate(perMillisecond: .nan) }
  }
}
