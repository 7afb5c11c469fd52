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

    let trailing = fadeIn.replacingOccurrences(of: "\"to\" : 1\n", with: "\"to\" : 1,\n")
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
    #expect(error(fadeIn.replacingOccurrences(of: "\"name\" : \"fadeIn\"", with: "\"nam\" : \"fadeIn\""))
      == .unknownName(kind: "key", name: "nam", location: "nam in r.json (allowed here: $schema, anchorX, anchorY, channels, fold, matrix, motion, name, order, perspectiveDistance, scroll, stagger, timing)"))
    #expect(error(fadeIn.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"delay\" : 0.5"))
      == .invalidStructure(source: "r.json", path: "channels[0].duration", reason: "missing key \"duration\""))
    #expect(error(fadeIn.replacingOccurrences(of: "\"anchorX\" : 0.5", with: "\"timing\" : {\"autoreverses\" : \"yes\"}"))?.description
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

// MARK: - The schema, the on-disk form, old files

/// A small JSON Schema validator (the keywords recipe.schema.json uses: type, properties,
/// required, additionalProperties, items, enum, oneOf, anyOf, not, pattern, min/maxProperties),
/// written for these tests independently of the reader's own check; CI also validates the
/// presets with Python's jsonschema (Tools/check-recipe-schema.sh).
func schemaErrors(_ value: JSONValue, _ schema: JSONValue, path: String = "") -> [String] {
  guard case .object(let s) = schema else { return ["\(path): schema is not an object"] }
  var errors: [String] = []
  if case .string(let type)? = s["type"] {
    let ok: Bool
    switch (type, value) {
    case ("object", .object), ("array", .array), ("string", .string), ("number", .number), ("boolean", .bool): ok = true
    default: ok = false
    }
    if !ok { return ["\(path): expected \(type)"] }
  }
  if case .array(let options)? = s["enum"], !options.contains(value) { errors.append("\(path): not in enum") }
  if case .string(let pattern)? = s["pattern"], case .string(let text) = value,
    text.range(of: pattern, options: .regularExpression) == nil
  {
    errors.append("\(path): \(text) does not match \(pattern)")
  }
  if case .array(let alternatives)? = s["oneOf"] {
    let matching = alternatives.filter { schemaErrors(value, $0, path: path).isEmpty }.count
    if matching != 1 { errors.append("\(path): matches \(matching) of oneOf") }
  }
  if case .array(let alternatives)? = s["anyOf"], !alternatives.contains(where: { schemaErrors(value, $0, path: path).isEmpty }) {
    errors.append("\(path): matches none of anyOf")
  }
  if let negated = s["not"], schemaErrors(value, negated, path: path).isEmpty { errors.append("\(path): matches not") }
  if case .object(let dict) = value {
    let properties: [String: JSONValue]
    if case .object(let p)? = s["properties"] { properties = p } else { properties = [:] }
    if case .array(let required)? = s["required"] {
      for case .string(let key) in required where dict[key] == nil { errors.append("\(path): missing \(key)") }
    }
    for (key, v) in dict {
      if let sub = properties[key] {
        errors += schemaErrors(v, sub, path: "\(path).\(key)")
      } else if s["additionalProperties"] == .bool(false) {
        errors.append("\(path): unexpected key \(key)")
      }
    }
    if case .number(let n)? = s["minProperties"], Double(dict.count) < n { errors.append("\(path): too few keys") }
    if case .number(let n)? = s["maxProperties"], Double(dict.count) > n { errors.append("\(path): too many keys") }
  }
  if case .array(let items) = value, let itemSchema = s["items"] {
    for (i, v) in items.enumerated() { errors += schemaErrors(v, itemSchema, path: "\(path)[\(i)]") }
  }
  return errors
}

/// Every key path (array indices as []) of a schema's properties.
func schemaKeyPaths(_ schema: JSONValue, path: String = "") -> Set<String> {
  guard case .object(let s) = schema else { return [] }
  var out: Set<String> = []
  if case .object(let properties)? = s["properties"] {
    for (key, sub) in properties {
      out.insert("\(path).\(key)")
      out.formUnion(schemaKeyPaths(sub, path: "\(path).\(key)"))
    }
  }
  if let items = s["items"] { out.formUnion(schemaKeyPaths(items, path: "\(path)[]")) }
  for key in ["oneOf", "anyOf"] {
    if case .array(let alternatives)? = s[key] { for a in alternatives { out.formUnion(schemaKeyPaths(a, path: path)) } }
  }
  return out
}

/// Every key path of a JSON value.
func valueKeyPaths(_ value: JSONValue, path: String = "") -> Set<String> {
  switch value {
  case .object(let dict):
    var out: Set<String> = []
    for (k, v) in dict { out.insert("\(path).\(k)"); out.formUnion(valueKeyPaths(v, path: "\(path).\(k)")) }
    return out
  case .array(let items): return items.reduce(into: []) { $0.formUnion(valueKeyPaths($1, path: "\(path)[]")) }
  default: return []
  }
}

extension RecipeFileTests {
  static let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Sources/CellMotion/Recipe/recipe.schema.json").standardized

  /// Recipes that between them set every field, every enum case and both curve kinds at
  /// every curve position, and a channel value of each form.
  static func populated() throws -> [Recipe] {
    let spring = AnimationCurve.spring(try Spring(mass: 2, stiffness: 200, damping: 30, initialVelocity: 0.5))
    let curves: [AnimationCurve] = [.bezier(.easeInEaseOut), spring, .bezier(try TimingCurve(x1: 0.2, y1: 0, x2: 0.2, y2: 1))]
    let count = max(Channel.allCases.count, FillMode.allCases.count, TransformInterpolationMode.allCases.count)
    return (0..<count).map { i in
      let curve = curves[i % curves.count]
      let value = i % 2 == 0 ? ChannelValue(1, perCellHeight: 0.5, perTableWidth: -1) : ChannelValue(0.25)
      return Recipe(
        name: "populated\(i)",
        channels: [
          ChannelAnimation(Channel.allCases[i % Channel.allCases.count], from: value, to: i % 2 == 0 ? 0.25 : ChannelValue(2, perCellHeight: 1, perTableWidth: 1), curve: curve, duration: 1, delay: 0.5),
          Self.keyframeChannel(i, curve),
        ],
        matrix: i % 3 == 2
          ? MatrixAnimation(
            keyframes: MatrixKeyframes(
              values: [.identity, .translation(3, 4, 5), .rotation(0.5, 0, 0, 1)],
              keyTimes: i % 2 == 0 ? [0, 0.3, 0.6, 1] : [0, 0.4, 1],
              timingFunctions: [curves[(i + 2) % curves.count], .bezier(.easeOut)],
              mode: i % 2 == 0 ? .discrete : .linear),
            mode: TransformInterpolationMode.allCases[i % TransformInterpolationMode.allCases.count], curve: curve,
            duration: 1, delay: 0.25)
          : MatrixAnimation(
            from: .identity, to: .translation(3, 4, 5),
            mode: TransformInterpolationMode.allCases[i % TransformInterpolationMode.allCases.count], curve: curve, duration: 1, delay: 0.25),
        stagger: Stagger(
          step: 0.05, base: StaggerBase.allCases[i % StaggerBase.allCases.count],
          from: [StaggerOrigin.first, .last, .center, .index(3), .random(seed: 7)][i % 5],
          grid: i % 2 == 0 ? StaggerGrid(columns: 3, axis: StaggerAxis.allCases[i % StaggerAxis.allCases.count]) : nil,
          reversed: i % 3 == 0, ease: i % 2 == 1 ? .easeOut : nil),
        order: ChannelOrder.allCases[i % ChannelOrder.allCases.count], anchorX: 0.25, anchorY: 0.75,
        perspectiveDistance: 500,
        timing: RecipeTiming(speed: 2, repeatCount: 1.5, autoreverses: true, fillMode: FillMode.allCases[i % FillMode.allCases.count]),
        fold: FoldSpec(direction: i % 2 == 0 ? .open : .close, curve: curve, duration: 0.4, perspectiveDistance: 600),
        motion: MotionPolicy.allCases[i % MotionPolicy.allCases.count])
    }
  }

  /// A keyframe channel in calculation mode i (mod 5), with every optional list set and
  /// a value that depends on the geometry where the mode allows it.
  static func keyframeChannel(_ i: Int, _ curve: AnimationCurve) -> ChannelAnimation {
    let mode = KeyframeCalculationMode.allCases[i % KeyframeCalculationMode.allCases.count]
    let paced = mode == .paced || mode == .cubicPaced
    let values: [ChannelValue] = [0, paced ? 3 : ChannelValue(1, perCellHeight: 0.5, perTableWidth: -0.25), 2]
    return ChannelAnimation(
      .translationY,
      keyframes: ChannelKeyframes(
        values: values, keyTimes: mode == .discrete ? [0, 0.25, 0.5, 1] : [0, 0.4, 1], timingFunctions: [curve, .bezier(.easeIn)],
        mode: mode, tension: [0, 0.5, 0], continuity: [0, -0.5, 0], bias: [0, 0.25, 0]),
      curve: curve, duration: 0.8)
  }

  func tree<T: Encodable>(_ value: T) throws -> JSONValue { try StrictJSON.parse(try JSONEncoder().encode(value)) }

  @Test("recipe.schema.json is Recipe.jsonSchema, a JSON Schema every preset and populated recipe satisfies")
  func schemaFile() throws {
    let text = try String(contentsOf: Self.schemaFile, encoding: .utf8)
    #expect(text == Recipe.jsonSchema, "regenerate: swift run cellmotion recipe-schema -o Sources/CellMotion/Recipe/recipe.schema.json")
    let schema = try StrictJSON.parse(Data(text.utf8))
    var written: Set<String> = []
    for recipe in Recipe.presets + (try Self.populated()) {
      let t = try tree(recipe)
      let errors = schemaErrors(t, schema)
      #expect(errors.isEmpty, "\(recipe.name): \(errors)")
      written.formUnion(valueKeyPaths(t))
      // The encoder writes the human form: no synthesised "_0" keys anywhere.
      #expect(!valueKeyPaths(t).contains { $0.hasSuffix("._0") }, "\(recipe.name)")
      // And the strict reader reads it back as the same recipe.
      #expect(try decode(String(decoding: try JSONEncoder().encode(recipe), as: UTF8.self)) == recipe)
    }
    // Scroll effects' files: the schema takes them and they write its "scroll" keys.
    for effect in try ScrollEffectFileTests.effects() {
      let t = try StrictJSON.parse(Data(effect.fileJSON.utf8))
      let errors = schemaErrors(t, schema)
      #expect(errors.isEmpty, "\(effect.name): \(errors)")
      written.formUnion(valueKeyPaths(t))
    }
    // Every key the schema describes is written by some recipe (besides the ones only
    // people write: "$schema", the Bezier object form and the constant key of an object
    // value, which the encoder writes as a plain number when it is alone).
    let described = schemaKeyPaths(schema)
    let onlyByHand: Set<String> = [
      ".$schema", ".channels[].curve.bezier", ".matrix.curve.bezier", ".fold.curve.bezier",
      ".channels[].keyframes.timingFunctions[].bezier", ".matrix.keyframes.timingFunctions[].bezier",
      // The UIKit form, which the encoder writes expanded (values and key times).
      ".channels[].keyframes.initial", ".channels[].keyframes.relative",
      // Scroll effects: the named fills and thresholds (the writer spells out each side and
      // the visible fraction).
      ".scroll.fill", ".scroll.timeline.transitionPhase.threshold",
    ]
    let missing = described.subtracting(written).filter { p in !onlyByHand.contains { p.hasPrefix($0) } }
    #expect(missing.isEmpty, "described but never written: \(missing.sorted())")
    // Mutations the reader refuses, the schema refuses too.
    let fadeIn = try tree(Recipe.fadeIn)
    guard case .object(var root) = fadeIn, case .array(var channels)? = root["channels"], case .object(var c) = channels[0] else {
      Issue.record("fadeIn is not an object with channels")
      return
    }
    for (key, value) in [("curv", JSONValue.string("easeIn")), ("channel", .string("translationQ")), ("curve", .string("easeSideways"))] {
      var m = c
      m[key] = value
      channels[0] = .object(m)
      root["channels"] = .array(channels)
      let text = StrictJSON.serialize(.object(root))
      #expect(!schemaErrors(.object(root), schema).isEmpty, "schema accepts \(key): \(value)")
      #expect(error(text) != nil, "reader accepts \(key): \(value)")
    }
    c["delay"] = .number(0.1)
    channels[0] = .object(c)
    root["channels"] = .array(channels)
    root["$schema"] = .string("recipe.schema.json")
    #expect(schemaErrors(.object(root), schema).isEmpty)
    #expect(try decode(StrictJSON.serialize(.object(root))).channels[0].delay == 0.1)
  }

  @Test("files in the first on-disk form (\"_0\" keys, every key written) still load")
  func legacyForm() throws {
    let legacy = """
      {"anchorX": 0.5, "anchorY": 0.5, "name": "old", "order": "keyPath",
       "channels": [
         {"channel": "opacity", "curve": {"bezier": {"_0": {"x1": 0.42, "x2": 0.58, "y1": 0, "y2": 1}}}, "delay": 0,
          "duration": 0.4, "from": {"constant": 0.8, "perCellHeight": 0, "perTableWidth": 0},
          "to": {"constant": 1, "perCellHeight": 0, "perTableWidth": 0}},
         {"channel": "translationY", "curve": {"spring": {"_0": {"mass": 1, "stiffness": 120, "damping": 9, "initialVelocity": 0.1}}},
          "delay": 0.1, "duration": 0.9, "from": {"constant": 0, "perCellHeight": 1, "perTableWidth": 0},
          "to": {"constant": 0, "perCellHeight": 0, "perTableWidth": 0}}],
       "stagger": {"base": "row", "step": 0.05},
       "timing": {"autoreverses": false, "fillMode": "backwards", "repeatCount": 0, "speed": 1}}
      """
    let expected = Recipe(
      name: "old",
      channels: [
        ChannelAnimation(.opacity, from: 0.8, to: 1, curve: .bezier(.easeInEaseOut), duration: 0.4),
        ChannelAnimation(
          .translationY, from: .cellHeight(), to: 0,
          curve: .spring(try Spring(mass: 1, stiffness: 120, damping: 9, initialVelocity: 0.1)), duration: 0.9, delay: 0.1),
      ],
      stagger: Stagger(step: 0.05, base: .row))
    #expect(try decode(legacy) == expected)
    #expect(try JSONDecoder().decode(Recipe.self, from: Data(legacy.utf8)) == expected)
  }

  @Test("defaults: a recipe needs only its name; a spring's keys default to CASpringAnimation's")
  func defaults() throws {
    #expect(try decode("{\"name\": \"empty\"}") == Recipe(name: "empty"))
    let r = try decode("""
      {"name": "s", "channels": [{"channel": "scale", "from": {"perCellHeight": 0.01}, "to": 1,
        "curve": {"spring": {"damping": 12}}, "duration": 1}]}
      """)
    #expect(r.channels[0].curve == .spring(try Spring(mass: 1, stiffness: 100, damping: 12, initialVelocity: 0)))
    #expect(r.channels[0].from == ChannelValue(0, perCellHeight: 0.01) && r.channels[0].delay == 0)
    let bezier = try decode("""
      {"name": "b", "channels": [{"channel": "opacity", "from": 0, "to": 1, "curve": {"bezier": {"x1": 0.3, "y1": 0, "x2": 0.7, "y2": 1}}, "duration": 1}]}
      """)
    #expect(bezier.channels[0].curve == .bezier(try TimingCurve(x1: 0.3, y1: 0, x2: 0.7, y2: 1)))
    // A curve object holds one kind.
    #expect(error("""
      {"name": "b", "channels": [{"channel": "opacity", "from": 0, "to": 1, "curve": {"bezier": {"x1": 0.3, "y1": 0, "x2": 0.7, "y2": 1}, "spring": {}}, "duration": 1}]}
      """) != nil)
  }
}
