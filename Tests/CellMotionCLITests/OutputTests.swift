// Where output goes and what happens when it cannot: failed writes to stdout, what `-o`
// may replace, and all-or-nothing multi-file renders.

import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

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

@Suite("cellmotion -o rules")
struct OutputPathTests {
  let fm = FileManager.default

  func expectRefused(_ r: CLI.Result, _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!r.signaled && r.status == 1, "status \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.errorLines.count == 1 && r.stderr.hasPrefix("cellmotion: error: "), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    for p in parts { #expect(r.stderr.contains(p), "\(p) not in: \(r.stderr)", sourceLocation: sourceLocation) }
    #expect(r.stdout.isEmpty, sourceLocation: sourceLocation)
  }

  /// Every single-file subcommand, writing to `path`.
  func commands(_ path: String) -> [[String]] {
    [["simulate", "-o", path], ["curve", "-o", path], ["inspect", "-o", path], ["inspect", "--emit-json", "-o", path],
     ["recipe-template", "-o", path]]
  }

  @Test("-o refuses a symbolic link (to a file or dangling), a directory and a FIFO, and writes nothing")
  func refusesNonRegular() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let target = dir.appendingPathComponent("target.txt")
    try "keep me\n".write(to: target, atomically: true, encoding: .utf8)
    let link = dir.appendingPathComponent("link.csv"), dangling = dir.appendingPathComponent("dangling.csv")
    try fm.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
    try fm.createSymbolicLink(atPath: dangling.path, withDestinationPath: dir.appendingPathComponent("nowhere").path)
    let fifo = dir.appendingPathComponent("fifo.csv")
    #expect(mkfifo(fifo.path, 0o644) == 0)
    let sub = dir.appendingPathComponent("sub")
    try fm.createDirectory(at: sub, withIntermediateDirectories: true)
    let before = try fm.contentsOfDirectory(atPath: dir.path).sorted()

    for (path, kind) in [(link.path, "symbolic link"), (dangling.path, "symbolic link"), (fifo.path, "FIFO"), (sub.path, "directory")] {
      for args in commands(path) {
        expectRefused(try CLI.run(args), ["cannot write", kind, "only a regular file"])
      }
    }
    #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == before, "nothing created or removed")
    #expect(try fm.destinationOfSymbolicLink(atPath: link.path) == target.path, "the link is still a link")
    #expect(try String(contentsOf: target, encoding: .utf8) == "keep me\n", "its target is untouched")
    #expect(!fm.fileExists(atPath: dir.appendingPathComponent("nowhere").path), "a dangling link's target is not created")
    var info = stat()
    #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
    #expect(try fm.contentsOfDirectory(atPath: sub.path).isEmpty)
  }

  @Test("an interrupted simulate -o leaves no temporary file behind; an ignored SIGHUP stays ignored")
  func interrupted() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let pid = try CLI.spawn(["simulate", "--fps", "1000", "--duration", "600", "-o", dir.appendingPathComponent("s.csv").path])
    // Wait for the temporary file to appear (the whole run would take tens of seconds).
    let deadline = Date().addingTimeInterval(20)
    while try fm.contentsOfDirectory(atPath: dir.path).isEmpty && Date() < deadline { usleep(20_000) }
    let during = try fm.contentsOfDirectory(atPath: dir.path)
    kill(pid, SIGINT)
    let status = CLI.waitStatus(pid)
    #expect(during.count == 1 && during[0].hasPrefix(".cellmotion-") && during[0].hasSuffix(".tmp"), "\(during)")
    #expect(status.signal == SIGINT, "ends by the signal, as without the handler: \(status)")
    #expect(try fm.contentsOfDirectory(atPath: dir.path).isEmpty, "removed by the signal handler")

    // Under nohup (SIGHUP ignored from the start) a hangup does not stop the run.
    let nohup = try #require(["/usr/bin/nohup", "/bin/nohup"].first { fm.isExecutableFile(atPath: $0) })
    let hup = try CLI.spawn(["simulate", "--fps", "1000", "--duration", "30", "-o", dir.appendingPathComponent("h.csv").path], launcher: nohup)
    while try fm.contentsOfDirectory(atPath: dir.path).isEmpty && Date() < deadline.addingTimeInterval(20) { usleep(20_000) }
    let beforeHangup = try fm.contentsOfDirectory(atPath: dir.path)
    kill(hup, SIGHUP)
    #expect(beforeHangup.count == 1 && beforeHangup[0].hasSuffix(".tmp"), "still running: \(beforeHangup)")
    #expect(CLI.waitStatus(hup).exit == 0)
    #expect(try fm.contentsOfDirectory(atPath: dir.path) == ["h.csv"])
  }

  @Test("a SIGINT at any moment of a simulate -o run leaves nothing behind but a complete file")
  func interruptedAnyMoment() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    // Signals spread from before the handler is installed to after the rename, so some land
    // between creating the temporary file and the end of the run.
    var outcomes: [String: Int] = [:]
    for i in 0..<30 {
      let out = dir.appendingPathComponent("s\(i).csv")
      let pid = try CLI.spawn(["simulate", "--fps", "240", "--duration", "0.5", "-o", out.path])
      usleep(useconds_t(i) * 10_000)  // 0 ... 290 ms; a run takes about 210 ms (debug build)
      kill(pid, SIGINT)
      let status = CLI.waitStatus(pid)
      let left = try fm.contentsOfDirectory(atPath: dir.path)
      #expect(!left.contains { $0.hasPrefix(".cellmotion-") }, "run \(i): \(left)")
      if fm.fileExists(atPath: out.path) {
        #expect(try String(contentsOf: out, encoding: .utf8).hasPrefix("frame,time,row,part,"))
        try fm.removeItem(at: out)
        outcomes["complete", default: 0] += 1
      } else {
        #expect(status.signal == SIGINT, "run \(i): no file, so it was interrupted: \(status)")
        outcomes["interrupted", default: 0] += 1
      }
    }
    print("interrupted simulate -o runs: \(outcomes)")
  }

  @Test("-o replaces a regular file, creates a new one with its directories, and says clearly what else is wrong")
  func regularFilesAndMessages() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let existing = dir.appendingPathComponent("old.csv")
    try "old\n".write(to: existing, atomically: true, encoding: .utf8)
    let r = try CLI.run(["simulate", "-o", existing.path])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try String(contentsOf: existing, encoding: .utf8).hasPrefix("frame,time,row,part,"))
    let nested = dir.appendingPathComponent("a/b/c.svg")
    #expect(try CLI.run(["curve", "-o", nested.path]).status == 0)
    #expect(fm.fileExists(atPath: nested.path))

    // A failure after the directories were made removes them again.
    let bad = dir.appendingPathComponent("bad.json")
    try "{}".write(to: bad, atomically: true, encoding: .utf8)
    let fresh = dir.appendingPathComponent("fresh/dir/x.csv")
    #expect(try CLI.run(["simulate", bad.path, "-o", fresh.path]).status == 1)
    #expect(!fm.fileExists(atPath: dir.appendingPathComponent("fresh").path))

    for args in [["simulate", "-o", ""], ["render", "-o", ""], ["curve", "--output", "", "--format", "csv"]] {
      expectRefused(try CLI.run(args, in: dir), ["--output must not be empty"])
    }
    expectRefused(try CLI.run(["simulate", "-o", dir.path + "/"]), ["names a directory"])
    expectRefused(try CLI.run(["curve", "-o", existing.path + "/x.svg"]), ["is not a directory"])
    expectRefused(try CLI.run(["render", "-o", existing.path]), [existing.path, "is not a directory"])
    #expect(try String(contentsOf: existing, encoding: .utf8).hasPrefix("frame,time,row,part,"), "untouched")
  }
}

@Suite("render writes all files or none")
struct RenderAllOrNothingTests {
  @Test("a destination that cannot be written: one line, and no file of the render at all")
  func partialRender() throws {
    let fm = FileManager.default
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    try fm.createDirectory(at: out.appendingPathComponent("x.html"), withIntermediateDirectories: true)
    let r = try CLI.run(["render", "--basename", "x", "-o", out.path])
    #expect(r.status == 1 && !r.signaled)
    #expect(r.errorLines.count == 1, "exactly one line: \(r.stderr)")
    #expect(r.stderr.hasPrefix("cellmotion: error: cannot write \(out.path)/x.html: it is a directory"))
    #expect(try fm.contentsOfDirectory(atPath: out.path) == ["x.html"], "no x.svg, no temporary file")

    // The same with the SVG's path taken by a symbolic link.
    try fm.removeItem(at: out.appendingPathComponent("x.html"))
    try fm.createSymbolicLink(atPath: out.appendingPathComponent("x.svg").path, withDestinationPath: "elsewhere.svg")
    let s = try CLI.run(["render", "--basename", "x", "-o", out.path])
    #expect(s.status == 1 && s.errorLines.count == 1, "\(s.stderr)")
    #expect(try fm.contentsOfDirectory(atPath: out.path) == ["x.svg"], "no x.html")
  }
}
