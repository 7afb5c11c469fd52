// `cellmotion inspect`: a recipe's compiled form (CompiledRecipe): channels and the timed
// parts they share, curve constants, decomposed start and end transforms, durations,
// stagger, active duration and settle times. `cellmotion recipe-template`: a starting
// recipe file in Recipe's Codable form.

import ArgumentParser
import CellMotion
import CellMotionKernel
import Foundation
import _CLISupport

struct InspectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "inspect",
    abstract: "Print a recipe's compiled form (text, or --json).",
    discussion: """
      Start and end transforms are evaluated by the scalar reference for one cell \
      (--width x --height points, row 0) at its start and after its end; they map cell \
      points to the cell's resting frame, the anchor sandwich and perspective included, \
      and are decomposed as CSS Transforms Level 2 (translation, scale, skew, perspective, \
      quaternion).
      """)

  @Argument(help: "A preset name or a recipe JSON file.")
  var recipe: String = "tipIn"
  @Flag(help: "Print JSON instead of text.")
  var json = false
  @Flag(help: "Print the recipe itself in its Codable JSON form (as recipe-template does) and stop.")
  var emitJson = false
  @Option(parsing: .unconditional, help: "Cell width, points.")
  var width: Double = 375
  @Option(parsing: .unconditional, help: "Cell height, points.")
  var height: Double = 80
  @Option(parsing: .unconditional, help: "Fold recipes: detail height, points.")
  var detailHeight: Double = 160
  @Option(parsing: .unconditional, help: "Rows listed under settle times.")
  var rows: Int = 10
  @Option(name: [.short, .long], help: "Output file (default: stdout).")
  var output: String?

  mutating func validate() throws {
    for (name, v) in [("--width", width), ("--height", height), ("--detail-height", detailHeight)] where !(v.isFinite && v > 0) {
      throw ValidationError("\(name) must be a finite number > 0, got \(v)")
    }
    guard rows >= 1, rows <= 10_000 else { throw ValidationError("--rows must be in 1...10000, got \(rows)") }
  }

  mutating func run() throws {
    let destination = try Destination(output)
    let recipe = try RecipeSource.load(self.recipe)
    if emitJson { return try destination.write(RecipeSource.json(recipe)) }
    let compiled = try CompiledRecipe(recipe)
    let report = Inspection(recipe: recipe, compiled: compiled, command: self).tree()
    let text: String
    if json {
      // StrictJSON's writer: sorted keys, non-finite numbers as null, never an error.
      text = StrictJSON.serialize(Inspection.json(report), pretty: true) + "\n"
    } else {
      text = Inspection.text(report)
    }
    try destination.write(text)
  }
}

/// The inspection as a JSON-compatible tree (the text form prints the same tree).
struct Inspection {
  let recipe: Recipe
  let compiled: CompiledRecipe
  let command: InspectCommand

  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  func tree() -> [String: Any] {
    let geometry = CellGeometry(width: command.width, height: command.height, tableWidth: command.width, detailHeight: command.detailHeight)
    let start = ReferenceEvaluator.evaluate(recipe, geometry: geometry, time: 0)
    let endTime = recipe.activeDuration.isFinite ? recipe.activeDuration + 1 : 1e9
    let end = ReferenceEvaluator.evaluate(recipe, geometry: geometry, time: endTime)
    var out: [String: Any] = [
      "name": recipe.name,
      "order": recipe.order.rawValue,
      "anchor": [recipe.anchorX, recipe.anchorY],
      "perspectiveDistance": recipe.perspectiveDistance.map { $0 as Any } ?? NSNull(),
      "m34": Double(compiled.m34),
      "timing": [
        "speed": recipe.timing.speed, "repeatCount": recipe.timing.repeatCount,
        "autoreverses": recipe.timing.autoreverses, "fillMode": recipe.timing.fillMode.rawValue,
      ],
      "stagger": staggerTree(recipe.stagger),
      "activeDuration": finite(recipe.activeDuration),
      "planar": compiled.isPlanar,
      "channels": compiled.channels.map { c in
        // A keyframe channel reads its value from its keyframe row (from 0 to 1): show the
        // segments the kernel selects from instead.
        if let k = compiled.keyframes.first(where: { $0.row == c.part }) {
          return [
            "channel": c.channel.rawValue, "part": k.part, "keyframeRow": k.row,
            "keyframes": k.segments.map { s in
              [
                "start": Double(s.start), "invSpan": Double(s.invSpan), "easing": "\(s.kind)",
                "cubic": [s.poly[0], s.poly[1], s.poly[2], s.poly[3]].map(Double.init),
              ] as [String: Any]
            },
          ] as [String: Any]
        }
        return [
          "channel": c.channel.rawValue, "part": c.part,
          "from": ["constant": Double(c.from.x), "perCellHeight": Double(c.from.y), "perTableWidth": Double(c.from.z)],
          "to": ["constant": Double(c.to.x), "perCellHeight": Double(c.to.y), "perTableWidth": Double(c.to.z)],
        ] as [String: Any]
      },
      "parts": partTrees(),
      "cell": ["width": command.width, "height": command.height],
      "start": transformTree(start.transform, opacity: start.opacity),
      "end": transformTree(end.transform, opacity: end.opacity),
      "settleTimes": (0..<command.rows).map { row in
        [
          "row": row,
          // The first --rows rows as one batch appearing together.
          "seconds": finite(recipe.settleTime(row: row, batchPosition: row, rowCount: command.rows, batchCount: command.rows)),
        ] as [String: Any]
      },
    ]
    if let m = recipe.matrix {
      let interpolator = TransformInterpolator(from: m.from, to: m.to, mode: m.mode)
      var matrix: [String: Any] = ["mode": m.mode.rawValue, "from": m.from.fieldOrder, "to": m.to.fieldOrder]
      switch interpolator.path {
      case .twoD(let a, let b):
        matrix["path"] = "2D (CSS Transforms Level 1)"
        matrix["decomposedFrom"] = decomposed2D(a)
        matrix["decomposedTo"] = decomposed2D(b)
      case .threeD(let a, let b):
        matrix["path"] = "3D (CSS Transforms Level 2, Core Animation slerp)"
        matrix["decomposedFrom"] = decomposed3D(a)
        matrix["decomposedTo"] = decomposed3D(b)
      case .componentwise: matrix["path"] = "componentwise"
      case .discrete: matrix["path"] = "discrete (an end cannot be decomposed)"
      }
      if let k = m.keyframes {
        // Keyframes: each segment's path (from and to above are the first and last values).
        matrix["path"] = "keyframes"
        matrix["keyframes"] = [
          "values": k.values.map(\.fieldOrder), "calculationMode": k.mode.rawValue,
          "keyTimes": ((try? k.timing())?.keyTimes ?? []) as [Double],
          "segmentPaths": (0..<max(k.values.count - 1, 0)).map { i -> String in
            switch k.segment(i, m.mode).path {
            case .twoD: return "2D"
            case .threeD: return "3D"
            case .componentwise: return "componentwise"
            case .discrete: return "discrete"
            }
          },
        ] as [String: Any]
        matrix.removeValue(forKey: "decomposedFrom")
        matrix.removeValue(forKey: "decomposedTo")
      }
      out["matrix"] = matrix
    }
    if let f = recipe.fold, let s0 = start.fold, let s1 = end.fold {
      out["fold"] = [
        "direction": f.direction.rawValue, "duration": f.duration, "perspectiveDistance": f.perspectiveDistance,
        "halfHeight": s0.halfHeight,
        "start": ["top": transformTree(s0.top, opacity: nil), "bottom": transformTree(s0.bottom, opacity: nil), "shadowOpacity": s0.topShadowOpacity],
        "end": ["top": transformTree(s1.top, opacity: nil), "bottom": transformTree(s1.bottom, opacity: nil), "shadowOpacity": s1.topShadowOpacity],
      ] as [String: Any]
    }
    return out
  }

  func staggerTree(_ s: Stagger) -> [String: Any] {
    var t: [String: Any] = ["step": s.step, "base": s.base.rawValue]
    switch s.from {
    case .first: t["from"] = "first"
    case .last: t["from"] = "last"
    case .center: t["from"] = "center"
    case .index(let k): t["from"] = k
    case .random(let seed): t["from"] = "random (seed \(seed))"
    }
    if let grid = s.grid { t["grid"] = "\(grid.columns) columns, axis \(grid.axis.rawValue)" }
    if s.reversed { t["reversed"] = true }
    if let ease = s.ease { t["ease"] = ease.description }
    return t
  }

  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  func partTrees() -> [[String: Any]] {
    let sources = CurveSource.parts(of: recipe)
    return compiled.parts.enumerated().map { i, part in
      var t: [String: Any] = [
        "index": i, "duration": Double(part.duration), "delay": Double(part.delay), "endLocalTime": Double(part.endLocalTime),
        "kernel": "\(part.curve)",
        "usedBy": sources.filter { abs($0.duration - Double(part.duration)) < 1e-6 && abs($0.delay - Double(part.delay)) < 1e-6 && CompiledCurve($0.curve) == part.curve }.map(\.what),
      ]
      if let source = sources.first(where: { CompiledCurve($0.curve) == part.curve }) {
        switch source.curve {
        case .bezier(let b):
          let p = b.polynomial
          t["curve"] = [
            "type": "bezier", "name": b.name.map { $0 as Any } ?? NSNull(), "controlPoints": [b.x1, b.y1, b.x2, b.y2],
            "polynomial": ["ax": p.ax, "bx": p.bx, "cx": p.cx, "ay": p.ay, "by": p.by, "cy": p.cy],
          ] as [String: Any]
          t["settles"] = Double(part.delay + part.duration)
        case .spring(let s):
          let w0 = s.naturalFrequency, zeta = s.dampingRatio
          t["curve"] = [
            "type": "spring", "mass": s.mass, "stiffness": s.stiffness, "damping": s.damping,
            "initialVelocity": s.initialVelocity, "omega0": w0, "zeta": zeta, "regime": s.regime.rawValue,
            "omegaD": zeta < 1 ? w0 * (1 - zeta * zeta).squareRoot() : 0,
            "settlingDuration": finite(s.settlingDuration),
          ] as [String: Any]
          t["settles"] = Double(part.delay) + min(s.settlingDuration, Double(part.duration))
        }
      }
      return t
    }
  }

  func transformTree(_ t: Transform3D, opacity: Double?) -> [String: Any] {
    var out: [String: Any] = ["matrix": t.fieldOrder]
    if let opacity { out["opacity"] = opacity }
    if let d = Decomposed3D(t) { out["decomposed"] = decomposed3D(d) } else { out["decomposed"] = NSNull() }
    return out
  }

  func decomposed3D(_ d: Decomposed3D) -> [String: Any] {
    [
      "translation": [d.translate.x, d.translate.y, d.translate.z], "scale": [d.scale.x, d.scale.y, d.scale.z],
      "skew": [d.skew.x, d.skew.y, d.skew.z],
      "perspective": [d.perspective.0, d.perspective.1, d.perspective.2, d.perspective.3],
      "quaternion": [d.quaternion.x, d.quaternion.y, d.quaternion.z, d.quaternion.w],
    ]
  }

  func decomposed2D(_ d: Decomposed2D) -> [String: Any] {
    [
      "translation": [d.translateX, d.translateY], "scale": [d.scaleX, d.scaleY], "angle": d.angle,
      "matrix": [d.m11, d.m12, d.m21, d.m22],
    ]
  }

  func finite(_ x: Double) -> Any { x.isFinite ? x : NSNull() }

  /// The tree as a JSON value (numbers that are not finite become null when written).
  static func json(_ v: Any) -> JSONValue {
    switch v {
    case let d as [String: Any]: return .object(d.mapValues(json))
    case let a as [Any]: return .array(a.map(json))
    case let b as Bool: return .bool(b)
    case let x as Double: return .number(x)
    case let x as Float: return .number(Double(x))
    case let i as Int: return .number(Double(i))
    case let s as String: return .string(s)
    case is NSNull: return .null
    default: return .string("\(v)")
    }
  }

  // MARK: - Text

  /// The tree as indented `key: value` lines (keys in a fixed reading order).
  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  static func text(_ tree: [String: Any]) -> String {
    let order = [
      "name", "order", "anchor", "perspectiveDistance", "m34", "timing", "stagger", "activeDuration", "planar",
      "channels", "parts", "matrix", "fold", "cell", "start", "end", "settleTimes",
    ]
    var s = "# seconds, points, radians; omega in rad/s; matrices in CATransform3D field order m11 ... m44\n"
    for key in order + tree.keys.filter({ !order.contains($0) }).sorted() {
      guard let v = tree[key] else { continue }
      s += lines(key, v, indent: "")
    }
    return s
  }

  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  static func lines(_ key: String, _ v: Any, indent: String) -> String {
    if let d = v as? [String: Any], d.count <= 4, d.values.allSatisfy({ !($0 is [String: Any]) && !($0 is [Any]) }) {
      return "\(indent)\(key): " + d.keys.sorted().map { "\($0) \(scalar(d[$0] as Any))" }.joined(separator: ", ") + "\n"
    }
    if let d = v as? [String: Any] {
      return "\(indent)\(key):\n" + d.keys.sorted().map { lines($0, d[$0] as Any, indent: indent + "  ") }.joined()
    }
    if let a = v as? [Any], a.contains(where: { $0 is [String: Any] }) {
      return "\(indent)\(key):\n" + a.enumerated().map { lines("[\($0)]", $1, indent: indent + "  ") }.joined()
    }
    return "\(indent)\(key): \(scalar(v))\n"
  }

  static func scalar(_ v: Any) -> String {
    switch v {
    case let a as [Any]: return "(" + a.map(scalar).joined(separator: ", ") + ")"
    case let b as Bool: return b ? "true" : "false"
    case let d as Double: return num(d, 7)
    case let i as Int: return String(i)
    case let s as String: return escapingControls(s)
    case is NSNull: return "none"
    default: return "\(v)"
    }
  }
}

struct RecipeTemplateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recipe-template",
    abstract: "Print a preset as a recipe JSON file (Recipe's Codable form) to start from.")

  @Argument(help: "A preset name (\(Recipe.presetNames.joined(separator: ", "))).")
  var preset: String = "tipIn"
  @Option(
    help: ArgumentHelp(
      "Print this scroll effect preset's file instead (\(ScrollEffectKind.allCases.map(\.rawValue).joined(separator: ", "))): the recipe with its \"scroll\" object.",
      discussion: "Sized for --row-height and --viewport-height as `render --scroll-effect` sizes it; `render --scroll-effect FILE.json` reads the file back."))
  var scrollEffect: ScrollEffectKind?
  @Option(parsing: .unconditional, help: "With --scroll-effect: row height, points.")
  var rowHeight: Double = 80
  @Option(parsing: .unconditional, help: "With --scroll-effect: viewport height, points.")
  var viewportHeight: Double = 667
  @Option(
    help: "With --scroll-effect: the table's axis, vertical or horizontal (then --row-height and --viewport-height are widths, as in `render --axis horizontal`).")
  var axis: ScrollAxis = .vertical
  @Option(name: [.short, .long], help: "Output file (default: stdout).")
  var output: String?

  mutating func run() throws {
    let destination = try Destination(output)
    if let kind = scrollEffect {
      try ScrollEffectSpec.checkLengths([("--row-height", rowHeight), ("--viewport-height", viewportHeight)])
      try destination.write(try kind.effect(rowHeight: rowHeight, viewportHeight: viewportHeight, axis: axis).fileJSON)
      return
    }
    try destination.write(RecipeSource.json(try Recipe.preset(named: preset)))
  }
}

/// `cellmotion recipe-schema`: the recipe file format as a JSON Schema.
struct RecipeSchemaCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recipe-schema",
    abstract: "Print the recipe file format as a JSON Schema (draft 2020-12) for editors and validators.")

  @Option(name: [.short, .long], help: "Output file (default: stdout).")
  var output: String?

  mutating func run() throws {
    let destination = try Destination(output)
    try destination.write(Recipe.jsonSchema)
  }
}
