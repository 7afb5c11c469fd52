// The one schema of recipe files, written once here: the strict reader checks every file
// against it (unknown keys and names are refused with their JSON path before decoding),
// and `Recipe.jsonSchema` writes it as a JSON Schema (draft 2020-12) for editors; the
// repository holds that text as Sources/CellMotion/Recipe/recipe.schema.json, and a test
// keeps the two equal. Tests also check that Recipe's encoder writes nothing the schema
// does not describe and that every key described is written by some recipe, so the
// schema, the encoder and the decoder cannot drift apart.

import Foundation

/// The accepted shape of one position in a recipe file.
indirect enum Shape: Sendable {
  /// A JSON object: its keys, which of them are required, whether it holds exactly one of
  /// its keys (the decoder checks that; the JSON Schema says it), what it is.
  /// `alternatives`: the object takes exactly one of these forms, each with keys it
  /// requires and keys it forbids (a plain channel's from/to/curve or its keyframes); the
  /// decoder checks it, the JSON Schema says it.
  case object([Property], required: [String], exactlyOne: Bool, alternatives: [Form], description: String)
  /// A JSON array whose elements all have this shape.
  case array(Shape, description: String)
  /// A string from a closed set (an enum's raw values).
  case names([String], description: String)
  /// Any string.
  case text(description: String)
  /// A timing-function string (`TimingCurve(parsing:)`).
  case curveText
  /// A number.
  case number(description: String)
  /// true or false.
  case boolean(description: String)
  /// One of several shapes, told apart by JSON type (object, string, number).
  case oneOf([Shape], description: String)

  /// One form of an object with alternatives.
  struct Form: Sendable {
    var requires: [String]
    var forbids: [String]
  }

  /// One key of an object.
  struct Property: Sendable {
    var name: String
    var shape: Shape
  }
}

enum RecipeSchema {
  /// What an enum-valued key is called in messages.
  static let kindNames: [String: String] = [
    "channel": "channel", "base": "stagger base", "order": "channel order",
    "mode": "interpolation mode", "fillMode": "fill mode", "direction": "fold direction",
    "from": "stagger origin", "axis": "stagger axis", "motion": "motion policy",
    "calculationMode": "keyframe calculation mode",
  ]

  // MARK: The schema

  static func object(
    _ description: String, required: [String] = [], exactlyOne: Bool = false, alternatives: [Shape.Form] = [],
    _ properties: [(String, Shape)]
  ) -> Shape {
    .object(
      properties.map { Shape.Property(name: $0.0, shape: $0.1) }, required: required, exactlyOne: exactlyOne,
      alternatives: alternatives, description: description)
  }

  static let spring = object(
    "A damped spring (CASpringAnimation): each key defaults to CASpringAnimation's value.",
    [
      ("mass", .number(description: "Mass, > 0 (default 1).")),
      ("stiffness", .number(description: "Stiffness, > 0 (default 100).")),
      ("damping", .number(description: "Damping, >= 0 (default 10).")),
      ("initialVelocity", .number(description: "Initial velocity in units of the whole change per second (default 0).")),
    ])

  static let bezierObject = object(
    "The control points of a cubic Bezier timing function (CAMediaTimingFunction), x1 and x2 in [0, 1].",
    required: ["x1", "y1", "x2", "y2"],
    ["x1", "y1", "x2", "y2"].map { ($0, Shape.number(description: "Control point coordinate.")) })

  static let curve = Shape.oneOf(
    [
      .curveText,
      object(
        "A spring, or a Bezier by its control points: exactly one key.", exactlyOne: true,
        [("spring", spring), ("bezier", bezierObject)]),
    ],
    description:
      "Progress curve: a timing-function string (\"linear\", \"easeIn\", \"easeOut\", \"easeInEaseOut\", "
      + "\"default\", CSS \"ease\"/\"ease-in\"/\"ease-out\"/\"ease-in-out\", or \"cubic-bezier(x1, y1, x2, y2)\"), "
      + "or {\"spring\": {...}}.")

  static let channelValue = Shape.oneOf(
    [
      .number(description: "A constant."),
      object(
        "constant + perCellHeight x cell height + perTableWidth x table width; each key defaults to 0.",
        [
          ("constant", .number(description: "Constant part (points for translations, radians for rotations).")),
          ("perCellHeight", .number(description: "Factor of the cell's height in points.")),
          ("perTableWidth", .number(description: "Factor of the table's width in points.")),
        ]),
    ],
    description: "A channel's end value: a number, or an object whose parts depend on the geometry.")

  static let keyframeNumbers = Shape.array(
    .number(description: "In [-1, 1]."), description: "One per value (cubic modes); 0 for every key when absent.")

  /// Key times and per-segment curves, the same for scalar and matrix keyframes.
  static let keyTimes = Shape.array(
    .number(description: "A fraction of the duration."),
    description: "From 0 to 1, non-decreasing, one per value (values + 1 for discrete); evenly spaced when absent.")
  static let timingFunctions = Shape.array(curve, description: "One curve per segment (values - 1); linear when absent.")

  static let keyframes = object(
    "Keyframes (CAKeyframeAnimation): values with key times, a curve per segment and a calculation mode; or the UIKit "
      + "form (UIView.animateKeyframes): an initial value and relative keyframes.",
    alternatives: [
      Shape.Form(requires: ["values"], forbids: ["initial", "relative"]),
      Shape.Form(
        requires: ["initial", "relative"],
        forbids: ["values", "keyTimes", "timingFunctions", "calculationMode", "tensionValues", "continuityValues", "biasValues"]),
    ],
    [
      ("values", .array(channelValue, description: "The values, 1 to 64.")),
      ("keyTimes", keyTimes), ("timingFunctions", timingFunctions),
      (
        "calculationMode",
        .names(
          KeyframeCalculationMode.allCases.map(\.rawValue),
          description: "linear (default), discrete, paced, cubic (Kochanek-Bartels / Catmull-Rom) or cubicPaced.")
      ),
      ("tensionValues", keyframeNumbers), ("continuityValues", keyframeNumbers), ("biasValues", keyframeNumbers),
      ("initial", channelValue),
      (
        "relative",
        .array(
          object(
            "One keyframe of the UIKit form: over [start, start + duration] (fractions of the channel's duration) the "
              + "value moves to value.", required: ["start", "duration", "value"],
            [
              ("start", .number(description: "Relative start time in [0, 1].")),
              ("duration", .number(description: "Relative duration, > 0, start + duration <= 1.")),
              ("value", channelValue), ("curve", curve),
            ]),
          description: "The UIKit form's keyframes, in order, not overlapping.")
      ),
    ])

  static let transform = object(
    "A CATransform3D, entries m11 ... m44 (row vectors, translation in m41 m42 m43; points).",
    required: (1...4).flatMap { r in (1...4).map { c in "m\(r)\(c)" } },
    (1...4).flatMap { r in (1...4).map { c in ("m\(r)\(c)", Shape.number(description: "Row \(r), column \(c).")) } })

  static let duration = Shape.number(description: "Seconds, > 0.")
  static let delay = Shape.number(description: "Seconds before the part starts, >= 0 (default 0).")

  /// The shape of a recipe file.
  static let shape: Shape = makeShape()
  // Built once a process, from one large literal: unoptimised, it costs nothing at run time
  // and saves the optimiser about a second at every build (`-sil-print-pass-time`).
  @_optimize(none)
  private static func makeShape() -> Shape {
    object(
      "A CellMotion recipe: what moves when a table-view cell appears. Times are seconds, lengths points, "
        + "angles radians.",
      required: ["name"],
      [
        ("$schema", .text(description: "The schema's location, for editors; ignored.")),
        ("name", .text(description: "The recipe's name.")),
        (
          "channels",
          .array(
            object(
              "One animated channel: from, to and curve, or keyframes.", required: ["channel", "duration"],
              alternatives: [
                Shape.Form(requires: ["from", "to", "curve"], forbids: ["keyframes"]),
                Shape.Form(requires: ["keyframes"], forbids: ["from", "to"]),
              ],
              [
                ("channel", .names(Channel.allCases.map(\.rawValue), description: "The animated property.")),
                ("from", channelValue), ("to", channelValue), ("keyframes", keyframes), ("curve", curve),
                ("duration", duration), ("delay", delay),
              ]),
            description: "Animated channels (default none).")
        ),
        (
          "matrix",
          object(
            "A whole-matrix animation (layer.transform in an animation block): from, to and curve, or keyframes.",
            required: ["duration"],
            alternatives: [
              Shape.Form(requires: ["from", "to", "curve"], forbids: ["keyframes"]),
              Shape.Form(requires: ["keyframes"], forbids: ["from", "to"]),
            ],
            [
              ("from", transform), ("to", transform),
              (
                "keyframes",
                object(
                  "Keyframes of the whole matrix (CAKeyframeAnimation on transform): each segment interpolates its two "
                    + "matrices as mode says.", required: ["values"],
                  [
                    ("values", .array(transform, description: "The matrices, 1 to 64.")),
                    ("keyTimes", keyTimes), ("timingFunctions", timingFunctions),
                    (
                      "calculationMode",
                      .names(["linear", "discrete"], description: "linear (default) or discrete.")
                    ),
                  ])
              ),
              (
                "mode",
                .names(
                  TransformInterpolationMode.allCases.map(\.rawValue),
                  description: "How the matrices interpolate (default decomposed, as Core Animation).")
              ),
              ("curve", curve), ("duration", duration), ("delay", delay),
            ])
        ),
        (
          "stagger",
          object(
            "Extra delay per cell (default none).", required: ["step"],
            [
              ("step", .number(description: "Seconds per unit of distance from the origin, >= 0.")),
              (
                "base",
                .names(
                  StaggerBase.allCases.map(\.rawValue),
                  description: "Which index counts: the row, or the position among the rows that appeared together (default row).")
              ),
              (
                "from",
                .oneOf(
                  [
                    .names(["first", "last", "center"], description: "A named origin."),
                    .number(description: "An origin index, >= 0."),
                    object(
                      "A seeded pseudo-random order.", required: ["random"],
                      [("random", .number(description: "The seed, an integer in 0...2^53 - 1."))]),
                  ],
                  description: "Where the stagger starts (default first).")
              ),
              (
                "grid",
                object(
                  "Cells laid out in columns, filled row by row.", required: ["columns"],
                  [
                    ("columns", .number(description: "Cells per row, >= 1.")),
                    (
                      "axis",
                      .names(
                        StaggerAxis.allCases.map(\.rawValue),
                        description: "Distance: both (euclidean, the default), x (columns) or y (rows).")
                    ),
                  ])
              ),
              ("reversed", .boolean(description: "Farthest cells first (default false).")),
              ("ease", .curveText),
            ])
        ),
        (
          "order",
          .names(ChannelOrder.allCases.map(\.rawValue), description: "How channel transforms compose (default keyPath).")
        ),
        ("anchorX", .number(description: "Anchor point x as a fraction of the cell's width (default 0.5).")),
        ("anchorY", .number(description: "Anchor point y as a fraction of the cell's height (default 0.5).")),
        ("perspectiveDistance", .number(description: "Perspective distance d in points (m34 = -1/d); none by default.")),
        (
          "timing",
          object(
            "CAMediaTiming on top of each part's delay and duration (default UIKit's).",
            [
              ("speed", .number(description: "Time scale, > 0 (default 1).")),
              ("repeatCount", .number(description: "Iterations, >= 0 (default 0, meaning 1).")),
              ("autoreverses", .boolean(description: "Whether each iteration plays back reversed (default false).")),
              (
                "fillMode",
                .names(FillMode.allCases.map(\.rawValue), description: "What shows outside the active time (default backwards).")
              ),
            ])
        ),
        (
          "motion",
          .names(
            MotionPolicy.allCases.map(\.rawValue),
            description:
              "Reduce motion: full (default), reduced (nothing moves; opacity animates, or a cross-fade replaces the motion) "
              + "or none (end state at once).")
        ),
        (
          "fold",
          object(
            "Fold the detail open or closed in two halves about their hinges.", required: ["direction"],
            [
              ("direction", .names([FoldSpec.Direction.open, .close].map(\.rawValue), description: "open or close.")),
              ("curve", curve), ("duration", Shape.number(description: "Seconds, > 0 (default 0.3).")),
              ("perspectiveDistance", .number(description: "Perspective distance in points (default 500).")),
            ])
        ),
        ("scroll", ScrollEffectFile.shape),
    ])
  }

  // MARK: Checking a file

  static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  /// Checks `tree` against `shape`: every key must be accepted at its level and every
  /// enum string known; a value of a type no alternative takes is left to the decoder,
  /// which reports it with its coding path, as are missing keys.
  ///
  /// - Throws: `CellMotionError.unknownName` naming the key or value and its JSON path
  ///   (e.g. `channels[1].curv`), with `source` for context; the errors of
  ///   `TimingCurve(parsing:)` for a curve string.
  @_optimize(none)  // file reading and writing: once per file (`RecipeFile`)
  static func check(_ tree: JSONValue, against shape: Shape = shape, path: String = "", source: String) throws(CellMotionError) {
    switch shape {
    case .object(let properties, _, _, _, _):
      guard case .object(let dict) = tree else { return }
      for key in dict.keys.sorted() {
        let here = join(path, key)
        guard let property = properties.first(where: { $0.name == key }), let value = dict[key] else {
          throw .unknownName(
            kind: "key", name: key,
            location: "\(here) in \(source) (allowed here: \(properties.map(\.name).sorted().joined(separator: ", ")))")
        }
        try check(value, against: property.shape, path: here, source: source)
      }
    case .array(let element, _):
      guard case .array(let array) = tree else { return }
      for (i, v) in array.enumerated() { try check(v, against: element, path: "\(path)[\(i)]", source: source) }
    case .names(let names, _):
      guard case .string(let s) = tree, !names.contains(s) else { return }
      // The last key of the path, without array indices (`channels[2].channel` -> channel).
      let last = path.split(separator: ".").last ?? Substring(path)
      let key = String(last.prefix { $0 != "[" })
      throw .unknownName(
        kind: kindNames[key] ?? key, name: s,
        location: "\(path) in \(source) (known: \(names.sorted().joined(separator: ", ")))")
    case .curveText:
      guard case .string(let s) = tree else { return }
      _ = try TimingCurve(parsing: s, location: "\(path) in \(source)")
    case .oneOf(let alternatives, _):
      for alternative in alternatives where alternative.accepts(tree) {
        try check(tree, against: alternative, path: path, source: source)
        return
      }
    case .text, .number, .boolean:
      return
    }
  }
}

extension Shape {
  /// Whether a value of `tree`'s JSON type belongs to this shape (types only).
  func accepts(_ tree: JSONValue) -> Bool {
    switch (self, tree) {
    case (.object, .object), (.array, .array), (.names, .string), (.text, .string), (.curveText, .string),
      (.number, .number), (.boolean, .bool):
      return true
    case (.oneOf(let alternatives, _), _):
      return alternatives.contains { $0.accepts(tree) }
    default:
      return false
    }
  }
}

// MARK: - JSON Schema

extension Recipe {
  /// The recipe file format as a JSON Schema (draft 2020-12), for editors and validators:
  /// the same schema `decodeFile` checks, with a description of every key (units and
  /// defaults). The repository keeps a copy at Sources/CellMotion/Recipe/recipe.schema.json
  /// (`cellmotion recipe-schema` prints it); a recipe file may name it in a top-level
  /// `"$schema"` key, which readers ignore.
  public static var jsonSchema: String {
    var out = "{\n"
    out += "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n"
    out += "  \"$id\": \"https://cellmotion.invalid/recipe.schema.json\",\n"
    out += "  \"title\": \"CellMotion recipe\",\n"
    out += RecipeSchema.shape.schemaMembers(indent: 1).joined(separator: ",\n")
    out += "\n}\n"
    return out
  }
}

extension Shape {
  /// This shape's JSON Schema keywords, one string per member at `indent` levels.
  /// Unoptimised: the schema's text, written once by a tool, not worth the optimiser's time.
  @_optimize(none)
  func schemaMembers(indent: Int) -> [String] {
    let pad = String(repeating: "  ", count: indent)
    func str(_ s: String) -> String { StrictJSON.serialize(.string(s)) }
    func member(_ key: String, _ value: String) -> String { "\(pad)\(str(key)): \(value)" }
    switch self {
    case .object(let properties, let required, let exactlyOne, let alternatives, let description):
      let inner = String(repeating: "  ", count: indent + 1)
      let props = properties.map { p in "\(inner)\(str(p.name)): " + p.shape.block(indent: indent + 1) }
      var m = [member("description", str(description)), member("type", str("object"))]
      if !required.isEmpty { m.append(member("required", "[" + required.map(str).joined(separator: ", ") + "]")) }
      m.append(member("properties", "{\n" + props.joined(separator: ",\n") + "\n\(pad)}"))
      m.append(member("additionalProperties", "false"))
      if exactlyOne {
        m.append(member("minProperties", "1"))
        m.append(member("maxProperties", "1"))
      }
      if !alternatives.isEmpty {
        // Exactly one form: each branch requires its keys and forbids the others'.
        let branches = alternatives.map { form -> String in
          var b = "{\"required\": [" + form.requires.map(str).joined(separator: ", ") + "]"
          if !form.forbids.isEmpty {
            b += ", \"not\": {\"anyOf\": [" + form.forbids.map { "{\"required\": [\(str($0))]}" }.joined(separator: ", ") + "]}"
          }
          return b + "}"
        }
        m.append(member("oneOf", "[" + branches.joined(separator: ", ") + "]"))
      }
      return m
    case .array(let element, let description):
      return [
        member("description", str(description)), member("type", str("array")), member("items", element.block(indent: indent)),
      ]
    case .names(let names, let description):
      return [
        member("description", str(description)), member("type", str("string")),
        member("enum", "[" + names.map(str).joined(separator: ", ") + "]"),
      ]
    case .text(let description):
      return [member("description", str(description)), member("type", str("string"))]
    case .curveText:
      let names = ["linear", "easeIn", "easeOut", "easeInEaseOut", "default", "ease", "ease-in", "ease-out", "ease-in-out"]
      return [
        member(
          "description",
          str("A timing function by name, or cubic-bezier(x1, y1, x2, y2) (the reader also accepts other letter cases).")),
        member("type", str("string")),
        member(
          "anyOf",
          "[{\"enum\": [" + names.map(str).joined(separator: ", ") + "]}, {\"pattern\": "
            + str("^\\s*cubic-bezier\\s*\\(([^,()]+,){3}[^,()]+\\)\\s*$") + "}]"),
      ]
    case .number(let description):
      return [member("description", str(description)), member("type", str("number"))]
    case .boolean(let description):
      return [member("description", str(description)), member("type", str("boolean"))]
    case .oneOf(let alternatives, let description):
      return [
        member("description", str(description)),
        member("oneOf", "[\n" + alternatives.map { "\(pad)  " + $0.block(indent: indent + 1) }.joined(separator: ",\n") + "\n\(pad)]"),
      ]
    }
  }

  /// This shape as a JSON object whose members sit one level below `indent` and whose
  /// closing brace sits at `indent`.
  func block(indent: Int) -> String {
    "{\n" + schemaMembers(indent: indent + 1).joined(separator: ",\n") + "\n" + String(repeating: "  ", count: indent) + "}"
  }
}
