// Draws a session's next action from a seeded generator and what the session shows now
// (its row count, visible rows, identifiers), so most actions land where they are seen:
// toggles and batch updates on and around the visible rows, some anywhere, some invalid.
//
// Mix (per action): frames at 240, 120, 60 and 30 Hz and irregular intervals; frame drops
// of 0.1 to 3 s; pauses of a minute to an hour; flings, constant scrolls and jumps;
// toggles; batch updates (insert, delete, move, reload, height changes, mixed, often
// while earlier batches still slide), invalid batches and toggles (which must be
// refused); refreshes, lane-width changes and refused steps.

import CellMotion
import CellMotionKernel
import CellMotionTable
import _TestSupport

/// The next action of a session.
public struct SoakGenerator {
  var g: SeededGenerator
  /// The actions of the session with `seed`.
  public init(seed: UInt64) { g = SeededGenerator(seed: seed ^ 0xAC71_0000_0000_0004) }

  mutating func chance(_ p: Double) -> Bool { Double(g.next() >> 11) * 0x1p-53 < p }
  mutating func int(_ r: ClosedRange<Int>) -> Int { r.lowerBound + Int(g.next() % UInt64(r.count)) }

  /// Frame intervals: mostly a display's, sometimes irregular, a drop or a long pause.
  mutating func frames() -> SoakAction {
    let r = g.next() % 100
    switch r {
    case 0..<60:
      let rates: [Double] = [60, 120, 240, 30]
      return .frames(count: int(1...90), interval: 1 / rates[Int(g.next() % 4)])
    case 60..<80: return .frames(count: int(1...30), interval: g.uniform(1.0 / 240...0.05))
    case 80..<95: return .frames(count: 1, interval: g.uniform(0.1...3))
    case 95..<99: return .frames(count: 1, interval: g.uniform(60...3600))
    default: return .frames(count: 1, interval: 3600)
    }
  }

  /// A row near the visible rows (or anywhere, or just outside the table).
  mutating func row(_ s: SoakSession, spread: Int = 3) -> Int {
    let n = s.model.rowCount
    let rows = s.animator.frame.rows
    if chance(0.03) { return chance(0.5) ? -1 - int(0...2) : n + int(0...2) }
    if n == 0 { return 0 }
    if chance(0.15) || rows.isEmpty { return int(0...(n - 1)) }
    let lo = max(0, rows.lowerBound - spread), hi = min(n - 1, rows.upperBound - 1 + spread)
    return lo <= hi ? int(lo...hi) : int(0...(n - 1))
  }

  mutating func animation() -> RowAnimation { RowAnimation.allCases[Int(g.next() % UInt64(RowAnimation.allCases.count))] }

  mutating func height(_ s: SoakSession) -> Double {
    if chance(0.02) { return [0, -1, .nan, 2e6, 1e-4][Int(g.next() % 5)] }
    if let h = s.config.uniformHeight, chance(0.5) { return h }
    return g.uniform(0.5...200)
  }

  /// A batch: one to six operations, named near the visible rows; sometimes a rule broken.
  mutating func update(_ s: SoakSession) -> SoakAction {
    var ops: [SoakUpdateOp] = []
    var n = s.model.rowCount
    let count = chance(0.3) ? 1 : int(1...6)
    let old = s.model.rowCount
    var oldNamed: Set<Int> = []
    var inserted = 0, deleted = 0
    for _ in 0..<count {
      switch g.next() % 6 {
      case 0 where old > 0:
        let r = row(s)
        if oldNamed.insert(r).inserted || chance(0.1) {
          ops.append(.delete(r, animation()))
          deleted += 1
        }
      case 1:
        inserted += 1
        let id: RowID? =
          chance(0.1) ? RowID(chance(0.3) && old > 0 ? s.model.ids[int(0...(old - 1))] : (1 << 40) + Int(g.next() % (1 << 20))) : nil
        ops.append(.insert(min(max(0, row(s)), n), height: height(s), id: id, animation()))
        n += 1
      case 2 where old > 0:
        let r = row(s)
        if oldNamed.insert(r).inserted || chance(0.1) { ops.append(.move(r, max(0, row(s, spread: 30)))) }
      case 3 where old > 0:
        let r = row(s)
        if oldNamed.insert(r).inserted || chance(0.1) {
          ops.append(.reload(r, height: chance(0.5) ? height(s) : nil, animation()))
        }
      case 4 where old > 0:
        ops.append(.height(row(s), height(s)))
      default:
        if old > 0 { ops.append(.height(row(s), height(s))) }
      }
    }
    // Move destinations and insertions index the rows after the update: keep most in range.
    let new = old - deleted + inserted
    ops = ops.map { op in
      switch op {
      case .move(let f, let t) where t >= new && !chance(0.1): return .move(f, max(0, new - 1 - int(0...2)))
      case .insert(let i, let h, let id, let a) where i >= new && !chance(0.1): return .insert(max(0, new - 1), height: h, id: id, a)
      default: return op
      }
    }
    if chance(0.1) { ops.append(.expect(chance(0.7) ? new : new + 1)) }
    return .update(ops)
  }

  /// The next action for session `s`.
  public mutating func next(_ s: SoakSession) -> SoakAction {
    let r = g.next() % 100
    let expands = s.config.expansion != nil
    switch r {
    case 0..<45: return frames()
    case 45..<55:
      return .fling(velocity: (chance(0.5) ? 1 : -1) * g.uniform(50...8000), fast: chance(0.3))
    case 55..<59: return .constant(velocity: (chance(0.5) ? 1 : -1) * g.uniform(20...3000))
    case 59..<63: return .jump(fraction: g.uniform(0...1))
    case 63..<80:
      if expands || chance(0.05) { return .toggle(row: row(s)) }
      return update(s)
    case 80..<93:
      if !expands || chance(0.05) { return update(s) }
      return .toggle(row: row(s))
    case 93..<96: return .reload
    case 96..<98: return .lanes(chance(0.5) ? .simd4 : .simd8)
    default: return .badStep
    }
  }
}
