// Batch updates on the command line: --insert, --delete, --move, --reload in simulate and
// render, deleted rows marked, invalid batches refused with one line.

import Foundation
import Testing

@Suite("cellmotion batch updates")
struct UpdateCLITests {
  static let script = [
    "--rows", "30", "--rule", "screenful", "--insert", "3-5@0.2", "--delete", "6@0.2", "--move", "2:8@0.2", "--reload",
    "4@0.2", "--row-animation", "left",
  ]

  /// CSV records: (time, row, part, m41, m42, opacity).
  func records(_ text: String) -> [(t: Double, row: Int, part: String, x: Double, y: Double, o: Double)] {
    lines(text).dropFirst().compactMap { line in
      let c = line.split(separator: ",").map(String.init)
      guard c.count == 21 else { return nil }
      return (Double(c[1])!, Int(c[2])!, c[3], Double(c[16])!, Double(c[17])!, Double(c[20])!)
    }
  }

  @Test("simulate: the deleted row slides out left where it was, the moved row slides to its place, the reload cross-slides")
  func simulateBatch() throws {
    let r = try CLI.run(["simulate", "fadeIn"] + Self.script + ["--format", "csv", "--fps", "120"])
    #expect(r.status == 0, "\(r.stderr)")
    let all = records(r.out)
    // Row 6 deleted: drawn as part "deleted" with its index before the batch, at y 480,
    // sliding left by the table width (375) over 0.3 s, then gone.
    let deleted = all.filter { $0.part == "deleted" }
    #expect(deleted.allSatisfy { $0.row == 6 && $0.y == 480 && $0.t >= 0.2 && $0.t < 0.5 + 1e-9 })
    #expect(deleted.first?.x == 0 && deleted.count >= 30)
    #expect(deleted.last.map { $0.x < -370 } == true)
    // The reloaded row (4 before, 6 after): its old contents slide out over its place.
    let old = all.filter { $0.part == "reloadedOld" }
    #expect(!old.isEmpty && old.allSatisfy { $0.row == 6 })
    // Row 2 moved to 8: from y 160 to y 640, continuous.
    let moved = all.filter { $0.part == "cell" && $0.row == 8 && $0.t >= 0.2 }
    #expect(moved.first?.y == 160 && moved.last?.y == 640)
    let steps = zip(moved.dropFirst(), moved).map { abs($0.y - $1.y) }
    // 480 points in 0.3 s ease-in-out peaks near 3,000 points per second: 25 a frame.
    #expect(steps.max()! < 30, "largest step \(steps.max()!) points per frame")
    // JSON Lines mark them the same way.
    let j = try CLI.run(["simulate", "fadeIn"] + Self.script + ["--format", "jsonl", "--fps", "30"])
    #expect(j.status == 0 && j.out.contains("\"part\":\"deleted\""), "\(j.stderr)")
  }

  @Test("render: the contact sheet draws deleted rows dashed and the player carries them")
  func renderBatch() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(["render", "fadeIn"] + Self.script + ["--sheet-from", "0.2", "--output", dir.path])
    #expect(r.status == 0, "\(r.stderr)")
    let svg = try #require(XMLCollector.parse(try Data(contentsOf: dir.appendingPathComponent("cellmotion-render.svg"))))
    let deleted = svg.elements(named: "polygon", class: "deleted")
    #expect(!deleted.isEmpty && deleted.allSatisfy { $0.attributes["stroke-dasharray"] != nil })
    #expect(!svg.elements(named: "polygon", class: "reloadedOld").isEmpty)
    #expect(svg.text.contains("t = 0.200 s"), "the sheet starts at --sheet-from")
    let html = try String(contentsOf: dir.appendingPathComponent("cellmotion-render.html"), encoding: .utf8)
    let frames = try #require(try playerData(html)["frames"] as? [[String: Any]])
    let extras = frames.flatMap { ($0["x"] as? [[String: Any]]) ?? [] }
    #expect(extras.contains { $0["k"] as? String == "deleted" })
  }

  @Test("an invalid batch, or a batch on a fold recipe, is one error line and a non-zero exit")
  func invalidBatch() throws {
    let r = try CLI.run(["simulate", "--rows", "30", "--delete", "40@0.1", "--duration", "0.3"])
    #expect(r.status != 0 && r.errorLines.count == 1 && r.errorLines[0].contains("invalid batch update"), "\(r.stderr)")
    #expect(r.stdout.isEmpty, "refused before any frame is written")
    // A batch after the run's end is refused, not skipped.
    let late = try CLI.run(["simulate", "--rows", "30", "--delete", "4@5", "--duration", "1"])
    #expect(late.status != 0 && late.errorLines.count == 1 && late.stdout.isEmpty, "\(late.stderr)")
    let lateAuto = try CLI.run(["simulate", "--rows", "30", "--delete", "4@20"])
    #expect(lateAuto.status != 0 && lateAuto.errorLines.count == 1, "\(lateAuto.stderr)")
    // Too many rows named in all.
    let many = try CLI.run(["simulate", "--rows", "30"] + Array(repeating: ["--insert", "0-99999@0.1"], count: 11).flatMap { $0 })
    #expect(many.status == 64 && many.errorLines.count == 1, "\(many.stderr)")
    let m = try CLI.run(["simulate", "--rows", "30", "--delete", "3@0.1", "--move", "3:5@0.1", "--duration", "0.3"])
    #expect(m.status != 0 && m.errorLines.count == 1 && m.errorLines[0].contains("deletions[0]"), "\(m.stderr)")
    let f = try CLI.run(["simulate", "foldOpen", "--insert", "1@0.1", "--duration", "0.3"])
    #expect(f.status != 0 && f.errorLines.count == 1, "\(f.stderr)")
    let bad = try CLI.run(["simulate", "--insert", "3-1@0.1"])
    #expect(bad.status == 64 && bad.errorLines.count == 1, "\(bad.stderr)")
  }
}
