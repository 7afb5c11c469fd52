// The update fuzz target's property (`Tools/CellMotionUpdateFuzz`) and the byte source
// both fuzz targets draw from: sequences of batches (valid and invalid) applied to
// `TableRows` and to a `TableSimulation` agree with `RowsModel` after every batch:
// identifiers, heights, index map both ways, inserted/deleted/moved/reloaded lists; a
// refused batch changes nothing; frames stepped through the simulation stay finite and
// draw each visible row once.

import CellMotion
import CellMotionTableModel
import _TestSupport

/// A random number source read from a fuzz input: 8 bytes per draw while they last, then
/// a SplitMix64 stream seeded by the input's length (so every input is a whole session).
public struct FuzzBytes: RandomNumberGenerator {
  let bytes: [UInt8]
  var position = 0
  var tail: SeededGenerator

  /// The draws `bytes` gives, then its tail stream.
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    tail = SeededGenerator(seed: UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
  }

  /// Whether every byte of the input has been drawn (draws now come from the tail).
  public var exhausted: Bool { position >= bytes.count }

  /// The next 8 bytes, little-endian (zero-padded at the end), then the tail stream.
  public mutating func next() -> UInt64 {
    guard position < bytes.count else { return tail.next() }
    var v: UInt64 = 0
    for k in 0..<8 where position + k < bytes.count { v |= UInt64(bytes[position + k]) << (8 * k) }
    position += 8
    return v
  }

  /// One byte (0 when exhausted): for small choices, so mutations of one byte matter.
  public mutating func byte() -> UInt8 {
    guard position < bytes.count else { return UInt8(truncatingIfNeeded: tail.next()) }
    defer { position += 1 }
    return bytes[position]
  }

  /// A raw Double from 8 bytes (any bit pattern: NaN, infinities, subnormals).
  public mutating func raw() -> Double { Double(bitPattern: next()) }
}

/// Update-batch sequences against the brute-force model.
public enum UpdateFuzz {
  /// Runs the property on one input; traps on a violation. Returns the batches applied.
  @discardableResult
  public static func run(_ bytes: [UInt8]) -> Int {
    var g = FuzzBytes(bytes)
    let n = Int(g.byte() % 48)
    let uniform = g.byte() % 2 == 0
    let heights = (0..<n).map { _ in uniform ? 44 : 1 + Double(g.byte() % 120) }
    var model = RowsModel(heights: heights)
    guard var rows = try? TableRows(layout: TableLayout(rowHeights: heights)) else { fatalError("TableRows") }
    let simulate = g.byte() % 2 == 0
    var sim: TableSimulation? = nil
    var events = FrameEvents()
    if simulate {
      let timing: UpdateTiming = g.byte() % 2 == 0 ? .uiKit : .recyclerView
      sim = try? TableSimulation(
        layout: TableLayout(rowHeights: heights), viewportHeight: 400, scroll: .stationary(at: Double(g.byte()) * 4),
        rule: .always, overscan: Double(g.byte() % 64), updateRecipes: RowAnimationRecipes(timing: timing))
      if sim == nil { fatalError("TableSimulation refused a plain table") }
    }
    var time = 0.0
    var applied = 0
    let batches = 1 + Int(g.byte() % 24)
    for _ in 0..<batches {
      let ops = batch(&g, model)
      let (update, expected) = SoakAction.rowUpdate(ops)
      let rule = model.violation(ops)
      let before = rows
      let result: AppliedUpdate
      do {
        result = try rows.apply(update, expectedRowCount: expected, minimumHeight: InputLimits.length.lowerBound)
      } catch {
        guard rule != nil else { fatalError("a valid batch was refused: \(ops): \(error)") }
        guard rows == before else { fatalError("a refused batch changed the rows: \(ops)") }
        if var s = sim {
          if (try? s.performBatchUpdates(update, at: time, expectedRowCount: expected)) != nil {
            fatalError("the simulation accepted a batch TableRows refused: \(ops)")
          }
          sim = s
        }
        continue
      }
      if let rule { fatalError("a batch breaking a rule (\(rule)) was accepted: \(ops)") }
      applied += 1
      var issued: [Int: Int] = [:]
      for ins in result.inserted { issued[ins.index] = ins.id.rawValue }
      for ins in result.inserted where model.used.contains(ins.id.rawValue) {
        if !ops.contains(where: { if case .insert(_, _, let id?, _) = $0 { return id == ins.id } else { return false } }) {
          fatalError("issued identifier \(ins.id) is in use")
        }
      }
      let old = model.rowCount
      let outcome = model.apply(ops, issued: issued)
      check(rows, model, result, outcome, oldCount: old, ops)
      if var s = sim {
        time += [0, 0.01, 0.05, 0.2, 1][Int(g.byte() % 5)]
        let r: AppliedUpdate
        do {
          r = try s.performBatchUpdates(update, at: time, expectedRowCount: expected)
        } catch {
          fatalError("the simulation refused a batch TableRows accepted: \(ops): \(error)")
        }
        check(s.rows, model, r, outcome, oldCount: old, ops)
        for _ in 0..<Int(g.byte() % 4) {
          time += [1.0 / 60, 0.1, 0.01][Int(g.byte() % 3)]
          do { try s.step(to: time, into: &events) } catch { fatalError("step: \(error)") }
          let range = events.visibleRange
          guard range.lowerBound >= 0, range.upperBound <= model.rowCount || range.isEmpty,
            events.rowPositions.count == range.count, events.rowHeights.count == range.count,
            events.rowPositions.allSatisfy(\.isFinite), events.rowHeights.allSatisfy({ $0.isFinite && $0 >= 0 }),
            events.updateCells.allSatisfy({ $0.y.isFinite && $0.height.isFinite })
          else { fatalError("frame at \(time): visible \(range) of \(model.rowCount) rows, positions \(events.rowPositions)") }
        }
        sim = s
      }
    }
    return applied
  }

  /// A batch drawn from the input: mostly valid-looking entries near the table's rows,
  /// some out of range, named twice or with bad heights.
  static func batch(_ g: inout FuzzBytes, _ model: RowsModel) -> [SoakUpdateOp] {
    let n = model.rowCount
    func index(_ count: Int) -> Int {
      let b = g.byte()
      if b >= 250 { return [-1, count, count + 1, Int.max, Int.min, -2][Int(b - 250)] }
      return count > 0 ? Int(b) % count : 0
    }
    func height() -> Double {
      let b = g.byte()
      if b >= 248 { return [0, -1, .nan, .infinity, 2e6, 1e-4, 1e-3, 1e6][Int(b - 248)] }
      return 0.5 + Double(b)
    }
    func animation() -> RowAnimation { RowAnimation.allCases[Int(g.byte()) % RowAnimation.allCases.count] }
    var ops: [SoakUpdateOp] = []
    let count = Int(g.byte() % 8)
    var inserted = 0, deleted = 0
    for _ in 0..<count {
      switch g.byte() % 6 {
      case 0:
        ops.append(.delete(index(n), animation()))
        deleted += 1
      case 1:
        inserted += 1
        let b = g.byte()
        let id: RowID? =
          b < 200 ? nil : b < 230 ? RowID(1000 + Int(g.byte())) : n > 0 ? RowID(model.ids[Int(g.byte()) % n]) : RowID(-1)
        ops.append(.insert(index(n + 1), height: height(), id: id, animation()))
      case 2: ops.append(.move(index(n), index(n)))
      case 3: ops.append(.reload(index(n), height: g.byte() % 2 == 0 ? nil : height(), animation()))
      case 4: ops.append(.height(index(n), height()))
      default: if g.byte() % 4 == 0 { ops.append(.expect(n - deleted + inserted + Int(g.byte() % 3) - 1)) }
      }
    }
    return ops
  }

  /// The table's rows and what it says the batch did, against the model.
  static func check(
    _ rows: TableRows, _ model: RowsModel, _ r: AppliedUpdate, _ o: RowsModel.Outcome, oldCount: Int, _ ops: [SoakUpdateOp]
  ) {
    guard rows.rowCount == model.rowCount, rows.ids.map(\.rawValue) == model.ids else {
      fatalError("identifiers \(rows.ids.map(\.rawValue)), model \(model.ids) after \(ops)")
    }
    for i in 0..<model.rowCount where (try? rows.layout.rowHeight(i)) != model.heights[i] {
      fatalError("row \(i) height \(String(describing: try? rows.layout.rowHeight(i))), model \(model.heights[i]) after \(ops)")
    }
    for old in 0..<oldCount {
      let n = try? r.map.newIndex(ofOldRow: old)
      guard n == o.newIndex[old] else {
        fatalError("map.newIndex(ofOldRow: \(old)) = \(String(describing: n)), model \(String(describing: o.newIndex[old])) after \(ops)")
      }
      if let m = o.newIndex[old], (try? r.map.oldIndex(ofNewRow: m)) != old {
        fatalError("map.oldIndex(ofNewRow: \(m)) is not \(old) after \(ops)")
      }
    }
    for new in 0..<model.rowCount where !o.newIndex.contains(new) {
      let x: Int?
      do { x = try r.map.oldIndex(ofNewRow: new) } catch { fatalError("map.oldIndex(ofNewRow: \(new)) threw \(error)") }
      if x != nil { fatalError("map.oldIndex(ofNewRow: \(new)) = \(x!), should be nil (inserted) after \(ops)") }
    }
    let table = RowsModel.Effects(r), expected = RowsModel.Effects(o)
    guard table == expected else { fatalError("the batch did \(table), the model \(expected): \(ops)") }
  }
}
