// CellColumn: one per-cell column of a `CellBatch`, an array whose front can be dropped in
// O(1). A table's cells finish in the order they started and leave the screen from one
// edge, so the cells a frame removes are usually the batch's first ones; moving every
// column's remaining cells down each frame was an eighth of a dense table frame (issue 32:
// 75,000 of 571,000 instructions a frame with a scroll effect on, most of them memmove).

/// One column of a `CellBatch`: a value per cell, cell 0 first (indices `0 ..< count`).
///
/// A read-only view for callers (a copy shares the batch's storage until the batch
/// changes). Cells removed from the front only move the column's start; the storage they
/// held is taken back when an append would otherwise need more room, so a batch that
/// reserved its capacity still appends without allocating.
public struct CellColumn<Element>: RandomAccessCollection {
  /// The values, cells `head ..< storage.count` live (those before `head` are removed).
  @usableFromInline var storage: [Element]
  @usableFromInline var head = 0

  @inlinable init() { storage = [] }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { storage.count &- head }

  /// The value of cell `i` (`0 <= i < count`).
  @inlinable public internal(set) subscript(i: Int) -> Element {
    get { storage[head &+ i] }
    set { storage[head &+ i] = newValue }
  }

  /// Cells the column holds without allocating (the removed front is taken back first).
  public var capacity: Int { storage.capacity }

  /// Calls `body` with the cells' values, contiguous (valid only during the call).
  @inlinable
  public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
    let h = head
    return try storage.withUnsafeBufferPointer { (s) throws(E) -> R in try body(UnsafeBufferPointer(rebasing: s[h...])) }
  }

  /// Calls `body` with the cells' values, contiguous and writable (valid only during the
  /// call; the count must not change).
  mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Element>) -> R) -> R {
    let h = head
    return storage.withUnsafeMutableBufferPointer { s in body(UnsafeMutableBufferPointer(rebasing: s[h...])) }
  }

  /// Makes room for `n` more cells by taking back the removed front when the storage would
  /// otherwise grow (one move of the live cells, at most once per capacity's worth of
  /// removals).
  private mutating func room(_ n: Int) {
    if head > 0 && storage.count + n > storage.capacity {
      storage.removeFirst(head)
      head = 0
    }
  }

  mutating func append(_ value: Element) {
    room(1)
    storage.append(value)
  }

  mutating func append<S: Collection>(contentsOf values: S) where S.Element == Element {
    room(values.count)
    storage.append(contentsOf: values)
  }

  /// Removes the first `n` cells (`n <= count`) in O(1).
  mutating func removeFirst(_ n: Int) {
    head += n
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    }
  }

  mutating func removeLast(_ n: Int) {
    storage.removeLast(n)
    if head == storage.count {
      storage.removeAll(keepingCapacity: true)
      head = 0
    }
  }

  mutating func removeAll() {
    storage.removeAll(keepingCapacity: true)
    head = 0
  }

  mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(n) }

  /// `Array.reserveResident` on the storage (an empty column).
  mutating func reserveResident(_ capacity: Int, touching touched: Int, with value: Element) {
    storage.reserveResident(capacity, touching: touched, with: value)
    head = 0
  }
}

extension CellColumn: Sendable where Element: Sendable {}

extension CellColumn: Equatable where Element: Equatable {
  /// The same values for the same cells (however much of the front each has dropped).
  public static func == (a: CellColumn, b: CellColumn) -> Bool { a.elementsEqual(b) }
}
