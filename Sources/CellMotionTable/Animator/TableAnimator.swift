// TableAnimator: the frame stepper. Per frame it advances the table simulation, starts
// the animations of rows that appeared, drops finished ones and those of rows that left,
// evaluates everything through the kernel and yields each visible row's final transform
// (row position and scroll included), opacity and fold halves.

import CellMotion
import CellMotionKernel
@_exported import CellMotionTableModel

/// Which recipes a table runs.
public struct TableRecipes: Sendable {
  /// For a row's first appearance (and every appearance without `repeatAppearance`).
  public var first: Recipe
  /// For the second and later appearances (the tutorials' "go further" item), or nil.
  public var repeatAppearance: Recipe?
  /// The fold recipe for expanding details (its direction is set per phase: closing runs it
  /// backwards in time, so a reversal mid-way shows no jump).
  public var fold: Recipe

  public init(first: Recipe, repeatAppearance: Recipe? = nil, fold: Recipe = .foldOpen) {
    self.first = first
    self.repeatAppearance = repeatAppearance
    self.fold = fold
  }
}

/// One frame of the animator, for the rows visible in it.
///
/// `matrices` holds one matrix per visible row in `layout`: 16 Floats (CATransform3D field
/// order = column-major float4x4 for `M * float4(p, 1)`) or, with `.affine2D`, 6 Floats
/// (a b c d tx ty), mapping a point of the row's cell (points, origin at the cell's
/// top-left) to the viewport (points, origin at the viewport's top-left, y down). Rows
/// that are not animating get a pure translation: down by the row's place in a vertical
/// table, right in a horizontal one (`TableAnimator.axis`).
public struct AnimatorFrame: Sendable {
  /// Frame time, seconds.
  public internal(set) var time: Double = 0
  /// Visible rows, increasing (index i below is `rows[i]`).
  public internal(set) var rows: Range<Int> = 0..<0
  public internal(set) var matrices: [Float] = []
  /// How `matrices` stores each row (`TableAnimator`'s layout).
  public internal(set) var layout: MatrixLayout = .transform3D
  public internal(set) var opacity: [Float] = []
  /// Cell heights (animated), points: the rows' lengths along the scroll axis (their widths
  /// in a horizontal table, `TableAnimator.axis`).
  public internal(set) var heights: [Float] = []
  /// Whether row i is animating this frame.
  public internal(set) var animating: [Bool] = []
  /// Folding details: the row, the y (viewport points) of the detail's top edge, and both
  /// halves (16 Floats each, half-local points -> viewport points) and the shadow opacity.
  public internal(set) var folds: [FoldedDetail] = []
  /// Expanded rows whose detail is flat and open (height grown, fold finished), visible
  /// this frame, increasing by row. A renderer draws each as a plain rectangle below the
  /// cell; while a detail folds it is in `folds` instead.
  public internal(set) var openDetails: [OpenDetail] = []
  /// The table events of the frame (display events, scroll offset, positions).
  public internal(set) var events = FrameEvents()
  /// Whether visible row i draws behind the others (an inserted row during its row
  /// animation, `UpdateCell.isBehind`).
  public internal(set) var behind: [Bool] = []
  /// Cells drawn this frame that are not rows in `rows`: deleted rows and reloaded rows'
  /// old contents running their row animation, and moved rows sliding far from the
  /// visible rows. Their matrices (in `layout`, as `matrices`) and opacities are
  /// `extraMatrices` and `extraOpacity`, index for index.
  public internal(set) var extraCells: [ExtraCell] = []
  public internal(set) var extraMatrices: [Float] = []
  public internal(set) var extraOpacity: [Float] = []

  public init() {}

  /// The matrix of visible row `row` as a Transform3D, or nil when not visible.
  public func transform(ofRow row: Int) -> Transform3D? {
    guard rows.contains(row) else { return nil }
    let i = row - rows.lowerBound
    var t = Transform3D.identity
    if layout == .affine2D {
      let a = matrices[(6 * i)..<(6 * i + 6)].map(Double.init)
      (t.m11, t.m12, t.m21, t.m22, t.m41, t.m42) = (a[0], a[1], a[2], a[3], a[4], a[5])
    } else {
      for k in 0..<16 { t[k / 4, k % 4] = Double(matrices[16 * i + k]) }
    }
    return t
  }
}

/// A cell drawn in a frame that is not one of its visible rows (`AnimatorFrame.extraCells`).
public struct ExtraCell: Sendable, Equatable {
  public enum Kind: String, Sendable, Equatable {
    /// A deleted row running its row animation where it was.
    case deleted
    /// A reloaded row's old contents running their row animation over the row.
    case reloadedOld
    /// A moved row sliding far from the visible rows.
    case moving
  }
  public var kind: Kind
  /// The row's identifier.
  public var id: RowID
  /// The row's index now (nil for a deleted row).
  public var row: Int?
  /// A deleted row's index before the batch that deleted it.
  public var deletedFrom: Int? = nil
  /// The cell's height, points (its width in a horizontal table, `TableAnimator.axis`).
  public var height: Double
  /// Whether it draws behind the visible rows (deleted rows do).
  public var isBehind: Bool
}

/// An expanded row's open detail in a frame.
public struct OpenDetail: Sendable, Equatable {
  /// The expanded row.
  public var row: Int
  /// Viewport y of the detail's top edge (the cell's collapsed bottom edge), points.
  public var detailTop: Double
  /// The detail's height, points.
  public var height: Double
}

/// A folding detail view in a frame.
public struct FoldedDetail: Sendable, Equatable {
  /// The row whose detail folds.
  public var row: Int
  /// Viewport y of the detail's top edge (points).
  public var detailTop: Double
  /// Half-local points -> viewport points (Float values of the kernel, widened).
  public var top: Transform3D
  public var bottom: Transform3D
  public var shadowOpacity: Float
}

/// Drives a `TableSimulation` through the kernel frame by frame.
public struct TableAnimator: Sendable {
  public private(set) var simulation: TableSimulation
  public let recipes: TableRecipes
  /// The cells' and the table's size across the scroll axis, points: their widths in a
  /// vertical table, their heights in a horizontal one.
  public let cellWidth: Double
  public let tableWidth: Double
  /// The direction the rows are laid out and scroll in (`.vertical`: a table view;
  /// `.horizontal`: a pager, a carousel, a cover flow).
  public let axis: ScrollAxis
  public var options: KernelOptions
  /// Whether a row that comes back on screen while its appearance animation is still
  /// running continues that animation (value and velocity carry on along its own
  /// timeline) instead of starting it again. True by default; false restarts it, as a
  /// reused UITableView cell whose `willDisplay` code runs the animation again does.
  public var resumesInterruptedAppearances = true
  /// The animations in flight (one per animating row; rows that left the screen keep
  /// theirs until it ends when `resumesInterruptedAppearances`).
  public private(set) var batch: CellBatch
  var foldBatch: CellBatch
  var output: FrameOutput
  var foldOutput: FrameOutput
  /// Row animations of batch updates: rebuilt each frame from the simulation's update
  /// cells (few: the visible ones), with one recipe per style, change and reload flag.
  var updateBatch: CellBatch
  var updateOutput: FrameOutput
  /// `updateBatch.recipes` index of a `RowAnimationKey`.
  let updateRecipeIndex: [RowAnimationKey: Int]
  /// The last frame.
  public internal(set) var frame = AnimatorFrame()
  /// The scroll effect on the visible rows (`setScrollEffect(_:)`), or nil.
  var scrollStage: TableScrollStage?
  /// Whether `frame.behind` may hold a true (a frame drew an inserted row behind the
  /// others since it was last cleared): else it need not be cleared.
  var behindMarked = false
  /// The reduce-motion policy given at init (nil: each recipe's own).
  public let motion: MotionPolicy?
  /// The capacity given at init.
  let initialCapacity: Int
  /// At most the earliest end time (absolute seconds) of the cells in `batch`: no cell
  /// has finished before it, so a step before it drops nothing (+infinity: none).
  var nextCellEnd = Double.infinity
  /// Scratch for `step`: the frame's animation starts, appended to `batch` at once.
  var pendingStarts: [CellBatch.Start] = []

  /// - Parameters:
  ///   - simulation: the table (its stagger should be `.none`: the recipe's own stagger
  ///     is applied by the kernel's batch).
  ///   - recipes: the recipes for first and repeated appearances and for folds.
  ///   - cellWidth: the cells' width, points (their height in a horizontal table, `axis`).
  ///   - tableWidth: the table's width in points (for recipes that depend on it); nil
  ///     means `cellWidth`. In a horizontal table, its height: the scroll effect's viewport
  ///     height (recipes there read the viewport's width as their table width).
  ///   - capacity: cells the batch holds without reallocating (visible rows plus those
  ///     still animating), 0...`CellBatch.maxCapacity`; grows if exceeded (allocating
  ///     once), up to `CellBatch.maxCapacity`.
  ///   - options: the kernel's lane width and threads.
  ///   - layout: how `frame.matrices` stores each row: 16 Floats, or 6 with `.affine2D`
  ///     (then the appearance recipes must stay affine; fold halves are always 4x4).
  ///   - motion: a reduce-motion policy for every recipe (the system's Reduce Motion
  ///     setting: `.reduced`); nil: each recipe's own (`Recipe.motion`). With a policy
  ///     that holds transforms, an opening fold shows its open halves at once and a closing
  ///     one shows nothing (its folded end state, edge-on); the rows' height changes are the
  ///     layout's (`ExpansionState.heightDuration`), not the recipe's, and keep their
  ///     duration. A scroll effect moves nothing under a policy that holds transforms
  ///     (`ScrollEffect.withoutMotion`).
  ///   - scrollEffect: a scroll effect on every visible row (`setScrollEffect(_:)`), or nil.
  ///   - axis: `.vertical` (a table view) or `.horizontal` (rows side by side, scrolling
  ///     left and right). In a horizontal animator the simulation's lengths run along x:
  ///     its row heights are the rows' widths, its viewport height the viewport's width,
  ///     its scroll offset the x offset; `cellWidth` and `tableWidth` are the cells' and
  ///     the table's heights. A recipe sees each cell as drawn: width = the row's extent,
  ///     height = `cellWidth`, table width = the viewport's width (as a scroll effect's
  ///     recipe does, `ScrollCell.geometry(in:)`). Each row's matrix ends with its move
  ///     right to its place, `frame.heights` holds the rows' widths, and the scroll effect
  ///     must read the horizontal axis. Expanding rows (folds) are vertical only.
  /// - Throws: `CellMotionError.outOfRange` for a capacity outside its range or options
  ///   that `Kernel.evaluate` rejects, or a recipe with a rotation that depends on the
  ///   cell's height and would turn beyond `CompiledRecipe.maximumAngle` for a row 1e6
  ///   points tall; `.invalidCombination` for an affine layout with a recipe that is not
  ///   affine, or a horizontal animator over a simulation with an expansion state; the
  ///   errors of the recipes' compilation and of `setScrollEffect(_:)`.
  public init(
    simulation: TableSimulation, recipes: TableRecipes, cellWidth: Double, tableWidth: Double? = nil,
    capacity: Int = 256, options: KernelOptions = .init(), layout: MatrixLayout = .transform3D,
    motion: MotionPolicy? = nil, scrollEffect: ScrollEffect? = nil, axis: ScrollAxis = .vertical
  ) throws(CellMotionError) {
    try Check.count(capacity, max: CellBatch.maxCapacity, "capacity")
    try options.validate()
    try Check.length(cellWidth, "cellWidth")
    let tw = tableWidth ?? cellWidth
    try Check.length(tw, "tableWidth")
    var fold = recipes.fold
    if fold.fold == nil { throw .invalidCombination(field: "recipes.fold", reason: "recipe \(fold.name) does not fold") }
    if axis == .horizontal, simulation.expansion != nil {
      throw .invalidCombination(field: "axis", reason: "a horizontal table has no expanding rows (folds are vertical)")
    }
    self.axis = axis
    fold.fold?.direction = .open
    self.simulation = simulation
    self.recipes = recipes
    self.cellWidth = cellWidth
    self.tableWidth = tw
    self.options = options
    self.motion = motion
    initialCapacity = capacity
    batch = try CellBatch(
      recipes: [recipes.first, recipes.repeatAppearance ?? recipes.first], capacity: capacity, motion: motion)
    foldBatch = try CellBatch(recipes: [fold], capacity: 64, motion: motion)
    output = try FrameOutput(capacity: capacity, layout: layout, includeFold: false)
    if layout == .affine2D, let r = batch.recipes.first(where: { !$0.isPlanar }) {
      throw .invalidCombination(
        field: "layout", reason: "recipe \(r.recipe.name) is not affine; use the transform3D layout")
    }
    frame.layout = layout
    foldOutput = try FrameOutput(capacity: 64, includeFold: true)
    var keys: [RowAnimationKey] = []
    var updateRecipes: [Recipe] = []
    for style in RowAnimation.allCases where style != .automatic {
      for change in RowChange.allCases {
        for reload in [false, true] {
          keys.append(RowAnimationKey(style: style, change: change, reload: reload))
          updateRecipes.append(simulation.updates.recipes.recipe(style, change, reload: reload))
        }
      }
    }
    updateRecipeIndex = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
    updateBatch = try CellBatch(recipes: updateRecipes, capacity: 64, motion: motion)
    updateOutput = try FrameOutput(capacity: 64, layout: layout, includeFold: false)
    // A rotation that depends on the cell's height must stay within the kernel's angles
    // for every height a row is animated with (up to 1e6 points, `cellGeometry`): checked
    // here, not when a tall row first appears mid-session.
    let tallest = cellGeometry(height: InputLimits.length.upperBound)
    for r in batch.recipes + updateBatch.recipes { try r.checkAngles(tallest) }
    if layout == .affine2D, let r = updateBatch.recipes.first(where: { !$0.isPlanar }) {
      throw .invalidCombination(
        field: "layout", reason: "row animation recipe \(r.recipe.name) is not affine; use the transform3D layout")
    }
    // The per-row arrays at their working size once, then emptied (capacity kept): their
    // pages are touched here rather than by the first frame, which fills thousands of rows
    // (up to `CellBatch.touchedAtInit` of them).
    let touched = min(capacity, CellBatch.touchedAtInit)
    frame.behind.reserveResident(capacity, touching: touched, with: false)
    frame.extraCells.reserveCapacity(64)
    frame.extraMatrices.reserveCapacity(16 * 64)
    frame.extraOpacity.reserveCapacity(64)
    frame.matrices.reserveResident(layout.floatsPerCell * capacity, touching: layout.floatsPerCell * touched, with: 0)
    // Every per-frame array at its working size up front, so a frame that shows more rows
    // than any before does not grow one (the scroll session counted one such allocation
    // in 450 frames).
    frame.opacity.reserveResident(capacity, touching: touched, with: 0)
    frame.heights.reserveResident(capacity, touching: touched, with: 0)
    frame.animating.reserveResident(capacity, touching: touched, with: false)
    frame.folds.reserveCapacity(64)
    frame.openDetails.reserveCapacity(64)
    frame.events.rowPositions.reserveResident(capacity, touching: touched, with: 0)
    frame.events.rowHeights.reserveResident(capacity, touching: touched, with: 0)
    // The first frame's own arrays too: its thousands of entering rows, their animation
    // starts and the batch starts made from them (1 MB at 10,000 rows) were fresh memory,
    // faulted in page by page inside the first frame.
    frame.events.display.willDisplay.reserveResident(capacity, touching: touched, with: 0)
    frame.events.display.didEndDisplaying.reserveCapacity(capacity)
    frame.events.display.animationStarts.reserveResident(
      capacity, touching: touched, with: AnimationStart(row: 0, startTime: 0, delay: 0, appearance: .first, batchPosition: 0))
    pendingStarts.reserveResident(capacity, touching: touched, with: Self.placeholderStart)
    // The caller's simulation and this copy share the display bits: copied here, not by the
    // first frame (65% of a small table's first frame, 125 KB at a million rows).
    self.simulation.ownStorage()
    try setScrollEffect(scrollEffect)
  }

  /// Advances to `time` (seconds in `InputLimits.time`, not before the previous step) and
  /// computes the frame.
  ///
  /// Long sessions are exact: whenever `time` is more than `rebaseInterval` from the
  /// batch's time origin, the batch is rebased to `time` (exactly, from its Double start
  /// times), so the kernel's Float times stay within a few seconds of zero and a cell
  /// animating after a day of running matches the same animation started at time zero
  /// (tested to 1e-3 points and 1e-5 opacity over a simulated 24-hour session).
  /// - Throws: `.notFinite` / `.outOfRange` for a time outside `InputLimits.time`,
  ///   `.invalidCombination` for one before the previous step; then the animator is
  ///   unchanged and `frame` is still the last frame.
  /// - Complexity: O(v + a + c) for v visible rows, a animations in flight and c rows
  ///   entering or leaving, plus O(a) at a rebase; no heap allocation in steady state.
  public mutating func step(to time: Double) throws(CellMotionError) {
    // A refused time (NaN, out of range, before the previous step) changes nothing: the
    // last frame stays whole (its events included), as the simulation does.
    try simulation.checkTimeOrder(time)
    // Move the event arrays out of the frame so they are uniquely referenced: mutating a
    // copy that `frame` still shares would copy every array (5 allocations per frame,
    // measured by the bench's scroll session).
    var events = frame.events
    frame.events = FrameEvents()
    try simulation.step(to: time, into: &events)
    let visible = events.visibleRange
    // Drop finished animations and, unless they may resume, those of rows no longer
    // displayed (their cell is reused). Cells that may resume are only dropped once one has
    // finished (`nextCellEnd`), so a frame where none ends does not walk the batch.
    let ended = events.didEndDisplaying
    if resumesInterruptedAppearances {
      if time >= nextCellEnd { removeFinishedCells(by: time) }
    } else {
      // A row that ended displaying and is inside the visible range again (reused this
      // frame) is one of the few in `ended` between the range's bounds: only those are
      // searched, and only for cells whose row is visible (the others go by the first test).
      ended.withUnsafeBufferPointer { e in
        let inside = UnsafeBufferPointer(
          rebasing: e[Self.lowerBound(sorted: e, visible.lowerBound)..<Self.lowerBound(sorted: e, visible.upperBound)])
        batch.removeCells(finishedBy: time) { row in
          !visible.contains(row) || (!inside.isEmpty && Self.contains(sorted: inside, row))
        }
      }
      nextCellEnd = batch.earliestEndTime
    }
    // Visible rows: a translation to the row's place (composed after the animation below),
    // written once per row through pointers into arrays sized once.
    let n = visible.count
    let affine = output.layout == .affine2D
    let floats = affine ? 6 : 16
    frame.time = time
    frame.rows = visible
    // With a scroll effect, `placeEffectRows` writes every row (its effect, then its
    // place): translations here would be overwritten unread (640 KB a frame at 10,000
    // rows).
    let effectPlacesRows = scrollStage != nil
    Self.setCount(&frame.matrices, floats * n)
    Self.setCount(&frame.opacity, n)
    Self.setCount(&frame.heights, n)
    Self.setCount(&frame.animating, n)
    if !effectPlacesRows { placeRows(events) }
    frame.opacity.withUnsafeMutableBufferPointer { o in
      frame.heights.withUnsafeMutableBufferPointer { h in
        frame.animating.withUnsafeMutableBufferPointer { a in
          events.rowHeights.withUnsafeBufferPointer { rh in
            guard n > 0 else { return }
            // One buffer per loop: fills and a conversion the compiler vectorises (one
            // loop writing all three did not, the buffers might overlap).
            o.update(repeating: 1)
            a.update(repeating: false)
            for i in 0..<n { h[i] = Float(rh[i]) }
            // The rows that already have an animation in flight (their cell comes back
            // or animates on): marked here, so an animation start finds them in O(1).
            batch.row.withUnsafeBufferPointer { rows in
              for c in rows.indices {
                let slot = rows[c] &- visible.lowerBound
                if slot >= 0 && slot < n { a[slot] = true }
              }
            }
          }
        }
      }
    }
    do {
      try animateRows(events, time: time)
    } catch {
      // A refused frame (a batch that cannot grow, options the kernel rejects, an effect's
      // frame refused): with an effect, whose pass would have placed the rows, every row
      // gets its plain translation (as without one, where they are written first), so the
      // frame stays drawable.
      if effectPlacesRows { placeRows(events) }
      frame.events = events
      throw error
    }
    frame.events = events
  }

  /// `step`'s passes after the visible rows' translations: appearance animations started
  /// and evaluated, batch updates, folds, open details, the scroll effect.
  mutating func animateRows(_ events: FrameEvents, time: Double) throws(CellMotionError) {
    // Start the animations of rows that appeared (or let a running one go on), appended to
    // the batch at once (a first frame starts thousands).
    pendingStarts.removeAll(keepingCapacity: true)
    pendingStarts.reserveCapacity(events.animationStarts.count)
    let rowCount = simulation.layout.rowCount
    if startOnScreen(events, rowCount: rowCount) {
      try appendPendingStarts()
    } else {
      try startAnyRows(events, rowCount: rowCount)
    }
    if (time - batch.timeOrigin).magnitude > Self.rebaseInterval { try batch.rebase(to: time) }
    try Kernel.evaluate(batch, at: time, into: &output, options: options)
    try composeRows(events, time: time)
  }

  /// The starts of `animateRows` when every row that starts is on screen (a first frame's
  /// thousands, and nearly every frame of a scroll): written to `pendingStarts` through
  /// pointers, with the geometry worked out from local values (appended one by one, each
  /// start checked the array's uniqueness and capacity, as did each `animating` flag).
  /// Returns false, having done nothing, when some row that starts is off screen.
  mutating func startOnScreen(_ events: FrameEvents, rowCount: Int) -> Bool {
    let visible = frame.rows
    let m = events.animationStarts.count
    guard m > 0 else { return true }
    let allOnScreen = events.animationStarts.withUnsafeBufferPointer { a in
      a.allSatisfy { $0.row >= visible.lowerBound && $0.row < visible.upperBound }
    }
    guard allOnScreen else { return false }
    let resumes = resumesInterruptedAppearances
    // `cellGeometry(height:)`'s inputs, as locals.
    let horizontal = axis == .horizontal, across = cellWidth
    let table = horizontal ? simulation.viewportHeight : tableWidth
    pendingStarts.append(contentsOf: repeatElement(Self.placeholderStart, count: m))
    var written = 0
    events.animationStarts.withUnsafeBufferPointer { a in
      events.rowHeights.withUnsafeBufferPointer { heights in
        frame.animating.withUnsafeMutableBufferPointer { animating in
          pendingStarts.withUnsafeMutableBufferPointer { out in
            for s in a {
              let slot = s.row &- visible.lowerBound
              if resumes && animating[slot] { continue }
              out[written] = CellBatch.Start(
                recipe: s.appearance == .first ? 0 : 1, row: s.row, batchPosition: s.batchPosition, rowCount: rowCount,
                batchCount: s.batchCount, startTime: s.startTime,
                geometry: Self.cellGeometry(
                  height: heights[slot], horizontal: horizontal, cellWidth: across, tableWidth: table))
              written &+= 1
              animating[slot] = true
            }
          }
        }
      }
    }
    pendingStarts.removeLast(m - written)
    return true
  }

  /// The starts of `animateRows`, row by row, off-screen rows included.
  mutating func startAnyRows(_ events: FrameEvents, rowCount: Int) throws(CellMotionError) {
    let visible = frame.rows, n = frame.rows.count
    for s in events.animationStarts {
      let slot = s.row - visible.lowerBound
      let onScreen = slot >= 0 && slot < n
      if resumesInterruptedAppearances {
        if onScreen {
          if frame.animating[slot] { continue }
        } else {
          // An off-screen row's animation is found in the batch: the starts before it first.
          try appendPendingStarts()
          if batch.row.contains(s.row) { continue }
        }
      }
      let height = onScreen ? events.rowHeights[slot] : 44
      pendingStarts.append(
        CellBatch.Start(
          recipe: s.appearance == .first ? 0 : 1, row: s.row, batchPosition: s.batchPosition, rowCount: rowCount,
          batchCount: s.batchCount, startTime: s.startTime, geometry: cellGeometry(height: height)))
      if onScreen { frame.animating[slot] = true }
    }
    try appendPendingStarts()
  }

  /// The animated rows of `animateRows`: the kernel's matrix composed with the row's
  /// translation (and, with a scroll effect, evaluated first, the row's effect between
  /// them: each matrix written once); then the update cells, folds, open details, and the
  /// effect on the rows that run no animation.
  mutating func composeRows(_ events: FrameEvents, time: Double) throws(CellMotionError) {
    try evaluateScrollEffect(events)
    if let stage = scrollStage {
      Self.placeEffectRows(
        effect: stage.output, kinds: stage.batch.kinds, quiet: stage.batch.quietRuns, rows: frame.rows.count,
        positions: events.rowPositions,
        horizontal: axis == .horizontal, into: &frame)
    }
    let effect = scrollStage?.output
    storeAnimatedRows(events, effect: effect, kinds: scrollStage?.batch.kinds ?? [])
    try evaluateUpdates(events, time: time)
    try evaluateFolds(events, time: time)
    try collectOpenDetails(events, time: time)
    if let effect {
      Self.applyEffectOpacity(
        effect, kinds: scrollStage.unsafelyUnwrapped.batch.kinds, quiet: scrollStage.unsafelyUnwrapped.batch.quietRuns,
        rows: frame.rows.count, into: &frame)
    }
  }

  /// `composeRows`' loop: each animated row's matrix written once, the kernel's A with the
  /// row's place, A x T(place) (`storeTranslated`), or with a scroll effect S between them,
  /// A x S x T(place) (`storeWithEffect`; A x T(place) where the effect's `kinds` say it
  /// has none there: its matrix is not the identity's, `TableScrollStage`); its opacity
  /// the kernel's.
  mutating func storeAnimatedRows(_ events: FrameEvents, effect: FrameOutput?, kinds: [Float]) {
    let visible = frame.rows, n = frame.rows.count
    let floats = frame.layout.floatsPerCell
    let horizontal = axis == .horizontal
    let planar = effect?.layout == .affine2D, sf = effect?.layout.floatsPerCell ?? 0
    let effectMatrices = effect?.matrices ?? []
    frame.matrices.withUnsafeMutableBufferPointer { m in
      frame.opacity.withUnsafeMutableBufferPointer { o in
        events.rowPositions.withUnsafeBufferPointer { y in
          output.matrices.withUnsafeBufferPointer { src in
            output.opacity.withUnsafeBufferPointer { so in
              effectMatrices.withUnsafeBufferPointer { e in
                kinds.withUnsafeBufferPointer { kinds in
                  batch.row.withUnsafeBufferPointer { rows in
                    // One loop per case, each a literal in its loop (the selects between them
                    // were a third of the effect loop's instructions), the layout's Floats
                    // too, the base addresses taken once and the offsets wrapping (inside
                    // arrays sized for them): 48 -> 37 instructions an animated row.
                    let cells = rows.count
                    guard cells > 0, n > 0 else { return }
                    let m = m.baseAddress!, o = o.baseAddress!, y = y.baseAddress!, src = src.baseAddress!
                    let so = so.baseAddress!, e = e.baseAddress, kinds = kinds.baseAddress, rows = rows.baseAddress!
                    @inline(__always) func run(_ effect: Bool, _ planar: Bool, _ horizontal: Bool, _ floats: Int) {
                      for c in 0..<cells {
                        let slot = rows[c] &- visible.lowerBound
                        guard UInt(bitPattern: slot) < UInt(bitPattern: n) else { continue }
                        if effect && kinds.unsafelyUnwrapped[slot] != 1 {
                          Self.storeWithEffect(
                            src + floats &* c, floats, effect: e.unsafelyUnwrapped + sf &* slot, planar: planar,
                            y: Float(y[slot]), horizontal: horizontal, into: m + floats &* slot)
                        } else {
                          Self.storeTranslated(
                            src, c, Float(y[slot]), floats, horizontal: horizontal, into: m + floats &* slot)
                        }
                        o[slot] = so[c]
                      }
                    }
                    switch (effect != nil, planar, horizontal, floats == 6) {
                    case (false, _, false, false): run(false, false, false, 16)
                    case (false, _, true, false): run(false, false, true, 16)
                    case (false, _, false, true): run(false, false, false, 6)
                    case (false, _, true, true): run(false, false, true, 6)
                    // An affine frame's effect is planar (`composeAffine`).
                    case (true, _, false, true): run(true, true, false, 6)
                    case (true, _, true, true): run(true, true, true, 6)
                    case (true, true, false, false): run(true, true, false, 16)
                    case (true, true, true, false): run(true, true, true, 16)
                    case (true, false, false, false): run(true, false, false, 16)
                    case (true, false, true, false): run(true, false, true, 16)
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /// Writes every visible row's translation to its place (`frame.rows` and `frame.matrices`
  /// sized for the frame): the step's first write, or the whole frame of a refused one.
  mutating func placeRows(_ events: FrameEvents) {
    let floats = frame.layout.floatsPerCell, horizontal = axis == .horizontal, n = frame.rows.count
    frame.matrices.withUnsafeMutableBufferPointer { m in
      events.rowPositions.withUnsafeBufferPointer { y in
        guard n > 0 else { return }
        Self.storeTranslations(y.baseAddress!, n, floats, horizontal: horizontal, into: m.baseAddress!)
      }
    }
  }

  /// Appends `pendingStarts` to `batch` (growing it and the output first) and empties it.
  mutating func appendPendingStarts() throws(CellMotionError) {
    guard !pendingStarts.isEmpty else { return }
    while batch.count + pendingStarts.count > output.capacity { try Self.grow(&batch, &output) }
    let first = batch.count
    try pendingStarts.withUnsafeBufferPointer { starts throws(CellMotionError) in try batch.append(contentsOf: starts) }
    nextCellEnd = min(nextCellEnd, batch.earliestEndTime(from: first))
    pendingStarts.removeAll(keepingCapacity: true)
  }

  /// Batch updates: the row animations drawn this frame through the kernel (inserted rows
  /// and reloaded rows' new contents in their slots, deleted rows and old contents as
  /// extra cells), and moved rows far from the visible ones as extra cells.
  mutating func evaluateUpdates(_ events: FrameEvents, time: Double) throws(CellMotionError) {
    // Every visible row's flag false, then the update cells' set (rows added by the count
    // are false; a frame with no row behind leaves none to clear: a dense frame with no
    // update cleared its 10,000 flags every frame).
    Self.setCount(&frame.behind, frame.rows.count)
    if behindMarked {
      frame.behind.withUnsafeMutableBufferPointer { b in
        for i in b.indices { b[i] = false }
      }
      behindMarked = false
    }
    frame.extraCells.removeAll(keepingCapacity: true)
    frame.extraMatrices.removeAll(keepingCapacity: true)
    frame.extraOpacity.removeAll(keepingCapacity: true)
    guard !events.updateCells.isEmpty || !events.movingRows.isEmpty else { return }
    updateBatch.removeAll()
    try updateBatch.rebase(to: time)
    let rowCount = simulation.layout.rowCount
    for c in events.updateCells {
      if updateBatch.count == updateOutput.capacity { try Self.grow(&updateBatch, &updateOutput) }
      try updateBatch.append(
        recipe: updateRecipeIndex[c.cell.key]!, row: c.cell.row ?? 0, batchPosition: c.cell.batchPosition,
        rowCount: max(rowCount, (c.cell.row ?? 0) + 1), batchCount: c.cell.batchCount, startTime: c.cell.beginTime,
        geometry: cellGeometry(height: c.height))
    }
    try Kernel.evaluate(updateBatch, at: time, into: &updateOutput, options: KernelOptions(lanes: options.lanes))
    let floats = output.layout.floatsPerCell
    let horizontal = axis == .horizontal
    let source = updateOutput.matrices
    let effect = scrollStage?.output
    for (i, c) in events.updateCells.enumerated() {
      let y = Float(c.y)
      if let row = c.cell.row, c.cell.kind != .reloadedOld, frame.rows.contains(row) {
        let slot = row - frame.rows.lowerBound
        frame.matrices.withUnsafeMutableBufferPointer { m in
          updateOutput.matrices.withUnsafeBufferPointer { src in
            if let effect, scrollStage.unsafelyUnwrapped.batch.kinds[slot] != 1 {
              // The row's scroll effect between its animation and its place (`composeRows`;
              // none where its kind says so, `storeAnimatedRows`).
              effect.matrices.withUnsafeBufferPointer { e in
                let sf = effect.layout.floatsPerCell
                Self.storeWithEffect(
                  src.baseAddress! + floats * i, floats, effect: e.baseAddress! + sf * slot,
                  planar: effect.layout == .affine2D, y: y, horizontal: horizontal, into: m.baseAddress! + floats * slot)
              }
            } else {
              Self.storeTranslated(src.baseAddress!, i, y, floats, horizontal: horizontal, into: m.baseAddress! + floats * slot)
            }
          }
        }
        frame.opacity[slot] = updateOutput.opacity[i]
        frame.animating[slot] = true
        frame.behind[slot] = c.cell.isBehind
        if c.cell.isBehind { behindMarked = true }
        continue
      }
      guard c.cell.kind == .deleted || c.cell.kind == .reloadedOld else { continue }
      frame.extraCells.append(
        ExtraCell(
          kind: c.cell.kind == .deleted ? .deleted : .reloadedOld, id: c.cell.id, row: c.cell.row,
          deletedFrom: c.cell.deletedFrom, height: c.height, isBehind: c.cell.isBehind))
      Self.appendMatrix(floats, to: &frame.extraMatrices) { out in
        source.withUnsafeBufferPointer { Self.storeTranslated($0.baseAddress!, i, y, floats, horizontal: horizontal, into: out) }
      }
      frame.extraOpacity.append(updateOutput.opacity[i])
    }
    for m in events.movingRows {
      frame.extraCells.append(
        ExtraCell(kind: .moving, id: simulation.rows.ids[m.row], row: m.row, height: m.height, isBehind: false))
      Self.appendMatrix(floats, to: &frame.extraMatrices) { out in
        withUnsafePointer(to: m.y) { Self.storeTranslations($0, 1, floats, horizontal: horizontal, into: out) }
      }
      frame.extraOpacity.append(1)
    }
  }

  /// The geometry a row's recipe sees for a cell drawn `height` points tall (along the
  /// scroll axis: wide, in a horizontal table): that length clamped into
  /// `InputLimits.length` (1e-3 ... 1e6 points), the sizes a recipe is evaluated with. A drawn height can leave that range while the table animates (an
  /// overshooting height animation holds a row at 0 points for a moment; a row of 9e5
  /// points with a 2e5-point detail is 1.1e6 tall), and the frame must still be computed:
  /// the recipe's height-dependent values then use the nearest height it accepts, while
  /// the frame's `heights` and positions keep the drawn ones.
  @inline(__always)
  func cellGeometry(height: Double) -> CellGeometry {
    Self.cellGeometry(
      height: height, horizontal: axis == .horizontal, cellWidth: cellWidth,
      tableWidth: axis == .horizontal ? simulation.viewportHeight : tableWidth)
  }

  /// `cellGeometry(height:)` from its inputs (for loops that must not read `self`): the
  /// row's length clamped to `InputLimits.length`, across it the cell width; `tableWidth`
  /// the table's width (vertical) or the viewport's height (horizontal).
  @inline(__always)
  static func cellGeometry(height: Double, horizontal: Bool, cellWidth: Double, tableWidth: Double) -> CellGeometry {
    let h = min(max(height, InputLimits.length.lowerBound), InputLimits.length.upperBound)
    if horizontal { return CellGeometry(width: h, height: cellWidth, tableWidth: tableWidth) }
    return CellGeometry(width: cellWidth, height: h, tableWidth: tableWidth)
  }

  /// Drops the cells of `batch` that have finished by `time` and sets `nextCellEnd` to the
  /// earliest end of those left.
  ///
  /// - Complexity: O(cells in flight); no allocation.
  mutating func removeFinishedCells(by time: Double) {
    batch.removeCells(finishedBy: time)
    nextCellEnd = batch.earliestEndTime
  }

  /// A start that `pendingStarts` holds only as a placeholder until it is written.
  static let placeholderStart = CellBatch.Start(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 1, height: 1))

  /// Sets `a`'s count to `n`, keeping its capacity (no allocation within it); the
  /// elements are left for the caller to write.
  @inline(__always)
  static func setCount<T: _DefaultZero>(_ a: inout [T], _ n: Int) {
    if a.count > n {
      a.removeLast(a.count - n)
    } else if a.count < n {
      a.append(contentsOf: repeatElement(T._zero, count: n - a.count))
    }
  }

  /// Writes `n` translations by `y[i]` points down (right, `horizontal`), converted to
  /// Float, `floats` Floats each (16: CATransform3D field order; 6: the affine a b c d tx
  /// ty), to `m`: one loop per layout and axis, each a literal in its loop. A function of
  /// its own (not inlined): the placements call it once per run of rows, and compiled alone
  /// its loop unrolls (inlined into the effect's placement loop it kept a second exit test
  /// per row and did not: 12 instructions a row instead of 8).
  @inline(never)
  static func storeTranslations(
    _ y: UnsafePointer<Double>, _ n: Int, _ floats: Int, horizontal: Bool, into m: UnsafeMutablePointer<Float>
  ) {
    @inline(__always) func run(_ floats: Int, _ horizontal: Bool) {
      for i in 0..<n { storePlace(Float(y[i]), floats, horizontal: horizontal, into: m + floats &* i) }
    }
    switch (floats == 6, horizontal) {
    case (true, false): run(6, false)
    case (true, true): run(6, true)
    case (false, false): run(16, false)
    case (false, true): run(16, true)
    }
  }

  /// One row's translation by `y` points down (right, `horizontal`) at `m`: 16 Floats
  /// (CATransform3D field order, one vector store per row of the matrix) or 6 (the affine
  /// a b c d tx ty).
  @inline(__always)
  static func storePlace(_ y: Float, _ floats: Int, horizontal: Bool, into m: UnsafeMutablePointer<Float>) {
    let raw = UnsafeMutableRawPointer(m)
    if floats == 6 {
      raw.storeBytes(of: SIMD4<Float>(1, 0, 0, 1), as: SIMD4<Float>.self)
      raw.storeBytes(of: horizontal ? SIMD2<Float>(y, 0) : SIMD2<Float>(0, y), toByteOffset: 16, as: SIMD2<Float>.self)
      return
    }
    // Two 32-byte stores (rows 1-2, constant; rows 3-4 with y): a dense frame writes 10,000
    // of these, and four 16-byte stores a row were a store-port-bound loop.
    raw.storeBytes(of: SIMD8<Float>(1, 0, 0, 0, 0, 1, 0, 0), as: SIMD8<Float>.self)
    let y8 = SIMD8<Float>(repeating: y)
    let rows34 = SIMD8<Float>(0, 0, 1, 0, 0, 0, 0, 1)
    let yLane: SIMDMask<SIMD8<Int32>> =
      horizontal ? SIMDMask(SIMD8<Int32>(0, 0, 0, 0, -1, 0, 0, 0)) : SIMDMask(SIMD8<Int32>(0, 0, 0, 0, 0, -1, 0, 0))
    raw.storeBytes(of: rows34.replacing(with: y8, where: yLane), toByteOffset: 32, as: SIMD8<Float>.self)
  }

  /// Writes cell `i`'s matrix of `m` composed with a translation by `y` points down
  /// (right, `horizontal`) to `out`: `M * Translate(0, y, 0)` (4x4: column 2 += column 4 *
  /// y; affine: ty += y), or `M * Translate(y, 0, 0)` (column 1, tx).
  @inline(__always)
  static func storeTranslated(
    _ m: UnsafePointer<Float>, _ i: Int, _ y: Float, _ floats: Int, horizontal: Bool,
    into out: UnsafeMutablePointer<Float>
  ) {
    let s = m + floats &* i
    if floats == 6 {
      let place = horizontal ? 4 : 5
      for k in 0..<6 { out[k] = s[k] + (k == place ? y : 0) }
      return
    }
    // Row vectors: M x T moves column 1 (x: column 0) by column 4 x y. A row at a time in
    // one SIMD4 (the same Float products and sums as entry by entry; the other entries
    // copied as they are): 73 instructions a cell as scalars, in every frame. (Two rows
    // per SIMD8 with a blend was no better: the optimiser narrowed the sum to the two
    // lanes kept, with more shuffles.)
    let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(out)
    if horizontal {
      for row in 0..<4 {
        var r = src.loadUnaligned(fromByteOffset: 16 &* row, as: SIMD4<Float>.self)
        r[0] = r[0] + r[3] * y
        dst.storeBytes(of: r, toByteOffset: 16 &* row, as: SIMD4<Float>.self)
      }
    } else {
      for row in 0..<4 {
        var r = src.loadUnaligned(fromByteOffset: 16 &* row, as: SIMD4<Float>.self)
        r[1] = r[1] + r[3] * y
        dst.storeBytes(of: r, toByteOffset: 16 &* row, as: SIMD4<Float>.self)
      }
    }
  }

  /// Appends `floats` Floats to `m`, written by `write` through a pointer to them.
  @inline(__always)
  static func appendMatrix(_ floats: Int, to m: inout [Float], _ write: (UnsafeMutablePointer<Float>) -> Void) {
    let start = m.count
    m.append(contentsOf: repeatElement(0, count: floats))
    m.withUnsafeMutableBufferPointer { write($0.baseAddress! + start) }
  }

  /// Applies a batch update at `time` (see `TableSimulation.performBatchUpdates`): the
  /// appearance animations in flight follow their rows (those of deleted rows end).
  @discardableResult
  public mutating func performBatchUpdates(
    _ update: RowUpdate, at time: Double, expectedRowCount: Int? = nil
  ) throws(CellMotionError) -> AppliedUpdate {
    let applied = try simulation.performBatchUpdates(update, at: time, expectedRowCount: expectedRowCount)
    // The cells' rows mostly increase: the map is read with a cursor, started again where a
    // row is below the one before (two binary searches a cell were a fifth of the call
    // with 10,000 cells in flight).
    var cursor = UpdateMap.Cursor()
    var last = Int.min
    batch.relabelRows { row in
      if row < last { cursor = UpdateMap.Cursor() }
      last = row
      return applied.map._newIndex(row, cursor: &cursor)
    }
    return applied
  }

  /// Visible expanded rows whose detail has fully grown and is not folding.
  mutating func collectOpenDetails(_ events: FrameEvents, time: Double) throws(CellMotionError) {
    frame.openDetails.removeAll(keepingCapacity: true)
    guard let expansion = simulation.expansion else { return }
    for (i, row) in frame.rows.enumerated() where expansion.isExpanded(row) {
      guard try expansion.detailFraction(row: row, at: time) == 1, try expansion.foldAnimation(row: row, at: time) == nil
      else { continue }
      let top = events.rowPositions[i] + (try simulation.layout.rowHeight(row))
      frame.openDetails.append(OpenDetail(row: row, detailTop: top, height: try expansion.detailHeight(row: row)))
    }
  }

  /// Whether the table has come to rest at the last step: the scroll has ended, no
  /// appearance animation is in flight (finished ones are dropped at each step), no detail
  /// is folding and no row's height is changing. A run can stop stepping once this holds
  /// and nothing else (a toggle, a new scroll) is scheduled.
  public var isSettled: Bool {
    let t = frame.time
    return t >= simulation.scroll.endTime && batch.count == 0 && frame.folds.isEmpty
      && (simulation.expansion?.isSettled(at: t) ?? true) && !simulation.updates.isAnimating(at: t)
  }

  /// Folds: a fresh small batch each frame (capacity kept), closing mapped onto the
  /// opening recipe run backwards in time; a retargeting fold's cell follows its openness
  /// motion (`CellBatch.setFoldMotion`: a derived recipe per motion shape, compiled the
  /// first time the shape occurs, then a few small allocations per folding row and frame).
  mutating func evaluateFolds(_ events: FrameEvents, time: Double) throws(CellMotionError) {
    foldBatch.removeAll()
    // Rebuilt every frame, so its origin can simply be the frame time (exact local times).
    try foldBatch.rebase(to: time)
    frame.folds.removeAll(keepingCapacity: true)
    guard !events.folds.isEmpty, let expansion = simulation.expansion else { return }
    for (row, fold) in events.folds {
      // Reduce motion: a closing detail is at its folded end state at once (nothing drawn).
      if foldBatch.recipes[0].holdsFold && fold.phase == .closing { continue }
      let local = fold.localTime(at: time)
      let openingLocal = fold.phase == .opening ? local : fold.duration - local
      let detail = try expansion.detailHeight(row: row)
      // Every folding row is drawn: the batch grows (once per new high) rather than drop
      // the folds past its capacity.
      if foldBatch.count == foldOutput.capacity { try Self.grow(&foldBatch, &foldOutput) }
      let held = foldBatch.recipes[0].holdsFold
      try foldBatch.append(
        recipe: 0, row: row, startTime: fold.motion != nil && !held ? time : time - openingLocal,
        geometry: CellGeometry(width: cellWidth, height: detail, tableWidth: tableWidth, detailHeight: detail))
      // A retargeting fold: its openness (the opening recipe's progress) is the motion's.
      if let motion = fold.motion, !held { try foldBatch.setFoldMotion(motion, cell: foldBatch.count - 1) }
    }
    try Kernel.evaluate(foldBatch, at: time, into: &foldOutput, options: KernelOptions(lanes: options.lanes))
    for c in 0..<foldBatch.count {
      let row = foldBatch.row[c]
      guard let y = events.position(ofRow: row) else { continue }
      let collapsed = (try? simulation.layout.rowHeight(row)) ?? 0
      let top = y + collapsed
      // Into viewport space: * Translate(0, top, 0).
      let shift = Transform3D.translation(0, top, 0)
      frame.folds.append(
        FoldedDetail(
          row: row, detailTop: top, top: foldOutput.foldTopTransform(ofCell: c).concatenating(shift),
          bottom: foldOutput.foldBottomTransform(ofCell: c).concatenating(shift),
          shadowOpacity: foldOutput.foldShadow[c]))
    }
  }

  /// Toggles a row's expansion at `time` (see `TableSimulation.toggle(row:at:)`).
  @discardableResult
  public mutating func toggle(row: Int, at time: Double) throws(CellMotionError) -> Bool {
    try simulation.toggle(row: row, at: time)
  }

  /// Refresh: display rules start over and running animations are dropped.
  public mutating func reload() {
    simulation.reload()
    batch.removeAll()
  }

  /// Replaces the scroll trajectory (e.g. a new fling).
  public mutating func setScroll(_ scroll: ScrollTrajectory) { simulation.scroll = scroll }

  /// How far (seconds) the frame time may move from the batch's time origin before the
  /// animator rebases it: 2 s, well inside `CellBatch.precisionWindow`, so the kernel's
  /// Float times keep the quantum they have near zero (2.4e-7 s).
  public static let rebaseInterval: Double = 2

  /// Doubles the room of a batch and its output for cells in flight, up to
  /// `CellBatch.maxCapacity` (then throws `.outOfRange` rather than overflow or allocate
  /// without bound).
  static func grow(_ batch: inout CellBatch, _ output: inout FrameOutput) throws(CellMotionError) {
    guard output.capacity < CellBatch.maxCapacity else {
      throw .outOfRange(
        field: "cells in flight", value: Double(output.capacity) + 1, expected: "<= \(CellBatch.maxCapacity)")
    }
    let n = min(CellBatch.maxCapacity, max(16, output.capacity * 2))
    try output.ensureCapacity(n)
    try batch.reserveCapacity(n)
  }

  /// Whether sorted `a` holds `x`.
  static func contains(sorted a: UnsafeBufferPointer<Int>, _ x: Int) -> Bool {
    let i = lowerBound(sorted: a, x)
    return i < a.count && a[i] == x
  }

  /// The first index of sorted `a` whose value is not below `x` (`a.count`: none).
  static func lowerBound(sorted a: UnsafeBufferPointer<Int>, _ x: Int) -> Int {
    var lo = 0, hi = a.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if a[mid] < x { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }
}

/// Element types whose frame arrays `TableAnimator.setCount` resizes: a placeholder value
/// for new elements (overwritten before the frame is read).
protocol _DefaultZero { static var _zero: Self { get } }
extension Float: _DefaultZero { static var _zero: Float { 0 } }
extension Bool: _DefaultZero { static var _zero: Bool { false } }
extension Double: _DefaultZero { static var _zero: Double { 0 } }
