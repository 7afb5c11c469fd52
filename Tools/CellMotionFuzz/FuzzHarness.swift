// What one fuzz input is put through: the library's strict recipe reader, then what the
// CLI does with a recipe it has read (compile it for the kernel, evaluate the scalar
// reference at its start and after its end, as `inspect` does). A violated property is a
// trap, which is what libFuzzer (and the plain driver's exit status) report.
//
// Properties:
// - `Recipe.decodeFile` returns a recipe that validates, or throws a CellMotionError
//   (typed throws: anything else cannot compile);
// - a recipe it returns, written by JSONEncoder, reads back equal;
// - StrictJSON: text it accepts, written by its writer, reads back equal;
// - `ScrollEffect.decodeFile` returns an effect whose own file reads back equal and whose
//   states are finite, or throws a CellMotionError;
// - nothing traps on the way (overflow, out-of-range index, allocation failure).

import CellMotion
import CellMotionKernel
import Foundation

enum FuzzHarness {
  /// Runs every property on one input.
  static func run(_ bytes: [UInt8]) {
    let data = Data(bytes)
    if let tree = try? StrictJSON.parse(bytes) {
      let text = StrictJSON.serialize(tree)
      guard (try? StrictJSON.parse(Array(text.utf8))) == tree else {
        fatalError("StrictJSON round trip changed the value: \(text.prefix(200))")
      }
    }
    effect(data)
    let recipe: Recipe
    do {
      recipe = try Recipe.decodeFile(data, source: "fuzz.json")
    } catch {
      _ = error.description  // every error has a message
      return
    }
    do {
      try recipe.validate()
    } catch {
      fatalError("decodeFile returned a recipe that does not validate: \(error)")
    }
    if let encoded = try? JSONEncoder().encode(recipe) {
      do {
        let again = try Recipe.decodeFile(encoded, source: "round-trip.json")
        guard again == recipe else { fatalError("a recipe read back different: \(String(decoding: encoded, as: UTF8.self))") }
      } catch {
        fatalError("a recipe's own JSON was refused: \(error)")
      }
    }
    // What `inspect` does next.
    _ = try? CompiledRecipe(recipe)
    let geometry = CellGeometry(width: 375, height: 80, tableWidth: 375, detailHeight: 160)
    let end = recipe.activeDuration.isFinite ? recipe.activeDuration + 1 : 1e9
    for t in [0, 0.1, end] {
      _ = ReferenceEvaluator.evaluate(recipe, geometry: geometry, time: t)
    }
  }

  /// The scroll effect reader's properties on one input.
  static func effect(_ data: Data) {
    let effect: ScrollEffect
    do {
      effect = try ScrollEffect.decodeFile(data, source: "fuzz.json")
    } catch {
      _ = error.description
      return
    }
    do {
      let again = try ScrollEffect.decodeFile(Data(effect.fileJSON.utf8), source: "round-trip.json")
      guard again == effect else { fatalError("a scroll effect read back different: \(effect.fileJSON.prefix(400))") }
    } catch {
      fatalError("a scroll effect's own file was refused: \(error)")
    }
    guard let scroll = try? ScrollState(offsetY: 300, viewportWidth: 375, viewportHeight: 640, contentHeight: 4000) else { return }
    for y in [-500.0, 0, 290, 320, 700, 5000] {
      guard let cell = try? ScrollCell(y: y, width: 375, height: 80, sectionEnd: y + 200) else { continue }
      let state = effect.evaluate(cell: cell, scroll: scroll)
      guard state.opacity.isFinite, state.transform.isFinite else { fatalError("\(effect.name): a state that is not finite at \(y)") }
    }
  }
}
