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
    let root = try RecipeFile.checkedRoot(data, source: source)
    if root["scroll"] != nil {
      throw .invalidCombination(
        field: "scroll",
        reason: "\(source) is a scroll effect (it has a \"scroll\" object): read it with ScrollEffect.decodeFile "
          + "(cellmotion: --scroll-effect \(source))")
    }
    return try RecipeFile.decode(checkedRoot: root, source: source)
  }
}

/// The steps of `Recipe.decodeFile` (and `ScrollEffect.decodeFile`) between parsing and
/// decoding, and the writer.
///
/// The file steps that run once per file (the schema check, the legacy upgrade, the scroll
/// effect's reader and writer) are compiled unoptimised (`@_optimize(none)`), as the
/// schemas' literals are: optimising them cost every build of CellMotion about 0.7 s of
/// SIL time (`-sil-print-pass-time`) for microseconds a file.
package enum RecipeFile {
  /// A recipe as its file's JSON (sorted keys, pretty-printed), as `Recipe.decodeFile`
  /// reads it back; nil for a recipe with a number that is not finite (a validated recipe
  /// has none).
  package static func encode(_ recipe: Recipe) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(recipe) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  /// A recipe file's top-level object, parsed strictly, its first on-disk form upgraded and
  /// checked against the schema (`scroll` included).
  /// - Throws: `.invalidJSON`, `.invalidStructure` for a file that is not an object, and
  ///   `RecipeSchema.check`'s errors.
  static func checkedRoot(_ data: Data, source: String) throws(CellMotionError) -> [String: JSONValue] {
    let tree: JSONValue
    do {
      tree = try StrictJSON.parse(data)
    } catch {
      throw .invalidJSON(source: source, line: error.line, column: error.column, reason: error.reason)
    }
    guard case .object = tree, case .object(let root) = upgradeLegacy(tree) else {
      throw .invalidStructure(source: source, path: "(top level)", reason: "expected a JSON object (a recipe)")
    }
    try RecipeSchema.check(.object(root), source: source)
    return root
  }

  /// The recipe of a checked top-level object (`checkedRoot`, without `scroll`), decoded and
  /// validated.
  static func decode(checkedRoot root: [String: JSONValue], source: String) throws(CellMotionError) -> Recipe {
    let recipe: Recipe
    do {
      recipe = try JSONDecoder().decode(Recipe.self, from: Data(StrictJSON.serialize(.object(root)).utf8))
    } catch let error as DecodingError {
      throw describe(error, source: source)
    } catch {
      throw .invalidStructure(source: source, path: "(top level)", reason: "not a recipe")
    }
    try recipe.validate()
    return recipe
  }

  /// Rewrites the first on-disk form's curves, `{"bezier": {"_0": {...}}}` and
  /// `{"spring": {"_0": {...}}}`, as `{"bezier": {...}}` and `{"spring": {...}}`, so old
  /// files pass the schema check; nothing else changes.
  @_optimize(none)  // file reading and writing: once per file (`RecipeFile`)
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
