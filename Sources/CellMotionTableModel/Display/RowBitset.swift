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

  /// Makes the words this value's own (a copy when another value shares them), so a later
  /// write does not copy them.
  mutating func ownStorage() { words.reserveCapacity(words.count) }

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

  /// Moves the bits with their rows through `map` (an applied batch update), in place: the
  /// rows that keep their order and the moved rows carry their bits (runs moved a word at
  /// a time), and an inserted row at index `n` (after the update) gets `insertedBit(n)`.
  /// Rows past the new count are cleared and the storage resized to it.
  ///
  /// - Complexity: O(k + count / 64) word operations for k changed rows; no allocation
  ///   beyond growing the storage and O(k) for the fixed rows' bits.
  mutating func apply(_ map: UpdateMap, insertedBit: (Int) -> Bool) {
    let fixedBits = map.fixed.indices.map { j in
      map.fixedFrom[j] < 0 ? insertedBit(map.fixed[j]) : contains(map.fixedFrom[j])
    }
    var runs: [(from: Int, to: Int, count: Int)] = []
    runs.reserveCapacity(map.fixed.count + map.removed.count + 1)
    var n = 0
    map.walkRuns(
      run: { o, c in
        runs.append((o, n, c))
        n += c
      }, fixed: { _ in n += 1 })
    let newWords = Self.wordCount(map.newRowCount)
    if newWords > words.count { words.append(contentsOf: repeatElement(0, count: newWords - words.count)) }
    words.withUnsafeMutableBufferPointer { w in
      // Runs moving towards the start go in order, runs moving towards the end in reverse
      // order (a run's destination can only overlap sources of runs after it that move the
      // same way), so every bit is read before it is overwritten.
      var r = 0
      while r < runs.count {
        var e = r
        let forward = runs[r].to <= runs[r].from
        while e < runs.count, (runs[e].to <= runs[e].from) == forward { e += 1 }
        if forward {
          for k in r..<e { Self.moveBits(w, from: runs[k].from, to: runs[k].to, count: runs[k].count) }
        } else {
          for k in (r..<e).reversed() { Self.moveBits(w, from: runs[k].from, to: runs[k].to, count: runs[k].count) }
        }
        r = e
      }
    }
    count = map.newRowCount
    for (j, row) in map.fixed.enumerated() {
      let mask: UInt64 = 1 &<< UInt64(row & 63)
      if fixedBits[j] { words[row &>> 6] |= mask } else { words[row &>> 6] &= ~mask }
    }
    // Clear the bits past the new count and drop the words past it.
    if words.count > newWords { words.removeLast(words.count - newWords) }
    if count % 64 != 0 { words[newWords - 1] &= (1 &<< UInt64(count % 64)) &- 1 }
  }

  /// Bits `[from, from + count)` of `w` copied to `[to, to + count)`, a destination word at
  /// a time; the ranges may overlap (copied from the front when `to <= from`, else from
  /// the back).
  static func moveBits(_ w: UnsafeMutableBufferPointer<UInt64>, from: Int, to: Int, count: Int) {
    guard count > 0, from != to else { return }
    /// `len` (1...64) bits starting at bit `p`, in the low bits.
    @inline(__always) func read(_ p: Int, _ len: Int) -> UInt64 {
      let i = p &>> 6, s = p & 63
      var v = w[i] &>> UInt64(s)
      if s != 0 && s + len > 64 { v |= w[i + 1] &<< UInt64(64 - s) }
      return len == 64 ? v : v & ((1 &<< UInt64(len)) &- 1)
    }
    /// Writes the low `len` (1...64) bits of `v` at bit `p`.
    @inline(__always) func write(_ p: Int, _ v: UInt64, _ len: Int) {
      let i = p &>> 6, s = p & 63
      let mask: UInt64 = len == 64 ? ~0 : (1 &<< UInt64(len)) &- 1
      w[i] = (w[i] & ~(mask &<< UInt64(s))) | (v &<< UInt64(s))
      if s != 0 && s + len > 64 {
        let high = mask &>> UInt64(64 - s)
        w[i + 1] = (w[i + 1] & ~high) | (v &>> UInt64(64 - s))
      }
    }
    // Whole destination words take 64 source bits each at a fixed word offset and shift
    // (the source starts d bits after the destination), a few instructions a word; the
    // partial words at the ends go through `read` and `write`.
    let d = from - to
    let wordShift = d &>> 6
    let s = UInt64(d & 63)
    let end = to + count
    let headEnd = Swift.min(end, (to + 63) & ~63)
    let tailStart = Swift.max(headEnd, end & ~63)
    @inline(__always) func whole(_ i: Int) {
      let a = i + wordShift
      w[i] = s == 0 ? w[a] : (w[a] &>> s) | (w[a + 1] &<< (64 - s))
    }
    if to < from {
      if headEnd > to { write(to, read(to + d, headEnd - to), headEnd - to) }
      var i = headEnd &>> 6
      while i < tailStart &>> 6 {
        whole(i)
        i += 1
      }
      if end > tailStart { write(tailStart, read(tailStart + d, end - tailStart), end - tailStart) }
    } else {
      if end > tailStart { write(tailStart, read(tailStart + d, end - tailStart), end - tailStart) }
      var i = tailStart &>> 6
      while i > headEnd &>> 6 {
        i -= 1
        whole(i)
      }
      if headEnd > to { write(to, read(to + d, headEnd - to), headEnd - to) }
    }
  }
}
