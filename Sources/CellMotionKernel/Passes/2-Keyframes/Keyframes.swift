// Pass 2 (KernelPass.keyframes): after every part's progress, each keyframe channel's value per lane
// from its part's progress (the animation's fraction f). Every lane finds its own segment
// by comparing f with each segment's start and selecting that segment's constants (no
// per-lane branch), eases its fraction with its own segment's curve (a Bezier solved with
// per-lane coefficients, springs by regime, each computed only when the track has one),
// then evaluates the segment's cubic.

import CellMotion
import Foundation
import _CellMotionShims

extension Kernel {
  /// Writes the value of keyframe channel `k` for `count` cells into its scratch row, in
  /// whole lane groups (as `progressStage`).
  ///
  /// The track is borrowed where the recipe's array holds it: a track taken by value was
  /// copied per block, its arrays retained and released (a depth page's three tracks: 1.9
  /// instructions a cell, callgrind).
  static func keyframeStage<L: FloatLanes>(
    _: L.Type, _ kp: UnsafePointer<CompiledKeyframes>, progress: StagedProgress, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let part = kp.pointee.part, usesGeometry = kp.pointee.usesGeometry, cubic = kp.pointee.cubic
    let plain = !kp.pointee.easings.any
    if let hinge = kp.pointee.hinge {
      // In `WideLanes` whatever `L` (lane-wise arithmetic into a scratch row of whole 8-lane
      // groups: the same bits), compiled once.
      hingeStage(
        WideLanes.self, hinge, part: part, geometry: usesGeometry, progress: progress, height: height,
        tableWidth: tableWidth, count: count, into: out)
      return
    }
    do {
      let segments = UnsafePointer(kp.pointee.table.base), n = kp.pointee.table.count / CompiledKeyframes.tableStride
      // The common tracks (constant values, no easing per segment: the presets) take a
      // loop with no flag tested inside it: lines, or cubics.
      let plain = plain && n >= 2
      if plain && !usesGeometry {
        if cubic {
          plainKeyframeStage(
            L.self, CubicSegments.self, part: part, progress: progress, segments, n, count: count, into: out)
        } else {
          plainKeyframeStage(
            L.self, LineSegments.self, part: part, progress: progress, segments, n, count: count, into: out)
        }
        return
      }
      if plain && !cubic {
        // Lines whose values follow the cell's height or the table's width (a slide from
        // the table's edge, a page's width): the same loop with those parts selected too.
        // In `WideLanes` whatever `L` (no 4-lane scenario takes it; lane-wise arithmetic
        // into a scratch row of whole 8-lane groups).
        plainGeometryKeyframeStage(
          WideLanes.self, part: part, progress: progress, segments, n, height: height, tableWidth: tableWidth,
          count: count, into: out)
        return
      }
      easedKeyframeStage(kp, segments, n, progress: progress, height: height, tableWidth: tableWidth, count: count, into: out)
    }
  }

  /// `keyframeStage` for the tracks with easings per segment or per-segment values the
  /// plain loops do not take: every feature tested per group. Compiled once, in
  /// `WideLanes` (no 4-lane scenario takes it).
  @inline(never)
  static func easedKeyframeStage(
    _ kp: UnsafePointer<CompiledKeyframes>, _ segments: UnsafePointer<Float>, _ n: Int, progress: StagedProgress,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    typealias L = WideLanes
    let k = kp.pointee
    var i = 0
    while i < count {
      let f = L.clamp(progress(k.part, i) as L, 0, 1)
      // One copy of the selection and evaluation, the geometry a flag (the same bits).
      let v = keyframeValue(f, k, segments, n, geometry: k.usesGeometry)
      var value = v.constant
      if k.usesGeometry {
        let rest = count &- i
        let he: L = loadGroup(height + i, rest), tw: L = loadGroup(tableWidth + i, rest)
        value = L.muladd(he, v.height, L.muladd(tw, v.width, v.constant))
      }
      value.store(to: out + i)
      i &+= L.width
    }
  }

  /// `keyframeStage` for constant values and segments without easing: each lane selects
  /// its segment's start, 1/span and cubic (`S`: lines select two coefficients, cubics
  /// four), then evaluates it.
  static func plainKeyframeStage<L: FloatLanes, S: SegmentShape>(
    _: L.Type, _: S.Type, part: Int, progress: StagedProgress, _ table: UnsafePointer<Float>, _ n: Int,
    count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let stride = CompiledKeyframes.tableStride
    if n == 2 {
      // Three keys (a depth page's, a cover flow's depth): both segments' constants read
      // once, not per group, and no loop over segments in the group. The same selects and
      // arithmetic, so the same bits.
      @inline(__always) func at(_ s: UnsafePointer<Float>, _ j: Int) -> L { L(repeating: s[j]) }
      let s1 = table + stride
      let (start0, inv0, a0, b0, c0, d0) = (at(table, 0), at(table, 1), at(table, 2), at(table, 3), at(table, 4), at(table, 5))
      let (start1, inv1, a1, b1, c1, d1) = (at(s1, 0), at(s1, 1), at(s1, 2), at(s1, 3), at(s1, 4), at(s1, 5))
      var i = 0
      while i < count {
        let (m, u) = twoSegments(progress(part, i), start: (start0, start1), inv: (inv0, inv1))
        let c = c0.replacing(with: c1, where: m), d = d0.replacing(with: d1, where: m)
        let v =
          S.cubic
          ? L.muladd(L.muladd(L.muladd(a0.replacing(with: a1, where: m), u, b0.replacing(with: b1, where: m)), u, c), u, d)
          : L.muladd(c, u, d)
        v.store(to: out + i)
        i &+= L.width
      }
      return
    }
    if L.width == 8 && n <= tableSegments && cm_has_permute8() != 0 {
      if n <= 4 {
        tableKeyframeStage(S.self, Yes.self, part: part, progress: progress, table, n, count: count, into: out)
      } else {
        tableKeyframeStage(S.self, No.self, part: part, progress: progress, table, n, count: count, into: out)
      }
      return
    }
    var i = 0
    while i < count {
      let f = L.clamp(progress(part, i) as L, 0, 1)
      var start = L(repeating: table[0]), inv = L(repeating: table[1])
      var a = L(repeating: table[2]), b = L(repeating: table[3]), c = L(repeating: table[4]), d = L(repeating: table[5])
      var s = table
      for _ in 1..<n {
        s += stride
        let m = L.ge(f, L(repeating: s[0]))
        start = start.replacing(with: L(repeating: s[0]), where: m)
        inv = inv.replacing(with: L(repeating: s[1]), where: m)
        if S.cubic {
          a = a.replacing(with: L(repeating: s[2]), where: m)
          b = b.replacing(with: L(repeating: s[3]), where: m)
        }
        c = c.replacing(with: L(repeating: s[4]), where: m)
        d = d.replacing(with: L(repeating: s[5]), where: m)
      }
      let u = L.segmentFraction(f, start: start, invSpan: inv)
      let v = S.cubic ? L.muladd(L.muladd(L.muladd(a, u, b), u, c), u, d) : L.muladd(c, u, d)
      v.store(to: out + i)
      i &+= L.width
    }
  }

  /// Most segments a track may have for `tableKeyframeStage`: one per lane of a SIMD8.
  static let tableSegments = 8

  /// Constant `j` of each of the `n` (<= 8) segments of a keyframe table, segment s in lane
  /// s; the lanes past `n` hold `past` (they are never looked up; the starts' are +infinity
  /// for `cm_segment_index8`).
  @inline(__always)
  static func tableColumn8(_ table: UnsafePointer<Float>, _ n: Int, _ j: Int, past: Float = 0) -> SIMD8<Float> {
    var t = SIMD8<Float>(repeating: past)
    for s in 0..<n { t[s] = table[s &* CompiledKeyframes.tableStride &+ j] }
    return t
  }

  /// Each lane's segment index in a table of up to eight segments (`start`: their starts,
  /// +infinity past the last; up to four with `atMostFour`, which compares three starts, not
  /// seven) and its fraction through it, at progress `progress` (clamped to [0, 1] here), as
  /// `twoSegments` gives them for two.
  @inline(__always)
  static func tableSegment(
    _ progress: SIMD8<Float>, start: SIMD8<Float>, inv: SIMD8<Float>, atMostFour: Bool = false
  ) -> (index: SIMD8<Int32>, u: SIMD8<Float>) {
    let f = SIMD8<Float>.clamp(progress, 0, 1)
    let s = cm_segment_index8(f, start, atMostFour ? 4 : 8)
    return (s, SIMD8<Float>.segmentFraction(f, start: cm_permute8(start, s), invSpan: cm_permute8(inv, s)))
  }

  /// `plainKeyframeStage` for SIMD8 lanes and 3 to 8 segments where a lane permute is one
  /// instruction (`cm_has_permute8`, AVX2): each segment's constants sit in one register
  /// per constant, every lane counts the segment starts at or before its f
  /// (`cm_segment_index8`: seven compares) and looks its constants up (`cm_permute8`:
  /// one instruction per constant), instead of a compare and a select per constant and
  /// segment. The segment found is the one the selects find (starts never decrease), and the
  /// arithmetic after it is the same: the same bits. Tracks of up to four segments (`Four`)
  /// compare three starts, not seven. (A wheel picker's four-segment track: 7.6 -> 5.3
  /// instructions a cell, callgrind; 4.4 with three compares.)
  static func tableKeyframeStage<S: SegmentShape, Four: StaticFlag>(
    _: S.Type, _: Four.Type, part: Int, progress: StagedProgress, _ table: UnsafePointer<Float>, _ n: Int,
    count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    typealias L = SIMD8<Float>
    let start = tableColumn8(table, n, 0, past: .infinity), inv = tableColumn8(table, n, 1)
    let a = S.cubic ? tableColumn8(table, n, 2) : L(), b = S.cubic ? tableColumn8(table, n, 3) : L()
    let c = tableColumn8(table, n, 4), d = tableColumn8(table, n, 5)
    var i = 0
    while i < count {
      let (s, u) = tableSegment(progress(part, i), start: start, inv: inv, atMostFour: Four.value)
      let cs = cm_permute8(c, s), ds = cm_permute8(d, s)
      let v =
        S.cubic
        ? L.muladd(L.muladd(L.muladd(cm_permute8(a, s), u, cm_permute8(b, s)), u, cs), u, ds) : L.muladd(cs, u, ds)
      v.store(to: out + i)
      i &+= 8
    }
  }

  /// `plainGeometryKeyframeStage` in the manner of `tableKeyframeStage`: the segment's
  /// constants and its height and width lines looked up; the same bits.
  static func tableGeometryKeyframeStage(
    part: Int, progress: StagedProgress, _ table: UnsafePointer<Float>, _ n: Int,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    typealias L = SIMD8<Float>
    let start = tableColumn8(table, n, 0, past: .infinity), inv = tableColumn8(table, n, 1)
    let c = tableColumn8(table, n, 4), d = tableColumn8(table, n, 5)
    let hc = tableColumn8(table, n, 8), hd = tableColumn8(table, n, 9)
    let wc = tableColumn8(table, n, 12), wd = tableColumn8(table, n, 13)
    var i = 0
    while i < count {
      let (s, u) = tableSegment(progress(part, i), start: start, inv: inv)
      let he: L = loadGroup(height + i, count &- i), tw: L = loadGroup(tableWidth + i, count &- i)
      let v = L.muladd(
        he, L.muladd(cm_permute8(hc, s), u, cm_permute8(hd, s)),
        L.muladd(
          tw, L.muladd(cm_permute8(wc, s), u, cm_permute8(wd, s)),
          L.muladd(cm_permute8(c, s), u, cm_permute8(d, s))))
      v.store(to: out + i)
      i &+= 8
    }
  }

  /// Keyframe tracks `tracks[0 ..< run]` (a run of `CompiledKeyframes.sharedRun`: hinged
  /// lines of one part with the same knot), each into its scratch row. Every lane's
  /// distances before and past the knot are found once for all of them and kept in two
  /// rows of `rows`; each track then takes its two multiply-adds (and its height and width
  /// parts) as `hingeStage` does: the same bits. `rows`: two rows of `count` (rounded up to
  /// whole groups) Floats nothing else uses during the pass.
  static func sharedHingeStage<L: FloatLanes>(
    _: L.Type, _ tracks: UnsafePointer<CompiledKeyframes>, run: Int, progress: StagedProgress,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int, rows: UnsafeMutablePointer<Float>,
    block: Int, into out: (Int) -> UnsafeMutablePointer<Float>
  ) {
    let before = rows, past = rows + block
    let knot = tracks.pointee.hinge.unsafelyUnwrapped.knot
    // In `WideLanes` whatever `L`, as `hingeStage`.
    hingeRows(
      WideLanes.self, part: tracks.pointee.part, knot: knot, progress: progress, count: count, before: before,
      past: past)
    for j in 0..<run {
      let track = tracks + j
      hingeLines(
        WideLanes.self, track.pointee.hinge.unsafelyUnwrapped, geometry: track.pointee.usesGeometry, before: before,
        past: past, height: height, tableWidth: tableWidth, count: count, into: out(track.pointee.row))
    }
  }

  /// A track of hinged lines (`HingeLines`): each lane's fraction f (its part's progress
  /// clamped to [0, 1]), x = f - knot split into min(x, 0) and max(x, 0), then the value
  /// per geometry part. The same arithmetic as a shared run (`hingeRows`, `hingeLines`):
  /// the same bits.
  static func hingeStage<L: FloatLanes>(
    _: L.Type, _ hinge: HingeLines, part: Int, geometry: Bool, progress: StagedProgress,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let knot = L(repeating: hinge.knot), lines = HingeLanes<L>(hinge)
    guard geometry else {
      var i = 0
      while i < count {
        let (before, past) = hingeDistances(progress(part, i), knot: knot)
        lines.value(before, past).store(to: out + i)
        i &+= L.width
      }
      return
    }
    // Whole groups, then the partial one (its geometry loaded padded).
    var i = 0
    while i &+ L.width <= count {
      let (before, past) = hingeDistances(progress(part, i), knot: knot)
      lines.value(before, past, height: L.load(height + i), tableWidth: L.load(tableWidth + i)).store(to: out + i)
      i &+= L.width
    }
    if i < count {
      let (before, past) = hingeDistances(progress(part, i), knot: knot)
      let he: L = loadGroup(height + i, count &- i), tw: L = loadGroup(tableWidth + i, count &- i)
      lines.value(before, past, height: he, tableWidth: tw).store(to: out + i)
    }
  }

  /// The rows of a shared run of hinged lines: each lane's min(x, 0) and max(x, 0).
  @inline(never)
  static func hingeRows<L: FloatLanes>(
    _: L.Type, part: Int, knot: Float, progress: StagedProgress, count: Int, before: UnsafeMutablePointer<Float>,
    past: UnsafeMutablePointer<Float>
  ) {
    let k = L(repeating: knot)
    var i = 0
    while i < count {
      let (b, p) = hingeDistances(progress(part, i), knot: k)
      b.store(to: before + i)
      p.store(to: past + i)
      i &+= L.width
    }
  }

  /// One track of a shared run of hinged lines, from the rows.
  @inline(never)
  static func hingeLines<L: FloatLanes>(
    _: L.Type, _ hinge: HingeLines, geometry: Bool, before: UnsafePointer<Float>, past: UnsafePointer<Float>,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let lines = HingeLanes<L>(hinge)
    var i = 0
    guard geometry else {
      while i < count {
        lines.value(L.load(before + i), L.load(past + i)).store(to: out + i)
        i &+= L.width
      }
      return
    }
    while i &+ L.width <= count {
      lines.value(L.load(before + i), L.load(past + i), height: L.load(height + i), tableWidth: L.load(tableWidth + i))
        .store(to: out + i)
      i &+= L.width
    }
    if i < count {
      let he: L = loadGroup(height + i, count &- i), tw: L = loadGroup(tableWidth + i, count &- i)
      lines.value(L.load(before + i), L.load(past + i), height: he, tableWidth: tw).store(to: out + i)
    }
  }

  /// A lane's x = f - knot (f its progress clamped to [0, 1]) as min(x, 0) and max(x, 0).
  @inline(__always)
  static func hingeDistances<L: FloatLanes>(_ progress: L, knot: L) -> (before: L, past: L) {
    let x = L.clamp(progress, 0, 1) - knot, zero = L(repeating: 0)
    return (L.minimum(x, zero), L.maximum(x, zero))
  }

  /// A hinged track's coefficients as lanes: the one place its arithmetic is written.
  struct HingeLanes<L: FloatLanes> {
    let below, above, atKnot, belowH, aboveH, atKnotH, belowW, aboveW, atKnotW: L
    @inline(__always)
    init(_ h: HingeLines) {
      (below, above, atKnot) = (L(repeating: h.below.x), L(repeating: h.above.x), L(repeating: h.atKnot.x))
      (belowH, aboveH, atKnotH) = (L(repeating: h.below.y), L(repeating: h.above.y), L(repeating: h.atKnot.y))
      (belowW, aboveW, atKnotW) = (L(repeating: h.below.z), L(repeating: h.above.z), L(repeating: h.atKnot.z))
    }
    /// atKnot + below min(x, 0) + above max(x, 0) (the constant part).
    @inline(__always)
    func value(_ before: L, _ past: L) -> L { L.muladd(above, past, L.muladd(below, before, atKnot)) }
    /// The constant part + height x its part + table width x its part.
    @inline(__always)
    func value(_ before: L, _ past: L, height he: L, tableWidth tw: L) -> L {
      L.muladd(
        he, L.muladd(aboveH, past, L.muladd(belowH, before, atKnotH)),
        L.muladd(tw, L.muladd(aboveW, past, L.muladd(belowW, before, atKnotW)), value(before, past)))
    }
  }

  /// A plain two-segment track's lines, constant, per cell height and per table width, for
  /// each segment (table columns 4, 5, 8, 9, 12, 13), selected per lane
  /// (`plainGeometryKeyframeStage`).
  struct TwoSegmentLines<L: FloatLanes> {
    let c0, d0, c1, d1, hc0, hd0, hc1, hd1, wc0, wd0, wc1, wd1: L
    @inline(__always)
    init(_ table: UnsafePointer<Float>) {
      let s1 = table + CompiledKeyframes.tableStride
      @inline(__always) func at(_ s: UnsafePointer<Float>, _ j: Int) -> L { L(repeating: s[j]) }
      (c0, d0, c1, d1) = (at(table, 4), at(table, 5), at(s1, 4), at(s1, 5))
      (hc0, hd0, hc1, hd1) = (at(table, 8), at(table, 9), at(s1, 8), at(s1, 9))
      (wc0, wd0, wc1, wd1) = (at(table, 12), at(table, 13), at(s1, 12), at(s1, 13))
    }
    /// The constant line of each lane's segment (`second`: the lanes in the second) at
    /// fraction `u`.
    @inline(__always)
    func value(_ second: L.Mask, _ u: L) -> L {
      L.muladd(c0.replacing(with: c1, where: second), u, d0.replacing(with: d1, where: second))
    }
    /// (c u + d) + height (hc u + hd) + width (wc u + wd) of each lane's segment.
    @inline(__always)
    func value(_ second: L.Mask, _ u: L, height he: L, tableWidth tw: L) -> L {
      @inline(__always) func pick(_ x: L, _ y: L) -> L { x.replacing(with: y, where: second) }
      return L.muladd(
        he, L.muladd(pick(hc0, hc1), u, pick(hd0, hd1)),
        L.muladd(tw, L.muladd(pick(wc0, wc1), u, pick(wd0, wd1)), value(second, u)))
    }
  }

  /// A two-segment track's lanes at progress `f` (clamped to [0, 1] here): which lanes are
  /// in the second segment (f at or past its start), and each lane's fraction through its
  /// segment (`segmentFraction`).
  @inline(__always)
  static func twoSegments<L: FloatLanes>(_ progress: L, start: (L, L), inv: (L, L)) -> (second: L.Mask, u: L) {
    let f = L.clamp(progress, 0, 1)
    let m = L.ge(f, start.1)
    return (m, L.segmentFraction(f, start: start.0.replacing(with: start.1, where: m), invSpan: inv.0.replacing(with: inv.1, where: m)))
  }

  /// `plainKeyframeStage` for line segments whose values have parts per cell height and
  /// per table width: each lane selects its segment's start, 1/span and the three lines,
  /// then value = (c u + d) + height (hc u + hd) + width (wc u + wd), as `keyframeValue`
  /// computes it (its cubic terms are 0 for lines, so the results are the same bits).
  static func plainGeometryKeyframeStage<L: FloatLanes>(
    _: L.Type, part: Int, progress: StagedProgress, _ table: UnsafePointer<Float>, _ n: Int,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    let stride = CompiledKeyframes.tableStride
    @inline(__always) func at(_ s: UnsafePointer<Float>, _ j: Int) -> L { L(repeating: s[j]) }
    if n == 2 {
      // Three keys (a depth page's slide): both segments' constants read once, as in
      // `plainKeyframeStage` (`TwoSegmentLines`, which a shared run also evaluates).
      let s1 = table + stride
      let (start0, inv0, start1, inv1) = (at(table, 0), at(table, 1), at(s1, 0), at(s1, 1))
      let lines = TwoSegmentLines<L>(table)
      @inline(__always) func group(_ i: Int, _ he: L, _ tw: L) {
        let (m, u) = twoSegments(progress(part, i), start: (start0, start1), inv: (inv0, inv1))
        lines.value(m, u, height: he, tableWidth: tw).store(to: out + i)
      }
      // Whole groups, then the partial one (its two loads' tests in the loop were about
      // one instruction a cell).
      var i = 0
      while i &+ L.width <= count {
        group(i, L.load(height + i), L.load(tableWidth + i))
        i &+= L.width
      }
      if i < count { group(i, loadGroup(height + i, count &- i), loadGroup(tableWidth + i, count &- i)) }
      return
    }
    if L.width == 8 && n <= tableSegments && cm_has_permute8() != 0 {
      tableGeometryKeyframeStage(
        part: part, progress: progress, table, n, height: height, tableWidth: tableWidth, count: count, into: out)
      return
    }
    var i = 0
    while i < count {
      let f = L.clamp(progress(part, i) as L, 0, 1)
      var start = at(table, 0), inv = at(table, 1), c = at(table, 4), d = at(table, 5)
      var hc = at(table, 8), hd = at(table, 9), wc = at(table, 12), wd = at(table, 13)
      var s = table
      for _ in 1..<n {
        s += stride
        let m = L.ge(f, at(s, 0))
        start = start.replacing(with: at(s, 0), where: m)
        inv = inv.replacing(with: at(s, 1), where: m)
        c = c.replacing(with: at(s, 4), where: m)
        d = d.replacing(with: at(s, 5), where: m)
        hc = hc.replacing(with: at(s, 8), where: m)
        hd = hd.replacing(with: at(s, 9), where: m)
        wc = wc.replacing(with: at(s, 12), where: m)
        wd = wd.replacing(with: at(s, 13), where: m)
      }
      let u = L.segmentFraction(f, start: start, invSpan: inv)
      let he: L = loadGroup(height + i, count &- i), tw: L = loadGroup(tableWidth + i, count &- i)
      let v = L.muladd(he, L.muladd(hc, u, hd), L.muladd(tw, L.muladd(wc, u, wd), L.muladd(c, u, d)))
      v.store(to: out + i)
      i &+= L.width
    }
  }

  /// Each lane's segment constants: the last segment whose start is <= f (segment 0 for
  /// any f before the second start), selected lane by lane from the flat table (`n`
  /// segments, `CompiledKeyframes.tableStride` Floats each): a compare and a select per
  /// constant and segment, no branch on lanes. Only what the track uses is selected.
  @inline(always)
  static func selectSegment<L: FloatLanes>(
    _ f: L, _ k: CompiledKeyframes, _ table: UnsafePointer<Float>, _ n: Int, geometry: Bool
  ) -> SegmentLanes<L> {
    let stride = CompiledKeyframes.tableStride
    @inline(__always) func at(_ s: UnsafePointer<Float>, _ j: Int) -> L { L(repeating: s[j]) }
    var g = SegmentLanes<L>(
      start: at(table, 0), inv: at(table, 1), a: at(table, 2), b: at(table, 3), c: at(table, 4), d: at(table, 5),
      ha: at(table, 6), hb: at(table, 7), hc: at(table, 8), hd: at(table, 9),
      wa: at(table, 10), wb: at(table, 11), wc: at(table, 12), wd: at(table, 13),
      kind: at(table, 14), seconds: at(table, 15),
      q: (at(table, 16), at(table, 17), at(table, 18), at(table, 19), at(table, 20), at(table, 21)))
    let springs = k.easings.springs, eases = k.easings.any
    var s = table
    for _ in 1..<max(n, 1) {
      s += stride
      let m = L.ge(f, at(s, 0))
      g.start = g.start.replacing(with: at(s, 0), where: m)
      g.inv = g.inv.replacing(with: at(s, 1), where: m)
      if k.cubic {
        g.a = g.a.replacing(with: at(s, 2), where: m)
        g.b = g.b.replacing(with: at(s, 3), where: m)
      }
      g.c = g.c.replacing(with: at(s, 4), where: m)
      g.d = g.d.replacing(with: at(s, 5), where: m)
      if geometry {
        g.ha = g.ha.replacing(with: at(s, 6), where: m)
        g.hb = g.hb.replacing(with: at(s, 7), where: m)
        g.hc = g.hc.replacing(with: at(s, 8), where: m)
        g.hd = g.hd.replacing(with: at(s, 9), where: m)
        g.wa = g.wa.replacing(with: at(s, 10), where: m)
        g.wb = g.wb.replacing(with: at(s, 11), where: m)
        g.wc = g.wc.replacing(with: at(s, 12), where: m)
        g.wd = g.wd.replacing(with: at(s, 13), where: m)
      }
      if springs {
        g.kind = g.kind.replacing(with: at(s, 14), where: m)
        g.seconds = g.seconds.replacing(with: at(s, 15), where: m)
      }
      if eases {
        g.q.0 = g.q.0.replacing(with: at(s, 16), where: m)
        g.q.1 = g.q.1.replacing(with: at(s, 17), where: m)
        g.q.2 = g.q.2.replacing(with: at(s, 18), where: m)
        g.q.3 = g.q.3.replacing(with: at(s, 19), where: m)
        g.q.4 = g.q.4.replacing(with: at(s, 20), where: m)
        g.q.5 = g.q.5.replacing(with: at(s, 21), where: m)
      }
    }
    return g
  }

  /// The value's three parts (constant, per cell height, per table width; the last two 0
  /// unless `geometry`) at fraction `f`, from the flat segment table.
  @inline(always)
  static func keyframeValue<L: FloatLanes>(
    _ f: L, _ k: CompiledKeyframes, _ table: UnsafePointer<Float>, _ n: Int, geometry: Bool
  ) -> (constant: L, height: L, width: L) {
    let g = selectSegment(f, k, table, n, geometry: geometry)
    let u = L.segmentFraction(f, start: g.start, invSpan: g.inv)
    let e = easeSegments(u, kind: g.kind, seconds: g.seconds, g.q, k.easings)
    // The cubics in e (lines when no segment is cubic: A = B = 0).
    let zero = L(repeating: 0)
    let value = k.cubic ? L.muladd(L.muladd(L.muladd(g.a, e, g.b), e, g.c), e, g.d) : L.muladd(g.c, e, g.d)
    guard geometry else { return (value, zero, zero) }
    return (
      value, L.muladd(L.muladd(L.muladd(g.ha, e, g.hb), e, g.hc), e, g.hd),
      L.muladd(L.muladd(L.muladd(g.wa, e, g.wb), e, g.wc), e, g.wd)
    )
  }

  /// d(value)/df per lane at fraction `f` (constant, per cell height and per table width
  /// parts), as `keyframeValue` selects and eases: the segment cubic's derivative at the
  /// eased fraction x de/du (a Bezier's dy/dx at its per-lane parameter, a spring's
  /// velocity over the segment's seconds) x 1/span; 0 outside (0, 1) and from a
  /// spring segment's end on. `KeyframeTrack.slope` is the reference.
  /// Out of line (one call per lane group of a keyframe channel's velocity, a path no
  /// benchmark scenario takes): inlined, its every easing was optimised a second time in
  /// the velocity loop.
  @inline(never)
  static func keyframeSlope<L: FloatLanes>(
    _ f: L, _ k: CompiledKeyframes, _ table: UnsafePointer<Float>, _ n: Int
  ) -> (constant: L, height: L, width: L) {
    let g = selectSegment(f, k, table, n, geometry: k.usesGeometry)
    let u = L.segmentFraction(f, start: g.start, invSpan: g.inv)
    let (kind, seconds, q, inv) = (g.kind, g.seconds, g.q, g.inv)
    let e = easeSegments(u, kind: kind, seconds: seconds, q, k.easings)
    // de/du: 1, a Bezier's dy/dx at its parameter, or a spring's velocity x seconds.
    var de = L(repeating: 1)
    if k.easings.bezier {
      let p = bezierParameterLanes(u, q.0, q.1, q.2)
      let dx = L.muladd(L.muladd(p, q.0 * 3, q.1 * 2), p, q.2), dy = L.muladd(L.muladd(p, q.3 * 3, q.4 * 2), p, q.5)
      let ddx = L.muladd(p, q.0 * 6, q.1 * 2), ddy = L.muladd(p, q.3 * 6, q.4 * 2)
      de = (dy / dx).replacing(with: ddy / ddx, where: L.lt(dx, L(repeating: 1e-6)))
    }
    let local = u * seconds
    let live = L.lt(local, seconds)
    if k.easings.underdamped {
      let ex = L.exp(local * (L(repeating: 0) - q.0)), sc = L.sincos(local * q.1)
      let v = ex * L.muladd(sc.sin, L.muladd(q.0, q.2, q.1), sc.cos * (q.0 - q.2 * q.1)) * seconds
      de = de.replacing(with: L(repeating: 0).replacing(with: v, where: live), where: isKind(kind, .underdamped))
    }
    if k.easings.critical {
      let ex = L.exp(local * (L(repeating: 0) - q.0))
      let v = ex * (L.muladd(L.muladd(local, q.1, L(repeating: 1)), q.0, L(repeating: 0) - q.1)) * seconds
      de = de.replacing(with: L(repeating: 0).replacing(with: v, where: live), where: isKind(kind, .critical))
    }
    if k.easings.overdamped {
      let (cosh, sinhc) = OverdampedSpring.hyperbolic(local, a: q.0, beta: q.1, slow: q.3, fast: q.4)
      let v = L.muladd(local * sinhc, q.2 * q.0 - q.1 * q.1, cosh * (q.0 - q.2)) * seconds
      de = de.replacing(with: L(repeating: 0).replacing(with: v, where: live), where: isKind(kind, .overdamped))
    }
    // du/df = 1/span inside (0, 1); the cubics' derivatives at e.
    let inside = L.and(L.lt(L(repeating: 0), f), L.lt(f, L(repeating: 1)))
    let chain = L(repeating: 0).replacing(with: de * inv, where: inside)
    @inline(__always) func cubicSlope(_ a: L, _ b: L, _ c: L) -> L {
      k.cubic ? L.muladd(L.muladd(a * 3, e, b * 2), e, c) : c
    }
    return (cubicSlope(g.a, g.b, g.c) * chain, cubicSlope(g.ha, g.hb, g.hc) * chain, cubicSlope(g.wa, g.wb, g.wc) * chain)
  }

  /// Each lane's eased segment fraction: `u` through its segment's Bezier (per-lane
  /// coefficients `q`, the identity for segments without one) or, where its `kind` is a
  /// spring regime, that spring over the segment's `seconds` (`q` its constants; exactly 1
  /// at the segment's end or with no seconds). Only the easings in `easings` are computed.
  /// Out of line: every caller is a path no benchmark scenario takes (eased keyframe
  /// tracks, matrix keyframes, keyframe velocities; one call per lane group), and each had
  /// its own inlined copy of the Bezier solve and the three spring regimes to optimise.
  @inline(never)
  static func easeSegments<L: FloatLanes>(
    _ u: L, kind: L, seconds: L, _ q: (L, L, L, L, L, L), _ easings: SegmentEasings
  ) -> L {
    var e = u
    if easings.bezier {
      // Segments without a Bezier carry the identity (x = s, y = s), which this solve
      // returns unchanged.
      e = bezierProgressLanes(u, q.0, q.1, q.2, q.3, q.4, q.5)
    }
    let local = u * seconds
    if easings.underdamped {
      let p = UnderdampedSpring.progress(local, a: q.0, wd: q.1, b: q.2, duration: seconds)
      e = e.replacing(with: p, where: isKind(kind, .underdamped))
    }
    if easings.critical {
      let p = CriticalSpring.progress(local, w0: q.0, c: q.1, duration: seconds)
      e = e.replacing(with: p, where: isKind(kind, .critical))
    }
    if easings.overdamped {
      let p = OverdampedSpring.progress(local, a: q.0, beta: q.1, c: q.2, slow: q.3, fast: q.4, duration: seconds)
      e = e.replacing(with: p, where: isKind(kind, .overdamped))
    }
    return e
  }

  /// The lanes whose segment is of `kind`.
  @inline(__always)
  static func isKind<L: FloatLanes>(_ lanes: L, _ kind: KeyframeSegment.Kind) -> L.Mask {
    let v = L(repeating: kind.rawValue)
    return L.and(L.ge(lanes, v), L.ge(v, lanes))
  }
}

/// One lane group's keyframe segment constants (`Kernel.selectSegment`): start, 1/span,
/// the cubics (constant, per height, per width), the easing's kind, seconds and constants.
struct SegmentLanes<L: FloatLanes> {
  var start, inv, a, b, c, d, ha, hb, hc, hd, wa, wb, wc, wd, kind, seconds: L
  var q: (L, L, L, L, L, L)
  init(
    start: L, inv: L, a: L, b: L, c: L, d: L, ha: L, hb: L, hc: L, hd: L, wa: L, wb: L, wc: L, wd: L, kind: L,
    seconds: L, q: (L, L, L, L, L, L)
  ) {
    (self.start, self.inv, self.a, self.b, self.c, self.d) = (start, inv, a, b, c, d)
    (self.ha, self.hb, self.hc, self.hd, self.wa, self.wb, self.wc, self.wd) = (ha, hb, hc, hd, wa, wb, wc, wd)
    (self.kind, self.seconds, self.q) = (kind, seconds, q)
  }
}

/// Whether keyframe segments are lines or cubics, as a type so the plain stage's loop
/// holds only its own selects.
protocol SegmentShape { static var cubic: Bool { get } }
enum LineSegments: SegmentShape { static var cubic: Bool { false } }
enum CubicSegments: SegmentShape { static var cubic: Bool { true } }

extension FloatLanes {
  /// Each lane's raw fraction through its keyframe segment, (f - start) x 1/span in
  /// [0, 1], and exactly 1 at f = 1: the last segment ends there, and the product may
  /// round below it, which a spring segment, not settled yet, would show as a jump.
  /// Scalar and matrix keyframes share it. Transparent: with `@inline(__always)` the
  /// optimiser left it out of line in the plain keyframe loop, a call per lane group
  /// (+4.5 instructions per cell on shake and pulse, callgrind).
  @_transparent
  static func segmentFraction(_ f: Self, start: Self, invSpan: Self) -> Self {
    let one = Self(repeating: 1)
    return clamp((f - start) * invSpan, 0, 1).replacing(with: one, where: ge(f, one))
  }
}
