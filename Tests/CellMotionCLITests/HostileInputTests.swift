// Hostile text: control characters and huge strings in recipe names, file names and flag
// values reach SVG, HTML and error lines only in a safe form.

import Foundation
import Testing

@Suite("hostile text")
struct HostileInputTests {
  let fm = FileManager.default

  /// The fadeIn template with its name replaced by `name` (JSON-escaped) and, if asked,
  /// an invalid duration, written to `dir/file`.
  func recipe(named name: String, invalid: Bool, in dir: URL, file: String = "r.json") throws -> String {
    let t = try CLI.run(["recipe-template", "fadeIn"])
    #expect(t.status == 0)
    let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [name]), as: UTF8.self).dropFirst().dropLast()
    var text = t.out.replacingOccurrences(of: "\"name\" : \"fadeIn\"", with: "\"name\" : \(quoted)")
    if invalid { text = text.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : -1") }
    let path = dir.appendingPathComponent(file).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Whether `data` holds a byte XML 1.0 forbids (C0 other than tab, LF, CR) or a DEL/C1.
  func hasForbiddenControls(_ data: Data) -> Bool {
    String(decoding: data, as: UTF8.self).unicodeScalars.contains {
      ($0.value < 0x20 && ![0x09, 0x0A, 0x0D].contains($0.value)) || (0x7F...0x9F).contains($0.value)
    }
  }

  @Test("control characters in a recipe name: the SVG stays well-formed, the HTML clean")
  func controlsInSVGAndHTML() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let path = try recipe(named: "bad\u{1}\u{1B}[31m\u{7F}\u{85}name\u{8}<&>", invalid: false, in: dir)
    let r = try CLI.run(["render", path, "-o", dir.path, "--basename", "x"])
    #expect(r.status == 0, "\(r.stderr)")
    let svgData = try Data(contentsOf: dir.appendingPathComponent("x.svg"))
    let svg = try #require(XMLCollector.parse(svgData), "well-formed XML")
    #expect(svg.text.contains("bad\u{FFFD}\u{FFFD}[31m\u{FFFD}\u{FFFD}name\u{FFFD}<&>"), "replaced, and escaped markup comes back")
    #expect(!hasForbiddenControls(svgData))
    let html = try Data(contentsOf: dir.appendingPathComponent("x.html"))
    #expect(!hasForbiddenControls(html))
    #expect(String(decoding: html, as: UTF8.self).contains("<title>cellmotion: bad\u{FFFD}\u{FFFD}[31m"))
  }

  @Test("an error line escapes control characters and is capped at a readable length")
  func errorLines() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let escapes = try recipe(named: "x\u{1B}[2J\nsecond line\u{7}", invalid: true, in: dir)
    let r = try CLI.run(["inspect", escapes])
    #expect(r.status == 1 && r.errorLines.count == 1, "\(r.stderr)")
    #expect(!r.stderr.unicodeScalars.dropLast().contains { $0.value < 0x20 || $0.value == 0x7F }, "no raw control: \(r.stderr)")
    // (The wording of the range after "must be" is the library's.)
    #expect(r.stderr.contains(#"x\u{1B}[2J\nsecond line\u{7}.channels[0].duration must be "#), "\(r.stderr)")

    // A half-megabyte name: the line keeps its start and its end.
    let huge = try recipe(named: String(repeating: "A", count: 500_000), invalid: true, in: dir, file: "huge.json")
    let h = try CLI.run(["simulate", huge])
    #expect(h.status == 1 && h.errorLines.count == 1)
    let line = try #require(h.errorLines.first)
    #expect(line.count <= "cellmotion: error: ".count + 300, "\(line.count) characters")
    #expect(line.hasPrefix("cellmotion: error: AAAA") && line.contains("…"))
    #expect(line.contains(".channels[0].duration must be ") && line.hasSuffix(", got -1.0"), "\(line)")

    // File names and flag values are echoed the same way.
    let f = try CLI.run(["inspect", "no\u{1B}]0;title\u{7}.json"])
    #expect(f.errorLines == [#"cellmotion: error: no such recipe file: no\u{1B}]0;title\u{7}.json"#], "\(f.stderr)")
    let v = try CLI.run(["simulate", "--format", "\u{1B}[31m"])
    #expect(v.status == 64 && v.errorLines.count == 1 && !v.stderr.contains("\u{1B}"), "\(v.stderr)")
  }

  @Test("--basename must name visible plain files")
  func basenames() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    for name in [".", "..", "", ".hidden", "a/b", "tab\there", String(repeating: "n", count: 251)] {
      let r = try CLI.run(["render", "--basename", name, "-o", dir.path])
      #expect(r.status == 64 && r.errorLines.count == 1 && r.stderr.contains("--basename"), "\(name): \(r.stderr)")
    }
    #expect(try fm.contentsOfDirectory(atPath: dir.path).isEmpty, "nothing written")
    let ok = try CLI.run(["render", "--basename", "ünïcode name", "-o", dir.path, "--format", "svg"])
    #expect(ok.status == 0 && fm.fileExists(atPath: dir.appendingPathComponent("ünïcode name.svg").path), "\(ok.stderr)")
  }

  @Test("recipe files are strict JSON: duplicate keys, trailing commas, NaN, huge files are refused with where")
  func strictRecipeFiles() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? fm.removeItem(at: dir) }
    let t = try CLI.run(["recipe-template", "fadeIn"])
    let cases: [(String, String, [String])] = [
      ("dup.json", t.out.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : -1, \"duration\" : 0.5"),
       ["dup.json is not valid JSON: duplicate key \"duration\" at channels[0].duration (line 8, column 24)"]),
      ("comma.json", t.out.replacingOccurrences(of: "\"to\" : 1\n", with: "\"to\" : 1,\n"),
       ["comma.json is not valid JSON: trailing comma before '}' (line 10, column 15)"]),
      ("nan.json", t.out.replacingOccurrences(of: "\"from\" : 0", with: "\"from\" : NaN"),
       ["nan.json is not valid JSON: NaN and Infinity are not JSON numbers"]),
    ]
    for (name, text, parts) in cases {
      let path = dir.appendingPathComponent(name).path
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      let r = try CLI.run(["inspect", path])
      #expect(r.status == 1 && r.errorLines.count == 1, "\(name): \(r.stderr)")
      for p in parts { #expect(r.stderr.contains(p), "\(p) not in: \(r.stderr)") }
    }
    // An endless "file" is read only up to the size limit.
    let zero = dir.appendingPathComponent("zero.json")
    try fm.createSymbolicLink(atPath: zero.path, withDestinationPath: "/dev/zero")
    let z = try CLI.run(["inspect", zero.path], timeout: 20)
    #expect(!z.timedOut && z.status == 1, "\(z.stderr)")
    #expect(z.errorLines == ["cellmotion: error: cannot read \(zero.path): recipe files are at most 1048576 bytes (1 MiB)"])
  }
}
