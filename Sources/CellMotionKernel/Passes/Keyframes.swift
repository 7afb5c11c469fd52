// Pass 1b, keyframes: after every part's progress, each keyframe channel's value per lane
// from its part's progress (the animation's fraction f). Every lane finds its own segment
// by comparing f with each segment's start and selecting that segment's constants (no
// per-lane branch), eases its fraction with its own segment's curve (a Bezier solved with
// per-lane coefficients, springs by regime, each computed only when the track has one),
// then evaluates the segment's cubic.

import CellMotion
import Foundation

extension Kernel {
  /// Writes the value of keyframe channel `k` for `count` cells into its scratch row, in
  /// whole lane groups (as `progressStage`).
  @inlinable
  static func keyframeStage<L: FloatLanes>(
    _: L.Type, _ k: CompiledKeyframes, progress: StagedProgress, height: UnsafePointer<Float>,
    tableWidth: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>
  ) {
    k.segments.withUnsafeBufferPointer { segments in
      var i = 0
      while i < count {
        let f = L.clamp(progress(k.part, i) as L, 0, 1)
        let v = keyframeValue(f, k, segments)
        var value = v.constant
        if k.usesGeometry {
          let rest = count - i
          let he: L = loadGroup(height + i, rest), tw: L = loadGroup(tableWidth + i, rest)
          value = L.muladd(he, v.height, L.muladd(tw, v.width, v.constant))
        }
        value.store(to: out + i)
        i += L.width
      }
    }
  }

  /// The value's three parts (constant, per cell height, per table width) at fraction `f`.
  @inlinable @inline(__always)
  static func keyframeValue<L: FloatLanes>(
    _ f: L, _ k: CompiledKeyframes, _ segments: UnsafeBufferPointer<KeyframeSegment>
  ) -> (constant: L, height: L, width: L) {
    // Each lane's segment: the last whose start is <= f (segment 0 for any f before the
    // second start), its constants selected lane by lane.
    let first = segments[0]
    var start = L(repeating: first.start), inv = L(repeating: first.invSpan)
    var p = LaneVector4<L>(first.poly)
    var ph = LaneVector4<L>(first.polyHeight), pw = LaneVector4<L>(first.polyWidth)
    var kind = L(repeating: first.kind.rawValue), seconds = L(repeating: first.seconds)
    var curve = LaneCurve<L>(first.curve)
    let eases = k.hasBezier || k.hasUnderdamped || k.hasCritical || k.hasOverdamped
    let springs = k.hasUnderdamped || k.hasCritical || k.hasOverdamped
    for s in segments.dropFirst() {
      let m = L.ge(f, L(repeating: s.start))
      start = start.replacing(with: L(repeating: s.start), where: m)
      inv = inv.replacing(with: L(repeating: s.invSpan), where: m)
      p.select(s.poly, where: m)
      if k.usesGeometry {
        ph.select(s.polyHeight, where: m)
        pw.select(s.polyWidth, where: m)
      }
      if eases { curve.select(s.curve, where: m) }
      if springs {
        kind = kind.replacing(with: L(repeating: s.kind.rawValue), where: m)
        seconds = seconds.replacing(with: L(repeating: s.seconds), where: m)
      }
    }
    // At f = 1 exactly 1 (the last segment ends there; (f - start) x invSpan may round
    // below it, which a spring segment, not settled yet, would show as a jump).
    let u = L.clamp((f - start) * inv, 0, 1).replacing(with: L(repeating: 1), where: L.ge(f, L(repeating: 1)))
    var e = u
    if k.hasBezier {
      // Segments without a Bezier carry the identity (x = s, y = s), which this solve
      // returns unchanged.
      e = bezierProgressLanes(u, curve.c[0], curve.c[1], curve.c[2], curve.c[3], curve.c[4], curve.c[5])
    }
    if springs {
      // A spring segment runs over its own seconds; exactly 1 at its end (or with none).
      let local = u * seconds
      func isKind(_ c: KeyframeSegment.Kind) -> L.Mask {
        L.and(L.ge(kind, L(repeating: c.rawValue)), L.ge(L(repeating: c.rawValue), kind))
      }
      if k.hasUnderdamped {
        let s = UnderdampedSpring.progress(local, a: curve.c[0], wd: curve.c[1], b: curve.c[2], duration: seconds)
        e = e.replacing(with: s, where: isKind(.underdamped))
      }
      if k.hasCritical {
        let s = CriticalSpring.progress(local, w0: curve.c[0], c: curve.c[1], duration: seconds)
        e = e.replacing(with: s, where: isKind(.critical))
      }
      if k.hasOverdamped {
        let s = OverdampedSpring.progress(
          local, a: curve.c[0], beta: curve.c[1], c: curve.c[2], slow: curve.c[3], fast: curve.c[4], duration: seconds)
        e = e.replacing(with: s, where: isKind(.overdamped))
      }
    }
    return (p.cubic(e), k.usesGeometry ? ph.cubic(e) : L(repeating: 0), k.usesGeometry ? pw.cubic(e) : L(repeating: 0))
  }
}

/// Four per-lane coefficients (A, B, C, D) of a cubic, selected from segment constants.
@usableFromInline struct LaneVector4<L: FloatLanes> {
  @usableFromInline var a, b, c, d: L
  @inlinable @inline(__always) init(_ v: SIMD4<Float>) {
    (a, b, c, d) = (L(repeating: v[0]), L(repeating: v[1]), L(repeating: v[2]), L(repeating: v[3]))
  }
  @inlinable @inline(__always) mutating func select(_ v: SIMD4<Float>, where m: L.Mask) {
    a = a.replacing(with: L(repeating: v[0]), where: m)
    b = b.replacing(with: L(repeating: v[1]), where: m)
    c = c.replacing(with: L(repeating: v[2]), where: m)
    d = d.replacing(with: L(repeating: v[3]), where: m)
  }
  /// ((a e + b) e + c) e + d.
  @inlinable @inline(__always) func cubic(_ e: L) -> L { L.muladd(L.muladd(L.muladd(a, e, b), e, c), e, d) }
}

/// A segment's six curve constants per lane (`KeyframeSegment.curve`).
@usableFromInline struct LaneCurve<L: FloatLanes> {
  @usableFromInline var c: InlineArray<6, L>
  @inlinable @inline(__always) init(_ v: SIMD8<Float>) { c = InlineArray { L(repeating: v[$0]) } }
  @inlinable @inline(__always) mutating func select(_ v: SIMD8<Float>, where m: L.Mask) {
    for j in 0..<6 { c[j] = c[j].replacing(with: L(repeating: v[j]), where: m) }
  }
}
