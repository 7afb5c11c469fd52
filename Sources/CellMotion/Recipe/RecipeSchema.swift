// The strict shape of a recipe file. JSONDecoder ignores unknown keys, so a typo such as
// "curv" would silently fall back to nothing; this file derives the accepted keys of every
// level from Recipe's own Codable output and checks a parsed JSON tree (StrictJSON)
// against them before decoding (Recipe.decodeFile).
//
// Derivation (honest by construction): `RecipeSchema.examples` builds fully populated
// recipes (every optional set, every enum case used, both curve kinds at every curve
// position), encodes them with JSONEncoder, and merges the resulting trees: an object's
// accepted keys are the union of the keys seen there, a string's accepted values the
// union of the values seen there. A field added to Recipe therefore shows up here without
// edits; only free-text strings (the recipe's `name`) are listed by hand.

import Foundation

/// The accepted shape of one level of a recipe file.
indirect enum Shape: Equatable, Sendable {
  /// A JSON object and the shape of each accepted key.
  case object([String: Shape])
  /// A JSON array whose elements all have this shape.
  case array(Shape)
  /// A string from a closed set (an enum's raw values).
  case names(Set<String>)
  /// Any string (free text).
  case text
  /// A number or a Boolean (checked by the decoder).
  case scalar

  /// Merges two observations of the same position.
  func merged(with other: Shape) -> Shape {
    switch (self, other) {
    case (.object(let a), .object(let b)):
      return .object(a.merging(b) { $0.merged(with: $1) })
    case (.array(let a), .array(let b)):
      return .array(a.merged(with: b))
    case (.names(let a), .names(let b)):
      return .names(a.union(b))
    default:
      return self
    }
  }
}

enum RecipeSchema {
  /// Paths (in `RecipeSchema.path` form, array indices written `[]`) whose strings are free
  /// text rather than enum names.
  static let freeTextPaths: Set<String> = ["name"]

  /// What an enum-valued key is called in messages.
  static let kindNames: [String: String] = [
    "channel": "channel", "base": "stagger base", "order": "channel order",
    "mode": "interpolation mode", "fillMode": "fill mode", "direction": "fold direction",
  ]

  /// The shape every recipe file must have, derived from Recipe's Codable encoding.
  static let shape: Shape = {
    var merged: Shape?
    for recipe in examples {
      // Recipes with finite numbers always encode; were one not to, its keys would be
      // missing and files using them refused (never accepted unchecked).
      guard let data = try? JSONEncoder().encode(recipe), let tree = try? StrictJSON.parse(data) else { continue }
      let s = observe(tree, path: "")
      merged = merged?.merged(with: s) ?? s
    }
    return merged ?? .object([:])
  }()

  /// Fully populated recipes covering every enum case and both curve kinds everywhere.
  static var examples: [Recipe] {
    let channels = Channel.allCases
    let bases = StaggerBase.allCases, orders = ChannelOrder.allCases
    let modes = TransformInterpolationMode.allCases, fills = FillMode.allCases
    let directions: [FoldSpec.Direction] = [.open, .close]
    let count = [channels.count, bases.count, orders.count, modes.count, fills.count, directions.count].max() ?? 1
    // CASpringAnimation's defaults are valid, so the fallback is never used.
    let spring = (try? Spring()).map(AnimationCurve.spring) ?? .bezier(.linear)
    let bezier = AnimationCurve.bezier(.easeInEaseOut)
    var out: [Recipe] = []
    for i in 0..<(2 * count) {
      let curve = i % 2 == 0 ? bezier : spring
      let value = ChannelValue(1, perCellHeight: 1, perTableWidth: 1)
      out.append(
        Recipe(
          name: "example\(i)",
          channels: [ChannelAnimation(channels[i % channels.count], from: value, to: value, curve: curve, duration: 1, delay: 1)],
          matrix: MatrixAnimation(from: .identity, to: .identity, mode: modes[i % modes.count], curve: curve, duration: 1, delay: 1),
          stagger: Stagger(step: 1, base: bases[i % bases.count]),
          order: orders[i % orders.count], anchorX: 0.5, anchorY: 0.5, perspectiveDistance: 500,
          timing: RecipeTiming(speed: 1, repeatCount: 1, autoreverses: true, fillMode: fills[i % fills.count]),
          fold: FoldSpec(direction: directions[i % directions.count], curve: curve, duration: 1, perspectiveDistance: 500)))
    }
    return out
  }

  /// The shape of one encoded value at `path`.
  static func observe(_ value: JSONValue, path: String) -> Shape {
    switch value {
    case .object(let dict):
      var keys: [String: Shape] = [:]
      for (k, v) in dict { keys[k] = observe(v, path: join(path, k)) }
      return .object(keys)
    case .array(let array):
      var element: Shape?
      for v in array {
        let s = observe(v, path: path + "[]")
        element = element?.merged(with: s) ?? s
      }
      return .array(element ?? .scalar)
    case .string(let s):
      return freeTextPaths.contains(path) ? .text : .names([s])
    case .null, .bool, .number:
      return .scalar
    }
  }

  static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  /// Checks `tree` against `shape`: every key must be accepted at its level and every
  /// enum string known. Types and missing keys are left to the decoder, which reports
  /// them with their coding path.
  ///
  /// - Throws: `CellMotionError.unknownName` naming the key or value and its JSON path
  ///   (e.g. `channels[1].curv`), with `source` for context.
  static func check(_ tree: JSONValue, against shape: Shape = shape, path: String = "", source: String) throws(CellMotionError) {
    switch shape {
    case .object(let keys):
      guard case .object(let dict) = tree else { return }
      for key in dict.keys.sorted() {
        let here = join(path, key)
        guard let sub = keys[key], let value = dict[key] else {
          throw .unknownName(
            kind: "key", name: key,
            location: "\(here) in \(source) (allowed here: \(keys.keys.sorted().joined(separator: ", ")))")
        }
        try check(value, against: sub, path: here, source: source)
      }
    case .array(let element):
      guard case .array(let array) = tree else { return }
      for (i, v) in array.enumerated() { try check(v, against: element, path: "\(path)[\(i)]", source: source) }
    case .names(let names):
      guard case .string(let s) = tree, !names.contains(s) else { return }
      // The last key of the path, without array indices (`channels[2].channel` -> channel).
      let last = path.split(separator: ".").last ?? Substring(path)
      let key = String(last.prefix { $0 != "[" })
      throw .unknownName(
        kind: kindNames[key] ?? key, name: s,
        location: "\(path) in \(source) (known: \(names.sorted().joined(separator: ", ")))")
    case .text, .scalar:
      return
    }
  }
}
