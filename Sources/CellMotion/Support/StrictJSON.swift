// A strict JSON reader (RFC 8259) and a writer, for recipe files and JSON output.
//
// JSONSerialization is lenient where a recipe file must not be: it keeps one of two
// duplicate keys ("duration": -1, "duration": 1.4 passes), accepts trailing commas, and
// reports errors as Foundation errors. This reader accepts exactly RFC 8259's grammar,
// with these rules on top:
// - no duplicate keys in an object (the error names the key's JSON path);
// - numbers are read as Double; one that overflows to infinity is an error (NaN and
//   Infinity are not JSON tokens anyway);
// - strings must be valid UTF-8 and may not contain unpaired surrogate escapes;
// - at most `maximumDepth` nested arrays and objects, at most `maximumSize` bytes;
// - a leading UTF-8 byte order mark is skipped (RFC 8259 allows ignoring it).
// Errors give a 1-based line and column (columns count Unicode scalars).
//
// The writer never produces a non-finite number: NaN and infinities are written as null.

import Foundation

/// A parsed JSON value. Objects are dictionaries: the reader has already refused
/// duplicate keys, and the writer sorts keys.
package enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])
}

/// The strict reader and the writer.
package enum StrictJSON {
  /// Deepest nesting of arrays and objects accepted.
  package static let maximumDepth = 64
  /// Largest input accepted, bytes (1 MiB).
  package static let maximumSize = 1 << 20

  /// Why and where a text is not accepted.
  package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line.
    package var line: Int
    /// 1-based column, in Unicode scalars.
    package var column: Int
    /// What is wrong, e.g. `duplicate key "duration" at channels[0].duration`.
    package var reason: String
    package var description: String { "\(reason) at line \(line), column \(column)" }
  }

  /// Parses `data` as one JSON value.
  /// - Throws: `Failure` for anything RFC 8259 or the rules above do not accept.
  package static func parse(_ data: Data) throws(Failure) -> JSONValue {
    try parse([UInt8](data.prefix(maximumSize + 1)), totalSize: data.count)
  }

  /// Parses `bytes` as one JSON value.
  /// - Throws: `Failure` for anything RFC 8259 or the rules above do not accept.
  package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
    try parse(bytes, totalSize: bytes.count)
  }

  private static func parse(_ bytes: [UInt8], totalSize: Int) throws(Failure) -> JSONValue {
    var parser = Parser(bytes: bytes)
    if totalSize > maximumSize {
      throw parser.failure(at: maximumSize, "the text is larger than \(maximumSize) bytes (1 MiB): \(totalSize) bytes")
    }
    return try parser.document()
  }

  // MARK: - Writing

  /// `value` as JSON text: keys sorted, non-finite numbers as `null`; `pretty` indents by
  /// two spaces, one member or element per line.
  package static func serialize(_ value: JSONValue, pretty: Bool = false) -> String {
    var out = ""
    write(value, pretty: pretty, indent: "", to: &out)
    return out
  }

  /// A number as JSON: integers below 2^53 without a fraction, others in Swift's shortest
  /// round-trip form (`0.1`, `1e-05`, `1e+300`); NaN and infinities as `null`.
  package static func number(_ x: Double) -> String {
    guard x.isFinite else { return "null" }
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { return String(Int64(x)) }
    return x.description
  }

  /// A string literal: quotes, backslashes and C0 controls escaped, and U+2028/U+2029 too
  /// (so the text can be embedded in JavaScript).
  package static func string(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{8}": out += "\\b"
      case "\u{C}": out += "\\f"
      default:
        if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }

  private static func write(_ value: JSONValue, pretty: Bool, indent: String, to out: inout String) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let x): out += number(x)
    case .string(let s): out += string(s)
    case .array(let items):
      guard !items.isEmpty else {
        out += "[]"
        return
      }
      let inner = indent + "  "
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        if pretty { out += "\n" + inner }
        write(item, pretty: pretty, indent: inner, to: &out)
      }
      out += pretty ? "\n" + indent + "]" : "]"
    case .object(let members):
      guard !members.isEmpty else {
        out += "{}"
        return
      }
      let inner = indent + "  "
      out += "{"
      for (i, key) in members.keys.sorted().enumerated() {
        if i > 0 { out += "," }
        if pretty { out += "\n" + inner }
        out += string(key) + (pretty ? ": " : ":")
        write(members[key] ?? .null, pretty: pretty, indent: inner, to: &out)
      }
      out += pretty ? "\n" + indent + "}" : "}"
    }
  }
}

// MARK: - Reading

/// A recursive-descent reader over UTF-8 bytes. Recursion is bounded by `maximumDepth`.
private struct Parser {
  let bytes: [UInt8]
  var i = 0
  /// The JSON path of the value being read (for duplicate-key messages).
  var path: [PathStep] = []

  enum PathStep {
    case key(String)
    case index(Int)
  }

  init(bytes: [UInt8]) {
    self.bytes = bytes
    // A UTF-8 byte order mark may be ignored (RFC 8259 section 8.1).
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
  }

  /// The whole text: one value, surrounded by whitespace only.
  mutating func document() throws(StrictJSON.Failure) -> JSONValue {
    skipWhitespace()
    guard i < bytes.count else { throw failure(at: i, "expected a JSON value, found the end of the text") }
    let value = try self.value(depth: 0)
    skipWhitespace()
    guard i == bytes.count else { throw failure(at: i, "unexpected \(describe(at: i)) after the JSON value") }
    return value
  }

  mutating func value(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
    guard i < bytes.count else { throw failure(at: i, "expected a value, found the end of the text") }
    switch bytes[i] {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    case UInt8(ascii: "N"), UInt8(ascii: "I"):
      throw failure(at: i, "NaN and Infinity are not JSON numbers")
    default:
      throw failure(at: i, "expected a value, found \(describe(at: i))")
    }
  }

  mutating func object(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
    guard depth <= StrictJSON.maximumDepth else {
      throw failure(at: i, "arrays and objects are nested deeper than \(StrictJSON.maximumDepth) levels")
    }
    i += 1  // {
    var members: [String: JSONValue] = [:]
    skipWhitespace()
    if peek(is: "}") {
      i += 1
      return .object(members)
    }
    while true {
      guard peek(is: "\"") else {
        throw failure(at: i, "expected a key (a string in double quotes), found \(describe(at: i))")
      }
      let keyStart = i
      let key = try string()
      skipWhitespace()
      guard peek(is: ":") else { throw failure(at: i, "expected ':' after the key, found \(describe(at: i))") }
      i += 1
      skipWhitespace()
      path.append(.key(key))
      if members[key] != nil {
        throw failure(at: keyStart, "duplicate key \"\(key)\" at \(pathText())")
      }
      members[key] = try value(depth: depth)
      path.removeLast()
      skipWhitespace()
      if peek(is: ",") {
        let comma = i
        i += 1
        skipWhitespace()
        if peek(is: "}") { throw failure(at: comma, "trailing comma before '}'") }
        continue
      }
      if peek(is: "}") {
        i += 1
        return .object(members)
      }
      throw failure(at: i, "expected ',' or '}' in an object, found \(describe(at: i))")
    }
  }

  mutating func array(depth: Int) throws(StrictJSON.Failure) -> JSONValue {
    guard depth <= StrictJSON.maximumDepth else {
      throw failure(at: i, "arrays and objects are nested deeper than \(StrictJSON.maximumDepth) levels")
    }
    i += 1  // [
    var items: [JSONValue] = []
    skipWhitespace()
    if peek(is: "]") {
      i += 1
      return .array(items)
    }
    while true {
      path.append(.index(items.count))
      items.append(try value(depth: depth))
      path.removeLast()
      skipWhitespace()
      if peek(is: ",") {
        let comma = i
        i += 1
        skipWhitespace()
        if peek(is: "]") { throw failure(at: comma, "trailing comma before ']'") }
        continue
      }
      if peek(is: "]") {
        i += 1
        return .array(items)
      }
      throw failure(at: i, "expected ',' or ']' in an array, found \(describe(at: i))")
    }
  }

  mutating func literal(_ word: String, _ value: JSONValue) throws(StrictJSON.Failure) -> JSONValue {
    let w = Array(word.utf8)
    guard bytes.count - i >= w.count, Array(bytes[i..<(i + w.count)]) == w else {
      throw failure(at: i, "expected a value, found \(describe(at: i))")
    }
    i += w.count
    return value
  }

  /// number = [ "-" ] int [ frac ] [ exp ], read as the nearest Double.
  mutating func number() throws(StrictJSON.Failure) -> Double {
    let start = i
    if peek(is: "-") {
      i += 1
      if peek(is: "I") { throw failure(at: start, "NaN and Infinity are not JSON numbers") }
    }
    if peek(is: "0") {
      i += 1
      if i < bytes.count, isDigit(bytes[i]) { throw failure(at: start, "a number may not have a leading zero") }
    } else {
      guard i < bytes.count, isDigit(bytes[i]) else { throw failure(at: i, "expected a digit, found \(describe(at: i))") }
      skipDigits()
    }
    if peek(is: ".") {
      i += 1
      guard i < bytes.count, isDigit(bytes[i]) else {
        throw failure(at: i, "expected a digit after the decimal point, found \(describe(at: i))")
      }
      skipDigits()
    }
    if peek(is: "e") || peek(is: "E") {
      i += 1
      if peek(is: "+") || peek(is: "-") { i += 1 }
      guard i < bytes.count, isDigit(bytes[i]) else {
        throw failure(at: i, "expected a digit in the exponent, found \(describe(at: i))")
      }
      skipDigits()
    }
    let text = String(decoding: bytes[start..<i], as: UTF8.self)
    guard let x = Double(text), x.isFinite else {
      let shown = text.count > 40 ? String(text.prefix(37)) + "..." : text
      throw failure(at: start, "the number \(shown) is too large for a 64-bit float")
    }
    return x
  }

  /// A string literal, escapes resolved, UTF-8 checked.
  mutating func string() throws(StrictJSON.Failure) -> String {
    i += 1  // "
    var out = String.UnicodeScalarView()
    while true {
      guard i < bytes.count else { throw failure(at: i, "unterminated string") }
      let b = bytes[i]
      switch b {
      case UInt8(ascii: "\""):
        i += 1
        return String(out)
      case UInt8(ascii: "\\"):
        out.append(try escape())
      case 0..<0x20:
        throw failure(at: i, "a control character (U+\(hex4(UInt32(b)))) in a string must be escaped")
      case 0..<0x80:
        out.append(Unicode.Scalar(b))
        i += 1
      default:
        out.append(try utf8Scalar())
      }
    }
  }

  /// One escape sequence after a backslash; \u escapes may form a surrogate pair.
  mutating func escape() throws(StrictJSON.Failure) -> Unicode.Scalar {
    let start = i
    i += 1  // backslash
    guard i < bytes.count else { throw failure(at: i, "unterminated string") }
    let c = bytes[i]
    i += 1
    switch c {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{8}"
    case UInt8(ascii: "f"): return "\u{C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let first = try hexQuad()
      if (0xDC00...0xDFFF).contains(first) { throw failure(at: start, "unpaired surrogate \\u\(hex4(first))") }
      if (0xD800...0xDBFF).contains(first) {
        guard peek(is: "\\"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "u") else {
          throw failure(at: start, "unpaired surrogate \\u\(hex4(first))")
        }
        i += 2
        let second = try hexQuad()
        guard (0xDC00...0xDFFF).contains(second) else { throw failure(at: start, "unpaired surrogate \\u\(hex4(first))") }
        let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        guard let scalar = Unicode.Scalar(value) else { throw failure(at: start, "invalid escape") }
        return scalar
      }
      guard let scalar = Unicode.Scalar(first) else { throw failure(at: start, "invalid escape") }
      return scalar
    default:
      throw failure(at: start, "invalid escape \\\(describeByte(c))")
    }
  }

  /// Four hex digits.
  mutating func hexQuad() throws(StrictJSON.Failure) -> UInt32 {
    var v: UInt32 = 0
    for _ in 0..<4 {
      guard i < bytes.count else { throw failure(at: i, "expected four hex digits after \\u") }
      let b = bytes[i]
      let d: UInt32
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
      default: throw failure(at: i, "expected four hex digits after \\u, found \(describe(at: i))")
      }
      v = v << 4 | d
      i += 1
    }
    return v
  }

  /// One multi-byte UTF-8 sequence: no overlong forms, no surrogates, nothing above U+10FFFF.
  mutating func utf8Scalar() throws(StrictJSON.Failure) -> Unicode.Scalar {
    let start = i
    let b0 = UInt32(bytes[i])
    let count: Int
    var value: UInt32
    let minimum: UInt32
    switch b0 {
    case 0xC2...0xDF: (count, value, minimum) = (2, b0 & 0x1F, 0x80)
    case 0xE0...0xEF: (count, value, minimum) = (3, b0 & 0x0F, 0x800)
    case 0xF0...0xF4: (count, value, minimum) = (4, b0 & 0x07, 0x10000)
    default: throw failure(at: start, "invalid UTF-8 (byte 0x\(String(b0, radix: 16)))")
    }
    guard bytes.count - i >= count else { throw failure(at: start, "invalid UTF-8 (truncated sequence)") }
    for k in 1..<count {
      let b = UInt32(bytes[i + k])
      guard b & 0xC0 == 0x80 else { throw failure(at: start, "invalid UTF-8 (bad continuation byte)") }
      value = value << 6 | (b & 0x3F)
    }
    guard value >= minimum, let scalar = Unicode.Scalar(value) else {
      throw failure(at: start, "invalid UTF-8 (overlong form, surrogate or out of range)")
    }
    i += count
    return scalar
  }

  // MARK: Helpers

  func peek(is c: Unicode.Scalar) -> Bool { i < bytes.count && bytes[i] == UInt8(ascii: c) }

  func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

  mutating func skipDigits() {
    while i < bytes.count, isDigit(bytes[i]) { i += 1 }
  }

  mutating func skipWhitespace() {
    while i < bytes.count {
      switch bytes[i] {
      case 0x20, 0x09, 0x0A, 0x0D: i += 1
      default: return
      }
    }
  }

  func hex4(_ v: UInt32) -> String {
    let h = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - h.count)) + h
  }

  /// How a byte is named in messages: 'x' for printable ASCII, else U+XXXX / 0xXX.
  func describeByte(_ b: UInt8) -> String {
    if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
    return b < 0x80 ? "U+\(hex4(UInt32(b)))" : "byte 0x\(String(b, radix: 16, uppercase: true))"
  }

  func describe(at offset: Int) -> String {
    offset < bytes.count ? describeByte(bytes[offset]) : "the end of the text"
  }

  /// `channels[0].duration` for the current path.
  func pathText() -> String {
    var out = ""
    for step in path {
      switch step {
      case .key(let k): out += out.isEmpty ? k : ".\(k)"
      case .index(let n): out += "[\(n)]"
      }
    }
    return out.isEmpty ? "(top level)" : out
  }

  /// A failure at byte `offset`, with its line and column.
  func failure(at offset: Int, _ reason: String) -> StrictJSON.Failure {
    var line = 1, column = 1
    let begin = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? min(3, offset) : 0
    for b in bytes[begin..<min(offset, bytes.count)] {
      if b == 0x0A {
        line += 1
        column = 1
      } else if b & 0xC0 != 0x80 {
        column += 1
      }
    }
    return StrictJSON.Failure(line: line, column: column, reason: reason)
  }
}
