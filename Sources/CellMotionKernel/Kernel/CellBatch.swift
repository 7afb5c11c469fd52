// CellBatch: structure-of-arrays storage for the cells being animated, with reserved
// capacity so that appending during a frame allocates nothing.

import CellMotion
import _CellMotionShims

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
  public internal(set) var recipes: [CompiledRecipe] { didSet { recipeSummary = RecipeSummary(recipes) } }
  /// What a frame asks of all the recipes at once (`Kernel.evaluate`, `FrameJob.validate`),
  /// kept with them: read per frame, it walked and copied every compiled recipe.
  private(set) var recipeSummary: RecipeSummary
  /// The number of recipes given to `init`: the indices `append` takes.
  public let baseRecipeCount: Int
  /// Where the cells' progress comes from (`ProgressSource`): the clock (start times, the
  /// frame time) or a progress per cell the caller sets (`setProgress`).
  public let source: ProgressSource
  /// Seconds; start times are stored relative to it.
  public private(set) var timeOrigin: Double

  /// How far from `timeOrigin` (seconds, either way) the kernel evaluates: 16 s.
  ///
  /// Why 16: the kernel computes local time as Float(time - timeOrigin) - start, so its
  /// time quantum is the Float spacing at that distance: 1.9e-6 s at 16 s, 0.06 ms at
  /// 1,000 s, 1 ms at an hour. The differential tests check the stated tolerances (2e-5 on
  /// matrix entries, 1e-5 on opacity) at up to 10 s; 16 s keeps the quantum within a factor
  /// of two of that. Rebasing (`rebase(to:)`) is exact and O(count). A recipe driven by
  /// progress spans at most this long (`CompiledRecipe.init`), for the same quantum.
  public static let precisionWindow: Double = 16

  /// Every per-cell column (`CellColumns`: declared there once).
  var columns = CellColumns()

  /// Where the kernel measures each cell's time from, seconds relative to `timeOrigin`: its
  /// staggered start (start + stagger delay) plus its recipe's `startShift` (the delay all
  /// its parts share), computed in Double and rounded once (0 for cells driven by
  /// progress).
  public var start: CellColumn<Float> { columns.start }
  /// Each cell's progress (`ProgressSource.progress`; 0 for cells on the clock).
  public var progress: CellColumn<Float> { columns.progress }
  /// Cell bounds width, height, table width and fold detail height, points.
  public var width: CellColumn<Float> { columns.width }
  public var height: CellColumn<Float> { columns.height }
  public var tableWidth: CellColumn<Float> { columns.tableWidth }
  public var detailHeight: CellColumn<Float> { columns.detailHeight }
  public var recipeIndex: CellColumn<Int32> { columns.recipeIndex }
  /// Row and position in the display batch (for the caller; stagger is already applied).
  public var row: CellColumn<Int> { columns.row }
  public var batchPosition: CellColumn<Int> { columns.batchPosition }
  /// Staggered start, absolute seconds (Double): the exact value `start` is derived from.
  var startExact: CellColumn<Double> { columns.startExact }
  /// Each cell's retargeted channels and fold, exactly (nil: not retargeted).
  var motions: CellColumn<CellMotions?> { columns.motions }

  /// How many neighbouring cells differ in recipe index: 0 when the whole batch is one run
  /// of one recipe, which the kernel then evaluates without scanning the indices.
  var recipeChanges = 0
  /// The cells' retarget rows, `RetargetRows`.
  var retargetRows = RetargetRows()
  /// Scratch for `compact`: which cells stay (grows to the most cells compacted, then kept).
  var keepScratch: [Bool] = []
  /// Scratch for `compact`: the runs of cells kept after the first removed, as (first
  /// cell, count) pairs; two more entries than `keepScratch` (a run needs a removed cell
  /// before it).
  var runScratch: [Int] = []
  /// Scratch for `append(contentsOf:)`: the staggered starts of the cells being appended
  /// (a column like the others: `CellColumns.extend` sizes it).
  var startScratch = CellColumn<Double>()
  /// Derived recipes by (base recipe, shapes), and the curves compiled so far.
  var derived: [DerivedKey: Int] = [:]
  var curveCache: [AnimationCurve: CompiledCurve] = [:]

  public var count: Int { columns.start.count }
  public var isEmpty: Bool { columns.start.isEmpty }

  /// Most cells a batch holds: 16,777,216 (2^24), 52 bytes each (about 872 MB);
  /// `FrameOutput.maxCapacity` is the same.
  public static let maxCapacity = 1 << 24
  /// Cells (rows) whose per-frame arrays an owner writes once when it is made, so a first
  /// frame of thousands of cells does not fault their pages in (`ScrollEffectBatch`,
  /// `TableAnimator`): 65,536. Beyond it a capacity is reserved, not made resident.
  package static let touchedAtInit = 1 << 16
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
  ///   - source: where every cell's progress comes from: the clock (`append(recipe:row:
  ///     batchPosition:rowCount:batchCount:startTime:geometry:)`) or a progress per cell
  ///     (`append(recipe:row:progress:geometry:)`, `setProgress`).
  /// - Throws: `CellMotionError.outOfRange` unless `0 <= capacity <= maxCapacity` and
  ///   `recipes.count <= maxRecipes`; the first error of `CompiledRecipe(_:motion:source:)`.
  public init(
    recipes: [Recipe], capacity: Int = 0, timeOrigin: Double = 0, motion: MotionPolicy? = nil,
    source: ProgressSource = .clock
  ) throws(CellMotionError) {
    try Check.time(timeOrigin, "timeOrigin")
    try Check.count(capacity, max: Self.maxCapacity, "capacity")
    try Check.count(recipes.count, max: Self.maxRecipes, "recipes.count")
    var compiled: [CompiledRecipe] = []
    var seen: [Recipe: Int] = [:]
    for r in recipes {
      if let i = seen[r] { compiled.append(compiled[i]); continue }
      seen[r] = compiled.count
      compiled.append(try CompiledRecipe(r, motion: motion, source: source))
    }
    self.recipes = compiled
    recipeSummary = RecipeSummary(compiled)
    self.source = source
    baseRecipeCount = compiled.count
    self.timeOrigin = timeOrigin
    try reserveCapacity(capacity)
    // The pages of the columns and scratches a first frame of thousands of cells fills,
    // written once here (up to `touchedAtInit` cells): reserved only, they were faulted in
    // inside that frame.
    let touched = Swift.min(capacity, Self.touchedAtInit)
    if touched > 0 {
      columns.touch(touched)
      startScratch.reserveResident(touched, touching: touched, with: 0)
      // What `reserveKeepScratch` grows them to at the first append.
      keepScratch.append(contentsOf: repeatElement(false, count: Swift.max(capacity, columns.row.capacity)))
      runScratch.append(contentsOf: repeatElement(0, count: keepScratch.count + 2))
    }
  }

  /// Reserves room for `n` cells in every array.
  ///
  /// - Throws: `CellMotionError.outOfRange` if `n > maxCapacity`; nothing is reserved.
  public mutating func reserveCapacity(_ n: Int) throws(CellMotionError) {
    guard n > 0 else { return }
    try Check.count(n, max: Self.maxCapacity, "capacity")
    columns.reserveCapacity(n)
    retargetRows.reserve(cells: n)
    keepScratch.reserveCapacity(n)
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
  ///   `.outOfRange` for a count below index + 1 or above `Stagger.maximumCount`, an index
  ///   (row or batch position) at or above `Stagger.maximumCount` when the stagger needs
  ///   the count, and the other bad inputs. Without such a stagger any row >= 0 is
  ///   accepted, `Int.max` included.
  ///   `.outOfRange` also when a rotation channel whose angle depends on the geometry
  ///   would turn this cell beyond `CompiledRecipe.maximumAngle`.
  /// - Complexity: amortised O(1); no allocation while within the reserved capacity.
  public mutating func append(
    recipe: Int, row: Int, batchPosition: Int = 0, rowCount: Int? = nil, batchCount: Int? = nil,
    startTime: Double, geometry: CellGeometry
  ) throws(CellMotionError) {
    guard source == .clock else {
      throw .invalidCombination(field: "startTime", reason: "this batch is driven by progress; append with a progress")
    }
    try checkAppend(recipe: recipe, row: row, batchPosition: batchPosition, geometry: geometry)
    let startExact = try staggeredStart(
      recipe: recipe, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount,
      startTime: startTime)
    append(
      recipe: recipe, row: row, batchPosition: batchPosition, startExact: startExact, progress: 0, geometry: geometry)
  }

  /// A cell to append on the clock: the arguments of
  /// `append(recipe:row:batchPosition:rowCount:batchCount:startTime:geometry:)`, which say
  /// what each is (rows and counts are numbers of rows, `startTime` absolute seconds,
  /// `geometry` points).
  public struct Start: Sendable, Equatable {
    public var recipe: Int
    public var row: Int
    public var batchPosition: Int
    public var rowCount: Int?
    public var batchCount: Int?
    public var startTime: Double
    public var geometry: CellGeometry

    public init(
      recipe: Int, row: Int, batchPosition: Int = 0, rowCount: Int? = nil, batchCount: Int? = nil,
      startTime: Double, geometry: CellGeometry
    ) {
      self.recipe = recipe
      self.row = row
      self.batchPosition = batchPosition
      self.rowCount = rowCount
      self.batchCount = batchCount
      self.startTime = startTime
      self.geometry = geometry
    }
  }

  /// Appends `starts` in order: the same cells, bit for bit, as one
  /// `append(recipe:row:batchPosition:rowCount:batchCount:startTime:geometry:)` each, all
  /// checked first, then written one column at a time (a table's first frame starts
  /// thousands of cells; one append each wrote every column per cell).
  ///
  /// - Throws: what that `append` throws for the first bad start; then no cell is
  ///   appended.
  /// - Complexity: O(starts.count); no allocation while within the reserved capacity and
  ///   the largest number of starts appended at once so far.
  public mutating func append(contentsOf starts: UnsafeBufferPointer<Start>) throws(CellMotionError) {
    guard !starts.isEmpty else { return }
    guard source == .clock else {
      throw .invalidCombination(field: "startTime", reason: "this batch is driven by progress; append with a progress")
    }
    let n = starts.count
    // The scratch is moved out while the checks read `self` (it keeps its capacity).
    var scratch = CellColumn<Double>()
    swap(&scratch, &startScratch)
    defer { swap(&scratch, &startScratch) }
    CellColumns.extend(&scratch, to: n)
    // The checks and the start of `append`, cell by cell, with what they read of the
    // recipe (its angle reaches, its stagger) taken once per run of cells of one recipe:
    // read per cell, they retained the reaches and copied the stagger each time, about a
    // third of a 10,000-row first frame (issue 32).
    var cached = -1
    var reaches: [AngleReach] = []
    var stagger = Stagger.none
    // 0: no delay; 1: step x index (from the first, in a line, no ease, not reversed);
    // 2: the general rule (`staggeredStart`).
    var staggerKind = 0
    // A plain loop: a closure here captures the whole batch, copied per cell.
    for k in 0..<n {
      let c = starts[k]
      if c.recipe != cached, c.recipe >= 0, c.recipe < baseRecipeCount {
        cached = c.recipe
        (reaches, stagger) = recipes.withUnsafeBufferPointer { ($0[c.recipe].angleReaches, $0[c.recipe].recipe.stagger) }
        staggerKind =
          stagger.step == 0 ? 0 : !stagger.needsCount && stagger.grid == nil && stagger.from == .first ? 1 : 2
      }
      try checkAppend(
        recipe: c.recipe, row: c.row, batchPosition: c.batchPosition, geometry: c.geometry, pending: k, reaches: reaches)
      switch staggerKind {
      case 0, 1:
        if !InputLimits.time.contains(c.startTime) { try Check.time(c.startTime, "startTime") }
        // `Stagger.delay`'s own first cases: exactly the same values.
        let index = stagger.base == .row ? c.row : c.batchPosition
        scratch[k] = staggerKind == 0 ? c.startTime + 0 : c.startTime + stagger.step * Double(Swift.max(index, 0))
      default:
        scratch[k] = try staggeredStart(
          recipe: c.recipe, row: c.row, batchPosition: c.batchPosition, rowCount: c.rowCount,
          batchCount: c.batchCount, startTime: c.startTime)
      }
    }
    if let last = columns.recipeIndex.last, last != Int32(starts[0].recipe) { recipeChanges += 1 }
    for k in starts.indices.dropFirst() where starts[k].recipe != starts[k - 1].recipe { recipeChanges += 1 }
    let origin = timeOrigin
    scratch.withUnsafeBufferPointer { exact in
      recipes.withUnsafeBufferPointer { r in
        // The values `append(recipe:row:batchPosition:startExact:progress:geometry:)` stores.
        CellColumns.append(&columns.start, n) { Float(exact[$0] + r[starts[$0].recipe].startShift - origin) }
        CellColumns.append(&columns.startExact, n) { exact[$0] }
        CellColumns.append(&columns.progress, repeating: 0, n)
        CellColumns.append(&columns.width, n) { Float(starts[$0].geometry.width) }
        CellColumns.append(&columns.height, n) { Float(starts[$0].geometry.height) }
        CellColumns.append(&columns.tableWidth, n) { Float(starts[$0].geometry.tableWidth) }
        CellColumns.append(&columns.detailHeight, n) { Float(starts[$0].geometry.detailHeight ?? starts[$0].geometry.height) }
        CellColumns.append(&columns.recipeIndex, n) { Int32(starts[$0].recipe) }
        CellColumns.append(&columns.row, n) { starts[$0].row }
        CellColumns.append(&columns.batchPosition, n) { starts[$0].batchPosition }
        CellColumns.append(&columns.endExact, n) { exact[$0] + r[starts[$0].recipe].activeDuration }
        columns.motions.append(contentsOf: repeatElement(nil, count: n))
      }
    }
    retargetRows.reserve(cells: count)
    reserveKeepScratch()
  }

  /// The staggered start (absolute seconds) of a cell on the clock, checked as `append`
  /// documents: the time, and the counts a stagger that depends on them needs.
  private func staggeredStart(
    recipe: Int, row: Int, batchPosition: Int, rowCount: Int?, batchCount: Int?, startTime: Double
  ) throws(CellMotionError) -> Double {
    if !InputLimits.time.contains(startTime) { try Check.time(startTime, "startTime") }
    let stagger = recipes.withUnsafeBufferPointer { $0[recipe].recipe.stagger }
    if stagger.needsCount {
      let (name, count, index) = stagger.base == .row ? ("rowCount", rowCount, row) : ("batchCount", batchCount, batchPosition)
      guard let count else {
        throw .invalidCombination(
          field: name, reason: "recipe \(recipes[recipe].recipe.name)'s stagger depends on the number of cells; give \(name)")
      }
      // The index first: the count's range below is stated from it (index + 1 cannot
      // overflow once the index is below `Stagger.maximumCount`).
      guard index < Stagger.maximumCount else {
        throw .outOfRange(
          field: stagger.base == .row ? "row" : "batchPosition", value: Double(index),
          expected: "< \(Stagger.maximumCount) for a stagger that depends on the number of cells")
      }
      guard count > index, count <= Stagger.maximumCount else {
        throw .outOfRange(field: name, value: Double(count), expected: "\(index + 1)...\(Stagger.maximumCount)")
      }
    }
    let delay = ReferenceEvaluator.staggerDelay(
      stagger, row: row, batchPosition: batchPosition, rowCount: rowCount, batchCount: batchCount)
    return startTime + delay
  }

  /// Adds a cell driven by progress (a batch made with `source: .progress`): `progress` is
  /// where the cell is on its recipe's timeline (0 the start, 1 the end; `ProgressSource`),
  /// set again each frame with `setProgress`. No stagger applies.
  /// - Throws: `.invalidCombination` for a batch on the clock; `.notFinite` or
  ///   `.outOfRange` for a progress outside `InputLimits.progress`; otherwise as the clock's
  ///   `append`.
  /// - Complexity: amortised O(1); no allocation while within the reserved capacity.
  public mutating func append(recipe: Int, row: Int, progress: Double, geometry: CellGeometry) throws(CellMotionError) {
    guard source == .progress else {
      throw .invalidCombination(field: "progress", reason: "this batch runs on the clock; append with a startTime")
    }
    try checkAppend(recipe: recipe, row: row, batchPosition: 0, geometry: geometry)
    try Check.within(progress, InputLimits.progress, "progress")
    append(recipe: recipe, row: row, batchPosition: 0, startExact: 0, progress: Float(progress), geometry: geometry)
  }

  /// Sets cell `i`'s progress (a batch driven by progress).
  /// - Throws: `.indexOutOfRange`; `.invalidCombination` for a batch on the clock;
  ///   `.notFinite` or `.outOfRange` outside `InputLimits.progress`.
  public mutating func setProgress(_ progress: Double, ofCell i: Int) throws(CellMotionError) {
    guard i >= 0, i < count else { throw .indexOutOfRange(field: "cell", index: i, count: count) }
    guard source == .progress else {
      throw .invalidCombination(field: "progress", reason: "this batch runs on the clock")
    }
    try Check.within(progress, InputLimits.progress, "progress")
    columns.progress[i] = Float(progress)
  }

  /// Sets the progress of cells `first ..< first + values.count` (a batch driven by
  /// progress) from `values`, each checked; nothing changes when it throws.
  /// - Throws: `.indexOutOfRange` when the cells do not all exist; `.invalidCombination`
  ///   for a batch on the clock; `.notFinite` or `.outOfRange` (naming the value's index)
  ///   outside `InputLimits.progress`.
  /// - Complexity: O(values.count); no allocation.
  public mutating func setProgress(_ values: UnsafeBufferPointer<Float>, startingAt first: Int = 0)
    throws(CellMotionError)
  {
    guard first >= 0, first <= count, values.count <= count - first else {
      throw .indexOutOfRange(field: "cell", index: first + values.count - 1, count: count)
    }
    guard source == .progress else {
      throw .invalidCombination(field: "progress", reason: "this batch runs on the clock")
    }
    // Messages are built only for a bad value: this runs on every frame of a driven batch.
    for (k, v) in values.enumerated() where !InputLimits.progress.contains(Double(v)) {
      try Check.within(Double(v), InputLimits.progress, "progress[\(k)]")
    }
    columns.progress.withUnsafeMutableBufferPointer { p in
      for (k, v) in values.enumerated() { p[first + k] = v }
    }
  }

  /// Makes a batch driven by progress hold `n` cells of recipe 0, rows 0..<n, at progress
  /// 0 with the smallest valid geometry until the caller writes its columns
  /// (`withProgressColumns`): the fast path of a batch rewritten every frame
  /// (`ScrollEffectBatch`). Keeps capacity; no allocation within it.
  /// - Throws: `.invalidCombination` for a batch on the clock; `.outOfRange` above
  ///   `maxCapacity`.
  package mutating func resizeForProgress(count n: Int) throws(CellMotionError) {
    guard source == .progress else {
      throw .invalidCombination(field: "count", reason: "only a batch driven by progress is resized")
    }
    try Check.count(n, max: Self.maxCapacity, "count")
    if count > n { columns.removeLast(count - n) }
    let side = Float(InputLimits.length.lowerBound)
    let first = count
    if first < n {
      // Column by column (a scroll effect's first frame adds thousands).
      let m = n - first
      CellColumns.append(&columns.start, repeating: 0, m)
      CellColumns.append(&columns.startExact, repeating: 0, m)
      CellColumns.append(&columns.progress, repeating: 0, m)
      CellColumns.append(&columns.width, repeating: side, m)
      CellColumns.append(&columns.height, repeating: side, m)
      CellColumns.append(&columns.tableWidth, repeating: side, m)
      CellColumns.append(&columns.detailHeight, repeating: side, m)
      CellColumns.append(&columns.recipeIndex, repeating: 0, m)
      CellColumns.append(&columns.row, m) { first + $0 }
      CellColumns.append(&columns.batchPosition, repeating: 0, m)
      CellColumns.append(&columns.endExact, repeating: .infinity, m)
      columns.motions.append(contentsOf: repeatElement(nil, count: m))
    }
    retargetRows.reserve(cells: count)
    reserveKeepScratch()
  }

  /// Calls `body` with the progress and geometry columns of a batch driven by progress
  /// (progress, width, height, table width, detail height), which it may rewrite: values
  /// the caller has validated (`ScrollEffectBatch` writes progress clamped to [0, 1] and
  /// checked sizes).
  package mutating func withProgressColumns<R>(
    _ body: (
      UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>,
      UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>
    ) -> R
  ) -> R {
    columns.progress.withUnsafeMutableBufferPointer { p in
      columns.width.withUnsafeMutableBufferPointer { w in
        columns.height.withUnsafeMutableBufferPointer { h in
          columns.tableWidth.withUnsafeMutableBufferPointer { t in
            columns.detailHeight.withUnsafeMutableBufferPointer { d in body(p, w, h, t, d) }
          }
        }
      }
    }
  }

  /// The checks every `append` makes before anything changes.
  /// `pending`: cells checked before this one that are not appended yet.
  private func checkAppend(
    recipe: Int, row: Int, batchPosition: Int, geometry: CellGeometry, pending: Int = 0, reaches: [AngleReach]? = nil
  ) throws(CellMotionError) {
    guard recipe >= 0, recipe < baseRecipeCount else {
      throw .indexOutOfRange(field: "recipe index", index: recipe, count: baseRecipeCount)
    }
    guard count + pending < Self.maxCapacity else {
      throw .outOfRange(field: "cell count", value: Double(count + pending) + 1, expected: "<= \(Self.maxCapacity)")
    }
    // The checks' messages are built only for a bad size.
    let sizes = InputLimits.length
    if !(sizes.contains(geometry.width) && sizes.contains(geometry.height) && sizes.contains(geometry.tableWidth)
      && (geometry.detailHeight.map { sizes.contains($0) } ?? true))
    {
      try geometry.validate()
    }
    // Through a pointer, so only the reaches are retained: `recipes[recipe].checkAngles`
    // copied the whole compiled recipe per cell (most of a 10,000-row first frame).
    // (`reaches`: the recipe's, when the caller holds them already.)
    if let reaches {
      if !reaches.isEmpty { try CompiledRecipe.checkAngles(reaches, geometry) }
    } else {
      try CompiledRecipe.checkAngles(recipes.withUnsafeBufferPointer { $0[recipe].angleReaches }, geometry)
    }
    guard row >= 0 else { throw .outOfRange(field: "row", value: Double(row), expected: ">= 0") }
    guard batchPosition >= 0 else {
      throw .outOfRange(field: "batchPosition", value: Double(batchPosition), expected: ">= 0")
    }
  }

  /// Stores a checked cell in every column.
  private mutating func append(
    recipe: Int, row: Int, batchPosition: Int, startExact: Double, progress: Float, geometry: CellGeometry
  ) {
    if let last = columns.recipeIndex.last, last != Int32(recipe) { recipeChanges += 1 }
    // Cells driven by progress never finish by time.
    let end = source == .clock ? startExact + recipes.withUnsafeBufferPointer { $0[recipe].activeDuration } : .infinity
    columns.append(
      CellColumns.Cell(
        start: kernelStart(startExact, recipe: recipe), startExact: startExact, progress: progress,
        width: Float(geometry.width),
        height: Float(geometry.height), tableWidth: Float(geometry.tableWidth),
        detailHeight: Float(geometry.detailHeight ?? geometry.height), recipeIndex: Int32(recipe), row: row,
        batchPosition: batchPosition, endExact: end, motions: nil))
    retargetRows.reserve(cells: count)
    reserveKeepScratch()
  }

  /// Grows `keepScratch` with the cells, when they are appended, so `compact` (which runs
  /// in frames where nothing is appended) never allocates: grown lazily in `compact`, a
  /// batch's first compaction past its previous size allocated in a steady frame (soak,
  /// seed 34).
  @inline(__always)
  mutating func reserveKeepScratch() {
    guard keepScratch.count < count else { return }
    keepScratch.append(contentsOf: repeatElement(false, count: Swift.max(count, columns.row.capacity) - keepScratch.count))
    runScratch.append(contentsOf: repeatElement(0, count: keepScratch.count + 2 - runScratch.count))
  }

  /// `startExact` (absolute seconds) as the kernel's start column holds it for a cell of
  /// recipe `recipe`: plus the recipe's `startShift`, minus `timeOrigin`, in Double.
  @inline(__always)
  func kernelStart(_ startExact: Double, recipe: Int) -> Float {
    Float(startExact + (source == .clock ? recipes.withUnsafeBufferPointer { $0[recipe].startShift } : 0) - timeOrigin)
  }

  /// Removes every cell, keeping capacity.
  public mutating func removeAll() {
    columns.removeAll()
    recipeChanges = 0
  }

  /// Seconds (absolute) after which cell `i` no longer changes: its staggered start plus
  /// its recipe's active duration. After it the cell shows its recipe's end values.
  ///
  /// - Precondition: `0 <= i < count`.
  public func endTime(ofCell i: Int) -> Double {
    precondition(i >= 0 && i < count, "CellBatch: cell index \(i) out of range 0..<\(count)")
    return columns.endExact[i]
  }

  /// The earliest `endTime` of the cells (absolute seconds), +infinity for an empty batch.
  ///
  /// - Complexity: O(count), one pass over the end times; no allocation.
  public var earliestEndTime: Double { earliestEndTime(from: 0) }

  /// The earliest `endTime` of cells `first ..< count` (absolute seconds), +infinity when
  /// there are none: one pass over their end times (the cells a table just appended).
  package func earliestEndTime(from first: Int) -> Double {
    columns.endExact.withUnsafeBufferPointer { ends in
      var least = Double.infinity
      for e in ends[Swift.max(first, 0)...] where e < least { least = e }
      return least
    }
  }

  /// Removes cells for which `shouldRemove(index)` is true, keeping order; O(count), no
  /// allocation.
  public mutating func removeCells(where shouldRemove: (Int) -> Bool) {
    compact { i, _, _ in !shouldRemove(i) }
  }

  /// Removes the cells that have finished by `time` (absolute seconds; see `endTime`),
  /// keeping order; O(count), no allocation. (`removeCells(finishedBy:orRow:)` with no row
  /// test: no closure call per cell.)
  public mutating func removeCells(finishedBy time: Double) {
    compact { _, _, end in end > time }
  }

  /// Removes the cells that have finished by `time` (absolute seconds; see `endTime`) or
  /// whose row `removeRow` rejects, keeping order; O(count), no allocation.
  public mutating func removeCells(finishedBy time: Double, orRow removeRow: (Int) -> Bool) {
    compact { _, row, end in end > time && !removeRow(row) }
  }

  /// Relabels every cell's row with `newRow(row)` (a table's rows renumbered by a batch
  /// update), called once per cell in order, and removes the cells it maps to nil, keeping
  /// order; O(count), no allocation.
  package mutating func relabelRows(_ newRow: (Int) -> Int?) {
    // Rows are >= 0: -1 marks a cell to remove.
    var removes = false
    columns.row.withUnsafeMutableBufferPointer { rows in
      for i in rows.indices {
        if let n = newRow(rows[i]) {
          rows[i] = n
        } else {
          rows[i] = -1
          removes = true
        }
      }
    }
    if removes { compact { _, row, _ in row >= 0 } }
  }

  /// Keeps the cells for which `keep(index, row, endTime)` holds, in order: the decisions
  /// first (`keepScratch`), then each column compacted in one pass from the first cell
  /// removed (nothing moves when none is; issue 32: moving a cell through every column one
  /// at a time was most of a dense table frame).
  mutating func compact(_ keep: (_ index: Int, _ row: Int, _ endTime: Double) -> Bool) {
    let n = count
    reserveKeepScratch()  // a no-op: appends keep it as long as the cells
    // The decisions in a loop of their own (no early exit: it vectorises where `keep` is
    // simple), then the first cell removed and the runs found a byte search at a time
    // (a dense table frame tested its thousand cells in flight one by one, three times).
    columns.row.withUnsafeBufferPointer { rows in
      columns.endExact.withUnsafeBufferPointer { ends in
        keepScratch.withUnsafeMutableBufferPointer { k in
          for r in 0..<n { k[r] = keep(r, rows[r], ends[r]) }
        }
      }
    }
    let first = keepScratch.withUnsafeBytes { Self.nextIndex(of: 0, in: $0, from: 0, to: n) }
    guard first < n else { return }
    // The kept cells after `first` as runs: each column then moves whole runs (one memmove
    // each) instead of testing every cell (issue 32: a dense table frame's compaction).
    var pairs = 0
    keepScratch.withUnsafeBytes { k in
      runScratch.withUnsafeMutableBufferPointer { runs in
        var r = first
        while r < n {
          r = Self.nextIndex(of: 1, in: k, from: r, to: n)
          guard r < n else { break }
          let start = r
          r = Self.nextIndex(of: 0, in: k, from: r, to: n)
          runs[pairs] = start
          runs[pairs + 1] = r - start
          pairs += 2
        }
      }
    }
    if first == 0 && pairs == 2 && runScratch[0] + runScratch[1] == n {
      // Only a front was removed (cells finish in the order they started and leave the
      // screen from one edge): the columns start later, nothing moves.
      columns.removeFirst(runScratch[0])
    } else {
      runScratch.withUnsafeBufferPointer { runs in
        columns.compact(runs: UnsafeBufferPointer(rebasing: runs[0..<pairs]), from: first)
      }
    }
    if retargetRows.rows > 0 {
      var w = first
      for r in first..<n where keepScratch[r] {
        if w != r { retargetRows.move(cell: r, to: w) }
        w += 1
      }
    }
    // Removing cells never adds a change of recipe (a, c adjacent after b goes differ only
    // if a, b or b, c did): a batch of one recipe's cells stays one run without a count.
    guard recipeChanges != 0 else { return }
    recipeChanges = 0
    for i in columns.recipeIndex.indices.dropFirst() where columns.recipeIndex[i] != columns.recipeIndex[i - 1] {
      recipeChanges += 1
    }
  }

  /// The first index in `from ..< to` whose byte in `bytes` is `value` (a Bool's 0 or 1),
  /// or `to`: a `memchr`.
  static func nextIndex(of value: UInt8, in bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> Int {
    guard from < to, let base = bytes.baseAddress else { return to }
    return cm_next_byte(base, Int32(value), from, to)
  }

  /// Moves the time origin (absolute seconds, in `InputLimits.time`), recomputing every
  /// relative start time from the exact Double start: rebasing any number of times gives
  /// the same Floats as appending with this origin in the first place.
  /// - Complexity: O(count); no allocation.
  public mutating func rebase(to origin: Double) throws(CellMotionError) {
    try Check.time(origin, "timeOrigin")
    timeOrigin = origin
    if source == .clock {
      for i in 0..<count { columns.start[i] = kernelStart(columns.startExact[i], recipe: Int(columns.recipeIndex[i])) }
    }
    for i in 0..<count where columns.motions[i] != nil { writeRetargetRows(cell: i) }
  }

  /// Whether the kernel evaluates this batch at `time` (absolute seconds): within
  /// `precisionWindow` of `timeOrigin`.
  public func isWithinPrecisionWindow(_ time: Double) -> Bool {
    (time - timeOrigin).magnitude <= Self.precisionWindow
  }
}

/// The batch's recipes summed up for a frame (`CellBatch.recipeSummary`).
struct RecipeSummary: Sendable {
  /// The velocity rows some recipe writes (`VelocityPlan.movingRows`, or-ed).
  let movingRows: UInt16
  /// Whether some recipe folds.
  let folds: Bool
  /// The first recipe that is not planar (`CompiledRecipe.isPlanar`), by name.
  let firstNonPlanar: String?
  /// Whether every recipe leaves its cells unmoved (`CompiledRecipe.storesIdentity`),
  /// without and with corners asked for.
  let storesIdentity: (withoutCorners: Bool, withCorners: Bool)

  init(_ recipes: [CompiledRecipe]) {
    movingRows = recipes.reduce(0) { $0 | $1.velocityPlan.movingRows }
    folds = recipes.contains { $0.fold != nil }
    firstNonPlanar = recipes.first { !$0.isPlanar }?.recipe.name
    storesIdentity = (
      recipes.allSatisfy { $0.storesIdentity(corners: false) }, recipes.allSatisfy { $0.storesIdentity(corners: true) }
    )
  }

  func storesIdentity(corners: Bool) -> Bool { corners ? storesIdentity.withCorners : storesIdentity.withoutCorners }
}
