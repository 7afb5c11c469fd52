// `--scroll-effect` in `render`/`simulate` and `curve`: in-process through the command
// types. The edge fade's plot against SwiftUI's defaults worked by hand; a fling through a
// wheel picker squeezes the rows away from the centre and leaves the centre row flat.

import CellMotion
import Foundation
import Testing
import _TestSupport

@testable import CellMotionCLI
@testable import _CLISupport

@Suite("cellmotion --scroll-effect")
struct ScrollEffectCLITests {
  @Test("curve --scroll-effect edgeFadeScale --format csv: SwiftUI's 0.3 opacity and 0.85 scale at the edge")
  func edgeFadePlot() throws {
    let kind = try #require(ScrollEffectKind(rawValue: "edgeFadeScale"))
    let plot = EffectPlot(
      effect: try kind.effect(rowHeight: 80, viewportHeight: 667),
      geometry: CellGeometry(width: 375, height: 80, tableWidth: 375), title: "t")
    let lines = try plot.csv(samples: 4).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
    #expect(lines.count == 6)
    #expect(lines[0] == ["progress", "value", "opacity", "scale"])
    // The curve is an ease in-out (symmetric about its midpoint), so halfway is halfway in
    // value: opacity (1 + 0.3) / 2, scale (1 + 0.85) / 2.
    let expected: [(Double, Double, Double)] = [(0, 1, 1), (0.5, 0.65, 0.925), (1, 0.3, 0.85)]
    for (p, opacity, scale) in expected {
      let row = try #require(lines.dropFirst().first { Double($0[0]) == p })
      #expect(abs(Double(row[2])! - opacity) < 1e-9 && abs(Double(row[3])! - scale) < 1e-9, "\(row)")
    }
  }

  @Test("render --scroll-effect wheelPicker: rows squeezed away from the centre, the centre row flat")
  func wheelFling() throws {
    let options = try TableOptions.parse([
      "--scroll-effect", "wheelPicker", "--scroll", "fling", "--velocity", "1200", "--rows", "60",
      "--row-height", "44", "--viewport-height", "400", "--duration", "1",
    ])
    let plan = try TableScript.plan(.fadeIn, options)
    var frames = 0, squeezed = 0, flat = 0
    try TableScript.run(plan, forceProgress: false) { f in
      guard f.time >= 0.5 else { return }
      frames += 1
      for (i, _) in f.rows.enumerated() {
        // Projected height of the row (y of its bottom edge minus its top edge), points.
        let t = try Transform3D(fieldOrder: f.matrices[(16 * i)..<(16 * i + 16)].map(Double.init))
        guard let top = t.projectedPoint(x: 187, y: 0), let bottom = t.projectedPoint(x: 187, y: 44) else { continue }
        let centre = (top.y + bottom.y) / 2, drawn = bottom.y - top.y
        if abs(centre - 200) < 10 { #expect(drawn > 42, "centre row drawn \(drawn) pt"); flat += 1 }
        if abs(centre - 200) > 100, f.opacity[i] > 0 { #expect(drawn < 38, "row at \(centre) drawn \(drawn) pt"); squeezed += 1 }
      }
    }
    #expect(frames > 20 && squeezed > 20 && flat > 10, "\(frames) \(squeezed) \(flat)")
  }

  @Test("render --axis horizontal --scroll-effect coverFlow: columns along x, turned away off centre, the centre one flat")
  func horizontalCoverFlow() throws {
    let options = try TableOptions.parse([
      "--axis", "horizontal", "--scroll-effect", "coverFlow", "--scroll", "fling", "--velocity", "1500", "--rows", "60",
      "--row-height", "120", "--viewport-height", "600", "--width", "200", "--duration", "1",
    ])
    let plan = try TableScript.plan(.fadeIn, options)
    var frames = 0, turned = 0, flat = 0
    try TableScript.run(plan, forceProgress: false) { f in
      guard f.time >= 0.5 else { return }
      frames += 1
      for (i, _) in f.rows.enumerated() {
        // Each column is 120 points wide (its row's length) and 200 tall: its mid-line's
        // left and right ends, projected.
        let t = try Transform3D(fieldOrder: f.matrices[(16 * i)..<(16 * i + 16)].map(Double.init))
        guard let left = t.projectedPoint(x: 0, y: 100), let right = t.projectedPoint(x: 120, y: 100) else { continue }
        let centre = (left.x + right.x) / 2, drawn = right.x - left.x
        // Laid out along x: the mid-line stays at the viewport's half height.
        #expect(abs(left.y - 100) < 1e-3 && abs(right.y - 100) < 1e-3, "column at \(centre): y \(left.y), \(right.y)")
        if abs(centre - 300) < 10 { #expect(drawn > 118, "centre column drawn \(drawn) pt"); flat += 1 }
        if abs(centre - 300) > 150, centre > -100, centre < 700 {
          #expect(drawn < 108, "column at \(centre) drawn \(drawn) pt")
          turned += 1
        }
      }
    }
    #expect(frames > 20 && turned > 20 && flat > 5, "\(frames) \(turned) \(flat)")
    // The contact sheet draws a viewport 600 wide and 200 tall; a fold recipe is refused.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("horizontal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run([
      "render", "tipIn", "--axis", "horizontal", "--scroll-effect", "coverFlow", "--row-height", "120",
      "--viewport-height", "600", "--width", "200", "--duration", "0.3", "-o", dir.path,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let svg = try String(contentsOf: dir.appendingPathComponent("cellmotion-render.svg"), encoding: .utf8)
    #expect(svg.contains("<clipPath id=\"clip-0\"><rect width=\"600\" height=\"200\"/>"))
    let fold = try CLI.run(["render", "foldOpen", "--axis", "horizontal", "-o", dir.path])
    #expect(fold.status == 1 && fold.errorLines.count == 1 && fold.stderr.contains("horizontal"), "\(fold.stderr)")
    // recipe-template --axis horizontal writes the horizontal preset; a horizontal table
    // reads it back, and a vertical one refuses it in one line.
    let file = dir.appendingPathComponent("cover-h.json").path
    let t = try CLI.run([
      "recipe-template", "--scroll-effect", "coverFlow", "--axis", "horizontal", "--row-height", "120",
      "--viewport-height", "600", "-o", file,
    ])
    #expect(t.status == 0, "\(t.stderr)")
    let read = try ScrollEffect.decodeFile(try Data(contentsOf: URL(fileURLWithPath: file)), source: file)
    #expect(read == (try ScrollEffectKind.coverFlow.effect(rowHeight: 120, viewportHeight: 600, axis: .horizontal)))
    #expect(read.timeline.axis == .horizontal)
    let back = try CLI.run([
      "render", "tipIn", "--axis", "horizontal", "--scroll-effect", file, "--row-height", "120", "--viewport-height", "600",
      "--width", "200", "--duration", "0.3", "-o", dir.path,
    ])
    #expect(back.status == 0, "\(back.stderr)")
    let vertical = try CLI.run(["render", "tipIn", "--scroll-effect", file, "--duration", "0.3", "-o", dir.path])
    #expect(vertical.status == 1 && vertical.errorLines.count == 1, "\(vertical.stderr)")
  }

  @Test("recipe-template --scroll-effect writes a file that --scroll-effect FILE reads back: the same frames as the preset")
  func effectFile() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("effect-file-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("cover.json").path
    let t = try CLI.run(["recipe-template", "--scroll-effect", "coverFlow", "--row-height", "44", "--viewport-height", "400", "-o", path])
    #expect(t.status == 0, "\(t.stderr)")
    // The file is the preset sized for that table, and reads back as it.
    let read = try ScrollEffect.decodeFile(try Data(contentsOf: URL(fileURLWithPath: path)), source: path)
    #expect(read == (try ScrollEffectKind.coverFlow.effect(rowHeight: 44, viewportHeight: 400)))
    // A run with the file draws what a run with the preset draws.
    func matrices(_ effect: String) throws -> [[Float]] {
      let options = try TableOptions.parse([
        "--scroll-effect", effect, "--scroll", "fling", "--velocity", "900", "--rows", "40", "--row-height", "44",
        "--viewport-height", "400", "--duration", "0.5",
      ])
      var out: [[Float]] = []
      try TableScript.run(try TableScript.plan(.fadeIn, options), forceProgress: false) { out.append($0.matrices + $0.opacity) }
      return out
    }
    let fromFile = try matrices(path)
    let fromPreset = try matrices("coverFlow")
    #expect(!fromFile.isEmpty && fromFile == fromPreset)
    // A missing file and a recipe file (no "scroll") are one-line errors.
    let missing = try CLI.run(["render", "fadeIn", "--scroll-effect", dir.appendingPathComponent("none.json").path, "-o", dir.path])
    #expect(missing.status == 1 && missing.errorLines.count == 1 && missing.stderr.contains("no such scroll effect file"), "\(missing.stderr)")
    let recipe = dir.appendingPathComponent("tip.json").path
    #expect(try CLI.run(["recipe-template", "tipIn", "-o", recipe]).status == 0)
    let notEffect = try CLI.run(["render", "fadeIn", "--scroll-effect", recipe, "-o", dir.path])
    #expect(notEffect.status == 1 && notEffect.errorLines.count == 1 && notEffect.stderr.contains("\"scroll\""), "\(notEffect.stderr)")
  }
}
