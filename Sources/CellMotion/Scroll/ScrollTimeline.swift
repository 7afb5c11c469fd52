// Scroll timelines: a cell's layout position and size, the scroll offset, the viewport's
// extent and insets in; a progress for that cell out. One model for the systems users know:
//
// - CSS view() timelines with an animation-range and a fill (scroll-animations-1, as
//   Chromium implements it): P = (o - A) / (B - A) for the range [A, B) in scroll offsets.
// - CSS scroll() timelines: P = o / (scrollHeight - clientHeight), the range in offsets.
// - SwiftUI's scrollTransition phase: -1 (leading, hidden) ... 0 (identity) ... +1
//   (trailing, hidden), with the visible(a) and centered thresholds.
// - A centred position (Flutter's wheel, Android's pager, cover flow): 0 when the cell is
//   centred in the visibility range, +-1 one unit away (positive below or to the right).
// - A raw distance in points between a line of the visibility range and a point of the
//   cell (sticky headers, stretchy headers).
//
// Goals, in priority order:
// 1. Each kind exactly as its source defines it, with the corner cases pinned down (a cell
//    taller than the viewport, a degenerate range, inactive timelines) and nothing NaN for
//    accepted input.
// 2. Per cell, an affine function of the cell's layout position wherever the source allows:
//    `resolved(extent:scroll:)` gives the multiply-add and the clamp the kernel will run
//    (ScrollTimeline+Affine.swift); `output(cell:scroll:)` here is the plain reference.
// 3. Stateless: the same inputs give the same progress at any frame rate, in any order.

/// What a timeline gives for one cell.
public enum ScrollTimelineOutput: Sendable, Hashable {
  /// The effect applies at this value (a progress, a phase, a centred position or points,
  /// as the timeline's kind says).
  case progress(Double)
  /// The effect does not apply (CSS fill none outside the range, an inactive scroll()
  /// timeline): the cell shows as if there were no scroll effect.
  case noEffect
  /// The effect hides the cell (opacity 0); the value is the range's nearer end.
  case hidden(Double)

  /// The value, nil for `noEffect`.
  public var value: Double? {
    switch self {
    case .progress(let v), .hidden(let v): v
    case .noEffect: nil
    }
  }
}

/// SwiftUI's scrollTransition thresholds (`ScrollTransitionConfiguration.Threshold`): how far
/// into the container a cell must be for its phase to reach identity.
///
/// Apple's implementation is not public. The geometry follows a public iOS 13 backport
/// (`CustomScrollTransitionConfiguration`), to be checked on a device: with L the
/// container's extent and S the cell's, a threshold is a distance th of the cell's centre
/// from the container's centre; hidden is th0 = (L + S)/2;
/// - `visible(a)`: th = th0 - a min(S, L) (a clamped to [0, 1], as Apple documents). For a
///   cell no larger than the container this is the backport's (L - S(2a - 1))/2: a fraction
///   a of the cell is inside. For a taller cell (unspecified by the backport) this
///   implementation's choice is the CSS reading: a is a fraction of the container, so the
///   phase stays continuous and `visible` is reached when the cell covers the container
///   (CSS `entry 100%`).
/// - `centered`: th = 0.
/// - `inset(by: d)`: th - d ("closer to the centre by d"), then clamped to [0, th0].
public struct ScrollTransitionThreshold: Sendable, Hashable, CustomStringConvertible {
  public enum Base: Sendable, Hashable {
    /// The fraction of the cell inside the container (0 hidden, 1 fully visible).
    case visible(Double)
    /// The cell's centre at the container's centre.
    case centered
  }
  public let base: Base
  /// Points toward the container's centre (`inset(by:)`); negative moves the threshold out.
  public let inset: Double

  init(base: Base, inset: Double) {
    self.base = base
    self.inset = inset
  }

  /// `visible(amount)`: `amount` of the cell inside (clamped to [0, 1]).
  public static func visible(_ amount: Double) -> ScrollTransitionThreshold {
    ScrollTransitionThreshold(base: .visible(amount), inset: 0)
  }
  /// Fully visible: `visible(1)`. The interactive configuration's threshold in the backport.
  public static let visible = visible(1)
  /// Just hidden: `visible(0)`.
  public static let hidden = visible(0)
  /// The cell's centre at the container's centre.
  public static let centered = ScrollTransitionThreshold(base: .centered, inset: 0)

  /// The threshold moved toward the container's centre by `distance` points.
  public func inset(by distance: Double) -> ScrollTransitionThreshold {
    ScrollTransitionThreshold(base: base, inset: inset + distance)
  }

  /// th: the distance (points) of the cell's centre from the container's centre at which
  /// the phase reaches identity, for a cell of extent S in a container of extent L >= 0;
  /// in [0, (L + S)/2].
  public func distance(extent S: Double, container L: Double) -> Double {
    let hidden = (L + S) / 2
    var th: Double
    switch base {
    case .visible(let a): th = hidden - min(max(a, 0), 1) * min(S, L)
    case .centered: th = 0
    }
    th -= inset
    return min(max(th, 0), hidden)
  }

  func validate() throws(CellMotionError) {
    if case .visible(let a) = base { try Check.finite(a, "threshold visible amount") }
    try Check.within(inset, InputLimits.scrollLength, "threshold inset")
  }

  public var description: String {
    var s: String
    switch base {
    case .visible(let a): s = "visible(\(a))"
    case .centered: s = "centered"
    }
    if inset != 0 { s += ".inset(by: \(inset))" }
    return s
  }
}

/// The unit of a centred position: how many points of offset from the centre make +-1.
public enum CentredUnit: Sendable, Hashable {
  /// A fixed number of points (> 0): an item pitch (cover flow, carousels), a page width.
  case points(Double)
  /// The cell's own extent (Android's pages: one page width).
  case cellExtent
  /// Half the visibility range's extent (Flutter's wheel: H/2).
  case halfVisibleExtent

  /// The unit in points for a cell of extent S (may be <= 0 for `halfVisibleExtent` when
  /// the insets cover the viewport).
  public func points(extent S: Double, scroll: ScrollAxisState) -> Double {
    switch self {
    case .points(let u): u
    case .cellExtent: S
    case .halfVisibleExtent: scroll.visibleExtent / 2
    }
  }
}

/// The range of a distance timeline's values, points.
public enum DistanceLimit: Sendable, Hashable {
  /// Every distance: fills never apply.
  case unbounded
  /// A closed range of distances, points.
  case range(ClosedRange<Double>)
  /// [0, sectionEnd - (s + S)]: from the cell's natural place to where its section pushes
  /// it off (UITableView's plain-style headers). With no section end, [0, +infinity). As in
  /// UIKit's clamp min(max(d, 0), upper), the upper end wins when it is below 0.
  case toSectionEnd
}

/// A scroll timeline: a rule turning a cell's layout and the scroll state into a value for
/// that cell, and what the effect does outside the rule's range (`fill`).
///
/// Values per kind (o the offset, V the viewport extent, i0 and i1 the insets, s and S the
/// cell's start and extent along `axis`, points):
/// - `view`: CSS view() with an `animation-range` [A, B]: P = (o - A) / (B - A), range
///   [0, 1) (Web Animations' phases: before while P < 0, after from P = 1 on). A degenerate
///   range (B - A below `minimumSpan`, including B <= A) steps at A as Chromium does: 0
///   before A, 1 from A on (both as fills: with fill none it never applies).
/// - `scroll`: CSS scroll(): the range [0, M] with M = contentExtent - V; the offset is
///   clamped to [0, M] (browsers cannot overscroll; Chromium clamps too), range offsets are
///   a percentage of M or points from 0; range names have no meaning on a scroll timeline
///   and stand for the whole range (Chromium's ToFractionalOffset). Inactive (`noEffect`)
///   when M <= 0 or the content extent is unknown.
/// - `transitionPhase`: SwiftUI's phase, linear: with c the cell centre's distance from the
///   visibility range's centre (positive toward the trailing edge), th0 = (L + S)/2 with
///   L = max(V - i0 - i1, 0), th the threshold's distance and w = th0 - th: on the trailing
///   side t = clamp01((th0 - c)/w) and the phase is 1 - t; on the leading side
///   t = clamp01((th0 + c)/w) and the phase is -(1 - t); 0 between the thresholds. Always
///   in [-1, 1] (the fill is never consulted). SwiftUI's timing curve is not applied here:
///   `transitionPhaseValue(linear:curve:)` gives the eased value, and the edge-fade preset
///   puts the curve in its recipe's keyframes.
/// - `centred`: p = (cell centre - visibility centre) / unit, in viewport coordinates
///   ((s + S/2 - o) - (i0 + (V - i0 - i1)/2)); positive below or to the right, as SwiftUI,
///   Flutter and Android count. Range: the given closed range. No effect when the unit is
///   below `minimumSpan` (an empty visibility range has no half).
/// - `distance`: d = (o + i0 + line (V - i0 - i1)) - (s + cellPoint S), points: how far the
///   line of the visibility range (0 its start edge, 1 its end edge) has moved past the
///   point of the cell (0 its leading edge, 1 its trailing edge). Range: `limit`.
///
/// Progress always reads layout positions, never a transform an effect applied.
public struct ScrollTimeline: Sendable, Hashable {
  /// The rule.
  public enum Kind: Sendable, Hashable {
    /// CSS `view()` with an `animation-range` and view-timeline insets.
    case view(range: AnimationRange, insets: ViewTimelineInsets)
    /// CSS `scroll()` with an `animation-range` (percentages of the maximum offset, points
    /// from 0).
    case scroll(range: AnimationRange)
    /// SwiftUI's scrollTransition phase (linear), -1 ... 0 ... +1.
    case transitionPhase(threshold: ScrollTransitionThreshold)
    /// A centred position in units, over a closed range.
    case centred(unit: CentredUnit, range: ClosedRange<Double>)
    /// A distance in points between a line of the visibility range and a point of the cell.
    case distance(cellPoint: Double, line: Double, limit: DistanceLimit)
  }

  public let kind: Kind
  public let axis: ScrollAxis
  public let fill: ScrollFill

  /// Ranges and units shorter than this (points) are degenerate: a CSS range steps, a
  /// SwiftUI ramp steps, a centred unit gives no effect. Keeps every quotient finite (and
  /// far inside Double's range) for accepted input.
  public static let minimumSpan = 1e-9

  /// - Throws: `.notFinite` / `.outOfRange` for numbers outside their ranges (a centred
  ///   unit <= 0 or above `InputLimits.length`, a centred range that is not lo < hi in
  ///   `InputLimits.progress`, distance points outside `InputLimits.anchor`, distance
  ///   limits outside `InputLimits.scrollLength`, a threshold amount that is NaN).
  public init(_ kind: Kind, axis: ScrollAxis = .vertical, fill: ScrollFill) throws(CellMotionError) {
    switch kind {
    case .view, .scroll:
      break  // their ranges and insets validated themselves
    case .transitionPhase(let threshold):
      try threshold.validate()
    case .centred(let unit, let range):
      if case .points(let u) = unit { try Check.within(u, InputLimits.length, "centred unit") }
      try Check.within(range.lowerBound, InputLimits.progress, "centred range lower bound")
      try Check.within(range.upperBound, InputLimits.progress, "centred range upper bound")
      guard range.lowerBound < range.upperBound else {
        throw .outOfRange(field: "centred range", value: range.upperBound, expected: "above its lower bound")
      }
    case .distance(let cellPoint, let line, let limit):
      try Check.within(cellPoint, InputLimits.anchor, "distance cell point")
      try Check.within(line, InputLimits.anchor, "distance line")
      if case .range(let r) = limit {
        try Check.within(r.lowerBound, InputLimits.scrollLength, "distance lower limit")
        try Check.within(r.upperBound, InputLimits.scrollLength, "distance upper limit")
      }
    }
    self.kind = kind
    self.axis = axis
    self.fill = fill
  }

  /// A CSS view() timeline with an animation range and a fill (CSS's initial fill is
  /// `.none`; scroll-driven reveals usually use `.both`).
  public static func view(
    _ range: AnimationRange = .normal, insets: ViewTimelineInsets = .auto, axis: ScrollAxis = .vertical,
    fill: ScrollFill
  ) throws(CellMotionError) -> ScrollTimeline {
    try ScrollTimeline(.view(range: range, insets: insets), axis: axis, fill: fill)
  }

  /// A CSS scroll() timeline with an animation range and a fill.
  public static func scroll(_ range: AnimationRange = .normal, axis: ScrollAxis = .vertical, fill: ScrollFill)
    throws(CellMotionError) -> ScrollTimeline
  {
    try ScrollTimeline(.scroll(range: range), axis: axis, fill: fill)
  }

  /// SwiftUI's scrollTransition phase (linear) with a threshold (`.visible` by default).
  public static func transitionPhase(_ threshold: ScrollTransitionThreshold = .visible, axis: ScrollAxis = .vertical)
    throws(CellMotionError) -> ScrollTimeline
  {
    try ScrollTimeline(.transitionPhase(threshold: threshold), axis: axis, fill: .both)
  }

  /// A centred position in `unit`s over `range` (default -1 ... 1).
  public static func centred(
    unit: CentredUnit, range: ClosedRange<Double> = -1...1, axis: ScrollAxis = .vertical, fill: ScrollFill
  ) throws(CellMotionError) -> ScrollTimeline {
    try ScrollTimeline(.centred(unit: unit, range: range), axis: axis, fill: fill)
  }

  /// A distance in points (see `Kind.distance`).
  public static func distance(
    cellPoint: Double = 0, line: Double = 0, limit: DistanceLimit, axis: ScrollAxis = .vertical, fill: ScrollFill
  ) throws(CellMotionError) -> ScrollTimeline {
    try ScrollTimeline(.distance(cellPoint: cellPoint, line: line, limit: limit), axis: axis, fill: fill)
  }

  /// The natural range of the values: [0, 1] for CSS timelines, [-1, 1] for the SwiftUI
  /// phase, the centred range, the distance limit (infinite ends for `unbounded`;
  /// [0, +infinity] for `toSectionEnd`, whose upper end is per cell).
  public var domain: ClosedRange<Double> {
    switch kind {
    case .view, .scroll: 0...1
    case .transitionPhase: -1...1
    case .centred(_, let range): range
    case .distance(_, _, let limit):
      switch limit {
      case .unbounded: -Double.infinity...Double.infinity
      case .range(let r): r
      case .toSectionEnd: 0...Double.infinity
      }
    }
  }

  // MARK: - The reference

  /// The timeline's output for a cell laid out at `cell` (along the timeline's axis) in a
  /// scroll view at `scroll` (that axis).
  public func output(cell: CellSpan, scroll: ScrollAxisState) -> ScrollTimelineOutput {
    let o = scroll.offset, V = scroll.viewportExtent, S = cell.extent
    switch kind {
    case .view(let range, let insets):
      let i0 = insets.start.resolve(viewportExtent: V, scrollInset: scroll.startInset)
      let i1 = insets.end.resolve(viewportExtent: V, scrollInset: scroll.endInset)
      let a = cell.start - V + i1  // cover 0%: start edge at the end of the visibility range
      let b = cell.start + S - i0  // cover 100%: end edge at its start
      let A = range.start.resolve(coverStart: a, coverEnd: b, extent: S)
      let B = range.end.resolve(coverStart: a, coverEnd: b, extent: S)
      return Self.ramp(offset: o, start: A, end: B, fill: fill)

    case .scroll(let range):
      guard let content = scroll.contentExtent, content - V > 0 else { return .noEffect }
      let maximum = content - V
      let A = range.start.offset.resolve(lo: 0, hi: maximum)
      let B = range.end.offset.resolve(lo: 0, hi: maximum)
      return Self.ramp(offset: min(max(o, 0), maximum), start: A, end: B, fill: fill)

    case .transitionPhase(let threshold):
      let L = max(scroll.visibleExtent, 0)
      let c = (cell.start - o + S / 2) - scroll.visibleCentre
      let hidden = (L + S) / 2
      let th = threshold.distance(extent: S, container: L)
      return .progress(Self.linearPhase(centreDistance: c, hidden: hidden, threshold: th))

    case .centred(let unit, let range):
      let u = unit.points(extent: S, scroll: scroll)
      guard u >= Self.minimumSpan else { return .noEffect }
      let p = ((cell.start - o + S / 2) - scroll.visibleCentre) / u
      return Self.closed(p, lower: range.lowerBound, upper: range.upperBound, fill: fill)

    case .distance(let cellPoint, let line, let limit):
      let linePosition = o + scroll.startInset + line * scroll.visibleExtent
      let d = linePosition - (cell.start + cellPoint * S)
      switch limit {
      case .unbounded: return .progress(d)
      case .range(let r): return Self.closed(d, lower: r.lowerBound, upper: r.upperBound, fill: fill)
      case .toSectionEnd:
        let upper = cell.sectionEnd.map { $0 - cell.end } ?? .infinity
        return Self.closed(d, lower: 0, upper: upper, fill: fill)
      }
    }
  }

  /// `output(cell:scroll:)` on the timeline's axis of a 2-D cell and scroll state.
  public func output(cell: ScrollCell, scroll: ScrollState) -> ScrollTimelineOutput {
    output(cell: cell.along(axis), scroll: scroll.along(axis))
  }

  /// SwiftUI's phase value for a linear phase `p` in [-1, 1] under the interactive
  /// configuration's timing curve: the curve runs forward while the cell appears (t = 0
  /// just hidden, t = 1 at the threshold) and reversed while it leaves, so with
  /// t = 1 - |p| the value is sign(p) (1 - curve(t)). The effect SwiftUI shows is
  /// lerp(effect at the edge, identity effect, curve(t)), i.e. the edge effect weighted by
  /// |value|. Apple documents the rule (`interactive(timingCurve:)`); SwiftUI's default
  /// curve is `.easeInOut`, taken here as (0.42, 0, 0.58, 1).
  public static func transitionPhaseValue(linear p: Double, curve: TimingCurve = .easeInEaseOut) -> Double {
    guard p != 0 else { return 0 }
    let t = 1 - min(abs(p), 1)
    return (p < 0 ? -1 : 1) * (1 - curve.value(at: t))
  }

  // MARK: - Shared rules

  /// The CSS ramp over [A, B) at offset o with a fill; the degenerate step at A.
  static func ramp(offset o: Double, start A: Double, end B: Double, fill: ScrollFill) -> ScrollTimelineOutput {
    let span = B - A
    guard span >= minimumSpan else {
      // Degenerate range (Chromium, fill both: 0 before A, 1 from A on).
      return o < A ? outside(fill.before, raw: 0, end: 0) : outside(fill.after, raw: 1, end: 1)
    }
    let p = (o - A) / span
    if p < 0 { return outside(fill.before, raw: p, end: 0) }
    if p >= 1 { return outside(fill.after, raw: p, end: 1) }
    return .progress(p)
  }

  /// A value over the closed range [lower, upper] with a fill. As UIKit's
  /// min(max(v, lower), upper), the upper end wins when the range is empty.
  static func closed(_ v: Double, lower: Double, upper: Double, fill: ScrollFill) -> ScrollTimelineOutput {
    if max(v, lower) > upper { return outside(fill.after, raw: v, end: upper) }
    if v < lower { return outside(fill.before, raw: v, end: lower) }
    return .progress(v)
  }

  /// One side's fill: the range's end, no effect, the raw value, or hidden at the end.
  static func outside(_ behaviour: ScrollFill.Outside, raw: Double, end: Double) -> ScrollTimelineOutput {
    switch behaviour {
    case .clamp: .progress(end)
    case .none: .noEffect
    case .extend: .progress(raw)
    case .hide: .hidden(end)
    }
  }

  /// SwiftUI's linear phase for a centre distance c (points, positive trailing), the hidden
  /// distance th0 and the threshold th in [0, th0]; a ramp shorter than `minimumSpan` steps
  /// (identity while any part of the cell is inside, +-1 from the hidden point out).
  static func linearPhase(centreDistance c: Double, hidden th0: Double, threshold th: Double) -> Double {
    let w = th0 - th
    guard w >= minimumSpan else { return (c > -th0 ? 1 : 0) - (c < th0 ? 1 : 0) }
    let leading = min(max((th0 + c) / w, 0), 1)
    let trailing = min(max((th0 - c) / w, 0), 1)
    return leading - trailing
  }
}
