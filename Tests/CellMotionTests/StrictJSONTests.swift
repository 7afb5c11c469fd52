// StrictJSON: exactly RFC 8259's grammar, plus no duplicate keys, finite numbers, valid
// UTF-8, and limits on depth and size; errors with line and column. The writer never
// writes a non-finite number, and what it writes reads back equal.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("StrictJSON")
struct StrictJSONTests {
  func parse(_ text: String) throws(StrictJSON.Failure) -> JSONValue { try StrictJSON.parse(Array(text.utf8)) }

  func failure(_ text: String) -> StrictJSON.Failure? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return error
    }
  }

  @Test("accepts RFC 8259 JSON")
  func accepts() throws {
    #expect(try parse(#" {"a": [1, -0, 0.5, -1.5e3, 1E+2, 2e-2, true, false, null], "b": {}, "c": [] } "#) == .object([
      "a": .array([.number(1), .number(0), .number(0.5), .number(-1500), .number(100), .number(0.02), .bool(true), .bool(false), .null]),
      "b": .object([:]), "c": .array([]),
    ]))
    #expect(try parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00 é""#) == .string("\"\\/\u{8}\u{C}\n\r\tAé😀 é"))
    #expect(try parse("42") == .number(42), "any value at the top level")
    #expect(try parse("\u{FEFF}{}") == .object([:]), "a byte order mark is skipped")
    #expect(try parse("1e-400") == .number(0), "underflow rounds to zero, which is finite")
    #expect(try parse("179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")
      == .number(.greatestFiniteMagnitude))
    let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(throws: Never.self) { try parse(deep) }
  }

  @Test("refuses what RFC 8259 or the rules do not allow, with line and column")
  func refuses() throws {
    let cases: [(String, String, Int, Int)] = [
      ("[1, 2,]", "trailing comma before ']'", 1, 6),
      ("{\"a\": 1,\n }", "trailing comma before '}'", 1, 8),
      ("{\"channels\": [{\"duration\": -1,\n  \"duration\": 1.4}]}", "duplicate key \"duration\" at channels[0].duration", 2, 3),
      ("{\"a\": {\"b\": 1, \"b\": 2}}", "duplicate key \"b\" at a.b", 1, 16),
      ("[NaN]", "NaN and Infinity are not JSON numbers", 1, 2),
      ("Infinity", "NaN and Infinity are not JSON numbers", 1, 1),
      ("[-Infinity]", "NaN and Infinity are not JSON numbers", 1, 2),
      ("1e400", "the number 1e400 is too large for a 64-bit float", 1, 1),
      ("[\n\n  -1e309]", "the number -1e309 is too large for a 64-bit float", 3, 3),
      ("01", "a number may not have a leading zero", 1, 1),
      ("1.", "expected a digit after the decimal point", 1, 3),
      (".5", "expected a value, found '.'", 1, 1),
      ("+1", "expected a value, found '+'", 1, 1),
      ("1e", "expected a digit in the exponent", 1, 3),
      ("-", "expected a digit, found the end of the text", 1, 2),
      ("0x10", "unexpected 'x' after the JSON value", 1, 2),
      ("{'a': 1}", "expected a key (a string in double quotes), found '''", 1, 2),
      ("[1] // comment", "unexpected '/' after the JSON value", 1, 5),
      ("{\"a\" 1}", "expected ':' after the key", 1, 6),
      ("[1 2]", "expected ',' or ']' in an array", 1, 4),
      ("\"a\tb\"", "a control character (U+0009) in a string must be escaped", 1, 3),
      ("\"\\ud800\"", "unpaired surrogate \\uD800", 1, 2),
      ("\"\\udc00\\ud800\"", "unpaired surrogate \\uDC00", 1, 2),
      ("\"\\x41\"", "invalid escape \\'x'", 1, 2),
      ("\"\\u12G4\"", "expected four hex digits after \\u", 1, 6),
      ("\"abc", "unterminated string", 1, 5),
      ("tru", "expected a value, found 't'", 1, 1),
      ("", "expected a JSON value, found the end of the text", 1, 1),
      ("  \n ", "expected a JSON value, found the end of the text", 2, 2),
      ("{} {}", "unexpected '{' after the JSON value", 1, 4),
      ("[\"é\", x]", "expected a value, found 'x'", 1, 7),
    ]
    for (text, reason, line, column) in cases {
      let f = failure(text)
      #expect(f?.reason.hasPrefix(reason) == true, "\(text.debugDescription): \(String(describing: f))")
      #expect(f?.line == line && f?.column == column, "\(text.debugDescription): \(String(describing: f))")
    }
  }

  @Test("refuses invalid UTF-8, nesting deeper than 64 and more than 1 MiB")
  func limits() throws {
    for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
                           [0x22, 0xE2, 0x82, 0x22], [0x22, 0xF0, 0x82, 0x82, 0xAC, 0x22]] {
      #expect(throws: StrictJSON.Failure.self, "\(bytes)") { try StrictJSON.parse(bytes) }
    }
    #expect(try StrictJSON.parse([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]) == .string("😀"))
    let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
    #expect(failure(deep)?.reason == "arrays and objects are nested deeper than 64 levels")
    #expect(failure(deep)?.column == 65)
    // Deep nesting fails at the limit whatever the length: no stack overflow.
    #expect(failure(String(repeating: "[", count: 500_000))?.column == 65)
    let big = Data(("\"" + String(repeating: "x", count: StrictJSON.maximumSize) + "\"").utf8)
    let f = try #require(throws: StrictJSON.Failure.self) { try StrictJSON.parse(big) }
    #expect(f.reason.hasPrefix("the text is larger than 1048576 bytes (1 MiB): 1048578 bytes"))
    let justFits = Data(("\"" + String(repeating: "x", count: StrictJSON.maximumSize - 2) + "\"").utf8)
    #expect(try StrictJSON.parse(justFits) == .string(String(repeating: "x", count: StrictJSON.maximumSize - 2)))
  }

  @Test("the writer: non-finite numbers as null, controls escaped, and what it writes reads back equal")
  func writer() throws {
    #expect(StrictJSON.serialize(.array([.number(.infinity), .number(-.infinity), .number(.nan), .number(1e39)])) == "[null,null,null,1e+39]")
    #expect(StrictJSON.serialize(.string("a\u{1}\u{1B}\n\"\\\u{2028}é")) == #""a\u0001\u001b\n\"\\\u2028é""#)
    #expect(StrictJSON.serialize(.object(["b": .number(2), "a": .number(0.1)]), pretty: true) == "{\n  \"a\": 0.1,\n  \"b\": 2\n}")
    var rng = SeededGenerator(seed: 0x5EED_0001)
    for _ in 0..<2000 {
      let value = randomValue(&rng, depth: 0)
      let text = StrictJSON.serialize(value, pretty: Bool.random(using: &rng))
      #expect(try StrictJSON.parse(Array(text.utf8)) == value, "seed \(rng.seed): \(text)")
      // Foundation reads it too.
      #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil, "seed \(rng.seed): \(text)")
    }
  }

  /// A random finite tree.
  func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONValue {
    switch Int.random(in: 0..<(depth > 4 ? 4 : 6), using: &rng) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &rng))
    case 2:
      let bits = rng.next()
      let x = Double(bitPattern: bits)
      return .number(x.isFinite ? x : Double(Int64(bitPattern: bits) >> 11))
    case 3:
      let scalars = (0..<Int.random(in: 0..<8, using: &rng)).map { _ in
        Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &rng)) ?? "?"
      }
      return .string(String(String.UnicodeScalarView(scalars)))
    case 4: return .array((0..<Int.random(in: 0..<4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    default:
      var members: [String: JSONValue] = [:]
      for k in 0..<Int.random(in: 0..<4, using: &rng) { members["k\(k)"] = randomValue(&rng, depth: depth + 1) }
      return .object(members)
    }
  }
}
