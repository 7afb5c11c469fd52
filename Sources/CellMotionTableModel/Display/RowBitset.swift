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

  /// Moves the bits with their rows through `map` (an applied batch update): the rows that
  /// keep their order and the moved rows carry their bits, and an inserted row at index
  /// `n` (after the update) gets `insertedBit(n)`. The rows after the update are written
  /// in order into new words, 64 bits at a time where a run of rows allows (a run's bits
  /// read at any alignment: two loads and a funnel shift a word). Moving each run in place
  /// cost about 180 instructions a run for its partial words (a million rows, four batches
  /// of 2,000 changes: 2.32M instructions, 1.89M this way).
  ///
  /// - Complexity: O(k + count / 64) for k changed rows.
  mutating func apply(_ map: UpdateMap, insertedBit: (Int) -> Bool) {
    let newCount = map.newRowCount
    let newWords = Self.wordCount(newCount)
    let out = [UInt64](unsafeUninitializedCapacity: newWords) { o, initialized in
      words.withUnsafeBufferPointer { w in
        // Every word is written: the rows after the update are newCount bits in order.
        var writer = _BitWriter(out: o)
        map.walkRuns(
          run: { from, c in writer.append(w, from: from, count: c) },
          fixed: { j in
            let from = map.fixedFrom[j]
            writer.push((from < 0 ? insertedBit(map.fixed[j]) : contains(from)) ? 1 : 0, 1)
          })
        writer.finish()
      }
      initialized = newWords
    }
    words = out
    count = newCount
  }
}

/// Writes bits in order into words: the low `len` bits of each value pushed go after the
/// bits before them.
private struct _BitWriter {
  let out: UnsafeMutableBufferPointer<UInt64>
  /// The word being filled, and its bits so far (the low `filled` of `pending`).
  private var word = 0
  private var pending: UInt64 = 0
  private var filled = 0

  init(out: UnsafeMutableBufferPointer<UInt64>) { self.out = out }

  /// Appends the low `len` (1...64) bits of `v`, whose bits above them are zero.
  @inline(__always)
  mutating func push(_ v: UInt64, _ len: Int) {
    pending |= v &<< UInt64(filled)
    let total = filled + len
    guard total >= 64 else {
      filled = total
      return
    }
    out[word] = pending
    word += 1
    filled = total - 64
    // The bits of v that did not fit (none when it ended the word).
    pending = filled == 0 ? 0 : v &>> UInt64(len - filled)
  }

  /// Appends bits `from ..< from + count` of `w`.
  @inline(__always)
  mutating func append(_ w: UnsafeBufferPointer<UInt64>, from: Int, count: Int) {
    let s = UInt64(from & 63)
    var i = from &>> 6
    let whole = count &>> 6
    if whole > 0 {
      // 64 bits at a time: the source's offset in its word (s) and the destination's
      // (filled) are the same for each, so each word is two loads, a funnel shift and,
      // unless the destination is aligned, a shift into the pending word.
      let f = UInt64(filled)
      let o = out.baseAddress.unsafelyUnwrapped + word
      var pend = pending
      for k in 0..<whole {
        let v = s == 0 ? w[i &+ k] : (w[i &+ k] &>> s) | (w[i &+ k &+ 1] &<< (64 &- s))
        if f == 0 {
          o[k] = v
        } else {
          o[k] = pend | (v &<< f)
          pend = v &>> (64 &- f)
        }
      }
      if f != 0 { pending = pend }
      word += whole
      i += whole
    }
    let left = count & 63
    guard left > 0 else { return }
    var v = w[i] &>> s
    if Int(s) + left > 64 { v |= w[i + 1] &<< (64 - s) }
    push(v & ((1 &<< UInt64(left)) &- 1), left)
  }

  /// Writes the last, partial word (its bits past the end are zero).
  mutating func finish() {
    if filled > 0 { out[word] = pending }
  }
}
