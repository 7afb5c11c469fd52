// Expand, collapse mid-way, expand again, with heights that retarget (issue 15): the
// toggled row's height and every row's position continuous in value and, for the
// policies that keep it, in velocity at each toggle (fourth-order one-sided differences on
// each side of the instant), and the closed-form velocities against differences.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionTable
@testable import CellMotionTableModel

@Suite("Expansion: retargeted heights")
struct ExpansionRetargetTests {
  let base: TableLayout
  init() throws { base = try TableLayout(rowHeights: (0..<12).map { 44 + Double($0 % 5) * 9 }) }

  static func policies() throws -> [(String, RetargetPolicy, keepsVelocity: Bool)] {
    [
      ("carry, under-damped", .carryVelocity(spring: try Spring(stiffness: 300, damping: 0.5 * 2 * 300.0.squareRoot())), true),
      ("carry, critical", .carryVelocity(spring: try Spring(stiffness: 250, damping: 2 * 250.0.squareRoot())), true),
      ("carry, over-damped", .carryVelocity(spring: try Spring(stiffness: 250, damping: 1.6 * 2 * 250.0.squareRoot())), true),
      ("additive, ease-in-ease-out", .additive(curve: .bezier(.easeInEaseOut), duration: 0.3), true),
      ("from current state", .fromCurrentState(curve: .bezier(.easeInEaseOut), duration: 0.3), false),
    ]
  }

  /// Fourth-order one-sided slopes of `f` at `x`, left and right (as the reference's
  /// retarget tests).
  static func sides(_ f: (Double) throws -> Double, at x: Double, h: Double = 1e-4) rethrows -> (Double, Double) {
    func slope(_ h: Double) throws -> Double {
      (25 * (try f(x)) - 48 * (try f(x - h)) + 36 * (try f(x - 2 * h)) - 16 * (try f(x - 3 * h))
        + 3 * (try f(x - 4 * h))) / (12 * h)
    }
    return (try slope(h), try slope(-h))
  }

  static func relative(_ a: Double, _ b: Double) -> Double { abs(a - b) / max(1, abs(b)) }

  @Test("expand, collapse mid-way, expand again: heights and every row's position continuous in value and velocity")
  func toggleTwiceMidway() throws {
    var value = ErrorTracker("height and row positions: jump at a toggle (points)", tolerance: 1e-9)
    var velocity = ErrorTracker("height and row positions: velocity after - before (relative)", tolerance: 1e-6)
    var closed = ErrorTracker("heightVelocity vs differences (relative)", tolerance: 1e-6)
    var dropped = 0
    for curve in [AnimationCurve.bezier(.easeInEaseOut), .spring(try Spring(stiffness: 200, damping: 20))] {
      for (name, policy, keeps) in try Self.policies() {
        var state = try ExpansionState(
          rowCount: 12, detailHeights: .uniform(180), heightDuration: 0.35, heightAnimation: curve, retarget: policy)
        try state.toggle(row: 3, at: 0)
        for t in [0.13, 0.22] {
          let before = state
          try state.toggle(row: 3, at: t)
          let after = state
          // The toggled row's height, and the offsets of the rows below it.
          let probes: [(String, (ExpansionState, Double) throws -> Double)] =
            [("height", { s, time in try s.height(row: 3, at: time, in: self.base) })]
            + (4..<12).map { row in ("row \(row)", { s, time in try s.snapshot(of: self.base, at: time).rowOffset(row) }) }
          for (probe, f) in probes {
            let context = "\(curve) \(name) t=\(t) \(probe)"
            value.record(try f(after, t) - f(before, t), 0, context)
            let left = try Self.sides({ try f(before, $0) }, at: t).0
            let right = try Self.sides({ try f(after, $0) }, at: t).1
            if keeps {
              velocity.record(Self.relative(right, left), 0, context)
            } else if abs(left) > 1 {
              // The policy drops it: the new motion starts at rest (ease-in-ease-out).
              #expect(abs(right) < 1e-3 * abs(left), "\(context): \(right) vs \(left)")
              dropped += 1
            }
          }
          let (l, r) = try Self.sides({ try after.height(row: 3, at: $0, in: base) }, at: t + 0.05)
          closed.record(Self.relative(try #require(try after.heightVelocity(row: 3, at: t + 0.05)), (l + r) / 2), 0, "\(name)")
        }
        // It ends expanded, the fold opening after the height has settled.
        let end = try #require(state._motions.first { $0.row == 3 }).endTime
        #expect(abs(try state.height(row: 3, at: end + 1, in: base) - (base.rowHeight(3) + 180)) < 1e-9)
        #expect(state.isSettled(at: end))
      }
    }
    for tracker in [value, velocity, closed] {
      print(tracker)
      #expect(tracker.passed, "\(tracker)")
    }
    #expect(dropped > 0)
  }

  /// The fold retargets too: expand (the height grows over 0.3 s, then the fold opens over
  /// 0.3 s), collapse while the fold opens, expand again while it closes. At each toggle
  /// the fold's openness, the toggled row's height and every row below are continuous in
  /// value (1e-9) and, for the policies that keep it, in velocity (fourth-order one-sided
  /// differences, 1e-6 relative); from the current state starts at rest. It ends open.
  @Test("expand, collapse while the fold opens, expand while it closes: fold, heights and rows continuous")
  func foldToggles() throws {
    var value = ErrorTracker("fold openness, height, rows: jump at a toggle", tolerance: 1e-9)
    var velocity = ErrorTracker("fold openness, height, rows: velocity after - before (relative)", tolerance: 1e-6)
    var closed = ErrorTracker("foldOpennessVelocity vs differences (relative)", tolerance: 1e-6)
    var foldMoving = 0
    for (name, policy, keeps) in try Self.policies() {
      var state = try ExpansionState(
        rowCount: 12, detailHeights: .uniform(180), heightDuration: 0.3, foldDuration: 0.3,
        heightAnimation: .bezier(.easeInEaseOut), retarget: policy, foldAnimation: .bezier(.easeInEaseOut))
      try state.toggle(row: 3, at: 0)
      for t in [0.45, 0.52] {
        // The fold is mid-way (opening at 0.45, closing again at 0.52).
        let before = state
        let openness = try #require(try before.foldOpenness(row: 3, at: t))
        #expect(openness > 0.05 && openness < 0.98, "\(name) t=\(t): \(openness)")
        #expect(try before.foldAnimation(row: 3, at: t)?.motion != nil)
        try state.toggle(row: 3, at: t)
        let after = state
        let probes: [(String, (ExpansionState, Double) throws -> Double)] =
          [
            ("fold", { s, time in try #require(try s.foldOpenness(row: 3, at: time)) }),
            ("height", { s, time in try s.height(row: 3, at: time, in: self.base) }),
          ] + (4..<12).map { row in ("row \(row)", { s, time in try s.snapshot(of: self.base, at: time).rowOffset(row) }) }
        for (probe, f) in probes {
          let context = "\(name) t=\(t) \(probe)"
          value.record(try f(after, t) - f(before, t), 0, context)
          let left = try Self.sides({ try f(before, $0) }, at: t).0
          let right = try Self.sides({ try f(after, $0) }, at: t).1
          if probe == "fold" { foldMoving += abs(left) > 0.1 ? 1 : 0 }
          if keeps {
            velocity.record(Self.relative(right, left), 0, context)
          } else {
            #expect(abs(right) < 1e-3 * max(1, abs(left)), "\(context): \(right) vs \(left)")
          }
        }
        let (l, r) = try Self.sides({ try #require(try after.foldOpenness(row: 3, at: $0)) }, at: t + 0.03)
        closed.record(
          Self.relative(try #require(try after.foldOpennessVelocity(row: 3, at: t + 0.03)), (l + r) / 2), 0, name)
      }
      let plan = try #require(state._motions.first { $0.row == 3 })
      let finalOpenness = try #require(try state.foldOpenness(row: 3, at: plan.endTime))
      #expect(plan.expanded && abs(finalOpenness - 1) < 1e-12)
      #expect(abs(try state.height(row: 3, at: plan.endTime, in: base) - (base.rowHeight(3) + 180)) < 1e-9)
      #expect(state.isSettled(at: plan.endTime) && !state.isSettled(at: 0.55))
    }
    for tracker in [value, velocity, closed] {
      print(tracker)
      #expect(tracker.passed, "\(tracker)")
    }
    // Both toggles hit a moving fold for every policy.
    #expect(foldMoving == 2 * (try Self.policies()).count)
  }

  @Test("without a policy the height reverses as before; a closure curve has no velocity")
  func reversalModes() throws {
    var plain = try ExpansionState(rowCount: 12, detailHeights: .uniform(150))
    try plain.toggle(row: 2, at: 0)
    try plain.toggle(row: 2, at: 0.12)
    #expect(try plain.heightVelocity(row: 2, at: 0.15) == nil)
    var curved = try ExpansionState(rowCount: 12, detailHeights: .uniform(150), heightAnimation: .bezier(.linear))
    try curved.toggle(row: 2, at: 0)
    try curved.toggle(row: 2, at: 0.12)
    // Same fractions as the closure mode: 0.4 -> 0 over 0.3 x 0.4 s.
    for t in [0.12, 0.18, 0.24, 1.0] {
      #expect(abs(try curved.detailFraction(row: 2, at: t) - plain.detailFraction(row: 2, at: t)) < 1e-12)
    }
    #expect(abs(try #require(try curved.heightVelocity(row: 2, at: 0.15)) + 150 / 0.3) < 1e-9)
  }
}
