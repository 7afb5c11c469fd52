// Spring closed forms against an independent RK4 integration of the ODE, written here,
// plus physical properties (energy, no overshoot), the UIKit and SwiftUI mappings and
// CASpringAnimation's settling duration.

import CellMotion
import Testing
import _TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Classic fourth-order Runge-Kutta on m x'' + c x' + k (x - 1) = 0, state (x, v).
/// Returns samples at every `every`-th step. Global error O(h^4).
private func rk4(
  m: Double, k: Double, c: Double, v0: Double, h: Double, steps: Int, every: Int
) -> [(t: Double, x: Double, v: Double)] {
  func accel(_ x: Double, _ v: Double) -> Double { -(c * v + k * (x - 1)) / m }
  var x = 0.0
  var v = v0
  var out: [(Double, Double, Double)] = [(0, x, v)]
  for n in 1...steps {
    let k1x = v, k1v = accel(x, v)
    let k2x = v + 0.5 * h * k1v, k2v = accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v)
    let k3x = v + 0.5 * h * k2v, k3v = accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v)
    let k4x = v + h * k3v, k4v = accel(x + h * k3x, v + h * k3v)
    x += h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
    v += h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    if n % every == 0 { out.append((Double(n) * h, x, v)) }
  }
  return out
}

/// A spring with unit mass, natural frequency w0 and damping ratio zeta.
private func spring(w0: Double, zeta: Double, v0: Double = 0, mass: Double = 1) -> Spring {
  try! Spring(mass: mass, stiffness: w0 * w0 * mass, damping: 2 * zeta * w0 * mass, initialVelocity: v0)
}

@Suite("Spring")
struct SpringTests {
  /// Every regime, including zeta = 1 +- 1e-7 and 1 +- 1e-4, against RK4 (h = 1e-4 s,
  /// (w0 h)^4 <= 1e-10 so the integrator is good to ~1e-9) to 1e-6 in progress and velocity.
  @Test(
    "closed form matches RK4 in every regime",
    arguments: [0, 0.1, 0.5, 0.9, 1 - 1e-4, 1 - 1e-7, 1, 1 + 1e-7, 1 + 1e-4, 1.5, 3, 10] as [Double])
  func regimesAgainstRK4(zeta: Double) {
    var tx = ErrorTracker("x, zeta \(zeta)", tolerance: 1e-6)
    var tv = ErrorTracker("v / w0, zeta \(zeta)", tolerance: 1e-6)
    for (w0, v0) in [(10.0, 0.0), (6.0, 3.0), (20.0, -5.0)] {
      let s = spring(w0: w0, zeta: zeta, v0: v0, mass: 2)
      for p in rk4(m: 2, k: s.stiffness, c: s.damping, v0: v0, h: 1e-4, steps: 30_000, every: 100) {
        tx.record(s.value(at: p.t), p.x, "w0 \(w0) v0 \(v0) t \(p.t)")
        tv.record(s.velocity(at: p.t) / w0, p.v / w0, "w0 \(w0) v0 \(v0) t \(p.t)")
      }
    }
    print(tx)
    print(tv)
    #expect(tx.passed, "\(tx)")
    #expect(tv.passed, "\(tv)")
  }

  @Test("random springs match RK4")
  func randomAgainstRK4() {
    var rng = SeededGenerator(seed: 0x5_1216)
    var tracker = ErrorTracker("x random springs", tolerance: 1e-6)
    for _ in 0..<24 {
      let m = rng.uniform(0.2...5)
      let w0 = rng.uniform(1...40)
      let zeta = rng.uniform(0...2.5)
      let v0 = rng.uniform(-10...10)
      let s = spring(w0: w0, zeta: zeta, v0: v0, mass: m)
      for p in rk4(m: m, k: s.stiffness, c: s.damping, v0: v0, h: 1e-4, steps: 20_000, every: 50) {
        tracker.record(s.value(at: p.t), p.x, "m \(m) w0 \(w0) zeta \(zeta) v0 \(v0) t \(p.t)")
      }
    }
    print("seed \(rng.seed): \(tracker)")
    #expect(tracker.passed, "seed \(rng.seed): \(tracker)")
  }

  /// Across the edge of the critical band the formula switches; x must stay continuous.
  @Test("continuity across the critical band and stability near zeta = 1")
  func nearCritical() {
    var worst = 0.0
    for v0 in [-4.0, 0, 2, 15] {
      let critical = spring(w0: 12, zeta: 1, v0: v0)
      for delta in [-1.1e-9, -0.9e-9, 0.9e-9, 1.1e-9, -1e-7, 1e-7, -1e-12, 1e-12] {
        let near = spring(w0: 12, zeta: 1 + delta, v0: v0)
        for i in 1...400 {
          let t = Double(i) * 0.005
          // |dx/dzeta| is O(1), so the difference must be O(|delta|).
          let d = (near.value(at: t) - critical.value(at: t)).magnitude
          worst = worstOf(worst, d / max(delta.magnitude, 1e-15))
        }
      }
    }
    print("near critical: max |x(zeta) - x(1)| / |zeta - 1| = \(worst)")
    #expect(worst < 3, "no catastrophic cancellation: sensitivity stays O(1)")
    #expect(spring(w0: 12, zeta: 1 + 0.5e-9).regime == .critical)
    #expect(spring(w0: 12, zeta: 1 + 2e-9).regime == .overdamped)
    #expect(spring(w0: 12, zeta: 1 - 2e-9).regime == .underdamped)
    // Large zeta: no 0 * infinity from e^(-alpha t) cosh(gamma t).
    let heavy = spring(w0: 10, zeta: 500)
    for t in [0.5, 10.0, 100.0, 1e4] {
      #expect(heavy.value(at: t).isFinite && heavy.velocity(at: t).isFinite, "t \(t)")
    }
    // x -> 1 - e^(-t w0 / (2 zeta)) for zeta >> 1 (slow rate w0^2 / (alpha + gamma)).
    let slow = (10.0 * 10) / (5000 + 10 * (500.0 * 500 - 1).squareRoot())
    #expect((heavy.value(at: 10) - (1 - exp(-slow * 10))).magnitude <= 1e-6)
  }

  @Test("critical damping does not overshoot when v0 <= w0")
  func criticalNoOvershoot() {
    for w0 in [2.0, 10, 35] {
      for v0 in [-20, -1, 0, 0.5 * w0, w0] {
        let s = spring(w0: w0, zeta: 1, v0: v0)
        #expect(s.regime == .critical)
        var maxX = -Double.infinity
        for i in 0...20_000 { maxX = worstOf(maxX, s.value(at: Double(i) * 5e-4)) }
        #expect(maxX <= 1 + 1e-15, "w0 \(w0) v0 \(v0): max \(maxX)")
      }
    }
    // (For v0 > w0 the closed form 1 - (1 + (w0 - v0) t) e^(-w0 t) crosses 1 once.)
    #expect(spring(w0: 10, zeta: 1, v0: 30).value(at: 0.5) > 1)
  }

  @Test("energy 0.5 m v^2 + 0.5 k (x - 1)^2 never increases")
  func energy() {
    var rng = SeededGenerator(seed: 42)
    for _ in 0..<30 {
      let m = rng.uniform(0.5...3)
      let s = spring(w0: rng.uniform(2...30), zeta: rng.uniform(0...3), v0: rng.uniform(-8...8), mass: m)
      func e(_ t: Double) -> Double {
        let v = s.velocity(at: t)
        let d = s.value(at: t) - 1
        return 0.5 * s.mass * v * v + 0.5 * s.stiffness * d * d
      }
      var previous = e(0)
      let e0 = previous
      for i in 1...3000 {
        let now = e(Double(i) * 1e-3)
        #expect(now <= previous + 1e-12 * e0, "seed \(rng.seed) \(s) t \(Double(i) * 1e-3)")
        previous = now
      }
    }
    // Zero damping conserves it.
    let free = spring(w0: 7, zeta: 0, v0: 2)
    #expect(free.regime == .underdamped)
    let e0 = 0.5 * 4 + 0.5 * 49
    for t in [0.3, 1.7, 12.5] {
      let v = free.velocity(at: t)
      let d = free.value(at: t) - 1
      #expect((0.5 * v * v + 0.5 * 49 * d * d - e0).magnitude <= 1e-12 * e0)
    }
  }

  @Test("velocity matches a central difference of value")
  func velocityFiniteDifference() {
    var tracker = ErrorTracker("velocity vs central difference / w0", tolerance: 1e-6)
    for zeta in [0.0, 0.3, 1, 1 + 1e-6, 2.5] {
      for v0 in [0.0, 4, -3] {
        let s = spring(w0: 15, zeta: zeta, v0: v0)
        for i in 1...200 {
          let t = Double(i) * 0.01
          let h = 1e-6
          let fd = (s.value(at: t + h) - s.value(at: t - h)) / (2 * h)
          tracker.record(s.velocity(at: t) / 15, fd / 15, "zeta \(zeta) v0 \(v0) t \(t)")
        }
      }
    }
    print(tracker)
    #expect(tracker.passed, "\(tracker)")
    let s = spring(w0: 15, zeta: 0.3, v0: 4)
    #expect((s.velocity(at: 0) - 4).magnitude <= 0)
    #expect(s.velocity(at: -1).magnitude <= 0 && s.value(at: -1).magnitude <= 0)
    #expect(s.value(at: 0).magnitude <= 1e-16)
  }

  @Test("initial conditions and defaults")
  func initialConditions() throws {
    let d = try Spring()
    #expect(d.mass == 1 && d.stiffness == 100 && d.damping == 10 && d.initialVelocity == 0)
    #expect((d.naturalFrequency - 10).magnitude <= 1e-15)
    #expect((d.dampingRatio - 0.5).magnitude <= 1e-15)
    #expect(d.regime == .underdamped)
    #expect(spring(w0: 3, zeta: 2).regime == .overdamped)
  }

  /// UIKit's mapping satisfies its own defining equation, and the envelope
  /// |(zeta w0 - v0) / wd| e^(-zeta w0 T) of the resulting spring equals 0.001 at T.
  @Test("UIKit mapping reproduces its defining equation")
  func uiKit() throws {
    for (ratio, duration, velocity) in [
      (0.4, 1.0, 0.1), (0.7, 0.5, 0), (0.15, 2, 3), (1, 0.3, 0), (1, 0.8, 2), (0.5, 0.005, 0), (0.9, 20, 0),
    ] {
      let r = try Spring.uiKitParameters(dampingRatio: ratio, duration: duration, initialSpringVelocity: velocity)
      let s = r.spring
      let T = min(max(duration, 0.01), 10)
      #expect((r.duration - T).magnitude <= 0)
      #expect(r.residual.magnitude <= 1e-12, "residual \(r.residual)")
      let w0 = s.naturalFrequency
      let zeta = s.dampingRatio
      #expect((zeta - ratio).magnitude <= 1e-12)
      let envelope: Double
      if ratio < 1 {
        let wd = w0 * (1 - zeta * zeta).squareRoot()
        envelope = ((zeta * w0 - velocity) / wd).magnitude * exp(-zeta * w0 * T)
      } else {
        envelope = (1 - s.value(at: T)).magnitude  // critical: the envelope is 1 - x itself
      }
      #expect((envelope - 0.001).magnitude <= 1e-9, "ratio \(ratio) T \(T): envelope \(envelope)")
      print("uiKit(dampingRatio: \(ratio), duration: \(duration), v: \(velocity)) -> k \(s.stiffness), c \(s.damping), w0 \(w0), residual \(r.residual)")
    }
    // Tutorial recipe 3 (the Recipes article of the CellMotion documentation): damping
    // ratio 0.4, initial velocity 0.1, duration 1.0.
    let bounce = try Spring.uiKit(dampingRatio: 0.4, duration: 1.0, initialSpringVelocity: 0.1)
    #expect(bounce.stiffness.isFinite && bounce.stiffness > 0 && bounce.damping.isFinite && bounce.damping > 0)
    #expect(bounce.mass == 1)
    // Clamping: ratio 3 -> 1. Ratio 0 -> 1.1920929e-7, where (v0 = 0) the envelope
    // |zeta / sqrt(1 - zeta^2)| e^(-zeta w0 T) <= zeta never reaches 0.001: no root, and
    // Newton runs off to negative w0. That is reported rather than guessed.
    #expect(try Spring.uiKit(dampingRatio: 3, duration: 1).regime == .critical)
    #expect(throws: CellMotionError.self) { try Spring.uiKit(dampingRatio: 0, duration: 1) }
    #expect(throws: CellMotionError.self) { try Spring.uiKit(dampingRatio: 0.0005, duration: 1) }
    // Just above the threshold the root exists: w0 = ln(zeta / (eps sqrt(1 - zeta^2))) / (zeta T).
    let low = try Spring.uiKit(dampingRatio: 0.002, duration: 1)
    let zeta = 0.002
    let w0 = log(zeta / (0.001 * (1 - zeta * zeta).squareRoot())) / zeta
    #expect((low.naturalFrequency - w0).magnitude <= 1e-9 * w0, "\(low.naturalFrequency) vs \(w0)")
  }

  @Test("SwiftUI mappings")
  func swiftUI() throws {
    let s = try Spring.swiftUI(response: 0.5, dampingFraction: 0.8)
    #expect((s.stiffness - (2 * Double.pi / 0.5) * (2 * Double.pi / 0.5)).magnitude <= 1e-12)
    #expect((s.damping - 4 * Double.pi * 0.8 / 0.5).magnitude <= 1e-12)
    #expect((s.dampingRatio - 0.8).magnitude <= 1e-14)
    #expect(try Spring.swiftUI(response: 0.5, dampingFraction: 1).regime == .critical)
    let bouncy = try Spring.swiftUI(duration: 0.5, bounce: 0.3)
    #expect((bouncy.dampingRatio - 0.7).magnitude <= 1e-14)
    #expect((bouncy.naturalFrequency - 4 * Double.pi).magnitude <= 1e-12)
    let flat = try Spring.swiftUI(duration: 0.5, bounce: -0.5)
    #expect((flat.dampingRatio - 2).magnitude <= 1e-14)
    #expect(try Spring.swiftUI(duration: 0.5, bounce: 0).regime == .critical)
  }

  @Test("settlingDuration: default value, and |1 - x| < 0.001 afterwards")
  func settling() throws {
    let d = try Spring()
    let expected = log(1000 * (1 + 1 / 3.0.squareRoot())) / 5
    print("settlingDuration default CASpringAnimation (m 1, k 100, c 10): \(d.settlingDuration) (expected \(expected))")
    #expect((d.settlingDuration - expected).magnitude <= 1e-12)
    #expect((d.settlingDuration - 1.4727).magnitude <= 1e-4)
    let cases: [Spring] = [
      d, spring(w0: 10, zeta: 1), spring(w0: 10, zeta: 1, v0: 25), spring(w0: 10, zeta: 2),
      spring(w0: 3, zeta: 1.2, v0: -2), spring(w0: 20, zeta: 0.1, v0: 5),
      try Spring.uiKit(dampingRatio: 0.4, duration: 1, initialSpringVelocity: 0.1),
    ]
    for s in cases {
      let sd = s.settlingDuration
      print("settlingDuration m \(s.mass) k \(s.stiffness) c \(s.damping) v0 \(s.initialVelocity) (\(s.regime)): \(sd)")
      #expect(sd.isFinite && sd >= 0)
      // The motion that the time is about: the spring itself when under-damped, the
      // critically damped spring with the same w0 and v0 otherwise (Core Animation's rule).
      let judged = s.regime == .underdamped ? s : spring(w0: s.naturalFrequency, zeta: 1, v0: s.initialVelocity)
      var worst = 0.0
      for i in 0...3000 { worst = worstOf(worst, (1 - judged.value(at: sd + Double(i) * 1e-3)).magnitude) }
      #expect(worst <= 0.001 + 1e-12, "\(s): max |1 - x| after settling \(worst)")
      if s.regime != .underdamped && sd > 0 {
        // The sampled rule returns the first sample of the final run: one step earlier fails.
        #expect((1 - judged.value(at: sd - 0.1)).magnitude > 0.001, "\(s)")
        #expect((sd / 0.1 - (sd / 0.1).rounded()).magnitude <= 1e-9, "on the 0.1 s grid")
      }
    }
    #expect(spring(w0: 10, zeta: 0).settlingDuration == .infinity)
  }

  /// Core Animation's rule at and above critical damping, against values worked by hand
  /// from the critical remainder r(t) = |1 + (w0 - v0) t| e^(-w0 t) <= 0.001 on the 0.1 s
  /// grid. w0 = 10, v0 = 0: r(0.9) = 10 e^-9 = 1.23e-3, r(1.0) = 11 e^-10 = 4.99e-4 -> 1.0 s.
  /// w0 = 10, v0 = 25 (overshoots: 1 - 15 t crosses zero at 1/15 s, hump at t = 1/6 s):
  /// r(0) = 1 > eps, r(0.1) = 0.5 e^-1 = 0.18, ..., r(0.9) = 12.5 e^-9 = 1.54e-3,
  /// r(1.0) = 14 e^-10 = 6.36e-4 -> 1.0 s. w0 = 2, v0 = 0: (1 + 2t) e^(-2t) samples
  /// r(4.5) = 10 e^-9 = 1.23e-3, r(4.6) = 10.2 e^-9.2 = 1.03e-3,
  /// r(4.7) = 10.4 e^-9.4 = 8.64e-4, the first sample at or below it -> 4.7 s.
  @Test("settlingDuration at and above critical damping follows Core Animation's critical rule")
  func criticalSettling() {
    #expect(spring(w0: 10, zeta: 1).settlingDuration == 1.0)
    #expect(spring(w0: 10, zeta: 1, v0: 25).settlingDuration == 1.0)
    #expect(abs(spring(w0: 2, zeta: 1).settlingDuration - 4.7) < 1e-12)
    // Damping beyond critical does not change the answer (the actual over-damped motion
    // would take ever longer: zeta 2 is still 0.074 away at 1.0 s).
    for zeta in [1.0, 1.5, 2, 10, 100] {
      #expect(spring(w0: 10, zeta: zeta).settlingDuration == 1.0, "zeta \(zeta)")
      #expect(abs(spring(w0: 2, zeta: zeta).settlingDuration - 4.7) < 1e-12, "zeta \(zeta)")
    }
    #expect(abs((1 - spring(w0: 10, zeta: 2).value(at: 1.0)) - 0.0739) < 1e-4)
    // The hump: v0 = 200 (a strong overshoot) with w0 = 10 rises again after crossing
    // zero; the answer is past the hump's last exceedance, on the 0.1 s grid.
    let hump = spring(w0: 10, zeta: 1, v0: 200)
    let sd = hump.settlingDuration
    func r(_ t: Double) -> Double { abs(1 + (10 - 200) * t) * exp(-10 * t) }
    #expect(r(sd) <= 0.001 && r(sd - 0.1) > 0.001)
    for k in 0..<200 { #expect(r(sd + Double(k) * 0.01) <= 0.001) }
    #expect(spring(w0: 10, zeta: 0).settlingDuration == .infinity)
  }

  @Test("invalid parameters are rejected")
  func rejection() {
    func fails(_ body: () throws(CellMotionError) -> Spring) -> CellMotionError? {
      do {
        _ = try body()
        return nil
      } catch { return error }
    }
    let bad: [(String, () throws(CellMotionError) -> Spring)] = [
      ("mass 0", { () throws(CellMotionError) in try Spring(mass: 0) }),
      ("mass -1", { () throws(CellMotionError) in try Spring(mass: -1) }),
      ("stiffness 0", { () throws(CellMotionError) in try Spring(stiffness: 0) }),
      ("stiffness -5", { () throws(CellMotionError) in try Spring(stiffness: -5) }),
      ("damping -0.1", { () throws(CellMotionError) in try Spring(damping: -0.1) }),
      ("mass nan", { () throws(CellMotionError) in try Spring(mass: .nan) }),
      ("stiffness inf", { () throws(CellMotionError) in try Spring(stiffness: .infinity) }),
      ("damping inf", { () throws(CellMotionError) in try Spring(damping: .infinity) }),
      ("velocity nan", { () throws(CellMotionError) in try Spring(initialVelocity: .nan) }),
      ("velocity -inf", { () throws(CellMotionError) in try Spring(initialVelocity: -.infinity) }),
      ("k/m overflow", { () throws(CellMotionError) in try Spring(mass: 1e-300, stiffness: 1e300) }),
      ("uiKit ratio nan", { () throws(CellMotionError) in try Spring.uiKit(dampingRatio: .nan, duration: 1) }),
      ("uiKit duration 0", { () throws(CellMotionError) in try Spring.uiKit(dampingRatio: 0.5, duration: 0) }),
      ("uiKit duration -1", { () throws(CellMotionError) in try Spring.uiKit(dampingRatio: 0.5, duration: -1) }),
      ("uiKit duration inf", { () throws(CellMotionError) in try Spring.uiKit(dampingRatio: 0.5, duration: .infinity) }),
      ("uiKit velocity inf", { () throws(CellMotionError) in
        try Spring.uiKit(dampingRatio: 0.5, duration: 1, initialSpringVelocity: .infinity)
      }),
      ("response 0", { () throws(CellMotionError) in try Spring.swiftUI(response: 0, dampingFraction: 1) }),
      ("response -1", { () throws(CellMotionError) in try Spring.swiftUI(response: -1, dampingFraction: 1) }),
      ("response nan", { () throws(CellMotionError) in try Spring.swiftUI(response: .nan, dampingFraction: 1) }),
      ("dampingFraction -0.1", { () throws(CellMotionError) in try Spring.swiftUI(response: 1, dampingFraction: -0.1) }),
      ("dampingFraction inf", { () throws(CellMotionError) in try Spring.swiftUI(response: 1, dampingFraction: .infinity) }),
      ("swiftUI duration 0", { () throws(CellMotionError) in try Spring.swiftUI(duration: 0, bounce: 0) }),
      ("bounce 1", { () throws(CellMotionError) in try Spring.swiftUI(duration: 1, bounce: 1) }),
      ("bounce -1", { () throws(CellMotionError) in try Spring.swiftUI(duration: 1, bounce: -1) }),
      ("bounce 2", { () throws(CellMotionError) in try Spring.swiftUI(duration: 1, bounce: 2) }),
      ("bounce nan", { () throws(CellMotionError) in try Spring.swiftUI(duration: 1, bounce: .nan) }),
    ]
    for (name, body) in bad {
      #expect(fails(body) != nil, "\(name) must be rejected")
    }
    if case .outOfRange(let f, _, _)? = fails({ () throws(CellMotionError) in try Spring(damping: -1) }) {
      #expect(f == "damping")
    } else {
      Issue.record("damping -1 must be outOfRange")
    }
    if case .notFinite(let f, _)? = fails({ () throws(CellMotionError) in try Spring(mass: .nan) }) {
      #expect(f == "mass")
    } else {
      Issue.record("mass nan must be notFinite")
    }
    // Zero damping is allowed.
    #expect(fails({ () throws(CellMotionError) in try Spring(damping: 0) }) == nil)
  }
}
