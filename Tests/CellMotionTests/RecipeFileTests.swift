// Recipe.decodeFile: the strict recipe reader (strict JSON, shorthands, key check,
// decoding, validation), every failure a CellMotionError naming where.

import Foundation
import Testing

@testable import CellMotion

@Suite("Recipe.decodeFile")
struct RecipeFileTests {
  /// A preset as JSONEncoder writes it (the on-disk format).
  func template(_ name: String) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(try Recipe.preset(named: name)), as: UTF8.self)
  }

  func decode(_ text: String) throws(CellMotionError) -> Recipe { try Recipe.decodeFile(Data(text.utf8), source: "r.json") }

  func error(_ text: String) -> CellMotionError? {
    do {
      _ = try decode(text)
      return nil
    } catch {
      return error
    }
  }

  @Test("every preset's file reads back as the preset")
  func presetsRoundTrip() throws {
    for name in Recipe.presetNames {
      #expect(try decode(try template(name)) == (try Recipe.preset(named: name)), "\(name)")
    }
  }

  @Test("the shorthands: curve strings and numeric channel values")
  func shorthands() throws {
    let r = try decode("""
      {"name": "mine", "channels": [{"channel": "opacity", "from": 0, "to": 1, "curve": "easeOut", "duration": 0.5, "delay": 0}],
       "stagger": {"step": 0, "base": "row"}, "order": "keyPath", "anchorX": 0.5, "anchorY": 0.5,
       "timing": {"speed": 1, "repeatCount": 0, "autoreverses": false, "fillMode": "backwards"},
       "fold": {"direction": "open", "curve": "cubic-bezier(0.2, 0, 0.2, 1)", "duration": 0.3, "perspectiveDistance": 500}}
      """)
    #expect(r.channels[0].curve == .bezier(.easeOut) && r.channels[0].to == ChannelValue(1))
    #expect(r.fold?.curve == .bezier(try TimingCurve(parsing: "cubic-bezier(0.2, 0, 0.2, 1)")))
  }

  @Test("JSON that JSONSerialization accepts but RFC 8259 or the rules do not: invalidJSON with line and column")
  func strictJSON() throws {
    let fadeIn = try template("fadeIn")
    let duplicate = fadeIn.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : -1, \"duration\" : 0.5")
    guard case .invalidJSON("r.json", let line, _, let reason)? = error(duplicate) else {
      Issue.record("duplicate keys: \(String(describing: error(duplicate)))")
      return
    }
    #expect(reason == "duplicate key \"duration\" at channels[0].duration" && line > 1)
    #expect(error(duplicate)?.description.hasPrefix("r.json is not valid JSON: duplicate key") == true)

    let trailing = fadeIn.replacingOccurrences(of: "\"y2\" : 1\n", with: "\"y2\" : 1,\n")
    #expect(trailing != fadeIn)
    guard case .invalidJSON(_, _, _, let r2)? = error(trailing) else {
      Issue.record("trailing comma accepted")
      return
    }
    #expect(r2 == "trailing comma before '}'")
    let overflow = fadeIn.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : 1e999")
    guard case .invalidJSON(_, _, _, let r3)? = error(overflow) else {
      Issue.record("overflow accepted")
      return
    }
    #expect(r3.contains("too large"))
  }

  @Test("structure problems name the JSON path")
  func structure() throws {
    let fadeIn = try template("fadeIn")
    #expect(error("[]") == .invalidStructure(source: "r.json", path: "(top level)", reason: "expected a JSON object (a recipe)"))
    #expect(error(fadeIn.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : \"long\""))
      == .invalidStructure(source: "r.json", path: "channels[0].duration", reason: "wrong type (expected a number)"))
    #expect(error(fadeIn.replacingOccurrences(of: "\"order\" : \"keyPath\",", with: ""))
      == .invalidStructure(source: "r.json", path: "order", reason: "missing key \"order\""))
    #expect(error(fadeIn.replacingOccurrences(of: "\"autoreverses\" : false", with: "\"autoreverses\" : null"))?.description
      == "wrong type (expected true or false) at timing.autoreverses in r.json")
    guard case .unknownName("key", "curv", let location)? = error(fadeIn.replacingOccurrences(of: "\"curve\"", with: "\"curv\"")) else {
      Issue.record("unknown key accepted")
      return
    }
    #expect(location.hasPrefix("channels[0].curv in r.json (allowed here: "))
    guard case .unknownName("channel", "translationQ", _)? = error(fadeIn.replacingOccurrences(of: "\"opacity\"", with: "\"translationQ\"")) else {
      Issue.record("unknown channel accepted")
      return
    }
    // The recipe's own validation runs last.
    #expect(error(fadeIn.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : -1"))?.description.contains("channels[0].duration") == true)
  }

  @Test("more than 1 MiB is refused before parsing")
  func size() throws {
    let huge = String(repeating: " ", count: Recipe.maximumFileSize + 1)
    guard case .invalidJSON(_, _, _, let reason)? = error(huge) else {
      Issue.record("accepted")
      return
    }
    #expect(reason.contains("larger than 1048576 bytes"))
  }
}
