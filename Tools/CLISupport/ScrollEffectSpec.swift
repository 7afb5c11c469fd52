// What `--scroll-effect` names (a preset or a scroll effect file) and the flag types of
// the libraries' own enums, shared by the CLI's commands.

import ArgumentParser
import CellMotion
import CellMotionTableModel
import Foundation

extension MotionPolicy: ExpressibleByArgument {}
extension ScrollAxis: ExpressibleByArgument {}
extension RowAnimation: ExpressibleByArgument {}

/// What `--scroll-effect` names: a preset (`ScrollEffectKind`) or a scroll effect file (a
/// path ending in `.json` or containing a `/`), read by `ScrollEffect.decodeFile`.
package struct ScrollEffectSpec: ExpressibleByArgument {
  let preset: ScrollEffectKind?
  let path: String?

  package init?(argument: String) {
    if let kind = ScrollEffectKind(rawValue: argument) {
      (preset, path) = (kind, nil)
    } else if argument.hasSuffix(".json") || argument.contains("/") {
      (preset, path) = (nil, argument)
    } else {
      return nil
    }
  }

  package static var allValueStrings: [String] { ScrollEffectKind.allCases.map(\.rawValue) }

  /// Throws unless each flag's value is a length a scroll effect is sized with: finite, in
  /// (0, 1e6] points (`InputLimits.length`'s upper end).
  package static func checkLengths(_ flags: [(String, Double)]) throws {
    for (name, v) in flags where !(v.isFinite && v > 0 && v <= InputLimits.length.upperBound) {
      throw CLIError("\(name) must be a finite number in (0, 1e6], got \(v)")
    }
  }

  /// How titles name it: the preset, or the file's path.
  package var name: String { preset?.rawValue ?? path ?? "" }

  /// The preset sized for the table (`ScrollEffectKind.effect`) along `axis`, or the file's
  /// effect (whatever axis it reads).
  package func effect(rowHeight: Double, viewportHeight: Double, axis: ScrollAxis = .vertical) throws -> ScrollEffect {
    if let preset { return try preset.effect(rowHeight: rowHeight, viewportHeight: viewportHeight, axis: axis) }
    let path = self.path ?? ""
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
      throw CLIError("no such scroll effect file: \(path)")
    }
    return try ScrollEffect.decodeFile(try RecipeSource.read(path), source: path)
  }
}

/// The scroll effects `--scroll-effect` names (the presets of `ScrollEffect` that read either axis).
package enum ScrollEffectKind: String, CaseIterable, ExpressibleByArgument {
  case reveal, edgeFadeScale, coverFlow, wheelPicker, carouselKeylines, parallaxContent

  /// The preset on a list along `axis` of rows `rowHeight` points long in a viewport
  /// `viewportHeight` points long (both along the axis): cover flow and carousel pitch =
  /// the row's length, the wheel's viewport = the viewport, parallax overflow = half a row.
  package func effect(rowHeight: Double, viewportHeight: Double, axis: ScrollAxis = .vertical) throws -> ScrollEffect {
    switch self {
    case .reveal: return try .reveal(axis: axis)
    case .edgeFadeScale: return try .edgeFadeScale(axis: axis)
    case .coverFlow: return try .coverFlow(pitch: rowHeight, axis: axis)
    case .wheelPicker: return try .wheelPicker(viewportExtent: viewportHeight, itemExtent: rowHeight, axis: axis)
    case .carouselKeylines: return try .carouselKeylines(pitch: rowHeight, axis: axis)
    case .parallaxContent: return try .parallaxContent(overflow: rowHeight / 2, axis: axis)
    }
  }
}
