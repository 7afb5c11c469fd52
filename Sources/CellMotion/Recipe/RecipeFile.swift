// Reading recipe files: strict JSON (StrictJSON), two shorthands rewritten to the Codable
// form, a key check derived from Recipe's own encoding (RecipeSchema), decoding with
// JSONDecoder, then validation. Every failure is a CellMotionError naming the file and a
// line and column or a JSON path; no Foundation error reaches the caller.
//
// The two shorthands: a curve may be a string (`"easeOut"`, `"cubic-bezier(0.2, 0, 0.2,
// 1)"`, parsed by `TimingCurve(parsing:)`), and a channel's `from` or `to` may be a plain
// number (the constant).

import Foundation

extension Recipe {
  /// Largest recipe file `decodeFile` reads, bytes (1 MiB).
  public static let maximumFileSize = StrictJSON.maximumSize

  /// Deepest nesting of JSON arrays and objects `decodeFile` reads.
  public static let maximumFileDepth = StrictJSON.maximumDepth

  /// Reads a recipe file: `Recipe`'s Codable form as JSON, or with the two shorthands (a
  /// curve as a timing-function string, a channel value as a number), checked strictly.
  ///
  /// The JSON must follow RFC 8259 exactly: no trailing commas, no comments, no NaN or
  /// Infinity, no duplicate keys, valid UTF-8, no number beyond a Double's range, at most
  /// `maximumFileDepth` levels of nesting and `maximumFileSize` bytes. Every key must be
  /// one `Recipe` encodes at that position and every enum value known. Times are seconds,
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
    guard case .object = tree else {
      throw .invalidStructure(source: source, path: "(top level)", reason: "expected a JSON object (a recipe)")
    }
    let expanded = try RecipeFile.expandShorthands(tree, source: source)
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
  /// Rewrites the two shorthands (curve strings, numeric channel values) into the
  /// Codable form.
  static func expandShorthands(_ tree: JSONValue, source: String) throws(CellMotionError) -> JSONValue {
    guard case .object(var root) = tree else { return tree }
    if case .array(var channels)? = root["channels"] {
      for i in channels.indices {
        guard case .object(var c) = channels[i] else { continue }
        if let curve = c["curve"] { c["curve"] = try expandCurve(curve, at: "channels[\(i)].curve in \(source)", source: source) }
        for key in ["from", "to"] {
          if case .number(let x)? = c[key] { c[key] = try encoded(ChannelValue(x), source: source) }
        }
        channels[i] = .object(c)
      }
      root["channels"] = .array(channels)
    }
    for key in ["matrix", "fold"] {
      if case .object(var part)? = root[key], let curve = part["curve"] {
        part["curve"] = try expandCurve(curve, at: "\(key).curve in \(source)", source: source)
        root[key] = .object(part)
      }
    }
    return .object(root)
  }

  /// A curve given as a string, as the Codable form of its Bezier; other values unchanged.
  static func expandCurve(_ value: JSONValue, at location: String, source: String) throws(CellMotionError) -> JSONValue {
    guard case .string(let text) = value else { return value }
    return try encoded(AnimationCurve.bezier(try TimingCurve(parsing: text, location: location)), source: source)
  }

  /// A value's JSON tree as JSONEncoder writes it.
  static func encoded<T: Encodable>(_ value: T, source: String) throws(CellMotionError) -> JSONValue {
    // Values built from finite numbers always encode; the error is for completeness.
    guard let data = try? JSONEncoder().encode(value), let tree = try? StrictJSON.parse(data) else {
      throw .invalidStructure(source: source, path: "(top level)", reason: "cannot encode \(T.self)")
    }
    return tree
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
