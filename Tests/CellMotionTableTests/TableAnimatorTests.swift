// The frame stepper against the scalar reference: sampled frames of a fling, each visible
// animating row compared with ReferenceEvaluator using bookkeeping kept independently
// here from the table's display events.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel
@testable import CellMotionTable
@testable import CellMotionTableModel

/// Entry-wise error of a viewport matrix, in points for a point of size `scale`
/// (translation row as is, other entries times `scale`, the w column times scale^2).
func viewportError(_ a: Transform3D, _ b: Transform3D, scale: Double) -> Double {
  var worst = 0.0
  for i in 0..<4 {
    for j in 0..<4 {
      var e = abs(a[i, j] - b[i, j])
      if i < 3 { e *= scale }
      if j == 3 { e *= scale }
      worst = worstOf(worst, e.isNaN ? .infinity : e)
    }
  }
  return worst
}

struct Started {
  var start: Double, appearance: Appearance, batchPosition: Int, height: Double
}

@Suite("TableAnimator")
struct TableAnimatorTests {
  /// With `axis` `.horizontal` the same table runs along x: each cell is its row's extent
  /// wide and 375 points tall, its table width the viewport's, its place a move right.
  func runFling(recipes: TableRecipes, rule: DisplayRule, seed: UInt64, axis: ScrollAxis = .vertical) throws
    -> (ErrorTracker, ErrorTracker, Int)
  {
    let horizontal = axis == .horizontal
    var g = SeededGenerator(seed: seed)
    let heights = (0..<3000).map { _ in g.uniform(44...120) }
    let layout = try TableLayout(rowHeights: heights)
    let viewport = 640.0
    let fling = try ScrollTrajectory.fling(
      from: 0, velocity: 6000, startTime: 0.1, limits: layout.scrollRange(viewportHeight: viewport))
    let sim = try TableSimulation(layout: layout, viewportHeight: viewport, scroll: fling, rule: rule)
    var animator = try TableAnimator(simulation: sim, recipes: recipes, cellWidth: 375, capacity: 64, axis: axis)
    var live: [Int: Started] = [:]
    var startsPerRow: [Int: Int] = [:]
    // Tolerance: 2e-5 of the viewport scale (points), as the kernel's differential tests.
    var transform = ErrorTracker("stepper vs reference (points, scale 640)", tolerance: 2e-5 * 640)
    var opacity = ErrorTracker("stepper vs reference opacity", tolerance: 1e-5)
    var compared = 0, animating = 0
    for n in 0..<360 {
      let t = Double(n) / 120
      try animator.step(to: t)
      let f = animator.frame
      for r in f.events.didEndDisplaying { live[r] = nil }
      for s in f.events.animationStarts {
        let slot = s.row - f.rows.lowerBound
        live[s.row] = Started(
          start: s.startTime, appearance: s.appearance, batchPosition: s.batchPosition,
          height: f.events.rowHeights[slot])
        startsPerRow[s.row, default: 0] += 1
      }
      guard n % 7 == 0 else { continue }
      for row in f.rows {
        let slot = row - f.rows.lowerBound
        let y = f.events.rowPositions[slot]
        let place = horizontal ? Transform3D.translation(y, 0, 0) : .translation(0, y, 0)
        var expected = place
        var expectedOpacity = 1.0
        if let s = live[row] {
          animating += 1
          let recipe = s.appearance == .first ? recipes.first : (recipes.repeatAppearance ?? recipes.first)
          let state = ReferenceEvaluator.evaluate(
            recipe,
            geometry: horizontal
              ? CellGeometry(width: s.height, height: 375, tableWidth: viewport) : CellGeometry(width: 375, height: s.height),
            row: row, batchPosition: s.batchPosition, startTime: s.start, time: t)
          expected = state.transform.concatenating(place)
          expectedOpacity = state.opacity
        }
        let got = try #require(f.transform(ofRow: row))
        transform.record(viewportError(got, expected, scale: 640), 0, "seed \(seed) frame \(n) row \(row)")
        opacity.record(Double(f.opacity[slot]), expectedOpacity, "seed \(seed) frame \(n) row \(row)")
        compared += 1
      }
    }
    if rule == .firstAppearanceOnly {
      #expect(startsPerRow.values.allSatisfy { $0 == 1 }, "a row animated twice under firstAppearanceOnly")
    }
    print("compared \(compared) visible rows on sampled frames, \(animating) of them with a recorded animation start")
    return (transform, opacity, animating)
  }

  @Test("Stepper equals the reference on sampled frames of a fling (tip-in, bounce, stagger by batch, keyframes)")
  func matchesReference() throws {
    var batchFade = Recipe.fadeStagger
    batchFade.stagger.base = .batchPosition
    let cases: [(TableRecipes, DisplayRule)] = [
      (TableRecipes(first: .tipIn), .firstAppearanceOnly),
      (TableRecipes(first: .moveUpBounce), .always),
      (TableRecipes(first: batchFade, repeatAppearance: .slideIn), .always),
      // Keyframes through the table: a keyframed translation, then cubic scale keys.
      (TableRecipes(first: .shake, repeatAppearance: .pulse), .always),
    ]
    for (k, (recipes, rule)) in cases.enumerated() {
      let (tr, op, animating) = try runFling(recipes: recipes, rule: rule, seed: 100 + UInt64(k))
      print(tr)
      print(op)
      #expect(animating > 100)
      #expect(tr.passed, "\(tr)")
      #expect(op.passed, "\(op)")
    }
  }

  @Test("A horizontal table: each row's animation for a cell as wide as its row, then its move right")
  func horizontalMatchesReference() throws {
    let cases: [(TableRecipes, DisplayRule)] = [
      (TableRecipes(first: .tipIn), .firstAppearanceOnly),
      // Slide-in reads the table's width: the viewport's width here.
      (TableRecipes(first: .slideIn, repeatAppearance: .moveUpBounce), .always),
    ]
    for (k, (recipes, rule)) in cases.enumerated() {
      let (tr, op, animating) = try runFling(recipes: recipes, rule: rule, seed: 200 + UInt64(k), axis: .horizontal)
      print("horizontal: \(tr); \(op)")
      #expect(animating > 100)
      #expect(tr.passed, "\(tr)")
      #expect(op.passed, "\(op)")
    }
    // Folds are vertical: a horizontal animator refuses a simulation with expanding rows.
    let layout = try TableLayout(rowCount: 10, rowHeight: 60)
    let sim = try TableSimulation(
      layout: layout, viewportHeight: 600, scroll: .stationary(at: 0), rule: .always,
      expansion: try ExpansionState(rowCount: 10, detailHeights: .uniform(100)))
    #expect(throws: CellMotionError.self) {
      try TableAnimator(simulation: sim, recipes: TableRecipes(first: .fadeIn), cellWidth: 320, axis: .horizontal)
    }
  }

  /// The fold tests' table: 50 rows of 60 points with 180-point details in a 600-point
  /// viewport, not scrolling, every row fading in, cells 320 points wide.
  func foldingTable(motion: MotionPolicy? = nil) throws -> TableAnimator {
    let layout = try TableLayout(rowCount: 50, rowHeight: 60)
    let expansion = try ExpansionState(rowCount: 50, detailHeights: .uniform(180))
    let sim = try TableSimulation(
      layout: layout, viewportHeight: 600, scroll: .stationary(at: 0), rule: .always, expansion: expansion)
    return try TableAnimator(simulation: sim, recipes: TableRecipes(first: .fadeIn), cellWidth: 320, motion: motion)
  }

  @Test("Expanding a row folds its detail open; the halves meet in viewport space")
  func foldThroughStepper() throws {
    var animator = try foldingTable()
    try animator.step(to: 0)
    try animator.toggle(row: 2, at: 0.01)
    var sawFold = false
    var gap = ErrorTracker("fold hinge gap in viewport points", tolerance: 1e-3)
    for n in 1..<120 {
      try animator.step(to: Double(n) / 60)
      for f in animator.frame.folds {
        sawFold = true
        #expect(f.row == 2)
        for x in [0.0, 160, 320] {
          let a = f.top.apply(Vector3(x, 90)), b = f.bottom.apply(Vector3(x, 0))
          gap.record(((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot(), 0, "frame \(n) x \(x)")
        }
        // The top half's hinge is the detail's top edge: row 2's top + its collapsed height.
        let hinge = f.top.apply(Vector3(0, 0))
        #expect(abs(hinge.y - (120 + 60)) < 1e-3)
      }
    }
    print(gap)
    #expect(sawFold)
    #expect(gap.passed, "\(gap)")
  }

  /// The frame's open details and `isSettled` come from the table's own state: a toggled
  /// row's detail grows (no open detail, not settled), folds open (in `folds`, not in
  /// `openDetails`), then lies flat (in `openDetails` at the row's top + collapsed height,
  /// 180 points tall) once the height change and the fold have ended, when the table is
  /// settled; collapsing it removes the open detail at once.
  @Test("Open details and settling come from the animator: growing, folding, open, settled")
  func openDetailsAndSettling() throws {
    var animator = try foldingTable()
    try animator.step(to: 0)
    #expect(!animator.isSettled, "the first screenful is fading in")
    try animator.step(to: 1)
    #expect(animator.isSettled && animator.frame.openDetails.isEmpty)
    try animator.toggle(row: 2, at: 1)
    let expansion = try #require(animator.simulation.expansion)
    let heightEnd = 1 + expansion.heightDuration, foldEnd = heightEnd + expansion.foldDuration
    var sawGrowing = false, sawFolding = false, sawOpen = false
    for n in 1...150 {
      let t = 1 + Double(n) / 60
      try animator.step(to: t)
      let f = animator.frame
      if t < heightEnd - 1e-9 {
        sawGrowing = true
        #expect(f.openDetails.isEmpty && !animator.isSettled, "t \(t)")
      } else if !f.folds.isEmpty {
        sawFolding = true
        #expect(f.openDetails.isEmpty && !animator.isSettled, "t \(t)")
      } else if t >= foldEnd {
        sawOpen = true
        #expect(f.openDetails == [OpenDetail(row: 2, detailTop: 120 + 60, height: 180)], "t \(t)")
        #expect(animator.isSettled, "t \(t)")
      }
    }
    #expect(sawGrowing && sawFolding && sawOpen)
    try animator.toggle(row: 2, at: 3.6)
    try animator.step(to: 3.6)
    #expect(animator.frame.openDetails.isEmpty && !animator.isSettled)
  }

  /// Folds that retarget, through the kernel: with a carrying spring, a row expanded,
  /// collapsed while its fold opens and expanded again while it closes shows, every
  /// frame, the halves `ReferenceEvaluator.foldState` gives at the expansion's openness
  /// (shifted to the detail's top), entries within 2e-5 normalised (translations / 320
  /// points), as the differential tests; under reduce motion the halves are flat.
  @Test("Retargeting folds: the animator's halves at the expansion's openness, toggled mid-fold")
  func retargetingFolds() throws {
    let spring = try Spring(stiffness: 260, damping: 0.6 * 2 * 260.0.squareRoot())
    var worst = ErrorTracker("retargeting fold halves vs reference (normalised)", tolerance: 2e-5)
    for motion in [MotionPolicy.full, .reduced] {
      let layout = try TableLayout(rowCount: 50, rowHeight: 60)
      let expansion = try ExpansionState(
        rowCount: 50, detailHeights: .uniform(180), heightAnimation: .bezier(.easeInEaseOut),
        retarget: .carryVelocity(spring: spring), foldAnimation: Recipe.foldOpen.fold!.curve)
      let sim = try TableSimulation(
        layout: layout, viewportHeight: 600, scroll: .stationary(at: 0), rule: .always, expansion: expansion)
      var animator = try TableAnimator(simulation: sim, recipes: TableRecipes(first: .fadeIn), cellWidth: 320, motion: motion)
      try animator.step(to: 0)
      var frames = 0, overshoot = 0.0
      for n in 1..<150 {
        let t = Double(n) / 60
        // Expand at 1/60 s: the height grows until 0.317 s, the fold opens from then on.
        if n == 1 || n == 27 || n == 31 { try animator.toggle(row: 2, at: t) }
        try animator.step(to: t)
        let state = try #require(animator.simulation.expansion)
        for f in animator.frame.folds {
          let openness = try #require(try state.foldOpenness(row: 2, at: t))
          overshoot = worstOf(overshoot, openness - 1)
          var spec = Recipe.foldOpen.fold!
          spec.direction = .open
          let p = motion == .full ? openness : 1
          let ref = ReferenceEvaluator.foldState(spec, progress: p, width: 320, detailHeight: 180)
          let shift = Transform3D.translation(0, f.detailTop, 0)
          for (k, r) in [(f.top, ref.top.concatenating(shift)), (f.bottom, ref.bottom.concatenating(shift))] {
            for i in 0..<4 {
              for j in 0..<4 {
                var e = abs(k[i, j] - r[i, j])
                if i == 3 { e /= 320 }
                if j == 3 { e *= 320 }
                worst.record(e, 0, "\(motion) frame \(n) entry \(i)\(j) openness \(openness)")
              }
            }
          }
          frames += 1
        }
      }
      #expect(frames > 40, "\(motion): \(frames) folding frames")
      if motion == .full { #expect(overshoot > 0.01, "the under-damped spring overshoots flat: \(overshoot)") }
    }
    print(worst)
    #expect(worst.passed, "\(worst)")
  }

  /// Reduce motion in the table: an opening fold is flat at once (halves at progress 1,
  /// no shadow), a closing one draws nothing; full motion draws both phases.
  @Test("Reduce motion: folds open flat at once and close without halves")
  func reducedFolds() throws {
    for motion in [MotionPolicy.full, .reduced] {
      var animator = try foldingTable(motion: motion)
      try animator.step(to: 0)
      try animator.toggle(row: 2, at: 0.01)
      var opening = 0, closing = 0, flatWhileOpening = true
      for n in 1..<240 {
        let t = Double(n) / 60
        if n == 120 { try animator.toggle(row: 2, at: t) }
        try animator.step(to: t)
        for f in animator.frame.folds {
          if n < 120 {
            opening += 1
            // Flat: the top half's far edge stays in the plane at the hinge + 90 points.
            let edge = f.top.apply(Vector3(0, 90))
            if abs(edge.y - (180 + 90)) > 1e-3 || f.shadowOpacity != 0 { flatWhileOpening = false }
          } else {
            closing += 1
          }
        }
      }
      #expect(opening > 0, "\(motion)")
      if motion == .reduced {
        #expect(flatWhileOpening && closing == 0)
      } else {
        #expect(!flatWhileOpening && closing > 0)
      }
    }
  }

  @Test("Bad input: zero widths, a fold recipe that does not fold, toggles out of range")
  func validation() throws {
    let layout = try TableLayout(rowCount: 10, rowHeight: 44)
    let sim = try TableSimulation(layout: layout, viewportHeight: 300, scroll: .stationary(at: 0), rule: .always)
    #expect(throws: CellMotionError.self) { try TableAnimator(simulation: sim, recipes: TableRecipes(first: .tipIn), cellWidth: 0) }
    #expect(throws: CellMotionError.self) {
      try TableAnimator(simulation: sim, recipes: TableRecipes(first: .tipIn, fold: .fadeIn), cellWidth: 320)
    }
    var a = try TableAnimator(simulation: sim, recipes: TableRecipes(first: .tipIn), cellWidth: 320)
    #expect(throws: CellMotionError.self) { try a.toggle(row: 99, at: 0) }
    #expect(throws: CellMotionError.self) { try a.step(to: .nan) }
  }
}

@Suite("TableAnimator: rows that come back mid-animation")
struct ResumedAppearanceTests {
  /// Rows 0-4 start a 2 s slide, leave the screen at 0.2 s (the table jumps to offset
  /// 1200) and come back at 0.4 s (offset 0), with the `.always` rule.
  func run(resumes: Bool) throws -> (TableAnimator, Transform3D) {
    let layout = try TableLayout(rowCount: 100, rowHeight: 80)
    var slide = Recipe.slideIn
    slide.channels[0].duration = 2
    let sim = try TableSimulation(layout: layout, viewportHeight: 400, scroll: try .stationary(at: 0), rule: .always)
    var animator = try TableAnimator(simulation: sim, recipes: TableRecipes(first: slide), cellWidth: 375)
    animator.resumesInterruptedAppearances = resumes
    for n in 0...60 {
      let t = Double(n) / 100
      if n == 20 { animator.setScroll(try .stationary(at: 1200)) }
      if n == 40 { animator.setScroll(try .stationary(at: 0)) }
      try animator.step(to: t)
    }
    #expect(animator.frame.rows.contains(2))
    return (animator, try #require(animator.frame.transform(ofRow: 2)))
  }

  @Test("a row scrolled away and back goes on with its running animation; with the option off it starts again")
  func resumeOrRestart() throws {
    let geometry = CellGeometry(width: 375, height: 80)
    var slide = Recipe.slideIn
    slide.channels[0].duration = 2
    func expected(start: Double) -> Transform3D {
      ReferenceEvaluator.evaluate(slide, geometry: geometry, row: 2, startTime: start, time: 0.6).transform
        .concatenating(.translation(0, 160, 0))
    }
    let (_, resumed) = try run(resumes: true)
    #expect(viewportError(resumed, expected(start: 0), scale: 400) < 1e-2, "continues its 0 s start")
    let (_, restarted) = try run(resumes: false)
    #expect(viewportError(restarted, expected(start: 0.4), scale: 400) < 1e-2, "starts again at 0.4 s")
    #expect(viewportError(resumed, restarted, scale: 400) > 10, "the two differ")
  }
}
