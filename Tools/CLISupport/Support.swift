// Shared plumbing: the CLI's error type, stdout/stderr writes (files: Output.swift), a
// progress bar on stderr, and compact number formatting for SVG, HTML, CSV and JSON.

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A user-facing failure of the CLI (bad input, I/O); printed as one line.
package struct CLIError: Error, CustomStringConvertible {
  /// The message, without the `cellmotion: error:` prefix.
  package var message: String
  package init(_ message: String) { self.message = message }
  package var description: String { message }
}

/// Writes to the standard streams with write(2): no buffering surprises, and every failure
/// on stdout is reported (FileHandle.write(_: Data) traps on a failed write instead).
package enum Console {
  /// The descriptors a command writes its standard output and error to.
  struct Streams: Sendable {
    var output: Int32
    var error: Int32
  }

  /// The process's stdout and stderr, unless a caller (a test running a command
  /// in-process) binds others for the duration of a call:
  /// `Console.$streams.withValue(Streams(output: fd1, error: fd2)) { ... }`.
  @TaskLocal static var streams = Streams(output: STDOUT_FILENO, error: STDERR_FILENO)

  /// Writes all of `text` to stdout.
  ///
  /// - Throws: `CLIError` ("cannot write to standard output: No space left on device").
  package static func write(_ text: String) throws(CLIError) {
    if let code = writeAll(streams.output, text) {
      throw CLIError("cannot write to standard output: \(describeErrno(code))")
    }
  }

  /// Writes `text` to stderr. Best effort: if stderr itself fails there is nowhere left
  /// to report it, and the exit code still says what happened.
  package static func writeError(_ text: String) {
    _ = writeAll(streams.error, text)
  }

  /// Whether stderr is a terminal.
  static var stderrIsTTY: Bool { isatty(streams.error) != 0 }

  /// Writes all of `text` to `fd`, retrying short writes and EINTR.
  /// - Returns: nil on success, else the errno of the failed write(2).
  static func writeAll(_ fd: Int32, _ text: String) -> Int32? {
    var text = text
    return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
  }

  /// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
  /// - Returns: nil on success, else the errno of the failed write(2).
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var offset = 0
    while offset < bytes.count, let base = bytes.baseAddress {
      #if canImport(Glibc)
        let n = Glibc.write(fd, base + offset, bytes.count - offset)
      #else
        let n = Darwin.write(fd, base + offset, bytes.count - offset)
      #endif
      if n < 0 {
        if errno == EINTR { continue }
        return errno
      }
      if n == 0 { return EIO }
      offset += n
    }
    return nil
  }
}

/// strerror(3) text for an errno value ("No space left on device").
package func describeErrno(_ code: Int32) -> String { String(cString: strerror(code)) }

/// A one-line progress bar on stderr (`\r`-redrawn), shown only when enabled (stderr is
/// a terminal, or `--progress`); it never touches stdout.
package struct ProgressBar {
  let label: String
  let total: Int
  let enabled: Bool
  private var lastDrawn = -1

  /// - Parameters:
  ///   - force: draw even when stderr is not a terminal (`--progress`).
  package init(_ label: String, total: Int, force: Bool) {
    self.label = label
    self.total = max(total, 1)
    self.enabled = force || Console.stderrIsTTY
  }

  /// Redraws when the shown percentage changes.
  package mutating func update(_ done: Int) {
    guard enabled else { return }
    let percent = min(100, done * 100 / total)
    guard percent != lastDrawn else { return }
    lastDrawn = percent
    let width = 30
    let filled = percent * width / 100
    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
    Console.writeError("\r\(label) [\(bar)] \(percent)% (\(min(done, total))/\(total))")
  }

  /// Ends the bar's line.
  package mutating func finish() {
    guard enabled else { return }
    update(total)
    Console.writeError("\n")
  }
}

/// Compact decimal text for numbers: up to `digits` significant digits, no exponent
/// surprises for the magnitudes used here, "-0" written as "0".
@inlinable @inline(__always)
package func num(_ x: Double, _ digits: Int = 6) -> String {
  guard x.isFinite else { return x.isNaN ? "NaN" : (x > 0 ? "Infinity" : "-Infinity") }
  if x == 0 { return "0" }
  if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
  return String(format: "%.\(digits)g", x)
}

/// `num` for Float values (kernel output).
@inlinable @inline(__always)
package func num(_ x: Float, _ digits: Int = 6) -> String { num(Double(x), digits) }

/// `num` for JSON (JSON Lines, the HTML player's data): `null` for NaN and infinities,
/// which JSON has no tokens for.
@inlinable @inline(__always)
package func jsonNum(_ x: Double, _ digits: Int = 6) -> String { x.isFinite ? num(x, digits) : "null" }

/// `jsonNum` for Float values (kernel output).
@inlinable @inline(__always)
package func jsonNum(_ x: Float, _ digits: Int = 6) -> String { jsonNum(Double(x), digits) }

/// Escapes text for XML/HTML content and attribute values. Characters XML 1.0 does not
/// allow at all, even as references (C0 controls other than tab, line feed and carriage
/// return; U+FFFE and U+FFFF), and the ones HTML reports as errors (DEL, C1 controls) are
/// replaced with U+FFFD, so any recipe name gives a well-formed document.
package func xmlEscape(_ s: String) -> String {
  var out = String.UnicodeScalarView()
  for scalar in s.unicodeScalars {
    switch scalar {
    case "&": out.append(contentsOf: "&amp;".unicodeScalars)
    case "<": out.append(contentsOf: "&lt;".unicodeScalars)
    case ">": out.append(contentsOf: "&gt;".unicodeScalars)
    case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
    case "'": out.append(contentsOf: "&apos;".unicodeScalars)
    case "\t", "\n", "\r": out.append(scalar)
    default:
      let v = scalar.value
      let forbidden = v < 0x20 || (0x7F...0x9F).contains(v) || v == 0xFFFE || v == 0xFFFF
      out.append(forbidden ? "\u{FFFD}" : scalar)
    }
  }
  return String(out)
}
