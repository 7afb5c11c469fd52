// The brute-force model of a table's rows under batch updates: plain arrays of
// identifiers and heights, changed by UIKit's documented index conventions one row at a
// time, and the validity rules of `RowUpdate` checked by direct scans.
//
// Goals, in priority order:
// 1. Obviously right rather than fast: no index maps, no prefix-sum tricks in the update
//    itself; every rule is a loop over the batch's entries as the documentation states it
//    (`RowUpdate`: deletions, reloads, move sources and height changes name rows before
//    the update; insertions and move destinations name rows after it).
// 2. Independent of `CellMotionTable`'s internals: only its public value types are used.

import CellMotion
import CellMotionTableModel

/// A table's rows as the model sees them: identifier and collapsed height (points) per row.
public struct RowsModel: Sendable {
  /// Each row's identifier (`RowID.rawValue`), in row order.
  public private(set) var ids: [Int]
  /// Each row's collapsed height, points.
  public private(set) var heights: [Double]
  /// Every identifier in `ids`.
  public private(set) var used: Set<Int>
  /// Row tops in content points, `rowCount + 1` entries (prefix sums of `heights`).
  public private(set) var tops: [Double]

  /// Rows `0..<count` with identifiers equal to their index (a fresh table's).
  public init(heights: [Double]) {
    self.heights = heights
    ids = Array(0..<heights.count)
    used = Set(ids)
    tops = []
    recomputeTops()
  }

  /// The number of rows.
  public var rowCount: Int { ids.count }

  mutating func recomputeTops() {
    tops.removeAll(keepingCapacity: true)
    tops.reserveCapacity(heights.count + 1)
    var s = 0.0
    tops.append(0)
    for h in heights {
      s += h
      tops.append(s)
    }
  }

  /// What a valid batch does, row by row.
  public struct Outcome: Sendable {
    /// For each row before the update: its index after it, or nil (deleted).
    public var newIndex: [Int?]
    /// Inserted rows' indexes after the update, increasing, with the identifier given (nil:
    /// the table issues one).
    public var inserted: [(index: Int, id: Int?)]
    /// Deleted rows' identifiers and old indexes.
    public var deleted: [(index: Int, id: Int)]
    /// Moved rows: old index, new index, identifier.
    public var moved: [(from: Int, to: Int, id: Int)]
    /// Reloaded rows: old index, new index, identifier.
    public var reloaded: [(from: Int, to: Int, id: Int)]
    /// The largest distance (points) any row's top moves, plus the height it gains or loses:
    /// a bound on a slide.
    public var displacement: Double
  }

  /// What a batch did as plain integers, each list sorted by its first field (an index): the
  /// table's account (`AppliedUpdate`) and the model's (`Outcome`) compare entry by entry.
  public struct Effects: Equatable, Sendable, CustomStringConvertible {
    /// Inserted rows' new indexes.
    public var inserted: [Int]
    /// [old index, identifier].
    public var deleted: [[Int]]
    /// [old index, new index, identifier].
    public var moved: [[Int]]
    /// [old index, new index, identifier].
    public var reloaded: [[Int]]

    static func sorted(_ rows: [[Int]]) -> [[Int]] { rows.sorted { (a: [Int], b: [Int]) -> Bool in a[0] < b[0] } }

    /// The model's account.
    public init(_ o: Outcome) {
      inserted = o.inserted.map { (r: (index: Int, id: Int?)) -> Int in r.index }
      deleted = Self.sorted(o.deleted.map { (r: (index: Int, id: Int)) -> [Int] in [r.index, r.id] })
      moved = Self.sorted(o.moved.map { (r: (from: Int, to: Int, id: Int)) -> [Int] in [r.from, r.to, r.id] })
      reloaded = Self.sorted(o.reloaded.map { (r: (from: Int, to: Int, id: Int)) -> [Int] in [r.from, r.to, r.id] })
    }

    /// The table's account.
    public init(_ a: AppliedUpdate) {
      inserted = a.inserted.map { $0.index }
      var deleted: [[Int]] = []
      for r in a.deleted { deleted.append([r.index, r.id.rawValue]) }
      var moved: [[Int]] = []
      for r in a.moved { moved.append([r.from, r.to, r.id.rawValue]) }
      var reloaded: [[Int]] = []
      for r in a.reloaded { reloaded.append([r.oldIndex, r.newIndex, r.id.rawValue]) }
      (self.deleted, self.moved, self.reloaded) = (Self.sorted(deleted), Self.sorted(moved), Self.sorted(reloaded))
    }

    public var description: String {
      "inserted \(inserted), deleted \(deleted), moved \(moved), reloaded \(reloaded)"
    }
  }

  /// The rule a batch breaks, in words, or nil when the table must accept it.
  public func violation(_ ops: [SoakUpdateOp]) -> String? {
    let old = rowCount
    var deletions = 0, insertions = 0
    var expected: Int? = nil
    for op in ops {
      switch op {
      case .delete: deletions += 1
      case .insert: insertions += 1
      case .expect(let n): expected = n
      default: break
      }
    }
    let new = old - deletions + insertions
    func height(_ h: Double) -> Bool { h.isFinite && h >= InputLimits.length.lowerBound && h <= InputLimits.length.upperBound }
    // Rows before the update: each named at most once by a deletion, a reload or a move.
    var oldNamed: [Int: Int] = [:]
    var heightOf: [Int: Int] = [:]
    var deleted: Set<Int> = []
    for op in ops {
      switch op {
      case .delete(let i, _), .reload(let i, _, _), .move(let i, _), .height(let i, _):
        guard i >= 0 && i < old else { return "row \(i) out of range before the update (\(old) rows)" }
      default: break
      }
      switch op {
      case .delete(let i, _):
        oldNamed[i, default: 0] += 1
        deleted.insert(i)
      case .reload(let i, let h, _):
        oldNamed[i, default: 0] += 1
        if let h {
          guard height(h) else { return "reload height \(h)" }
          heightOf[i, default: 0] += 1
        }
      case .move(let i, _): oldNamed[i, default: 0] += 1
      case .height(let i, let h):
        guard height(h) else { return "height \(h)" }
        heightOf[i, default: 0] += 1
      default: break
      }
    }
    if let (i, _) = oldNamed.first(where: { $0.value > 1 }) { return "row \(i) named twice before the update" }
    if let expected, expected != new { return "expected \(expected) rows, the batch leaves \(new)" }
    if new > TableLayout.maxRowCount { return "too many rows" }
    var newNamed: Set<Int> = []
    var givenIDs: Set<Int> = []
    for op in ops {
      switch op {
      case .insert(let i, let h, let id, _):
        guard i >= 0 && i < new else { return "insertion at \(i) out of range after the update (\(new) rows)" }
        guard height(h) else { return "insertion height \(h)" }
        guard newNamed.insert(i).inserted else { return "row \(i) named twice after the update" }
        if let id {
          guard RowIdentifiers.valueRange.contains(id.rawValue) else { return "identifier \(id) out of range" }
          guard givenIDs.insert(id.rawValue).inserted else { return "identifier \(id) given twice" }
          guard !used.contains(id.rawValue) else { return "identifier \(id) in use" }
        }
      case .move(_, let t):
        guard t >= 0 && t < new else { return "move to \(t) out of range after the update (\(new) rows)" }
        guard newNamed.insert(t).inserted else { return "row \(t) named twice after the update" }
      default: break
      }
    }
    for (i, n) in heightOf {
      if deleted.contains(i) { return "height for deleted row \(i)" }
      if n > 1 { return "two heights for row \(i)" }
    }
    return nil
  }

  /// Applies a batch that `violation` accepts, taking the identifiers the table issued for
  /// insertions without one from `issued` (new index -> identifier).
  ///
  /// - Returns: what the batch did.
  public mutating func apply(_ ops: [SoakUpdateOp], issued: [Int: Int]) -> Outcome {
    let old = rowCount
    var removed = [Bool](repeating: false, count: old)
    var fixed: [Int: (id: Int, height: Double, from: Int?)] = [:]
    var outcome = Outcome(newIndex: [], inserted: [], deleted: [], moved: [], reloaded: [], displacement: 0)
    var insertions = 0, deletions = 0
    for op in ops {
      switch op {
      case .delete(let i, _):
        removed[i] = true
        deletions += 1
        outcome.deleted.append((i, ids[i]))
        outcome.displacement += heights[i]
      case .move(let f, let t):
        removed[f] = true
        fixed[t] = (ids[f], heights[f], f)
      case .insert(let i, let h, let id, _):
        insertions += 1
        fixed[i] = (id?.rawValue ?? issued[i] ?? -1, h, nil)
        outcome.inserted.append((i, id?.rawValue))
        outcome.displacement += h
      default: break
      }
    }
    let new = old - deletions + insertions
    var newIDs = [Int](repeating: 0, count: new)
    var newHeights = [Double](repeating: 0, count: new)
    outcome.newIndex = [Int?](repeating: nil, count: old)
    var o = 0
    for n in 0..<new {
      if let f = fixed[n] {
        newIDs[n] = f.id
        newHeights[n] = f.height
        if let from = f.from { outcome.newIndex[from] = n }
        continue
      }
      while removed[o] { o += 1 }
      newIDs[n] = ids[o]
      newHeights[n] = heights[o]
      outcome.newIndex[o] = n
      o += 1
    }
    for op in ops {
      switch op {
      case .height(let i, let h):
        let n = outcome.newIndex[i]!
        outcome.displacement += abs(h - newHeights[n])
        newHeights[n] = h
      case .reload(let i, let h, _):
        let n = outcome.newIndex[i]!
        outcome.reloaded.append((i, n, ids[i]))
        if let h {
          outcome.displacement += abs(h - newHeights[n])
          newHeights[n] = h
        }
      case .move(let f, let t):
        outcome.moved.append((f, t, ids[f]))
      default: break
      }
    }
    let before = tops
    for d in outcome.deleted { used.remove(d.id) }
    ids = newIDs
    heights = newHeights
    for (n, _) in fixed where !used.contains(ids[n]) { used.insert(ids[n]) }
    recomputeTops()
    for m in outcome.moved {
      outcome.displacement += abs(before[m.from] - tops[m.to]) + heights[m.to]
    }
    outcome.inserted.sort { $0.index < $1.index }
    return outcome
  }
}
