// TableAnimator with the 2D affine layout: the same frames as the 16-Float layout, six
// numbers a row; non-affine recipes refused at construction.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel
@testable import CellMotionTable
@testable import CellMotionTableModel

@Suite("TableAnimator: affine layout")
struct AffineAnimatorTests {
  func animator(_ recipe: Recipe, layout: MatrixLayout) throws -> TableAnimator {
    let layout2 = try TableLayout(rowCount: 2000, rowHeight: 72)
    let fling = try ScrollTrajectory.fling(
      from: 0, velocity: 5000, startTime: 0.05, limits: layout2.scrollRange(viewportHeight: 700))
    let sim = try TableSimulation(layout: layout2, viewportHeight: 700, scroll: fling, rule: .firstAppearanceOnly)
    return try TableAnimator(simulation: sim, recipes: TableRecipes(first: recipe), cellWidth: 390, layout: layout)
  }

  @Test("Every frame of a fling equals the 16-Float layout's six affine entries", arguments: ["tipIn", "moveUpBounce", "slideIn"])
  func sameFrames(name: String) throws {
    let recipe = try Recipe.preset(named: name)
    var six = try animator(recipe, layout: .affine2D)
    var full = try animator(recipe, layout: .transform3D)
    var compared = 0, animating = 0
    for n in 0..<240 {
      let t = Double(n) / 120
      try six.step(to: t)
      try full.step(to: t)
      let a = six.frame, b = full.frame
      #expect(a.rows == b.rows && a.layout == .affine2D)
      #expect(a.matrices.count == 6 * a.rows.count)
      for i in 0..<a.rows.count {
        let m = b.matrices[(16 * i)..<(16 * i + 16)].map { $0 }
        #expect(Array(a.matrices[(6 * i)..<(6 * i + 6)]) == [m[0], m[1], m[4], m[5], m[12], m[13]], "frame \(n) row \(i)")
        #expect(a.transform(ofRow: a.rows.lowerBound + i) == b.transform(ofRow: b.rows.lowerBound + i))
        compared += 1
        if a.animating[i] { animating += 1 }
      }
      #expect(a.opacity == b.opacity)
    }
    #expect(compared > 2000 && animating > 100)
  }

  @Test("A recipe that is not affine is refused at construction")
  func refuses() throws {
    #expect(throws: CellMotionError.self) { try animator(.flipX, layout: .affine2D) }
    _ = try animator(.flipX, layout: .transform3D)
  }
}
