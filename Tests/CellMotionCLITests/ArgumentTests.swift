// Argument parsing: negative numbers as option values, for every numeric option.

import Foundation
import Testing

@Suite("cellmotion arguments")
struct ArgumentTests {
  /// Numeric options per subcommand (the table options are shared by render and simulate).
  static let table = ["--rows", "--row-height", "--width", "--viewport-height", "--velocity", "--scroll-start", "--fps",
                      "--duration", "--expand", "--detail-height", "--toggle", "--insert", "--delete", "--move", "--reload"]
  static let numeric: [String: [String]] = [
    "render": table + ["--thumbnails", "--columns", "--scale", "--sheet-from"],
    "simulate": table,
    "curve": [
      "--damping-ratio", "--duration", "--initial-velocity", "--mass", "--stiffness", "--damping", "--samples", "--retarget",
      "--row-height", "--viewport-height", "--width",
    ],
    "inspect": ["--width", "--height", "--detail-height", "--rows"],
    "recipe-template": ["--row-height", "--viewport-height"],
  ]
  /// Options whose values are not numbers.
  static let other: [String: [String]] = [
    "render": [
      "--scroll", "--rule", "--motion", "--output", "--basename", "--format", "--height-retarget", "--row-animation",
      "--update-timing", "--scroll-effect", "--axis",
    ],
    "simulate": [
      "--scroll", "--rule", "--motion", "--format", "--layout", "--output", "--height-retarget", "--row-animation",
      "--update-timing", "--scroll-effect", "--axis",
    ],
    "curve": ["--format", "--output", "--scroll-effect", "--axis"],
    "inspect": ["--output"],
    "recipe-template": ["--output", "--scroll-effect", "--axis"],
  ]

  @Test("--velocity -3000 is a value, the same as --velocity=-3000")
  func negativeVelocity() throws {
    let spaced = try CLI.run(["simulate", "--scroll", "fling", "--velocity", "-3000", "--duration", "0.3"])
    #expect(spaced.status == 0, "\(spaced.stderr)")
    let joined = try CLI.run(["simulate", "--scroll", "fling", "--velocity=-3000", "--duration", "0.3"])
    #expect(spaced.stdout == joined.stdout && !spaced.stdout.isEmpty)
    let curve = try CLI.run(["curve", "--damping-ratio", "0.5", "--initial-velocity", "-2", "--format", "csv", "--samples", "4"])
    #expect(curve.status == 0, "\(curve.stderr)")
    #expect(lines(curve.out)[1] == "0,0,-2", "starts moving backwards at -2 per second")
  }

  @Test("a negative value out of range is a range error, not a missing value")
  func rangeErrors() throws {
    let r = try CLI.run(["simulate", "--scroll-start", "-1"])
    #expect(r.status == 64 && r.errorLines == ["cellmotion: error: --scroll-start must be >= 0, got -1.0"], "\(r.stderr)")
    let e = try CLI.run(["simulate", "foldOpen", "--expand", "1", "-3"])
    #expect(e.status == 64 && e.errorLines == ["cellmotion: error: --expand row -3 is out of range 0..<20"], "\(e.stderr)")
  }

  @Test("every numeric option takes a negative number as its value")
  func everyNumericOption() throws {
    for (command, options) in Self.numeric {
      for option in options {
        let r = try CLI.run([command, option, "-1"] + (command == "render" ? ["--format", "svg", "-o", "/nonexistent/\(UUID())"] : []))
        #expect(!r.signaled && [0, 1, 64].contains(r.status), "\(command) \(option) -1: \(r.status)")
        for parseError in ["Missing value", "Unknown option", "Unexpected argument"] {
          #expect(!r.stderr.contains(parseError), "\(command) \(option) -1: \(r.stderr)")
        }
        if r.status != 0 { #expect(r.errorLines.count == 1, "\(command) \(option) -1: \(r.stderr)") }
      }
    }
  }

  @Test("the lists above cover every option with a value (a new numeric option needs .unconditional)")
  func optionListsAreComplete() throws {
    for command in Self.numeric.keys.sorted() {
      let help = try CLI.run([command, "--help"]).out
      // "  --row-height <row-height>" and "  -o, --output <output>"
      let pattern = try NSRegularExpression(pattern: #"^\s+(?:-\w, )?(--[\w-]+) <[\w-]+>"#, options: .anchorsMatchLines)
      let found = pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).map {
        String(help[Range($0.range(at: 1), in: help)!])
      }
      #expect(!found.isEmpty)
      #expect(Set(found) == Set(Self.numeric[command]! + Self.other[command]!), "\(command): \(found)")
    }
  }
}
