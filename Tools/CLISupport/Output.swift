// Where output goes: stdout, or files named by `-o`, written all or nothing.
//
// Rules (Tools/docs/cli.md, "Output files"):
// - every write is checked (write(2) loops); a failure is one error line, never a trap;
// - `-o` creates a new file or replaces a regular file, nothing else: a directory, a
//   symbolic link (even one to a regular file), a device, a FIFO or a socket at the path is
//   refused before anything is computed or written (lstat(2), so links are not followed);
// - bytes go to a temporary file in the destination's directory, renamed over the
//   destination at the end; a multi-file output (render) renames only once every file is
//   complete, and if a rename fails the ones already done are undone (a replaced file is
//   restored from a hard link taken before the rename);
// - directories created for the output are removed again when the output fails.

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A buffered writer on a file descriptor; every failed write(2) throws.
package final class FDWriter {
  /// The file descriptor written to (not owned: the creator closes it).
  let fd: Int32
  /// How messages name the destination: "to standard output", or a path.
  let target: String
  private var buffer: [UInt8] = []
  /// Bytes collected before a write(2).
  static let capacity = 1 << 16

  init(fd: Int32, target: String) {
    self.fd = fd
    self.target = target
    buffer.reserveCapacity(Self.capacity)
  }

  /// Appends `text`, writing out whenever the buffer is full.
  /// - Throws: `CLIError` ("cannot write out.csv: No space left on device").
  package func write(_ text: String) throws(CLIError) {
    let count = text.utf8.count
    if buffer.count + count > Self.capacity {
      try flush()
      if count >= Self.capacity {
        if let code = Console.writeAll(fd, text) { throw failure(code) }
        return
      }
    }
    buffer.append(contentsOf: text.utf8)
  }

  /// Writes out whatever is buffered.
  func flush() throws(CLIError) {
    guard !buffer.isEmpty else { return }
    let code = buffer.withUnsafeBytes { Console.writeAll(fd, $0) }
    buffer.removeAll(keepingCapacity: true)
    if let code { throw failure(code) }
  }

  private func failure(_ code: Int32) -> CLIError { CLIError("cannot write \(target): \(describeErrno(code))") }
}

/// What exists at a path, without following a final symbolic link (lstat(2)).
package enum PathKind: Equatable {
  case missing
  case regular
  /// Anything else, named for messages ("a directory", "a symbolic link", ...).
  case other(String)

  /// Looks at `path`.
  /// - Throws: `CLIError` when lstat fails other than with ENOENT (a parent that is not a
  ///   directory, a path too long, no permission).
  static func of(_ path: String) throws(CLIError) -> PathKind {
    var info = stat()
    if lstat(path, &info) != 0 {
      let code = errno
      if code == ENOENT { return .missing }
      if code == ENOTDIR { throw CLIError("cannot write \(path): a component of its directory is not a directory") }
      throw CLIError("cannot write \(path): \(describeErrno(code))")
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regular
    case S_IFDIR: return .other("a directory")
    case S_IFLNK: return .other("a symbolic link")
    case S_IFCHR: return .other("a character device")
    case S_IFBLK: return .other("a block device")
    case S_IFIFO: return .other("a FIFO")
    case S_IFSOCK: return .other("a socket")
    default: return .other("not a regular file")
    }
  }
}

/// One or more output files, written all or nothing (see the rules at the top).
///
/// Use: `init` (checks every destination, writes nothing), then `perform { ... }` with
/// `writer(i)` inside; `perform` creates missing directories, and on success renames every
/// temporary file into place, on failure removes everything it created.
package final class StagedOutputs {
  private struct Entry {
    var path: String
    var directory: String
    var temp: String?
    var writer: FDWriter?
    var backup: String?
    /// Whether a regular file was at the path when it was renamed over.
    var existed = false
    var renamed = false
  }

  private var entries: [Entry]
  private var createdDirectories: [String] = []
  /// rename(2), replaceable so tests can make one rename fail.
  var renameFile: (String, String) -> Int32 = { rename($0, $1) }

  /// Checks every destination before anything is computed or written.
  ///
  /// - Parameter option: the flag the paths came from, for messages.
  /// - Throws: `CLIError` for an empty path, a path naming a directory (`x/`, `.`, `..`), or
  ///   anything but a regular file or nothing at a path.
  package init(_ paths: [String], option: String = "--output") throws(CLIError) {
    var entries: [Entry] = []
    for path in paths {
      guard !path.isEmpty else { throw CLIError("\(option) must not be empty") }
      let (directory, name) = Self.split(path)
      guard !name.isEmpty, name != ".", name != ".." else {
        throw CLIError("cannot write \(path): it names a directory; \(option) needs a file name")
      }
      try Self.checkReplaceable(path, option: option)
      entries.append(Entry(path: path, directory: directory))
    }
    self.entries = entries
  }

  /// Throws unless `path` is missing or a regular file.
  static func checkReplaceable(_ path: String, option: String) throws(CLIError) {
    if case .other(let kind) = try PathKind.of(path) {
      throw CLIError("cannot write \(path): it is \(kind); \(option) replaces only a regular file or creates a new one")
    }
  }

  /// The directory part ("." when there is none) and the last component of a path.
  static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let directory = String(path[..<slash])
    return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
  }

  /// The writer for the `index`th path (valid inside `perform`).
  package func writer(_ index: Int) throws(CLIError) -> FDWriter {
    if let w = entries[index].writer { return w }
    let e = entries[index]
    var temp = ""
    var fd: Int32 = -1, code: Int32 = 0
    for _ in 0..<8 {
      temp = "\(e.directory)/.cellmotion-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
      // Registered before it exists: a signal between creating and registering would
      // otherwise leave the file behind.
      TemporaryFiles.register(temp)
      fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
      if fd >= 0 { break }
      code = errno
      TemporaryFiles.unregister(temp)
      if code != EEXIST { break }
    }
    guard fd >= 0 else {
      throw CLIError("cannot write \(e.path): cannot create a temporary file in \(e.directory): \(describeErrno(code))")
    }
    let w = FDWriter(fd: fd, target: e.path)
    entries[index].temp = temp
    entries[index].writer = w
    return w
  }

  /// Creates missing directories, runs `body` (which writes through `writer(_:)`), then
  /// renames every file into place. On any failure, undoes everything and rethrows.
  package func perform(_ body: () throws -> Void) throws {
    do {
      for e in entries { try makeDirectories(e.directory) }
      try body()
      try commit()
    } catch {
      rollBack()
      throw error
    }
  }

  /// `mkdir -p`, remembering what it created.
  private func makeDirectories(_ directory: String) throws(CLIError) {
    var prefix = directory.hasPrefix("/") ? "/" : ""
    for component in directory.split(separator: "/", omittingEmptySubsequences: true) {
      prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
      if mkdir(prefix, 0o777) == 0 {
        createdDirectories.append(prefix)
        continue
      }
      let code = errno
      var info = stat()
      if code == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
      let reason = code == EEXIST ? "a file that is not a directory is in the way" : describeErrno(code)
      throw CLIError("cannot create directory \(prefix): \(reason)")
    }
  }

  /// Flushes and closes every file, then renames them into place.
  private func commit() throws(CLIError) {
    for i in entries.indices {
      let w = try writer(i)  // a file nobody wrote to is committed empty
      try w.flush()
      let fd = w.fd
      entries[i].writer = nil
      if close(fd) != 0 { throw CLIError("cannot write \(entries[i].path): \(describeErrno(errno))") }
    }
    for i in entries.indices {
      let path = entries[i].path
      // Checked again: something may have appeared at the path while we computed.
      let kind = try PathKind.of(path)
      if case .other(let what) = kind {
        throw CLIError("cannot write \(path): it is \(what); --output replaces only a regular file or creates a new one")
      }
      entries[i].existed = kind == .regular
      if kind == .regular {
        let backup = "\(entries[i].directory)/.cellmotion-\(getpid())-\(i)-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).old"
        TemporaryFiles.register(backup)  // before it exists, as the temporary file
        if link(path, backup) == 0 {
          entries[i].backup = backup
        } else {
          TemporaryFiles.unregister(backup)
        }
      }
      guard let temp = entries[i].temp else { continue }
      if renameFile(temp, path) != 0 { throw CLIError("cannot write \(path): \(describeErrno(errno))") }
      TemporaryFiles.unregister(temp)
      entries[i].temp = nil
      entries[i].renamed = true
    }
    for i in entries.indices {
      if let backup = entries[i].backup {
        unlink(backup)
        TemporaryFiles.unregister(backup)
      }
    }
  }

  /// Undoes a failed `perform`: renamed files are restored (or removed when they are new),
  /// temporary files and created directories removed.
  private func rollBack() {
    for i in entries.indices.reversed() {
      if let w = entries[i].writer {
        close(w.fd)
        entries[i].writer = nil
      }
      if entries[i].renamed {
        if let backup = entries[i].backup {
          _ = renameFile(backup, entries[i].path)
        } else if !entries[i].existed {
          unlink(entries[i].path)
        }
        // (A replaced file without a backup, when link(2) failed, keeps its new,
        // complete contents: removing it would lose both versions.)
      }
      for file in [entries[i].temp, entries[i].backup].compactMap({ $0 }) {
        unlink(file)
        TemporaryFiles.unregister(file)
      }
      entries[i].temp = nil
      entries[i].backup = nil
      entries[i].renamed = false
    }
    for directory in createdDirectories.reversed() { rmdir(directory) }
    createdDirectories = []
  }
}

/// Where a single-output command writes: stdout (`-o` absent or `-`) or a file.
package enum Destination {
  case stdout
  case file(StagedOutputs)

  /// Checks `path` up front (see `StagedOutputs.init`).
  package init(_ path: String?) throws(CLIError) {
    if let path, path != "-" { self = .file(try StagedOutputs([path])) } else { self = .stdout }
  }

  /// Writes through `body`'s writer: straight to stdout, or all or nothing to the file.
  package func write(_ body: (FDWriter) throws -> Void) throws {
    switch self {
    case .stdout:
      let w = FDWriter(fd: Console.streams.output, target: "to standard output")
      try body(w)
      try w.flush()
    case .file(let outputs):
      try outputs.perform { try body(try outputs.writer(0)) }
    }
  }

  /// Writes `text`.
  package func write(_ text: String) throws { try write { try $0.write(text) } }
}

/// Temporary and backup files that exist right now, removed by a SIGINT, SIGTERM or SIGHUP
/// handler so an interrupted run (a long `simulate -o`) leaves nothing behind.
///
/// The handler may only call async-signal-safe functions, so the paths live in a fixed
/// table of C strings that the handler reads without locks; registering and forgetting
/// take a lock (tests run commands on several threads of one process).
package enum TemporaryFiles {
  private static let lock = NSLock()
  private static let slots = 16
  nonisolated(unsafe) private static let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let t = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
    t.initialize(repeating: nil, count: slots)
    return t
  }()
  nonisolated(unsafe) private static var installed = false

  /// Remembers `path` for removal on a signal.
  static func register(_ path: String) {
    lock.withLock {
      installHandlers()
      for i in 0..<slots where table[i] == nil {
        table[i] = strdup(path)
        return
      }
    }
  }

  /// Forgets `path` (renamed into place or removed).
  static func unregister(_ path: String) {
    lock.withLock {
      for i in 0..<slots {
        if let p = table[i], String(cString: p) == path {
          table[i] = nil
          free(p)
        }
      }
    }
  }

  /// Installs the handler for each signal the process does not ignore (a signal ignored
  /// at start, as `nohup` does for SIGHUP, stays ignored).
  private static func installHandlers() {
    guard !installed else { return }
    installed = true
    for sig in [SIGINT, SIGTERM, SIGHUP] {
      let previous = signal(sig) { sig in
        for i in 0..<TemporaryFiles.slots {
          if let p = TemporaryFiles.table[i] { unlink(p) }
        }
        signal(sig, SIG_DFL)
        raise(sig)
      }
      if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
        signal(sig, SIG_IGN)
      }
    }
  }
}
