// CompiledKeyframes: a keyframe channel flattened into segments the kernel selects per
// lane: each segment a start fraction, an inverse span, an easing (none, a Bezier, or a
// spring in one of its three regimes) and a cubic polynomial of the eased fraction, in
// Float. Every calculation mode becomes the same form:
// - linear and paced: a line per segment (the paced key times from `KeyframeTrack`);
// - discrete: a constant per interval;
// - cubic: the Kochanek-Bartels Hermite piece in the power basis;
// - cubicPaced: in one dimension, moving at constant speed along the spline is moving at
//   constant speed along the polyline through the values and the spline's turning points
//   (between turning points a piece is monotone, so its arc length is the distance its
//   value travels): the segments are that polyline's lines, timed by distance. Exact, with
//   no fitted inverse of the arc length.

import CellMotion
import Foundation

/// One keyframe segment: on fractions [start, next segment's start), u = (f - start) x
/// invSpan clamped to [0, 1], eased by `kind`, then value = ((A e + B) e + C) e + D per
/// geometry part (constant, x cell height, x table width).
package struct KeyframeSegment: Sendable, Hashable {
  /// The easing kinds, as Floats so lanes can select them.
  package enum Kind: Float, Sendable {
    case none = 0, bezier, underdamped, critical, overdamped
  }
  package var start: Float
  /// 1 / span; 0 for a segment of zero span (its polynomial is then the constant it jumps to).
  package var invSpan: Float
  /// (A, B, C, D) of the constant part and of the two geometry factors.
  package var poly: SIMD4<Float>
  package var polyHeight: SIMD4<Float>
  package var polyWidth: SIMD4<Float>
  package var kind: Kind
  /// Bezier: (ax, bx, cx, ay, by, cy) (the identity for other kinds). Springs: the regime's
  /// constants (`CompiledCurve`'s, in order) in the first lanes.
  package var curve: SIMD8<Float>
  /// A spring segment's seconds (its span x the channel's duration).
  package var seconds: Float

  init(start: Double, span: Double) {
    self.start = Float(start)
    // A positive span below Float's range (key times 1e-40 apart) would make 1/span
    // infinite and 0 x inf a NaN: the largest finite Float keeps the fraction finite.
    invSpan = span > 0 ? min(Float(1 / span), .greatestFiniteMagnitude) : 0
    poly = .zero
    polyHeight = .zero
    polyWidth = .zero
    kind = .none
    curve = SIMD8(0, 0, 1, 0, 0, 1, 0, 0)
    seconds = 0
  }
}

/// Which easings a keyframe track's segments use: the keyframe passes compute only these
/// (`Kernel.easeSegments`), scalar and matrix tracks alike.
package struct SegmentEasings: Sendable, Hashable {
  package let bezier: Bool, underdamped: Bool, critical: Bool, overdamped: Bool
  init(_ kinds: some Sequence<KeyframeSegment.Kind>) {
    let kinds = Set(kinds)
    bezier = kinds.contains(.bezier)
    underdamped = kinds.contains(.underdamped)
    critical = kinds.contains(.critical)
    overdamped = kinds.contains(.overdamped)
  }
  /// Any spring regime.
  package var springs: Bool { underdamped || critical || overdamped }
  /// Any easing at all (else every segment's fraction is used as it is).
  package var any: Bool { bezier || springs }
}

/// A keyframe channel ready for the kernel's keyframe stage (`Kernel.keyframeStage`).
package struct CompiledKeyframes: Sendable {
  /// The timed part whose progress is the animation's fraction f.
  package var part: Int
  /// The scratch row the stage writes the channel's value to.
  package var row: Int
  package let segments: [KeyframeSegment]
  /// `segments` flattened for the stage, `tableStride` Floats each: start, 1/span, the
  /// constant cubic (A, B, C, D), the height and width cubics, kind, seconds, then the six
  /// curve constants (padded to 24).
  package private(set) var table = KeyframeTable([])
  static var tableStride: Int { 24 }
  package var usesGeometry: Bool
  /// Whether any segment has cubic or quadratic terms (cubic mode); lines otherwise.
  package private(set) var cubic = false
  /// Which easings occur (the stage computes only those).
  package let easings: SegmentEasings
  /// Tracks from this one on (itself included) whose distances to their knot
  /// `Kernel.sharedHingeStage` finds once for all: hinged lines of one part with the same
  /// knot (a depth page's opacity, slide and scale). 1 when no such track follows; 0 for a
  /// track inside an earlier track's run. Set by `markSharedSegments`.
  package var sharedRun = 1
  /// The track as one hinged line (`HingeLines`) when it is two plain line segments that
  /// cover fractions 0 to 1 and meet at their knot: the keyframe stages then evaluate it
  /// with no segment selected (`Kernel.hingeStage`). Nil otherwise.
  package private(set) var hinge: HingeLines? = nil
  /// Bounds of the value over every fraction (constant part; unbounded with geometry),
  /// widened like `CompiledCurve.progressBounds`: lets the matrix passes prove a rotation
  /// stays small.
  package var valueBounds: (lo: Double, hi: Double) = (-.infinity, .infinity)

  /// Compiles validated keyframes of a channel lasting `duration` seconds.
  package init(_ keyframes: ChannelKeyframes, part: Int, row: Int, duration: Double) throws(CellMotionError) {
    self.part = part
    self.row = row
    usesGeometry = keyframes.usesGeometry
    let constant = try keyframes.track { $0.constant }
    if keyframes.mode == .cubicPaced {
      segments = Self.pacedPolyline(constant)
    } else {
      let height = usesGeometry ? try keyframes.track { $0.perCellHeight } : nil
      let width = usesGeometry ? try keyframes.track { $0.perTableWidth } : nil
      segments = Self.segments(constant, height, width, duration: duration)
    }
    easings = SegmentEasings(segments.map(\.kind))
    if !usesGeometry { valueBounds = Self.bounds(segments) }
    let (values, cubic) = Self.table(segments)
    (table, self.cubic) = (KeyframeTable(values), cubic)
    if !easings.any && !cubic { hinge = HingeLines(segments) }
  }

  /// Whether `self` and `other` find the same distances to their knot for every progress:
  /// both hinged lines of one part with the same knot (which fixes both segments: they run
  /// from 0 to the knot and from it to 1).
  func sharesSegments(with other: CompiledKeyframes) -> Bool {
    guard let a = hinge, let b = other.hinge else { return false }
    return part == other.part && a.knot == b.knot
  }

  /// Sets `sharedRun` on each run of consecutive tracks that share their segments
  /// (`sharesSegments(with:)`).
  static func markSharedSegments(_ tracks: inout [CompiledKeyframes]) {
    var k = 0
    while k < tracks.count {
      var e = k + 1
      while e < tracks.count && tracks[k].sharesSegments(with: tracks[e]) { e += 1 }
      tracks[k].sharedRun = e - k
      for j in (k + 1)..<e { tracks[j].sharedRun = 0 }
      k = e
    }
  }

  /// The flat table and whether any segment is cubic.
  static func table(_ segments: [KeyframeSegment]) -> (table: [Float], cubic: Bool) {
    var t: [Float] = []
    t.reserveCapacity(segments.count * tableStride)
    for s in segments {
      t += [s.start, s.invSpan]
      for v in [s.poly, s.polyHeight, s.polyWidth] { t += [v[0], v[1], v[2], v[3]] }
      t += [s.kind.rawValue, s.seconds]
      for j in 0..<8 { t.append(s.curve[j]) }
    }
    // Typed out: as one nested closure over an array literal it took 146 ms to type-check.
    func curved(_ p: SIMD4<Float>) -> Bool { p[0] != 0 || p[1] != 0 }
    let cubic = segments.contains { (s: KeyframeSegment) -> Bool in
      curved(s.poly) || curved(s.polyHeight) || curved(s.polyWidth)
    }
    return (t, cubic)
  }

  /// The polynomial (A, B, C, D) of segment i of `track` in the eased fraction: a
  /// constant, a line, or the Hermite piece.
  static func polynomial(_ track: KeyframeTrack, _ i: Int, span: Double) -> SIMD4<Float> {
    let v = track.values
    if track.mode == .discrete || v.count == 1 { return SIMD4(0, 0, 0, Float(v[i])) }
    if span <= 0 { return SIMD4(0, 0, 0, Float(v[i + 1])) }
    if track.mode == .cubic {
      let p0 = v[i], p1 = v[i + 1], m0 = track.outTangents[i], m1 = track.inTangents[i + 1]
      return SIMD4(
        Float(2 * p0 + m0 - 2 * p1 + m1), Float(-3 * p0 - 2 * m0 + 3 * p1 - m1), Float(m0), Float(p0))
    }
    return SIMD4(0, 0, Float(v[i + 1] - v[i]), Float(v[i]))
  }

  /// Segments of every mode but cubicPaced: one per interval (discrete) or per pair of
  /// values, with the segment's timing function (linear and cubic modes).
  static func segments(_ c: KeyframeTrack, _ h: KeyframeTrack?, _ w: KeyframeTrack?, duration: Double) -> [KeyframeSegment] {
    let n = c.values.count
    let count = n == 1 ? 1 : (c.mode == .discrete ? n : n - 1)
    return (0..<count).map { i in
      let t0 = c.keyTimes[i]
      let span = n == 1 || c.mode == .discrete ? 0 : c.keyTimes[i + 1] - t0
      var s = KeyframeSegment(start: t0, span: span)
      s.poly = polynomial(c, i, span: span)
      if let h, let w {
        s.polyHeight = polynomial(h, i, span: span)
        s.polyWidth = polynomial(w, i, span: span)
      }
      guard span > 0, c.mode == .linear || c.mode == .cubic else { return s }
      (s.kind, s.curve, s.seconds) = easing(c.timingFunctions[i], span: span, duration: duration)
      return s
    }
  }

  /// A segment's easing: none for a curve on the diagonal, a Bezier's power-basis
  /// coefficients (ax, bx, cx, ay, by, cy), or a spring's regime and constants
  /// (`CompiledCurve`'s) with the segment's seconds (its span x the animation's duration).
  static func easing(_ curve: AnimationCurve, span: Double, duration: Double) -> (
    kind: KeyframeSegment.Kind, curve: SIMD8<Float>, seconds: Float
  ) {
    let identity = SIMD8<Float>(0, 0, 1, 0, 0, 1, 0, 0)
    switch curve {
    case .bezier(let b):
      // y = x (linear, or any curve whose control points lie on the diagonal): no easing.
      guard !b.isIdentity else { return (.none, identity, 0) }
      let p = b.polynomial
      return (.bezier, SIMD8(Float(p.ax), Float(p.bx), Float(p.cx), Float(p.ay), Float(p.by), Float(p.cy), 0, 0), 0)
    case .spring(let spring):
      let seconds = Float(span * duration)
      switch CompiledCurve(.spring(spring)) {
      case .underdamped(let a, let wd, let b): return (.underdamped, SIMD8(a, wd, b, 0, 0, 0, 0, 0), seconds)
      case .critical(let w0, let c): return (.critical, SIMD8(w0, c, 0, 0, 0, 0, 0, 0), seconds)
      case .overdamped(let a, let beta, let c, let slow, let fast):
        return (.overdamped, SIMD8(a, beta, c, slow, fast, 0, 0, 0), seconds)
      default: return (.none, identity, 0)
      }
    }
  }

  /// cubicPaced: lines through the values and the spline's turning points, each timed by
  /// the distance its value travels over the total (see the file's comment).
  static func pacedPolyline(_ track: KeyframeTrack) -> [KeyframeSegment] {
    let v = track.values
    var points = [v[0]]
    for i in 0..<max(v.count - 1, 0) {
      let (p0, p1, m0, m1) = (v[i], v[i + 1], track.outTangents[i], track.inTangents[i + 1])
      for u in KeyframeTrack.turningPoints(p0, p1, m0, m1) { points.append(KeyframeTrack.hermite(p0, p1, m0, m1, u)) }
      points.append(p1)
    }
    var lengths: [Double] = []
    for k in 0..<(points.count - 1) { lengths.append(abs(points[k + 1] - points[k])) }
    let total = lengths.reduce(0, +)
    guard total > 0 else {
      var s = KeyframeSegment(start: 0, span: 0)
      s.poly = SIMD4(0, 0, 0, Float(v[0]))
      return [s]
    }
    var segments: [KeyframeSegment] = []
    var travelled = 0.0
    for k in 0..<lengths.count where lengths[k] > 0 {
      let t0 = travelled / total
      travelled += lengths[k]
      let t1 = k == lengths.count - 1 ? 1 : travelled / total
      var s = KeyframeSegment(start: t0, span: t1 - t0)
      s.poly = SIMD4(0, 0, Float(points[k + 1] - points[k]), Float(points[k]))
      segments.append(s)
    }
    return segments
  }

  /// The value's range: each segment's polynomial over the range of its eased fraction
  /// (its ends and interior turning points), widened by 1e-3 of the largest magnitude.
  static func bounds(_ segments: [KeyframeSegment]) -> (lo: Double, hi: Double) {
    var lo = Double.infinity, hi = -Double.infinity
    for s in segments {
      let eased: (lo: Double, hi: Double)
      switch s.kind {
      case .none: eased = (0, 1)
      case .bezier:
        let c = s.curve
        eased = CompiledCurve.bezier(
          ax: c[0], bx: c[1], cx: c[2], ay: c[3], by: c[4], cy: c[5], steps: 8, quadraticGuess: true
        ).progressBounds
      case .underdamped:
        eased = CompiledCurve.underdamped(a: s.curve[0], wd: s.curve[1], b: s.curve[2]).progressBounds
      case .critical:
        eased = CompiledCurve.critical(w0: s.curve[0], c: s.curve[1]).progressBounds
      case .overdamped:
        eased = CompiledCurve.overdamped(
          a: s.curve[0], beta: s.curve[1], c: s.curve[2], slow: s.curve[3], fast: s.curve[4]
        ).progressBounds
      }
      guard eased.lo.isFinite, eased.hi.isFinite else { return (-.infinity, .infinity) }
      let (a, b, c, d) = (Double(s.poly[0]), Double(s.poly[1]), Double(s.poly[2]), Double(s.poly[3]))
      func p(_ e: Double) -> Double { ((a * e + b) * e + c) * e + d }
      var probes = [eased.lo, eased.hi]
      // p'(e) = 3a e^2 + 2b e + c.
      let disc = 4 * b * b - 12 * a * c
      if a != 0, disc >= 0 {
        probes += [(-2 * b + disc.squareRoot()) / (6 * a), (-2 * b - disc.squareRoot()) / (6 * a)]
      } else if a == 0, b != 0 {
        probes.append(-c / (2 * b))
      }
      for e in probes where e >= eased.lo && e <= eased.hi {
        lo = min(lo, p(e))
        hi = max(hi, p(e))
      }
    }
    let margin = 1e-3 * max(1, abs(lo), abs(hi))
    return (lo - margin, hi + margin)
  }
}

/// A keyframe track's flat segment table (`CompiledKeyframes.table`), fixed once built and
/// read through its base pointer. A `[Float]` read through a track pointer
/// (`track.pointee.table.withUnsafeBufferPointer`) was retained and released around every
/// read, once per block and track (a depth page's tracks and shared segment rows: about
/// 0.9 instructions a cell, callgrind).
package final class KeyframeTable: @unchecked Sendable {
  /// The table's Floats (`count` of them), never written after `init`; freed with it.
  let base: UnsafeMutablePointer<Float>
  package let count: Int

  init(_ values: [Float]) {
    count = values.count
    base = .allocate(capacity: Swift.max(values.count, 1))
    values.withUnsafeBufferPointer { v in
      if let b = v.baseAddress { base.initialize(from: b, count: v.count) }
    }
  }

  deinit { base.deallocate() }

  subscript(i: Int) -> Float {
    precondition(i >= 0 && i < count)
    return base[i]
  }
}

/// A continuous line with one kink at `knot`: with x = f - knot for fractions f in
/// [0, 1], value = atKnot + below min(x, 0) + above max(x, 0), per geometry part (x the
/// constant, y per cell height, z per table width). Two plain line segments from 0 to the
/// knot and from the knot to 1 are this line exactly (below and above their slopes, atKnot
/// the value where they meet); each term stays within its segment's change of value, as
/// a segment's own line does, so nothing cancels. It evaluates with two multiply-adds and
/// no segment selected per lane, the same for a track alone and for a run sharing its
/// knot (`Kernel.hingeStage`, `Kernel.sharedHingeStage`).
package struct HingeLines: Sendable {
  package let knot: Float
  package let below, above, atKnot: SIMD3<Float>

  /// Shortest segment taken, fractions (key times closer than this keep the segment loops,
  /// with their clamped fraction).
  static let shortestSpan = 1.0 / 4096

  /// The hinged form of two plain line segments, or nil unless the first starts at 0, the
  /// second ends at 1, both span at least `shortestSpan` and every part's lines meet at
  /// the knot (within Float rounding of their values).
  init?(_ segments: [KeyframeSegment]) {
    guard segments.count == 2, segments[0].start == 0, segments[0].invSpan > 0, segments[1].invSpan > 0 else {
      return nil
    }
    let (s0, s1) = (segments[0], segments[1])
    let knot = Double(s1.start)
    let span0 = 1 / Double(s0.invSpan), span1 = 1 / Double(s1.invSpan)
    guard span0 >= Self.shortestSpan, span1 >= Self.shortestSpan, abs(span0 - knot) <= 1e-6 * knot,
      abs(knot + span1 - 1) <= 1e-6
    else { return nil }
    var below = SIMD3<Float>(), above = SIMD3<Float>(), atKnot = SIMD3<Float>()
    for (k, (p0, p1)) in [(s0.poly, s1.poly), (s0.polyHeight, s1.polyHeight), (s0.polyWidth, s1.polyWidth)].enumerated() {
      // Lines: value = c u + d on each segment's fraction u. The slopes over the Float
      // knot's distances to 0 and 1, so that the line passes through the keys' values at
      // fractions 0, the knot and 1 (within rounding).
      let (c0, d0, c1, d1) = (Double(p0[2]), Double(p0[3]), Double(p1[2]), Double(p1[3]))
      guard abs(d1 - (c0 + d0)) <= 1e-6 * Swift.max(1, abs(c0), abs(d0), abs(d1)) else { return nil }
      (below[k], above[k], atKnot[k]) = (Float(c0 / knot), Float(c1 / (1 - knot)), Float(d1))
    }
    (self.knot, self.below, self.above, self.atKnot) = (Float(knot), below, above, atKnot)
  }
}
