// The accepted-input rule end to end: recipe files and table flags drawn from the whole
// accepted range (ends included) either run and write only finite numbers, or are refused
// with one error line (a documented cap). `simulate --width 1e39` wrote 216 NaNs before,
// and JSON Lines then held bare NaN tokens.

import CellMotion
import CellMotionKernel
import Foundation
import Testing
import _TestSupport

@Suite("CLI: accepted input gives finite output")
struct FiniteOutputTests {
  /// Every number of a CSV record or JSON Lines object.
  func numbers(_ text: String, format: String) throws -> [Double] {
    var out: [Double] = []
    if format == "csv" {
      for line in lines(text).dropFirst() {
        let fields = line.split(separator: ",")
        #expect(fields.count == 21, "\(line)")
        for (k, f) in fields.enumerated() where k != 3 {
          out.append(try #require(Double(f), "not a number: \(f) in \(line)"))
        }
      }
    } else {
      for line in lines(text) {
        let object = try #require(
          try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        let m = try #require(object["m"] as? [Double], "m in \(line)")
        out += m
        out.append(try #require(object["opacity"] as? Double, "opacity in \(line)"))
        out.append(try #require(object["time"] as? Double, "time in \(line)"))
      }
    }
    return out
  }

  @Test("Property: extreme recipes and flags through simulate: finite numbers or one error line")
  func simulateExtremes() throws {
    var g = SeededGenerator(seed: 0xC11_F1)
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let encoder = JSONEncoder()
    var ran = 0, refused = 0
    // Each run a process of the debug CLI: 14 in the quick sweep, 30 exhaustive.
    let runs = Sweep.count(quick: 14, full: 30)
    for i in 0..<runs {
      // A recipe the kernel evaluates (`CompiledRecipe` refuses timelines and angles its
      // Float arithmetic cannot hold to the tolerances; the reference evaluates those).
      var recipe = g.extremeRecipe(name: "extreme\(i)")
      while (try? CompiledRecipe(recipe))?.angleReaches.isEmpty != true { recipe = g.extremeRecipe(name: "extreme\(i)") }
      let file = dir.appendingPathComponent("r\(i).json")
      try encoder.encode(recipe).write(to: file)
      let format = i % 2 == 0 ? "csv" : "jsonl"
      // Sizes from the ends of the accepted range, but a visible-row count the CLI's
      // caps accept most of the time (the caps are tested elsewhere).
      let rowHeight = i % 3 == 0 ? g.extreme(InputLimits.length) : g.uniform(20...200)
      let args = [
        "simulate", file.path, "--format", format, "--duration", "0.2", "--fps", "20",
        "--rows", "\(1 + Int(g.next() % 60))", "--row-height", "\(rowHeight)",
        "--width", "\(g.extreme(InputLimits.length))", "--viewport-height", "\(g.uniform(100...1000))",
        "--scroll", ["none", "constant", "fling"][Int(g.next() % 3)],
        "--velocity=\(g.extreme(-1e6...1e6))",
      ]
      let r = try CLI.run(args)
      if r.status == 0 {
        ran += 1
        let values = try numbers(r.out, format: format)
        #expect(!values.isEmpty)
        let bad = values.filter { !$0.isFinite }
        #expect(bad.isEmpty, "seed \(g.seed) run \(i): \(bad.count) non-finite values; args \(args)")
      } else {
        refused += 1
        #expect(r.errorLines.count == 1 && r.errorLines[0].hasPrefix("cellmotion: error: "), "\(args): \(r.stderr)")
        #expect(r.status == 1 || r.status == 64, "\(args): exit \(r.status)")
      }
    }
    print("simulate extremes: \(ran) ran with finite output, \(refused) refused with one line")
    #expect(ran >= runs / 2)
  }

  @Test("simulate --width 1e39 is refused with one line, not written as NaN")
  func hugeWidth() throws {
    for format in ["csv", "jsonl"] {
      let r = try CLI.run(["simulate", "--width", "1e39", "--format", format, "--duration", "0.1"])
      #expect(r.status != 0)
      #expect(r.errorLines.count == 1 && r.errorLines[0].hasPrefix("cellmotion: error: "), "\(r.stderr)")
      #expect(!r.out.contains("NaN"))
    }
  }
}
