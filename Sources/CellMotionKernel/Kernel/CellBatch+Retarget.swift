// Retargeting cells of a batch: each retarget is worked out exactly in Double by the
// reference's `ChannelMotion` (presentation value and velocity at the instant, the
// policy's new motion); the batch keeps those motions, moves the cell to a derived recipe
// of that shape (compiled once per shape) and writes the cell's numbers to its retarget
// rows, which the kernel reads branch-free per lane.

import CellMotion

/// The cells' per-cell retarget numbers, structure of arrays: row j of cell i at
/// `j * stride + i`. Rows exist once some cell was retargeted; `stride` keeps up with the
/// batch's capacity, so appending within capacity moves nothing.
struct RetargetRows: Sendable {
  var data: [Float] = []
  var stride = 0
  var rows = 0

  /// Room for `cells` cells in every row (re-laid out when it grows: at retarget time or
  /// when the batch grows past its reserved capacity, never within it).
  mutating func reserve(cells: Int) {
    guard rows > 0, cells > stride else { return }
    relayout(stride: max(cells, 2 * stride), rows: rows)
  }

  /// At least `n` rows.
  mutating func reserve(rows n: Int, cells: Int) {
    guard n > rows else { return }
    relayout(stride: max(stride, cells, 8), rows: n)
  }

  private mutating func relayout(stride newStride: Int, rows newRows: Int) {
    var next = [Float](repeating: 0, count: newStride * newRows)
    for j in 0..<rows {
      for i in 0..<stride { next[j * newStride + i] = data[j * stride + i] }
    }
    (data, stride, rows) = (next, newStride, newRows)
  }

  mutating func move(cell from: Int, to: Int) {
    for j in 0..<rows { data[j * stride + to] = data[j * stride + from] }
  }
}

/// A derived recipe's identity: the recipe it derives from, its channels' retarget shapes
/// in `Channel.allCases` order, and its fold's.
struct DerivedKey: Hashable, Sendable {
  var base: Int
  var shapes: [RetargetShape]
  var fold: RetargetShape?
}

/// One cell's motions, exactly: its retargeted channels in `Channel.allCases` order and
/// its fold's progress when that was retargeted or set.
///
/// The fold's motion is kept out of line (an array of at most one), so a `CellMotions?`
/// is two words: the batch's motions column holds one per cell, retargeted or not, and a
/// ChannelMotion inline made every append and compaction copy about 500 bytes per cell
/// (issue 32: most of a 10,000-row table's first frame).
struct CellMotions: Sendable {
  var channels: [ChannelMotion]
  private var foldStorage: [ChannelMotion]

  var fold: ChannelMotion? {
    get { foldStorage.first }
    set { foldStorage = newValue.map { [$0] } ?? [] }
  }

  init(channels: [ChannelMotion], fold: ChannelMotion?) {
    self.channels = channels
    foldStorage = fold.map { [$0] } ?? []
  }
}

extension CellBatch {
  /// Sends channel `channel` of cell `i` to `target` (units: points, radians, unitless)
  /// from `time` (absolute seconds) by `policy` (`RetargetPolicy`: additive, carrying the
  /// velocity, or from the current state). The first retarget of a channel starts from
  /// the cell's recipe as it runs; later ones from the motion the previous ones left.
  ///
  /// The new motion is worked out exactly (`ChannelMotion.retarget`, Double) and kept; the
  /// cell moves to a derived recipe of its retargets' shape (curves, durations, layer
  /// count), compiled the first time that shape occurs (a Bezier compiles in tens of
  /// milliseconds; later cells of the same shape reuse it), and its numbers go to the
  /// batch's retarget rows. Nothing changes when it throws.
  ///
  /// - Throws: `.indexOutOfRange` for a cell outside `0..<count`; `.invalidCombination`
  ///   when the cell's recipe does not animate `channel`; `ChannelMotion.retarget`'s errors
  ///   (target, time, policy, a fifth running additive layer); `.outOfRange` when the
  ///   derived recipe would need more scratch rows than the kernel has, or when a rotation
  ///   channel's retarget rows (offset, the segment's larger end, layer deltas, summed)
  ///   exceed `CompiledRecipe.maximumAngle` radians (a Float angle that large loses the
  ///   stated precision).
  /// - Complexity: O(channels + rows); allocates (it is an event, not a frame).
  public mutating func retarget(
    cell i: Int, channel: Channel, to target: Double, at time: Double, policy: RetargetPolicy
  ) throws(CellMotionError) {
    var cellMotions = motions(ofCell: i)
    let k = cellMotions.firstIndex { $0.channel == channel }
    var motion: ChannelMotion
    if let k { motion = cellMotions[k] } else { motion = try recipeMotion(cell: i, channel: channel) }
    try motion.retarget(to: target, at: time, policy: policy)
    if let k { cellMotions[k] = motion } else { cellMotions.append(motion) }
    try store(CellMotions(channels: cellMotions, fold: motions[i]?.fold), cell: i)
  }

  /// Sends the fold of cell `i` (a recipe with a fold) to progress `target` from `time`
  /// (absolute seconds) by `policy`, as `retarget` does a channel: the progress is the
  /// fold's in its recipe's direction, unitless (0 where its curve starts, 1 where it
  /// ends: for an opening fold 1 is flat, 0 folded; `ChannelMotion(foldOf:...)`). A later
  /// retarget starts from the motion the earlier ones left.
  ///
  /// - Throws: `.invalidCombination` when the cell's recipe has no fold; `.outOfRange` when
  ///   the motion's numbers (summed as for a rotation channel) reach a progress p whose
  ///   angle pi/2 x (1 + |p|) exceeds `CompiledRecipe.maximumAngle` (|p| above about 39,
  ///   e.g. `retargetFold(to: 1e6)`); otherwise as `retarget(cell:channel:to:at:policy:)`.
  public mutating func retargetFold(cell i: Int, to target: Double, at time: Double, policy: RetargetPolicy)
    throws(CellMotionError)
  {
    var motion = try foldMotion(ofCell: i)
    try motion.retarget(to: target, at: time, policy: policy)
    try store(CellMotions(channels: motions(ofCell: i), fold: motion), cell: i)
  }

  /// Cell `i`'s fold progress as a motion: the one retargets or `setFoldMotion` left, or
  /// its recipe's fold as it runs for the cell (`ChannelMotion(foldOf:...)`).
  /// - Throws: `.indexOutOfRange`; `.invalidCombination` when the recipe has no fold.
  public func foldMotion(ofCell i: Int) throws(CellMotionError) -> ChannelMotion {
    guard i >= 0, i < count else { throw .indexOutOfRange(field: "cell", index: i, count: count) }
    if let m = motions[i]?.fold { return m }
    let compiled = recipes[baseRecipe(ofCell: i)]
    let recipe = compiled.recipe
    guard let fold = recipe.fold else {
      throw .invalidCombination(field: "fold", reason: "recipe \(recipe.name) has no fold")
    }
    return ChannelMotion(
      RecipeChannel(
        animation: ChannelMotion.foldProgress(fold), timing: recipe.timing, start: startExact[i],
        held: compiled.motion.holdsTransforms, geometry: geometry(ofCell: i)))
  }

  /// Makes the fold of cell `i` follow `motion` (its value is the fold's progress, as
  /// `foldMotion(ofCell:)`'s): a motion worked out elsewhere, such as a table row's fold
  /// that a toggle retargeted (`ExpansionState`). It must start as a segment
  /// (`ChannelMotion(_:channel:)`) or from this cell's own fold (`foldMotion(ofCell:)`,
  /// then retargeted).
  ///
  /// - Throws: `.indexOutOfRange`; `.invalidCombination` when the recipe has no fold or
  ///   `motion` starts from another recipe's channel; `.outOfRange` as `retargetFold`.
  /// - Complexity: as `retarget`; once the derived recipe of its shape exists, a few small
  ///   allocations (an event, not the kernel's frame).
  public mutating func setFoldMotion(_ motion: ChannelMotion, cell i: Int) throws(CellMotionError) {
    let own = try foldMotion(ofCell: i)
    if case .recipe(let r) = motion.base, r != own.recipeChannel {
      throw .invalidCombination(
        field: "motion", reason: "a fold motion must start as a segment or from the cell's own fold")
    }
    try store(CellMotions(channels: motions(ofCell: i), fold: motion), cell: i)
  }

  /// Sends channel `channel` of cell `i` back to its recipe's start value
  /// (`ChannelMotion.reverse`); errors as `retarget`.
  public mutating func reverse(cell i: Int, channel: Channel, at time: Double, policy: RetargetPolicy)
    throws(CellMotionError)
  {
    guard i >= 0, i < count else { throw .indexOutOfRange(field: "cell", index: i, count: count) }
    let m = try channelMotion(ofCell: i, channel: channel)
    try retarget(cell: i, channel: channel, to: m.startValue, at: time, policy: policy)
  }

  /// Cell `i`'s motion of `channel`: its retargeted motion, or its recipe's channel as it
  /// runs for the cell (the exact Double state the kernel's rows are made from).
  /// - Throws: `.indexOutOfRange`; `.invalidCombination` when the recipe does not animate it.
  public func channelMotion(ofCell i: Int, channel: Channel) throws(CellMotionError) -> ChannelMotion {
    if let m = motions(ofCell: i).first(where: { $0.channel == channel }) { return m }
    return try recipeMotion(cell: i, channel: channel)
  }

  /// Cell `i`'s retargeted channels (empty when none; `[]` outside `0..<count`); its fold
  /// is `foldMotion(ofCell:)`.
  public func motions(ofCell i: Int) -> [ChannelMotion] {
    guard i >= 0, i < count else { return [] }
    return motions[i]?.channels ?? []
  }

  /// The recipe index cell `i` was appended with (derived recipes map back to it).
  ///
  /// - Precondition: `0 <= i < count` (a trap names the index and the range).
  public func baseRecipe(ofCell i: Int) -> Int {
    precondition(i >= 0 && i < count, "CellBatch: cell index \(i) out of range 0..<\(count)")
    let r = Int(recipeIndex[i])
    return recipes[r].baseRecipe ?? r
  }

  /// Cell `i`'s geometry as the kernel reads it (the Float values, exactly in Double).
  func geometry(ofCell i: Int) -> CellGeometry {
    CellGeometry(
      width: Double(width[i]), height: Double(height[i]), tableWidth: Double(tableWidth[i]),
      detailHeight: Double(detailHeight[i]))
  }

  private func recipeMotion(cell i: Int, channel: Channel) throws(CellMotionError) -> ChannelMotion {
    guard i >= 0, i < count else { throw .indexOutOfRange(field: "cell", index: i, count: count) }
    let compiled = recipes[baseRecipe(ofCell: i)]
    return ChannelMotion(
      try RecipeChannel.of(
        compiled.recipe, channel: channel, policy: compiled.motion, start: startExact[i], geometry: geometry(ofCell: i)))
  }

  /// Moves cell `i` to the derived recipe of `cellMotions`' shape and writes its rows.
  private mutating func store(_ cellMotions: CellMotions, cell i: Int) throws(CellMotionError) {
    guard source == .clock else {
      throw .invalidCombination(
        field: "cell", reason: "cells driven by progress cannot be retargeted (a retarget runs on the clock)")
    }
    // The angles the kernel forms from the retarget rows (Float) stay within
    // `CompiledRecipe.maximumAngle`: a rotation channel's numbers are angles, a fold's are
    // its progress p, the halves turning by pi/2 x (1 - p).
    for m in cellMotions.channels where m.channel == .rotationX || m.channel == .rotationY || m.channel == .rotationZ {
      try CompiledRecipe.checkAngle(CompiledRecipe.retargetReach(m), field: "retarget of \(m.channel.rawValue)")
    }
    if let f = cellMotions.fold {
      try CompiledRecipe.checkAngle(Double.pi / 2 * (1 + CompiledRecipe.retargetReach(f)), field: "retarget of the fold")
    }
    let order = Channel.allCases
    let sorted = cellMotions.channels.sorted {
      order.firstIndex(of: $0.channel)! < order.firstIndex(of: $1.channel)!
    }
    let base = baseRecipe(ofCell: i)
    let key = DerivedKey(base: base, shapes: sorted.map(RetargetShape.init), fold: cellMotions.fold.map(RetargetShape.init))
    let index: Int
    if let known = derived[key] {
      index = known
    } else {
      guard recipes.count < Self.maxRecipes else {
        throw .outOfRange(field: "recipes.count", value: Double(recipes.count + 1), expected: "<= \(Self.maxRecipes)")
      }
      var compiled = try CompiledRecipe(
        recipes[base].recipe, motion: recipes[base].motion, retargets: key.shapes, foldRetarget: key.fold,
        curves: curveCache.merging(recipes[base].compiledCurves) { a, _ in a })
      compiled.baseRecipe = base
      curveCache.merge(compiled.compiledCurves) { a, _ in a }
      recipes.append(compiled)
      index = recipes.count - 1
      derived[key] = index
    }
    retargetRows.reserve(rows: recipes[index].retargetInputRows, cells: max(count, columns.start.capacity))
    setRecipeIndex(Int32(index), ofCell: i)
    columns.motions[i] = CellMotions(channels: sorted, fold: cellMotions.fold)
    var end = startExact[i] + recipes[base].activeDuration
    for m in sorted { end = max(end, m.endTime) }
    if let f = cellMotions.fold { end = max(end, f.endTime) }
    columns.endExact[i] = end
    writeRetargetRows(cell: i)
  }

  /// Sets cell `i`'s recipe index, keeping `recipeChanges` up to date.
  private mutating func setRecipeIndex(_ index: Int32, ofCell i: Int) {
    func changes() -> Int {
      (i > 0 && recipeIndex[i - 1] != recipeIndex[i] ? 1 : 0)
        + (i + 1 < count && recipeIndex[i + 1] != recipeIndex[i] ? 1 : 0)
    }
    recipeChanges -= changes()
    columns.recipeIndex[i] = index
    recipeChanges += changes()
  }

  /// Writes cell `i`'s retarget rows from its motions (times relative to `timeOrigin`).
  mutating func writeRetargetRows(cell i: Int) {
    guard let cellMotions = motions[i] else { return }
    let r = recipes[Int(recipeIndex[i])]
    let origin = timeOrigin, stride = retargetRows.stride
    for k in r.retargets {
      let motion = k.isFold ? cellMotions.fold : cellMotions.channels.first { $0.channel == k.shape.channel }
      guard let m = motion else { continue }
      k.shape.writeRows(m, origin: origin) { j, v in retargetRows.data[(k.input + j) * stride + i] = v }
    }
  }
}
