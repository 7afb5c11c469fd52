// Runs the built `cellmotion` executable as a child process.
//
// Locating it: `swift test` builds every product into the same directory as the test
// bundle (`<scratch>/debug/`, a symlink to `<scratch>/<triple>/debug/`), whatever
// --scratch-path says, so the first candidates are next to the running test executable
// (Bundle.main, argv[0], /proc/self/exe; on macOS the .xctest bundle's parent). As a
// fallback, the package root is found by walking up from #filePath and `.build*/debug`
// directories are searched. `CELLMOTION_CLI` overrides everything.

import Foundation
import Testing

enum CLI {
  /// The executable's file name.
  static let name = "cellmotion"

  /// Candidate paths, most likely first, for a test process at `testExecutable` whose
  /// source file is `sourceFile`.
  static func candidates(testExecutable: [URL], sourceFile: String, environment: [String: String]) -> [URL] {
    var out: [URL] = []
    if let override = environment["CELLMOTION_CLI"] { out.append(URL(fileURLWithPath: override)) }
    for exe in testExecutable {
      var dir = exe.deletingLastPathComponent()
      // Walk up out of a bundle (macOS: X.xctest/Contents/MacOS/X).
      for _ in 0..<4 {
        out.append(dir.appendingPathComponent(name))
        dir = dir.deletingLastPathComponent()
      }
    }
    // Fallback: <package root>/.build*/debug/cellmotion, root found from this file.
    var root = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
    while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
      root = root.deletingLastPathComponent()
    }
    let scratch = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
      .filter { $0.hasPrefix(".build") }.sorted()
    for dir in scratch {
      for config in ["debug", "release"] {
        out.append(root.appendingPathComponent(dir).appendingPathComponent(config).appendingPathComponent(name))
      }
    }
    return out
  }

  /// The test process's own executable paths.
  static var testExecutables: [URL] {
    var out: [URL] = []
    if let u = Bundle.main.executableURL { out.append(u) }
    out.append(Bundle.main.bundleURL.appendingPathComponent("x"))
    if let arg0 = CommandLine.arguments.first { out.append(URL(fileURLWithPath: arg0)) }
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      out.append(URL(fileURLWithPath: exe))
    }
    return out
  }

  /// The executable; fails the calling test when none is found.
  static let executable: URL? = candidates(
    testExecutable: testExecutables, sourceFile: #filePath, environment: ProcessInfo.processInfo.environment
  ).first { FileManager.default.isExecutableFile(atPath: $0.path) }

  /// The result of one run.
  struct Result {
    /// The exit code, or the signal number when `signaled`.
    var status: Int32
    /// Whether the process died of a signal (a trap, SIGSEGV, ...).
    var signaled = false
    var stdout: Data
    var stderr: String
    var out: String { String(decoding: stdout, as: UTF8.self) }
    /// Non-empty stderr lines.
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
  }

  /// Runs `cellmotion args` in `directory`; stdout and stderr go through temporary files
  /// (no pipe-buffer deadlocks on large outputs). `stdout`, if given, replaces the
  /// temporary stdout file (e.g. /dev/full); `Result.stdout` is then empty.
  static func run(_ args: [String], in directory: URL? = nil, stdout: FileHandle? = nil) throws -> Result {
    let exe = try #require(executable, "cellmotion executable not found; build it with `swift build`")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-io-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
    #expect(FileManager.default.createFile(atPath: outURL.path, contents: nil))
    #expect(FileManager.default.createFile(atPath: errURL.path, contents: nil))
    let outHandle = try FileHandle(forWritingTo: outURL), errHandle = try FileHandle(forWritingTo: errURL)
    let p = Process()
    p.executableURL = exe
    p.arguments = args
    if let directory { p.currentDirectoryURL = directory }
    p.standardOutput = stdout ?? outHandle
    p.standardError = errHandle
    try p.run()
    p.waitUntilExit()
    try outHandle.close()
    try errHandle.close()
    return Result(
      status: p.terminationStatus, signaled: p.terminationReason == .uncaughtSignal, stdout: try Data(contentsOf: outURL),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
  }

  /// A fresh empty directory for one test.
  static func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cellmotion-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }
}
