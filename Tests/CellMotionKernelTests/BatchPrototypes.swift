// Compiled, empty batches kept by recipe list, motion policy and source, so a sweep that
// builds many batches over the same recipes compiles them once.
//
// Compiling a curve picks its solve by measuring candidates against the exact curve on a
// grid (`CompiledCurve.SolveGrid`): at -Onone that was 98% of the many-parts test and most
// of the other sweeps, which built a fresh batch (and compiled its recipes again) for every
// size and time. A copy of a prototype holds the same compiled recipes as a fresh batch
// (`CellBatch` is a value; compiling is deterministic), so results are unchanged.

import CellMotion
import Foundation

@testable import CellMotionKernel

enum BatchPrototypes {
  struct Key: Hashable {
    var recipes: [Recipe]
    var motion: MotionPolicy?
    var source: ProgressSource
  }

  private static let lock = NSLock()
  nonisolated(unsafe) private static var cache: [Key: CellBatch] = [:]

  /// An empty batch as `CellBatch(recipes:capacity:timeOrigin:motion:source:)` makes it,
  /// from a prototype compiled once per key (tests run in parallel: the cache is locked).
  static func batch(
    _ recipes: [Recipe], capacity: Int = 0, timeOrigin: Double = 0, motion: MotionPolicy? = nil,
    source: ProgressSource = .clock
  ) throws -> CellBatch {
    let key = Key(recipes: recipes, motion: motion, source: source)
    lock.lock()
    let cached = cache[key]
    lock.unlock()
    var batch: CellBatch
    if let cached {
      batch = cached
    } else {
      batch = try CellBatch(recipes: recipes, motion: motion, source: source)
      lock.lock()
      cache[key] = batch
      lock.unlock()
    }
    try batch.reserveCapacity(capacity)
    if timeOrigin != 0 { try batch.rebase(to: timeOrigin) }
    return batch
  }
}
