// Where a recipe comes from: a preset name, or a JSON file in Recipe's Codable form,
// checked strictly (RecipeSchema) before decoding and validated after.
//
// Two shorthands are accepted in files and rewritten to the Codable form before the
// check: a curve may be a string (`"easeOut"`, `"cubic-bezier(0.2, 0, 0.2, 1)"`, parsed by
// `TimingCurve(parsing:)`), and a channel value may be a plain number (the constant).

import CellMotion
import Foundation

enum RecipeSource {
  /// Resolves `spec`: a preset name (`tipIn`, ...) or the path of a recipe JSON file
  /// (anything ending in `.json`, containing a `/`, or naming an existing file).
  static func load(_ spec: String) throws -> Recipe {
    let looksLikePath = spec.hasSuffix(".json") || spec.contains("/")
    if !looksLikePath, Recipe.presetNames.contains(spec) { return try Recipe.preset(named: spec) }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: spec, isDirectory: &isDirectory), !isDirectory.boolValue {
      guard let data = FileManager.default.contents(atPath: spec) else { throw CLIError("cannot read \(spec)") }
      return try decode(data, file: spec)
    }
    if looksLikePath { throw CLIError("no such recipe file: \(spec)") }
    return try Recipe.preset(named: spec)
  }

  /// Parses, checks, decodes and validates a recipe file's bytes.
  ///
  /// - Throws: `CLIError` for malformed JSON or a decoding problem (naming the JSON path);
  ///   `CellMotionError.unknownName` for an unknown key or name; the recipe's own
  ///   validation errors (`tipIn.channels[0].duration must be > 0, got -1.0`).
  static func decode(_ data: Data, file: String) throws -> Recipe {
    var tree: Any
    do {
      tree = try JSONSerialization.jsonObject(with: data)
    } catch {
      let ns = error as NSError
      let reason = ns.userInfo[NSDebugDescriptionErrorKey] as? String ?? ns.localizedDescription
      throw CLIError("\(file) is not valid JSON: \(reason)")
    }
    guard tree is [String: Any] else { throw CLIError("\(file): the top level must be a JSON object (a recipe)") }
    tree = try expandShorthands(tree, file: file)
    try RecipeSchema.check(tree, file: file)
    let recipe: Recipe
    do {
      let canonical = try JSONSerialization.data(withJSONObject: tree)
      recipe = try JSONDecoder().decode(Recipe.self, from: canonical)
    } catch let error as DecodingError {
      throw CLIError(describe(error, file: file))
    }
    try recipe.validate()
    return recipe
  }

  /// Rewrites the two shorthands (curve strings, numeric channel values) into the
  /// Codable form.
  static func expandShorthands(_ tree: Any, file: String) throws -> Any {
    guard var root = tree as? [String: Any] else { return tree }
    func curve(_ value: Any?, _ path: String) throws -> Any? {
      guard let text = value as? String else { return value }
      let parsed = try TimingCurve(parsing: text, location: "\(path) in \(file)")
      return try encoded(AnimationCurve.bezier(parsed))
    }
    func channelValue(_ value: Any?) throws -> Any? {
      // JSON booleans also arrive as NSNumber; their objCType is "c" (char).
      guard let n = value as? NSNumber, String(cString: n.objCType) != "c" else { return value }
      return try encoded(ChannelValue(n.doubleValue))
    }
    if var channels = root["channels"] as? [Any] {
      for i in channels.indices {
        guard var c = channels[i] as? [String: Any] else { continue }
        if c["curve"] != nil { c["curve"] = try curve(c["curve"], "channels[\(i)].curve") }
        if c["from"] != nil { c["from"] = try channelValue(c["from"]) }
        if c["to"] != nil { c["to"] = try channelValue(c["to"]) }
        channels[i] = c
      }
      root["channels"] = channels
    }
    for key in ["matrix", "fold"] {
      if var part = root[key] as? [String: Any], part["curve"] != nil {
        part["curve"] = try curve(part["curve"], "\(key).curve")
        root[key] = part
      }
    }
    return root
  }

  /// A value's JSON tree as JSONEncoder writes it.
  static func encoded<T: Encodable>(_ value: T) throws -> Any {
    try JSONSerialization.jsonObject(with: JSONEncoder().encode(value), options: .fragmentsAllowed)
  }

  /// `channels[1].duration`-style text for a coding path.
  static func jsonPath(_ path: [any CodingKey]) -> String {
    var out = ""
    for key in path {
      if let i = key.intValue { out += "[\(i)]" } else { out += out.isEmpty ? key.stringValue : ".\(key.stringValue)" }
    }
    return out.isEmpty ? "(top level)" : out
  }

  /// One line for a decoding error, naming the JSON path.
  static func describe(_ error: DecodingError, file: String) -> String {
    switch error {
    case .keyNotFound(let key, let context):
      return "missing key \"\(key.stringValue)\" at \(jsonPath(context.codingPath + [key])) in \(file)"
    case .typeMismatch(let type, let context):
      return "wrong type at \(jsonPath(context.codingPath)) in \(file): expected \(type)"
    case .valueNotFound(let type, let context):
      return "missing value at \(jsonPath(context.codingPath)) in \(file): expected \(type)"
    case .dataCorrupted(let context):
      return "invalid value at \(jsonPath(context.codingPath)) in \(file): \(context.debugDescription)"
    @unknown default:
      return "cannot decode \(file): \(error)"
    }
  }

  /// The canonical JSON of a recipe (sorted keys, pretty-printed), as `recipe-template`
  /// prints it and `decode` reads it back.
  static func json(_ recipe: Recipe) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(recipe), as: UTF8.self) + "\n"
  }
}
