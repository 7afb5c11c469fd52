// `cellmotion timeline`: the answers for hand-worked geometries (CSS's range formulas:
// cover = [s - V + i1, s + S - i0], entry = [cover start, min(s - i0, s + S - V + i1)]),
// JSON Lines in and out, and one clear error naming the line and the key for bad lines;
// in-process through the command type, with one end-to-end run of the executable.

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionCLI
@testable import _CLISupport

@Suite("cellmotion timeline")
struct TimelineCommandTests {
  /// Runs the JSON Lines loop in-process; returns what it wrote and its error, if any.
  func answer(_ lines: [String]) -> (out: String, error: String?) {
    var out = ""
    var iterator = lines.makeIterator()
    do {
      try TimelineCommand.answer(&iterator, number: 0) { out += $0 }
      return (out, nil)
    } catch {
      return (out, "\(error)")
    }
  }

  @Test("JSON Lines: one answer per line, worked by hand")
  func jsonLines() {
    // V 800, S 100, s 1000, o 500: cover [200, 1100], so cover progress (500 - 200) / 900.
    // Entry [200, 300]: at 500 past its end, 1 with fill both, none with fill none.
    // Insets 50 and 100: cover [300, 1050] -> 200 / 750.
    let (out, error) = answer([
      #"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500}"#,
      #"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500, "rangeStart": "entry", "rangeEnd": "entry", "fill": "both"}"#,
      #"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500, "rangeStart": "entry", "rangeEnd": "entry"}"#,
      #"{"viewport": 800, "startInset": 50, "endInset": 100, "cellStart": 1000, "cellExtent": 100, "offset": 500}"#,
      // A cell taller than the viewport (S 1000): contain is [min(c, d), max(c, d)] with
      // c = s + S - i0 - S = 1000 and d = s - V + S = 1200: at 1100, halfway.
      #"{"viewport": 800, "cellStart": 1000, "cellExtent": 1000, "offset": 1100, "rangeStart": "contain", "rangeEnd": "contain"}"#,
    ])
    #expect(error == nil)
    let values = out.split(separator: "\n").map(String.init)
    #expect(values.count == 5)
    let expected: [Double?] = [300.0 / 900, 1, nil, 200.0 / 750, 0.5]
    for (line, e) in zip(values, expected) {
      if let e {
        #expect(line.hasPrefix("{\"progress\": "), "\(line)")
        let number = Double(line.dropFirst("{\"progress\": ".count).dropLast())
        #expect(number.map { abs($0 - e) < 1e-12 } == true, "\(line) vs \(e)")
      } else {
        #expect(line == "{\"progress\": null}")
      }
    }
  }

  @Test("A bad line stops the run with one error naming the line and the key; the lines before it are answered")
  func badLines() {
    let good = #"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500}"#
    for (bad, key) in [
      (#"{"viewport": 800, "cellStart": 1000, "cellExtent": 100}"#, "offset"),
      (#"{"viewport": "wide", "cellStart": 1000, "cellExtent": 100, "offset": 500}"#, "viewport"),
      (#"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500, "rangeEnd": "exit 5q"}"#, "animation-range-end"),
      (#"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500, "speed": 2}"#, "speed"),
      (#"{"viewport": 800, "cellStart": 1000, "cellExtent": -1, "offset": 500}"#, "cell"),
      ("not json", "line 2"),
      ("", "empty line"),
    ] {
      let (out, error) = answer([good, bad, good])
      #expect(out.split(separator: "\n").count == 1, "only the first line answered: \(out)")
      #expect(error?.hasPrefix("line 2: ") == true && error?.contains(key) == true, "\(error ?? "no error") for \(bad)")
    }
  }

  @Test("End to end: the executable reads standard input and exits non-zero on a bad line")
  func process() throws {
    let ok = try CLI.run(
      ["timeline", "--jsonl"], stdin: #"{"viewport": 800, "cellStart": 1000, "cellExtent": 100, "offset": 500}"# + "\n")
    #expect(ok.status == 0)
    #expect(String(decoding: ok.stdout, as: UTF8.self) == "{\"progress\": 0.3333333333333333}\n")
    let bad = try CLI.run(["timeline", "--jsonl"], stdin: "{}\n")
    #expect(bad.status != 0)
    #expect(bad.stderr.hasPrefix("cellmotion: error: line 1: ") && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    let flags = try CLI.run(["timeline", "--cell-start", "1000", "--offset", "500"])
    #expect(String(decoding: flags.stdout, as: UTF8.self) == "{\"progress\": 0.3333333333333333}\n")
  }
}
