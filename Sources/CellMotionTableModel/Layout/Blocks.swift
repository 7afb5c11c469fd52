// Blocked sequences: a table's per-row values (heights, identifiers) kept in leaves of
// 64 to 128 rows, so that a batch update rebuilds only the leaves it touches and shares
// every other leaf with the sequence before it.
//
// Goals, in priority order:
// 1. Exact: the elements are the ones given, in order, after any sequence of edits (tested
//    against flat arrays).
// 2. A batch of k changes costs O(k x leaf size + leaves): the touched leaves are copied
//    and edited, the others reused (the values before the batch stay valid and share
//    them); no array of the table's elements is allocated. What a batch writes (the leaf
//    directory, new leaves) goes to memory the versions before it no longer use where
//    nothing else holds it (`_Recycle`): fresh pages cost a fault each.
// 3. Runs: a stretch of elements that follows a rule (equal heights of a uniform table,
//    consecutive identifiers) is one leaf of any length, O(1) memory, until an edit lands
//    in it; then only a leaf's worth of it around the edit is written out.
// 4. Sequential reads at array speed: a frame walks the leaves of its rows in order.
// 5. Sharing costs no reference counting per leaf. A leaf is a plain value (counts, sums,
//    a pointer) whose elements live in a slab: a block of memory written once by the build
//    that made it, then read-only. A sequence holds its few slabs (a few hundred at a
//    million rows); a batch copies the leaf directory as plain memory and writes its new
//    leaves into new slabs. Retaining every shared leaf on each batch and releasing it
//    with the old version was the largest cost left in a batch at a million rows (issue
//    32: 15,600 leaves, a cache miss each).
// 6. Bounded memory: each build drops the slabs no leaf uses and, while its slabs would
//    hold more than twice the words it uses, moves the leaves out of the emptiest slabs
//    less than half used (within a budget of about the words it wrote), so a sequence's
//    slabs hold at most about twice its elements, however many batches it has been
//    through, no single batch pays for a whole-table compaction, and no batch moves
//    leaves the bound does not need moved.

import Dispatch

/// An element of a blocked sequence that may be stored as a run: element `offset` of a run
/// that starts at `first` is `_run(first, offset)`.
protocol _RunElement: Equatable, Sendable, BitwiseCopyable {
  static func _run(_ first: Self, _ offset: Int) -> Self
}

extension Double: _RunElement {
  /// Runs of heights repeat one height (a uniform table).
  @inline(__always) static func _run(_ first: Double, _ offset: Int) -> Double { first }
}

extension RowID: _RunElement {
  /// Runs of identifiers count up by one (a table's initial rows are 0, 1, 2, ...).
  @inline(__always) static func _run(_ first: RowID, _ offset: Int) -> RowID { RowID(first.rawValue &+ offset) }
}

/// One leaf: `count` elements, explicit or a run. A plain value: an explicit leaf's
/// elements are in a slab of the sequence that holds the leaf, which keeps them alive (a
/// leaf must not outlive its sequence).
protocol _BlockLeaf: Sendable {
  associatedtype Element: _RunElement
  var count: Int { get }
  /// Whether the leaf is a run (its elements are `Element._run(first, j)`).
  var isRun: Bool { get }
  /// The first element (of a run: the one the others follow from).
  var first: Element { get }
  /// An explicit leaf's slab: an index into its sequence's `slabs` (-1 for a run).
  var slab: Int32 { get set }
  /// An explicit leaf's words in its slab (`words(count)` of them); nil for a run.
  var storage: UnsafePointer<Element>? { get set }
  /// Slab words an explicit leaf of `n` elements takes.
  static func words(_ n: Int) -> Int
  /// A run of `count` elements from `first`.
  init(run first: Element, count: Int)
  /// An explicit leaf of the `count` elements (1...`_BlockSize.max`) already written at
  /// `storage[0 ..< count]`, which has room for `words(count)` words, in slab `slab`: the
  /// leaf completes its words (a height leaf its prefix sums) in place.
  init(written count: Int, storage: UnsafeMutablePointer<Element>, slab: Int32)
}

extension _BlockLeaf {
  /// Element `j` (unchecked).
  @inline(__always)
  func element(_ j: Int) -> Element {
    guard let storage else { return Element._run(first, j) }
    return storage[j]
  }

  /// Calls `body` with the explicit elements (not for a run).
  @inline(__always)
  func withValues<R>(_ body: (UnsafeBufferPointer<Element>) -> R) -> R {
    body(UnsafeBufferPointer(start: storage, count: count))
  }
}

/// Memory for explicit leaves' elements: `capacity` words, handed out front to back by the
/// one build that allocated it, then never written again. Shared, read-only, by every
/// sequence whose leaves point into it.
final class _Slab<Element>: @unchecked Sendable {
  // @unchecked: the build that allocates a slab writes each leaf's words before the leaf
  // is published, and nothing writes them after.
  let base: UnsafeMutablePointer<Element>
  let capacity: Int

  init(capacity: Int) {
    base = .allocate(capacity: capacity)
    self.capacity = capacity
  }

  deinit { base.deallocate() }
}

/// Memory a sequence's next batch may build in, so that a batch writes to pages it has
/// written before instead of fresh ones: the directory arrays of the version the last
/// batch edited, and the slabs that batch dropped. Each is reused only when nothing else
/// holds it (the version it belonged to is gone); a shared one is left alone and a fresh
/// one allocated, as without a recycle. Fresh memory cost a batch at a million rows about
/// 850 page faults, two fifths of its time on these machines (issue 32).
///
/// Kept by the owner of the latest version (`TableRows`), moved out for a batch and back.
struct _Recycle<Leaf: _BlockLeaf>: Sendable {
  var leaves: [Leaf] = []
  /// The directory array of a rebuild's second part (`_Blocks.applying(_:split:...)`).
  var partLeaves: [Leaf] = []
  /// Slab words the last rebuild in two parts wrote per changed row (nil before one):
  /// what the next one gives each part room for.
  var wordsPerChange: Double? = nil
  var starts: [Int] = []
  var slabs: [_Slab<Leaf.Element>] = []
  /// A layout's leaf offsets (`TableLayout.tops`; heights only).
  var tops: [Double] = []
  /// Slabs written again so far (for tests).
  var slabsReused = 0
}

extension Array {
  /// `spare`'s memory, emptied in place when this takes its only reference (else a fresh
  /// array), with room for `n` elements (an eighth more when it must grow, so that the
  /// next batches fit as a table grows); `spare` is left empty.
  static func _reusing(_ spare: inout [Element], capacity n: Int) -> [Element] {
    var a = spare
    spare = []
    a.removeAll(keepingCapacity: true)
    if a.capacity < n { a.reserveCapacity(n + n / 8) }
    return a
  }
}

/// Leaf sizes, in elements.
///
/// A batch of k scattered changes rebuilds about k leaves and walks every leaf: its cost is
/// about k x leaf + leaves. At a million rows and 2,000 changes, leaves of 256 to 512
/// rows copied 430,000-610,000 rows a batch; leaves of 64 to 128 copy about 130,000 and
/// walk about 15,000 leaves, in bulk where a run of the batch covers them whole.
enum _BlockSize {
  /// A freshly built sequence is cut into leaves of this many elements.
  static let target = 64
  /// An edited leaf is split once it would pass this size.
  static let max = 128
  /// Pieces smaller than this are merged into a neighbour rather than kept as leaves.
  static let min = 16
  /// Words in a full slab: 64 KB, under the C allocator's default threshold for a
  /// mapping of its own (a fresh mapping per slab would fault in every page each batch).
  static let slab = 8192
  /// Words in a build's first new slab (later ones double up to `slab`): a small batch
  /// allocates little.
  static let firstSlab = 512
}

/// A sequence of `count` elements in leaves; `starts[b]` is leaf b's first index and
/// `starts[leaves.count]` the count; `slabs` holds the explicit leaves' elements.
struct _Blocks<Leaf: _BlockLeaf>: Sendable {
  typealias Element = Leaf.Element
  private(set) var leaves: [Leaf]
  private(set) var starts: [Int]
  /// The slabs the explicit leaves point into (`leaf.slab` indexes it); each holds words of
  /// at least one leaf.
  private(set) var slabs: [_Slab<Element>]

  /// An empty sequence.
  init() {
    leaves = []
    starts = [0]
    slabs = []
  }

  fileprivate init(leaves: [Leaf], starts: [Int], slabs: [_Slab<Element>]) {
    self.leaves = leaves
    self.starts = starts
    self.slabs = slabs
  }

  /// `count` elements following `first` as a run: one leaf, O(1) memory.
  init(run first: Element, count: Int) {
    if count > 0 {
      self.init(leaves: [Leaf(run: first, count: count)], starts: [0, count], slabs: [])
    } else {
      self.init()
    }
  }

  /// The given elements, in leaves of `_BlockSize.target`.
  ///
  /// - Complexity: O(n).
  init(values: UnsafeBufferPointer<Element>) {
    let n = values.count
    var builder = _BlockBuilder<Leaf>(
      reservingLeaves: n / _BlockSize.target + 1, words: Leaf.words(_BlockSize.target) * (n / _BlockSize.target + 1))
    var i = 0
    while i < n {
      let end = Swift.min(n, i + _BlockSize.target)
      builder.appendLeaf(values: UnsafeBufferPointer(rebasing: values[i..<end]))
      i = end
    }
    self = builder.finish()
  }

  var count: Int { starts[starts.count - 1] }

  /// The leaf holding element `i` and `i`'s offset in it. Unchecked: `0 <= i < count`.
  ///
  /// - Complexity: O(log leaves).
  @inline(__always)
  func locate(_ i: Int) -> (leaf: Int, offset: Int) {
    starts.withUnsafeBufferPointer { s in
      let b = _partitionPoint(s.count - 1) { s[$0 + 1] > i }
      return (b, i - s[b])
    }
  }

  /// `locate(i)` for increasing `i` from one caller: searches forward from `leaf` (the leaf
  /// of the previous `i`, or 0) in steps that double, then back within the last step, so
  /// a walk in order costs O(log d) per call for a jump of d leaves. Unchecked: `0 <= i <
  /// count` and `i` at or after leaf `leaf`'s first element.
  @inline(__always)
  func locate(_ i: Int, from leaf: Int) -> (leaf: Int, offset: Int) {
    starts.withUnsafeBufferPointer { s in
      let last = s.count - 2
      var lo = leaf
      if s[lo + 1] > i { return (lo, i - s[lo]) }
      // Leaf `lo` ends at or before i; find a leaf `hi` that ends after it.
      var step = 1
      var hi = Swift.min(lo + step, last)
      while s[hi + 1] <= i {
        lo = hi
        step &<<= 1
        hi = Swift.min(lo + step, last)
      }
      // The leaf is in lo + 1 ... hi.
      let b = lo + 1 + _partitionPoint(hi - lo) { s[lo + 1 + $0 + 1] > i }
      return (b, i - s[b])
    }
  }

  /// Element `i` (unchecked: `0 <= i < count`).
  @inline(__always)
  subscript(i: Int) -> Element {
    let (b, j) = locate(i)
    return leaves[b].element(j)
  }

  /// Element `i` for increasing `i` from one caller (`locate(_:from:)`; `cursor` starts at
  /// 0). Unchecked: `0 <= i < count`.
  @inline(__always)
  func element(_ i: Int, cursor: inout Int) -> Element {
    let (b, j) = locate(i, from: cursor)
    cursor = b
    return leaves[b].element(j)
  }

  /// Every element in order.
  ///
  /// - Complexity: O(n).
  func forEach(_ body: (Element) -> Void) {
    for leaf in leaves {
      if leaf.isRun {
        for j in 0..<leaf.count { body(Element._run(leaf.first, j)) }
      } else {
        leaf.withValues { for e in $0 { body(e) } }
      }
    }
  }

  /// Whether both hold the same elements in the same order (leaf boundaries aside).
  ///
  /// - Complexity: O(n).
  func elementsEqual(_ other: _Blocks) -> Bool {
    guard count == other.count else { return false }
    var equal = true
    var i = 0
    forEach { e in
      if equal && other[i] != e { equal = false }
      i += 1
    }
    return equal
  }

  /// `builder`'s sequence, finished; this version's directory goes to `recycle` (the next
  /// batch's, once this version is gone).
  private func finish(_ builder: inout _BlockBuilder<Leaf>, recycle: inout _Recycle<Leaf>) -> _Blocks {
    let built = builder.finish(recycle: &recycle)
    recycle.leaves = leaves
    recycle.starts = starts
    return built
  }

  /// Where a batch's rebuild may be cut in two parts of about equal work, built at once
  /// by two threads (`applying(_:split:...)`): a leaf's first row that the batch keeps in
  /// order, near the middle of the batch's changes (or of the rows, when the leaves
  /// outweigh the changes). Nil when there is no such place (a sequence of one or two
  /// leaves, or no kept leaf start near the middle).
  func splitPosition(_ map: UpdateMap, overrides: Int) -> _MapPosition? {
    guard leaves.count >= 4, map.oldRowCount > 0 else { return nil }
    let changes = map.removed.count + map.fixed.count + overrides
    // A changed row costs about a leaf's copy; a leaf walked, a few words.
    var target = map.oldRowCount / 2
    if changes * 32 > leaves.count {
      // The middle change: of the removed rows or of the fixed ones (a new index is near
      // its old one), whichever the batch has more of.
      if map.removed.count >= map.fixed.count, !map.removed.isEmpty {
        target = map.removed[map.removed.count / 2]
      } else if !map.fixed.isEmpty {
        target = Swift.min(map.oldRowCount - 1, map.fixed[map.fixed.count / 2])
      }
    }
    var b = Swift.max(1, locate(Swift.min(target, count - 1)).leaf)
    // The first kept leaf start from there (a few leaves at most: removed rows are rare
    // among a leaf's first rows).
    let last = Swift.min(leaves.count - 1, b + 8)
    while b <= last {
      let o = starts[b]
      let q = _lowerBound(map.removed, o)
      if q == map.removed.count || map.removed[q] != o {
        let p = map.position(ofKeptRow: o)
        return p.new > 0 && p.new < map.newRowCount ? p : nil
      }
      b += 1
    }
    return nil
  }

  /// The sequence after `map` (an applied batch update): the runs of elements that keep
  /// their order, each fixed row (inserted or moved to) given by `fixedValue(j)` for the
  /// map's j-th fixed row, then `overrides` (indexes after the update, increasing, each
  /// once) replacing those rows' elements. Leaves entirely inside a run are shared; the
  /// others are rebuilt. `visitRun(part, oldStart, count)` is called for each run just
  /// before its elements are read (so a caller can read what it needs of the old sequence
  /// there while it is in cache). Not optional: an optional closure escapes, and the
  /// variables it captures would be boxed and checked for exclusive access at run time.
  ///
  /// `split` nil: one part (0) on the calling thread. Else two parts built at once on two
  /// threads (`_bothAtOnce`), the rows after the update before `split.new` (part 0) and
  /// the others (part 1), then joined: the same elements. `visitRun` is then called from
  /// the part's thread, in order within the part; a run that crosses the split is visited
  /// in two pieces, the second starting at `split.old`. `fixedValue` is called from both
  /// threads and must only read.
  ///
  /// - Complexity: O((k + c) log L + (k + c) x `_BlockSize.max` + L) for k changed rows,
  ///   c overrides and L leaves.
  func applying(
    _ map: UpdateMap, split: _MapPosition? = nil, fixedValue: (Int) -> Element,
    overrides: [(index: Int, value: Element)] = [], recycle: inout _Recycle<Leaf>,
    visitRun: (_ part: Int, _ oldStart: Int, _ count: Int) -> Void = { _, _, _ in }
  ) -> _Blocks {
    let changes = map.fixed.count + map.removed.count + overrides.count
    let reserve = leaves.count + 2 * changes + 2
    var first = _BlockBuilder<Leaf>(editing: self, reservingLeaves: reserve, recycle: &recycle)
    guard let split else {
      build(
        map, from: _MapPosition(), to: map.newRowCount, fixedValue: fixedValue, overrides: overrides[...],
        into: &first, visitRun: { visitRun(0, $0, $1) })
      return finish(&first, recycle: &recycle)
    }
    let cut = overrides.withUnsafeBufferPointer { o in _partitionPoint(o.count) { o[$0].index >= split.new } }
    // Room for each part: the words a change took last time (else a fresh leaf's), a
    // quarter more, and a slab.
    let perChange = recycle.wordsPerChange ?? Double(Leaf.words(_BlockSize.target))
    func words(_ c: Int) -> Int { Int(Double(c) * perChange * 1.25) + _BlockSize.slab }
    let before = split.removed + split.fixed + cut
    // The second part may hold most of the leaves: its array must not grow on its thread
    // (see `splittingOff`).
    var second = first.splittingOff(
      reservingLeaves: reserve, words: (words(before), words(changes - before)), recycle: &recycle)
    _bothAtOnce(
      {
        build(
          map, from: _MapPosition(), to: split.new, fixedValue: fixedValue, overrides: overrides[..<cut],
          into: &first, visitRun: { visitRun(0, $0, $1) })
      },
      {
        build(
          map, from: split, to: map.newRowCount, fixedValue: fixedValue, overrides: overrides[cut...],
          into: &second, visitRun: { visitRun(1, $0, $1) })
      })
    first.join(&second, recycle: &recycle)
    recycle.wordsPerChange = Double(first.written) / Double(Swift.max(1, changes))
    return finish(&first, recycle: &recycle)
  }

  /// Appends to `builder` the rows after the update from `start` to `end` (exclusive):
  /// runs copied (whole leaves shared), fixed rows from `fixedValue`, `overrides` (those
  /// of these rows, increasing) in place of theirs.
  private func build(
    _ map: UpdateMap, from start: _MapPosition, to end: Int, fixedValue: (Int) -> Element,
    overrides: ArraySlice<(index: Int, value: Element)>, into builder: inout _BlockBuilder<Leaf>,
    visitRun: (_ oldStart: Int, _ count: Int) -> Void
  ) {
    var next = overrides.startIndex
    var n = start.new
    // The runs come in increasing old index: the leaves are found with a cursor.
    var cursor = start.old < count ? locate(start.old).leaf : 0
    map.walkRuns(
      from: start, to: end,
      run: { o, count in
        visitRun(o, count)
        var from = o
        var at = n
        let end = n + count
        while next < overrides.endIndex, overrides[next].index < end {
          let row = overrides[next].index
          appendRange(from..<(from + row - at), cursor: &cursor, to: &builder)
          builder.append(overrides[next].value)
          from += row - at + 1
          at = row + 1
          next += 1
        }
        appendRange(from..<(o + count), cursor: &cursor, to: &builder)
        n = end
      },
      fixed: { j in
        if next < overrides.endIndex, overrides[next].index == n {
          builder.append(overrides[next].value)
          next += 1
        } else {
          builder.append(fixedValue(j))
        }
        n += 1
      })
  }

  /// `self` with element `i` replaced by `value` (unchecked: `0 <= i < count`): its leaf
  /// rebuilt (a run: a leaf's worth of it around `i` written out), the others shared.
  ///
  /// - Complexity: O(`_BlockSize.max` + L).
  func replacing(_ i: Int, with value: Element) -> _Blocks {
    var builder = _BlockBuilder<Leaf>(editing: self, reservingLeaves: leaves.count + 3)
    let (b, j) = locate(i)
    for k in 0..<b { builder.appendLeaf(leaves[k]) }
    let leaf = leaves[b]
    if leaf.isRun && leaf.count > _BlockSize.target {
      // Write out about a target's worth of the run around the element.
      let lo = Swift.max(0, j - _BlockSize.target / 2)
      let hi = Swift.min(leaf.count, lo + _BlockSize.target)
      builder.appendSlice(of: leaf, 0..<lo)
      builder.materialize(leaf, lo..<j)
      builder.append(value)
      builder.materialize(leaf, (j + 1)..<hi)
      builder.appendSlice(of: leaf, hi..<leaf.count)
    } else {
      builder.materialize(leaf, 0..<j)
      builder.append(value)
      builder.materialize(leaf, (j + 1)..<leaf.count)
    }
    for k in (b + 1)..<leaves.count { builder.appendLeaf(leaves[k]) }
    return builder.finish()
  }

  /// `self` with leaf `b`'s elements replaced by `values` (as many as it has): the same leaf
  /// bounds, the other leaves shared as they are.
  ///
  /// - Complexity: O(`_BlockSize.max` + L).
  func replacingLeaf(_ b: Int, with values: UnsafeBufferPointer<Element>) -> _Blocks {
    var builder = _BlockBuilder<Leaf>(editing: self, reservingLeaves: leaves.count)
    builder.appendLeavesVerbatim(of: self, 0..<b)
    builder.appendLeaf(values: values)
    builder.appendLeavesVerbatim(of: self, (b + 1)..<leaves.count)
    return builder.finish()
  }

  /// Words the slabs hold in all, and words the leaves use (for tests of the memory bound).
  var slabWords: (held: Int, used: Int) {
    let held = slabs.reduce(0) { $0 + $1.capacity }
    let used = leaves.reduce(0) { $0 + ($1.isRun ? 0 : Leaf.words($1.count)) }
    return (held, used)
  }

  /// Appends elements `range` (unchecked) to `builder`: whole leaves shared (in bulk), parts
  /// copied. `cursor`: a leaf at or before the one holding `range.lowerBound` (ranges asked
  /// for in increasing order); left at or before the leaf holding the range's end.
  private func appendRange(_ range: Range<Int>, cursor: inout Int, to builder: inout _BlockBuilder<Leaf>) {
    guard !range.isEmpty else { return }
    let (b0, j0) = locate(range.lowerBound, from: cursor)
    var b = b0
    cursor = b0
    if j0 > 0 || starts[b + 1] > range.upperBound {
      // A part of the first leaf.
      let take = Swift.min(leaves[b].count - j0, range.count)
      builder.appendSlice(of: leaves[b], j0..<(j0 + take))
      if j0 + take < leaves[b].count { return }
      b += 1
    }
    // Whole leaves b ..< e, then a part of leaf e (the leaf holding the range's end, found
    // from b: a range spans a few leaves, and a search of every leaf after b was a fifth of
    // this function).
    let e = range.upperBound >= count ? leaves.count : locate(range.upperBound, from: b).leaf
    if e > b { builder.appendLeaves(of: self, b..<e) }
    if e < leaves.count, starts[e] < range.upperBound {
      builder.appendSlice(of: leaves[e], 0..<(range.upperBound - starts[e]))
    }
    cursor = Swift.min(e, leaves.count - 1)
  }
}

/// Builds a `_Blocks` from leaves, slices and single elements in order, keeping leaves
/// between `_BlockSize.min` and `_BlockSize.max` elements where it can (runs excepted).
///
/// Leaves taken whole from the sequence being edited keep their slab indexes: the builder's
/// slabs start as that sequence's. New explicit leaves are written to new slabs, in place:
/// the open leaf's elements go straight to the words it will keep (room for a full leaf is
/// taken when it opens, and what it does not use is handed back when it closes), so an
/// element is copied once, with no staging array.
struct _BlockBuilder<Leaf: _BlockLeaf> {
  typealias Element = Leaf.Element
  var leaves: [Leaf] = []
  /// The open leaf: its elements so far, at `open[0 ..< openCount]` in slab `openSlab`
  /// (nil: no leaf is open). It has room for `Leaf.words(_BlockSize.max)` words.
  private var open: UnsafeMutablePointer<Element>? = nil
  private(set) var openCount = 0
  private var openSlab: Int32 = -1
  /// The edited sequence's slabs, then the new ones.
  private var slabs: [_Slab<Element>]
  /// Index of the first new slab.
  private var firstNew: Int
  /// Words written to new slabs.
  private(set) var written = 0
  /// Capacity of the next new slab.
  private var nextCapacity: Int
  /// The newest slab's free words (`slabs.last`, when it is new): handed out here, without
  /// touching the slab object per leaf.
  private var free: UnsafeMutablePointer<Element>? = nil
  private var freeCount = 0
  /// Slabs an earlier batch dropped, taken (when nothing else holds them) before new ones
  /// are allocated.
  private var recycled: [_Slab<Element>] = []
  private var slabsReused = 0

  /// A builder for a fresh sequence of about `words` slab words.
  init(reservingLeaves n: Int, words: Int = _BlockSize.firstSlab) {
    slabs = []
    firstNew = 0
    nextCapacity = Swift.max(Leaf.words(_BlockSize.max), Swift.min(_BlockSize.slab, words))
    leaves.reserveCapacity(n)
  }

  /// A builder for an edit of `source`: its leaves may be appended whole.
  init(editing source: _Blocks<Leaf>, reservingLeaves n: Int) {
    self.init(reservingLeaves: n)
    slabs = source.slabs
    firstNew = source.slabs.count
  }

  /// A builder for an edit of `source` that builds in `recycle`'s memory where nothing else
  /// holds it (its directory array emptied in place, its slabs taken before new ones).
  init(editing source: _Blocks<Leaf>, reservingLeaves n: Int, recycle: inout _Recycle<Leaf>) {
    self.init(editing: source, reservingLeaves: 0)
    leaves = ._reusing(&recycle.leaves, capacity: n)
    recycled = recycle.slabs
    recycle.slabs = []
  }

  /// A builder for the part of the same edit after this one's (`_Blocks.applying(_:split:
  /// ...)`), made before either builds, with `recycle`'s second directory array. The
  /// recycled slabs are shared out so that each part has room for about `words` words,
  /// and what they lack is allocated here: memory a thread allocates comes from its own
  /// arena of the C allocator, which returns freed pages to the system, so slabs allocated
  /// by the second thread faulted in fresh pages on every batch (about 290 faults a batch
  /// at a million rows, measured with the benchmark).
  mutating func splittingOff(
    reservingLeaves n: Int, words: (first: Int, second: Int), recycle: inout _Recycle<Leaf>
  ) -> _BlockBuilder {
    var other = _BlockBuilder(reservingLeaves: 0)
    other.slabs = slabs
    other.firstNew = firstNew
    other.leaves = ._reusing(&recycle.partLeaves, capacity: n)
    // Slabs another version still holds cannot be written: dropped now, as `room` would.
    // The others are shared out in proportion to the words each part needs.
    var usable: [_Slab<Element>] = []
    while var r = recycled.popLast() {
      if isKnownUniquelyReferenced(&r) { usable.append(r) }
    }
    let share = usable.reduce(0) { $0 + $1.capacity } * words.first / Swift.max(1, words.first + words.second)
    var mine = 0
    for r in usable {
      if mine < share {
        mine += r.capacity
        recycled.append(r)
      } else {
        other.recycled.append(r)
      }
    }
    func provide(_ slabs: inout [_Slab<Element>], _ words: Int) {
      var have = slabs.reduce(0) { $0 + $1.capacity }
      while have < words {
        slabs.append(_Slab(capacity: _BlockSize.slab))
        have += _BlockSize.slab
      }
    }
    provide(&recycled, words.first)
    provide(&other.recycled, words.second)
    return other
  }

  /// Appends what `other` (from `splittingOff`, built for the rows after this builder's)
  /// built, as if this builder had: its new slabs after this one's, its first leaf taken
  /// as `appendLeaf` takes a leaf (merged with a small leaf before it, as one build would
  /// have), the others as they are. `other`'s directory array goes back to `recycle`.
  mutating func join(_ other: inout _BlockBuilder, recycle: inout _Recycle<Leaf>) {
    flush()
    other.flush()
    if other.slabs.count > firstNew {
      // Its new slabs are numbered after this builder's.
      let shift = Int32(slabs.count - firstNew)
      let fresh = Int32(firstNew)
      if shift != 0 {
        other.leaves.withUnsafeMutableBufferPointer { ls in
          for b in ls.indices where ls[b].slab >= fresh { ls[b].slab &+= shift }
        }
      }
      slabs.append(contentsOf: other.slabs[firstNew...])
      // The newest slab's free words are now `other`'s.
      free = other.free
      freeCount = other.freeCount
      nextCapacity = Swift.max(nextCapacity, other.nextCapacity)
    }
    written += other.written
    slabsReused += other.slabsReused
    recycled.append(contentsOf: other.recycled)
    other.recycled = []
    var b = 0
    while b < other.leaves.count, b == 0 || openCount > 0 {
      appendLeaf(other.leaves[b])
      b += 1
    }
    flush()
    leaves.append(contentsOf: other.leaves[b...])
    other.leaves.removeAll(keepingCapacity: true)
    recycle.partLeaves = other.leaves
    other.leaves = []
  }

  /// `n` words in the newest slab, a new slab when it is full. Returns the words and the
  /// slab's index.
  private mutating func room(_ n: Int) -> (UnsafeMutablePointer<Element>, Int32) {
    if n <= freeCount, let p = free {
      free = p + n
      freeCount -= n
      return (p, Int32(slabs.count - 1))
    }
    var reused: _Slab<Element>? = nil
    while var r = recycled.popLast() {
      // Only a slab no version holds any more may be written again.
      if isKnownUniquelyReferenced(&r) && r.capacity >= n {
        reused = r
        slabsReused += 1
        break
      }
    }
    let slab: _Slab<Element>
    if let reused {
      slab = reused
    } else {
      slab = _Slab<Element>(capacity: Swift.max(n, nextCapacity))
      nextCapacity = Swift.min(_BlockSize.slab, 2 * nextCapacity)
    }
    slabs.append(slab)
    free = slab.base + n
    freeCount = slab.capacity - n
    return (slab.base, Int32(slabs.count - 1))
  }

  /// The open leaf's words, opening a leaf (room for a full one) when none is.
  @inline(__always)
  private mutating func openWords() -> UnsafeMutablePointer<Element> {
    if let p = open { return p }
    let (p, slab) = room(Leaf.words(_BlockSize.max))
    open = p
    openSlab = slab
    return p
  }

  /// Turns the open elements into a leaf; the words it does not use go back to the slab
  /// (nothing else takes words while a leaf is open).
  private mutating func flush() {
    guard let p = open else { return }
    open = nil
    let n = openCount
    openCount = 0
    let unused = Leaf.words(_BlockSize.max) - Leaf.words(n)
    free = free! - unused
    freeCount += unused
    written += Leaf.words(n)
    push(Leaf(written: n, storage: p, slab: openSlab))
  }

  private mutating func push(_ leaf: Leaf) {
    leaves.append(leaf)
  }

  /// One element.
  mutating func append(_ e: Element) {
    let p = openWords()
    p[openCount] = e
    openCount += 1
    if openCount >= _BlockSize.max { flush() }
  }

  /// Copies `count` elements from `source` to the open leaf, closing it each time it is full.
  private mutating func appendElements(_ source: UnsafePointer<Element>, _ count: Int) {
    var from = source
    var left = count
    while left > 0 {
      let p = openWords()
      let take = Swift.min(left, _BlockSize.max - openCount)
      // One memory copy (elements are trivial values: a height, an identifier); the typed
      // `update(from:count:)` copied identifiers one by one.
      UnsafeMutableRawPointer(p + openCount).copyMemory(from: from, byteCount: take * MemoryLayout<Element>.stride)
      openCount += take
      from += take
      left -= take
      if openCount >= _BlockSize.max { flush() }
    }
  }

  /// `count` elements of a run from `first`, element `offset` on, written out to the open
  /// leaf.
  private mutating func appendRunElements(_ first: Element, from offset: Int, _ count: Int) {
    var j = offset
    let end = offset + count
    while j < end {
      let p = openWords() + openCount
      let take = Swift.min(end - j, _BlockSize.max - openCount)
      for k in 0..<take { p[k] = Element._run(first, j + k) }
      openCount += take
      j += take
      if openCount >= _BlockSize.max { flush() }
    }
  }

  /// `values` (1...`_BlockSize.max` of them) as one explicit leaf of their own, after the
  /// open elements.
  mutating func appendLeaf(values: UnsafeBufferPointer<Element>) {
    flush()
    guard let base = values.baseAddress, values.count > 0 else { return }
    appendElements(base, values.count)
    flush()
  }

  /// Elements `range` of `leaf` written out as explicit elements.
  mutating func materialize(_ leaf: Leaf, _ range: Range<Int>) {
    guard !range.isEmpty else { return }
    if let storage = leaf.storage {
      appendElements(storage + range.lowerBound, range.count)
    } else {
      appendRunElements(leaf.first, from: range.lowerBound, range.count)
    }
  }

  /// A whole leaf of the edited sequence: shared when it can stand as a leaf of its own,
  /// else merged with its neighbours.
  mutating func appendLeaf(_ leaf: Leaf) {
    if leaf.isRun {
      appendRun(leaf.first, leaf.count)
    } else if openCount == 0 && leaf.count >= _BlockSize.min {
      if let last = leaves.last, !last.isRun, last.count < _BlockSize.min,
        last.count + leaf.count <= _BlockSize.max
      {
        // A small leaf before it (left by the elements before): merge the two.
        leaves.removeLast()
        materialize(last, 0..<last.count)
        materialize(leaf, 0..<leaf.count)
      } else {
        flush()
        push(leaf)
      }
    } else if openCount >= _BlockSize.min && leaf.count >= _BlockSize.min {
      flush()
      push(leaf)
    } else {
      materialize(leaf, 0..<leaf.count)
    }
  }

  /// Leaves `range` of `source` (the edited sequence), whole: the first as `appendLeaf`
  /// takes it (merged with what comes before it when that is small), the others shared as
  /// they are, in bulk.
  mutating func appendLeaves(of source: _Blocks<Leaf>, _ range: Range<Int>) {
    var b = range.lowerBound
    // One at a time while something is open or the last leaf is a run the next may
    // continue (`appendLeaf` merges those).
    while b < range.upperBound, openCount > 0 || b == range.lowerBound || (leaves.last?.isRun ?? false) {
      appendLeaf(source.leaves[b])
      b += 1
    }
    appendLeavesVerbatim(of: source, b..<range.upperBound)
  }

  /// Leaves `range` of `source` (the edited sequence) as they are, after the open
  /// elements: plain memory copies.
  mutating func appendLeavesVerbatim(of source: _Blocks<Leaf>, _ range: Range<Int>) {
    guard !range.isEmpty else { return }
    flush()
    leaves.append(contentsOf: source.leaves[range])
  }

  /// Elements `range` of `leaf` (a run slice stays a run).
  mutating func appendSlice(of leaf: Leaf, _ range: Range<Int>) {
    guard !range.isEmpty else { return }
    if leaf.isRun {
      appendRun(Element._run(leaf.first, range.lowerBound), range.count)
    } else {
      materialize(leaf, range)
    }
  }

  /// `count` elements of a run from `first`.
  mutating func appendRun(_ first: Element, _ count: Int) {
    guard count > 0 else { return }
    var first = first
    var count = count
    if openCount > 0 && openCount < _BlockSize.min {
      // Fill the small open leaf from the run rather than leave it small: up to the
      // smallest leaf (written out, the rest stays a run), or all of a run too short to
      // stand as a leaf after that.
      var take = _BlockSize.min - openCount
      if count - take < _BlockSize.min { take = count }
      appendRunElements(first, from: 0, take)
      first = Element._run(first, take)
      count -= take
      if count == 0 { return }
    }
    flush()
    if count < _BlockSize.min {
      // A short run is written out.
      appendRunElements(first, from: 0, count)
      return
    }
    if let last = leaves.last, last.isRun, Element._run(last.first, last.count) == first {
      leaves[leaves.count - 1] = Leaf(run: last.first, count: last.count + count)
    } else {
      push(Leaf(run: first, count: count))
    }
  }

  /// The sequence built. Its slabs: the new ones, and those of the edited sequence that
  /// some leaf still uses; while the slabs would hold more than twice the words in use,
  /// the leaves of the emptiest old slabs less than half used move to a new one (within a
  /// budget of about the words this build wrote, so no build pays for more than a share of
  /// the garbage it made).
  mutating func finish() -> _Blocks<Leaf> {
    var recycle = _Recycle<Leaf>()
    return finish(recycle: &recycle)
  }

  /// `finish()`, with the leaf starts written to `recycle`'s array where nothing else holds
  /// it; the old slabs the sequence no longer uses go to `recycle` (the next batch may
  /// build in them once the edited sequence is gone), recycled slabs this build did not
  /// need are released.
  mutating func finish(recycle: inout _Recycle<Leaf>) -> _Blocks<Leaf> {
    flush()
    // Recycled slabs this build did not take are released.
    defer {
      recycled = []
      recycle.slabsReused += slabsReused
    }
    // Each leaf's first index: a running sum of the counts.
    var starts = [Int]._reusing(&recycle.starts, capacity: leaves.count + 1)
    // Filled, then written through a pointer (an append per leaf cost five times more).
    starts.append(contentsOf: repeatElement(0, count: leaves.count + 1))
    // Words each old slab's leaves use, when some are old: counted for every slab, at
    // index slab + 1 (runs, slab -1, at 0), with no test per leaf (the tests took 11
    // instructions a leaf, and a batch at four million rows walks 62,000 leaves). In the
    // same walk of the leaves as the starts: a second walk missed the cache again on
    // every leaf at four million rows.
    var counts = [Int](repeating: 0, count: firstNew > 0 ? slabs.count + 1 : 0)
    leaves.withUnsafeBufferPointer { leaves in
      starts.withUnsafeMutableBufferPointer { s in
        var sum = 0
        if counts.isEmpty {
          for b in 0..<leaves.count {
            sum &+= leaves[b].count
            s[b &+ 1] = sum
          }
          return
        }
        counts.withUnsafeMutableBufferPointer { counts in
          for b in 0..<leaves.count {
            let leaf = leaves[b]
            sum &+= leaf.count
            s[b &+ 1] = sum
            counts[Int(leaf.slab) &+ 1] &+= Leaf.words(leaf.count)
          }
        }
      }
    }
    guard firstNew > 0 else { return _Blocks(leaves: leaves, starts: starts, slabs: slabs) }
    let used = Array(counts[1..<(firstNew + 1)])
    // New index of each old slab: -1 dropped (unused), -2 emptied (its leaves move).
    var remap = [Int32](repeating: -1, count: firstNew)
    // Old slabs are emptied only while the sequence would hold more than twice the words
    // it uses, the emptiest first (the most memory freed per word moved), within a budget
    // of about the words this build wrote. Emptying every slab under half used whenever the
    // budget allowed moved about as many words as the build wrote, every build: a fifth of
    // a batch's cache misses at a million rows (callgrind's cache model).
    var held = 0, inUse = written
    for s in firstNew..<slabs.count { held += slabs[s].capacity }
    for s in 0..<firstNew where used[s] > 0 {
      held += slabs[s].capacity
      inUse += used[s]
    }
    if held > 2 * inUse {
      var candidates: [(used: Int, slab: Int)] = []
      for s in 0..<firstNew where used[s] > 0 && 2 * used[s] < slabs[s].capacity { candidates.append((used[s], s)) }
      candidates.sort { $0.used < $1.used }
      var budget = written + _BlockSize.slab
      for c in candidates {
        guard held > 2 * inUse, c.used <= budget else { break }
        budget -= c.used
        remap[c.slab] = -2
        // Its capacity goes; its words move to new slabs.
        held -= slabs[c.slab].capacity - c.used
      }
    }
    var kept: [_Slab<Element>] = []
    kept.reserveCapacity(slabs.count)
    for s in 0..<firstNew {
      if used[s] == 0 || remap[s] == -2 {
        recycle.slabs.append(slabs[s])
      } else {
        remap[s] = Int32(kept.count)
        kept.append(slabs[s])
      }
    }
    if kept.count == firstNew { return _Blocks(leaves: leaves, starts: starts, slabs: slabs) }
    // One pass: kept slabs renumbered, new ones after them, moved leaves copied to new
    // slabs. The leaves are taken out of `self` while `room` appends slabs.
    let keptOld = kept.count
    var all = leaves
    leaves = []
    all.withUnsafeMutableBufferPointer { all in
      remap.withUnsafeBufferPointer { remap in
        for b in 0..<all.count {
          let s = Int(all[b].slab)
          if s < 0 { continue }
          if s >= firstNew {
            all[b].slab = Int32(s - firstNew + keptOld)
            continue
          }
          let r = remap[s]
          if r >= 0 {
            all[b].slab = r
            continue
          }
          let words = Leaf.words(all[b].count)
          let (p, slab) = room(words)
          p.update(from: all[b].storage!, count: words)
          all[b].storage = UnsafePointer(p)
          all[b].slab = Int32(Int(slab) - firstNew + keptOld)
        }
      }
    }
    kept.append(contentsOf: slabs[firstNew...])
    return _Blocks(leaves: all, starts: starts, slabs: kept)
  }
}

/// Runs `first` and `second` at once, on the calling thread and one of Dispatch's (both on
/// the calling thread when none is free), and returns when both have. Each may write only
/// what the other does not touch.
func _bothAtOnce(_ first: () -> Void, _ second: () -> Void) {
  withoutActuallyEscaping(first) { first in
    withoutActuallyEscaping(second) { second in
      let pair = _ClosurePair(first: first, second: second)
      DispatchQueue.concurrentPerform(iterations: 2) { i in
        if i == 0 { pair.first() } else { pair.second() }
      }
    }
  }
}

/// `_bothAtOnce`'s two closures, handed to Dispatch's threads.
private struct _ClosurePair: @unchecked Sendable {
  // @unchecked: the closures write disjoint variables (each part's builder and reads) and
  // only read what they share (the sequence before the batch, the map); concurrentPerform
  // returns after both, before anything they capture goes.
  let first: () -> Void
  let second: () -> Void
}
