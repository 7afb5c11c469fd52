// Scroll effects through the kernel: each frame, a timeline pass turns every cell's place in
// the viewport into its recipe's progress (one multiply-add and a clamp per cell, in lanes:
// `ResolvedScrollTimeline`), then the kernel evaluates the effect's recipe from that progress
// column (`ProgressSource.progress`), then the cells the timeline leaves alone or hides get
// the identity or opacity 0. The reference is `ScrollEffect.evaluate(cell:scroll:)`.

import CellMotion

/// A scroll effect (`ScrollEffect`) evaluated for many cells per frame.
///
/// Cells are given per frame by their place along the effect's axis: the leading edge
/// relative to the viewport's leading edge (points; a vertical list's row top minus the
/// scroll offset) and the extent (the row's height), plus their size across the axis. The
/// effect's state of every cell goes to a `FrameOutput` as the kernel writes it (matrices in
/// the output's layout, opacity); cells outside the timeline's range get what its fill says
/// (`ScrollTimelineOutput`: identity and opacity 1 for no effect, opacity 0 when hidden).
///
/// Why positions relative to the viewport: the kernel works in Float, which holds a place a
/// million points down a table to 0.06 pt; relative to the viewport the visible cells' places
/// are small numbers, exact to a few millionths of a point.
public struct ScrollEffectBatch: Sendable {
  public let effect: ScrollEffect
  /// The effect's recipe, driven by progress (capacity kept between frames).
  public private(set) var batch: CellBatch
  /// Per cell: 0 the effect applies, 1 no effect, 2 hidden (`ScrollTimelineOutput`).
  var kinds: [Float] = []

  /// - Parameters:
  ///   - effect: the effect.
  ///   - capacity: cells per frame to reserve room for (0...`CellBatch.maxCapacity`).
  /// - Throws: `.outOfRange` for the capacity; the errors of compiling the effect's recipe
  ///   for a progress source (`CompiledRecipe.init`: an active duration above
  ///   `CellBatch.precisionWindow` among them).
  public init(effect: ScrollEffect, capacity: Int = 0) throws(CellMotionError) {
    self.effect = effect
    batch = try CellBatch(recipes: [effect.recipe], capacity: capacity, source: .progress)
    kinds.reserveCapacity(capacity)
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
  ///   outside `InputLimits.length`; the errors of `Kernel.evaluate`.
  /// - Complexity: O(cells); no allocation within the reserved capacity.
  public mutating func evaluate(
    leading: UnsafeBufferPointer<Float>, extent: UnsafeBufferPointer<Float>, crossExtent: Double,
    sectionEnds: UnsafeBufferPointer<Float>? = nil, scroll: ScrollState, into output: inout FrameOutput,
    options: KernelOptions = .init()
  ) throws(CellMotionError) {
    let n = leading.count
    guard extent.count == n else { throw .bufferSize(field: "extent", expected: n, actual: extent.count) }
    if let sectionEnds, sectionEnds.count != n {
      throw .bufferSize(field: "sectionEnds", expected: n, actual: sectionEnds.count)
    }
    guard output.capacity >= n else { throw .bufferSize(field: "FrameOutput capacity", expected: n, actual: output.capacity) }
    try Check.length(crossExtent, "crossExtent")
    try Self.checkColumn(leading, InputLimits.scrollPosition, "leading")
    try Self.checkColumn(extent, InputLimits.length, "extent")
    if let sectionEnds { try Self.checkColumn(sectionEnds, InputLimits.scrollPosition, "sectionEnds") }
    try batch.resizeForProgress(count: n)
    if kinds.count < n { kinds.append(contentsOf: repeatElement(0, count: n - kinds.count)) }
    let vertical = effect.timeline.axis == .vertical
    let axis = scroll.along(effect.timeline.axis)
    let cross = Float(crossExtent), tableWidth = Float(scroll.viewportWidth)
    // The timeline, resolved per run of cells of one extent (a list of equal rows: once).
    batch.withProgressColumns { progress, width, height, tableWidths, detailHeight in
      kinds.withUnsafeMutableBufferPointer { kinds in
        var i = 0
        while i < n {
          let s = extent[i]
          var j = i + 1
          while j < n && extent[j] == s { j += 1 }
          let resolved = effect.timeline.resolved(extent: Double(s), scroll: axis)
          Self.timelinePass(
            resolved, domain: effect.domain, offset: axis.offset, options.lanes, leading: leading.baseAddress! + i,
            sectionEnds: sectionEnds.map { $0.baseAddress! + i }, count: j - i, progress: progress.baseAddress! + i,
            kinds: kinds.baseAddress! + i)
          for k in i..<j {
            (width[k], height[k]) = vertical ? (cross, s) : (s, cross)
            (tableWidths[k], detailHeight[k]) = (tableWidth, height[k])
          }
          i = j
        }
      }
    }
    try Kernel.evaluate(batch, at: 0, into: &output, options: options)
    Self.applyFills(kinds, count: n, into: &output)
  }

  /// Checks a column against `range` (NaN and infinities fail it), naming the index.
  static func checkColumn(_ c: UnsafeBufferPointer<Float>, _ range: ClosedRange<Double>, _ field: String)
    throws(CellMotionError)
  {
    let lo = Float(range.lowerBound), hi = Float(range.upperBound)
    for (k, v) in c.enumerated() where !(v >= lo && v <= hi) {
      try Check.within(Double(v), range, "\(field)[\(k)]")
    }
  }

  /// The timeline pass of a run of cells of one extent: each cell's recipe progress and
  /// output kind, at the frame's lane width.
  static func timelinePass(
    _ r: ResolvedScrollTimeline, domain: ClosedRange<Double>, offset: Double, _ lanes: LaneWidth,
    leading: UnsafePointer<Float>, sectionEnds: UnsafePointer<Float>?, count: Int, progress: UnsafeMutablePointer<Float>,
    kinds: UnsafeMutablePointer<Float>
  ) {
    let pass = TimelinePass(r, domain: domain, offset: offset)
    switch lanes {
    case .simd8: pass.run(SIMD8<Float>.self, leading, sectionEnds, count, progress, kinds)
    case .simd4: pass.run(SIMD4<Float>.self, leading, sectionEnds, count, progress, kinds)
    }
  }

  /// Cells the timeline leaves alone get the identity and opacity 1; hidden cells opacity 0.
  static func applyFills(_ kinds: [Float], count n: Int, into output: inout FrameOutput) {
    let floats = output.layout.floatsPerCell
    output.withKernelOutputs(identityStored: false) { out in
      kinds.withUnsafeBufferPointer { kinds in
        for i in 0..<n where kinds[i] != 0 {
          if kinds[i] == 2 {
            out.opacity[i] = 0
            continue
          }
          out.opacity[i] = 1
          let m = out.matrices + floats * i
          for k in 0..<floats { m[k] = floats == 6 ? (k == 0 || k == 3 ? 1 : 0) : (k % 5 == 0 ? 1 : 0) }
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
  enum Mode { case ramp, closed, sectionEnd, step, phase, phaseStep, inactive }
  var mode: Mode
  var slope: Float, intercept: Float
  /// The closed range (`closed`; `sectionEnd`: lower 0, upper per cell), the phase's span,
  /// or the step's hidden distance.
  var lower: Float = 0, upper: Float = 0, span: Float = 0, extent: Float = 0
  var before: ScrollFill.Outside, after: ScrollFill.Outside
  var domainLower: Float, domainScale: Float

  init(_ r: ResolvedScrollTimeline, domain: ClosedRange<Double>, offset: Double) {
    // u = slope (p + o) + intercept = slope p + (slope o + intercept).
    slope = Float(r.slope)
    intercept = Float(r.slope * offset + r.intercept)
    (before, after) = (r.fill.before, r.fill.after)
    domainLower = Float(domain.lowerBound)
    domainScale = Float(1 / (domain.upperBound - domain.lowerBound))
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

  /// One side's fill for lanes `outside`: the value (the end, or the raw value for
  /// `extend`) and the kind (1 no effect, 2 hidden).
  @inline(__always)
  static func fill<L: FloatLanes>(
    _ behaviour: ScrollFill.Outside, raw: L, end: L, outside: L.Mask, value: inout L, kind: inout L
  ) {
    switch behaviour {
    case .clamp: value = value.replacing(with: end, where: outside)
    case .extend: value = value.replacing(with: raw, where: outside)
    case .none: kind = kind.replacing(with: L(repeating: 1), where: outside)
    case .hide:
      value = value.replacing(with: end, where: outside)
      kind = kind.replacing(with: L(repeating: 2), where: outside)
    }
  }

  func run<L: FloatLanes>(
    _: L.Type, _ leading: UnsafePointer<Float>, _ sectionEnds: UnsafePointer<Float>?, _ count: Int,
    _ progress: UnsafeMutablePointer<Float>, _ kinds: UnsafeMutablePointer<Float>
  ) {
    let zero = L(repeating: 0), one = L(repeating: 1)
    var i = 0
    while i < count {
      let rest = count &- i
      let p: L = Kernel.loadGroup(leading + i, rest)
      let u = L.muladd(p, slope, intercept)
      var value = u, kind = zero
      switch mode {
      case .ramp:
        Self.fill(before, raw: u, end: zero, outside: L.lt(u, zero), value: &value, kind: &kind)
        Self.fill(after, raw: u, end: one, outside: L.ge(u, one), value: &value, kind: &kind)
      case .closed, .sectionEnd:
        var hi = L(repeating: upper)
        if mode == .sectionEnd {
          hi = sectionEnds.map { (Kernel.loadGroup($0 + i, rest) as L) - p - extent } ?? L(repeating: .infinity)
        }
        let lo = L(repeating: lower)
        let isAfter = L.lt(hi, L.maximum(u, lo))
        let isBefore = L.and(L.lt(u, lo), L.ge(hi, L.maximum(u, lo)))
        Self.fill(after, raw: u, end: hi, outside: isAfter, value: &value, kind: &kind)
        Self.fill(before, raw: u, end: lo, outside: isBefore, value: &value, kind: &kind)
      case .step:
        let b = L.lt(u, zero), a = L.ge(u, zero)
        Self.fill(before, raw: zero, end: zero, outside: b, value: &value, kind: &kind)
        Self.fill(after, raw: one, end: one, outside: a, value: &value, kind: &kind)
      case .phase:
        value = L.clamp(u, 0, 1) - L.clamp(L(repeating: span) - u, 0, 1)
      case .phaseStep:
        value = zero.replacing(with: one, where: L.lt(L(repeating: -span), u))
          - zero.replacing(with: one, where: L.lt(u, L(repeating: span)))
      case .inactive:
        kind = one
      }
      let f = L.clamp((value - domainLower) * domainScale, 0, 1)
      Kernel.storeGroup(f, progress + i, rest)
      Kernel.storeGroup(kind, kinds + i, rest)
      i &+= L.width
    }
  }
}
