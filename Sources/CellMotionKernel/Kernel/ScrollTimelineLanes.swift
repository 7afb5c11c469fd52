// A scroll timeline resolved for many cell extents at once: per cell, the slope,
// intercept, span and extent `TimelinePass` takes from `ScrollTimeline.resolved(extent:
// scroll:)`, and the shape it resolved to, four extents per SIMD4<Double>. Each lane runs
// the scalar resolution's Double operations in the same order (min and max as Swift's, by
// comparison and select), so it equals the scalar result bit for bit: a test checks every
// kind against `TimelinePass(resolved(...))`. A list of rows of different heights then
// costs a few vector operations per cell instead of a scalar resolution per row.

import CellMotion
import _CellMotionShims

/// `ScrollTimeline.resolved(extent:scroll:)` for one frame's scroll state, in lanes.
struct TimelineResolver {
  typealias D = SIMD4<Double>

  /// The kind's frame constants and the per-extent formula.
  enum Plan {
    /// A view() timeline: the boundaries of a cover range [a, S - i0] for a cell of
    /// extent S, resolved to kA and kB.
    case view(start: TimelineRangeOffset, end: TimelineRangeOffset, a: Double, i0: Double)
    /// The same resolution for every cell (a scroll() timeline).
    case constant(TimelinePass)
    /// SwiftUI's phase: L, the threshold's visible share (nil: centred) and inset, and
    /// o + visibleCentre's parts.
    case phase(container: Double, share: Double?, inset: Double, centre: Double)
    /// A centred position in units of a constant (`unit`) or of the extent (nil).
    case centred(unit: Double?, centre: Double)
    /// A raw distance: intercept k - cellPoint S; `toSectionEnd` carries S as the extent.
    case distance(k: Double, cellPoint: Double, toSectionEnd: Bool)
  }

  let plan: Plan
  /// The content offset folded into each intercept (`TimelinePass`'s `offset`).
  let offset: Double

  init(_ timeline: ScrollTimeline, scroll: ScrollAxisState) {
    let o = scroll.offset, V = scroll.viewportExtent
    offset = o
    switch timeline.kind {
    case .view(let range, let insets):
      let i0 = insets.start.resolve(viewportExtent: V, scrollInset: scroll.startInset)
      let i1 = insets.end.resolve(viewportExtent: V, scrollInset: scroll.endInset)
      plan = .view(start: range.start, end: range.end, a: -V + i1, i0: i0)
    case .scroll:
      plan = .constant(
        TimelinePass(timeline.resolved(extent: 1, scroll: scroll), domain: 0...1, folds: false, offset: o))
    case .transitionPhase(let threshold):
      var share: Double? = nil
      if case .visible(let a) = threshold.base { share = min(max(a, 0), 1) }
      plan = .phase(
        container: max(scroll.visibleExtent, 0), share: share, inset: threshold.inset, centre: scroll.visibleCentre)
    case .centred(let unit, _):
      let u: Double? =
        switch unit {
        case .points(let u): u
        case .cellExtent: nil
        case .halfVisibleExtent: scroll.visibleExtent / 2
        }
      plan = .centred(unit: u, centre: scroll.visibleCentre)
    case .distance(let cellPoint, let line, let limit):
      plan = .distance(
        k: o + scroll.startInset + line * scroll.visibleExtent, cellPoint: cellPoint,
        toSectionEnd: limit == .toSectionEnd)
    }
  }

  /// For a SwiftUI phase, the test of cells whose phase is exactly 0 (`QuietPhase`); nil
  /// for the other kinds.
  var quietPhase: QuietPhase? {
    guard case .phase(let container, let share, let inset, let centre) = plan else { return nil }
    return QuietPhase(container: Float(container), share: share.map(Float.init), inset: Float(inset), centre: Float(centre))
  }

  /// Swift's `min(x, y)` per lane (`y < x ? y : x`).
  @inline(__always) static func minimum(_ x: D, _ y: D) -> D { x.replacing(with: y, where: y .< x) }
  /// Swift's `max(x, y)` per lane (`y >= x ? y : x`).
  @inline(__always) static func maximum(_ x: D, _ y: D) -> D { x.replacing(with: y, where: y .>= x) }

  /// `TimelineRangeName.interval` then `RangeLength.resolve(lo:hi:)`, per lane.
  @inline(__always)
  static func boundary(_ r: TimelineRangeOffset, a: D, b: D, S: D) -> D {
    let c = b - S, d = a + S
    let (lo, hi): (D, D)
    switch r.name {
    case .cover: (lo, hi) = (a, b)
    case .contain: (lo, hi) = (minimum(c, d), maximum(c, d))
    case .entry: (lo, hi) = (a, minimum(c, d))
    case .exit: (lo, hi) = (maximum(c, d), b)
    case .entryCrossing: (lo, hi) = (a, d)
    case .exitCrossing: (lo, hi) = (c, b)
    }
    switch r.offset {
    case .percent(let x): return lo + x / 100 * (hi - lo)
    case .points(let l): return lo + l
    }
  }

  /// The resolution of four extents: slope, intercept with the offset folded in (as
  /// `TimelinePass` computes them, rounded to Float), span, extent, and each lane's shape.
  @inline(__always)
  func resolve(_ S: D) -> (slope: SIMD4<Float>, intercept: SIMD4<Float>, span: SIMD4<Float>, extent: SIMD4<Float>, mode: SIMD4<Float>) {
    let zero = D(repeating: 0), one = D(repeating: 1)
    let minimumSpan = D(repeating: ScrollTimeline.minimumSpan)
    var slope = zero, intercept = zero, span = zero, extent = zero
    var mode = zero
    func code(_ m: TimelinePass.Mode) -> D { D(repeating: Double(m.rawValue)) }
    switch plan {
    case .constant(let pass):
      return (
        SIMD4(repeating: pass.slope), SIMD4(repeating: pass.intercept), SIMD4(repeating: pass.span),
        SIMD4(repeating: pass.extent), SIMD4<Float>(code(pass.mode))
      )
    case .view(let start, let end, let a, let i0):
      let aa = D(repeating: a), b = S - i0
      let kA = Self.boundary(start, a: aa, b: b, S: S), kB = Self.boundary(end, a: aa, b: b, S: S)
      span = kB - kA
      let steps = .!(span .>= minimumSpan)
      let o = D(repeating: offset)
      // Ramp: P = (o - s - kA) / span; step: o - kA - s >= 0.
      let r = one / span
      slope = (-r).replacing(with: -1, where: steps)
      intercept = ((o - kA) * r).replacing(with: o - kA, where: steps)
      span = zero
      mode = code(.ramp).replacing(with: code(.step), where: steps)
    case .phase(let container, let share, let inset, let centre):
      let L = D(repeating: container)
      let hidden = (L + S) / 2
      var th = share.map { hidden - $0 * Self.minimum(S, L) } ?? zero
      th = th - inset
      let d = Self.minimum(Self.maximum(th, zero), hidden)
      let w = hidden - d
      let q = S / 2 - offset - centre
      let steps = .!(w .>= minimumSpan)
      let r = one / w
      slope = r.replacing(with: 1, where: steps)
      intercept = ((hidden + q) * r).replacing(with: q, where: steps)
      span = (2 * hidden * r).replacing(with: hidden, where: steps)
      mode = code(.phase).replacing(with: code(.phaseStep), where: steps)
    case .centred(let unit, let centre):
      let u = unit.map { D(repeating: $0) } ?? S
      let none = .!(u .>= minimumSpan)
      let r = one / u
      slope = r.replacing(with: 0, where: none)
      intercept = ((S / 2 - offset - centre) * r).replacing(with: 0, where: none)
      mode = code(.closed).replacing(with: code(.inactive), where: none)
    case .distance(let k, let cellPoint, let toSectionEnd):
      slope = D(repeating: -1)
      intercept = k - cellPoint * S
      if toSectionEnd { extent = S }
      mode = code(toSectionEnd ? .sectionEnd : .closed)
    }
    // As `TimelinePass.init`: slope and slope o + intercept, in Double, then Float.
    return (
      SIMD4<Float>(slope), SIMD4<Float>(slope * offset + intercept), SIMD4<Float>(span), SIMD4<Float>(extent),
      SIMD4<Float>(mode)
    )
  }

  /// Resolves `count` extents from `extent` into the columns, four at a time (the last
  /// group padded with its first extent, and only its cells stored).
  func resolve(
    _ extent: UnsafePointer<Float>, count: Int, slopes: UnsafeMutablePointer<Float>,
    intercepts: UnsafeMutablePointer<Float>, spans: UnsafeMutablePointer<Float>,
    extents: UnsafeMutablePointer<Float>, modes: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    while i &+ 4 <= count {
      let r = resolve(D(SIMD4<Float>.load(extent + i)))
      r.slope.store(to: slopes + i)
      r.intercept.store(to: intercepts + i)
      r.span.store(to: spans + i)
      r.extent.store(to: extents + i)
      r.mode.store(to: modes + i)
      i &+= 4
    }
    if i < count {
      let rest = count &- i
      var S = D(repeating: Double(extent[i]))
      for k in 0..<rest { S[k] = Double(extent[i + k]) }
      let r = resolve(S)
      for k in 0..<rest {
        (slopes[i + k], intercepts[i + k], spans[i + k]) = (r.slope[k], r.intercept[k], r.span[k])
        (extents[i + k], modes[i + k]) = (r.extent[k], r.mode[k])
      }
    }
  }
}

/// Cells a SwiftUI phase leaves at exactly 0, eight at a time, without resolving them.
/// With c the cell's centre less the visible centre, d the threshold's distance
/// (`ScrollTransitionThreshold.distance`: within [0, hidden], hidden = (L + S) / 2) and
/// w = hidden - d the ramp, the lanes compute u = (c + hidden) / w and the value
/// clamp(u, 0, 1) - clamp(2 hidden / w - u, 0, 1): 1 - 1 = 0 exactly when -d <= c <= d
/// (u >= 1 and (hidden - c) / w >= 1); a ramp below `ScrollTimeline.minimumSpan` steps at
/// |c| = hidden >= d. The test is |c| + margin <= d in Float, the margin 1 point plus 1e-6
/// of |p| + L + S + |centre|: several times the rounding of the lanes' own u (a few units
/// of 6e-8 of those magnitudes, over w), so a cell it passes has the value 0 in the lanes
/// too. Cells near the bounds fail it and are resolved as before.
struct QuietPhase {
  typealias F = SIMD8<Float>
  let container: F, share: F, inset: F, centre: F, centreSize: F
  /// A `.visible` threshold (false: centred).
  let hasShare: Bool

  init(container: Float, share: Float?, inset: Float, centre: Float) {
    (self.container, self.inset, self.centre) = (F(repeating: container), F(repeating: inset), F(repeating: centre))
    self.share = F(repeating: share ?? 0)
    hasShare = share != nil
    centreSize = F(repeating: container + abs(centre))
  }

  /// d - (|c| + margin) for eight cells (leading edge `p`, extent `S`, points): all lanes
  /// at least 0 when all eight have phase 0 (`allQuiet`). Inlining guaranteed: with the
  /// hint alone it stayed a call per group.
  @inline(always)
  func slack(_ p: F, _ S: F) -> F {
    let hidden = (container + S) * 0.5
    let th = (hasShare ? hidden - share * S.replacing(with: container, where: container .< S) : F()) - inset
    let d = th.replacing(with: 0, where: th .< 0).replacing(with: hidden, where: th .> hidden)
    let c = p + S * 0.5 - centre
    let margin = 1 + 1e-6 * (Self.magnitude(p) + S + centreSize)
    return d - (Self.magnitude(c) + margin)
  }

  /// |x| per lane, by clearing the sign bit (one `vandps`; a compare, negation and select
  /// otherwise). It gives +0 for -0, which changes no sum here: each adds a positive term.
  @inline(always)
  static func magnitude(_ x: F) -> F {
    unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: F.self)
  }

  /// Cells in the blocks of `quietPhaseRuns`' second try (after a chunk fails).
  static let blockCells = 64
  /// Cells in the chunks of `quietPhaseRuns`' first try: the per-test cost (the reductions,
  /// `boxSlack`) spread over more cells.
  static let chunkCells = 512

  /// Whether all `count` cells from `p` (leading edges) and `s` (extents) have phase 0,
  /// from their ranges alone: the ranges' least and greatest values (a minimum and a
  /// maximum per eight cells and column, against `slack`'s twenty-odd operations), then
  /// `boxSlack`. With `equalExtents` every extent is `s[0]` and only the leading edges are
  /// read. Every cell of a range it passes would pass `slack`: each cell's (leading edge,
  /// extent) lies in the box, and the bound's doubled relative margin covers the rounding
  /// of both tests (`quietBlocks` in the tests). `count`: a positive multiple of eight.
  /// Called once per range, out of line.
  @inline(never)
  func rangeQuiet(_ p: UnsafePointer<Float>, _ s: UnsafePointer<Float>, count: Int, equalExtents: Bool) -> Bool {
    // One vminps / vmaxps each per group (the columns are finite: checked before the scan).
    var pLo = F.load(p), pHi = pLo
    var k = 8
    if equalExtents {
      while k < count {
        let a = F.load(p + k)
        pLo = F.minimum(pLo, a)
        pHi = F.maximum(pHi, a)
        k &+= 8
      }
      return boxSlack(leading: (Self.least(pLo), Self.greatest(pHi)), extent: (s[0], s[0])) >= 0
    }
    var sLo = F.load(s), sHi = sLo
    while k < count {
      let a = F.load(p + k), b = F.load(s + k)
      pLo = F.minimum(pLo, a)
      pHi = F.maximum(pHi, a)
      sLo = F.minimum(sLo, b)
      sHi = F.maximum(sHi, b)
      k &+= 8
    }
    return boxSlack(leading: (Self.least(pLo), Self.greatest(pHi)), extent: (Self.least(sLo), Self.greatest(sHi))) >= 0
  }

  /// The least lane of `v` (finite lanes), halving in vector operations (SIMD's `min()`
  /// stayed a call).
  @inline(__always)
  static func least(_ v: F) -> Float {
    let h = SIMD4<Float>.minimum(v.lowHalf, v.highHalf)
    return Swift.min(Swift.min(h[0], h[1]), Swift.min(h[2], h[3]))
  }

  /// The greatest lane of `v` (finite lanes), as `least`.
  @inline(__always)
  static func greatest(_ v: F) -> Float {
    let h = SIMD4<Float>.maximum(v.lowHalf, v.highHalf)
    return Swift.max(Swift.max(h[0], h[1]), Swift.max(h[2], h[3]))
  }

  /// A lower bound of `slack` over every cell with leading edge in `p` and extent in `S`
  /// (least and greatest, points): d is clamp(th, 0, hidden), nondecreasing in th and in
  /// hidden; hidden grows with
  /// S; th is linear in S on either side of S = L, so its least value on `S` is at an end
  /// or at L; c = p + S / 2 - centre grows with both, so |c| is greatest at a corner; the
  /// margin grows with |p| and S. Its relative part is twice `slack`'s: the bound's own
  /// rounding (a few units of 6e-8 of the same magnitudes) stays inside the difference.
  func boxSlack(leading p: (least: Float, greatest: Float), extent S: (least: Float, greatest: Float)) -> Float {
    let L = container[0], a = share[0], inset = self.inset[0], centre = self.centre[0]
    func threshold(_ s: Float) -> Float { (hasShare ? (L + s) * 0.5 - a * Swift.min(s, L) : 0) - inset }
    let kink = Swift.min(Swift.max(L, S.least), S.greatest)
    let th = Swift.min(threshold(S.least), threshold(S.greatest), threshold(kink))
    let d = Swift.min(Swift.max(th, 0), (L + S.least) * 0.5)
    let c = Swift.max(abs(p.least + S.least * 0.5 - centre), abs(p.greatest + S.greatest * 0.5 - centre))
    let margin = 1 + 2e-6 * (Swift.max(abs(p.least), abs(p.greatest)) + S.greatest + centreSize[0])
    return d - (c + margin)
  }

  /// Whether every lane of `slack` is at least 0 (no sign bit set, `cm_no_sign8`: -0
  /// counts as negative, which only makes the test stricter; the columns are finite).
  @inline(always)
  static func allQuiet(_ slack: F) -> Bool { cm_no_sign8(slack) != 0 }
}
