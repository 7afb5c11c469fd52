// `cellmotion timeline`: a cell's progress through a CSS view() timeline range: for one
// geometry from flags, or for many as JSON Lines on standard input (`--jsonl`), one answer
// per line. The reference (`ViewTimelineQuery`) answers; nothing here computes.

import ArgumentParser
import CellMotion
import Foundation

package struct TimelineCommand: ParsableCommand {
  package init() {}
  package static let configuration = CommandConfiguration(
    commandName: "timeline",
    abstract: "Print a cell's progress through a CSS view() timeline range (one geometry, or JSON Lines).",
    discussion: """
      Lengths are points (CSS px). The range uses CSS animation-range syntax: a named \
      range (cover, contain, entry, exit, entry-crossing, exit-crossing) with an optional \
      percentage or px offset, "normal", or a bare percentage; the fill is none, forwards, \
      backwards or both. Prints {"progress": number}, or {"progress": null} where the \
      animation has no effect.

      With --jsonl, reads one JSON object per line on standard input with the keys \
      viewport, startInset, endInset, cellStart, cellExtent, offset (numbers), rangeStart, \
      rangeEnd, fill (strings; the insets default to 0, the range to "normal", the fill to \
      "none") and prints one answer per line. A bad line stops the run with one error naming \
      the line and the key.
      """)

  @Flag(help: "Read JSON Lines on standard input; write one answer per line.")
  var jsonl = false

  @Option(parsing: .unconditional, help: "The scroll container's extent along the axis, points.")
  var viewport: Double = 800

  @Option(parsing: .unconditional, help: "The view timeline's start inset, points.")
  var startInset: Double = 0

  @Option(parsing: .unconditional, help: "The view timeline's end inset, points.")
  var endInset: Double = 0

  @Option(parsing: .unconditional, help: "The cell's leading edge in content coordinates, points.")
  var cellStart: Double = 1000

  @Option(parsing: .unconditional, help: "The cell's extent along the axis, points.")
  var cellExtent: Double = 100

  @Option(parsing: .unconditional, help: "The scroll offset, points.")
  var offset: Double = 500

  @Option(help: "animation-range-start, e.g. \"entry 25%\".")
  var rangeStart: String = "normal"

  @Option(help: "animation-range-end, e.g. \"exit-crossing 40px\".")
  var rangeEnd: String = "normal"

  @Option(help: "animation-fill-mode: none, forwards, backwards, both.")
  var fill: String = "none"

  package mutating func run() throws {
    guard jsonl else {
      let query = try ViewTimelineQuery(
        viewport: viewport, startInset: startInset, endInset: endInset, cellStart: cellStart, cellExtent: cellExtent,
        offset: offset, rangeStart: rangeStart, rangeEnd: rangeEnd, fill: fill)
      try Console.write(query.jsonOutput + "\n")
      return
    }
    // Answers are written in batches of lines (one write per batch, not per line).
    var lines = AnyIterator { readLine(strippingNewline: true) }
    try Self.answer(&lines, number: 0) { try Console.write($0) }
  }

  /// Answers the JSON Lines `lines` yields (numbered from `number + 1`), handing the text
  /// to `write` in batches; stops at the first bad line with one error naming the line
  /// (and, through the reference's error, the key).
  static func answer<I: IteratorProtocol<String>>(
    _ lines: inout I, number: Int, write: (String) throws -> Void
  ) throws {
    var out = ""
    var number = number
    while let line = lines.next() {
      number += 1
      do {
        if line.allSatisfy(\.isWhitespace) { throw CLIError("empty line (expected a JSON object)") }
        out += try ViewTimelineQuery.answer(jsonLine: line) + "\n"
      } catch {
        try write(out)
        throw CLIError("line \(number): \(error)")
      }
      if out.utf8.count > 1 << 16 {
        try write(out)
        out = ""
      }
    }
    try write(out)
  }
}
