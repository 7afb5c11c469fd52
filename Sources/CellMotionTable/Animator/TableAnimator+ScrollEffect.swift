// A scroll effect on the rows a TableAnimator draws: every frame, each visible row's place
// in the viewport gives it the effect's transform and opacity (ScrollEffectBatch, through
// the kernel), composed around the row's time-driven animation: the scroll effect is the
// outer layer (`ScrollEffectState.applied(to:)`), opacities multiply.

import CellMotion
import CellMotionKernel

/// The scroll effect of a table: its batch and its output (sized once, grown only when a
/// frame draws more rows than any before).
struct TableScrollStage: Sendable {
  /// The effect as the caller gave it.
  let effect: ScrollEffect
  /// The effect evaluated: `effect`, or `effect.withoutMotion` under a policy that holds
  /// transforms.
  var batch: ScrollEffectBatch
  var output: FrameOutput

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
    // Rows with no effect (kind 1) are placed without their effect matrix and keep their
    // opacity (`placeEffectRows`, `storeAnimatedRows`, `applyEffectOpacity`): the fills
    // need not write them.
    batch.fillsNoEffectCells = false
    if layout == .affine2D, let r = batch.batch.recipes.first, !r.isPlanar {
      throw .invalidCombination(
        field: "layout", reason: "scroll effect \(effect.name) is not affine; use the transform3D layout")
    }
    // A planar effect's matrices as six Floats whatever the frame's layout: compose builds
    // the 4x4 rows from them, and the effect's pass writes and compose reads 24 bytes a
    // row instead of 64.
    let planar = batch.batch.recipes.first?.isPlanar ?? false
    output = try FrameOutput(capacity: capacity, layout: planar ? .affine2D : layout, includeFold: false)
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

  /// Evaluates the scroll effect for the frame's visible rows (`composeRows`' first pass):
  /// each row's effect S from its layout place, kept in the stage's output for the writes
  /// that follow (`storeWithEffect`, `placeEffectRows`).
  mutating func evaluateScrollEffect(_ events: FrameEvents) throws(CellMotionError) {
    // Moved out of `self` while it is mutated, so its arrays stay uniquely referenced (a
    // copy, then nil, retained and released each of its references every frame).
    guard var stage = scrollStage.take() else { return }
    defer { scrollStage = stage }
    let n = frame.rows.count
    if stage.output.capacity < n { try stage.output.ensureCapacity(n) }
    let scroll =
      axis == .horizontal
      ? try ScrollState(
        offsetX: events.scrollOffset, viewportWidth: simulation.viewportHeight, viewportHeight: tableWidth,
        contentWidth: max(events.contentHeight, 0))
      : try ScrollState(
        offsetY: events.scrollOffset, viewportWidth: tableWidth, viewportHeight: simulation.viewportHeight,
        contentHeight: max(events.contentHeight, 0))
    // Layout places relative to the viewport, and heights clamped into the lengths a
    // recipe accepts (`cellGeometry`: a collapsing row passes through 0 points), converted
    // to Float as the batch checks them.
    try events.rowPositions.withUnsafeBufferPointer { positions throws(CellMotionError) in
      try events.rowHeights.withUnsafeBufferPointer { heights throws(CellMotionError) in
        try stage.batch.evaluate(
          leadingPlaces: UnsafeBufferPointer(rebasing: positions[0..<n]),
          clampingExtents: UnsafeBufferPointer(rebasing: heights[0..<n]), crossExtent: cellWidth, scroll: scroll,
          into: &stage.output, options: KernelOptions(lanes: options.lanes))
      }
    }
  }

  /// Every visible row's effect S and place, S x T(0, y) (T(y, 0) when `horizontal`): the
  /// place alone, in bulk, for the runs of rows the effect leaves as they are (`kinds` 1, S
  /// the identity: the middle of a list under an edge fade). `composeRows`' first write:
  /// the animated rows and those of batch updates are written over it (A x S x T,
  /// `storeWithEffect`), and the opacities multiplied after them (`applyEffectOpacity`).
  static func placeEffectRows(
    effect: FrameOutput, kinds: [Float], quiet: [Range<Int>], rows n: Int, positions: [Double], horizontal: Bool,
    into frame: inout AnimatorFrame
  ) {
    let affine = frame.layout == .affine2D
    // The effect's own layout: six Floats for a planar effect (`TableScrollStage`).
    let planar = effect.layout == .affine2D
    guard n > 0 else { return }
    positions.withUnsafeBufferPointer { p in
      effect.matrices.withUnsafeBufferPointer { s in
        frame.matrices.withUnsafeMutableBufferPointer { m in
          kinds.withUnsafeBufferPointer { k in
            let p = p.baseAddress!, k = k.baseAddress!
            let m = m.baseAddress!, s = s.baseAddress!
            let sf = planar ? 6 : 16, floats = affine ? 6 : 16
            // One loop per frame layout, effect layout and axis, each a literal in its loop.
            @inline(__always) func run(_ affine: Bool, _ planar: Bool, _ horizontal: Bool, _ range: Range<Int>) {
              for i in range {
                if affine {
                  Self.placeAffine(s + 6 &* i, y: Float(p[i]), horizontal: horizontal, into: m + 6 &* i)
                } else {
                  Self.storeRows(Self.placed(s + sf &* i, planar: planar, y: Float(p[i]), horizontal: horizontal), m + 16 &* i)
                }
              }
            }
            @inline(__always) func effectRows(_ range: Range<Int>) {
              switch (affine, planar, horizontal) {
              case (true, _, false): run(true, true, false, range)
              case (true, _, true): run(true, true, true, range)
              case (false, true, false): run(false, true, false, range)
              case (false, true, true): run(false, true, true, range)
              case (false, false, false): run(false, false, false, range)
              case (false, false, true): run(false, false, true, range)
              }
            }
            /// The rows of `range`: runs of kind 1 placed, the others given their effect.
            @inline(__always) func place(_ range: Range<Int>) {
              var i = range.lowerBound
              let end = range.upperBound
              while i < end {
                let a = ScrollEffectBatch.firstIndex(k, of: 1, from: i, to: end)
                if i < a { effectRows(i..<a) }
                guard a < end else { break }
                let b = ScrollEffectBatch.runEnd(k, from: a, to: end, value: 1)
                Self.storeTranslations(p + a, b &- a, floats, horizontal: horizontal, into: m + floats &* a)
                i = b
              }
            }
            // The effect's quiet runs are kind 1 throughout: placed without reading `kinds`.
            var start = 0
            for q in quiet {
              if start < q.lowerBound { place(start..<q.lowerBound) }
              Self.storeTranslations(
                p + q.lowerBound, q.count, floats, horizontal: horizontal, into: m + floats &* q.lowerBound)
              start = q.upperBound
            }
            if start < n { place(start..<n) }
          }
        }
      }
    }
  }

  /// Every visible row's opacity multiplied by its effect's (`composeRows`' last pass),
  /// except where the effect's `kinds` say it has none (its opacity there is not written:
  /// `TableScrollStage`); the effect's `quiet` runs (kind 1 throughout) are not visited.
  static func applyEffectOpacity(
    _ effect: FrameOutput, kinds: [Float], quiet: [Range<Int>], rows n: Int, into frame: inout AnimatorFrame
  ) {
    effect.opacity.withUnsafeBufferPointer { o in
      kinds.withUnsafeBufferPointer { k in
        frame.opacity.withUnsafeMutableBufferPointer { f in
          ScrollEffectBatch.forEachGap(in: quiet, count: n) { gap in
            // A select, not a branch: the loop stays vectorised.
            for i in gap { f[i] *= k[i] == 1 ? 1 : o[i] }
          }
        }
      }
    }
  }

  /// Writes an animated row's matrix once: its animation A (`floats` Floats at `a`, the
  /// kernel's output), then its effect S (at `s`: six Floats when `planar`, else 16), then
  /// its place, A x S x T(0, y) (T(y, 0) when `horizontal`), to `out`. Four row products
  /// of A with the rows of S x T (16 Floats), or the affine products (6 Floats; a planar
  /// effect, as an affine frame requires).
  @inline(__always)
  static func storeWithEffect(
    _ a: UnsafePointer<Float>, _ floats: Int, effect s: UnsafePointer<Float>, planar: Bool, y: Float, horizontal: Bool,
    into out: UnsafeMutablePointer<Float>
  ) {
    if floats == 6 {
      composeAffine(a, s, y: y, horizontal: horizontal, into: out)
      return
    }
    let (s0, s1, s2, s3) = placed(s, planar: planar, y: y, horizontal: horizontal)
    let src = UnsafeRawPointer(a), dst = UnsafeMutableRawPointer(out)
    for r in 0..<4 {
      let x = src.loadUnaligned(fromByteOffset: 16 &* r, as: SIMD4<Float>.self)
      // Row r of A times S x T: a product, then three multiply-adds (the kernel's, one FMA
      // each; SIMD's addProduct is an fmaf call per lane).
      typealias V = SIMD4<Float>
      var row = V(repeating: x[0]) * s0
      row = V.muladd(V(repeating: x[1]), s1, row)
      row = V.muladd(V(repeating: x[2]), s2, row)
      row = V.muladd(V(repeating: x[3]), s3, row)
      dst.storeBytes(of: row, toByteOffset: 16 &* r, as: SIMD4<Float>.self)
    }
  }

  /// The rows of S x T(0, y) (T(y, 0) when `horizontal`) for the effect S at `s` (six
  /// Floats a b c d tx ty when `planar`: rows (a b 0 0), (c d 0 0), (0 0 1 0), (tx ty 0 1);
  /// else 16 in CATransform3D field order): each row's column 2 (1) gains its column 4 x y.
  @inline(__always)
  static func placed(_ s: UnsafePointer<Float>, planar: Bool, y: Float, horizontal: Bool) -> (
    SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>
  ) {
    let rows: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
    if planar {
      rows = (SIMD4(s[0], s[1], 0, 0), SIMD4(s[2], s[3], 0, 0), SIMD4(0, 0, 1, 0), SIMD4(s[4], s[5], 0, 1))
    } else {
      let src = UnsafeRawPointer(s)
      rows = (
        src.loadUnaligned(fromByteOffset: 0, as: SIMD4<Float>.self), src.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self),
        src.loadUnaligned(fromByteOffset: 32, as: SIMD4<Float>.self), src.loadUnaligned(fromByteOffset: 48, as: SIMD4<Float>.self)
      )
    }
    @inline(__always) func move(_ row: SIMD4<Float>) -> SIMD4<Float> {
      // The sum formed in all lanes, kept in one (a blend; an element insert cost more).
      let moved = row + SIMD4<Float>(repeating: row[3] * y)
      return horizontal ? SIMD4(moved[0], row[1], row[2], row[3]) : SIMD4(row[0], moved[1], row[2], row[3])
    }
    return (move(rows.0), move(rows.1), move(rows.2), move(rows.3))
  }

  /// Four rows to 16 Floats at `m`, four vector stores.
  @inline(__always)
  static func storeRows(_ r: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), _ m: UnsafeMutablePointer<Float>) {
    let dst = UnsafeMutableRawPointer(m)
    dst.storeBytes(of: r.0, toByteOffset: 0, as: SIMD4<Float>.self)
    dst.storeBytes(of: r.1, toByteOffset: 16, as: SIMD4<Float>.self)
    dst.storeBytes(of: r.2, toByteOffset: 32, as: SIMD4<Float>.self)
    dst.storeBytes(of: r.3, toByteOffset: 48, as: SIMD4<Float>.self)
  }

  /// An affine row that runs no animation: its effect S (a b c d tx ty at `s`) moved by y
  /// (down; right when `horizontal`), to `out`.
  @inline(__always)
  static func placeAffine(_ s: UnsafePointer<Float>, y: Float, horizontal: Bool, into out: UnsafeMutablePointer<Float>) {
    for k in 0..<6 { out[k] = s[k] }
    out[horizontal ? 4 : 5] += y
  }

  /// The affine A (6 Floats at `a`, a b c d tx ty: x' = a x + c y + tx, y' = b x + d y +
  /// ty), then S (at `s`), then a move by y (down; right when `horizontal`), to `out`.
  @inline(__always)
  static func composeAffine(
    _ a: UnsafePointer<Float>, _ s: UnsafePointer<Float>, y: Float, horizontal: Bool, into out: UnsafeMutablePointer<Float>
  ) {
    let (aa, ab, ac, ad, atx, aty) = (a[0], a[1], a[2], a[3], a[4], a[5])
    out[0] = aa * s[0] + ab * s[2]
    out[1] = aa * s[1] + ab * s[3]
    out[2] = ac * s[0] + ad * s[2]
    out[3] = ac * s[1] + ad * s[3]
    out[4] = atx * s[0] + aty * s[2] + s[4]
    out[5] = atx * s[1] + aty * s[3] + s[5]
    out[horizontal ? 4 : 5] += y
  }
}
