// JSON output (inspect --json, simulate --format jsonl, the HTML player's data) never
// holds a non-finite number and never surfaces a Foundation error.

import CellMotion
import Foundation
import Testing

@testable import CellMotionCLI
@testable import _CLISupport

#if canImport(Glibc)
  import Glibc
#endif

@Suite("JSON output")
struct JSONOutputTests {
  @Test("inspect --json of a recipe with 1e39 s durations: JSON (infinities as null) or one clean error line")
  func inspectHugeDuration() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let t = try CLI.run(["recipe-template", "moveUpBounce"])
    let path = dir.appendingPathComponent("long.json").path
    try t.out.replacingOccurrences(of: "\"duration\" : 1,", with: "\"duration\" : 1e39,").write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try String(contentsOfFile: path, encoding: .utf8).contains("1e39"))
    let text = try CLI.run(["inspect", path])
    let json = try CLI.run(["inspect", path, "--json"])
    #expect(!json.signaled && !json.stderr.contains("Error Domain") && !json.stderr.contains("NSCocoa"), "\(json.stderr)")
    // Whether 1e39 s is accepted is the library's call (input ranges); either way the two
    // forms agree, and JSON output is JSON.
    #expect(json.status == text.status, "text: \(text.stderr) json: \(json.stderr)")
    if json.status == 0 {
      let tree = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
      #expect(tree["name"] as? String == "moveUpBounce")
      #expect(!json.out.contains("inf") && !json.out.contains("NaN"))
    } else {
      #expect(json.errorLines.count == 1 && json.stderr.hasPrefix("cellmotion: error: "))
    }
  }

  @Test("non-finite numbers are written as null in inspect's tree, JSON Lines and the player's data")
  func nonFiniteAsNull() throws {
    #expect(StrictJSON.serialize(Inspection.json(["a": Double.infinity, "b": [Double.nan, 1.5], "c": NSNull(), "d": 3]))
      == #"{"a":null,"b":[null,1.5],"c":null,"d":3}"#)

    var matrix = [Float](repeating: 0, count: 16)
    matrix[0] = .infinity
    matrix[5] = -.infinity
    matrix[10] = .nan
    matrix[15] = 1
    let frame = TableFrame(time: 0.5, rows: 3..<4, matrices: matrix, opacity: [.nan], cellHeights: [.infinity], folds: [])

    // simulate --format jsonl, written through the same writer as the command.
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("records.jsonl").path
    let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    let out = FDWriter(fd: fd, target: file)
    try SimulateCommand.write(frame, number: 7, format: .jsonl, to: out)
    try out.flush()
    close(fd)
    let line = try Data(contentsOf: URL(fileURLWithPath: file))
    let record = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any], "\(String(decoding: line, as: UTF8.self))")
    let m = try #require(record["m"] as? [Any])
    #expect(m[0] is NSNull && m[5] is NSNull && m[10] is NSNull && m[15] as? Double == 1)
    #expect(record["opacity"] is NSNull && record["frame"] as? Int == 7)

    // The HTML player's frame data.
    let options = try TableOptions.parse([])
    let html = HTMLPlayer.html(TableRun(recipe: try Recipe.preset(named: "tipIn"), options: options, frames: [frame]))
    let data = try playerData(html)
    let frames = try #require(data["frames"] as? [[String: Any]])
    #expect((frames.first?["m"] as? [Any])?.first is NSNull)
    #expect((frames.first?["h"] as? [Any])?.first is NSNull)
  }
}
