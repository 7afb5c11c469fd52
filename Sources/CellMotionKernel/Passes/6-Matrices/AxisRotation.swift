// Pass 6 (KernelPass.matrices), `MatrixPlan.axisRotation`: a recipe whose only transform is a rotation
// about x or about y (the flip presets), with perspective and an anchor, as explicit
// entries; and the sine and cosine of an angle known to stay near a centre.

import CellMotion
import Foundation

/// A recipe whose transform channels are a single rotation about x or y and no matrix
/// path (`CompiledRecipe.axisRotation`): M = T(-a) * R * P(m34) * T(a) has six zero and
/// two unit entries, and the rest are a few products of sin, cos, m34 and the anchor, so
/// the group writes them directly instead of composing two full 4x4 matrices.
struct AxisRotation: Sendable {
  /// true: rotation about x (`Channel.rotationX`); false: about y.
  let aboutX: Bool
  /// The channel's timed part and values (radians: from + (to - from) progress, each end
  /// c + h * cellHeight + w * tableWidth).
  let part: Int
  let from: SIMD3<Float>
  let delta: SIMD3<Float>
  /// (c, sin c, cos c) when every angle the curve can produce is within
  /// `AngleCentre.reach` of c (`Kernel.sincos(_:near:)`); nil: the full-range sine.
  let centre: SIMD3<Float>?

  /// The shape of `r`, or nil when its transform is anything else.
  init?(_ r: CompiledRecipe) {
    guard r.matrix == nil, r.transformChannels.count == 1, let ch = r.transformChannels.first,
      ch.channel == .rotationX || ch.channel == .rotationY
    else { return nil }
    aboutX = ch.channel == .rotationX
    part = ch.part
    from = ch.from
    delta = ch.to - ch.from
    centre = from.y == 0 && from.z == 0 && delta.y == 0 && delta.z == 0
      ? AngleCentre.of(from: from.x, delta: delta.x, bounds: r.progressBounds(row: ch.part)) : nil
  }
}

/// Where an animated angle from + delta * progress stays within `reach` of a centre for
/// every progress in a curve's bounds (`CompiledCurve.progressBounds`), its sine and
/// cosine need no argument reduction: `Kernel.sincos(_:near:)`.
enum AngleCentre {
  /// pi/4 (the interval `sincosSmall`'s polynomials are fitted on) plus 2e-3: the progress
  /// bounds carry a 1e-3 margin, which for a quarter turn (flip, fold) puts the range a
  /// hair past pi/2 wide. The test `sincosNear` measures the error out to this reach.
  static let reach = Double.pi / 4 + 2e-3

  /// (c, sin c, cos c) for the range's midpoint c (as a Float, with the sine and cosine
  /// of that Float), or nil when the range is wider than 2 `reach` or not finite.
  static func of(from: Float, delta: Float, bounds: (lo: Double, hi: Double)) -> SIMD3<Float>? {
    let a = Double(from) + Double(delta) * bounds.lo, b = Double(from) + Double(delta) * bounds.hi
    let lo = min(a, b), hi = max(a, b)
    guard lo.isFinite, hi.isFinite else { return nil }
    let c = Float((lo + hi) / 2)
    guard hi - Double(c) <= reach, Double(c) - lo <= reach else { return nil }
    return SIMD3(c, Float(sin(Double(c))), Float(cos(Double(c))))
  }
}

extension Kernel {
  /// Sine and cosine of `x` (radians): with a centre (c, sin c, cos c) from `AngleCentre`,
  /// `sincosSmall(x - c)` turned by c (sin(c + r) = sin c cos r + cos c sin r, cos(c + r)
  /// = cos c cos r - sin c sin r): no argument reduction, no quadrant selects. Without one,
  /// the full-range `sincos`.
  @inline(__always)
  static func sincos<L: FloatLanes>(_ x: L, near centre: SIMD3<Float>?) -> (sin: L, cos: L) {
    guard let c = centre else { return L.sincos(x) }
    let r = L.sincosSmall(x - c.x)
    return (L.muladd(r.cos, c.y, r.sin * c.z), L.muladd(r.cos, c.z, r.sin * -c.y))
  }

  /// The general pass for an `AxisRotation` recipe: cells `b ..< b + n` straight to
  /// `outputs.matrices` (`FloatLanes.storeMatrices`, the constant row (1 0 0 0) or
  /// (0 1 0 0) from constants, the other rows transposed in registers: no pass through the
  /// scratch), and the projected corners when asked for.
  static func axisRotationBlock<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ ar: AxisRotation, at b: Int, count n: Int, progress: StagedProgress,
    inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let constant: ConstantRows = ar.aboutX ? .unitRow0 : .unitRow1
    // Whole groups, then the partial group (no tail code in the loop).
    @inline(__always) func group(_ i: Int, lanes: Int) {
      let c = b &+ i
      let wi: L = loadGroup(inputs.width + c, lanes), he: L = loadGroup(inputs.height + c, lanes)
      let m = axisRotationGroup(
        r, ar, progress: progress, at: i, width: wi, height: he, tableWidth: loadGroup(inputs.tableWidth + c, lanes))
      L.storeMatrices(m, constant: constant, cells: lanes, to: outputs.matrices + 16 &* c)
      if let co = outputs.corners { storeCorners(m, at: c, lanes: lanes, to: co, width: wi, height: he) }
    }
    var i = 0
    while i &+ L.width <= n {
      group(i, lanes: L.width)
      i &+= L.width
    }
    if i < n { group(i, lanes: n &- i) }
  }

  /// One group of an `AxisRotation` recipe: T(-a) * R * P(m34) * T(a) with the anchor
  /// a = (w anchorX, h anchorY, 0), entry by entry. With c, s the cosine and sine and
  /// k = m34, about x:
  ///
  ///     [ 1          0                 0     0 ]
  ///     [ s k ax     c + s k ay        s     s k ]
  ///     [ c k ax     -s + c k ay       c     c k ]
  ///     [ ax(w - 1)  ay(w - c)         -ay s w ],  w = 1 - ay s k
  ///
  /// and about y:
  ///
  ///     [ c - s k ax   -s k ay      -s     -s k ]
  ///     [ 0            1            0      0 ]
  ///     [ s + c k ax   c k ay       c      c k ]
  ///     [ ax(w - c)    ay(w - 1)    ax s   w ],  w = 1 + ax s k
  ///
  /// (the general path's products with their zero and unit factors dropped).
  @inline(__always)
  static func axisRotationGroup<L: FloatLanes>(
    _ r: CompiledRecipe, _ ar: AxisRotation, progress: StagedProgress, at i: Int, width: L, height: L,
    tableWidth: L
  ) -> LaneMatrix<L> {
    let p: L = progress(ar.part, i)
    let angle: L
    if ar.centre != nil {
      angle = L.muladd(p, ar.delta.x, L(repeating: ar.from.x))
    } else {
      angle = channelValue(from: ar.from, delta: ar.delta, progress: p, height: height, tableWidth: tableWidth)
    }
    let cs = sincos(angle, near: ar.centre)
    let (s, c) = (cs.sin, cs.cos)
    let k = r.m34
    let ax = width * r.anchor.x, ay = height * r.anchor.y
    let sk = s * k, ck = c * k
    let z = L(repeating: 0), one = L(repeating: 1)
    if ar.aboutX {
      let w = L.muladd(ay, -sk, one)
      return LaneMatrix((
        one, z, z, z,
        sk * ax, L.muladd(sk, ay, c), s, sk,
        ck * ax, L.muladd(ck, ay, -s), c, ck,
        ax * (w - 1), ay * (w - c), -(ay * s), w
      ))
    }
    let w = L.muladd(ax, sk, one)
    return LaneMatrix((
      L.muladd(sk, -ax, c), -(sk * ay), -s, -sk,
      z, one, z, z,
      L.muladd(ck, ax, s), ck * ay, c, ck,
      ax * (w - c), ay * (w - 1), ax * s, w
    ))
  }
}
