// CellColumns: a batch's per-cell columns, declared once. Adding a column means adding
// it to `Cell`, to the stored properties, to `visit` and to `compact(keeping:from:)` (written out per
// column so each is specialised); reserving, removing, moving and
// appending then cover it (a test checks every column keeps the batch's count).

import CellMotion

/// Something done to every column alike (`CellColumns.visit`).
protocol ColumnVisitor {
  mutating func visit<T>(_ column: inout [T])
}

/// A batch's cells in structure-of-arrays form: the kernel's inputs (Float and Int32
/// columns it reads through pointers) and the exact values the batch keeps beside them.
struct CellColumns: Sendable {
  /// One cell's values in every column, as `append` takes them.
  struct Cell {
    var start: Float
    var startExact: Double
    var progress: Float
    var width, height, tableWidth, detailHeight: Float
    var recipeIndex: Int32
    var row: Int
    var batchPosition: Int
    var endExact: Double
    var motions: CellMotions?
  }

  /// Staggered start - timeOrigin, seconds (the clock's input).
  var start: [Float] = []
  /// Staggered start, absolute seconds.
  var startExact: [Double] = []
  /// Progress per cell (`ProgressSource.progress`'s input).
  var progress: [Float] = []
  /// Points.
  var width: [Float] = []
  var height: [Float] = []
  var tableWidth: [Float] = []
  var detailHeight: [Float] = []
  var recipeIndex: [Int32] = []
  var row: [Int] = []
  var batchPosition: [Int] = []
  /// Absolute seconds after which the cell no longer changes.
  var endExact: [Double] = []
  var motions: [CellMotions?] = []

  /// Runs `v` on every column, in declaration order: the one list of the columns.
  mutating func visit<V: ColumnVisitor>(_ v: inout V) {
    v.visit(&start)
    v.visit(&startExact)
    v.visit(&progress)
    v.visit(&width)
    v.visit(&height)
    v.visit(&tableWidth)
    v.visit(&detailHeight)
    v.visit(&recipeIndex)
    v.visit(&row)
    v.visit(&batchPosition)
    v.visit(&endExact)
    v.visit(&motions)
  }

  mutating func append(_ c: Cell) {
    start.append(c.start)
    startExact.append(c.startExact)
    progress.append(c.progress)
    width.append(c.width)
    height.append(c.height)
    tableWidth.append(c.tableWidth)
    detailHeight.append(c.detailHeight)
    recipeIndex.append(c.recipeIndex)
    row.append(c.row)
    batchPosition.append(c.batchPosition)
    endExact.append(c.endExact)
    motions.append(c.motions)
  }

  /// Every column's length (they are equal; `ColumnTests` checks it).
  mutating func counts() -> [Int] {
    struct Count: ColumnVisitor {
      var counts: [Int] = []
      mutating func visit<T>(_ column: inout [T]) { counts.append(column.count) }
    }
    var v = Count()
    visit(&v)
    return v.counts
  }

  mutating func reserveCapacity(_ n: Int) {
    struct Reserve: ColumnVisitor {
      let n: Int
      mutating func visit<T>(_ column: inout [T]) { column.reserveCapacity(n) }
    }
    var v = Reserve(n: n)
    visit(&v)
  }

  /// Removes every cell, keeping capacity.
  mutating func removeAll() {
    struct RemoveAll: ColumnVisitor {
      mutating func visit<T>(_ column: inout [T]) { column.removeAll(keepingCapacity: true) }
    }
    var v = RemoveAll()
    visit(&v)
  }

  /// Copies cell `from` over cell `to` in every column.
  mutating func move(cell from: Int, to: Int) {
    struct Move: ColumnVisitor {
      let from, to: Int
      mutating func visit<T>(_ column: inout [T]) { column[to] = column[from] }
    }
    var v = Move(from: from, to: to)
    visit(&v)
  }

  /// Keeps the cells `i` with `keep[i]` (one flag per cell), in order: every column is
  /// compacted in one pass from cell `first` (the first one removed; those before it stay
  /// where they are).
  ///
  /// - Complexity: O(count - first) per column; no allocation.
  mutating func compact(keeping keep: UnsafeBufferPointer<Bool>, from first: Int) {
    // Column by column with concrete element types (a visitor's generic body copied each
    // element through a value witness: one memmove call per value).
    Self.compact(&start, keep, first)
    Self.compact(&startExact, keep, first)
    Self.compact(&progress, keep, first)
    Self.compact(&width, keep, first)
    Self.compact(&height, keep, first)
    Self.compact(&tableWidth, keep, first)
    Self.compact(&detailHeight, keep, first)
    Self.compact(&recipeIndex, keep, first)
    Self.compact(&row, keep, first)
    Self.compact(&batchPosition, keep, first)
    Self.compact(&endExact, keep, first)
    // Only the cells that have motions are copied (most have none, and a nil over a nil
    // needs no copy).
    var w = first
    motions.withUnsafeMutableBufferPointer { c in
      for r in first..<c.count where keep[r] {
        if w != r {
          if c[r] != nil {
            c[w] = c[r]
          } else if c[w] != nil {
            c[w] = nil
          }
        }
        w += 1
      }
    }
    motions.removeLast(motions.count - w)
  }

  /// Keeps the values `i >= first` of `column` with `keep[i]`, in order.
  @inline(__always)
  private static func compact<T>(_ column: inout [T], _ keep: UnsafeBufferPointer<Bool>, _ first: Int) {
    var w = first
    column.withUnsafeMutableBufferPointer { c in
      for r in first..<c.count where keep[r] {
        if w != r { c[w] = c[r] }
        w += 1
      }
    }
    column.removeLast(column.count - w)
  }

  /// Removes the last `n` cells of every column.
  mutating func removeLast(_ n: Int) {
    struct RemoveLast: ColumnVisitor {
      let n: Int
      mutating func visit<T>(_ column: inout [T]) { column.removeLast(n) }
    }
    var v = RemoveLast(n: n)
    visit(&v)
  }
}
