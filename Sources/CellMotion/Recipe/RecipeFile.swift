// Reading recipe files: strict JSON (StrictJSON), the first on-disk form's curves
// upgraded, the schema check (RecipeSchema: unknown keys and names, curve strings),
// decoding with JSONDecoder (Recipe+Codable.swift), then validation. Every failure is a
// CellMotionError naming the file and a line and column or a JSON path; no Foundation
// error reaches the caller.

import Foundation

extension Recipe {
  /// Largest recipe file `decodeFile` reads, bytes (1 MiB).
  public static let maximumFileSize = StrictJSON.maximumSize

  /// Deepest nesting of JSON arrays and objects `decodeFile` reads.
  public static let maximumFileDepth = StrictJSON.maximumDepth

  /// Reads a recipe file (`Recipe`'s Codable form, described by `Recipe.jsonSchema`: curves
  /// as timing-function strings or `{"spring": {...}}`, channel values as numbers or
  /// objects, defaults optional), checked strictly. Files in the first on-disk form
  /// (curves as `{"bezier": {"_0": {...}}}`) still load.
  ///
  /// The JSON must follow RFC 8259 exactly: no trailing commas, no comments, no NaN or
  /// Infinity, no duplicate keys, valid UTF-8, no number beyond a Double's range, at most
  /// `maximumFileDepth` levels of nesting and `maximumFileSize` bytes. Every key must be
  /// one the schema allows at that position and every enum value known. Times are seconds,
  /// lengths points, angles radians (see `Recipe`).
  ///
  /// - Parameters:
  ///   - data: the file's bytes (UTF-8; a leading byte order mark is ignored).
  ///   - source: how messages name the file, e.g. its path.
  /// - Returns: the recipe, already validated (`validate()`).
  /// - Throws: `CellMotionError.invalidJSON` (with line and column) for text that is not
  ///   JSON under these rules; `.invalidStructure` (with a JSON path such as
  ///   `channels[0].duration`) for a missing key or a value of the wrong type;
  ///   `.unknownName` for an unknown key, enum value or timing function; `.invalidSyntax`
  ///   for a malformed `cubic-bezier(...)`; and `validate()`'s errors.
  public static func decodeFile(_ data: Data, source: String) throws(CellMotionError) -> Recipe {
    let tree: JSONValue
    do {
      tree = try StrictJSON.parse(data)
    } catch {
      throw .invalidJSON(source: source, line: error.line, column: error.column, reason: error.reason)
    }
    guard case .object(let root) = tree else {
      throw .invalidStructure(source: source, path: "(top level)", reason: "expected a JSON object (a recipe)")
    }
    try RecipeSchema.check(RecipeFile.upgradeLegacy(tree), source: source)
    if root["scroll"] != nil {
      throw .invalidCombination(
        field: "scroll",
        reason: "\(source) is a scroll effect (it has a \"scroll\" object): read it with ScrollEffect.decodeFile "
          + "(cellmotion: --scroll-effect \(source))")
    }
    return try decodeTree(tree, source: source)
  }

  /// A recipe from a parsed file (the schema checked here too), decoded and validated.
  static func decodeTree(_ tree: JSONValue, source: String) throws(CellMotionError) -> Recipe {
    let expanded = RecipeFile.upgradeLegacy(tree)
    try RecipeSchema.check(expanded, source: source)
    let recipe: Recipe
    do {
      recipe = try JSONDecoder().decode(Recipe.self, from: Data(StrictJSON.serialize(expanded).utf8))
    } catch let error as DecodingError {
      throw RecipeFile.describe(error, source: source)
    } catch {
      throw .invalidStructure(source: source, path: "(top level)", reason: "not a recipe")
    }
    try recipe.validate()
    return recipe
  }
}

/// The steps of `Recipe.decodeFile` between parsing and decoding.
enum RecipeFile {
  /// A validated recipe as its file's JSON (sorted keys, pretty-printed), as
  /// `Recipe.decodeFile` reads it back.
  static func encode(_ recipe: Recipe) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Only a non-finite number fails to encode, and validated recipes have none.
    guard let data = try? encoder.encode(recipe) else {
      preconditionFailure("\(recipe.name): a validated recipe did not encode")
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// Rewrites the first on-disk form's curves, `{"bezier": {"_0": {...}}}` and
  /// `{"spring": {"_0": {...}}}`, as `{"bezier": {...}}` and `{"spring": {...}}`, so old
  /// files pass the schema check; nothing else changes.
  static func upgradeLegacy(_ tree: JSONValue) -> JSONValue {
    guard case .object(var root) = tree else { return tree }
    if case .array(var channels)? = root["channels"] {
      for i in channels.indices {
        guard case .object(var c) = channels[i], let curve = c["curve"] else { continue }
        c["curve"] = upgradeCurve(curve)
        channels[i] = .object(c)
      }
      root["channels"] = .array(channels)
    }
    for key in ["matrix", "fold"] {
      if case .object(var part)? = root[key], let curve = part["curve"] {
        part["curve"] = upgradeCurve(curve)
        root[key] = .object(part)
      }
    }
    return .object(root)
  }

  static func upgradeCurve(_ value: JSONValue) -> JSONValue {
    guard case .object(var curve) = value, curve.count == 1, let (kind, payload) = curve.first,
      case .object(let inner) = payload, inner.count == 1, let wrapped = inner["_0"]
    else { return value }
    curve[kind] = wrapped
    return .object(curve)
  }

  /// `channels[1].duration`-style text for a coding path.
  static func jsonPath(_ path: [any CodingKey]) -> String {
    var out = ""
    for key in path {
      if let i = key.intValue { out += "[\(i)]" } else { out += out.isEmpty ? key.stringValue : ".\(key.stringValue)" }
    }
    return out.isEmpty ? "(top level)" : out
  }

  /// How a type is named in messages.
  static func typeName(_ type: Any.Type) -> String {
    switch type {
    case is Double.Type, is Float.Type: "a number"
    case is Int.Type: "an integer"
    case is Bool.Type: "true or false"
    case is String.Type: "a string"
    default:
      "\(type)".hasPrefix("Array") ? "an array" : ("\(type)".hasPrefix("Dictionary") ? "an object" : "\(type)")
    }
  }

  /// A decoding error as a CellMotionError naming the JSON path.
  static func describe(_ error: DecodingError, source: String) -> CellMotionError {
    switch error {
    case .keyNotFound(let key, let context):
      return .invalidStructure(source: source, path: jsonPath(context.codingPath + [key]), reason: "missing key \"\(key.stringValue)\"")
    case .typeMismatch(let type, let context):
      return .invalidStructure(source: source, path: jsonPath(context.codingPath), reason: "wrong type (expected \(typeName(type)))")
    case .valueNotFound(let type, let context):
      return .invalidStructure(source: source, path: jsonPath(context.codingPath), reason: "missing value (expected \(typeName(type)))")
    case .dataCorrupted(let context):
      return .invalidStructure(source: source, path: jsonPath(context.codingPath), reason: "invalid value: \(context.debugDescription)")
    @unknown default:
      return .invalidStructure(source: source, path: "(top level)", reason: "not a recipe")
    }
  }
}
