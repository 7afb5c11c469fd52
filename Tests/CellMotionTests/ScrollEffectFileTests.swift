// ScrollEffect.decodeFile: recipe files with a "scroll" object. Every preset's file reads
// back as the preset; defaults, the CSS strings and the errors with their JSON paths.

import Foundation
import Testing

@testable import CellMotion

@Suite("Scroll effects in recipe files")
struct ScrollEffectFileTests {
  /// Every preset, and timelines and fills the presets do not use.
  static func effects() throws -> [ScrollEffect] {
    [
      try .reveal(), try .reveal(range: AnimationRange(parsing: "entry 25% exit 75%"), axis: .horizontal),
      try .edgeFadeScale(), try .edgeFadeScale(threshold: .centered.inset(by: 12)),
      try .edgeFadeScale(threshold: .visible(0.5), axis: .horizontal), try .coverFlow(pitch: 180),
      try .wheelPicker(viewportExtent: 216, itemExtent: 32), try .carouselKeylines(pitch: 200),
      try .parallaxContent(overflow: 60), try .stretchyHeader(height: 200), try .stickyHeader(), try .depthPage(),
      try .zoomOutPage(),
      try ScrollEffect(
        name: "entryNone", timeline: .view(AnimationRange(parsing: "entry 10% cover 60%"), insets: ViewTimelineInsets(parsing: "10% 40px"), fill: .none),
        recipe: .tipIn),
      try ScrollEffect(
        name: "exitForwards", timeline: .view(AnimationRange(parsing: "exit"), axis: .horizontal, fill: .forwards),
        recipe: .moveUpFade),
      try ScrollEffect(name: "scrollBoth", timeline: .scroll(AnimationRange(parsing: "0% 50%"), fill: .both), recipe: .slideIn),
      try ScrollEffect(
        name: "centredExtend", timeline: .centred(unit: .cellExtent, fill: .extend), recipe: .tipInChannels,
        domain: -3...3),
      try ScrollEffect(
        name: "hiddenAfter", timeline: .centred(unit: .halfVisibleExtent, range: -2...0.5, fill: ScrollFill(before: .extend, after: .hide)),
        recipe: .fadeIn),
      try ScrollEffect(
        name: "distanceRange", timeline: .distance(cellPoint: 0.5, line: 0.25, limit: .range(-40...80), fill: .both),
        recipe: .pulse),
    ]
  }

  func decode(_ text: String) throws(CellMotionError) -> ScrollEffect {
    try ScrollEffect.decodeFile(Data(text.utf8), source: "e.json")
  }

  func error(_ text: String) -> CellMotionError? {
    do {
      _ = try decode(text)
      return nil
    } catch {
      return error
    }
  }

  /// `effect`'s file with its "scroll" object edited.
  func edited(_ effect: ScrollEffect, _ change: (inout [String: JSONValue]) -> Void) throws -> String {
    guard case .object(var root) = try StrictJSON.parse(Data(effect.fileJSON.utf8)), case .object(var scroll)? = root["scroll"]
    else { throw CellMotionError.invalidCombination(field: "test", reason: "no scroll object") }
    change(&scroll)
    root["scroll"] = .object(scroll)
    return StrictJSON.serialize(.object(root))
  }

  @Test("every preset's file reads back as the preset, and evaluates as it does")
  func roundTrip() throws {
    for effect in try Self.effects() {
      let read = try decode(effect.fileJSON)
      #expect(read == effect, "\(effect.name)")
      let scroll = try ScrollState(offsetY: 300, viewportWidth: 375, viewportHeight: 640, contentHeight: 5000)
      for y in stride(from: -200.0, through: 1200, by: 97) {
        let cell = try ScrollCell(y: y, width: 375, height: 88, sectionEnd: y + 400)
        #expect(read.evaluate(cell: cell, scroll: scroll) == effect.evaluate(cell: cell, scroll: scroll), "\(effect.name) at \(y)")
      }
    }
  }

  @Test("defaults: axis vertical, fill both, the timeline's domain, not folded, the recipe's name; CSS strings")
  func defaults() throws {
    let reveal = try ScrollEffect.reveal()
    // Only the timeline given: the rest defaults to what the preset has.
    let minimal = try edited(reveal) { s in
      s = ["timeline": .object(["view": .object(["range": .string("entry")])])]
    }
    #expect(try decode(minimal) == reveal)
    // A view timeline with neither range nor insets is CSS's: normal (cover), auto.
    let plain = try decode(try edited(reveal) { s in s = ["timeline": .object(["view": .object([:])])] })
    #expect(plain.timeline == (try .view(.normal, insets: .auto, fill: .both)))
    // Named fills and thresholds.
    let fills: [(String, ScrollFill)] = [("both", .both), ("none", .none), ("forwards", .forwards), ("backwards", .backwards)]
    for (name, fill) in fills {
      let e = try decode(try edited(reveal) { s in s["fill"] = .string(name) })
      #expect(e.timeline.fill == fill, "\(name)")
    }
    let edge = try ScrollEffect.edgeFadeScale()
    for (name, threshold) in [("visible", ScrollTransitionThreshold.visible), ("hidden", .hidden), ("centered", .centered)] {
      let e = try decode(try edited(edge) { s in s["timeline"] = .object(["transitionPhase": .object(["threshold": .string(name)])]) })
      #expect(e.timeline.kind == .transitionPhase(threshold: threshold), "\(name)")
    }
  }

  @Test("the Scroll effects article's file example reads as the reveal preset")
  func articleExample() throws {
    let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/CellMotion/CellMotion.docc/ScrollEffects.md").standardized
    let text = try String(contentsOf: article, encoding: .utf8)
    guard let start = text.range(of: "```json\n"), let end = text.range(of: "```", range: start.upperBound..<text.endIndex) else {
      Issue.record("no json block in ScrollEffects.md")
      return
    }
    #expect(try decode(String(text[start.upperBound..<end.lowerBound])) == ScrollEffect.reveal())
  }

  @Test("errors name the key or path; a recipe file and a scroll effect's file are told apart")
  func errors() throws {
    let reveal = try ScrollEffect.reveal()
    // A recipe without "scroll" is not a scroll effect, and a scroll effect is not a recipe.
    let recipeText = try #require(RecipeFile.encode(Recipe.tipIn))
    guard case .invalidStructure(_, let path, _)? = error(recipeText) else {
      Issue.record("a recipe read as a scroll effect")
      return
    }
    #expect(path == "scroll")
    #expect(throws: CellMotionError.self) { try Recipe.decodeFile(Data(reveal.fileJSON.utf8), source: "e.json") }
    do {
      _ = try Recipe.decodeFile(Data(reveal.fileJSON.utf8), source: "e.json")
    } catch {
      guard case .invalidCombination(let field, let reason) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(field == "scroll" && reason.contains("ScrollEffect.decodeFile"))
    }
    // Unknown keys and names, caught by the schema with their paths.
    let cases: [(String, (inout [String: JSONValue]) -> Void, String)] = [
      ("timeline kind", { $0["timeline"] = .object(["spiral": .object([:])]) }, "scroll.timeline.spiral"),
      ("axis", { $0["axis"] = .string("diagonal") }, "scroll.axis"),
      ("fill", { $0["fill"] = .string("sometimes") }, "scroll.fill"),
      ("key", { $0["speed"] = .number(2) }, "scroll.speed"),
      ("fill side", { $0["fill"] = .object(["before": .string("wrap")]) }, "scroll.fill.before"),
    ]
    for (what, change, path) in cases {
      let e = error(try edited(reveal, change))
      guard case .unknownName(_, _, let location)? = e else {
        Issue.record("\(what): \(String(describing: e))")
        continue
      }
      #expect(location.hasPrefix(path), "\(what): \(location)")
    }
    // Forms and values.
    let structural: [(String, (inout [String: JSONValue]) -> Void, String)] = [
      ("two kinds", { $0["timeline"] = .object(["view": .object([:]), "scroll": .object([:])]) }, "scroll.timeline"),
      ("no unit", { $0["timeline"] = .object(["centred": .object([:])]) }, "scroll.timeline.centred.unit"),
      ("range of three", { $0["timeline"] = .object(["centred": .object(["unit": .number(40), "range": .array([.number(0), .number(1), .number(2)])])]) }, "scroll.timeline.centred.range"),
      ("domain string", { $0["domain"] = .string("0...1") }, "scroll.domain"),
      ("folds number", { $0["foldsValue"] = .number(1) }, "scroll.foldsValue"),
      ("no timeline", { $0["timeline"] = nil }, "scroll.timeline"),
    ]
    for (what, change, want) in structural {
      let e = error(try edited(reveal, change))
      switch e {
      case .invalidStructure(_, let path, _)?: #expect(path == want, "\(what): \(path)")
      case .unknownName(_, _, let location)?: #expect(location.hasPrefix(want), "\(what): \(location)")
      default: Issue.record("\(what): \(String(describing: e))")
      }
    }
    // CSS strings CSS refuses, and values out of range.
    guard case .invalidSyntax? = error(try edited(reveal) { $0["timeline"] = .object(["view": .object(["range": .string("entry 10% exit 20% cover")])]) }) else {
      Issue.record("a three-boundary range read")
      return
    }
    guard case .invalidSyntax? = error(try edited(reveal) { $0["timeline"] = .object(["view": .object(["insets": .string("1px 2px 3px")])]) }) else {
      Issue.record("three insets read")
      return
    }
    guard case .outOfRange? = error(try edited(reveal) { $0["domain"] = .array([.number(1), .number(0)]) }) else {
      Issue.record("a reversed domain read")
      return
    }
    #expect(error(try edited(reveal) { $0["timeline"] = .object(["centred": .object(["unit": .number(-5)])]) }) != nil)
  }
}
