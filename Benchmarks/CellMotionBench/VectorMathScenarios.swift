// VectorMath vs the C library: the kernel's SIMD8 exp and sincos against glibc's scalar
// expf and sinf + cosf on the same 10,000 arguments (the ranges the kernel feeds them:
// spring decay exponents in [-20, 0], angles in [-pi, pi]). Accuracy is tested in
// VectorMathTests; this measures what the polynomials buy.
//
// | variant          | flops per value (hand count)            | bytes written |
// |------------------|-----------------------------------------|---------------|
// | exp simd8        | range reduction 4 + degree-5 poly 12 + 2 | 4             |
// | sincos simd8     | reduction 6 + two degree-3/4 polys 16 + 4 | 8             |
// | glibc            | (library; counted as the SIMD8 work)    | 4 or 8        |

import CellMotionKernel

#if canImport(Glibc)
  import Glibc
#endif

enum VectorMathScenarios {
  static let size = 10_000

  static func all(sizes: [Int]?) -> [Scenario] {
    (sizes ?? [size]).flatMap { n in
      [
        exp(n, simd: true), exp(n, simd: false), sincos(n, simd: true), sincos(n, simd: false),
      ]
    }
  }

  static func exp(_ n: Int, simd: Bool) -> Scenario {
    Scenario(
      group: "vmath-exp", variant: simd ? "simd8" : "glibc-expf", cells: n, bytesWrittenPerCell: 4,
      flopsPerCell: 18, isRatioReference: simd,
      note: simd ? "VectorMath.exp on SIMD8<Float>" : "Glibc.expf per value") {
      var rng = BenchRandom(seed: 31)
      let x = FloatBuffer(count: n + 8) { _ in rng.float(-20, 0) }
      let y = FloatBuffer(count: n + 8)
      let xp = x.pointer.baseAddress!, yp = y.pointer.baseAddress!
      return {
        if simd {
          var i = 0
          while i < n {  // n + 8 allocated: the last group may run past n
            VectorMath.exp(SIMD8<Float>.load(xp + i)).store(to: yp + i)
            i += 8
          }
        } else {
          for i in 0..<n { yp[i] = expf(xp[i]) }
        }
        blackHole(yp)
        withExtendedLifetime((x, y)) {}
      }
    }
  }

  static func sincos(_ n: Int, simd: Bool) -> Scenario {
    Scenario(
      group: "vmath-sincos", variant: simd ? "simd8" : "glibc-sinf-cosf", cells: n, bytesWrittenPerCell: 8,
      flopsPerCell: 26, isRatioReference: simd,
      note: simd ? "VectorMath.sincos on SIMD8<Float>" : "Glibc.sinf and cosf per value") {
      var rng = BenchRandom(seed: 32)
      let x = FloatBuffer(count: n + 8) { _ in rng.float(-Float.pi, Float.pi) }
      let s = FloatBuffer(count: n + 8), c = FloatBuffer(count: n + 8)
      let xp = x.pointer.baseAddress!, sp = s.pointer.baseAddress!, cp = c.pointer.baseAddress!
      return {
        if simd {
          var i = 0
          while i < n {
            let r = VectorMath.sincos(SIMD8<Float>.load(xp + i))
            r.sin.store(to: sp + i)
            r.cos.store(to: cp + i)
            i += 8
          }
        } else {
          for i in 0..<n {
            sp[i] = sinf(xp[i])
            cp[i] = cosf(xp[i])
          }
        }
        blackHole(sp)
        withExtendedLifetime((x, s, c)) {}
      }
    }
  }
}
