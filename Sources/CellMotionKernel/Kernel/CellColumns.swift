// CellColumns: a batch's per-cell columns, declared once. Adding a column means adding
// it to `Cell`, to the stored properties, to `visit`, to `compact(runs:from:)`, to `touch`
// and to the bulk appends in `CellBatch` (`append(contentsOf:)`, `resizeForProgress`), each written
// out per column so each is specialised; reserving, removing and moving then cover it
// (tests check every column keeps the batch's count after each).

import CellMotion

/// Something done to every column alike (`CellColumns.visit`).
protocol ColumnVisitor {
  mutating func visit<T>(_ column: inout CellColumn<T>)
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
  var start = CellColumn<Float>()
  /// Staggered start, absolute seconds.
  var startExact = CellColumn<Double>()
  /// Progress per cell (`ProgressSource.progress`'s input).
  var progress = CellColumn<Float>()
  /// Points.
  var width = CellColumn<Float>()
  var height = CellColumn<Float>()
  var tableWidth = CellColumn<Float>()
  var detailHeight = CellColumn<Float>()
  var recipeIndex = CellColumn<Int32>()
  var row = CellColumn<Int>()
  var batchPosition = CellColumn<Int>()
  /// Absolute seconds after which the cell no longer changes.
  var endExact = CellColumn<Double>()
  var motions = CellColumn<CellMotions?>()

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

  /// Appends `n` values `value(k)` to `column`: one growth check, then writes through a
  /// pointer (appending cell by cell checked every column's uniqueness and capacity per
  /// value). Callers append the same count to every column (`CellBatch.append(contentsOf:)`,
  /// `resizeForProgress`).
  @inline(__always)
  static func append<T: _ColumnZero>(_ column: inout CellColumn<T>, _ n: Int, _ value: (Int) -> T) {
    let first = column.count
    extend(&column, to: first + n)
    column.withUnsafeMutableBufferPointer { c in
      // From a base pointer: no overflow check per index, so copies and fills vectorise.
      guard let p = c.baseAddress.map({ $0 + first }) else { return }
      for k in 0..<n { p[k] = value(k) }
    }
  }

  /// Appends `n` copies of `value` to `column` (one pass; `append(_:_:_:)` zero-fills first).
  @inline(__always)
  static func append<T>(_ column: inout CellColumn<T>, repeating value: T, _ n: Int) {
    column.append(contentsOf: repeatElement(value, count: n))
  }

  /// Sets `column`'s count to `end`, new values zero until the caller writes them.
  @inline(__always)
  static func extend<T: _ColumnZero>(_ column: inout CellColumn<T>, to end: Int) {
    if column.count > end { column.removeLast(column.count - end) }
    if column.count < end { column.append(contentsOf: repeatElement(T._columnZero, count: end - column.count)) }
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
      mutating func visit<T>(_ column: inout CellColumn<T>) { counts.append(column.count) }
    }
    var v = Count()
    visit(&v)
    return v.counts
  }

  /// Writes the first `n` elements of every column's storage once and empties it again
  /// (capacity kept): their pages become resident now rather than in the first frame that
  /// fills them. For an empty batch.
  mutating func touch(_ n: Int) {
    func touch<T>(_ column: inout CellColumn<T>, _ zero: T) { column.reserveResident(n, touching: n, with: zero) }
    touch(&start, 0)
    touch(&startExact, 0)
    touch(&progress, 0)
    touch(&width, 0)
    touch(&height, 0)
    touch(&tableWidth, 0)
    touch(&detailHeight, 0)
    touch(&recipeIndex, 0)
    touch(&row, 0)
    touch(&batchPosition, 0)
    touch(&endExact, 0)
    touch(&motions, nil)
  }

  mutating func reserveCapacity(_ n: Int) {
    struct Reserve: ColumnVisitor {
      let n: Int
      mutating func visit<T>(_ column: inout CellColumn<T>) { column.reserveCapacity(n) }
    }
    var v = Reserve(n: n)
    visit(&v)
  }

  /// Removes every cell, keeping capacity.
  mutating func removeAll() {
    struct RemoveAll: ColumnVisitor {
      mutating func visit<T>(_ column: inout CellColumn<T>) { column.removeAll() }
    }
    var v = RemoveAll()
    visit(&v)
  }

  /// Copies cell `from` over cell `to` in every column.
  mutating func move(cell from: Int, to: Int) {
    struct Move: ColumnVisitor {
      let from, to: Int
      mutating func visit<T>(_ column: inout CellColumn<T>) { column[to] = column[from] }
    }
    var v = Move(from: from, to: to)
    visit(&v)
  }

  /// Keeps, from cell `first` on, the cells of `runs` ((first cell, count) pairs,
  /// increasing and apart), moved down in order to `first`, `first + count0`, ...; the
  /// cells after the last run are dropped.
  ///
  /// - Complexity: O(cells kept after `first`) bytes moved per column, one memmove a run;
  ///   no allocation.
  mutating func compact(runs: UnsafeBufferPointer<Int>, from first: Int) {
    // Column by column with concrete element types (a visitor's generic body copied each
    // element through a value witness: one memmove call per value).
    Self.compact(&start, runs, first)
    Self.compact(&startExact, runs, first)
    Self.compact(&progress, runs, first)
    Self.compact(&width, runs, first)
    Self.compact(&height, runs, first)
    Self.compact(&tableWidth, runs, first)
    Self.compact(&detailHeight, runs, first)
    Self.compact(&recipeIndex, runs, first)
    Self.compact(&row, runs, first)
    Self.compact(&batchPosition, runs, first)
    Self.compact(&endExact, runs, first)
    // Only the cells that have motions are copied (most have none, and a nil over a nil
    // needs no copy).
    var w = first
    motions.withUnsafeMutableBufferPointer { c in
      var k = 0
      while k < runs.count {
        let from = runs[k]
        let n = runs[k + 1]
        if w != from {
          for r in from..<(from + n) {
            if c[r] != nil {
              c[w + r - from] = c[r]
            } else if c[w + r - from] != nil {
              c[w + r - from] = nil
            }
          }
        }
        w += n
        k += 2
      }
    }
    motions.removeLast(motions.count - w)
  }

  /// Removes the first `n` cells of every column in O(1) (no value moves; a removed cell's
  /// motions are released).
  mutating func removeFirst(_ n: Int) {
    motions.withUnsafeMutableBufferPointer { c in
      for r in 0..<n where c[r] != nil { c[r] = nil }
    }
    struct RemoveFirst: ColumnVisitor {
      let n: Int
      mutating func visit<T>(_ column: inout CellColumn<T>) { column.removeFirst(n) }
    }
    var v = RemoveFirst(n: n)
    visit(&v)
  }

  /// Keeps the values of `runs` in `column`, moved down to `first` in order.
  @inline(__always)
  private static func compact<T: BitwiseCopyable>(_ column: inout CellColumn<T>, _ runs: UnsafeBufferPointer<Int>, _ first: Int) {
    var w = first
    column.withUnsafeMutableBufferPointer { c in
      let base = c.baseAddress!
      var k = 0
      while k < runs.count {
        let from = runs[k]
        let n = runs[k + 1]
        // Moving down: a front-to-back copy is safe where the ranges overlap.
        if w != from { UnsafeMutableRawPointer(base + w).copyMemory(from: base + from, byteCount: n * MemoryLayout<T>.stride) }
        w += n
        k += 2
      }
    }
    column.removeLast(column.count - w)
  }

  /// Removes the last `n` cells of every column.
  mutating func removeLast(_ n: Int) {
    struct RemoveLast: ColumnVisitor {
      let n: Int
      mutating func visit<T>(_ column: inout CellColumn<T>) { column.removeLast(n) }
    }
    var v = RemoveLast(n: n)
    visit(&v)
  }
}

/// A column's placeholder value, written before `append(_:_:_:)` fills it.
protocol _ColumnZero { static var _columnZero: Self { get } }
extension Float: _ColumnZero { static var _columnZero: Float { 0 } }
extension Double: _ColumnZero { static var _columnZero: Double { 0 } }
extension Int32: _ColumnZero { static var _columnZero: Int32 { 0 } }
extension Int: _ColumnZero { static var _columnZero: Int { 0 } }

extension Array {
  /// Room for `capacity` elements, the first `touched` of them (at most `capacity`) written
  /// once as `value` so their pages are resident, then emptied with the capacity kept: an
  /// owner's arrays made ready at init rather than faulted in by the first frame that
  /// fills thousands of them (`CellBatch.touchedAtInit`). For an empty array.
  ///
  /// Inlinable: the table's animator calls it from its module, where an unspecialised body
  /// looked up generic metadata for every element written (a quarter of the dense
  /// benchmark's time, all of it in `TableAnimator.init`).
  @inlinable
  package mutating func reserveResident(_ capacity: Int, touching touched: Int, with value: Element) {
    reserveCapacity(capacity)
    append(contentsOf: repeatElement(value, count: Swift.max(0, Swift.min(capacity, touched) - count)))
    removeAll(keepingCapacity: true)
  }
}
