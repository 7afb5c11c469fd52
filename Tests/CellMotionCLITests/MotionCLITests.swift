// `--motion`: reduce motion from the command line, through TableAnimator and the kernel.

import Foundation
import Testing

@Suite("--motion")
struct MotionCLITests {
  func records(_ args: [String]) throws -> [[String: Any]] {
    let r = try CLI.run(args + ["--format", "jsonl"])
    #expect(r.status == 0, "\(r.stderr)")
    return try lines(r.out).map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
  }

  /// none: every cell is at its place (a translation by its row's y) and opaque from the
  /// first frame; reduced: tip-in's transform is at rest too, its opacity still animates
  /// from 0.8; full: the tilt.
  @Test("simulate --motion none / reduced / full")
  func policies() throws {
    let args = ["simulate", "tipIn", "--duration", "0.3", "--fps", "20", "--rows", "4", "--viewport-height", "320"]
    for (policy, restingTransform) in [("none", true), ("reduced", true), ("full", false)] {
      let recs = try records(args + ["--motion", policy])
      #expect(recs.count > 8)
      for r in recs {
        let m = try #require(r["m"] as? [Double]), opacity = try #require(r["opacity"] as? Double)
        let frame = try #require(r["frame"] as? Int)
        let atRest = abs(m[0] - 1) < 1e-6 && abs(m[1]) < 1e-6 && abs(m[4]) < 1e-6 && abs(m[12]) < 1e-4
        if restingTransform { #expect(atRest, "\(policy): \(m)") }
        if policy == "none" { #expect(opacity == 1) }
        if policy == "reduced" && frame == 0 { #expect(abs(opacity - 0.8) < 1e-6) }
        if policy == "full" && frame == 0 { #expect(!atRest) }
      }
    }
    let bad = try CLI.run(args + ["--motion", "less"])
    #expect(bad.status == 64 && bad.errorLines.count == 1, "\(bad.stderr)")
  }
}
