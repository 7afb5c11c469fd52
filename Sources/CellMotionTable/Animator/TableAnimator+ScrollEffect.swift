// A scroll effect on the rows a TableAnimator draws: every frame, each visible row's place
// in the viewport gives it the effect's transform and opacity (ScrollEffectBatch, through
// the kernel), composed around the row's time-driven animation: the scroll effect is the
// outer layer (`ScrollEffectState.applied(to:)`), opacities multiply.

import CellMotion
import CellMotionKernel

/// The scroll effect of a table: its batch, its output and the per-frame columns (sized
/// once, grown only when a frame draws more rows than any before).
struct TableScrollStage: Sendable {
  /// The effect as the caller gave it.
  let effect: ScrollEffect
  /// The effect evaluated: `effect`, or `effect.withoutMotion` under a policy that holds
  /// transforms.
  var batch: ScrollEffectBatch
  var output: FrameOutput
  var leading: [Float] = []
  var extent: [Float] = []

  init(
    effect: ScrollEffect, motion: MotionPolicy, layout: MatrixLayout, capacity: Int, axis: ScrollAxis
  ) throws(CellMotionError) {
    guard effect.timeline.axis == axis else {
      throw .invalidCombination(
        field: "scrollEffect",
        reason: "effect \(effect.name) reads the \(effect.timeline.axis.rawValue) axis; the table scrolls \(axis.rawValue)ly")
    }
    self.effect = effect
    batch = try ScrollEffectBatch(effect: motion.holdsTransforms ? effect.withoutMotion : effect, capacity: capacity)
    if layout == .affine2D, let r = batch.batch.recipes.first, !r.isPlanar {
      throw .invalidCombination(
        field: "layout", reason: "scroll effect \(effect.name) is not affine; use the transform3D layout")
    }
    // A planar effect's matrices as six Floats whatever the frame's layout: compose builds
    // the 4x4 rows from them, and the effect's pass writes and compose reads 24 bytes a
    // row instead of 64.
    let planar = batch.batch.recipes.first?.isPlanar ?? false
    output = try FrameOutput(capacity: capacity, layout: planar ? .affine2D : layout, includeFold: false)
    leading = [Float](repeating: 0, count: capacity)
    extent = [Float](repeating: 0, count: capacity)
  }
}

extension TableAnimator {
  /// The scroll effect on every visible row, or nil.
  public var scrollEffect: ScrollEffect? { scrollStage?.effect }

  /// Sets the scroll effect every later frame applies to the visible rows (nil: none).
  ///
  /// Each frame, a visible row's layout place relative to the viewport (its top minus the
  /// scroll offset, and its height, animated heights included: the layout, never a
  /// transform an animation applied) drives `effect` as `ScrollEffect.evaluate(cell:scroll:)`
  /// defines it for a scroll view of the table's width (`tableWidth`) and viewport height,
  /// content height the table's, no insets (in a horizontal animator the same along x: the
  /// row's left edge and width, a viewport as wide as the simulation's viewport height and
  /// `tableWidth` tall, cells `cellWidth` tall); the effect then wraps the row's time-driven
  /// animation (`ScrollEffectState.applied(to:)`: a point goes through the row's
  /// animation, then the effect, then to the row's place; opacities multiply). Rows in the
  /// overscan get it too (a wheel's rows just outside the viewport). Under a motion policy
  /// that holds transforms (the animator's `motion`, else the effect recipe's own) the
  /// effect is evaluated `withoutMotion`: only its opacity.
  ///
  /// Not affected: the extra cells of batch updates (deleted rows, old contents, moved
  /// rows drawn outside the visible range) and fold halves keep their time-driven
  /// transforms; timelines limited to a section's end see no section (the table has none).
  /// - Throws: `.invalidCombination` for an effect on the other axis than the animator's
  ///   (`axis`) or, with the `.affine2D` layout, one that is not affine; the errors of `ScrollEffectBatch.init`.
  ///   Then the effect is unchanged.
  public mutating func setScrollEffect(_ effect: ScrollEffect?) throws(CellMotionError) {
    guard let effect else {
      scrollStage = nil
      return
    }
    scrollStage = try TableScrollStage(
      effect: effect, motion: motion ?? effect.recipe.motion, layout: frame.layout,
      capacity: max(frame.rows.count, initialCapacity), axis: axis)
  }

  /// Applies the scroll effect to the frame's visible rows (`step`'s last pass).
  mutating func applyScrollEffect(_ events: FrameEvents) throws(CellMotionError) {
    guard var stage = scrollStage else { return }
    // Out of `self` while it is mutated, so its arrays stay uniquely referenced.
    scrollStage = nil
    defer { scrollStage = stage }
    let n = frame.rows.count
    if stage.leading.count < n {
      stage.leading.append(contentsOf: repeatElement(0, count: n - stage.leading.count))
      stage.extent.append(contentsOf: repeatElement(0, count: n - stage.extent.count))
      try stage.output.ensureCapacity(n)
    }
    // Layout places relative to the viewport, and heights clamped into the lengths a
    // recipe accepts (`cellGeometry`: a collapsing row passes through 0 points).
    let lo = Float(InputLimits.length.lowerBound), hi = Float(InputLimits.length.upperBound)
    // Through pointers: a subscript write per row checked the array's uniqueness each time.
    events.rowPositions.withUnsafeBufferPointer { positions in
      stage.leading.withUnsafeMutableBufferPointer { leading in
        for i in 0..<n { leading[i] = Float(positions[i]) }
      }
    }
    events.rowHeights.withUnsafeBufferPointer { heights in
      stage.extent.withUnsafeMutableBufferPointer { extent in
        for i in 0..<n { extent[i] = min(max(Float(heights[i]), lo), hi) }
      }
    }
    let scroll =
      axis == .horizontal
      ? try ScrollState(
        offsetX: events.scrollOffset, viewportWidth: simulation.viewportHeight, viewportHeight: tableWidth,
        contentWidth: max(events.contentHeight, 0))
      : try ScrollState(
        offsetY: events.scrollOffset, viewportWidth: tableWidth, viewportHeight: simulation.viewportHeight,
        contentHeight: max(events.contentHeight, 0))
    try stage.leading.withUnsafeBufferPointer { leading throws(CellMotionError) in
      try stage.extent.withUnsafeBufferPointer { extent throws(CellMotionError) in
        try stage.batch.evaluate(
          leading: UnsafeBufferPointer(rebasing: leading[0..<n]), extent: UnsafeBufferPointer(rebasing: extent[0..<n]),
          crossExtent: cellWidth, scroll: scroll, into: &stage.output, options: KernelOptions(lanes: options.lanes))
      }
    }
    Self.compose(
      effect: stage.output, rows: n, positions: events.rowPositions, horizontal: axis == .horizontal, into: &frame)
  }

  /// Each visible row's matrix M = A x T(0, y) (its animation A, then its place y; T(y, 0)
  /// when `horizontal`) becomes A x S x T(0, y) for the effect's S; its opacity is
  /// multiplied by the effect's. Rows that are not animating (A the identity) take S
  /// directly.
  static func compose(
    effect: FrameOutput, rows n: Int, positions: [Double], horizontal: Bool, into frame: inout AnimatorFrame
  ) {
    let affine = frame.layout == .affine2D
    // The effect's own layout: six Floats for a planar effect (`TableScrollStage`).
    let planarEffect = effect.layout == .affine2D
    // Every input through a pointer: reading `frame.animating[i]` while `frame.matrices`
    // was open for writing made two uniqueness checks per row.
    let animating = frame.animating
    guard n > 0 else { return }
    positions.withUnsafeBufferPointer { p in
      animating.withUnsafeBufferPointer { an in
        effect.matrices.withUnsafeBufferPointer { s in
          frame.matrices.withUnsafeMutableBufferPointer { m in
            // Base addresses unwrapped once.
            let p = p.baseAddress!, an = an.baseAddress!
            let m = m.baseAddress!, s = s.baseAddress!
            // One loop per layout, each inlined with the axis as a literal (`run(true)`,
            // `run(false)`): the loop body is the composition alone.
            @inline(__always) func run(_ horizontal: Bool) {
              switch (affine, planarEffect) {
              case (true, _):
                for i in 0..<n {
                  Self.composeAffine(m + 6 &* i, s + 6 &* i, y: Float(p[i]), animating: an[i], horizontal: horizontal)
                }
              case (false, true):
                for i in 0..<n {
                  let y = Float(p[i])
                  if an[i] {
                    Self.compose4x4(m + 16 &* i, Self.rows(affine: s + 6 &* i), y: y, animating: true, horizontal: horizontal)
                  } else {
                    Self.place(affine: s + 6 &* i, y: y, horizontal: horizontal, into: m + 16 &* i)
                  }
                }
              case (false, false):
                for i in 0..<n {
                  Self.compose4x4(m + 16 &* i, Self.rows(s + 16 &* i), y: Float(p[i]), animating: an[i], horizontal: horizontal)
                }
              }
            }
            if horizontal { run(true) } else { run(false) }
          }
        }
      }
    }
    effect.opacity.withUnsafeBufferPointer { o in
      frame.opacity.withUnsafeMutableBufferPointer { f in
        for i in 0..<n { f[i] *= o[i] }
      }
    }
  }

  /// The rows of the 4x4 at `s` (16 Floats, CATransform3D field order), as vector loads.
  @inline(__always)
  static func rows(_ s: UnsafePointer<Float>) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    let src = UnsafeRawPointer(s)
    return (
      src.loadUnaligned(fromByteOffset: 0, as: SIMD4<Float>.self), src.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self),
      src.loadUnaligned(fromByteOffset: 32, as: SIMD4<Float>.self), src.loadUnaligned(fromByteOffset: 48, as: SIMD4<Float>.self)
    )
  }

  /// The rows of the 4x4 of the affine matrix at `s` (a b c d tx ty): (a b 0 0), (c d 0 0),
  /// (0 0 1 0), (tx ty 0 1), the entries a 4x4 planar matrix holds.
  @inline(__always)
  static func rows(affine s: UnsafePointer<Float>) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    (SIMD4(s[0], s[1], 0, 0), SIMD4(s[2], s[3], 0, 0), SIMD4(0, 0, 1, 0), SIMD4(s[4], s[5], 0, 1))
  }

  /// A row that runs no animation, under a planar effect S (six Floats at `s`, a b c d tx
  /// ty): S x T(0, y) (T(y, 0) when `horizontal`) as 16 Floats, four vector stores: the
  /// values `compose4x4` gives S's rows without an animation, bit for bit.
  @inline(__always)
  static func place(affine s: UnsafePointer<Float>, y: Float, horizontal: Bool, into a: UnsafeMutablePointer<Float>) {
    let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(a)
    var ab = src.loadUnaligned(fromByteOffset: 0, as: SIMD2<Float>.self)
    var cd = src.loadUnaligned(fromByteOffset: 8, as: SIMD2<Float>.self)
    var t = src.loadUnaligned(fromByteOffset: 16, as: SIMD2<Float>.self)
    // The moved column gains w x y, w = 0 in rows 1 and 2 and 1 in the translation row, as
    // `compose4x4` adds it (0 x y too: a -0 entry comes out as compose4x4's, bit for bit).
    let zero = 0 * y
    if horizontal {
      (ab.x, cd.x, t.x) = (ab.x + zero, cd.x + zero, t.x + y)
    } else {
      (ab.y, cd.y, t.y) = (ab.y + zero, cd.y + zero, t.y + y)
    }
    dst.storeBytes(of: SIMD4(lowHalf: ab, highHalf: .zero), toByteOffset: 0, as: SIMD4<Float>.self)
    dst.storeBytes(of: SIMD4(lowHalf: cd, highHalf: .zero), toByteOffset: 16, as: SIMD4<Float>.self)
    dst.storeBytes(of: SIMD4<Float>(0, 0, 1, 0), toByteOffset: 32, as: SIMD4<Float>.self)
    dst.storeBytes(of: SIMD4(lowHalf: t, highHalf: SIMD2(0, 1)), toByteOffset: 48, as: SIMD4<Float>.self)
  }

  /// `a` (16 Floats, CATransform3D field order: row r, column c at 4r + c) = A x T(0, y)
  /// becomes A x S x T(0, y), S's rows `s` (`rows(_:)`, `rows(affine:)`; T(y, 0) when
  /// `horizontal`).
  @inline(__always)
  static func compose4x4(
    _ a: UnsafeMutablePointer<Float>, _ s: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), y: Float,
    animating: Bool, horizontal: Bool
  ) {
    // S's rows as vectors, the result's rows as vector stores (element by element, a cell
    // took about 77 instructions); the arithmetic is the same, value for value.
    let dst = UnsafeMutableRawPointer(a)
    let (s0, s1, s2, s3) = s
    for r in 0..<4 {
      var row: SIMD4<Float>
      if animating {
        // A's row: the translation by y taken back out (column 2 -= column 4 x y; column 1
        // when horizontal).
        let w = a[4 * r + 3]
        let x0 = horizontal ? a[4 * r] - w * y : a[4 * r]
        let x1 = horizontal ? a[4 * r + 1] : a[4 * r + 1] - w * y, x2 = a[4 * r + 2]
        // One product per statement: the whole sum in one expression took the type
        // checker about a second.
        let p0: SIMD4<Float> = x0 * s0, p1: SIMD4<Float> = x1 * s1
        let p2: SIMD4<Float> = x2 * s2, p3: SIMD4<Float> = w * s3
        row = ((p0 + p1) + p2) + p3  // the order the single expression summed in
      } else {
        row = r == 0 ? s0 : (r == 1 ? s1 : (r == 2 ? s2 : s3))
      }
      // The row's place again: column 2 += column 4 x y (the sum formed in all lanes, kept
      // in the second: a blend, where an element insert cost several instructions).
      let moved = row + SIMD4<Float>(repeating: row[3] * y)
      row = horizontal ? SIMD4<Float>(moved[0], row[1], row[2], row[3]) : SIMD4<Float>(row[0], moved[1], row[2], row[3])
      dst.storeBytes(of: row, toByteOffset: 16 * r, as: SIMD4<Float>.self)
    }
  }

  /// `a` (6 Floats, a b c d tx ty: x' = a x + c y + tx, y' = b x + d y + ty) = A then a
  /// move by y (down; right when `horizontal`) becomes A, then S (at `s`), then the move.
  @inline(__always)
  static func composeAffine(
    _ a: UnsafeMutablePointer<Float>, _ s: UnsafePointer<Float>, y: Float, animating: Bool, horizontal: Bool
  ) {
    if !animating {
      for k in 0..<6 { a[k] = s[k] }
      a[horizontal ? 4 : 5] += y
      return
    }
    // The place taken out of A's translation (tx or ty), S applied, the place put back.
    let place = horizontal ? 4 : 5
    a[place] -= y
    let (aa, ab, ac, ad, atx, aty) = (a[0], a[1], a[2], a[3], a[4], a[5])
    a[0] = aa * s[0] + ab * s[2]
    a[1] = aa * s[1] + ab * s[3]
    a[2] = ac * s[0] + ad * s[2]
    a[3] = ac * s[1] + ad * s[3]
    a[4] = atx * s[0] + aty * s[2] + s[4]
    a[5] = atx * s[1] + aty * s[3] + s[5]
    a[place] += y
  }
}
