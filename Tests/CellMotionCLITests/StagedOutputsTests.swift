// StagedOutputs in-process: a rename that fails half-way through a multi-file output
// undoes the renames already done (the CLI module is imported @testable).

import Foundation
import Testing

@testable import CellMotionCLI
@testable import _CLISupport

@Suite("all-or-nothing outputs")
struct StagedOutputsTests {
  let fm = FileManager.default

  /// Runs a two-file output in `dir` whose `failing`th rename (1-based) fails with EXDEV.
  func failingRun(_ paths: [String], failing: Int) throws -> (any Error)? {
    let outputs = try StagedOutputs(paths)
    var calls = 0
    outputs.renameFile = { from, to in
      calls += 1
      if calls == failing {
        errno = EXDEV
        return -1
      }
      return rename(from, to)
    }
    do {
      try outputs.perform {
        for i in paths.indices { try outputs.writer(i).write("new \(i)\n") }
      }
    } catch {
      return error
    }
    return nil
  }

  @Test("the second rename fails: a replaced file gets its old contents back, a new file is removed")
  func rollBack() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let old = dir.appendingPathComponent("old.svg").path, fresh = dir.appendingPathComponent("fresh.html").path
    try "old contents\n".write(toFile: old, atomically: true, encoding: .utf8)

    // old.svg is replaced first, then fresh.html fails.
    let e1 = try #require(try failingRun([old, fresh], failing: 2) as? CLIError)
    #expect(e1.message == "cannot write \(fresh): \(describeErrno(EXDEV))")
    #expect(try String(contentsOfFile: old, encoding: .utf8) == "old contents\n")
    #expect(try fm.contentsOfDirectory(atPath: dir.path) == ["old.svg"], "no new, temporary or backup file")

    // fresh.html is created first, then replacing old.svg fails.
    #expect(try failingRun([fresh, old], failing: 2) != nil)
    #expect(try String(contentsOfFile: old, encoding: .utf8) == "old contents\n")
    #expect(try fm.contentsOfDirectory(atPath: dir.path) == ["old.svg"])

    // Directories made for the output go too.
    let deep = dir.appendingPathComponent("a/b").path
    #expect(try failingRun([deep + "/x.svg", deep + "/x.html"], failing: 2) != nil)
    #expect(try fm.contentsOfDirectory(atPath: dir.path) == ["old.svg"])

    // And without a failure both land, the replaced one with its new contents.
    #expect(try failingRun([old, fresh], failing: 0) == nil)
    #expect(try String(contentsOfFile: old, encoding: .utf8) == "new 0\n")
    #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "new 1\n")
    #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == ["fresh.html", "old.svg"])
  }
}
