// Stagger orders against the anchors' documented formulas, worked by hand: framer-motion's
// stagger(step, { from }) (origin first 0, last n - 1, centre (n - 1) / 2, delay = step x
// |origin - i|), anime.js's grid stagger (euclidean distance between (i % C, i / C) and the
// origin's cell; `axis` one coordinate; `reversed` = max - d; an ease over d / max) and
// Android's ORDER_REVERSE (index count - 1 - i) and ORDER_RANDOM (a permutation here).

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("Stagger orders")
struct StaggerTests {
  func delays(_ s: Stagger, _ n: Int) -> [Double] { (0..<n).map { s.delay(index: $0, count: n) } }

  func close(_ a: [Double], _ b: [Double], _ tol: Double = 1e-12) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tol }
  }

  @Test("In a line: first, last, centre (odd and even counts), an index, reversed")
  func line() {
    #expect(close(delays(Stagger(step: 0.1), 5), [0, 0.1, 0.2, 0.3, 0.4]))
    #expect(close(delays(Stagger(step: 0.1, from: .last), 5), [0.4, 0.3, 0.2, 0.1, 0]))
    #expect(close(delays(Stagger(step: 0.1, from: .center), 5), [0.2, 0.1, 0, 0.1, 0.2]))
    #expect(close(delays(Stagger(step: 0.1, from: .center), 4), [0.15, 0.05, 0.05, 0.15]))
    #expect(close(delays(Stagger(step: 0.1, from: .index(1)), 4), [0.1, 0, 0.1, 0.2]))
    // Android's ORDER_REVERSE: index count - 1 - i, the same as from the last.
    #expect(close(delays(Stagger(step: 0.1, reversed: true), 5), delays(Stagger(step: 0.1, from: .last), 5)))
    // anime.js reversed = max - d: from the centre, the ends start first.
    #expect(close(delays(Stagger(step: 0.1, from: .center, reversed: true), 5), [0, 0.1, 0.2, 0.1, 0]))
    // One cell: no delay whatever the origin.
    for from in [StaggerOrigin.first, .last, .center, .random(seed: 3)] {
      #expect(Stagger(step: 0.1, from: from, reversed: true, ease: .easeIn).delay(index: 0, count: 1) == 0)
    }
  }

  @Test("In a grid: euclidean from the centre, one axis, the last cell of a partial last row")
  func grid() {
    // 9 cells in 3 columns from the centre (1, 1): corners sqrt(2), edges 1, centre 0.
    let r2 = 2.0.squareRoot()
    let centre = Stagger(step: 1, from: .center, grid: StaggerGrid(columns: 3))
    #expect(close(delays(centre, 9), [r2, 1, r2, 1, 0, 1, r2, 1, r2]))
    // axis x: column distance only (anime.js signs it; here the magnitude).
    let xOnly = Stagger(step: 1, from: .center, grid: StaggerGrid(columns: 3, axis: .x))
    #expect(close(delays(xOnly, 9), [1, 0, 1, 1, 0, 1, 1, 0, 1]))
    let yOnly = Stagger(step: 1, from: .first, grid: StaggerGrid(columns: 3, axis: .y))
    #expect(close(delays(yOnly, 7), [0, 0, 0, 1, 1, 1, 2]))
    // 7 cells in 3 columns, from the last (index 6 at column 0, row 2): the farthest cell
    // is (2, 0), sqrt(8) away; reversed, that one starts first.
    let last = Stagger(step: 1, from: .last, grid: StaggerGrid(columns: 3))
    let d = delays(last, 7)
    #expect(close(d, [2, 5.0.squareRoot(), 8.0.squareRoot(), 1, r2, 5.0.squareRoot(), 0]))
    var reversed = last
    reversed.reversed = true
    #expect(close(delays(reversed, 7), d.map { 8.0.squareRoot() - $0 }))
    // Centre of a partial grid: columns used (min(C, n)) and rows ceil(n / C).
    let two = Stagger(step: 1, from: .center, grid: StaggerGrid(columns: 4))
    #expect(close(delays(two, 2), [0.5, 0.5]))
  }

  @Test("An eased stagger follows the curve over the same span (anime.js: ease(d / max) x max)")
  func eased() {
    let linear = Stagger(step: 0.1, ease: .linear)
    #expect(close(delays(linear, 6), delays(Stagger(step: 0.1), 6)))
    let easeIn = Stagger(step: 0.1, ease: .easeIn)
    let d = delays(easeIn, 5)
    for k in 0..<5 { #expect(abs(d[k] - 0.4 * TimingCurve.easeIn.value(at: Double(k) / 4)) < 1e-12) }
    #expect(d[0] == 0 && abs(d[4] - 0.4) < 1e-12, "the span is kept")
    // easeIn holds the early cells back: each delay is below the linear one inside.
    for k in 1..<4 { #expect(d[k] < 0.1 * Double(k)) }
    // Eased and reversed, in anime.js's order (ease, then D - d): 3 cells from the first,
    // D = 2, the middle cell waits 2 - 2 easeIn(1/2).
    let both = Stagger(step: 1, reversed: true, ease: .easeIn)
    #expect(close(delays(both, 3), [2, 2 - 2 * TimingCurve.easeIn.value(at: 0.5), 0]))
  }

  @Test("Out-of-range indices: the default order is step x index for any row; the others clamp and end")
  func largeIndices() {
    #expect(Stagger(step: 0.5).delay(index: 1 << 27, count: 0) == 0.5 * Double(1 << 27))
    let random = Stagger(step: 1, from: .random(seed: 1))
    let d = random.delay(index: 1 << 26, count: 0)
    #expect(d >= 0 && d < Double(Stagger.maximumCount))
    #expect(Stagger.permuted(5, count: 3, seed: 0) < 3 && Stagger.permuted(-4, count: 3, seed: 0) < 3)
    #expect(Stagger.permuted(7, count: Int.max, seed: 2) < Stagger.maximumCount)
  }

  @Test("Random order: a bijection of 0..<n for every n, fixed by the seed, different across seeds")
  func random() {
    for n in [1, 2, 3, 7, 9, 64, 100, 1023, 4097] {
      for seed: UInt64 in [0, 1, 0xC0FFEE] {
        let ranks = (0..<n).map { Stagger.permuted($0, count: n, seed: seed) }
        #expect(Set(ranks) == Set(0..<n), "n \(n) seed \(seed)")
      }
    }
    let a = (0..<100).map { Stagger.permuted($0, count: 100, seed: 1) }
    let b = (0..<100).map { Stagger.permuted($0, count: 100, seed: 2) }
    #expect(a != b && a != Array(0..<100))
    // Delays: step x rank, spanning step x (n - 1).
    let s = Stagger(step: 0.02, from: .random(seed: 9))
    let d = delays(s, 50)
    #expect(Set(d.map { Int(($0 / 0.02).rounded()) }) == Set(0..<50))
  }

  @Test("Counts: needsCount, the evaluator's bases, and bad numbers are typed errors")
  func counts() throws {
    #expect(!Stagger(step: 0.05).needsCount && !Stagger.none.needsCount)
    #expect(Stagger(step: 0.05, from: .center).needsCount && Stagger(step: 0.05, ease: .easeIn).needsCount)
    let s = Stagger(step: 0.1, base: .batchPosition, from: .last)
    #expect(abs(ReferenceEvaluator.staggerDelay(s, row: 40, batchPosition: 1, batchCount: 4) - 0.2) < 1e-12)
    let r = Stagger(step: 0.1, base: .row, from: .last)
    #expect(abs(ReferenceEvaluator.staggerDelay(r, row: 7, batchPosition: 0, rowCount: 10) - 0.2) < 1e-12)
    #expect(throws: CellMotionError.self) { try Stagger(step: 0.1, grid: StaggerGrid(columns: 0)).validate() }
    #expect(throws: CellMotionError.self) { try Stagger(step: 0.1, from: .index(-1)).validate() }
    #expect(throws: CellMotionError.self) { try Stagger(step: -1).validate() }
    #expect(throws: CellMotionError.self) { try Stagger(step: 0.1, from: .random(seed: 1 << 53)).validate() }
    // The largest seed survives a recipe file exactly.
    var seeded = Recipe.fadeIn
    seeded.stagger = Stagger(step: 0.05, from: .random(seed: Stagger.maximumSeed))
    let text = String(decoding: try JSONEncoder().encode(seeded), as: UTF8.self)
    #expect(try Recipe.decodeFile(Data(text.utf8), source: "seed.json").stagger.from == .random(seed: Stagger.maximumSeed))
    // A fractional origin index is refused with a clear reason.
    let bad = #"{"name": "x", "stagger": {"step": 0.1, "from": 2.5}}"#
    #expect(throws: CellMotionError.self) { try Recipe.decodeFile(Data(bad.utf8), source: "bad.json") }
  }
}
