// Each subcommand on its defaults (and a few variants), run as a process; outputs parsed.

import Foundation
import Testing
import _TestSupport

@Suite("cellmotion subcommands")
struct SubcommandTests {
  @Test("render with no arguments writes a contact sheet and an HTML player of the tip-in card")
  func renderDefaults() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(["render"], in: dir)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.isEmpty, "render writes files, not stdout")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(files == ["cellmotion-render.html", "cellmotion-render.svg"], "no temporary files left: \(files)")

    // SVG: well-formed XML, 12 labelled thumbnails, cells as quads.
    let svg = try #require(XMLCollector.parse(try Data(contentsOf: dir.appendingPathComponent("cellmotion-render.svg"))))
    let frames = svg.elements(named: "g").filter { $0.attributes["id"]?.hasPrefix("frame-") == true }
    #expect(frames.count == 12)
    #expect(svg.text.contains("t = 0.000 s"))
    let cells = svg.elements(named: "polygon", class: "cell")
    #expect(cells.count >= 12 * 8, "every thumbnail shows the first screenful (9 rows of 80 pt in 667 pt)")
    // The first thumbnail (t = 0) holds the tip-in start: tilted by -15 deg, opacity 0.8.
    let first = try #require(cells.first)
    let p = polygonPoints(try #require(first.attributes["points"]))
    #expect(p.count == 4)
    let angle = atan2(p[1].1 - p[0].1, p[1].0 - p[0].0)
    #expect(abs(angle - (-15 * Double.pi / 180)) < 1e-4, "top edge angle \(angle) rad")
    #expect(first.attributes["opacity"] == "0.8")
    // The last thumbnail (t = 0.4 s) is at rest: axis-aligned, opaque.
    let last = try #require(cells.last)
    let q = polygonPoints(try #require(last.attributes["points"]))
    #expect(abs(q[1].1 - q[0].1) < 1e-3 && last.attributes["opacity"] == "1")

    // HTML: self-contained, plays matrix3d frames; data consistent.
    let html = try String(contentsOf: dir.appendingPathComponent("cellmotion-render.html"), encoding: .utf8)
    #expect(html.contains("matrix3d("))
    #expect(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="), "no external resources")
    #expect(html.contains("id=\"scrub\"") && html.contains("id=\"play\"") && html.contains("location.hash"))
    let data = try playerData(html)
    #expect(data["fps"] as? Double == 60)
    let list = try #require(data["frames"] as? [[String: Any]])
    #expect(list.count == 25, "0.4 s at 60 fps, both ends included")
    for f in list {
      let m = try #require(f["m"] as? [Double]), o = try #require(f["o"] as? [Double])
      #expect(m.count == 16 * o.count && !o.isEmpty)
    }
  }

  @Test("render of a fold recipe draws both halves; --progress draws on stderr only")
  func renderFold() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = try CLI.run(["render", "foldOpen", "--format", "svg", "--output", dir.path, "--progress"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(r.stderr.contains("simulating [") && r.stderr.contains("100%"))
    let svg = try #require(XMLCollector.parse(try Data(contentsOf: dir.appendingPathComponent("cellmotion-render.svg"))))
    #expect(!svg.elements(named: "polygon", class: "fold-top").isEmpty)
    #expect(!svg.elements(named: "polygon", class: "fold-bottom").isEmpty)
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cellmotion-render.html").path))
  }

  @Test("curve with no arguments plots the moveUpBounce spring; CSV has t,value,velocity")
  func curveDefaults() throws {
    let r = try CLI.run(["curve"])
    #expect(r.status == 0, "\(r.stderr)")
    let svg = try #require(XMLCollector.parse(r.stdout))
    #expect(svg.elements.first?.name == "svg")
    #expect(svg.elements(named: "polyline").count == 2, "value and velocity")
    #expect(svg.elements.contains { $0.attributes["id"] == "settling" })
    #expect(svg.text.contains("zeta 0.4") && svg.text.contains("v0 0.1"))

    let csv = try CLI.run(["curve", "--format", "csv"])
    #expect(csv.status == 0)
    let rows = lines(csv.out)
    #expect(rows.first == "t,value,velocity")
    #expect(rows.count == 242)
    let values = try rows.dropFirst().map { line in
      let c = line.split(separator: ",").map { Double($0) }
      #expect(c.count == 3)
      return try #require(c[1])
    }
    #expect(values.first == 0)
    #expect(values.max()! > 1.05, "damping ratio 0.4 overshoots")
    #expect(abs(values.last! - 1) < 1e-3, "settled by the end of the plot")
  }

  @Test("curve accepts cubic-bezier(...) and CASpringAnimation parameters")
  func curveVariants() throws {
    let bezier = try CLI.run(["curve", "cubic-bezier(0.2, 0, 0.2, 1)", "--format", "csv", "--samples", "10", "--duration", "0.5"])
    #expect(bezier.status == 0, "\(bezier.stderr)")
    let rows = lines(bezier.out).dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(rows.count == 11)
    // Sampled over 1.15 x the duration: 1 from t = 0.5 s on, below 1 before.
    #expect(abs(rows[10][0] - 0.575) < 1e-9)
    for r in rows { #expect(r[0] >= 0.5 ? r[1] == 1 : r[1] < 1, "\(r)") }

    let spring = try CLI.run(["curve", "--mass", "1", "--stiffness", "100", "--damping", "10"])
    #expect(spring.status == 0, "\(spring.stderr)")
    let svg = try #require(XMLCollector.parse(spring.stdout))
    // CASpringAnimation's default spring settles at ln(1000 (1 + 1/sqrt 3)) / 5 = 1.4727 s.
    #expect(svg.text.contains("settles at 1.473 s"))
  }

  @Test("curve --retarget: the value and velocity stay continuous across a carry retarget, and end at its target")
  func curveRetarget() throws {
    let r = try CLI.run([
      "curve", "spring", "--damping-ratio", "0.5", "--duration", "0.9", "--retarget", "0.12:-0.4", "--format", "csv",
      "--samples", "2000",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let rows = lines(r.out).dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    // Neighbouring samples around the retarget differ by about one step's worth of motion.
    let step = rows[1][0] - rows[0][0]
    let at = try #require(rows.firstIndex { $0[0] >= 0.12 })
    let before = rows[at - 1], after = rows[at]
    #expect(abs(after[1] - before[1]) < 10 * step, "value continuous: \(before) \(after)")
    #expect(abs(after[2] - before[2]) < 0.05 * abs(before[2]), "velocity carried: \(before) \(after)")
    #expect(before[2] > 5, "moving up fast when retargeted")
    #expect(abs(rows.last![1] + 0.4) < 1e-3, "ends at the new target")
    let svg = try #require(XMLCollector.parse(try CLI.run(["curve", "--retarget", "0.3:0.5:additive"]).stdout))
    #expect(svg.elements.contains { $0.attributes["id"] == "retarget0" })
    #expect(svg.text.contains("additive to 0.5"))
  }

  @Test("simulate --toggle: a row toggled again mid-way; with --height-retarget carry the row below moves without a kink")
  func simulateInterruptedToggle() throws {
    /// Row 2's viewport y per frame (m42 of its cell) at 480 frames per second.
    func rowTwo(_ policy: String) throws -> [Double] {
      let r = try CLI.run([
        "simulate", "foldOpen", "--toggle", "1@0.1", "--toggle", "1@0.2", "--height-retarget", policy, "--fps", "480",
        "--duration", "0.8", "--format", "csv",
      ])
      #expect(r.status == 0, "\(r.stderr)")
      return lines(r.out).dropFirst().compactMap { line -> Double? in
        let c = line.split(separator: ",")
        guard c.count == 21, c[2] == "2", c[3] == "cell" else { return nil }
        return Double(c[17])
      }
    }
    for policy in ["reverse", "carry"] {
      let y = try rowTwo(policy)
      #expect(y.count == 385, "\(policy): one row 2 record per frame")
      // Position continuous: no step larger than the fastest height change allows.
      let steps = zip(y.dropFirst(), y).map { abs($0 - $1) }
      #expect(steps.max()! < 4, "\(policy): \(steps.max()!)")
    }
    // Velocity: the second difference at the second toggle (frame 96) is a kink when the
    // height reverses along its timeline, and smooth when it carries its velocity.
    func kink(_ y: [Double]) -> Double {
      var worst = 0.0
      for k in 92...100 {
        let second: Double = y[k + 1] - 2 * y[k] + y[k - 1]
        worst = worstOf(worst, abs(second))
      }
      return worst
    }
    let reverse = kink(try rowTwo("reverse")), carry = kink(try rowTwo("carry"))
    #expect(carry < reverse / 5, "carry \(carry) vs reverse \(reverse)")
  }

  @Test("simulate --toggle while the fold opens: with --height-retarget carry the fold turns back without a kink")
  func simulateInterruptedFold() throws {
    /// Row 1's top fold half angle per frame (atan2(m23, m22) of its foldTop record) at
    /// 480 frames per second, keyed by frame.
    func angles(_ policy: String) throws -> [Int: Double] {
      // Expand at 0.1 s (height until 0.4 s, fold 0.4-0.7 s), collapse at 0.55 s while the
      // fold opens, expand at 0.6 s while it closes.
      let r = try CLI.run([
        "simulate", "foldOpen", "--toggle", "1@0.1", "--toggle", "1@0.55", "--toggle", "1@0.6", "--height-retarget",
        policy, "--fps", "480", "--duration", "1.2", "--format", "csv",
      ])
      #expect(r.status == 0, "\(r.stderr)")
      var out: [Int: Double] = [:]
      for line in lines(r.out).dropFirst() {
        let c = line.split(separator: ",")
        guard c.count == 21, c[2] == "1", c[3] == "foldTop", let frame = Int(c[0]), let m22 = Double(c[9]),
          let m23 = Double(c[10])
        else { continue }
        out[frame] = atan2(m23, m22)
      }
      return out
    }
    /// The largest second difference of the angle over frames `range` (all present).
    func kink(_ a: [Int: Double], _ range: ClosedRange<Int>) throws -> Double {
      var worst = 0.0
      for k in range {
        let (l, m, r) = (try #require(a[k - 1]), try #require(a[k]), try #require(a[k + 1]))
        worst = worstOf(worst, abs(r - 2 * m + l))
      }
      return worst
    }
    let reverse = try angles("reverse"), carry = try angles("carry")
    // Both toggles land mid-fold (frames 264 and 288): the fold is drawn around them.
    for (name, a) in [("reverse", reverse), ("carry", carry)] {
      var steps: [Double] = []
      for k in 200...300 {
        if let x = a[k], let next = a[k + 1] { steps.append(abs(next - x)) }
      }
      #expect(steps.count > 90 && steps.max()! < 0.05, "\(name): continuous, \(steps.max() ?? -1)")
    }
    for toggle in [264, 288] {
      let r = try kink(reverse, (toggle - 3)...(toggle + 3)), c = try kink(carry, (toggle - 3)...(toggle + 3))
      #expect(c < r / 5, "frame \(toggle): carry \(c) vs reverse \(r)")
    }
  }

  @Test("simulate writes 21-column CSV and matching JSON Lines")
  func simulateDefaults() throws {
    let csv = try CLI.run(["simulate"])
    #expect(csv.status == 0, "\(csv.stderr)")
    let rows = lines(csv.out)
    let header = rows[0].split(separator: ",")
    #expect(header.count == 21 && header[4] == "m11" && header[19] == "m44" && header[20] == "opacity")
    for row in rows.dropFirst() { #expect(row.split(separator: ",", omittingEmptySubsequences: false).count == 21) }
    #expect(rows.count > 25 * 8)

    let jsonl = try CLI.run(["simulate", "--format", "jsonl"])
    #expect(jsonl.status == 0)
    let records = try lines(jsonl.out).map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    #expect(records.count == rows.count - 1, "one record per CSV data line")
    for rec in records {
      #expect((rec["m"] as? [Double])?.count == 16)
      #expect(rec["opacity"] is Double && rec["row"] is Int && rec["time"] is Double)
    }
    let first = try #require(records.first)
    #expect(first["opacity"] as? Double == 0.8, "tip-in starts at opacity 0.8")
    // Same numbers in both formats.
    let csvFirst = rows[1].split(separator: ",").dropFirst(4).prefix(16).compactMap { Double($0) }
    #expect(csvFirst == (first["m"] as? [Double]))
  }

  @Test("simulate --output writes the file atomically and nothing to stdout")
  func simulateToFile() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("frames.jsonl").path
    let r = try CLI.run(["simulate", "moveUpBounce", "--format", "jsonl", "--scroll", "fling", "--output", path])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["frames.jsonl"])
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(lines(text).count > 100)
  }

  @Test("inspect prints text and JSON of the compiled recipe")
  func inspect() throws {
    let text = try CLI.run(["inspect"])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.out.contains("name: tipIn") && text.out.contains("path: 2D") && text.out.contains("quaternion:"))

    let json = try CLI.run(["inspect", "moveUpBounce", "--json"])
    #expect(json.status == 0)
    let tree = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
    #expect(tree["activeDuration"] as? Double == 1)
    let parts = try #require(tree["parts"] as? [[String: Any]])
    let curve = try #require(parts.first?["curve"] as? [String: Any])
    #expect(curve["regime"] as? String == "underdamped")
    #expect(abs((curve["zeta"] as? Double ?? 0) - 0.4) < 1e-9)
    let start = try #require(tree["start"] as? [String: Any])
    let decomposed = try #require(start["decomposed"] as? [String: Any])
    #expect(decomposed["translation"] as? [Double] == [0, 80, 0], "moves up from one row height")
    let settle = try #require(tree["settleTimes"] as? [[String: Any]])
    #expect(abs((settle[9]["seconds"] as? Double ?? 0) - 1.45) < 1e-9, "row 9: 0.45 s stagger + 1 s")
  }

  @Test("recipe-template round-trips every preset through the strict loader")
  func templatesRoundTrip() throws {
    let dir = try CLI.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    for preset in ["tipIn", "tipInChannels", "fade", "fadeIn", "fadeStagger", "moveUpBounce", "moveUpFade", "slideIn", "foldOpen", "foldClosed", "flipX", "flipY"] {
      let path = dir.appendingPathComponent("\(preset).json").path
      let t = try CLI.run(["recipe-template", preset, "--output", path])
      #expect(t.status == 0, "\(t.stderr)")
      let fromFile = try CLI.run(["inspect", path, "--json"])
      let fromPreset = try CLI.run(["inspect", preset, "--json"])
      #expect(fromFile.status == 0, "\(preset): \(fromFile.stderr)")
      #expect(fromFile.stdout == fromPreset.stdout, "\(preset): the file decodes to the preset")
    }
  }

  @Test("--help works on the root and every subcommand")
  func help() throws {
    for args in [["--help"], ["render", "--help"], ["curve", "--help"], ["simulate", "--help"], ["inspect", "--help"], ["recipe-template", "--help"]] {
      let r = try CLI.run(args)
      #expect(r.status == 0, "\(args)")
      #expect(r.out.contains("USAGE:"), "\(args)")
      #expect(r.stderr.isEmpty)
    }
  }
}
