// Random recipes and geometries drawn from the whole accepted input range (InputLimits),
// with the range ends themselves drawn often: the inputs of the "validation passes =>
// every output is finite" property tests (reference, kernel, CLI).

import CellMotion
import Foundation

extension SeededGenerator {
  /// A value of `range`: one of its ends a third of the time, 0 (when inside) or a value
  /// near an end sometimes, otherwise log-uniform in magnitude across the range (so
  /// 1e-3 and 1e5 are both drawn from 0 ... 1e6, not only values near 1e6).
  public mutating func extreme(_ range: ClosedRange<Double>) -> Double {
    let lo = range.lowerBound, hi = range.upperBound
    switch next() % 9 {
    case 0, 1: return lo
    case 2, 3: return hi
    case 4: return range.contains(0) ? 0 : lo
    case 5: return range.contains(1) ? 1 : hi
    default:
      // Log-uniform magnitude with a random sign, clamped into the range.
      let maxMag = max(abs(lo), abs(hi))
      let minMag = max(min(abs(lo), abs(hi)), 1e-6)
      let e = uniform(Foundation.log10(minMag)...Foundation.log10(max(maxMag, minMag)))
      var v = pow(10, e)
      if lo < 0 && next() % 2 == 0 { v = -v }
      return Swift.min(Swift.max(v, lo), hi)
    }
  }

  /// A curve from the whole accepted range: Bezier control points with extreme y, or a
  /// spring at the corners of its ranges. Retries until the initialiser accepts it.
  public mutating func extremeCurve() -> AnimationCurve {
    while true {
      if next() % 2 == 0 {
        if let c = try? TimingCurve(
          x1: uniform(0...1), y1: extreme(InputLimits.bezierY), x2: uniform(0...1), y2: extreme(InputLimits.bezierY))
        {
          return .bezier(c)
        }
      } else {
        let mass = extreme(InputLimits.springMass)
        let w0 = extreme(InputLimits.springNaturalFrequency)
        let alpha = extreme(InputLimits.springDecayRate)
        if let s = try? Spring(
          mass: mass, stiffness: w0 * w0 * mass, damping: 2 * mass * alpha,
          initialVelocity: extreme(InputLimits.springVelocity))
        {
          return .spring(s)
        }
      }
    }
  }

  /// A channel value with extreme parts.
  public mutating func extremeValue() -> ChannelValue {
    ChannelValue(
      extreme(InputLimits.channelConstant), perCellHeight: next() % 3 == 0 ? extreme(InputLimits.channelFactor) : 0,
      perTableWidth: next() % 3 == 0 ? extreme(InputLimits.channelFactor) : 0)
  }

  /// A matrix with entries in range: affine or 3D, possibly with perspective.
  public mutating func extremeMatrix() -> Transform3D {
    var t = Transform3D.identity
    let r = InputLimits.matrixEntry
    switch next() % 3 {
    case 0:
      t = Transform3D.identity.rotatedBy(uniform(-10...10), 0, 0, 1).scaledBy(extreme(-1e3...1e3), extreme(-1e3...1e3), 1)
      t.m41 = extreme(r)
      t.m42 = extreme(r)
    case 1:
      t = Transform3D.identity.rotatedBy(uniform(-10...10), uniform(-1...1), uniform(-1...1), uniform(-1...1))
      t.m41 = extreme(r)
      t.m43 = extreme(r)
      t.m34 = -1 / extreme(InputLimits.perspectiveDistance)
    default:
      for i in 0..<4 { for j in 0..<4 { t[i, j] = extreme(-10...10) } }
    }
    return t
  }

  /// A recipe drawn from the whole accepted range that passes `validate()` (retries
  /// otherwise: some draws, e.g. nearly singular matrices, are rightly refused).
  public mutating func extremeRecipe(name: String = "extreme") -> Recipe {
    while true {
      var channels: [ChannelAnimation] = []
      for _ in 0..<(1 + Int(next() % 4)) {
        channels.append(
          ChannelAnimation(
            Channel.allCases[Int(next() % UInt64(Channel.allCases.count))], from: extremeValue(), to: extremeValue(),
            curve: extremeCurve(), duration: extreme(InputLimits.duration), delay: extreme(InputLimits.delay)))
      }
      var matrix: MatrixAnimation?
      if next() % 3 == 0 {
        matrix = MatrixAnimation(
          from: extremeMatrix(), to: next() % 2 == 0 ? .identity : extremeMatrix(), curve: extremeCurve(),
          duration: extreme(InputLimits.duration), delay: extreme(InputLimits.delay))
      }
      let fold: FoldSpec? =
        next() % 4 == 0
        ? FoldSpec(
          direction: next() % 2 == 0 ? .open : .close, curve: extremeCurve(), duration: extreme(InputLimits.duration),
          perspectiveDistance: extreme(InputLimits.perspectiveDistance)) : nil
      let recipe = Recipe(
        name: name, channels: channels, matrix: matrix,
        stagger: Stagger(step: extreme(InputLimits.delay), base: next() % 2 == 0 ? .row : .batchPosition),
        order: next() % 2 == 0 ? .keyPath : .translateFirst, anchorX: extreme(InputLimits.anchor),
        anchorY: extreme(InputLimits.anchor),
        perspectiveDistance: next() % 2 == 0 ? extreme(InputLimits.perspectiveDistance) : nil,
        timing: RecipeTiming(
          speed: extreme(InputLimits.speed), repeatCount: extreme(InputLimits.repeatCount),
          autoreverses: next() % 2 == 0, fillMode: FillMode.allCases[Int(next() % UInt64(FillMode.allCases.count))]),
        fold: fold)
      if (try? recipe.validate()) != nil { return recipe }
    }
  }

  /// A geometry with every size drawn from `InputLimits.length`.
  public mutating func extremeGeometry() -> CellGeometry {
    CellGeometry(
      width: extreme(InputLimits.length), height: extreme(InputLimits.length), tableWidth: extreme(InputLimits.length),
      detailHeight: extreme(InputLimits.length))
  }
}

extension CellState {
  /// Whether every number of the state is finite.
  public var isFinite: Bool {
    transform.isFinite && opacity.isFinite && shadowOpacity.isFinite
      && (fold.map { $0.top.isFinite && $0.bottom.isFinite && $0.topShadowOpacity.isFinite } ?? true)
  }
}
