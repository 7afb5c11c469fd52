// Stagger: the extra delay of each cell, from its place among the cells that appear
// together. The anchors (facts, not code): framer-motion's stagger(step, { from, ease }),
// anime.js's stagger(step, { from, grid, axis, reversed, ease }), Android's
// LayoutAnimationController orders (normal, reverse, random). See `Stagger.delay(index:count:)`.

/// Which index the stagger counts.
public enum StaggerBase: String, Sendable, Hashable, Codable, CaseIterable {
  /// The absolute row (as the tutorials wrote it: rows far down wait long); the count is
  /// the table's row count.
  case row
  /// The position among the rows that appeared in the same frame (what users usually want
  /// when the table is scrolled far down); the count is the number of rows in that batch.
  case batchPosition
}

/// Where a stagger starts: the cell whose delay is 0, the others waiting by their distance
/// from it.
public enum StaggerOrigin: Sendable, Hashable {
  /// Index 0 (the first row, or the top-left cell of a grid).
  case first
  /// Index count - 1.
  case last
  /// The middle: index (count - 1) / 2, or the grid's centre ((columns - 1) / 2,
  /// (rows - 1) / 2); fractional, so an even count has two cells at distance 1/2.
  case center
  /// A given index (>= 0; it may lie past the batch, which then cascades towards it).
  case index(Int)
  /// A seeded pseudo-random order (Android's ORDER_RANDOM): the distance of index i is its
  /// place in a random permutation of 0..<count fixed by `seed` (`Stagger.permuted`).
  case random(seed: UInt64)
}

/// Distance in a grid of cells (anime.js `axis`).
public enum StaggerAxis: String, Sendable, Hashable, Codable, CaseIterable {
  /// Euclidean distance sqrt(dx^2 + dy^2), in cells.
  case both
  /// Column distance |dx| only.
  case x
  /// Row distance |dy| only.
  case y
}

/// Cells laid out in columns, filled row by row: index i sits at column i % columns, row
/// i / columns (a collection view's flow layout).
public struct StaggerGrid: Sendable, Hashable, Codable {
  /// Cells per row, >= 1.
  public var columns: Int
  /// How distance is measured (default `.both`).
  public var axis: StaggerAxis
  public init(columns: Int, axis: StaggerAxis = .both) {
    self.columns = columns
    self.axis = axis
  }
}

/// Extra delay per cell: `step` seconds per unit of distance from the origin.
///
/// For a cell at index i (`base`: row, or position in its batch) among `count` cells:
/// 1. the origin o (`from`), and the distance d(i): |i - o| in a line; in a grid
///    (`grid`), sqrt(dx^2 + dy^2) between (i % C, i / C) and the origin's cell, or |dx|
///    or |dy| (`StaggerGrid.axis`); for `.random`, i's place in a seeded permutation;
/// 2. D = the largest d over the count cells (0 for a single cell);
/// 3. `ease`: d = D x ease(d / D) (anime.js: the delays follow the curve over the same
///    span; framer-motion normalises by count x step instead, which never reaches D);
/// 4. `reversed`: d = D - d (the farthest cells start first: Android's ORDER_REVERSE,
///    anime.js's `reversed`, applied after the ease as anime.js does);
/// 5. delay = step x d, seconds. Distances in a grid's `axis` are magnitudes (anime.js
///    signs them, which gives negative delays before the origin).
///
/// The default (`from: .first`, no grid, not reversed, no ease) is the plain
/// `step x index`, which needs no count.
public struct Stagger: Sendable, Hashable, Codable {
  /// Seconds per unit of distance, >= 0.
  public var step: Double
  /// Which index counts (default `.row`).
  public var base: StaggerBase
  /// Where the stagger starts (default `.first`).
  public var from: StaggerOrigin
  /// Cells in columns, or nil for a line (the default).
  public var grid: StaggerGrid?
  /// Farthest first (default false).
  public var reversed: Bool
  /// An ease over the distances (default none: linear).
  public var ease: TimingCurve?

  public init(
    step: Double, base: StaggerBase = .row, from: StaggerOrigin = .first, grid: StaggerGrid? = nil,
    reversed: Bool = false, ease: TimingCurve? = nil
  ) {
    self.step = step
    self.base = base
    self.from = from
    self.grid = grid
    self.reversed = reversed
    self.ease = ease
  }

  /// No stagger.
  public static let none = Stagger(step: 0)

  /// Whether the delay depends on the number of cells (any origin but `.first`, a
  /// reversal or an ease); then callers must give the count.
  public var needsCount: Bool {
    step != 0 && (from != .first || reversed || ease != nil)
  }

  /// Largest index (and count) the stagger accepts: 2^26, so distances are exact in
  /// Double and a permutation fits its 64-bit arithmetic.
  public static let maximumCount = 1 << 26

  /// The delay in seconds of the cell at `index` among `count` cells (see the type's
  /// rule). A negative index counts as 0. The default order (first, a line, not reversed,
  /// not eased) is step x index for any index; the others raise `count` to index + 1 when
  /// smaller and clamp index and count below `maximumCount` (`CellBatch.append` refuses
  /// counts beyond it).
  public func delay(index: Int, count: Int) -> Double {
    guard step != 0 else { return 0 }
    if from == .first && grid == nil && !reversed && ease == nil { return step * Double(max(index, 0)) }
    let i = min(max(index, 0), Self.maximumCount - 1)
    let n = min(max(count, i + 1), Self.maximumCount)
    var d = distance(i, n)
    if !reversed && ease == nil { return step * d }
    let far = farthest(n)
    // anime.js's order: the ease over d / D first, then the reversal D - d.
    if let ease, far > 0 { d = far * ease.value(at: min(max(d / far, 0), 1)) }
    if reversed { d = far - d }
    return step * d
  }

  /// Cell index -> (column, row) in the grid; (i, 0) in a line.
  private func cell(_ i: Int) -> (x: Double, y: Double) {
    guard let grid else { return (Double(i), 0) }
    let c = max(grid.columns, 1)
    return (Double(i % c), Double(i / c))
  }

  /// The origin's (column, row) for `n` cells.
  private func origin(_ n: Int) -> (x: Double, y: Double) {
    let c = max(grid?.columns ?? 1, 1)
    switch from {
    case .first, .random: return (0, 0)
    case .last: return cell(n - 1)
    case .index(let k): return cell(max(k, 0))
    case .center:
      if grid == nil { return (Double(n - 1) / 2, 0) }
      let rows = (n + c - 1) / c
      return (Double(min(c, n) - 1) / 2, Double(rows - 1) / 2)
    }
  }

  /// d(i) for `n` cells.
  private func distance(_ i: Int, _ n: Int) -> Double {
    if case .random(let seed) = from { return Double(Self.permuted(i, count: n, seed: seed)) }
    let p = cell(i), o = origin(n)
    let dx = (p.x - o.x).magnitude, dy = (p.y - o.y).magnitude
    guard let grid else { return dx }
    switch grid.axis {
    case .both: return (dx * dx + dy * dy).squareRoot()
    case .x: return dx
    case .y: return dy
    }
  }

  /// D: the largest distance over `n` cells. In a grid the farthest cell from any point
  /// is a corner of the filled region: (0, 0), (C - 1, 0), (0, R - 1), the last cell,
  /// and (C - 1, R - 2) when the last row is partial.
  private func farthest(_ n: Int) -> Double {
    if case .random = from { return Double(n - 1) }
    let c = max(grid?.columns ?? n, 1)
    var candidates = [0, n - 1, min(c, n) - 1]
    let rows = (n + c - 1) / c
    candidates.append((rows - 1) * c)
    if n % c != 0 && rows >= 2 { candidates.append((rows - 1) * c - 1) }
    var far = 0.0
    for k in candidates where k >= 0 && k < n { far = max(far, distance(k, n)) }
    return far
  }

  /// A seeded pseudo-random permutation of 0..<count, evaluated at `index` in O(1)
  /// without storing it: a 4-round Feistel network over the smallest even number of bits
  /// covering `count` (a bijection of that power of two), walked until the value falls
  /// below `count` (cycle walking keeps it a bijection of 0..<count). The rounds mix with
  /// SplitMix64's finaliser keyed by `seed`.
  ///
  /// `count` is clamped to `1...maximumCount` and `index` to `0..<count`, so the walk
  /// always ends (for an index outside the range the result would never fall below it).
  public static func permuted(_ index: Int, count: Int, seed: UInt64) -> Int {
    let count = min(count, maximumCount)
    guard count > 1 else { return 0 }
    let index = min(max(index, 0), count - 1)
    var bits = 2
    while (1 << bits) < count { bits += 2 }
    let half = bits / 2, mask = UInt64((1 << half) - 1)
    var x = UInt64(index)
    repeat {
      var l = x >> UInt64(half), r = x & mask
      for round in 0..<4 {
        var z = r &+ seed &+ UInt64(round) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        (l, r) = (r, l ^ (z & mask))
      }
      x = (l << UInt64(half)) | r
    } while x >= UInt64(count)
    return Int(x)
  }

  /// Largest random seed: 2^53 - 1, so a seed survives a JSON file as an exact integer
  /// (numbers are Doubles there).
  public static let maximumSeed: UInt64 = (1 << 53) - 1

  /// Checks the numbers: step in `InputLimits.delay`, a grid's columns in
  /// 1...`maximumCount`, an origin index in 0...`maximumCount`, a seed in
  /// 0...`maximumSeed`.
  /// - Throws: `CellMotionError.notFinite` / `.outOfRange` naming `field`'s member.
  public func validate(_ field: String = "stagger") throws(CellMotionError) {
    try Check.within(step, InputLimits.delay, "\(field).step")
    if let grid, grid.columns < 1 || grid.columns > Self.maximumCount {
      throw .outOfRange(field: "\(field).grid.columns", value: Double(grid.columns), expected: "1...\(Self.maximumCount)")
    }
    if case .index(let k) = from, k < 0 || k > Self.maximumCount {
      throw .outOfRange(field: "\(field).from", value: Double(k), expected: "0...\(Self.maximumCount)")
    }
    if case .random(let seed) = from, seed > Self.maximumSeed {
      throw .outOfRange(field: "\(field).from.random", value: Double(seed), expected: "0...2^53 - 1")
    }
  }
}
