// Where output goes and what happens when it cannot: failed writes to stdout, what `-o`
// may replace, and all-or-nothing multi-file renders.

import Foundation
import Testing

@Suite("cellmotion output")
struct OutputTests {
  /// One `cellmotion: error:` line, a non-zero exit, and no trap (132 SIGILL, 134 SIGABRT,
  /// 139 SIGSEGV; a signal death shows as the signal number in terminationStatus).
  func expectCleanFailure(
    _ r: CLI.Result, mentioning parts: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(!r.signaled, "died of signal \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.status == 1 || r.status == 64, "status \(r.status), stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.errorLines.count == 1, "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.hasPrefix("cellmotion: error: "), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    for p in parts { #expect(r.stderr.contains(p), "\(p) not in: \(r.stderr)", sourceLocation: sourceLocation) }
  }

  @Test("a failed write to stdout is one error line and exit 1, never a trap; --help too")
  func stdoutFull() throws {
    let commands: [[String]] = [
      ["simulate"], ["simulate", "--format", "jsonl"], ["inspect"], ["inspect", "--json"], ["inspect", "--emit-json"],
      ["curve"], ["curve", "--format", "csv"], ["recipe-template"],
      ["--help"], ["render", "--help"], ["simulate", "--help"], ["help", "curve"],
    ]
    for args in commands {
      let full = try #require(FileHandle(forWritingAtPath: "/dev/full"), "/dev/full is needed for this test")
      defer { try? full.close() }
      let r = try CLI.run(args, stdout: full)
      expectCleanFailure(r, mentioning: ["cannot write to standard output", "No space left on device"])
      #expect(r.status == 1, "\(args)")
    }
  }
}
