// Memory and time stay bounded whatever the flags: simulate streams, render refuses up
// front what it could not hold.

import Foundation
import Testing

@Suite("cellmotion caps")
struct CapsTests {
  @Test("simulate streams: ten times the frames, about the same peak memory")
  func simulateStreams() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("frames.csv").path
    // 2,001 and 20,001 frames of 10 visible cells at 1000 fps (the test runs in ~2 s).
    let small = try CLI.peakRSS(["simulate", "--fps", "1000", "--duration", "2", "--format", "jsonl", "-o", out], in: dir)
    let smallSize = try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int ?? 0
    let large = try CLI.peakRSS(["simulate", "--fps", "1000", "--duration", "20", "--format", "jsonl", "-o", out], in: dir)
    let largeSize = try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int ?? 0
    #expect(small.status == 0 && large.status == 0)
    // Both measured (a process of this size holds megabytes: 0 would be a failed read).
    #expect(small.kib > 1024 && large.kib > 1024, "peak RSS \(small.kib) KiB, \(large.kib) KiB")
    #expect(largeSize > 9 * smallSize, "\(smallSize) -> \(largeSize) bytes written")
    // Keeping the frames (about 1 KB each) or the text would add 30 MB or more.
    #expect(large.kib - small.kib < 8 * 1024, "peak RSS \(small.kib) KiB -> \(large.kib) KiB")
  }

  @Test("render refuses runs it could not hold, at once, naming the flag to change")
  func renderRefuses() throws {
    let cases: [([String], [String])] = [
      (["--fps", "1000", "--duration", "600"], ["600001 frames", "cap of 20000", "lower --fps or --duration"]),
      (["--rows", "1000000", "--viewport-height", "1e9"], ["1000000 cells per frame", "lower --viewport-height or --rows"]),
      (["--rows", "1000000", "--row-height", "1e-3", "--rule", "always"], ["667001 cells per frame", "raise --row-height"]),
      (["--rows", "100000", "--viewport-height", "60000", "--fps", "1000", "--duration", "10"],
       ["up to 7510751 cells (10001 frames x 751 visible cells)", "cap of 500000", "lower --fps or --duration"]),
    ]
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    for (flags, parts) in cases {
      let start = Date()
      let r = try CLI.run(["render"] + flags + ["-o", dir.path], timeout: 20)
      let seconds = Date().timeIntervalSince(start)
      #expect(!r.timedOut && r.status == 64 && r.errorLines.count == 1, "\(flags): \(r.status) \(r.stderr)")
      for p in parts { #expect(r.stderr.contains(p), "\(p) not in: \(r.stderr)") }
      #expect(seconds < 5, "\(flags): refused after \(seconds) s")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    // The flags are checked before anything else is built, the recipe included.
    let first = try CLI.run(["render", "noSuchRecipe", "--fps", "1000", "--duration", "600", "-o", dir.path], timeout: 20)
    #expect(first.status == 64 && first.stderr.contains("600001 frames"), "\(first.stderr)")
  }

  @Test("simulate refuses more visible cells per frame than its cap")
  func simulateRefuses() throws {
    let r = try CLI.run(["simulate", "--rows", "1000000", "--viewport-height", "1e9"], timeout: 20)
    #expect(!r.timedOut && r.status == 64 && r.errorLines.count == 1, "\(r.stderr)")
    #expect(r.stderr.contains("simulate would show up to 1000000 cells per frame") && r.stderr.contains("cap of 100000"))
    #expect(r.stdout.isEmpty)
  }
}
