// The CLI's validation path under seeded random flag sets: whatever the flags and values
// (negative, zero, NaN, infinite, huge, garbage, missing), the binary exits 0, 1 or 64,
// prints exactly one `cellmotion: error:` line when it fails, and never traps.

import Foundation
import Testing
import _TestSupport

@Suite("cellmotion flag fuzz")
struct FlagFuzzTests {
  /// Values for numeric options: hostile ones, and small valid ones (valid but huge values
  /// are left out so that every run is short; the caps tests cover those).
  static let numbers = ["-1", "0", "-0", "1", "2", "0.2", "1e-3", "nan", "inf", "-inf", "1e39", "-1e39", "1e308", "abc", "",
                        "-3000", "0x10", "1_000", "601", "1001", "--", "-", "1e-320"]
  static let table: [String: [String]] = [
    "--rows": ["-1", "0", "1", "20", "1000000", "1000001", "1e3", "abc", "9223372036854775808"],
    "--row-height": ["-1", "0", "1e-3", "80", "1e39", "nan", "inf", "5e-324"],
    "--width": numbers + ["375", "1e-300"],
    "--viewport-height": ["-1", "0", "1", "667", "1e9", "1e39", "nan", "1e-300"],
    "--scroll": ["none", "constant", "fling", "bogus", ""],
    "--velocity": numbers + ["400"],
    "--scroll-start": numbers,
    "--rule": ["first", "always", "screenful", "x"],
    "--fps": ["-1", "0", "1", "60", "1001", "nan", "1e39", "abc", "1e-300"],
    "--duration": ["-1", "0", "0.2", "601", "nan", "inf", "1e39", "abc", "1e-300"],
    "--expand": ["-1", "0", "1", "19", "20", "abc", "1e39"],
    "--detail-height": numbers + ["160"],
    "--axis": ["vertical", "horizontal", "diagonal", ""],
  ]
  static let commands: [String: [String: [String]]] = [
    "render": table.merging([
      "--thumbnails": ["0", "1", "12", "400", "401", "-1", "abc"], "--columns": ["0", "1", "4", "-1", "1e9"],
      "--scale": ["0", "0.4", "4", "5", "nan", "-1", "1e-300"], "--basename": [".", "..", "x", "", "a/b", ".h", "é"],
      "--format": ["both", "svg", "html", "pdf"],
    ]) { a, _ in a },
    "simulate": table.merging(["--format": ["csv", "jsonl", "xml"]]) { a, _ in a },
    "inspect": ["--width": numbers, "--height": numbers, "--detail-height": numbers, "--rows": ["-1", "0", "1", "10000", "10001", "abc"]],
    "curve": [
      "--damping-ratio": numbers, "--duration": numbers, "--initial-velocity": numbers, "--mass": numbers,
      "--stiffness": numbers, "--damping": numbers, "--samples": ["-1", "1", "2", "240", "1000001", "abc"],
      "--format": ["svg", "csv", "png"],
    ],
    "recipe-template": [:],
  ]
  static let flags: [String: [String]] = [
    "render": ["--progress"], "simulate": ["--progress"], "inspect": ["--json", "--emit-json"], "curve": [], "recipe-template": [],
  ]

  /// Recipe arguments: presets, garbage, and the fuzz corpus's files (valid and not).
  static let recipes: [String] = {
    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Tools/CellMotionFuzz/corpus")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
      .map { corpus.appendingPathComponent($0).path }
    return ["tipIn", "foldOpen", "foldClosed", "moveUpBounce", "flipY", "noSuchPreset", "", "x.json", "/", "-"] + files
  }()

  /// One random command line (without the output flag).
  static func randomArguments(_ rng: inout SeededGenerator) -> [String] {
    let names = commands.keys.sorted()
    let command = names[Int.random(in: 0..<names.count, using: &rng)]
    var args = [command]
    if command == "curve" {
      let curves = ["spring", "easeOut", "cubic-bezier(0.2, 0, 1.5)", "cubic-bezier(1e39, 0, 1, 1)", "tipIn", "bogus"]
      if Bool.random(using: &rng) { args.append(curves[Int.random(in: 0..<curves.count, using: &rng)]) }
    } else if command == "recipe-template" {
      if Bool.random(using: &rng) { args.append(["tipIn", "nope", "foldOpen", ""][Int.random(in: 0..<4, using: &rng)]) }
    } else if Int.random(in: 0..<3, using: &rng) > 0 {
      args.append(recipes[Int.random(in: 0..<recipes.count, using: &rng)])
    }
    let options = commands[command] ?? [:]
    let keys = options.keys.sorted()
    for _ in 0..<Int.random(in: 0...5, using: &rng) where !keys.isEmpty {
      let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
      let values = options[key] ?? []
      let value = values[Int.random(in: 0..<values.count, using: &rng)]
      // Both spellings, and now and then no value at all.
      switch Int.random(in: 0..<8, using: &rng) {
      case 0: args.append("\(key)=\(value)")
      case 1: args.append(key)
      default: args += [key, value]
      }
    }
    for f in flags[command] ?? [] where Int.random(in: 0..<4, using: &rng) == 0 { args.append(f) }
    if Int.random(in: 0..<12, using: &rng) == 0 { args.append(["--bogus", "-x", "--", "extra"][Int.random(in: 0..<4, using: &rng)]) }
    return args
  }

  @Test("seeded random flag sets: exit 0, 1 or 64, one error line, no trap", arguments: 0..<4)
  func randomFlags(batch: Int) throws {
    let seed: UInt64 = 0xF1A6_0000 + UInt64(batch)
    var rng = SeededGenerator(seed: seed)
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var failures = 0
    // 30 processes a batch in the quick sweep (each a debug build of the CLI), 75 exhaustive.
    let runs = Sweep.count(quick: 30, full: 75)
    for run in 0..<runs {
      var args = Self.randomArguments(&rng)
      let out = dir.appendingPathComponent("out-\(run)")
      if args[0] == "render" {
        args += ["-o", out.path]
      } else if Bool.random(using: &rng) {
        args += ["-o", out.path + ".txt"]
      }
      let r = try CLI.run(args, in: dir, timeout: 60)
      let context = "seed \(String(seed, radix: 16)) run \(run): cellmotion \(args.map { "'\($0)'" }.joined(separator: " "))"
      #expect(!r.signaled && !r.timedOut, "\(context): signal \(r.status), stderr: \(r.stderr.prefix(2000))")
      #expect([0, 1, 64].contains(r.status), "\(context): exit \(r.status), stderr: \(r.stderr.prefix(2000))")
      if r.status == 0 {
        #expect(r.errorLines.allSatisfy { $0.hasPrefix("wrote ") || $0.hasPrefix("\r") || $0.contains("simulating [") },
                "\(context): \(r.stderr.prefix(2000))")
      } else {
        failures += 1
        #expect(r.errorLines.count == 1 && r.stderr.hasPrefix("cellmotion: error: "), "\(context): \(r.stderr.prefix(2000))")
      }
      try? FileManager.default.removeItem(at: out)
      try? FileManager.default.removeItem(atPath: out.path + ".txt")
    }
    #expect(failures > runs / 8 && failures < runs, "seed \(String(seed, radix: 16)): both outcomes occur (\(failures) of \(runs) failed)")
  }
}
