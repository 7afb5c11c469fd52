// CellBatch: structure-of-arrays storage for the cells being animated, with reserved
// capacity so that appending during a frame allocates nothing.

import CellMotion

/// The cells of one or more recipes, in structure-of-arrays form.
///
/// Times: start times are kept exactly (Double, absolute) and handed to the kernel as Float
/// seconds relative to `timeOrigin`, so the kernel's time quantum is that of a Float near
/// zero whatever the absolute clock. The kernel evaluates only within
/// `precisionWindow` seconds of `timeOrigin` (beyond it, it throws); move the origin with
/// `rebase(to:)`, which is exact (it recomputes every relative time from the Double start
/// times). `TableAnimator` rebases automatically, so its sessions can run for days.
///
/// Speed: the kernel evaluates runs of consecutive cells that share a recipe, with that
/// recipe's constants broadcast across lanes. Append cells of one recipe together.
public struct CellBatch: Sendable {
  /// The compiled recipes cells refer to by index: the `baseRecipeCount` given to `init`,
  /// then the derived recipes `retarget` compiles (a recipe with some channels reading
  /// the cells' retarget rows; their `recipe` is the one they derive from).
  public internal(set) var recipes: [CompiledRecipe]
  /// The number of recipes given to `init`: the indices `append` takes.
  public let baseRecipeCount: Int
  /// Seconds; start times are stored relative to it.
  public private(set) var timeOrigin: Double
  /// Staggered start (start + stagger delay) - timeOrigin, seconds.
  public private(set) var start: [Float] = []
  /// Staggered start, absolute seconds (Double): the exact value `start` is derived from.
  var startExact: [Double] = []

  /// How far from `timeOrigin` (seconds, either way) the kernel evaluates: 16 s.
  ///
  /// Why 16: the kernel computes local time as Float(time - timeOrigin) - start, so its
  /// time quantum is the Float spacing at that distance: 1.9e-6 s at 16 s, 0.06 ms at
  /// 1,000 s, 1 ms at an hour. The differential tests check the stated tolerances (2e-5 on
  /// matrix entries, 1e-5 on opacity) at up to 10 s; 16 s keeps the quantum within a factor
  /// of two of that. Rebasing (`rebase(to:)`) is exact and O(count).
  public static let precisionWindow: Double = 16
  /// Cell bounds width, height, table width and fold detail height, points.
  public private(set) var width: [Float] = []
  public private(set) var height: [Float] = []
  public private(set) var tableWidth: [Float] = []
  public private(set) var detailHeight: [Float] = []
  public internal(set) var recipeIndex: [Int32] = []
  /// Row and position in the display batch (for the caller; stagger is already applied).
  public private(set) var row: [Int] = []
  public private(set) var batchPosition: [Int] = []

  /// How many neighbouring cells differ in recipe index: 0 when the whole batch is one run
  /// of one recipe, which the kernel then evaluates without scanning the indices.
  var recipeChanges = 0
  /// Absolute seconds after which each cell no longer changes (`endTime(ofCell:)`).
  var endExact: [Double] = []
  /// Each cell's retargeted channels and fold, exactly (nil: not retargeted).
  var motions: [CellMotions?] = []
  /// The cells' retarget rows, `RetargetRows`.
  var retargetRows = RetargetRows()
  /// Derived recipes by (base recipe, shapes), and the curves compiled so far.
  var derived: [DerivedKey: Int] = [:]
  var curveCache: [AnimationCurve: CompiledCurve] = [:]

  public var count: Int { start.count }
  public var isEmpty: Bool { start.isEmpty }

  /// Most cells a batch holds: 16,777,216 (2^24), 48 bytes each (about 805 MB);
  /// `FrameOutput.maxCapacity` is the same.
  public static let maxCapacity = 1 << 24
  /// Most recipes a batch holds: cells store their recipe index as an `Int32`.
  public static let maxRecipes = Int(Int32.max)

  /// Compiles (and validates) `recipes` and reserves room for `capacity` cells. A recipe
  /// given more than once is compiled once.
  ///
  /// - Parameters:
  ///   - recipes: the recipes cells refer to by index.
  ///   - capacity: cells to reserve room for, `0...maxCapacity`.
  ///   - timeOrigin: the time (seconds) start times are kept relative to.
  ///   - motion: a reduce-motion policy for every recipe (e.g. the system's Reduce Motion
  ///     setting); nil: each recipe's own (`Recipe.motion`).
  /// - Throws: `CellMotionError.outOfRange` unless `0 <= capacity <= maxCapacity` and
  ///   `recipes.count <= maxRecipes`; the first error of `CompiledRecipe(_:)`.
  public init(
    recipes: [Recipe], capacity: Int = 0, timeOrigin: Double = 0, motion: MotionPolicy? = nil
  ) throws(CellMotionError) {
    try Check.time(timeOrigin, "timeOrigin")
    try Check.count(capacity, max: Self.maxCapacity, "capacity")
    try Check.count(recipes.count, max: Self.maxRecipes, "recipes.count")
    var compiled: [CompiledRecipe] = []
    var seen: [Recipe: Int] = [:]
    for r in recipes {
      if let i = seen[r] { compiled.append(compiled[i]); continue }
      seen[r] = compiled.count
      compiled.append(try CompiledRecipe(r, motion: motion))
    }
    self.recipes = compiled
    baseRecipeCount = compiled.count
    self.timeOrigin = timeOrigin
    try reserveCapacity(capacity)
  }

  /// Reserves room for `n` cells in every array.
  ///
  /// - Throws: `CellMotionError.outOfRange` if `n > maxCapacity`; nothing is reserved.
  public mutating func reserveCapacity(_ n: Int) throws(CellMotionError) {
    guard n > 0 else { return }
    try Check.count(n, max: Self.maxCapacity, "capacity")
    start.reserveCapacity(n)
    startExact.reserveCapacity(n)
    width.reserveCapacity(n)
    height.reserveCapacity(n)
    tableWidth.reserveCapacity(n)
    detailHeight.reserveCapacity(n)
    recipeIndex.reserveCapacity(n)
    row.reserveCapacity(n)
    batchPosition.reserveCapacity(n)
    endExact.reserveCapacity(n)
    motions.reserveCapacity(n)
    retargetRows.reserve(cells: n)
  }

  /// Adds a cell. `startTime` is when the cell was displayed (seconds, absolute); the
  /// recipe's stagger is added here (`ReferenceEvaluator.staggerDelay`).
  /// - Parameters:
  ///   - recipe: index of the cell's recipe in `recipes`.
  ///   - row: the cell's row, >= 0.
  ///   - batchPosition: its position among the cells that appeared with it, >= 0.
  ///   - rowCount: the table's row count, needed when the recipe's stagger counts rows and
  ///     `needsCount` (an origin other than the first, a reversal, an ease).
  ///   - batchCount: the number of cells that appeared with this one, needed likewise when
  ///     the stagger counts batch positions.
  ///   - startTime: when the cell was displayed, seconds (absolute, in `InputLimits.time`).
  ///   - geometry: the cell's size and the table's width, points.
  /// - Throws: `.invalidCombination` when the stagger needs a count that is not given;
  ///   `.outOfRange` for a count below index + 1 and the other bad inputs.
  /// - Complexity: amortised O(1); no allocation while within the reserved capacity.
  public mutating func append(
    recipe: Int, row: Int, batchPosition: Int = 0, rowCount: Int? = nil, batchCount: Int? = nil,
    startTime: Double, geometry: CellGeometry
  ) throws(CellMotionError) {
    guard recipe >= 0, recipe < baseRecipeCount else {
      throw .indexOutOfRange(field: "recipe index", index: recipe, count: baseRecipeCount)
    }
    guard count < Self.maxCapacity else {
      throw .outOfRange(field: "cell count", value: Double(count) + 1, expected: "<= \(Self.maxCapacity)")
    }
    try Check.time(startTime, "startTime")
    try geometry.validate()
    guard row >= 0 else { throw .outOfRange(field: "row", value: Double(row), expected: ">= 0") }
    guard batchPosition >= 0 else {
      throw .outOfRange(field: "batchPosition", value: Double(batchPosition), expected: ">= 0")
    }
    let stagger = recipes[recipe].recipe.stagger
    if stagger.needsCount {
      let (name, count, index) = stagger.base == .row ? ("rowCount", rowCount, row) : ("batchCount", batchCount, batchPosition)
      guard let count else {
        throw .invalidCombination(
          field: name, reason: "recipe \(recipes[recipe].recipe.name)'s stagger depends on the number of cells; give \(name)")
      }
      guard count > index, count <= Stagger.maximumCount else {
        throw .outOfRange(field: name, value: Double(count), expected: "\(index + 1)...\(Stagger.maximumCount)")
      }
    }
    let delay = ReferenceEvaluator.staggerDelay(
      stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    startExact.append(startTime + delay)
    start.append(Float(startTime + delay - timeOrigin))
    width.append(Float(geometry.width))
    height.append(Float(geometry.height))
    tableWidth.append(Float(geometry.tableWidth))
    detailHeight.append(Float(geometry.detailHeight ?? geometry.height))
    if let last = recipeIndex.last, last != Int32(recipe) { recipeChanges += 1 }
    recipeIndex.append(Int32(recipe))
    self.row.append(row)
    self.batchPosition.append(batchPosition)
    endExact.append(startTime + delay + recipes[recipe].activeDuration)
    motions.append(nil)
    retargetRows.reserve(cells: count)
  }

  /// Removes every cell, keeping capacity.
  public mutating func removeAll() {
    start.removeAll(keepingCapacity: true)
    startExact.removeAll(keepingCapacity: true)
    width.removeAll(keepingCapacity: true)
    height.removeAll(keepingCapacity: true)
    tableWidth.removeAll(keepingCapacity: true)
    detailHeight.removeAll(keepingCapacity: true)
    recipeIndex.removeAll(keepingCapacity: true)
    recipeChanges = 0
    row.removeAll(keepingCapacity: true)
    batchPosition.removeAll(keepingCapacity: true)
    endExact.removeAll(keepingCapacity: true)
    motions.removeAll(keepingCapacity: true)
  }

  /// Seconds (absolute) after which cell `i` no longer changes: its staggered start plus
  /// its recipe's active duration. After it the cell shows its recipe's end values.
  ///
  /// - Precondition: `0 <= i < count`.
  public func endTime(ofCell i: Int) -> Double {
    precondition(i >= 0 && i < count, "CellBatch: cell index \(i) out of range 0..<\(count)")
    return endExact[i]
  }

  /// Removes cells for which `shouldRemove(index)` is true, keeping order; O(count), no
  /// allocation.
  public mutating func removeCells(where shouldRemove: (Int) -> Bool) {
    compact { i, _, _ in !shouldRemove(i) }
  }

  /// Removes the cells that have finished by `time` (absolute seconds; see `endTime`) or
  /// whose row `removeRow` rejects, keeping order; O(count), no allocation.
  public mutating func removeCells(finishedBy time: Double, orRow removeRow: (Int) -> Bool) {
    compact { _, row, end in end > time && !removeRow(row) }
  }

  /// Relabels every cell's row with `newRow(row)` (a table's rows renumbered by a batch
  /// update) and removes the cells it maps to nil, keeping order; O(count), no allocation.
  package mutating func relabelRows(_ newRow: (Int) -> Int?) {
    compact { _, row, _ in newRow(row) != nil }
    for i in row.indices { row[i] = newRow(row[i])! }
  }

  /// Keeps the cells for which `keep(index, row, endTime)` holds, in order.
  mutating func compact(_ keep: (_ index: Int, _ row: Int, _ endTime: Double) -> Bool) {
    var w = 0
    for r in 0..<count {
      guard keep(r, row[r], endExact[r]) else { continue }
      if w != r {
        start[w] = start[r]
        startExact[w] = startExact[r]
        width[w] = width[r]
        height[w] = height[r]
        tableWidth[w] = tableWidth[r]
        detailHeight[w] = detailHeight[r]
        recipeIndex[w] = recipeIndex[r]
        row[w] = row[r]
        batchPosition[w] = batchPosition[r]
        endExact[w] = endExact[r]
        motions[w] = motions[r]
        retargetRows.move(cell: r, to: w)
      }
      w += 1
    }
    let n = count - w
    start.removeLast(n)
    startExact.removeLast(n)
    width.removeLast(n)
    height.removeLast(n)
    tableWidth.removeLast(n)
    detailHeight.removeLast(n)
    recipeIndex.removeLast(n)
    recipeChanges = 0
    for i in recipeIndex.indices.dropFirst() where recipeIndex[i] != recipeIndex[i - 1] { recipeChanges += 1 }
    row.removeLast(n)
    batchPosition.removeLast(n)
    endExact.removeLast(n)
    motions.removeLast(n)
  }

  /// Moves the time origin (absolute seconds, in `InputLimits.time`), recomputing every
  /// relative start time from the exact Double start: rebasing any number of times gives
  /// the same Floats as appending with this origin in the first place.
  /// - Complexity: O(count); no allocation.
  public mutating func rebase(to origin: Double) throws(CellMotionError) {
    try Check.time(origin, "timeOrigin")
    for i in 0..<count { start[i] = Float(startExact[i] - origin) }
    timeOrigin = origin
    for i in 0..<count where motions[i] != nil { writeRetargetRows(cell: i) }
  }

  /// Whether the kernel evaluates this batch at `time` (absolute seconds): within
  /// `precisionWindow` of `timeOrigin`.
  public func isWithinPrecisionWindow(_ time: Double) -> Bool {
    (time - timeOrigin).magnitude <= Self.precisionWindow
  }
}
