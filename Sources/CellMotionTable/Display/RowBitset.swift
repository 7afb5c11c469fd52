// One bit per row in UInt64 words: which rows have been displayed since the last reload.
// A million rows cost 15,625 words = 125,000 bytes (a Set<Int> would cost megabytes).

/// A fixed-size set of row indices stored as a bitset.
struct _RowBitset: Sendable, Equatable {
  private(set) var words: [UInt64]
  private(set) var count: Int

  /// An empty set over rows `0..<count`; `count >= 0` (callers bound it by
  /// `TableLayout.maxRowCount`).
  ///
  /// - Complexity: O(count / 64).
  init(count: Int) {
    self.count = count
    self.words = [UInt64](repeating: 0, count: Self.wordCount(count))
  }

  /// Words for `count` rows, ceil(count / 64), without forming `count + 63` (which
  /// overflows near `Int.max`).
  static func wordCount(_ count: Int) -> Int {
    precondition(count >= 0, "_RowBitset: negative row count \(count)")
    return count / 64 + (count % 64 == 0 ? 0 : 1)
  }

  /// Whether `row` is in the set. Unchecked: `0 <= row < count`.
  @inline(__always)
  func contains(_ row: Int) -> Bool {
    words[row &>> 6] & (1 &<< UInt64(row & 63)) != 0
  }

  /// Inserts `row`; returns true if it was not yet in the set. Unchecked.
  @inline(__always)
  @discardableResult
  mutating func insert(_ row: Int) -> Bool {
    let mask: UInt64 = 1 &<< UInt64(row & 63)
    let w = row &>> 6
    let old = words[w]
    words[w] = old | mask
    return old & mask == 0
  }

  /// Empties the set, optionally resizing it to `count` rows; keeps the storage.
  ///
  /// - Complexity: O(count / 64).
  mutating func removeAll(resizingTo newCount: Int? = nil) {
    let newCount = newCount ?? count
    let wordCount = Self.wordCount(newCount)
    words.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    if words.count > wordCount {
      words.removeLast(words.count - wordCount)
    } else if words.count < wordCount {
      words.append(contentsOf: repeatElement(0, count: wordCount - words.count))
    }
    count = newCount
  }

  /// Bytes of bit storage (excluding the array header).
  var storageBytes: Int { words.count * MemoryLayout<UInt64>.stride }
}
