// One question a CSS author asks of a view() timeline, in the form the future
// `cellmotion timeline --jsonl` command reads and writes: one JSON object per line in, one
// `{"progress": number}` or `{"progress": null}` per line out. The command is then one call
// per line: `ViewTimelineQuery.answer(jsonLine:)`.

import Foundation

/// A CSS view() timeline evaluated for one cell at one scroll offset: the cell's progress
/// through an `animation-range` under a `fill`, or nil where the animation has no effect.
///
/// Units: points (CSS px) for every length. The insets are the view timeline's (CSS
/// `view(<start> <end>)` in px, positive shrinking the visibility range); the offset is
/// used as given (browsers clamp it to the reachable range first: do so before asking, for
/// CSS parity at the ends of the content).
public struct ViewTimelineQuery: Sendable, Hashable {
  public let cell: CellSpan
  public let scroll: ScrollAxisState
  public let timeline: ScrollTimeline

  /// The keys of a JSON line; `viewport`, `cellStart`, `cellExtent` and `offset` are
  /// required, the others default to `startInset` 0, `endInset` 0, `rangeStart` and
  /// `rangeEnd` `"normal"`, `fill` `"none"` (CSS's initial values).
  public static let jsonKeys = [
    "viewport", "startInset", "endInset", "cellStart", "cellExtent", "offset", "rangeStart", "rangeEnd", "fill",
  ]

  /// - Parameters:
  ///   - viewport: V, the scroll container's extent along the axis, points.
  ///   - startInset: the view timeline's start-side inset, points (positive shrinks the
  ///     visibility range).
  ///   - endInset: its end-side inset, points.
  ///   - cellStart: the cell's layout position (its leading edge), points.
  ///   - cellExtent: the cell's extent along the axis, points.
  ///   - offset: the scroll offset, points.
  ///   - rangeStart: `animation-range-start` text (`"entry 25%"`, `"normal"`).
  ///   - rangeEnd: `animation-range-end` text (`"exit-crossing 40px"`).
  ///   - fill: `animation-fill-mode` text (`"both"`, `"none"`, `"forwards"`, `"backwards"`).
  /// - Throws: `.notFinite` / `.outOfRange` for numbers outside their ranges,
  ///   `.invalidSyntax` naming the text of a range or fill that does not parse.
  public init(
    viewport: Double, startInset: Double = 0, endInset: Double = 0, cellStart: Double, cellExtent: Double,
    offset: Double, rangeStart: String = "normal", rangeEnd: String = "normal", fill: String = "none"
  ) throws(CellMotionError) {
    scroll = try ScrollAxisState(offset: offset, viewportExtent: viewport, startInset: startInset, endInset: endInset)
    cell = try CellSpan(start: cellStart, extent: cellExtent)
    timeline = try .view(AnimationRange(start: rangeStart, end: rangeEnd), fill: ScrollFill(parsing: fill))
  }

  /// Reads one JSON object (strict RFC 8259, as recipe files are read) with `jsonKeys`.
  /// - Throws: `.invalidJSON(source: "timeline input", ...)` for text that is not JSON;
  ///   `.invalidStructure` for a value that is not an object, a missing required key, an
  ///   unknown key, or a value of the wrong type (numbers for lengths, strings for the
  ///   range and fill); then what `init(viewport:...)` throws.
  public init(jsonLine: String) throws(CellMotionError) {
    let source = "timeline input"
    let tree: JSONValue
    do {
      tree = try StrictJSON.parse(Array(jsonLine.utf8))
    } catch {
      throw .invalidJSON(source: source, line: error.line, column: error.column, reason: error.reason)
    }
    guard case .object(let object) = tree else {
      throw .invalidStructure(source: source, path: "$", reason: "expected an object with \(Self.jsonKeys.joined(separator: ", "))")
    }
    for key in object.keys.sorted() where !Self.jsonKeys.contains(key) {
      throw .invalidStructure(source: source, path: key, reason: "unknown key (expected one of \(Self.jsonKeys.joined(separator: ", ")))")
    }
    func number(_ key: String, default value: Double? = nil) throws(CellMotionError) -> Double {
      switch object[key] {
      case .number(let x): return x
      case nil:
        if let value { return value }
        throw .invalidStructure(source: source, path: key, reason: "missing required number")
      default: throw .invalidStructure(source: source, path: key, reason: "expected a number (points)")
      }
    }
    func text(_ key: String, default value: String) throws(CellMotionError) -> String {
      switch object[key] {
      case .string(let s): return s
      case nil: return value
      default: throw .invalidStructure(source: source, path: key, reason: "expected a string")
      }
    }
    try self.init(
      viewport: number("viewport"), startInset: number("startInset", default: 0), endInset: number("endInset", default: 0),
      cellStart: number("cellStart"), cellExtent: number("cellExtent"), offset: number("offset"),
      rangeStart: text("rangeStart", default: "normal"), rangeEnd: text("rangeEnd", default: "normal"),
      fill: text("fill", default: "none"))
  }

  /// The cell's progress through the range (in [0, 1] under fill both; any value in [0, 1)
  /// inside the range), nil where the animation has no effect.
  public var progress: Double? { timeline.output(cell: cell, scroll: scroll).value }

  /// `{"progress": 0.25}` or `{"progress": null}` (numbers in JSON's shortest round-trip
  /// form).
  public var jsonOutput: String {
    "{\"progress\": \(progress.map(StrictJSON.number) ?? "null")}"
  }

  /// The whole command for one line: read it, evaluate, write the answer.
  /// - Throws: as `init(jsonLine:)`.
  public static func answer(jsonLine: String) throws(CellMotionError) -> String {
    try ViewTimelineQuery(jsonLine: jsonLine).jsonOutput
  }
}
