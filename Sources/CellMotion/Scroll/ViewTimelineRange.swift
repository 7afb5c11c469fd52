// CSS Scroll-driven Animations (https://drafts.csswg.org/scroll-animations-1/): the named
// timeline ranges of a view() timeline, `animation-range` offsets and their text form,
// view-timeline insets, and the fill modes that say what an animation shows outside its
// range.
//
// Facts used (verified against the spec and Chromium's view_timeline.cc and
// timeline_range.cc, CalculateOffsets and ConvertNamedRange):
// - With viewport extent V, insets i0 (start side) and i1 (end side), a cell at s of extent
//   S: cover starts at a = s - V + i1 (the cell's start edge meets the end of the
//   visibility range: the *end* inset moves the *start*) and ends at b = s + S - i0.
//   c = b - S (start edge at the start of the range), d = a + S (end edge at its end).
// - cover [a, b]; contain [min(c, d), max(c, d)]; entry [a, min(c, d)]; exit [max(c, d), b];
//   entry-crossing [a, d]; exit-crossing [c, b]. The min and max cover a cell taller than
//   the visibility range.
// - `<name> X%` is lo + X/100 (hi - lo); `<name> L px` is lo + L; a bare offset and
//   `normal` are relative to cover (the whole timeline); a name alone is 0% as a range
//   start and 100% as a range end.
// - Inset percentages are of the viewport's extent; `auto` is the scroll container's
//   scroll-padding (here the scroll state's insets).
// Chromium resolves a percentage against a LayoutUnit (1/64 px) range; the spec does not,
// and neither does this file: offsets are exact Doubles.

/// The named ranges of a view progress timeline (CSS `<timeline-range-name>`).
public enum TimelineRangeName: String, Sendable, Hashable, Codable, CaseIterable {
  /// From the cell's start edge entering the visibility range to its end edge leaving it.
  case cover
  /// While the cell is fully inside the visibility range, or fully covers it.
  case contain
  /// From the start of cover to the start of contain.
  case entry
  /// From the end of contain to the end of cover.
  case exit
  /// While the cell crosses the end edge of the visibility range (its extent long).
  case entryCrossing = "entry-crossing"
  /// While the cell crosses the start edge of the visibility range (its extent long).
  case exitCrossing = "exit-crossing"

  /// The range [lo, hi] in scroll offsets (points) for a cell whose cover range is [a, b]
  /// and whose extent is S (points), per the spec's definitions above.
  public func interval(coverStart a: Double, coverEnd b: Double, extent S: Double) -> (lo: Double, hi: Double) {
    let c = b - S  // start edge at the start of the visibility range
    let d = a + S  // end edge at the end of the visibility range
    switch self {
    case .cover: return (a, b)
    case .contain: return (min(c, d), max(c, d))
    case .entry: return (a, min(c, d))
    case .exit: return (max(c, d), b)
    case .entryCrossing: return (a, d)
    case .exitCrossing: return (c, b)
    }
  }
}

/// A CSS `<length-percentage>` along a scroll axis: a percentage of a range, or points
/// (CSS `px`; one CSS pixel is one point here).
public enum RangeLength: Sendable, Hashable, CustomStringConvertible {
  /// Percent (25 is 25%), in `InputLimits.rangePercentage`.
  case percent(Double)
  /// Points, in `InputLimits.scrollLength`.
  case points(Double)

  /// The position `self` names in [lo, hi]: lo + X/100 (hi - lo), or lo + L.
  public func resolve(lo: Double, hi: Double) -> Double {
    switch self {
    case .percent(let x): lo + x / 100 * (hi - lo)
    case .points(let l): lo + l
    }
  }

  /// A length relative to an extent (inset percentages are of the viewport): X/100 extent,
  /// or L.
  public func resolve(of extent: Double) -> Double {
    switch self {
    case .percent(let x): x / 100 * extent
    case .points(let l): l
    }
  }

  func validate(_ field: String) throws(CellMotionError) {
    switch self {
    case .percent(let x): try Check.within(x, InputLimits.rangePercentage, field)
    case .points(let l): try Check.within(l, InputLimits.scrollLength, field)
    }
  }

  /// CSS text: `25%`, `40px`.
  public var description: String {
    switch self {
    case .percent(let x): CSSText.number(x) + "%"
    case .points(let l): CSSText.number(l) + "px"
    }
  }
}

/// Which end of an `animation-range` a boundary is: a range name alone means 0% as a start
/// and 100% as an end.
public enum RangeEdge: String, Sendable, Hashable, CaseIterable {
  case start, end
}

/// One boundary of an `animation-range`: a point of a named range (`entry 25%`,
/// `exit-crossing 40px`). `normal` and a bare offset are `cover` boundaries.
public struct TimelineRangeOffset: Sendable, Hashable, CustomStringConvertible {
  public let name: TimelineRangeName
  public let offset: RangeLength

  /// - Throws: `.notFinite` / `.outOfRange` for an offset outside its range.
  public init(_ name: TimelineRangeName, _ offset: RangeLength) throws(CellMotionError) {
    try offset.validate("animation-range offset")
    self.name = name
    self.offset = offset
  }

  init(unchecked name: TimelineRangeName, _ offset: RangeLength) {
    self.name = name
    self.offset = offset
  }

  /// `normal` at either edge: cover 0% or cover 100%.
  public static func normal(_ edge: RangeEdge) -> TimelineRangeOffset {
    TimelineRangeOffset(unchecked: .cover, .percent(edge == .start ? 0 : 100))
  }

  /// Parses one boundary in CSS syntax (`animation-range-start` or `-end`):
  /// `normal`, `<length-percentage>`, or `<timeline-range-name> <length-percentage>?`.
  ///
  /// Accepted: ASCII case-insensitive names and units, surrounding whitespace, lengths in
  /// `%` or `px` (or a unitless `0`) with CSS numbers (`+`/`-`, fraction, exponent).
  /// Examples: `"entry 25%"`, `"exit-crossing 40px"`, `"cover"`, `"normal"`, `"50%"`.
  /// - Throws: `.invalidSyntax(field: "animation-range-start" or "-end", text:, reason:)`
  ///   naming the text for anything else (unknown names, other units, `calc()`, empty
  ///   text, extra tokens); `.outOfRange` for a number outside its range.
  public init(parsing text: String, edge: RangeEdge) throws(CellMotionError) {
    let field = "animation-range-\(edge.rawValue)"
    var tokens = CSSText.tokens(text)
    let parsed = try Self.parse(&tokens, edge: edge, field: field, text: text)
    if let extra = tokens.first {
      throw .invalidSyntax(field: field, text: text, reason: "unexpected \"\(extra)\" after \"\(parsed)\"")
    }
    self = parsed
  }

  /// Reads one boundary from the front of `tokens`.
  static func parse(_ tokens: inout ArraySlice<Substring>, edge: RangeEdge, field: String, text: String)
    throws(CellMotionError) -> TimelineRangeOffset
  {
    guard let first = tokens.popFirst() else {
      throw .invalidSyntax(field: field, text: text, reason: "empty text; expected normal, a range name or a length")
    }
    let word = first.lowercased()
    if word == "normal" { return .normal(edge) }
    if let name = TimelineRangeName(rawValue: word) {
      if let next = tokens.first, let length = try CSSText.lengthPercentage(next, field: field, text: text) {
        tokens.removeFirst()
        return try TimelineRangeOffset(name, length)
      }
      return TimelineRangeOffset(unchecked: name, .percent(edge == .start ? 0 : 100))
    }
    if let length = try CSSText.lengthPercentage(first, field: field, text: text) {
      return try TimelineRangeOffset(.cover, length)
    }
    throw .invalidSyntax(
      field: field, text: text,
      reason: "unknown \"\(first)\"; expected normal, a <length-percentage> (25%, 40px) or a range name ("
        + TimelineRangeName.allCases.map(\.rawValue).joined(separator: ", ") + ")")
  }

  /// The scroll offset (points) of this boundary for a view timeline whose cover range is
  /// [a, b], for a cell of extent S.
  public func resolve(coverStart a: Double, coverEnd b: Double, extent S: Double) -> Double {
    let (lo, hi) = name.interval(coverStart: a, coverEnd: b, extent: S)
    return offset.resolve(lo: lo, hi: hi)
  }

  /// CSS text: `entry 25%`, `cover 100%`.
  public var description: String { "\(name.rawValue) \(offset)" }
}

/// An animation's attachment range on a scroll-driven timeline (CSS `animation-range`):
/// where its progress is 0 (`start`) and 1 (`end`).
public struct AnimationRange: Sendable, Hashable, CustomStringConvertible {
  public let start: TimelineRangeOffset
  public let end: TimelineRangeOffset

  public init(start: TimelineRangeOffset, end: TimelineRangeOffset) {
    self.start = start
    self.end = end
  }

  /// `normal`: the whole timeline (cover 0% to cover 100% on a view timeline, offset 0 to
  /// the maximum on a scroll timeline).
  public static let normal = AnimationRange(start: .normal(.start), end: .normal(.end))

  /// A whole named range: `entry` is `entry 0% entry 100%`.
  public static func named(_ name: TimelineRangeName) -> AnimationRange {
    AnimationRange(
      start: TimelineRangeOffset(unchecked: name, .percent(0)), end: TimelineRangeOffset(unchecked: name, .percent(100)))
  }

  /// The two longhands (`animation-range-start`, `animation-range-end`), each as
  /// `TimelineRangeOffset(parsing:edge:)` reads it.
  /// - Throws: as `TimelineRangeOffset(parsing:edge:)`.
  public init(start: String, end: String) throws(CellMotionError) {
    self.start = try TimelineRangeOffset(parsing: start, edge: .start)
    self.end = try TimelineRangeOffset(parsing: end, edge: .end)
  }

  /// The `animation-range` shorthand: a start boundary, then optionally an end boundary
  /// (`"entry 10% exit 90%"`, `"cover 20% 80%"`, `"entry"`, `"normal"`). An omitted end
  /// is the start's range name at 100% when the start names one, else `normal` (CSS
  /// Animations 2). One range only (no comma-separated lists).
  /// - Throws: `.invalidSyntax(field: "animation-range", ...)` naming the text;
  ///   `.outOfRange` for a number outside its range.
  public init(parsing text: String) throws(CellMotionError) {
    let field = "animation-range"
    var tokens = CSSText.tokens(text)
    if text.contains(",") {
      throw .invalidSyntax(field: field, text: text, reason: "a list of ranges is not supported; give one range")
    }
    let startNamesRange = tokens.first.map { TimelineRangeName(rawValue: $0.lowercased()) != nil } ?? false
    let start = try TimelineRangeOffset.parse(&tokens, edge: .start, field: field, text: text)
    var end = startNamesRange ? TimelineRangeOffset(unchecked: start.name, .percent(100)) : .normal(.end)
    if !tokens.isEmpty { end = try TimelineRangeOffset.parse(&tokens, edge: .end, field: field, text: text) }
    if let extra = tokens.first {
      throw .invalidSyntax(field: field, text: text, reason: "unexpected \"\(extra)\" after the end of the range")
    }
    self.init(start: start, end: end)
  }

  /// CSS text of both longhands: `entry 0% entry 100%`.
  public var description: String { "\(start) \(end)" }
}

/// One view-timeline inset (CSS `view-timeline-inset`, `view(<inset>)`): `auto` reads the
/// scroll state's inset on that side (scroll-padding, UIKit's adjustedContentInset), a
/// length is points, a percentage is of the viewport's extent. Positive insets shrink the
/// visibility range, negative ones grow it.
public enum ViewTimelineInset: Sendable, Hashable, CustomStringConvertible {
  case auto
  case length(RangeLength)

  /// The inset in points for a viewport of extent V whose own inset on this side is
  /// `scrollInset`.
  public func resolve(viewportExtent V: Double, scrollInset: Double) -> Double {
    switch self {
    case .auto: scrollInset
    case .length(let l): l.resolve(of: V)
    }
  }

  public var description: String {
    switch self {
    case .auto: "auto"
    case .length(let l): l.description
    }
  }
}

/// The start-side and end-side insets of a view timeline.
public struct ViewTimelineInsets: Sendable, Hashable, CustomStringConvertible {
  public let start: ViewTimelineInset
  public let end: ViewTimelineInset

  /// - Throws: `.notFinite` / `.outOfRange` for lengths outside their ranges.
  public init(start: ViewTimelineInset, end: ViewTimelineInset) throws(CellMotionError) {
    for (side, inset) in [("start", start), ("end", end)] {
      if case .length(let l) = inset { try l.validate("view-timeline-inset \(side)") }
    }
    self.start = start
    self.end = end
  }

  init(unchecked start: ViewTimelineInset, _ end: ViewTimelineInset) {
    self.start = start
    self.end = end
  }

  /// Both `auto`: the scroll state's insets.
  public static let auto = ViewTimelineInsets(unchecked: .auto, .auto)

  /// CSS syntax: one or two of `auto` or a `<length-percentage>` (`"auto"`, `"20%"`,
  /// `"10% 40px"`); one value is used for both sides.
  /// - Throws: `.invalidSyntax(field: "view-timeline-inset", ...)` naming the text.
  public init(parsing text: String) throws(CellMotionError) {
    let field = "view-timeline-inset"
    let tokens = CSSText.tokens(text)
    guard (1...2).contains(tokens.count) else {
      throw .invalidSyntax(field: field, text: text, reason: "expected one or two insets, found \(tokens.count)")
    }
    var insets: [ViewTimelineInset] = []
    for token in tokens {
      if token.lowercased() == "auto" {
        insets.append(.auto)
      } else if let l = try CSSText.lengthPercentage(token, field: field, text: text) {
        insets.append(.length(l))
      } else {
        throw .invalidSyntax(field: field, text: text, reason: "\"\(token)\" is neither auto nor a <length-percentage>")
      }
    }
    try self.init(start: insets[0], end: insets.count == 2 ? insets[1] : insets[0])
  }

  public var description: String { "\(start) \(end)" }
}

/// What an effect shows when its timeline's value is outside the timeline's range, on each
/// side. CSS's `animation-fill-mode` values are `both`, `none`, `forwards`, `backwards`.
///
/// "Before" and "after" are the value's sides of the range: for CSS timelines (range
/// [0, 1), as Web Animations' phases: before while progress < 0, after from progress 1 on),
/// before the range start and from its end on; for the closed ranges of the other
/// timelines (centred, SwiftUI phase, distance), below the lower and above the upper end.
public struct ScrollFill: Sendable, Hashable, CustomStringConvertible {
  /// One side's behaviour.
  public enum Outside: String, Sendable, Hashable, Codable, CaseIterable {
    /// Hold the range's end (CSS fill backwards or forwards on that side).
    case clamp
    /// No effect: the cell shows as if there were no scroll effect (CSS fill none).
    case none
    /// The value continues past the range (a wheel, a pager, parallax).
    case extend
    /// The effect hides the cell (opacity 0), as Android's page transformers do more than
    /// one page away and Flutter's wheel past a quarter turn.
    case hide
  }

  public let before: Outside
  public let after: Outside

  public init(before: Outside, after: Outside) {
    self.before = before
    self.after = after
  }

  /// CSS `both`: clamp on both sides.
  public static let both = ScrollFill(before: .clamp, after: .clamp)
  /// CSS `none` (CSS's initial value): no effect outside the range.
  public static let none = ScrollFill(before: .none, after: .none)
  /// CSS `forwards`: no effect before, hold the end after.
  public static let forwards = ScrollFill(before: .none, after: .clamp)
  /// CSS `backwards`: hold the start before, no effect after.
  public static let backwards = ScrollFill(before: .clamp, after: .none)
  /// Extend on both sides.
  public static let extend = ScrollFill(before: .extend, after: .extend)
  /// Hide on both sides.
  public static let hide = ScrollFill(before: .hide, after: .hide)

  /// CSS `animation-fill-mode`: `none`, `forwards`, `backwards` or `both` (ASCII
  /// case-insensitive, surrounding whitespace ignored).
  /// - Throws: `.invalidSyntax(field: "fill", ...)` naming the text.
  public init(parsing text: String) throws(CellMotionError) {
    let tokens = CSSText.tokens(text)
    switch tokens.count == 1 ? tokens[tokens.startIndex].lowercased() : "" {
    case "both": self = .both
    case "none": self = .none
    case "forwards": self = .forwards
    case "backwards": self = .backwards
    default:
      throw .invalidSyntax(field: "fill", text: text, reason: "expected none, forwards, backwards or both")
    }
  }

  /// The CSS keyword when there is one, else `before/after` (`extend/extend`).
  public var description: String {
    switch (before, after) {
    case (.clamp, .clamp): "both"
    case (.none, .none): "none"
    case (.none, .clamp): "forwards"
    case (.clamp, .none): "backwards"
    default: "\(before.rawValue)/\(after.rawValue)"
    }
  }
}

/// Small CSS text helpers: whitespace tokens, `<length-percentage>` tokens, number text.
enum CSSText {
  /// The whitespace-separated tokens of `text` (CSS whitespace: space, tab, newlines).
  static func tokens(_ text: String) -> ArraySlice<Substring> {
    text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{C}" })[...]
  }

  /// `token` as a `<length-percentage>` (`25%`, `-40px`, `1e2PX`, a unitless `0`), nil when
  /// it does not start like a number (a name).
  /// - Throws: `.invalidSyntax` for a number with another unit or malformed digits.
  static func lengthPercentage(_ token: Substring, field: String, text: String) throws(CellMotionError) -> RangeLength? {
    let scalars = Array(token.unicodeScalars)
    guard let first = scalars.first, first == "+" || first == "-" || first == "." || ("0"..."9").contains(first) else {
      return nil
    }
    var i = 0
    if scalars[i] == "+" || scalars[i] == "-" { i += 1 }
    var digits = 0
    while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; digits += 1 }
    if i < scalars.count, scalars[i] == "." {
      i += 1
      while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; digits += 1 }
    }
    guard digits > 0 else { throw .invalidSyntax(field: field, text: text, reason: "\"\(token)\" is not a number") }
    // An exponent only when digits follow it (`1e2px`; `1em` is a number and a unit).
    if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
      var j = i + 1
      if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" { j += 1 }
      if j < scalars.count, ("0"..."9").contains(scalars[j]) {
        while j < scalars.count, ("0"..."9").contains(scalars[j]) { j += 1 }
        i = j
      }
    }
    let numberText = String(String.UnicodeScalarView(scalars[..<i]))
    let unit = String(String.UnicodeScalarView(scalars[i...])).lowercased()
    guard let value = Double(numberText), value.isFinite else {
      throw .invalidSyntax(field: field, text: text, reason: "\"\(token)\" is not a finite number")
    }
    switch unit {
    case "%": return .percent(value)
    case "px": return .points(value)
    case "" where value == 0: return .points(0)
    case "":
      throw .invalidSyntax(field: field, text: text, reason: "\"\(token)\" needs a unit (% or px); only 0 may omit it")
    default:
      throw .invalidSyntax(field: field, text: text, reason: "unsupported unit \"\(unit)\" in \"\(token)\"; use % or px")
    }
  }

  /// A number as CSS text: integers without a fraction, others as Swift prints them.
  static func number(_ x: Double) -> String {
    if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    return x.description
  }
}
