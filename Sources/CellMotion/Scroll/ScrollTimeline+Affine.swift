// The per-cell form the kernel will run: a timeline resolved once per frame (and per cell
// extent, for cells of equal size) into u = slope * s + intercept for a cell at s, then a
// clamp and the fill. `output(cell:scroll:)` is the reference it must agree with
// (ScrollTimelineTests checks the two on seeded random cells).

/// A timeline resolved for one frame and one cell extent S: for a cell whose leading edge
/// is at s (points, content coordinates), u = slope * s + intercept, then `shape` and the
/// fill give the output.
///
/// Why affine: every kind's boundaries move with the cell (A = s + kA(S), B = s + kB(S) for
/// CSS ranges; the centre distance is s + constant), so per cell the work is one
/// multiply-add and one clamp (the SwiftUI phase: two clamps; a sticky header: a per-cell
/// upper bound from its section end).
public struct ResolvedScrollTimeline: Sendable, Hashable {
  /// How u becomes the output.
  public enum Shape: Sendable, Hashable {
    /// u is a CSS progress, range [0, 1).
    case ramp
    /// A degenerate CSS range: u = o - A (points); before while u < 0, then after (0 or 1
    /// as fills).
    case step
    /// u over a closed range.
    case closed(lower: Double, upper: Double)
    /// u is a distance over [0, sectionEnd - s - extent] (`DistanceLimit.toSectionEnd`).
    case toSectionEnd(extent: Double)
    /// SwiftUI's linear phase: clamp01(u) - clamp01(span - u).
    case phase(span: Double)
    /// A SwiftUI ramp shorter than `ScrollTimeline.minimumSpan`: u is the centre distance
    /// c (points); the phase is (c > -hidden) - (c < hidden).
    case phaseStep(hidden: Double)
    /// No effect for any cell (an inactive scroll() timeline, an empty centred unit).
    case inactive
  }

  public let slope: Double
  public let intercept: Double
  public let shape: Shape
  public let fill: ScrollFill

  /// The output for a cell (its extent must be the one this was resolved for).
  public func output(cell: CellSpan) -> ScrollTimelineOutput {
    output(cellStart: cell.start, sectionEnd: cell.sectionEnd)
  }

  /// The hot loop's form: the output for a cell at `s` (and, for `toSectionEnd`, its
  /// section's end), trusting both to be validated (`InputLimits.scrollPosition`), as the
  /// kernel's columns are.
  package func output(cellStart s: Double, sectionEnd: Double? = nil) -> ScrollTimelineOutput {
    let u = slope * s + intercept
    switch shape {
    case .ramp:
      if u < 0 { return ScrollTimeline.outside(fill.before, raw: u, end: 0) }
      if u >= 1 { return ScrollTimeline.outside(fill.after, raw: u, end: 1) }
      return .progress(u)
    case .step:
      return u < 0 ? ScrollTimeline.outside(fill.before, raw: 0, end: 0) : ScrollTimeline.outside(fill.after, raw: 1, end: 1)
    case .closed(let lower, let upper):
      return ScrollTimeline.closed(u, lower: lower, upper: upper, fill: fill)
    case .toSectionEnd(let extent):
      let upper = sectionEnd.map { $0 - s - extent } ?? .infinity
      return ScrollTimeline.closed(u, lower: 0, upper: upper, fill: fill)
    case .phase(let span):
      return .progress(min(max(u, 0), 1) - min(max(span - u, 0), 1))
    case .phaseStep(let hidden):
      return .progress((u > -hidden ? 1 : 0) - (u < hidden ? 1 : 0))
    case .inactive:
      return .noEffect
    }
  }
}

extension ScrollTimeline {
  /// The timeline resolved for cells of extent `S` (points) at the scroll state `scroll`:
  /// the frame's constants of `output(cell:scroll:)` folded into a multiply-add.
  public func resolved(extent S: Double, scroll: ScrollAxisState) -> ResolvedScrollTimeline {
    let o = scroll.offset, V = scroll.viewportExtent
    func make(_ slope: Double, _ intercept: Double, _ shape: ResolvedScrollTimeline.Shape) -> ResolvedScrollTimeline {
      ResolvedScrollTimeline(slope: slope, intercept: intercept, shape: shape, fill: fill)
    }
    switch kind {
    case .view(let range, let insets):
      // The boundaries of a cell at s = 0; a cell at s has them moved by s.
      let i0 = insets.start.resolve(viewportExtent: V, scrollInset: scroll.startInset)
      let i1 = insets.end.resolve(viewportExtent: V, scrollInset: scroll.endInset)
      let kA = range.start.resolve(coverStart: -V + i1, coverEnd: S - i0, extent: S)
      let kB = range.end.resolve(coverStart: -V + i1, coverEnd: S - i0, extent: S)
      let span = kB - kA
      // P = (o - s - kA) / span; the step tests o - kA - s >= 0. (Divisions as one
      // reciprocal and products here and below: the kernel resolves many extents per frame
      // in lanes with the same operations, and a division costs it more than a product.)
      guard span >= Self.minimumSpan else { return make(-1, o - kA, .step) }
      let r = 1 / span
      return make(-r, (o - kA) * r, .ramp)

    case .scroll(let range):
      // The same for every cell: slope 0.
      guard let content = scroll.contentExtent, content - V > 0 else { return make(0, 0, .inactive) }
      let maximum = content - V
      let A = range.start.offset.resolve(lo: 0, hi: maximum)
      let B = range.end.offset.resolve(lo: 0, hi: maximum)
      let clamped = min(max(o, 0), maximum)
      guard B - A >= Self.minimumSpan else { return make(0, clamped - A, .step) }
      return make(0, (clamped - A) / (B - A), .ramp)

    case .transitionPhase(let threshold):
      let L = max(scroll.visibleExtent, 0)
      let hidden = (L + S) / 2
      let w = hidden - threshold.distance(extent: S, container: L)
      let q = S / 2 - o - scroll.visibleCentre  // c = s + q
      guard w >= Self.minimumSpan else { return make(1, q, .phaseStep(hidden: hidden)) }
      // leading = clamp01((hidden + c) / w), trailing = clamp01((hidden - c) / w) = clamp01(2 hidden / w - leading's u).
      let r = 1 / w
      return make(r, (hidden + q) * r, .phase(span: 2 * hidden * r))

    case .centred(let unit, let range):
      let u = unit.points(extent: S, scroll: scroll)
      guard u >= Self.minimumSpan else { return make(0, 0, .inactive) }
      let r = 1 / u
      return make(r, (S / 2 - o - scroll.visibleCentre) * r, .closed(lower: range.lowerBound, upper: range.upperBound))

    case .distance(let cellPoint, let line, let limit):
      let intercept = o + scroll.startInset + line * scroll.visibleExtent - cellPoint * S
      switch limit {
      case .unbounded: return make(-1, intercept, .closed(lower: -.infinity, upper: .infinity))
      case .range(let r): return make(-1, intercept, .closed(lower: r.lowerBound, upper: r.upperBound))
      case .toSectionEnd: return make(-1, intercept, .toSectionEnd(extent: S))
      }
    }
  }
}
