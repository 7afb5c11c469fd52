// Scroll effects through the kernel: each frame, a timeline pass turns every cell's place in
// the viewport into its recipe's progress (one multiply-add and a clamp per cell, in lanes:
// `ResolvedScrollTimeline`), then the kernel evaluates the effect's recipe from that progress
// column (`ProgressSource.progress`), then the cells the timeline leaves alone or hides get
// the identity or opacity 0. The reference is `ScrollEffect.evaluate(cell:scroll:)`.

import CellMotion
import _CellMotionShims

/// A scroll effect (`ScrollEffect`) evaluated for many cells per frame.
///
/// Cells are given per frame by their place along the effect's axis: the leading edge
/// relative to the viewport's leading edge (points; a vertical list's row top minus the
/// scroll offset) and the extent (the row's height), plus their size across the axis. The
/// effect's state of every cell goes to a `FrameOutput` as the kernel writes it (matrices in
/// the output's layout, opacity); cells outside the timeline's range get what its fill says
/// (`ScrollTimelineOutput`: identity and opacity 1 for no effect, opacity 0 when hidden).
///
/// Cells the effect leaves exactly as they are (the middle of a list under an edge fade,
/// the rows a reveal has revealed: the recipe at `identityProgress`) skip the kernel in
/// runs of at least 32 and get the identity and opacity 1, as cells outside a `none` fill
/// do; the work of a frame then follows the cells the effect changes.
///
/// Why positions relative to the viewport: the kernel works in Float, which holds a place a
/// million points down a table to 0.06 pt; relative to the viewport the visible cells' places
/// are small numbers, exact to a few millionths of a point. A progress is one Float
/// multiply-add of that place, which loses about 1e-7 of progress per ramp length of place:
/// a 44-point ramp 2,000 points down the viewport is within 6e-6 of the reference; a
/// viewport of tens of thousands of points takes effects with ramps of that size's order.
public struct ScrollEffectBatch: Sendable {
  public let effect: ScrollEffect
  /// The effect's recipe, driven by progress (capacity kept between frames).
  public private(set) var batch: CellBatch
  /// Per cell: 0 the effect applies, 1 no effect, 2 hidden (`ScrollTimelineOutput`).
  package private(set) var kinds: [Float] = []
  /// Per cell, the timeline resolved for its extent, five columns of `kinds.count`: the
  /// slope, the intercept, the phase's span, the section-end extent (`TimelinePass`) and
  /// the shape (`TimelinePass.Mode`'s raw value).
  var timelineColumns: [Float] = []
  /// The cells whose cross size and table width columns hold `filled`'s values (the
  /// columns are rewritten only when these change or cells are added).
  var filled: (count: Int, cross: Float, tableWidth: Float) = (0, 0, 0)
  /// The recipe progress at which the effect is exactly the identity with opacity 1
  /// (`identityProgress(of:)`), or nil: cells the timeline puts there are given the
  /// identity without the kernel, as cells it leaves alone are.
  package let identityProgress: Float?
  /// Whether the phase's middle (value 0: a SwiftUI phase's `identity`) is the recipe
  /// progress `identityProgress`, so that the cells `TimelineResolver.quietPhase` finds
  /// may skip their resolution.
  let phaseZeroIsIdentity: Bool
  /// The ranges of cells the kernel evaluates in a frame that skips some (capacity kept).
  var evaluated: [Range<Int>] = []
  /// The runs of cells `quietPhaseRuns` found in the last frame (capacity kept):
  /// increasing, disjoint, each from and to multiples of eight, every cell in them kind 1
  /// (no effect). Other cells may be kind 1 too (`kinds`); these need not be read to know
  /// it: the middle of a long list under an edge fade, which the fills and the table skip
  /// whole (`forEachGap(in:count:_:)`).
  package private(set) var quietRuns: [Range<Int>] = []
  /// Whether the fills write the cells with no effect (kind 1): the identity matrix and
  /// opacity 1. False for a caller that reads `kinds` and treats those cells itself (the
  /// table animator places them and keeps their opacity): their matrices and opacities in
  /// the output are then left as they were. Hidden cells get opacity 0 either way.
  package var fillsNoEffectCells = true
  /// Cells the last frame gave the identity without the kernel.
  package private(set) var skippedCells = 0
  /// The runs of cells the last frame copied rather than evaluated (capacity kept): in a
  /// frame of equal extents, cells with equal progress have equal outputs, and each run of
  /// them (from and to multiples of eight, at least `shortestSkip` long) copies the output
  /// of the cell eight before its start, which the kernel evaluated (`splitEqualRuns`).
  /// The pages or wheel rows past the ones in view, all at their range's end.
  package private(set) var copiedRuns: [Range<Int>] = []
  /// `evaluated` while `splitEqualRuns` rewrites it (capacity kept).
  var spareRanges: [Range<Int>] = []
  /// The Double entry's positions as Floats (capacity kept).
  var leadingScratch: [Float] = []

  /// - Parameters:
  ///   - effect: the effect.
  ///   - capacity: cells per frame to reserve room for (0...`CellBatch.maxCapacity`).
  /// - Throws: `.outOfRange` for the capacity; the errors of compiling the effect's recipe
  ///   for a progress source (`CompiledRecipe.init`: an active duration above
  ///   `CellBatch.precisionWindow` among them).
  public init(effect: ScrollEffect, capacity: Int = 0) throws(CellMotionError) {
    self.effect = effect
    batch = try CellBatch(recipes: [effect.recipe], capacity: capacity, source: .progress)
    identityProgress = Self.identityProgress(of: effect)
    // The pass's recipe progress for the value 0, as `TimelinePass.loop` computes it.
    let (lower, scale) = TimelinePass.domainScaling(effect.domain)
    phaseZeroIsIdentity = identityProgress == Swift.min(Swift.max((0 - lower) * scale, 0), 1)
    // The columns at their working size once, then emptied (capacity kept): their pages
    // are touched here rather than by the first frame, which appends thousands of cells
    // at once (up to `CellBatch.touchedAtInit` cells).
    let touched = Swift.min(capacity, CellBatch.touchedAtInit)
    try batch.resizeForProgress(count: touched)
    try batch.resizeForProgress(count: 0)
    kinds.reserveResident(capacity, touching: touched, with: 0)
    leadingScratch.reserveResident(capacity, touching: touched, with: 0)
    timelineColumns.reserveResident(5 * capacity, touching: 5 * touched, with: 0)
    evaluated.reserveCapacity(capacity / Self.shortestSkip + 2)
    spareRanges.reserveCapacity(capacity / Self.shortestSkip + 2)
    quietRuns.reserveCapacity(capacity / Self.shortestSkip + 2)
    copiedRuns.reserveCapacity(capacity / Self.shortestSkip + 2)
  }

  /// Evaluates the effect for `leading.count` cells.
  ///
  /// - Parameters:
  ///   - leading: each cell's leading edge along the axis relative to the viewport's
  ///     leading edge (content position - scroll offset), points.
  ///   - extent: each cell's extent along the axis, points (`InputLimits.length`).
  ///   - crossExtent: the cells' size across the axis (a vertical list's cell width),
  ///     points.
  ///   - sectionEnds: for a timeline limited to its section's end
  ///     (`DistanceLimit.toSectionEnd`), each cell's section end relative to the viewport's
  ///     leading edge, points; nil: unlimited.
  ///   - scroll: the scroll view (its offset along the effect's axis is the one the
  ///     positions were taken at; its viewport width is the recipe's table width, as
  ///     `ScrollCell.geometry(in:)` gives it).
  ///   - output: receives the cells' matrices and opacities (`FrameOutput`).
  ///   - options: the kernel's lane width and threads.
  /// - Throws: `.bufferSize` when the columns disagree or the output is too small; `.notFinite`
  ///   or `.outOfRange` for a position outside `InputLimits.scrollPosition` or an extent
  ///   outside `InputLimits.length` (`batch` then holds `n` cells with placeholder extents,
  ///   all valid, until the next call); the errors of `Kernel.evaluate`.
  /// - Complexity: O(cells); no allocation within the reserved capacity.
  public mutating func evaluate(
    leading: UnsafeBufferPointer<Float>, extent: UnsafeBufferPointer<Float>, crossExtent: Double,
    sectionEnds: UnsafeBufferPointer<Float>? = nil, scroll: ScrollState, into output: inout FrameOutput,
    options: KernelOptions = .init()
  ) throws(CellMotionError) {
    let n = leading.count
    try prepare(count: n, extents: extent.count, sectionEnds: sectionEnds, crossExtent: crossExtent, output: output)
    // The positions and extents checked, and the extents copied into the recipe's geometry
    // (the extent along the axis) in the same pass, which also tells whether every extent
    // is the same (a list of equal rows: one run, no search for its end).
    let (lead, pos) = (InputLimits.scrollPosition, InputLimits.length)
    let vertical = effect.timeline.axis == .vertical
    let verdict = batch.withProgressColumns { _, width, height, _, _ in
      cm_check2_copying_b(
        leading.baseAddress, Float(lead.lowerBound), Float(lead.upperBound), extent.baseAddress,
        Float(pos.lowerBound), Float(pos.upperBound), n, (vertical ? height : width).baseAddress)
    }
    if verdict & 1 != 0 { try rejectInputs(leading) }
    try evaluateChecked(
      leading: leading.baseAddress, count: n, equalExtents: verdict & 2 == 0, crossExtent: crossExtent,
      sectionEnds: sectionEnds, scroll: scroll, into: &output, options: options)
  }

  /// `evaluate(leading:extent:crossExtent:sectionEnds:scroll:into:options:)` from Double
  /// places, converted to Float in the pass that checks them (a table's row tops relative to
  /// the viewport, and its row heights), each extent first clamped into
  /// `InputLimits.length` (a collapsing row passes through 0 points). One pass over the
  /// cells instead of a conversion and then the check. No section ends.
  ///
  /// - Throws: as the Float entry (a NaN extent is not clamped: `.notFinite`).
  package mutating func evaluate(
    leadingPlaces leading: UnsafeBufferPointer<Double>, clampingExtents extent: UnsafeBufferPointer<Double>,
    crossExtent: Double, scroll: ScrollState, into output: inout FrameOutput, options: KernelOptions = .init()
  ) throws(CellMotionError) {
    let n = leading.count
    try prepare(count: n, extents: extent.count, sectionEnds: nil, crossExtent: crossExtent, output: output)
    // Out of `self` while the batch's columns are written (an array of `self` borrowed
    // across a mutation of another would be an overlapping access).
    var places = leadingScratch
    leadingScratch = []
    defer { leadingScratch = places }
    if places.count < n { places.append(contentsOf: repeatElement(0, count: n - places.count)) }
    let (lead, pos) = (InputLimits.scrollPosition, InputLimits.length)
    let vertical = effect.timeline.axis == .vertical
    let verdict = places.withUnsafeMutableBufferPointer { places in
      batch.withProgressColumns { _, width, height, _, _ in
        cm_convert2_clamping_b(
          leading.baseAddress, Float(lead.lowerBound), Float(lead.upperBound), places.baseAddress,
          extent.baseAddress, Float(pos.lowerBound), Float(pos.upperBound), n, (vertical ? height : width).baseAddress)
      }
    }
    try places.withUnsafeBufferPointer { places throws(CellMotionError) in
      if verdict & 1 != 0 { try rejectInputs(UnsafeBufferPointer(rebasing: places[0..<n])) }
      try evaluateChecked(
        leading: places.baseAddress, count: n, equalExtents: verdict & 2 == 0, crossExtent: crossExtent,
        sectionEnds: nil, scroll: scroll, into: &output, options: options)
    }
  }

  /// The checks of both entries before the cells are read: the sizes (`extents` extents
  /// given for `n` cells), the cross extent, the batch resized for `n` cells.
  private mutating func prepare(
    count n: Int, extents: Int, sectionEnds: UnsafeBufferPointer<Float>?, crossExtent: Double, output: FrameOutput
  ) throws(CellMotionError) {
    // No runs until this frame finds them (a throw below leaves none).
    quietRuns.removeAll(keepingCapacity: true)
    guard extents == n else { throw .bufferSize(field: "extent", expected: n, actual: extents) }
    if let sectionEnds, sectionEnds.count != n {
      throw .bufferSize(field: "sectionEnds", expected: n, actual: sectionEnds.count)
    }
    guard output.capacity >= n else { throw .bufferSize(field: "FrameOutput capacity", expected: n, actual: output.capacity) }
    try Check.length(crossExtent, "crossExtent")
    try batch.resizeForProgress(count: n)
    if let sectionEnds { try Self.checkColumn(sectionEnds, InputLimits.scrollPosition, "sectionEnds") }
  }

  /// Throws the error of the first bad position (`leading`) or extent (the check's verdict
  /// said one is). Both entries copied the extents into the batch's geometry column as
  /// they checked them, and are read there. A bad one must not stay there, since a caller
  /// may evaluate the batch itself (`batch`); its cells get the placeholder length that
  /// `resizeForProgress` gives new cells until the next call.
  private mutating func rejectInputs(_ leading: UnsafeBufferPointer<Float>) throws(CellMotionError) {
    let (lead, pos) = (InputLimits.scrollPosition, InputLimits.length)
    let vertical = effect.timeline.axis == .vertical
    let n = leading.count
    do throws(CellMotionError) {
      try Self.checkColumn(leading, lead, "leading")
      // A copy: the column is rewritten below (the error path only).
      let extents = batch.withProgressColumns { _, width, height, _, _ in
        [Float](UnsafeBufferPointer(rebasing: (vertical ? height : width)[0..<n]))
      }
      try extents.withUnsafeBufferPointer { e throws(CellMotionError) in try Self.checkColumn(e, pos, "extent") }
    } catch {
      batch.withProgressColumns { _, width, height, _, _ in
        Self.fill((vertical ? height : width).baseAddress!, Float(pos.lowerBound), count: n)
      }
      throw error
    }
  }

  /// The frame after the inputs are checked: `leading` (`n` cells) and the extents, which
  /// are in the batch's geometry column along the axis; `equalExtents`: all the same. Out
  /// of line: inlined into both entries it was compiled twice (12 KB each).
  @inline(never)
  private mutating func evaluateChecked(
    leading: UnsafePointer<Float>?, count n: Int, equalExtents: Bool, crossExtent: Double,
    sectionEnds: UnsafeBufferPointer<Float>?, scroll: ScrollState, into output: inout FrameOutput,
    options: KernelOptions
  ) throws(CellMotionError) {
    let vertical = effect.timeline.axis == .vertical
    if kinds.count < n {
      kinds.append(contentsOf: repeatElement(0, count: n - kinds.count))
      timelineColumns.append(contentsOf: repeatElement(0, count: 5 * kinds.count - timelineColumns.count))
    }
    let stride = kinds.count
    let axis = scroll.along(effect.timeline.axis)
    let cross = Float(crossExtent), tableWidth = Float(scroll.viewportWidth)
    var fills = false
    var atIdentity = 0
    // Cells at the identity may be left to the fills: not when the output takes velocities
    // or corners, which the fills do not write.
    let plainOutput = !output.includesVelocities && !output.includesCorners
    let skipsIdentity = identityProgress != nil && plainOutput
    batch.withProgressColumns { progress, width, height, tableWidths, detailHeight in
      kinds.withUnsafeMutableBufferPointer { kinds in
        timelineColumns.withUnsafeMutableBufferPointer { columns in
          let slopes = columns.baseAddress!, intercepts = slopes + stride, spans = slopes + 2 * stride
          let extents = slopes + 3 * stride, modes = slopes + 4 * stride
          // A run of at least `longRun` equal extents (a list of equal rows) is resolved once,
          // its slope and intercept filled; stretches of shorter runs (rows of different
          // heights) are resolved in lanes, with each cell's shape. One lane pass per run of
          // one shape.
          let resolver = TimelineResolver(effect.timeline, scroll: axis)
          // The extents, copied into the geometry as they were checked (read only for
          // cells: nil may be the base of no cells, as `leading`).
          let extentColumn = UnsafePointer((vertical ? height : width).baseAddress)
          func pass(at i: Int) -> TimelinePass {
            TimelinePass(
              effect.timeline.resolved(extent: Double(extentColumn![i]), scroll: axis), domain: effect.domain,
              folds: effect.foldsValue, offset: axis.offset)
          }
          func run(_ pass: TimelinePass, _ i: Int, _ j: Int, uniform: Bool = false) {
            let io = TimelineColumns(
              leading: leading! + i, sectionEnds: sectionEnds.map { $0.baseAddress! + i },
              slopes: slopes + i, intercepts: intercepts + i, spans: spans + i, extents: extents + i,
              uniform: uniform, count: j - i, progress: progress.baseAddress! + i, kinds: kinds.baseAddress! + i,
              identity: identityProgress ?? .nan)
            let r = Self.timelinePass(pass, io)
            fills = r.fills || fills
            atIdentity += r.atIdentity
          }
          // Resolves cells `range` and runs their timeline pass.
          func resolveAndPass(_ range: Range<Int>) {
            guard !range.isEmpty, let e = extentColumn else { return }
            var i = range.lowerBound
            let n = range.upperBound
            while i < n {
              let j = equalExtents ? n : Self.runEnd(e, from: i + 1, to: n, value: e[i])
              if j - i >= Self.longRun {
                // One timeline for the run: its constants go to the lanes, not to columns.
                run(pass(at: i), i, j, uniform: true)
                i = j
                continue
              }
              let k = Self.nextLongRun(e, from: j, to: n)
              resolver.resolve(
                e + i, count: k - i, slopes: slopes + i, intercepts: intercepts + i, spans: spans + i,
                extents: extents + i, modes: modes + i)
              var a = i
              while a < k {
                let b = Self.runEnd(modes, from: a + 1, to: k, value: modes[a])
                run(pass(at: a), a, b)
                a = b
              }
              i = k
            }
          }
          // Cells a phase provably leaves at the identity (the middle of a list under an edge
          // fade) are not resolved at all: runs of them get kind 1 here (`quietPhaseRuns`)
          // and only the cells between the runs are resolved and passed.
          // (`quietRuns` was emptied when the call began.)
          let quiet = skipsIdentity ? resolver.quietPhase : nil
          if let quiet, phaseZeroIsIdentity, let leading, let e = extentColumn {
            var start = 0
            let skipped = Self.quietPhaseRuns(quiet, leading: leading, extent: e, count: n, equalExtents: equalExtents) { lo, hi in
              if start < lo { resolveAndPass(start..<lo) }
              Self.fill(kinds.baseAddress! + lo, 1, count: hi - lo)
              quietRuns.append(lo..<hi)
              start = hi
            }
            if start < n { resolveAndPass(start..<n) }
            atIdentity += skipped
          } else {
            resolveAndPass(0..<n)
          }
          // The recipe's geometry: the extent along the axis (copied as it was checked), the
          // cross size across it.
          let across = vertical ? width.baseAddress! : height.baseAddress!
          // The cross size and the table width are the same for every cell: written again
          // only where they changed or cells were added. The detail height is read only by
          // folds, which a scroll effect has none of (it keeps the valid size
          // `resizeForProgress` gives it).
          let kept = filled.cross == cross && filled.tableWidth == tableWidth ? Swift.min(filled.count, n) : 0
          Self.fill(across + kept, cross, count: n - kept)
          Self.fill(tableWidths.baseAddress! + kept, tableWidth, count: n - kept)
          filled = (n, cross, tableWidth)
          // Long runs of cells at the effect's identity (the middle of a list under an edge
          // fade, the rows a reveal has revealed) become cells with no effect: the kernel
          // skips them and the fills give them the identity. The scan runs only when the
          // pass counted enough such cells, and not when the output takes velocities or
          // corners, which the fills do not write.
          skippedCells = 0
          if let identity = identityProgress, atIdentity >= Self.shortestSkip, skipsIdentity {
            // The quiet runs are skipped as they are; the cells between them scanned.
            evaluated.removeAll(keepingCapacity: true)
            var start = 0
            for q in quietRuns {
              if start < q.lowerBound {
                skippedCells += Self.skipIdentityRuns(
                  progress.baseAddress!, kinds.baseAddress!, in: start..<q.lowerBound, at: identity,
                  appendingTo: &evaluated)
              }
              skippedCells += q.count
              start = q.upperBound
            }
            if start < n {
              skippedCells += Self.skipIdentityRuns(
                progress.baseAddress!, kinds.baseAddress!, in: start..<n, at: identity, appendingTo: &evaluated)
            }
            if skippedCells > 0 { fills = true }
          }
          // With equal extents every cell's kernel inputs are its progress and the same
          // geometry: runs of equal progress (the cells a fill holds at the range's end)
          // are evaluated once and copied. Not when the output takes velocities or corners,
          // which the copies do not write.
          copiedRuns.removeAll(keepingCapacity: true)
          if equalExtents && plainOutput && n >= Self.shortestSkip + 8
            && Self.hasEqualGroup(progress.baseAddress!, count: n)
          {
            if skippedCells == 0 {
              evaluated.removeAll(keepingCapacity: true)
              evaluated.append(0..<n)
            }
            swap(&evaluated, &spareRanges)
            evaluated.removeAll(keepingCapacity: true)
            Self.splitEqualRuns(progress.baseAddress!, spareRanges, into: &evaluated, copies: &copiedRuns)
          }
        }
      }
    }
    if skippedCells > 0 || !copiedRuns.isEmpty {
      try evaluated.withUnsafeBufferPointer { ranges throws(CellMotionError) in
        try Kernel.evaluate(batch, at: 0, into: &output, options: options, only: ranges)
      }
    } else {
      try Kernel.evaluate(batch, at: 0, into: &output, options: options)
    }
    if !copiedRuns.isEmpty { Self.copyOutputs(copiedRuns, into: &output) }
    if fills { Self.applyFills(kinds, count: n, noEffect: fillsNoEffectCells, quiet: quietRuns, into: &output) }
  }

  /// Whether some group of eight cells at a multiple of `equalSample` has one progress:
  /// every run `splitEqualRuns` takes (from a multiple of eight, at least `shortestSkip`
  /// plus eight long) holds one, so a frame without is not scanned.
  static func hasEqualGroup(_ progress: UnsafePointer<Float>, count n: Int) -> Bool {
    var g = 0
    while g &+ 8 <= n {
      if all(SIMD8<Float>.load(progress + g) .== SIMD8<Float>(repeating: progress[g])) { return true }
      g &+= equalSample
    }
    return false
  }

  /// The stride of `hasEqualGroup`'s look, cells: a run of `shortestSkip` + 8 cells from a
  /// multiple of eight holds a whole group at a multiple of it.
  static let equalSample = shortestSkip

  /// Within `ranges` (increasing, disjoint, each from a multiple of eight), the runs of
  /// cells whose progress is that of a run's first cell, from and to multiples of eight
  /// (or the last range's end) and at least `shortestSkip` + 8 long: the first group of
  /// each stays in the ranges written to `evaluated` (the kernel evaluates its first
  /// cell), the rest goes to `copies` (`copyOutputs` copies that cell there).
  static func splitEqualRuns(
    _ progress: UnsafePointer<Float>, _ ranges: [Range<Int>], into evaluated: inout [Range<Int>],
    copies: inout [Range<Int>]
  ) {
    for r in ranges {
      var start = r.lowerBound
      var g = r.lowerBound
      while g &+ 8 <= r.upperBound {
        // The run of cell g's progress (`runEnd`), cut back to a multiple of eight unless
        // it reaches the range's end.
        let e = Self.runEnd(progress, from: g &+ 1, to: r.upperBound, value: progress[g])
        let h = e == r.upperBound ? e : e & ~7
        if h - g >= shortestSkip &+ 8 {
          evaluated.append(start..<(g &+ 8))
          copies.append((g &+ 8)..<h)
          start = h
          g = h
        } else {
          g = Swift.max(g &+ 8, e & ~7)
        }
      }
      if start < r.upperBound { evaluated.append(start..<r.upperBound) }
    }
  }

  /// Each run of `runs` gets the matrix, opacity and shadow opacity of the cell eight
  /// before its start.
  static func copyOutputs(_ runs: [Range<Int>], into output: inout FrameOutput) {
    output.withKernelOutputs { out in
      let floats = out.affine ? 6 : 16
      for r in runs {
        let source = r.lowerBound &- 8
        cm_replicate_records(out.matrices + floats &* r.lowerBound, out.matrices + floats &* source, floats, r.count)
        Self.fill(out.opacity + r.lowerBound, out.opacity[source], count: r.count)
        Self.fill(out.shadow + r.lowerBound, out.shadow[source], count: r.count)
      }
    }
  }

  /// Calls `body` with the ranges of `0 ..< n` outside `runs` (increasing and disjoint,
  /// within `0 ..< n`), in order; empty gaps are not passed.
  @inline(__always)
  package static func forEachGap(in runs: [Range<Int>], count n: Int, _ body: (Range<Int>) -> Void) {
    var start = 0
    for r in runs {
      if start < r.lowerBound { body(start..<r.lowerBound) }
      start = r.upperBound
    }
    if start < n { body(start..<n) }
  }

  /// The recipe progress (0 or 1) at which `effect`'s recipe is exactly the identity
  /// transform with opacity 1 for any cell, or nil. The reference is evaluated at three
  /// geometries whose (height, table width) are not on one line: a recipe's channel values
  /// are affine in those, so identity values at all three are identity values at every
  /// geometry, and with every channel at its identity the anchor does not matter. (A recipe
  /// with perspective is not the identity even there: nil.)
  static func identityProgress(of effect: ScrollEffect) -> Float? {
    let geometries = [
      CellGeometry(width: 375, height: 44, tableWidth: 375), CellGeometry(width: 200, height: 120, tableWidth: 375),
      CellGeometry(width: 375, height: 44, tableWidth: 1000),
    ]
    for p in [0.0, 1.0] {
      let identity = geometries.allSatisfy { g in
        guard let s = try? ReferenceEvaluator.evaluate(effect.recipe, geometry: g, progress: p) else { return false }
        return s.transform == .identity && s.opacity == 1
      }
      if identity { return Float(p) }
    }
    return nil
  }

  /// Finds the runs of cells `quiet` marks (from and to multiples of eight, at least
  /// `shortestSkip` long, as `skipIdentityRuns` trims them), eight cells per test, a run
  /// extended by chunks of `QuietPhase.chunkCells` and blocks of `QuietPhase.blockCells`
  /// where their ranges pass, and hands each to `body` in order (lower and upper index).
  /// `equalExtents`: every extent is `extent[0]`. Returns the cells they hold.
  static func quietPhaseRuns(
    _ quiet: QuietPhase, leading: UnsafePointer<Float>, extent: UnsafePointer<Float>, count n: Int,
    equalExtents: Bool, _ body: (Int, Int) -> Void
  ) -> Int {
    // The group test written out in each loop (a local function for it stayed a call
    // per group, the test's constants reloaded each time).
    // First one group in `quietSample` cells (the first of each): a run of at least that
    // many cells and eight more holds one of them, so when none is quiet the scan stops
    // there, at a small share of its cost (a long list around a small viewport: edge fade
    // 45.6 -> 52.4 instructions a cell without this look, 45.8 with it). Shorter runs it
    // may miss are still found after the pass (`skipIdentityRuns`).
    // (A list shorter than two strides is looked at in halves: its middle is where its
    // quiet cells are.)
    let look = Swift.min(quietSample, Swift.max(8, (n / 2) & ~7))
    var sample = 0
    while sample + 8 <= n
      && !QuietPhase.allQuiet(quiet.slack(SIMD8<Float>.load(leading + sample), SIMD8<Float>.load(extent + sample)))
    {
      sample += look
    }
    guard sample + 8 <= n else { return 0 }
    var held = 0
    var g = 0
    while g &+ 8 <= n {
      guard QuietPhase.allQuiet(quiet.slack(SIMD8<Float>.load(leading + g), SIMD8<Float>.load(extent + g))) else {
        g &+= 8
        continue
      }
      // The run goes on by whole chunks while their ranges pass (`QuietPhase.rangeQuiet`:
      // the middle of a long list, about one instruction a cell), then by blocks, then by
      // groups. A chunk is not tried again in the run once one fails (the run's end is near).
      var h = g &+ 8
      var chunks = true
      while true {
        if chunks && h &+ QuietPhase.chunkCells <= n {
          if quiet.rangeQuiet(leading + h, extent + h, count: QuietPhase.chunkCells, equalExtents: equalExtents) {
            h &+= QuietPhase.chunkCells
            continue
          }
          chunks = false
        }
        if h &+ QuietPhase.blockCells <= n
          && quiet.rangeQuiet(leading + h, extent + h, count: QuietPhase.blockCells, equalExtents: equalExtents)
        {
          h &+= QuietPhase.blockCells
          continue
        }
        guard
          h &+ 8 <= n
            && QuietPhase.allQuiet(quiet.slack(SIMD8<Float>.load(leading + h), SIMD8<Float>.load(extent + h)))
        else { break }
        h &+= 8
      }
      if h - g >= shortestSkip {
        body(g, h)
        held += h - g
      }
      g = h
    }
    return held
  }

  /// The stride of `quietPhaseRuns`' first look, cells (a multiple of eight).
  static let quietSample = 128

  /// Runs of cells at the identity shorter than this are left to the kernel (a range of
  /// its own costs more than it saves); longer ones are skipped from and to multiples of
  /// eight cells (`skipIdentityRuns`).
  static let shortestSkip = 32

  /// The runs of cells at the identity (no effect, kind 1, or the effect at progress
  /// `identity`) at least `shortestSkip` long, each trimmed inward to multiples of eight,
  /// become cells with no effect (kind 1), and the ranges between them go to `ranges`
  /// (emptied first). Returns the cells the runs hold (0: no run was long enough; `ranges`
  /// is then unused). Cells at the identity outside such runs keep their kind: the kernel
  /// evaluates them, within its tolerance of the identity.
  static func skipIdentityRuns(
    _ progress: UnsafePointer<Float>, _ kinds: UnsafeMutablePointer<Float>, count n: Int, at identity: Float,
    into ranges: inout [Range<Int>]
  ) -> Int {
    ranges.removeAll(keepingCapacity: true)
    return skipIdentityRuns(progress, kinds, in: 0..<n, at: identity, appendingTo: &ranges)
  }

  /// `skipIdentityRuns(_:_:count:at:into:)` over the cells `cells` only (its lower bound a
  /// multiple of eight), the ranges appended to `ranges`.
  static func skipIdentityRuns(
    _ progress: UnsafePointer<Float>, _ kinds: UnsafeMutablePointer<Float>, in cells: Range<Int>, at identity: Float,
    appendingTo ranges: inout [Range<Int>]
  ) -> Int {
    let n = cells.upperBound
    let target = SIMD8<Float>(repeating: identity), zero = SIMD8<Float>(), one = SIMD8<Float>(repeating: 1)
    @inline(__always) func atIdentity(_ g: Int) -> SIMDMask<SIMD8<Int32>> {
      let k = SIMD8<Float>.load(kinds + g)
      return (k .== one) .| ((k .== zero) .& (SIMD8<Float>.load(progress + g) .== target))
    }
    @inline(__always) func atIdentity(cell j: Int) -> Bool { kinds[j] == 1 || (kinds[j] == 0 && progress[j] == identity) }
    var skipped = 0
    var start = cells.lowerBound
    var i = cells.lowerBound
    while i < n {
      // The next cell at the identity, eight at a time, then where its run ends.
      var a = i
      while a &+ 8 <= n && all(.!atIdentity(a)) { a &+= 8 }
      while a < n && !atIdentity(cell: a) { a += 1 }
      guard a < n else { break }
      var b = a + 1
      while b < n && b & 7 != 0 && atIdentity(cell: b) { b += 1 }
      if b & 7 == 0 {
        while b &+ 8 <= n && all(atIdentity(b)) { b &+= 8 }
        while b < n && atIdentity(cell: b) { b += 1 }
      }
      let lo = (a + 7) & ~7, hi = b == n ? n : b & ~7
      if hi - lo >= shortestSkip {
        if start < lo { ranges.append(start..<lo) }
        Self.fill(kinds + lo, 1, count: hi - lo)
        skipped += hi - lo
        start = hi
      }
      i = b
    }
    if start < n { ranges.append(start..<n) }
    return skipped
  }

  /// The first index in `i ..< end` whose value is `value` (or `end`): eight values per
  /// compare.
  package static func firstIndex(_ p: UnsafePointer<Float>, of value: Float, from i: Int, to end: Int) -> Int {
    var j = i
    let v = SIMD8<Float>(repeating: value)
    while j &+ 8 <= end {
      if Swift.any(SIMD8<Float>.load(p + j) .== v) { break }
      j &+= 8
    }
    while j < end && p[j] != value { j &+= 1 }
    return j
  }

  /// Checks a column against `range` (NaN and infinities fail it), naming the index: every
  /// value tested in lanes first (`cm_any_outside`), the index searched only when something
  /// is out.
  static func checkColumn(_ c: UnsafeBufferPointer<Float>, _ range: ClosedRange<Double>, _ field: String)
    throws(CellMotionError)
  {
    guard c.isEmpty || cm_any_outside(c.baseAddress, Float(range.lowerBound), Float(range.upperBound), c.count) != 0
    else { return }
    for (k, v) in c.enumerated() { try Check.within(Double(v), range, "\(field)[\(k)]") }
  }

  /// Runs of equal extents at least this long are resolved once (scalar) and filled.
  static let longRun = 8

  /// The timeline pass over cells whose resolved timelines share `pass`'s shape and
  /// constants (their slopes, intercepts, spans and extents in `io`'s columns), in
  /// `WideLanes` whatever the frame's lane width (lane-wise arithmetic: the same progress).
  static func timelinePass(_ pass: TimelinePass, _ io: TimelineColumns) -> (fills: Bool, atIdentity: Int) {
    pass.run(WideLanes.self, io)
  }

  /// The first index in `i ..< end` whose value is not `value` (or `end`): eight values per
  /// compare (a list of equal rows is one run).
  package static func runEnd(_ p: UnsafePointer<Float>, from i: Int, to end: Int, value: Float) -> Int {
    var j = i
    let v = SIMD8<Float>(repeating: value)
    while j &+ 8 <= end {
      if any(SIMD8<Float>.load(p + j) .!= v) { break }
      j &+= 8
    }
    while j < end && p[j] == value { j &+= 1 }
    return j
  }

  /// The first index in `i ..< end` where a run of at least `longRun` equal values starts
  /// (`end` when none does): eight values per compare where none equals the one before it
  /// (rows of different heights), else one compare per value.
  static func nextLongRun(_ p: UnsafePointer<Float>, from i: Int, to end: Int) -> Int {
    guard i < end else { return end }
    // `start`: where the run of equal values that ends at k - 1 starts.
    var start = i
    var k = i + 1
    while k < end {
      if k &+ 8 <= end && !any(SIMD8<Float>.load(p + k) .== SIMD8<Float>.load(p + k - 1)) {
        // Each of the eight differs from the one before: the run ending at k - 1 ends
        // there, and the run ending at k + 7 is that value alone.
        if k - start >= longRun { return start }
        start = k + 7
        k &+= 8
        continue
      }
      if p[k] != p[start] {
        if k - start >= longRun { return start }
        start = k
      }
      k &+= 1
    }
    return end - start >= longRun ? start : end
  }

  /// `count` copies of `value` from `p`, eight per store, four stores per step (a quiet
  /// run's kinds: one store per step kept about nine instructions per eight cells).
  static func fill(_ p: UnsafeMutablePointer<Float>, _ value: Float, count: Int) {
    let v = SIMD8<Float>(repeating: value)
    var i = 0
    while i &+ 32 <= count {
      v.store(to: p + i)
      v.store(to: p + (i &+ 8))
      v.store(to: p + (i &+ 16))
      v.store(to: p + (i &+ 24))
      i &+= 32
    }
    while i &+ 8 <= count {
      v.store(to: p + i)
      i &+= 8
    }
    while i < count {
      p[i] = value
      i &+= 1
    }
  }

  /// Cells the timeline leaves alone get the identity and opacity 1 (unless `noEffect` is
  /// false: then they are left as they are); hidden cells opacity 0: the opacities eight at
  /// a time, the identity matrices only for groups with such cells. The cells of `quiet`
  /// (runs of kind 1, `quietRuns`) are written whole or, without `noEffect`, not visited.
  static func applyFills(
    _ kinds: [Float], count n: Int, noEffect: Bool = true, quiet: [Range<Int>] = [], into output: inout FrameOutput
  ) {
    output.withKernelOutputs(identityStored: false) { out in
      kinds.withUnsafeBufferPointer { kinds in
        let k = kinds.baseAddress!
        // The kinds a group's lanes are rewritten for: above 0 (no effect and hidden), or
        // only hidden.
        let written: Float = noEffect ? 0 : 1
        if noEffect {
          for r in quiet {
            Self.fill(out.opacity + r.lowerBound, 1, count: r.count)
            Kernel.storeIdentity(count: r.count, at: r.lowerBound, out)
          }
        }
        // The cells between the runs (each gap starts at a multiple of eight).
        Self.forEachGap(in: quiet, count: n) { gap in
          var g = gap.lowerBound
          while g &+ 8 <= gap.upperBound {
            let kind = SIMD8<Float>.load(k + g)
            // (A lane compare: SIMD's == compares lane by lane in a loop.)
            if all(kind .== 2) {
              // A whole group hidden (the pages or wheel rows past the ones in view): opacity
              // 0, without reading what the kernel wrote (wheel picker, depth page: 1.6 fewer
              // instructions a cell).
              SIMD8<Float>(repeating: 0).store(to: out.opacity + g)
            } else if any(kind .> SIMD8<Float>(repeating: written)) {
              let none = kind .== 1
              let o = SIMD8<Float>.load(out.opacity + g).replacing(with: 0, where: kind .== 2)
              (noEffect ? o.replacing(with: 1, where: none) : o).store(to: out.opacity + g)
              if noEffect && all(none) {
                // A whole group with no effect (the middle of a long list): one store run.
                Kernel.storeIdentity(count: 8, at: g, out)
              } else if noEffect && !all(.!none) {  // any(none), which compiled to a lane-by-lane reduction here
                for i in g..<(g + 8) where k[i] == 1 { Kernel.storeIdentity(count: 1, at: i, out) }
              }
            }
            g &+= 8
          }
          for i in g..<gap.upperBound where k[i] > written {
            out.opacity[i] = k[i] == 2 ? 0 : 1
            if k[i] == 1 { Kernel.storeIdentity(count: 1, at: i, out) }
          }
        }
      }
    }
    // Matrices were written here, not by the kernel's identity record.
    output.identityCells = 0
  }
}

/// A resolved timeline as the lanes read it: u = p x slope + intercept for a cell whose
/// leading edge is p points from the viewport's (the content offset folded into the
/// intercept, in Double), the shape's value and the fills, then the recipe progress
/// (value - domain's lower) / (its width), clamped to [0, 1].
struct TimelinePass {
  /// The resolved shape (raw values: the mode column of `TimelineResolver`).
  enum Mode: Int { case ramp, closed, sectionEnd, step, phase, phaseStep, inactive }
  var mode: Mode
  var slope: Float, intercept: Float
  /// The closed range (`closed`; `sectionEnd`: lower 0, upper per cell), the phase's span,
  /// or the step's hidden distance.
  var lower: Float = 0, upper: Float = 0, span: Float = 0, extent: Float = 0
  var before: ScrollFill.Outside, after: ScrollFill.Outside
  var domainLower: Float, domainScale: Float
  /// The recipe reads |value| (`ScrollEffect.foldsValue`).
  var folds: Bool

  init(_ r: ResolvedScrollTimeline, domain: ClosedRange<Double>, folds: Bool, offset: Double) {
    self.folds = folds
    // u = slope (p + o) + intercept = slope p + (slope o + intercept).
    slope = Float(r.slope)
    intercept = Float(r.slope * offset + r.intercept)
    (before, after) = (r.fill.before, r.fill.after)
    (domainLower, domainScale) = Self.domainScaling(domain)
    switch r.shape {
    case .ramp: mode = .ramp
    case .step: mode = .step
    case .closed(let lo, let hi): (mode, lower, upper) = (.closed, Float(lo), Float(hi))
    case .toSectionEnd(let e):
      (mode, extent) = (.sectionEnd, Float(e))
      // Per cell: upper = sectionEnd - s - extent, with both relative to the viewport.
    case .phase(let s): (mode, span) = (.phase, Float(s))
    case .phaseStep(let h): (mode, span) = (.phaseStep, Float(h))
    case .inactive: mode = .inactive
    }
  }

  /// A domain as the lanes read it: recipe progress = (value - lower) x scale, clamped.
  static func domainScaling(_ domain: ClosedRange<Double>) -> (lower: Float, scale: Float) {
    (Float(domain.lowerBound), Float(1 / (domain.upperBound - domain.lowerBound)))
  }

  /// A side's fill as numbers the lanes select with: whether the value becomes the range's
  /// end there (clamp, hide), and the output kind there (0 the effect, 1 none, 2 hidden).
  static func side(_ b: ScrollFill.Outside) -> (takesEnd: Float, kind: Float) {
    switch b {
    case .clamp: return (1, 0)
    case .extend: return (0, 0)
    case .none: return (0, 1)
    case .hide: return (1, 2)
    }
  }

  /// The pass over `io.count` cells: one loop per shape (`TimelineShape`: the shape and the
  /// fills are constants, so each loop is straight-line selects; each cell's slope,
  /// intercept, span and extent come from `io`'s columns). Returns whether any cell got a
  /// kind other than 0 (the fills' pass is skipped otherwise), and how many of the whole
  /// groups' cells have the effect at its identity (`io.identity`; 0 when it is NaN).
  func run<L: FloatLanes>(_: L.Type, _ io: TimelineColumns) -> (fills: Bool, atIdentity: Int) {
    switch mode {
    case .ramp: return loop(L.self, RampShape.self, io)
    case .closed: return loop(L.self, ClosedShape.self, io)
    case .sectionEnd: return loop(L.self, SectionEndShape.self, io)
    case .step: return loop(L.self, StepShape.self, io)
    case .phase: return loop(L.self, PhaseShape.self, io)
    case .phaseStep: return loop(L.self, PhaseStepShape.self, io)
    case .inactive: return loop(L.self, InactiveShape.self, io)
    }
  }

  /// One shape's loop: whole groups (whole-vector loads and stores), then the partial group
  /// through the same loop on a padded copy of its inputs (`tail`), so the group's code is
  /// compiled once per shape: a second, partial copy of it was about half of each loop's
  /// optimiser time.
  @inline(never)
  func loop<L: FloatLanes, S: TimelineShape>(_: L.Type, _: S.Type, _ io: TimelineColumns) -> (
    fills: Bool, atIdentity: Int
  ) {
    let c = TimelineLanes<L>(self)
    var most = L(repeating: 0), hits = L(repeating: 0)
    let identity = L(repeating: io.identity)
    let counts = !io.identity.isNaN
    let whole = io.count / L.width * L.width
    var i = 0
    while i < whole {
      let p = L.load(io.leading + i)
      let section: L? = io.sectionEnds.map { L.load($0 + i) }
      // A uniform run's timeline is the pass's own (a branch the whole loop takes the same
      // way); otherwise each cell's from the columns.
      let cell = TimelineCell(
        span: S.readsSpan ? (io.uniform ? c.span : L.load(io.spans + i)) : c.zero,
        extent: S.readsExtent ? (io.uniform ? c.extent : L.load(io.extents + i)) : c.zero)
      let slope = io.uniform ? c.slope : L.load(io.slopes + i)
      let intercept = io.uniform ? c.intercept : L.load(io.intercepts + i)
      var (value, kind) = S.group(c, L.muladd(p, slope, intercept), p: p, cell: cell, sectionEnd: section)
      if folds { value = L.maximum(value, c.zero - value) }
      let f = L.clamp((value - domainLower) * domainScale, 0, 1)
      f.store(to: io.progress + i)
      kind.store(to: io.kinds + i)
      if counts {
        // f + kind is the identity (0 or 1) for the effect at its identity (kind 0, f the
        // identity) and, with the identity 1, for cells with no effect at progress 0 (kind
        // 1; the identity too): never for hidden cells (kind 2).
        let x = f + kind
        hits = hits + c.zero.replacing(with: c.one, where: L.and(L.ge(x, identity), L.ge(identity, x)))
      }
      most = L.maximum(most, kind)
      i &+= L.width
    }
    var any: Float = 0, atIdentity: Float = 0
    for k in 0..<L.width {
      any = Swift.max(any, most[lane: k])
      atIdentity += hits[lane: k]
    }
    if whole < io.count && tail(L.self, S.self, io, from: whole) { any = 1 }
    return (any != 0, Int(atIdentity))
  }

  /// The cells from `i` (fewer than a group) through `loop` as one whole group: the inputs
  /// the shape reads copied, the lanes past them repeating the first (as `Kernel.loadGroup` pads),
  /// their outputs copied back. Their cells are not counted at the identity (only whole
  /// groups are: `skipIdentityRuns` trims runs to whole groups). Returns whether any got
  /// a kind other than 0.
  func tail<L: FloatLanes, S: TimelineShape>(_: L.Type, _: S.Type, _ io: TimelineColumns, from i: Int) -> Bool {
    let rest = io.count - i, w = L.width
    // Eight columns of a group each, on the stack (under the 1 KiB that
    // `withUnsafeTemporaryAllocation` keeps there).
    return withUnsafeTemporaryAllocation(of: Float.self, capacity: 8 * w) { buffer in
      let t = buffer.baseAddress!
      @inline(__always) func padded(_ k: Int, _ column: UnsafePointer<Float>?) -> UnsafePointer<Float>? {
        guard let column else { return nil }
        let d = t + k * w
        for j in 0..<w { d[j] = column[i + (j < rest ? j : 0)] }
        return UnsafePointer(d)
      }
      let group = TimelineColumns(
        leading: padded(0, io.leading)!, sectionEnds: padded(1, io.sectionEnds),
        slopes: io.uniform ? io.slopes : padded(2, io.slopes)!, intercepts: io.uniform ? io.intercepts : padded(3, io.intercepts)!,
        spans: io.uniform || !S.readsSpan ? io.spans : padded(4, io.spans)!,
        extents: io.uniform || !S.readsExtent ? io.extents : padded(5, io.extents)!,
        uniform: io.uniform, count: w, progress: t + 6 * w, kinds: t + 7 * w, identity: .nan)
      let fills = loop(L.self, S.self, group).fills
      for j in 0..<rest {
        io.progress[i + j] = t[6 * w + j]
        io.kinds[i + j] = t[7 * w + j]
      }
      return fills
    }
  }
}

/// The columns a timeline pass reads and writes, from its first cell.
struct TimelineColumns {
  let leading: UnsafePointer<Float>
  let sectionEnds: UnsafePointer<Float>?
  /// Each cell's resolved timeline (`TimelinePass`'s per-extent values).
  let slopes: UnsafePointer<Float>
  let intercepts: UnsafePointer<Float>
  let spans: UnsafePointer<Float>
  let extents: UnsafePointer<Float>
  /// Every cell has the pass's own slope, intercept, span and extent (the columns are not
  /// read).
  let uniform: Bool
  let count: Int
  let progress: UnsafeMutablePointer<Float>
  let kinds: UnsafeMutablePointer<Float>
  /// The effect's identity progress (`ScrollEffectBatch.identityProgress`), NaN for none:
  /// the pass counts the cells with the effect there (`skipIdentityRuns` runs only when
  /// they are enough to make a run worth skipping).
  let identity: Float
}

/// A group's per-cell values besides the slope and intercept: the phase's span and the
/// section-end extent (zero when the shape does not read them).
struct TimelineCell<L: FloatLanes> {
  let span, extent: L
}

/// A pass's constants as lanes.
struct TimelineLanes<L: FloatLanes> {
  let zero = L(repeating: 0), one = L(repeating: 1)
  let lower, upper: L
  /// The pass's own timeline, for a uniform run.
  let slope, intercept, span, extent: L
  /// The fills' choices: whether a side's value becomes the end (1) and its kind.
  let endBefore, endAfter, kindBefore, kindAfter: L
  init(_ t: TimelinePass) {
    (lower, upper) = (L(repeating: t.lower), L(repeating: t.upper))
    (slope, intercept, span, extent) = (L(repeating: t.slope), L(repeating: t.intercept), L(repeating: t.span), L(repeating: t.extent))
    let b = TimelinePass.side(t.before), a = TimelinePass.side(t.after)
    (endBefore, kindBefore, endAfter, kindAfter) = (L(repeating: b.takesEnd), L(repeating: b.kind), L(repeating: a.takesEnd), L(repeating: a.kind))
  }

  /// A range [lo, hi]: before where u < lo, after where u >= hi (`halfOpen`: a CSS ramp) or
  /// max(u, lo) > hi (closed, as `ScrollTimeline.closed`); the value and kind there.
  @inline(__always)
  func range(_ u: L, lo: L, hi: L, halfOpen: Bool) -> (L, L) {
    let isAfter = halfOpen ? L.ge(u, hi) : L.lt(hi, L.maximum(u, lo))
    let isBefore = halfOpen ? L.lt(u, lo) : L.and(L.lt(u, lo), L.ge(hi, L.maximum(u, lo)))
    let value = u.replacing(with: lo, where: L.and(isBefore, L.lt(zero, endBefore)))
      .replacing(with: hi, where: L.and(isAfter, L.lt(zero, endAfter)))
    return (value, zero.replacing(with: kindBefore, where: isBefore).replacing(with: kindAfter, where: isAfter))
  }
}

/// One shape of a resolved timeline: a group's value and output kind from u = slope p +
/// intercept (p the cells' leading edges, `sectionEnd` their sections' ends, both relative
/// to the viewport).
protocol TimelineShape {
  /// Whether the shape reads the cells' spans, or their extents (the loop loads only those).
  static var readsSpan: Bool { get }
  static var readsExtent: Bool { get }
  static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L)
}

extension TimelineShape {
  static var readsSpan: Bool { false }
  static var readsExtent: Bool { false }
}
/// A CSS progress over [0, 1).
enum RampShape: TimelineShape {
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    c.range(u, lo: c.zero, hi: c.one, halfOpen: true)
  }
}
/// A closed range.
enum ClosedShape: TimelineShape {
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    c.range(u, lo: c.lower, hi: c.upper, halfOpen: false)
  }
}
/// A distance over [0, sectionEnd - s - extent].
enum SectionEndShape: TimelineShape {
  static var readsExtent: Bool { true }
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    let hi = sectionEnd.map { $0 - p - cell.extent } ?? L(repeating: .infinity)
    return c.range(u, lo: c.zero, hi: hi, halfOpen: false)
  }
}
/// A degenerate CSS range: before where u < 0 (raw and end 0), else after (raw and end 1).
enum StepShape: TimelineShape {
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    (c.zero.replacing(with: c.one, where: L.ge(u, c.zero)), c.kindAfter.replacing(with: c.kindBefore, where: L.lt(u, c.zero)))
  }
}
/// SwiftUI's linear phase.
enum PhaseShape: TimelineShape {
  static var readsSpan: Bool { true }
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    (L.clamp(u, 0, 1) - L.clamp(cell.span - u, 0, 1), c.zero)
  }
}
/// SwiftUI's phase where the ramp is shorter than `ScrollTimeline.minimumSpan`.
enum PhaseStepShape: TimelineShape {
  static var readsSpan: Bool { true }
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    (c.zero.replacing(with: c.one, where: L.lt(c.zero - cell.span, u)) - c.zero.replacing(with: c.one, where: L.lt(u, cell.span)), c.zero)
  }
}
/// No effect for any cell.
enum InactiveShape: TimelineShape {
  @inline(__always) static func group<L: FloatLanes>(_ c: TimelineLanes<L>, _ u: L, p: L, cell: TimelineCell<L>, sectionEnd: L?) -> (L, L) {
    (c.zero, c.one)
  }
}
