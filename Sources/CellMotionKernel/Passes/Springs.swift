// Pass 1, any curve at a local time: the Bezier solves and the closed-form damped
// springs (under-, critically and over-damped).

import CellMotion
import Foundation

extension Kernel {
  /// Progress of `curve` at local time `local` (seconds in [0, duration]) per lane.
  @inlinable @inline(__always)
  static func curveProgress<L: FloatLanes>(_ curve: CompiledCurve, local: L, duration dur: Float) -> L {
    var p: L
    switch curve {
    case .bezier(let ax, let bx, let cx, let ay, let by, let cy, let steps, let guess):
      p = bezierProgress(
        L.clamp(local * (1 / dur), 0, 1), ax, bx, cx, ay, by, cy, steps: steps, quadraticGuess: guess)
    case .fittedBezier(let ax, let bx, let cx, let ay, let by, let cy, let fit, let steps):
      p = fittedBezierProgress(L.clamp(local * (1 / dur), 0, 1), ax, bx, cx, ay, by, cy, fit, steps: steps)
    case .rootFittedBezier(let ax, let bx, let cx, let ay, let by, let cy, let fit, let steps):
      p = rootFittedBezierProgress(L.clamp(local * (1 / dur), 0, 1), ax, bx, cx, ay, by, cy, fit, steps: steps)
    case .underdamped(let a, let wd, let b):
      let e = L.exp(local * -a)
      let sc = L.sincos(local * wd)
      p = 1 - e * (sc.cos + sc.sin * b)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    case .critical(let w0, let c):
      p = 1 - (local * c + 1) * L.exp(local * -w0)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    case .overdamped(let a, let beta, let c, let slow, let fast):
      // e^(-a t) cosh(beta t) = (e1 + e2) / 2 and e^(-a t) sinh(beta t) / (beta t) with
      // e1,2 = e^(-slow t), e^(-fast t) (slow = a - beta without cancellation), both
      // decaying (no overflow). For small y = beta t the difference cancels, so use the
      // series sinh(y)/y = 1 + y^2/6 + y^4/120 + y^6/5040 (relative error < 3e-9 for y < 0.5).
      let e1 = L.exp(local * -slow), e2 = L.exp(local * -fast)
      let y = local * beta
      let y2 = y * y
      let series = L.exp(local * -a) * (((y2 * (1 / 5040) + (1 / 120)) * y2 + (1 / 6)) * y2 + 1)
      let direct = (e1 - e2) / L.maximum(y * 2, L(repeating: 1e-30))
      let sinhc = series.replacing(with: direct, where: L.ge(y, L(repeating: 0.5)))
      p = 1 - ((e1 + e2) * 0.5 + local * c * sinhc)
      p = p.replacing(with: L(repeating: 1), where: L.ge(local, L(repeating: dur)))
    }
    return p
  }
}
