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

@testable import CellMotionCLI
@testable import _CLISupport

#if canImport(Glibc)
  import Glibc
#endif

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
    /// Whether it was killed for running longer than the `timeout` given to `run`.
    var timedOut = false
    var stdout: Data
    var stderr: String
    var out: String { String(decoding: stdout, as: UTF8.self) }
    /// Non-empty stderr lines.
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }
  }

  /// Runs `cellmotion args`. In this process (`CellMotionCommand.execute`, with stdout
  /// and stderr bound to temporary files) unless the run needs a process of its own: a
  /// working directory, a replaced stdout, stdin or a timeout; those go to `runProcess`.
  /// Either way the exit code, stdout, stderr and files written are what the executable
  /// gives (the end-to-end suites run it as a process).
  static func run(
    _ args: [String], in directory: URL? = nil, stdout: FileHandle? = nil, stdin: String? = nil,
    timeout: TimeInterval? = nil
  ) throws -> Result {
    if directory == nil, stdout == nil, stdin == nil, timeout == nil { return try runInProcess(args) }
    return try runProcess(args, in: directory, stdout: stdout, stdin: stdin, timeout: timeout)
  }

  /// Runs `cellmotion args` in this process: `CellMotionCommand.execute` with
  /// `Console.streams` bound to two temporary files, and help text wrapped at 80 columns
  /// (a process whose stdout is a file wraps there too).
  static func runInProcess(_ args: [String]) throws -> Result {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-io-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
    let out = open(outURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let err = open(errURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    defer {
      if out >= 0 { close(out) }
      if err >= 0 { close(err) }
    }
    try #require(out >= 0 && err >= 0, "cannot open the output files in \(scratch.path)")
    let status = Console.$streams.withValue(Console.Streams(output: out, error: err)) {
      CellMotionCommand.execute(args, columns: 80)
    }
    return Result(
      status: status, stdout: try Data(contentsOf: outURL),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
  }

  /// Runs `cellmotion args` as a child process in `directory`; stdout and stderr go
  /// through temporary files (no pipe-buffer deadlocks on large outputs). `stdout`, if
  /// given, replaces the temporary stdout file (e.g. /dev/full); `Result.stdout` is then
  /// empty. A process still running after `timeout` seconds is killed (SIGKILL) and
  /// reported `timedOut`.
  static func runProcess(
    _ args: [String], in directory: URL? = nil, stdout: FileHandle? = nil, stdin: String? = nil,
    timeout: TimeInterval? = nil
  ) throws -> Result {
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
    if let stdin {
      let inURL = scratch.appendingPathComponent("stdin")
      try stdin.write(to: inURL, atomically: true, encoding: .utf8)
      p.standardInput = try FileHandle(forReadingFrom: inURL)
    }
    try p.run()
    var timedOut = false
    if let timeout {
      let deadline = Date().addingTimeInterval(timeout)
      while p.isRunning {
        if Date() > deadline {
          kill(p.processIdentifier, SIGKILL)
          timedOut = true
          break
        }
        usleep(10_000)
      }
    }
    p.waitUntilExit()
    try outHandle.close()
    try errHandle.close()
    return Result(
      status: p.terminationStatus, signaled: p.terminationReason == .uncaughtSignal, timedOut: timedOut,
      stdout: try Data(contentsOf: outURL),
      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
  }

  /// Runs `cellmotion args` with stdout and stderr sent to `/dev/null`-like files in a
  /// scratch directory and returns its exit status and peak resident set size in KiB: the
  /// highest `VmHWM` of `/proc/<pid>/status` read every 2 ms while it runs (the peak of its
  /// own memory since its exec, which only grows, so the last read is within 2 ms of its
  /// end). Not wait4(2)'s `ru_maxrss`: on Linux that keeps the spawning process's resident
  /// size at the exec (posix_spawn's child starts in the parent's memory), here the test
  /// runner's ~3 GB, so two runs differed by whatever the other tests allocated between them.
  static func peakRSS(_ args: [String], in directory: URL) throws -> (status: Int32, kib: Int) {
    let exe = try #require(executable, "cellmotion executable not found; build it with `swift build`")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, directory.appendingPathComponent("peak.stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, directory.appendingPathComponent("peak.stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    defer {
      try? FileManager.default.removeItem(at: directory.appendingPathComponent("peak.stdout"))
      try? FileManager.default.removeItem(at: directory.appendingPathComponent("peak.stderr"))
    }
    let argv = ([exe.path] + args).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, exe.path, &actions, nil, argv, environ)
    try #require(spawned == 0, "posix_spawn failed: \(spawned)")
    var status: Int32 = 0
    var peak = 0
    while true {
      if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
      {
        peak = max(peak, kib)
      }
      let r = waitpid(pid, &status, WNOHANG)
      if r == pid || (r < 0 && errno != EINTR) { break }
      usleep(2_000)
    }
    // WIFEXITED / WEXITSTATUS, spelled out (the C macros are not imported).
    let exited = status & 0x7F == 0
    return (exited ? (status >> 8) & 0xFF : -(status & 0x7F), peak)
  }

  /// Starts `cellmotion args` with stdout and stderr on /dev/null and a clean signal state
  /// (no blocked signals, default dispositions: the test runner's threads block most
  /// signals, and Foundation's Process passes that mask on). Wait with `waitStatus`.
  /// - Parameter launcher: a program that runs the command line it is given (`nohup`).
  static func spawn(_ args: [String], launcher: String? = nil) throws -> pid_t {
    let cellmotion = try #require(executable, "cellmotion executable not found; build it with `swift build`")
    let exe = launcher.map { URL(fileURLWithPath: $0) } ?? cellmotion
    let args = launcher == nil ? args : [cellmotion.path] + args
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([exe.path] + args).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, exe.path, &actions, &attributes, argv, environ)
    try #require(spawned == 0, "posix_spawn failed: \(spawned)")
    return pid
  }

  /// Waits for `pid`: (exit code, nil) or (nil, signal number).
  static func waitStatus(_ pid: pid_t) -> (exit: Int32?, signal: Int32?) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7F == 0 ? ((status >> 8) & 0xFF, nil) : (nil, status & 0x7F)
  }

  /// A fresh empty directory for one test.
  static func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cellmotion-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }
}
