// CompiledMatrixKeyframes: keyframes of a whole matrix as a flat table of segments, each
// with its start, inverse span, easing (as scalar keyframes) and the interpolation of its
// two matrices on the path a two-value matrix animation would take (2D or 3D
// decomposition, componentwise, the discrete fallback) or a constant matrix (discrete
// mode, one key, a zero-length segment).

import CellMotion
import Foundation

/// Matrix keyframes ready for the general path (`CompiledMatrix.keyframes`).
package struct CompiledMatrixKeyframes: Sendable, Hashable {
  /// A segment's interpolation path.
  package enum Path: Float, Sendable {
    case twoD = 0, threeD, componentwise, discrete, constant
  }
  /// Floats per segment in `table`:
  /// 0 start, 1 1/span, 2 easing kind (`KeyframeSegment.Kind`), 3 seconds, 4...9 the
  /// easing's six constants, 10 path, 11 theta, 12 1/sin(theta) (3D, 0 for nlerp),
  /// 13 nlerp (1 or 0), 14...29 `a`, 30...45 `b` (the path's numbers, as
  /// `CompiledMatrix.twoD / threeD / componentwise / discrete` hold them; `a` alone for a
  /// constant), 46...49 qa, 50...53 qb, 54...55 unused.
  static var stride: Int { 56 }
  package let table: [Float]
  package let count: Int
  /// Which easings and paths occur (the evaluation computes only those): flags, not a
  /// set, since the general path reads them for every lane group.
  package let easings: SegmentEasings
  package let hasTwoD: Bool, hasThreeD: Bool, hasComponentwise: Bool, hasDiscrete: Bool

  package init(_ k: MatrixKeyframes, interpolation: TransformInterpolationMode, duration: Double) throws(CellMotionError) {
    let timing = try k.timing()
    let n = k.values.count
    let segmentCount = n == 1 ? 1 : (k.mode == .discrete ? n : n - 1)
    var table: [Float] = []
    var kinds: Set<KeyframeSegment.Kind> = [], paths: Set<Path> = []
    for i in 0..<segmentCount {
      var row = [Float](repeating: 0, count: Self.stride)
      let t0 = timing.keyTimes[i]
      let span = n == 1 || k.mode == .discrete ? 0 : timing.keyTimes[i + 1] - t0
      row[0] = Float(t0)
      row[1] = span > 0 ? min(Float(1 / span), .greatestFiniteMagnitude) : 0  // finite, as scalar keyframes
      let easing =
        span > 0 ? CompiledKeyframes.easing(timing.timingFunctions[i], span: span, duration: duration)
        : (kind: KeyframeSegment.Kind.none, curve: SIMD8<Float>(0, 0, 1, 0, 0, 1, 0, 0), seconds: Float(0))
      row[2] = easing.kind.rawValue
      row[3] = easing.seconds
      for j in 0..<6 { row[4 + j] = easing.curve[j] }
      kinds.insert(easing.kind)
      let path: Path
      if span <= 0 {
        // A constant: the value of a discrete interval or of the one key, or a
        // zero-length segment's end as its path represents it (the reference's
        // `segment(i).value(at: 1)`: the 3D path normalises by m44).
        path = .constant
        let value = k.mode == .discrete || n == 1 ? k.values[i] : k.segment(i, interpolation).value(at: 1)
        for (j, v) in value.fieldOrder.enumerated() { row[14 + j] = Float(v) }
      } else {
        switch CompiledMatrix.pair(k.segment(i, interpolation), part: 0, held: false) {
        case .twoD(_, let a, let b):
          path = .twoD
          Self.put(a, b, into: &row)
        case .threeD(_, let a, let b, let qa, let qb, let theta, let nlerp):
          path = .threeD
          Self.put(a, b, into: &row)
          row[11] = theta
          row[12] = nlerp ? 0 : 1 / sin(theta)
          row[13] = nlerp ? 1 : 0
          for j in 0..<4 {
            row[46 + j] = qa[j]
            row[50 + j] = qb[j]
          }
        case .componentwise(_, let a, let b):
          path = .componentwise
          Self.put(a, b, into: &row)
        case .discrete(_, let a, let b):
          path = .discrete
          Self.put(a, b, into: &row)
        case .keyframes:
          // `pair` never makes keyframes.
          path = .constant
        }
      }
      row[10] = path.rawValue
      paths.insert(path)
      table += row
    }
    self.table = table
    count = segmentCount
    easings = SegmentEasings(kinds)
    hasTwoD = paths.contains(.twoD)
    hasThreeD = paths.contains(.threeD)
    hasComponentwise = paths.contains(.componentwise)
    hasDiscrete = paths.contains(.discrete)
  }

  static func put(_ a: [Float], _ b: [Float], into row: inout [Float]) {
    for (j, v) in a.enumerated() { row[14 + j] = v }
    for (j, v) in b.enumerated() { row[30 + j] = v }
  }
}
