// The properties of the two fuzz targets beside the recipe reader's
// (`Tools/CellMotionKernelFuzz`, `Tools/CellMotionUpdateFuzz`): what one input is put
// through, and the trap that reports a broken property to libFuzzer (or to the plain
// driver's exit status).
//
// - Kernel: fuzzed recipes (every part the format has, drawn from the input's bytes),
//   geometries, start times, retargets and frame times; every cell the kernel evaluates at
//   both lane widths agrees with `ReferenceEvaluator` within the kernel tolerances (2e-5
//   normalised transform entries, 1e-5 opacity), or, where the reference itself moves
//   within the Float clock's 1e-6 s, within the range it spans there. Raw numbers from
//   the input (NaN, infinities, huge values) at the batch's boundary are refused with a
//   typed error, never a trap or a non-finite output.
// - Updates: sequences of batches (valid and invalid) applied to `TableRows` and to a
//   `TableSimulation` agree with `RowsModel` after every batch: identifiers, heights,
//   index map both ways, inserted/deleted/moved/reloaded lists; a refused batch changes
//   nothing; frames stepped through the simulation stay finite and draw each visible row
//   once.

import CellMotion
import CellMotionKernel
import CellMotionTable
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

/// The kernel against the reference on fuzzed recipes and times.
public enum KernelFuzz {
  /// Runs the property on one input; traps on a violation. Returns the cells compared.
  @discardableResult
  public static func run(_ bytes: [UInt8]) -> Int {
    var g = FuzzBytes(bytes)
    // Raw numbers at the boundary first: each must be refused or give finite output.
    boundary(&g)
    let recipeCount = 1 + Int(g.byte() % 3)
    var recipes: [Recipe] = []
    for k in 0..<recipeCount {
      recipes.append(
        g.byte() % 4 == 0
          ? Recipe.presets[Int(g.byte()) % Recipe.presets.count] : SoakRecipes.recipe(&g, name: "fuzz-\(k)", folds: true))
    }
    let policy: MotionPolicy? = [nil, MotionPolicy.full, .reduced, MotionPolicy.none][Int(g.byte() % 4)]
    let origin = [0, 86_400, 3.6e6, -500, 1e8][Int(g.byte() % 5)] + Double(g.byte())
    guard var batch = try? CellBatch(recipes: recipes, capacity: 8, timeOrigin: origin, motion: policy) else { return 0 }
    let count = 1 + Int(g.byte() % 12)
    var cells: [(recipe: Int, row: Int, position: Int, start: Double, geometry: CellGeometry)] = []
    for _ in 0..<count {
      let r = Int(g.byte()) % recipes.count
      let w = g.draw(50...1000)
      let geometry = CellGeometry(
        width: w, height: g.draw(20...600), tableWidth: g.byte() % 2 == 0 ? w : g.draw(50...1000),
        detailHeight: g.draw(20...400))
      let row = Int(g.byte() % 64), position = Int(g.byte() % 16)
      let start = origin + g.draw(-4...4)
      do {
        try batch.append(
          recipe: r, row: row, batchPosition: position, rowCount: 64, batchCount: 16, startTime: start, geometry: geometry)
        cells.append((r, row, position, start, geometry))
      } catch {
        continue  // e.g. an angle beyond the kernel's for this geometry: refused, typed
      }
    }
    // Retargets of some channels (and folds) at a time within the window.
    let retargets = Int(g.byte() % 4)
    var foldRetargeted = Set<Int>()
    for _ in 0..<retargets where !cells.isEmpty {
      let i = Int(g.byte()) % cells.count
      let recipe = recipes[cells[i].recipe]
      let policy: RetargetPolicy
      switch g.byte() % 3 {
      case 0: policy = .additive(curve: SoakRecipes.bezier(&g), duration: g.draw(0.05...0.8))
      case 1:
        guard let s = try? Spring.swiftUI(response: g.draw(0.2...1), dampingFraction: g.draw(0.2...1.2)) else { continue }
        policy = .carryVelocity(spring: s, dropsOpposingVelocity: g.byte() % 2 == 0)
      default: policy = .fromCurrentState(curve: SoakRecipes.curve(&g), duration: g.draw(0.05...0.8))
      }
      let at = origin + g.draw(-2...4)
      if recipe.fold != nil, g.byte() % 3 == 0 {
        if (try? batch.retargetFold(cell: i, to: g.draw(0...1), at: at, policy: policy)) != nil { foldRetargeted.insert(i) }
      } else if let c = recipe.channels.randomElement(using: &g) {
        let target = SoakRecipes.values(c.channel, &g).1.constant
        try? batch.retarget(cell: i, channel: c.channel, to: target, at: at, policy: policy)
      }
    }
    let times = (0..<(1 + Int(g.byte() % 4))).map { _ in origin + g.draw(-3...10) }
    var compared = 0
    for time in times {
      var outputs: [(FrameOutput, LaneWidth)] = []
      for lanes in LaneWidth.allCases {
        guard var out = try? FrameOutput(capacity: batch.count, includeFold: true) else { fatalError("FrameOutput") }
        do {
          try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions(lanes: lanes))
        } catch {
          fatalError("Kernel.evaluate refused a valid batch at \(time) (origin \(origin)): \(error)")
        }
        outputs.append((out, lanes))
      }
      for (i, c) in cells.enumerated() {
        let recipe = recipes[c.recipe]
        let motions = batch.motions(ofCell: i)
        let fold = foldRetargeted.contains(i) ? try? batch.foldMotion(ofCell: i) : nil
        func reference(_ t: Double) -> CellState {
          ReferenceEvaluator.evaluate(
            recipe, geometry: c.geometry, row: c.row, batchPosition: c.position, rowCount: 64, batchCount: 16,
            startTime: c.start, time: t, motion: policy, retargeted: motions, fold: fold)
        }
        let ref = reference(time)
        let window = SoakKernelCheck.window(time, start: c.start).map(reference)
        let scale = max(c.geometry.width, c.geometry.height, c.geometry.tableWidth)
        for (out, lanes) in outputs {
          let k = out.transform(ofCell: i)
          var e = SoakKernelCheck.normalisedError(k, ref.transform, scale: scale)
          if e > SoakKernelCheck.transformTolerance {
            e = min(e, SoakKernelCheck.bracketError(k, window.map(\.transform), scale: scale))
          }
          guard e <= SoakKernelCheck.transformTolerance else {
            fatalError("kernel \(lanes) cell \(i) (\(recipe)) at \(time) start \(c.start): normalised error \(e)")
          }
          let o = Double(out.opacity[i])
          let lo = window.map(\.opacity).min()!, hi = window.map(\.opacity).max()!
          guard o >= lo - SoakKernelCheck.opacityTolerance, o <= hi + SoakKernelCheck.opacityTolerance else {
            fatalError("kernel \(lanes) cell \(i) (\(recipe.name)) at \(time): opacity \(o), reference \(ref.opacity)")
          }
          compared += 1
        }
      }
    }
    return compared
  }

  /// Raw inputs at the batch's boundary: refused with a typed error or finite output.
  static func boundary(_ g: inout FuzzBytes) {
    guard g.byte() % 4 == 0 else { return }
    let recipe = Recipe.presets[Int(g.byte()) % Recipe.presets.count]
    let origin = g.byte() % 2 == 0 ? g.raw() : 0
    guard var batch = try? CellBatch(recipes: [recipe], capacity: 2, timeOrigin: origin) else { return }
    let geometry = CellGeometry(
      width: g.byte() % 2 == 0 ? g.raw() : 375, height: g.byte() % 2 == 0 ? g.raw() : 80,
      tableWidth: g.byte() % 2 == 0 ? g.raw() : 375, detailHeight: g.byte() % 2 == 0 ? g.raw() : 160)
    let row = g.byte() % 2 == 0 ? Int(truncatingIfNeeded: g.next()) : 3
    let start = g.byte() % 2 == 0 ? g.raw() : origin
    do {
      try batch.append(recipe: 0, row: row, batchPosition: 0, rowCount: 64, batchCount: 1, startTime: start, geometry: geometry)
    } catch {
      _ = error.description
    }
    let time = g.byte() % 2 == 0 ? g.raw() : origin
    guard var out = try? FrameOutput(capacity: 2, includeFold: true) else { return }
    do {
      try Kernel.evaluate(batch, at: time, into: &out, options: KernelOptions())
    } catch {
      return
    }
    for i in 0..<batch.count {
      let t = out.transform(ofCell: i)
      for k in 0..<16 where !t[k / 4, k % 4].isFinite {
        fatalError("non-finite output from accepted inputs: origin \(origin), start \(start), time \(time), \(geometry)")
      }
      if !out.opacity[i].isFinite { fatalError("non-finite opacity") }
    }
  }
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
