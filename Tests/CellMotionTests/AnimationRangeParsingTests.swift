// The text forms a CLI reads: `animation-range` boundaries and shorthand, view-timeline
// insets, fill modes, and the JSON-lines timeline question. Good strings against the values
// the CSS grammar gives them (worked by hand); bad strings must throw a typed error that
// names the text.

import Foundation
import Testing

@testable import CellMotion

/// The error `body` throws, if it is `.invalidSyntax`: its field and text.
func syntaxError(_ body: () throws(CellMotionError) -> Void) -> (field: String, text: String, reason: String)? {
  do {
    try body()
    return nil
  } catch {
    if case .invalidSyntax(let field, let text, let reason) = error { return (field, text, reason) }
    return nil
  }
}

@Suite("animation-range parsing")
struct AnimationRangeParsingTests {
  @Test("Good boundaries: names, offsets, normal, bare lengths, case and spacing")
  func goodBoundaries() throws {
    let cases: [(String, RangeEdge, TimelineRangeName, RangeLength)] = [
      ("entry 25%", .start, .entry, .percent(25)),
      ("exit-crossing 40px", .end, .exitCrossing, .points(40)),
      ("cover", .start, .cover, .percent(0)),
      ("cover", .end, .cover, .percent(100)),
      ("contain", .end, .contain, .percent(100)),
      ("normal", .start, .cover, .percent(0)),
      ("normal", .end, .cover, .percent(100)),
      ("50%", .start, .cover, .percent(50)),
      ("-20px", .end, .cover, .points(-20)),
      ("0", .start, .cover, .points(0)),
      ("  ENTRY-Crossing\t12.5PX ", .start, .entryCrossing, .points(12.5)),
      ("exit +1e2%", .start, .exit, .percent(100)),
      ("entry .5%", .start, .entry, .percent(0.5)),
      ("exit -0.25%", .end, .exit, .percent(-0.25)),
    ]
    for (text, edge, name, offset) in cases {
      let b = try TimelineRangeOffset(parsing: text, edge: edge)
      #expect(b.name == name && b.offset == offset, "\"\(text)\" as \(edge): \(b)")
    }
    #expect(try TimelineRangeOffset(parsing: "entry 25%", edge: .start).description == "entry 25%")
    #expect(try TimelineRangeOffset(parsing: "exit-crossing 40.5px", edge: .end).description == "exit-crossing 40.5px")
  }

  @Test("The shorthand: an omitted end is the start's name at 100%, else normal")
  func shorthand() throws {
    let cases: [(String, String)] = [
      ("entry", "entry 0% entry 100%"),
      ("entry 10%", "entry 10% entry 100%"),
      ("entry 10% exit 90%", "entry 10% exit 90%"),
      ("cover 20% 80%", "cover 20% cover 80%"),
      ("20%", "cover 20% cover 100%"),
      ("normal", "cover 0% cover 100%"),
      ("entry exit", "entry 0% exit 100%"),
      ("contain 10px normal", "contain 10px cover 100%"),
    ]
    for (text, expected) in cases {
      #expect(try AnimationRange(parsing: text).description == expected, "\"\(text)\"")
    }
  }

  @Test("Bad boundaries throw invalidSyntax naming the text")
  func badBoundaries() {
    let bad: [(String, RangeEdge)] = [
      ("", .start), ("   ", .end), ("enter 25%", .start), ("entry 25", .start), ("entry 25em", .end),
      ("entry 25% 10%", .start), ("entry25%", .start), ("calc(10% + 5px)", .start), ("entry nan%", .start),
      ("entry inf", .start), ("entry 1e400%", .start), ("entry --5%", .start), ("entry 5%%", .start),
      ("entry 0x10px", .start), ("%", .start), ("exit-crossing 40 px", .end), ("normal 10%", .start),
      ("cover, exit", .end), ("ENTRY 25 %", .start), ("entry .%", .start), ("entry 5e%", .start),
    ]
    for (text, edge) in bad {
      let error = syntaxError { () throws(CellMotionError) in _ = try TimelineRangeOffset(parsing: text, edge: edge) }
      #expect(error?.text == text, "\"\(text)\" gave \(String(describing: error))")
      #expect(error?.field == "animation-range-\(edge.rawValue)")
    }
    for text in ["entry 10% exit 90% cover", "entry 10%, exit 90%", "", "exit 10% 20% 30%", "sideways"] {
      let error = syntaxError { () throws(CellMotionError) in _ = try AnimationRange(parsing: text) }
      #expect(error?.text == text && error?.field == "animation-range", "\"\(text)\" gave \(String(describing: error))")
    }
    // The message names the text.
    let message = syntaxError { () throws(CellMotionError) in _ = try TimelineRangeOffset(parsing: "entry 25em", edge: .start) }
    #expect(message?.reason.contains("em") == true)
    #expect(
      CellMotionError.invalidSyntax(field: "animation-range-start", text: "entry 25em", reason: "x").description
        .contains("\"entry 25em\""))
    // Numbers outside their documented range are range errors, not syntax errors.
    #expect(throws: CellMotionError.self) { try TimelineRangeOffset(parsing: "entry 1e7%", edge: .start) }
    #expect(syntaxError { () throws(CellMotionError) in _ = try TimelineRangeOffset(parsing: "entry 1e7%", edge: .start) } == nil)
  }

  @Test("Fill modes and view-timeline insets")
  func fillAndInsets() throws {
    #expect(try ScrollFill(parsing: "both") == .both)
    #expect(try ScrollFill(parsing: " NONE ") == .none)
    #expect(try ScrollFill(parsing: "forwards") == .forwards)
    #expect(try ScrollFill(parsing: "backwards") == .backwards)
    for text in ["", "auto", "both none", "extend", "bothh"] {
      let error = syntaxError { () throws(CellMotionError) in _ = try ScrollFill(parsing: text) }
      #expect(error?.field == "fill" && error?.text == text, "\"\(text)\"")
    }
    let insets = try ViewTimelineInsets(parsing: "10% 40px")
    #expect(insets.start == .length(.percent(10)) && insets.end == .length(.points(40)))
    #expect(try ViewTimelineInsets(parsing: "auto") == .auto)
    for text in ["", "10% 20% 30%", "10", "auto auto auto", "left"] {
      let error = syntaxError { () throws(CellMotionError) in _ = try ViewTimelineInsets(parsing: text) }
      #expect(error?.field == "view-timeline-inset" && error?.text == text, "\"\(text)\"")
    }
  }
}

@Suite("The timeline JSON-lines question")
struct ViewTimelineQueryTests {
  @Test("One call per line: progress or null")
  func answers() throws {
    // V 600, s 1000, S 100: entry [400, 500]; entry 25% = 425; exit-crossing 40px = 1040.
    let line = #"{"viewport": 600, "cellStart": 1000, "cellExtent": 100, "offset": 450, "rangeStart": "entry", "rangeEnd": "entry", "fill": "both"}"#
    #expect(try ViewTimelineQuery.answer(jsonLine: line) == #"{"progress": 0.5}"#)
    let range = #"{"viewport": 600, "cellStart": 1000, "cellExtent": 100, "offset": 732.5, "rangeStart": "entry 25%", "rangeEnd": "exit-crossing 40px"}"#
    #expect(try ViewTimelineQuery.answer(jsonLine: range) == #"{"progress": 0.5}"#)
    // Fill none (the default) outside the range: null.
    let outside = #"{"viewport": 600, "cellStart": 1000, "cellExtent": 100, "offset": 100}"#
    #expect(try ViewTimelineQuery.answer(jsonLine: outside) == #"{"progress": null}"#)
    // Insets: i0 50, i1 100: cover [500, 1050]; o = 500 is 0.
    let insets = #"{"viewport": 600, "startInset": 50, "endInset": 100, "cellStart": 1000, "cellExtent": 100, "offset": 500}"#
    #expect(try ViewTimelineQuery.answer(jsonLine: insets) == #"{"progress": 0}"#)
    let q = try ViewTimelineQuery(viewport: 600, cellStart: 1000, cellExtent: 100, offset: 437.5, rangeStart: "entry", rangeEnd: "entry")
    #expect(q.progress == 0.375)
  }

  @Test("Bad lines: typed errors")
  func badLines() {
    func error(_ line: String) -> CellMotionError? {
      do {
        _ = try ViewTimelineQuery.answer(jsonLine: line)
        return nil
      } catch { return error }
    }
    if case .invalidJSON = error("{\"viewport\": 600,") {} else { Issue.record("truncated JSON") }
    if case .invalidStructure(_, let path, _) = error(#"{"viewport": 600, "cellStart": 0, "cellExtent": 10}"#) {
      #expect(path == "offset")
    } else { Issue.record("missing offset") }
    if case .invalidStructure(_, let path, _) = error(#"{"viewport": 600, "cellStart": 0, "cellExtent": 10, "offset": 0, "offst": 1}"#) {
      #expect(path == "offst")
    } else { Issue.record("unknown key") }
    if case .invalidStructure(_, let path, _) = error(#"{"viewport": "600", "cellStart": 0, "cellExtent": 10, "offset": 0}"#) {
      #expect(path == "viewport")
    } else { Issue.record("string viewport") }
    if case .invalidStructure = error("[1, 2]") {} else { Issue.record("array") }
    if case .invalidSyntax(_, let text, _) = error(#"{"viewport": 600, "cellStart": 0, "cellExtent": 10, "offset": 0, "rangeStart": "entri 5%"}"#) {
      #expect(text == "entri 5%")
    } else { Issue.record("bad range") }
    if case .invalidSyntax(let field, let text, _) = error(#"{"viewport": 600, "cellStart": 0, "cellExtent": 10, "offset": 0, "fill": "all"}"#) {
      #expect(field == "fill" && text == "all")
    } else { Issue.record("bad fill") }
    if case .outOfRange = error(#"{"viewport": -600, "cellStart": 0, "cellExtent": 10, "offset": 0}"#) {} else {
      Issue.record("negative viewport")
    }
  }
}
