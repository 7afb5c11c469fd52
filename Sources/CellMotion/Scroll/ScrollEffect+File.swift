// Scroll effects in recipe files: a recipe file with a "scroll" object is a scroll effect.
// The object says where the recipe's progress comes from (a scroll timeline instead of the
// media-timing clock), in the words each source system uses: CSS animation-range and
// view-timeline-inset strings, SwiftUI thresholds, centred units and distance limits. The
// strict reader checks it with the rest of the file (RecipeSchema), then this file turns
// it into a `ScrollTimeline`; every failure names its JSON path.

import Foundation

extension ScrollEffect {
  /// Reads a scroll effect from a recipe file with a `"scroll"` object (the schema's
  /// `scroll`, `Recipe.jsonSchema`):
  ///
  /// ```json
  /// { "name": "reveal", "channels": [...], "timing": {"fillMode": "both"},
  ///   "scroll": { "timeline": {"view": {"range": "entry 0% entry 100%"}}, "fill": "both" } }
  /// ```
  ///
  /// The recipe is read as `Recipe.decodeFile` reads it. The `"scroll"` object holds:
  /// - `timeline`, exactly one of `view` (`range`: CSS `animation-range`, default
  ///   `"normal"`; `insets`: CSS `view-timeline-inset`, default `"auto"`), `scroll`
  ///   (`range`), `transitionPhase` (`threshold`: `"visible"`, `"hidden"`, `"centered"` or
  ///   the visible fraction; `inset`: points toward the centre), `centred` (`unit`: points,
  ///   `"cellExtent"` or `"halfVisibleExtent"`; `range`: `[lower, upper]`, default
  ///   `[-1, 1]`), `distance` (`cellPoint` and `line`: fractions, default 0; `limit`:
  ///   `"unbounded"`, `"toSectionEnd"` or `[lower, upper]` points);
  /// - `axis`: `"vertical"` (default) or `"horizontal"`;
  /// - `fill`: what shows outside the range, `"both"` (default; clamp), `"none"`,
  ///   `"forwards"`, `"backwards"`, or `{"before": o, "after": o}` with o one of clamp,
  ///   none, extend, hide (a SwiftUI phase ignores it);
  /// - `domain`: `[lower, upper]`, the timeline values mapped to progress 0 and 1 (default
  ///   the timeline's own);
  /// - `foldsValue`: the recipe reads |value| (default false);
  /// - `name`: the effect's name (default the recipe's).
  ///
  /// - Parameters:
  ///   - data: the file's bytes (UTF-8).
  ///   - source: how messages name the file, e.g. its path.
  /// - Throws: `Recipe.decodeFile`'s errors; `.invalidStructure` naming the path (e.g.
  ///   `scroll.timeline.centred.range`) for a missing `scroll` object or a value of the
  ///   wrong form; `.invalidSyntax` for a range or inset string CSS does not accept;
  ///   `ScrollTimeline`'s and `ScrollEffect`'s own validation errors.
  public static func decodeFile(_ data: Data, source: String) throws(CellMotionError) -> ScrollEffect {
    var root = try RecipeFile.checkedRoot(data, source: source)
    guard let scroll = root.removeValue(forKey: "scroll") else {
      throw .invalidStructure(
        source: source, path: "scroll", reason: "missing key \"scroll\": a recipe file without it is not a scroll effect")
    }
    let recipe = try RecipeFile.decode(checkedRoot: root, source: source)
    return try ScrollEffectFile.effect(scroll, recipe: recipe, source: source)
  }

  /// The effect as a recipe file `decodeFile` reads back as this effect: the recipe's
  /// JSON with a `"scroll"` object (sorted keys, pretty-printed).
  public var fileJSON: String {
    guard let text = RecipeFile.encode(recipe), case .object(var root)? = try? StrictJSON.parse(Data(text.utf8)) else {
      preconditionFailure("\(name): a validated recipe did not encode as a JSON object")
    }
    root["scroll"] = ScrollEffectFile.tree(self)
    return StrictJSON.serialize(.object(root), pretty: true) + "\n"
  }
}

/// The `"scroll"` object of a recipe file: its schema, reading and writing.
enum ScrollEffectFile {
  static let fillNames = ["both", "none", "forwards", "backwards"]

  static let shape: Shape = makeShape()
  // One large literal, built once a process: unoptimised (as `RecipeSchema.shape`).
  @_optimize(none)
  private static func makeShape() -> Shape {
    RecipeSchema.object(
      "A scroll effect: the recipe's progress comes from where each cell sits in a scrolling list "
        + "(ScrollEffect.decodeFile) instead of the clock.",
      required: ["timeline"],
      [
        (
          "timeline",
          RecipeSchema.object(
            "Exactly one timeline kind.", exactlyOne: true,
            [
              (
                "view",
                RecipeSchema.object(
                  "A CSS view() timeline.",
                  [
                    ("range", .text(description: "CSS animation-range, e.g. \"entry 0% entry 100%\" (default \"normal\").")),
                    ("insets", .text(description: "CSS view-timeline-inset, e.g. \"auto\" or \"10% 40px\" (default \"auto\").")),
                  ])
              ),
              (
                "scroll",
                RecipeSchema.object(
                  "A CSS scroll() timeline.",
                  [("range", .text(description: "CSS animation-range over the scroll range (default \"normal\")."))])
              ),
              (
                "transitionPhase",
                RecipeSchema.object(
                  "SwiftUI's scrollTransition phase, -1 ... 0 ... +1.",
                  [
                    (
                      "threshold",
                      .oneOf(
                        [
                          .names(["visible", "hidden", "centered"], description: "A named threshold (default visible)."),
                          .number(description: "The visible fraction of the cell, visible(a)."),
                        ], description: "Where the phase reaches identity.")
                    ),
                    ("inset", .number(description: "Points the threshold moves toward the centre (default 0).")),
                  ])
              ),
              (
                "centred",
                RecipeSchema.object(
                  "A centred position: 0 centred, +-1 one unit away (wheels, pagers, cover flow).", required: ["unit"],
                  [
                    (
                      "unit",
                      .oneOf(
                        [
                          .number(description: "Points, > 0."),
                          .names(["cellExtent", "halfVisibleExtent"], description: "The cell's extent or half the visible extent."),
                        ], description: "How far from the centre is one unit.")
                    ),
                    ("range", .array(.number(description: "A bound."), description: "[lower, upper] (default [-1, 1]).")),
                  ])
              ),
              (
                "distance",
                RecipeSchema.object(
                  "A distance in points between a point of the cell and a line of the viewport (sticky, parallax).",
                  required: ["limit"],
                  [
                    ("cellPoint", .number(description: "The cell's point, a fraction of its extent (default 0).")),
                    ("line", .number(description: "The viewport's line, a fraction of its visible extent (default 0).")),
                    (
                      "limit",
                      .oneOf(
                        [
                          .names(["unbounded", "toSectionEnd"], description: "No limit, or up to the section's end."),
                          .array(.number(description: "A bound, points."), description: "[lower, upper], points."),
                        ], description: "The distances the effect runs over.")
                    ),
                  ])
              ),
            ])
        ),
        ("axis", .names(ScrollAxis.allCases.map(\.rawValue), description: "The list's axis (default vertical).")),
        (
          "fill",
          .oneOf(
            [
              .names(fillNames, description: "CSS animation-fill-mode (default both)."),
              RecipeSchema.object(
                "Each side's fill.",
                [
                  ("before", .names(ScrollFill.Outside.allCases.map(\.rawValue), description: "Before the range.")),
                  ("after", .names(ScrollFill.Outside.allCases.map(\.rawValue), description: "After the range.")),
                ]),
            ], description: "What shows outside the timeline's range.")
        ),
        ("domain", .array(.number(description: "A bound."), description: "The values mapped to progress 0 and 1.")),
        ("foldsValue", .boolean(description: "The recipe reads the value's magnitude (default false).")),
        ("name", .text(description: "The effect's name (default the recipe's).")),
    ])
  }

  // MARK: Reading

  /// The effect the `"scroll"` object `value` makes of `recipe`.
  @_optimize(none)  // file reading and writing: once per file (`RecipeFile`)
  static func effect(_ value: JSONValue, recipe: Recipe, source: String) throws(CellMotionError) -> ScrollEffect {
    let scroll = try object(value, "scroll", source)
    let timelineObject = try object(scroll["timeline"], "scroll.timeline", source)
    guard timelineObject.count == 1, let (kind, body) = timelineObject.first else {
      throw .invalidStructure(
        source: source, path: "scroll.timeline",
        reason: "expected exactly one of view, scroll, transitionPhase, centred, distance")
    }
    let path = "scroll.timeline.\(kind)"
    let parts = try object(body, path, source)
    let axis = try scroll["axis"].map { v throws(CellMotionError) in
      ScrollAxis(rawValue: try string(v, "scroll.axis", source)) ?? .vertical
    } ?? .vertical
    let fill = try self.fill(scroll["fill"], source)
    let timeline: ScrollTimeline
    switch kind {
    case "view":
      let range = try AnimationRange(parsing: try parts["range"].map { v throws(CellMotionError) in try string(v, "\(path).range", source) } ?? "normal")
      let insets = try parts["insets"].map { v throws(CellMotionError) in
        try ViewTimelineInsets(parsing: try string(v, "\(path).insets", source))
      } ?? .auto
      timeline = try .view(range, insets: insets, axis: axis, fill: fill)
    case "scroll":
      let range = try AnimationRange(parsing: try parts["range"].map { v throws(CellMotionError) in try string(v, "\(path).range", source) } ?? "normal")
      timeline = try .scroll(range, axis: axis, fill: fill)
    case "transitionPhase":
      var threshold = ScrollTransitionThreshold.visible
      switch parts["threshold"] {
      case nil: break
      case .string("visible")?: threshold = .visible
      case .string("hidden")?: threshold = .hidden
      case .string("centered")?: threshold = .centered
      case .number(let a)?: threshold = .visible(a)
      default: throw wrong("\(path).threshold", "visible, hidden, centered or a fraction", source)
      }
      if let inset = parts["inset"] { threshold = threshold.inset(by: try number(inset, "\(path).inset", source)) }
      timeline = try ScrollTimeline(.transitionPhase(threshold: threshold), axis: axis, fill: fill)
    case "centred":
      let unit: CentredUnit
      switch parts["unit"] {
      case .number(let u)?: unit = .points(u)
      case .string("cellExtent")?: unit = .cellExtent
      case .string("halfVisibleExtent")?: unit = .halfVisibleExtent
      default: throw wrong("\(path).unit", "points, cellExtent or halfVisibleExtent", source)
      }
      let range = try parts["range"].map { v throws(CellMotionError) in try bounds(v, "\(path).range", source) } ?? -1...1
      timeline = try .centred(unit: unit, range: range, axis: axis, fill: fill)
    case "distance":
      let limit: DistanceLimit
      switch parts["limit"] {
      case .string("unbounded")?: limit = .unbounded
      case .string("toSectionEnd")?: limit = .toSectionEnd
      case .array?: limit = .range(try bounds(parts["limit"]!, "\(path).limit", source))
      default: throw wrong("\(path).limit", "unbounded, toSectionEnd or [lower, upper]", source)
      }
      let cellPoint = try parts["cellPoint"].map { v throws(CellMotionError) in try number(v, "\(path).cellPoint", source) } ?? 0
      let line = try parts["line"].map { v throws(CellMotionError) in try number(v, "\(path).line", source) } ?? 0
      timeline = try .distance(cellPoint: cellPoint, line: line, limit: limit, axis: axis, fill: fill)
    default:
      throw .unknownName(kind: "timeline kind", name: kind, location: "scroll.timeline in \(source)")
    }
    let domain = try scroll["domain"].map { v throws(CellMotionError) in try bounds(v, "scroll.domain", source) }
    let folds = try scroll["foldsValue"].map { v throws(CellMotionError) -> Bool in
      guard case .bool(let b) = v else { throw wrong("scroll.foldsValue", "true or false", source) }
      return b
    } ?? false
    let name = try scroll["name"].map { v throws(CellMotionError) in try string(v, "scroll.name", source) } ?? recipe.name
    return try ScrollEffect(name: name, timeline: timeline, recipe: recipe, domain: domain, foldsValue: folds)
  }

  static func fill(_ value: JSONValue?, _ source: String) throws(CellMotionError) -> ScrollFill {
    switch value {
    case nil, .string("both")?: return .both
    case .string("none")?: return .none
    case .string("forwards")?: return .forwards
    case .string("backwards")?: return .backwards
    case .object(let sides)?:
      func side(_ key: String) throws(CellMotionError) -> ScrollFill.Outside {
        guard let v = sides[key] else { return .clamp }
        guard case .string(let s) = v, let o = ScrollFill.Outside(rawValue: s) else {
          throw wrong("scroll.fill.\(key)", ScrollFill.Outside.allCases.map(\.rawValue).joined(separator: ", "), source)
        }
        return o
      }
      return ScrollFill(before: try side("before"), after: try side("after"))
    default: throw wrong("scroll.fill", "both, none, forwards, backwards or {before, after}", source)
    }
  }

  static func wrong(_ path: String, _ expected: String, _ source: String) -> CellMotionError {
    .invalidStructure(source: source, path: path, reason: "wrong type (expected \(expected))")
  }

  static func object(_ value: JSONValue?, _ path: String, _ source: String) throws(CellMotionError) -> [String: JSONValue] {
    guard let value else { throw .invalidStructure(source: source, path: path, reason: "missing value (expected an object)") }
    guard case .object(let o) = value else { throw wrong(path, "an object", source) }
    return o
  }

  static func string(_ value: JSONValue, _ path: String, _ source: String) throws(CellMotionError) -> String {
    guard case .string(let s) = value else { throw wrong(path, "a string", source) }
    return s
  }

  static func number(_ value: JSONValue, _ path: String, _ source: String) throws(CellMotionError) -> Double {
    guard case .number(let x) = value else { throw wrong(path, "a number", source) }
    return x
  }

  /// `[lower, upper]` with lower <= upper.
  static func bounds(_ value: JSONValue, _ path: String, _ source: String) throws(CellMotionError) -> ClosedRange<Double> {
    guard case .array(let a) = value, a.count == 2, case .number(let lo) = a[0], case .number(let hi) = a[1] else {
      throw wrong(path, "[lower, upper], two numbers", source)
    }
    guard lo <= hi else { throw .outOfRange(field: path, value: hi, expected: "at least the lower bound \(lo)") }
    return lo...hi
  }

  // MARK: Writing

  /// The `"scroll"` object of `effect`.
  @_optimize(none)  // file reading and writing: once per file (`RecipeFile`)
  static func tree(_ effect: ScrollEffect) -> JSONValue {
    let t = effect.timeline
    var kind: (String, [String: JSONValue])
    switch t.kind {
    case .view(let range, let insets): kind = ("view", ["range": .string("\(range)"), "insets": .string("\(insets)")])
    case .scroll(let range): kind = ("scroll", ["range": .string("\(range)")])
    case .transitionPhase(let threshold):
      var parts: [String: JSONValue] = [:]
      switch threshold.base {
      case .visible(let a): parts["threshold"] = .number(a)
      case .centered: parts["threshold"] = .string("centered")
      }
      if threshold.inset != 0 { parts["inset"] = .number(threshold.inset) }
      kind = ("transitionPhase", parts)
    case .centred(let unit, let range):
      let u: JSONValue
      switch unit {
      case .points(let p): u = .number(p)
      case .cellExtent: u = .string("cellExtent")
      case .halfVisibleExtent: u = .string("halfVisibleExtent")
      }
      kind = ("centred", ["unit": u, "range": .array([.number(range.lowerBound), .number(range.upperBound)])])
    case .distance(let cellPoint, let line, let limit):
      let l: JSONValue
      switch limit {
      case .unbounded: l = .string("unbounded")
      case .toSectionEnd: l = .string("toSectionEnd")
      case .range(let r): l = .array([.number(r.lowerBound), .number(r.upperBound)])
      }
      kind = ("distance", ["cellPoint": .number(cellPoint), "line": .number(line), "limit": l])
    }
    var scroll: [String: JSONValue] = [
      "timeline": .object([kind.0: .object(kind.1)]),
      "axis": .string(t.axis.rawValue),
      "fill": .object(["before": .string(t.fill.before.rawValue), "after": .string(t.fill.after.rawValue)]),
      "domain": .array([.number(effect.domain.lowerBound), .number(effect.domain.upperBound)]),
      "foldsValue": .bool(effect.foldsValue),
    ]
    if effect.name != effect.recipe.name { scroll["name"] = .string(effect.name) }
    return .object(scroll)
  }
}
