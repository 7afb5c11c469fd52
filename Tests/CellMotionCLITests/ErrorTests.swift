// Bad input: one line on stderr, a non-zero exit, and no output file left behind.

import Foundation
import Testing

@Suite("cellmotion errors")
struct ErrorTests {
  /// The one-line error contract.
  func expectOneLineError(_ r: CLI.Result, mentioning parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(r.status != 0, sourceLocation: sourceLocation)
    #expect(r.errorLines.count == 1, "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.hasPrefix("cellmotion: error: "), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    for p in parts { #expect(r.stderr.contains(p), "\(p) not in: \(r.stderr)", sourceLocation: sourceLocation) }
    #expect(r.stdout.isEmpty, sourceLocation: sourceLocation)
  }

  @Test("curve --retarget: a malformed event or an unknown policy is one clear line")
  func curveRetargetErrors() throws {
    expectOneLineError(try CLI.run(["curve", "--retarget", "0.2:x"]), mentioning: ["TIME:TARGET[:POLICY]", "0.2:x"])
    expectOneLineError(try CLI.run(["curve", "--retarget", "0.2:0.3:bounce"]), mentioning: ["\"bounce\" is unknown", "carry"])
    expectOneLineError(try CLI.run(["curve", "--retarget", "nan:0.3"]), mentioning: ["--retarget time", "nan"])
    expectOneLineError(try CLI.run(["curve", "shake", "--retarget", "0.2:3"]), mentioning: ["not keyframes"])
  }

  @Test("--toggle: a malformed event, a row out of range, a recipe that does not fold: one clear line")
  func toggleErrors() throws {
    expectOneLineError(try CLI.run(["simulate", "foldOpen", "--toggle", "1x0.1"]), mentioning: ["ROW@TIME", "1x0.1"])
    expectOneLineError(try CLI.run(["simulate", "foldOpen", "--toggle", "99@0.1"]), mentioning: ["--toggle row 99"])
    expectOneLineError(try CLI.run(["simulate", "tipIn", "--toggle", "1@0.1"]), mentioning: ["does not fold"])
    expectOneLineError(try CLI.run(["render", "foldOpen", "--height-retarget", "spring"]), mentioning: ["height-retarget"])
  }

  /// A template of `preset` with `edit` applied to its JSON text, written into `dir`.
  func recipeFile(_ preset: String, in dir: URL, name: String, edit: (String) -> String) throws -> String {
    let t = try CLI.run(["recipe-template", preset])
    #expect(t.status == 0)
    let path = dir.appendingPathComponent(name).path
    try edit(t.out).write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test("an unknown key fails with its JSON path and leaves no output file")
  func unknownKey() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let bad = try recipeFile("moveUpBounce", in: dir, name: "bad.json") {
      $0.replacingOccurrences(of: "\"curve\"", with: "\"curv\"")
    }
    let out = dir.appendingPathComponent("out")
    let r = try CLI.run(["render", bad, "--output", out.path])
    expectOneLineError(r, mentioning: ["unknown key \"curv\"", "channels[0].curv", "bad.json"])
    #expect(!FileManager.default.fileExists(atPath: out.path), "no output directory or file")

    let target = dir.appendingPathComponent("frames.csv").path
    let s = try CLI.run(["simulate", bad, "--output", target])
    expectOneLineError(s, mentioning: ["channels[0].curv"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.json"], "nothing but the input")
  }

  @Test("unknown keys deeper down and unknown names are reported with their paths")
  func unknownNames() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let channel = try recipeFile("tipInChannels", in: dir, name: "channel.json") {
      $0.replacingOccurrences(of: "\"translationY\"", with: "\"translationQ\"")
    }
    expectOneLineError(try CLI.run(["inspect", channel]), mentioning: ["unknown channel \"translationQ\"", "channels[2].channel"])
    let nested = try recipeFile("tipIn", in: dir, name: "nested.json") {
      $0.replacingOccurrences(of: "\"m44\"", with: "\"m45\"")
    }
    expectOneLineError(try CLI.run(["inspect", nested]), mentioning: ["unknown key \"m45\"", "matrix.from.m45"])
    let curve = dir.appendingPathComponent("curve.json").path
    try """
    {"name": "mine", "channels": [{"channel": "opacity", "from": 0, "to": 1, "curve": "easeOutt", "duration": 0.5, "delay": 0}],
     "stagger": {"step": 0, "base": "row"}, "order": "keyPath", "anchorX": 0.5, "anchorY": 0.5,
     "timing": {"speed": 1, "repeatCount": 0, "autoreverses": false, "fillMode": "backwards"}}
    """.write(toFile: curve, atomically: true, encoding: .utf8)
    expectOneLineError(try CLI.run(["simulate", curve]), mentioning: ["unknown timing function \"easeOutt\"", "channels[0].curve"])
    // With the name fixed, the shorthand file loads.
    let fixed = try String(contentsOfFile: curve, encoding: .utf8).replacingOccurrences(of: "easeOutt", with: "easeOut")
    try fixed.write(toFile: curve, atomically: true, encoding: .utf8)
    #expect(try CLI.run(["inspect", curve]).status == 0)
  }

  @Test("validation errors of the recipe, malformed JSON and missing files are one line")
  func invalidRecipes() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let negative = try recipeFile("fadeIn", in: dir, name: "negative.json") {
      $0.replacingOccurrences(of: "\"duration\" : 0.5", with: "\"duration\" : -1")
    }
    expectOneLineError(try CLI.run(["inspect", negative]), mentioning: ["channels[0].duration must be in [1e-6, 1e5], got -1.0"])
    let broken = dir.appendingPathComponent("broken.json").path
    try "{\"name\": ".write(toFile: broken, atomically: true, encoding: .utf8)
    expectOneLineError(try CLI.run(["inspect", broken]), mentioning: ["broken.json is not valid JSON"])
    let missing = try recipeFile("fadeIn", in: dir, name: "missing.json") {
      $0.replacingOccurrences(of: "\"duration\" : 0.5,", with: "")
    }
    expectOneLineError(try CLI.run(["inspect", missing]), mentioning: ["missing key \"duration\" at channels[0].duration"])
    expectOneLineError(try CLI.run(["inspect", dir.appendingPathComponent("nope.json").path]), mentioning: ["no such recipe file"])
    expectOneLineError(try CLI.run(["render", "noSuchPreset"]), mentioning: ["unknown preset \"noSuchPreset\""])
  }

  @Test("bad flags and values: one line, usage exit code")
  func badFlags() throws {
    let r = try CLI.run(["render", "--bogus"])
    expectOneLineError(r, mentioning: ["--bogus"])
    #expect(r.status == 64, "EX_USAGE")
    expectOneLineError(try CLI.run(["simulate", "--format", "xml"]), mentioning: ["xml"])
    expectOneLineError(try CLI.run(["curve", "--samples", "1"]), mentioning: ["--samples"])
    expectOneLineError(try CLI.run(["curve", "--damping-ratio", "0.5", "--mass", "2"]), mentioning: ["not both"])
    expectOneLineError(try CLI.run(["curve", "cubic-bezier(0.2, 0, 1.5)"]), mentioning: ["cubic-bezier"])
    expectOneLineError(try CLI.run(["render", "--fps", "0"]), mentioning: ["--fps"])
    expectOneLineError(try CLI.run(["nosuchcommand"]), mentioning: ["nosuchcommand"])
  }

  @Test("a write that fails leaves neither the target nor a temporary file")
  func failedWrite() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // The target is a non-empty directory: rename(2) onto it fails after the data was written.
    let target = dir.appendingPathComponent("taken")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    try "x".write(to: target.appendingPathComponent("keep"), atomically: true, encoding: .utf8)
    let r = try CLI.run(["simulate", "--output", target.path])
    expectOneLineError(r, mentioning: ["cannot write"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["taken"], "temporary file removed")
  }
}

@Suite("locating the executable")
struct LocatorTests {
  @Test("candidates cover the test bundle's directory for any scratch path, and .build/debug")
  func candidates() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    // `swift test` (default scratch path): the bundle is .build/<triple>/debug/X.xctest.
    let plain = CLI.candidates(
      testExecutable: [URL(fileURLWithPath: "/repo/.build/x86_64-unknown-linux-gnu/debug/CellMotionPackageTests.xctest")],
      sourceFile: #filePath, environment: [:])
    #expect(plain.first?.path == "/repo/.build/x86_64-unknown-linux-gnu/debug/cellmotion")
    // Any --scratch-path.
    let custom = CLI.candidates(
      testExecutable: [URL(fileURLWithPath: "/tmp/s/debug/CellMotionPackageTests.xctest")], sourceFile: #filePath, environment: [:])
    #expect(custom.first?.path == "/tmp/s/debug/cellmotion")
    // macOS bundle layout: X.xctest/Contents/MacOS/X -> the bundle's parent.
    let mac = CLI.candidates(
      testExecutable: [URL(fileURLWithPath: "/r/.build/debug/P.xctest/Contents/MacOS/P")], sourceFile: #filePath, environment: [:])
    #expect(mac.contains { $0.path == "/r/.build/debug/cellmotion" })
    // Fallback from the source file: the package root's .build*/debug.
    let fallback = CLI.candidates(testExecutable: [], sourceFile: #filePath, environment: [:])
    if FileManager.default.fileExists(atPath: root.appendingPathComponent(".build").path) {
      #expect(fallback.contains { $0.path == root.appendingPathComponent(".build/debug/cellmotion").path })
    }
    // The override comes first.
    #expect(CLI.candidates(testExecutable: [], sourceFile: #filePath, environment: ["CELLMOTION_CLI": "/x/cm"]).first?.path == "/x/cm")
    // And in this run it was found.
    let found = try #require(CLI.executable)
    #expect(found.lastPathComponent == "cellmotion")
  }
}
