// CellMotionFuzz's main (`FuzzEntry`: libFuzzer in Tools/fuzz.sh's builds) and its plain
// driver (every build without -DCELLMOTION_LIBFUZZER, so `swift build` needs no fuzzer
// runtime): replays corpus files, then runs seeded mutations of them for a number of
// iterations or seconds. Usage:
//
//   CellMotionFuzz [--seed N] [--iterations N] [--seconds S] [FILE_OR_DIR ...]
//
// With no paths it replays Tools/CellMotionFuzz/corpus. A trap ends the run (non-zero exit);
// the seed and iteration printed before each batch reproduce it.

import Foundation
import _SoakSupport
import _TestSupport

@main
struct PlainDriver {
  static func main() {
    FuzzEntry.main(property: FuzzHarness.run, plain: run)
  }

  /// The plain driver on `arguments` (without the program name); returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    let parsed = FuzzArguments.parse(
      arguments, name: "CellMotionFuzz", iterations: 10_000, usage: "[--seed N] [--iterations N] [--seconds S] [FILE_OR_DIR ...]")
    guard let options = parsed.arguments else { return parsed.status }
    let (seed, iterations, seconds) = (options.seed, options.iterations, options.seconds)
    var paths = options.paths
    if paths.isEmpty {
      paths = [URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("corpus").path]
    }
    let corpus = load(paths)
    print("replaying \(corpus.count) corpus inputs")
    for input in corpus { FuzzHarness.run(input) }
    guard !corpus.isEmpty else { return 0 }
    print("mutating: seed \(seed), \(seconds.map { "\($0) s" } ?? "\(iterations) iterations")")
    var rng = SeededGenerator(seed: seed)
    let start = Date()
    var n = 0
    while seconds.map({ Date().timeIntervalSince(start) < $0 }) ?? (n < iterations) {
      let base = corpus[Int.random(in: 0..<corpus.count, using: &rng)]
      FuzzHarness.run(JSONMutator.mutate(base, corpus: corpus, using: &rng))
      n += 1
    }
    print("done: \(n) mutated inputs in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, no failure")
    return 0
  }

  /// Every regular file under `paths`, sorted by path.
  static func load(_ paths: [String]) -> [[UInt8]] {
    var files: [String] = []
    for p in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: p, isDirectory: &isDirectory) else { continue }
      if isDirectory.boolValue {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []
        files += names.map { p + "/" + $0 }
      } else {
        files.append(p)
      }
    }
    return files.sorted().compactMap { FileManager.default.contents(atPath: $0).map { [UInt8]($0) } }
  }
}
