// `simulate --layout affine`: six numbers a row, equal to the 4x4 run's m11 m12 m21 m22
// m41 m42; refused with one line for recipes that are not affine.

import Foundation
import Testing

@Suite("simulate --layout affine")
struct AffineLayoutCLITests {
  @Test("CSV and JSON Lines hold the six affine entries of the 4x4 output")
  func sameNumbers() throws {
    let args = ["simulate", "tipIn", "--duration", "0.5", "--fps", "30"]
    let full = try CLI.run(args)
    let six = try CLI.run(args + ["--layout", "affine"])
    #expect(full.status == 0 && six.status == 0, "\(six.stderr)")
    let a = lines(six.out), b = lines(full.out)
    #expect(a.first == "frame,time,row,part,a,b,c,d,tx,ty,opacity")
    #expect(a.count == b.count && a.count > 20)
    for (x, y) in zip(a.dropFirst(), b.dropFirst()) {
      let p = x.split(separator: ","), q = y.split(separator: ",")
      #expect(p.count == 11 && q.count == 21)
      #expect(Array(p[0..<4]) == Array(q[0..<4]))
      // m11 m12 m21 m22 m41 m42 are columns 4, 5, 8, 9, 16, 17 of the 4x4 record.
      #expect(Array(p[4..<10]) == [q[4], q[5], q[8], q[9], q[16], q[17]], "\(x) vs \(y)")
      #expect(p[10] == q[20])
    }
    let jsonl = try CLI.run(args + ["--layout", "affine", "--format", "jsonl"])
    for line in lines(jsonl.out) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect((object["m"] as? [Double])?.count == 6)
    }
  }

  @Test("Recipes that are not affine are refused with one line")
  func refused() throws {
    for recipe in ["flipX", "foldOpen"] {
      let r = try CLI.run(["simulate", recipe, "--layout", "affine", "--duration", "0.2"])
      #expect(r.status != 0)
      #expect(r.errorLines.count == 1 && r.errorLines[0].hasPrefix("cellmotion: error: "), "\(r.stderr)")
      #expect(r.out.isEmpty)
    }
  }
}
