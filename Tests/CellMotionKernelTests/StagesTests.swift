// Matrix stages (composeWithParent, projectCorners), both backends, against a plain
// Double scalar reference written here, plus known identities and boundary validation.
//
// Tolerances (Float kernel vs Double reference, inputs exactly representable in Float):
// - compose: |out - ref| <= 1e-6 * sum_k |M[r][k] P[k][c]| per element. Four products
//   and three sums in Float are bounded by about 4 u = 2.4e-7 of that magnitude
//   (u = 2^-24); 1e-6 leaves room for either summation order and for FMA contraction.
// - project: per corner, with magnitudes Hx = sum_k |q_k V[k][x]| (q's own magnitude
//   sum_j |p_j M[j][k]| substituted for |q_k|), the error bound is about
//   eps * (Hx + |x'| Hw) / |w| + 3 u |x'| for the reciprocal-then-multiply division;
//   the test uses eps = 2e-6 (the composition of two 4-term dot products, ~8 u, with
//   margin) and keeps |w| >= 0.5 by construction.

import CellMotion
import CellMotionKernel
import Testing
import _TestSupport

// MARK: - Scalar reference (Double, row-vector convention)

/// out = a * b for 16-element row-major 4x4 matrices; also the magnitude sum per element.
private func referenceProduct(_ a: ArraySlice<Float>, _ b: [Float]) -> (value: [Double], magnitude: [Double]) {
  var value = [Double](repeating: 0, count: 16), magnitude = value
  let a0 = a.startIndex
  for r in 0..<4 {
    for c in 0..<4 {
      for k in 0..<4 {
        let t = Double(a[a0 + 4 * r + k]) * Double(b[4 * k + c])
        value[4 * r + c] += t
        magnitude[4 * r + c] += t.magnitude
      }
    }
  }
  return (value, magnitude)
}

/// One corner: p = (x, y, 0, 1); returns (x'/w', y'/w', z'/w') and the error scales.
private struct ReferenceCorner {
  var x: Double, y: Double, z: Double, w: Double
  var magX: Double, magY: Double, magZ: Double, magW: Double
}

private func referenceProject(
  x: Float, y: Float, matrix m: ArraySlice<Float>, viewProjection v: [Float]
) -> ReferenceCorner {
  let m0 = m.startIndex
  let p: [Double] = [Double(x), Double(y), 0, 1]
  var q = [Double](repeating: 0, count: 4), qMag = q
  for k in 0..<4 {
    for j in 0..<4 {
      let t = p[j] * Double(m[m0 + 4 * j + k])
      q[k] += t
      qMag[k] += t.magnitude
    }
  }
  var h = [Double](repeating: 0, count: 4), hMag = h
  for c in 0..<4 {
    for k in 0..<4 {
      h[c] += q[k] * Double(v[4 * k + c])
      hMag[c] += qMag[k] * Double(v[4 * k + c]).magnitude
    }
  }
  return ReferenceCorner(
    x: h[0] / h[3], y: h[1] / h[3], z: h[2] / h[3], w: h[3],
    magX: hMag[0], magY: hMag[1], magZ: hMag[2], magW: hMag[3])
}

// MARK: - Inputs

private let sizes = [0, 1, 3, 7, 9, 1023]
private let unitRoundoff = 0x1p-24

private func randomMatrices(_ count: Int, _ rng: inout SeededGenerator) -> [Float] {
  (0..<(16 * count)).map { _ in Float(rng.uniform(-2...2)) }
}

/// Cell matrices for projection: in-plane affine part random, a small z tilt
/// (|m13|, |m23| <= 0.2) and z offset (|m43| <= 50), so with corners in [0, 400] and
/// V's m34 = -1/500 every w' stays in [0.5, 1.5].
private func projectionMatrices(_ count: Int, _ rng: inout SeededGenerator) -> [Float] {
  var out: [Float] = []
  out.reserveCapacity(16 * count)
  for _ in 0..<count {
    let row0 = [rng.uniform(-1.5...1.5), rng.uniform(-1.5...1.5), rng.uniform(-0.2...0.2), 0]
    let row1 = [rng.uniform(-1.5...1.5), rng.uniform(-1.5...1.5), rng.uniform(-0.2...0.2), 0]
    let row2 = [rng.uniform(-1...1), rng.uniform(-1...1), rng.uniform(0.5...1.5), 0]
    let row3 = [rng.uniform(-300...300), rng.uniform(-300...300), rng.uniform(-50...50), 1]
    out += (row0 + row1 + row2 + row3).map { Float($0) }
  }
  return out
}

/// A perspective view-projection: scale and offset in the plane, m34 = -1/500.
private func viewProjectionMatrix(_ rng: inout SeededGenerator) -> [Float] {
  let s = rng.uniform(0.5...2), tx = rng.uniform(-100...100), ty = rng.uniform(-100...100)
  let v: [Double] = [s, 0, 0, 0, 0, s, 0, 0, 0, 0, 1, -1.0 / 500, tx, ty, 0, 1]
  return v.map { Float($0) }
}

private let identity16: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

/// Scratch sized for the backend (empty for .simd).
private func scratchFor(_ count: Int, _ backend: StageBackend) -> [Float] {
  [Float](repeating: .nan, count: MatrixStages.projectionScratchCount(count: count, backend: backend))
}

private let sentinel = Float(bitPattern: 0x7FC0_1234)  // a quiet NaN with a payload
private let padding = 5  // extra output floats that must stay untouched

private func untouched(_ buffer: [Float], from start: Int) -> Bool {
  buffer[start...].allSatisfy { $0.bitPattern == sentinel.bitPattern }
}

// MARK: - composeWithParent

@Suite("MatrixStages.composeWithParent")
struct ComposeWithParentTests {
  @Test("matches the Double reference", arguments: StageBackend.available, sizes)
  func matchesReference(backend: StageBackend, count: Int) throws {
    var rng = SeededGenerator(seed: 0xC0FF_EE00 &+ UInt64(count))
    let m = randomMatrices(count, &rng)
    let p = randomMatrices(1, &rng)
    var out = [Float](repeating: sentinel, count: 16 * count + padding)
    try m.withUnsafeBufferPointer { m in
      try p.withUnsafeBufferPointer { p in
        try out.withUnsafeMutableBufferPointer { o in
          try MatrixStages.composeWithParent(m, count: count, parent: p, into: o, backend: backend)
        }
      }
    }
    var worst = ErrorTracker("compose \(backend) n=\(count) (relative to magnitude)", tolerance: 1e-6)
    for i in 0..<count {
      let ref = referenceProduct(m[(16 * i)..<(16 * i + 16)], p)
      for e in 0..<16 {
        let scale = max(ref.magnitude[e], .leastNormalMagnitude)
        worst.record((Double(out[16 * i + e]) - ref.value[e]) / scale, 0, "cell \(i) element \(e)")
      }
    }
    #expect(count == 0 || worst.passed, "\(worst); seed \(rng.seed)")
    #expect(untouched(out, from: 16 * count), "wrote past 16 * count")
  }

  @Test("identity parent leaves the input unchanged (bit for bit)", arguments: StageBackend.available)
  func identityParent(backend: StageBackend) throws {
    var rng = SeededGenerator(seed: 7)
    let m = randomMatrices(9, &rng)
    var out = [Float](repeating: 0, count: m.count)
    try m.withUnsafeBufferPointer { m in
      try identity16.withUnsafeBufferPointer { p in
        try out.withUnsafeMutableBufferPointer { o in
          try MatrixStages.composeWithParent(m, count: 9, parent: p, into: o, backend: backend)
        }
      }
    }
    // Every product is by 1 or 0 and every sum adds exact zeros: no rounding at all.
    #expect(out.map(\.bitPattern) == m.map(\.bitPattern))
  }

  @Test("a translation parent adds to m41 m42 m43 of affine cells", arguments: StageBackend.available)
  func translationParent(backend: StageBackend) throws {
    var rng = SeededGenerator(seed: 11)
    let count = 7
    var m = randomMatrices(count, &rng)
    for i in 0..<count {  // make each cell affine: m14 = m24 = m34 = 0, m44 = 1
      m[16 * i + 3] = 0; m[16 * i + 7] = 0; m[16 * i + 11] = 0; m[16 * i + 15] = 1
    }
    let t: [Float] = [12.5, -40.25, 3]
    var p = identity16
    p[12] = t[0]; p[13] = t[1]; p[14] = t[2]
    var out = [Float](repeating: 0, count: m.count)
    try m.withUnsafeBufferPointer { m in
      try p.withUnsafeBufferPointer { p in
        try out.withUnsafeMutableBufferPointer { o in
          try MatrixStages.composeWithParent(m, count: count, parent: p, into: o, backend: backend)
        }
      }
    }
    // One rounding (the final add): within u of the result.
    var worst = ErrorTracker("translation parent", tolerance: unitRoundoff)
    for i in 0..<count {
      for e in 0..<16 {
        let expected = e >= 12 && e < 15 ? Double(m[16 * i + e]) + Double(t[e - 12]) : Double(m[16 * i + e])
        worst.record((Double(out[16 * i + e]) - expected) / max(abs(expected), 1), 0, "cell \(i) e \(e)")
      }
    }
    #expect(worst.passed, "\(worst)")
  }

  @Test("composition order is CATransform3DConcat(cell, parent)")
  func order() throws {
    // Cell: scale x by 2. Parent: translate x by 10. Cell first: (1, 0) -> (2, 0) -> (12, 0),
    // so m41 = 10 (not 20, which the other order would give) and m11 = 2.
    let cell: [Float] = [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    var parent = identity16
    parent[12] = 10
    for backend in StageBackend.available {
      var out = [Float](repeating: 0, count: 16)
      try cell.withUnsafeBufferPointer { c in
        try parent.withUnsafeBufferPointer { p in
          try out.withUnsafeMutableBufferPointer { o in
            try MatrixStages.composeWithParent(c, count: 1, parent: p, into: o, backend: backend)
          }
        }
      }
      #expect(abs(out[0] - 2) <= 1e-7 && abs(out[12] - 10) <= 1e-6, "\(backend): \(out)")
    }
  }

  @Test("validates sizes, count and overlap before writing")
  func validation() throws {
    let m = [Float](repeating: 1, count: 32)
    var out = [Float](repeating: 0, count: 32)
    m.withUnsafeBufferPointer { m in
      identity16.withUnsafeBufferPointer { p in
        out.withUnsafeMutableBufferPointer { o in
          #expect(throws: CellMotionError.bufferSize(field: "matrices", expected: 48, actual: 32)) {
            try MatrixStages.composeWithParent(m, count: 3, parent: p, into: o)
          }
          #expect(throws: CellMotionError.bufferSize(field: "parent", expected: 16, actual: 15)) {
            try MatrixStages.composeWithParent(
              m, count: 1, parent: UnsafeBufferPointer(rebasing: p[0..<15]), into: o)
          }
          #expect(throws: CellMotionError.bufferSize(field: "output", expected: 32, actual: 16)) {
            try MatrixStages.composeWithParent(
              m, count: 2, parent: p, into: UnsafeMutableBufferPointer(rebasing: o[0..<16]))
          }
          #expect(throws: CellMotionError.self) {
            try MatrixStages.composeWithParent(m, count: -1, parent: p, into: o)
          }
          // Zero cells: nothing to do, empty buffers accepted.
          for backend in StageBackend.available {
            #expect(throws: Never.self) {
              try MatrixStages.composeWithParent(
                UnsafeBufferPointer(start: nil, count: 0), count: 0, parent: p,
                into: UnsafeMutableBufferPointer(start: nil, count: 0), backend: backend)
            }
          }
        }
      }
    }
    // In place (output == matrices) is rejected.
    var shared = [Float](repeating: 1, count: 16)
    shared.withUnsafeMutableBufferPointer { s in
      identity16.withUnsafeBufferPointer { p in
        let error = #expect(throws: CellMotionError.self) {
          try MatrixStages.composeWithParent(UnsafeBufferPointer(s), count: 1, parent: p, into: s)
        }
        #expect(error == .invalidCombination(field: "output", reason: "must not overlap matrices"))
      }
    }
  }
}

// MARK: - projectCorners

@Suite("MatrixStages.projectCorners")
struct ProjectCornersTests {
  private func run(
    corners: [Float], matrices: [Float], count: Int, viewProjection: [Float],
    backend: StageBackend, withDepth: Bool
  ) throws -> (points: [Float], depth: [Float]) {
    var points = [Float](repeating: sentinel, count: 8 * count + padding)
    var depth = [Float](repeating: sentinel, count: 4 * count + padding)
    var scratch = scratchFor(count, backend)
    try corners.withUnsafeBufferPointer { c in
      try matrices.withUnsafeBufferPointer { m in
        try viewProjection.withUnsafeBufferPointer { v in
          try points.withUnsafeMutableBufferPointer { o in
            try depth.withUnsafeMutableBufferPointer { d in
              try scratch.withUnsafeMutableBufferPointer { s in
                try MatrixStages.projectCorners(
                  c, matrices: m, count: count, viewProjection: v, into: o,
                  depth: withDepth ? d : nil, scratch: s, backend: backend)
              }
            }
          }
        }
      }
    }
    return (points, depth)
  }

  @Test(
    "matches the Double reference", arguments: StageBackend.available, sizes)
  func matchesReference(backend: StageBackend, count: Int) throws {
    for withDepth in [false, true] {
      var rng = SeededGenerator(seed: 0x5EED_0000 &+ UInt64(count))
      let m = projectionMatrices(count, &rng)
      let c = (0..<(8 * count)).map { _ in Float(rng.uniform(0...400)) }
      let v = viewProjectionMatrix(&rng)
      let (points, depth) = try run(
        corners: c, matrices: m, count: count, viewProjection: v, backend: backend,
        withDepth: withDepth)
      let eps = 2e-6
      var worst = ErrorTracker("project \(backend) n=\(count) depth=\(withDepth) (in bound units)", tolerance: 1)
      for i in 0..<count {
        for k in 0..<4 {
          let r = referenceProject(
            x: c[8 * i + 2 * k], y: c[8 * i + 2 * k + 1],
            matrix: m[(16 * i)..<(16 * i + 16)], viewProjection: v)
          #expect(abs(r.w) >= 0.5)
          func bound(_ value: Double, _ mag: Double) -> Double {
            eps * (mag + abs(value) * r.magW) / abs(r.w) + 3 * unitRoundoff * abs(value)
          }
          worst.record(abs(Double(points[8 * i + 2 * k]) - r.x) / bound(r.x, r.magX), 0, "cell \(i) corner \(k) x")
          worst.record(abs(Double(points[8 * i + 2 * k + 1]) - r.y) / bound(r.y, r.magY), 0, "cell \(i) corner \(k) y")
          if withDepth {
            worst.record(
              abs(Double(depth[4 * i + k]) - r.z) / max(bound(r.z, r.magZ), 1e-30), 0, "cell \(i) corner \(k) z")
          }
        }
      }
      #expect(count == 0 || worst.passed, "\(worst); seed \(rng.seed)")
      #expect(untouched(points, from: 8 * count), "wrote past 8 * count points")
      #expect(untouched(depth, from: withDepth ? 4 * count : 0), "depth written past its end or without asking")
    }
  }

  @Test("perspective m34 = -1/500 leaves points at z = 0 unchanged", arguments: StageBackend.available)
  func planeUnchanged(backend: StageBackend) throws {
    var v = identity16
    v[11] = -1.0 / 500
    let count = 3
    let m = Array([[Float]](repeating: identity16, count: count).joined())
    let c: [Float] = (0..<(8 * count)).map { Float($0 * 37 % 401) - 100.5 }
    let (points, depth) = try run(
      corners: c, matrices: m, count: count, viewProjection: v, backend: backend, withDepth: true)
    var worst = ErrorTracker("z = 0 plane", tolerance: 2 * unitRoundoff)
    for e in 0..<(8 * count) {
      worst.record((Double(points[e]) - Double(c[e])) / max(abs(Double(c[e])), 1), 0, "element \(e)")
    }
    #expect(worst.passed, "\(worst)")
    #expect(depth[0..<(4 * count)].allSatisfy { abs($0) <= 1e-7 }, "\(depth)")
  }

  @Test("a point pushed to z = 250 with d = 500 is magnified twice", arguments: StageBackend.available)
  func magnified(backend: StageBackend) throws {
    var v = identity16
    v[11] = -1.0 / 500
    var m = identity16
    m[14] = 250  // m43: w = 1 - 250/500 = 0.5
    let c: [Float] = [10, 20, -30, 40, 0, 0, 123.25, -7.5]
    let (points, depth) = try run(
      corners: c, matrices: m, count: 1, viewProjection: v, backend: backend, withDepth: true)
    for e in 0..<8 {
      #expect(abs(Double(points[e]) - 2 * Double(c[e])) <= 1e-5 * max(1, abs(2 * Double(c[e]))), "\(e): \(points[e])")
    }
    for k in 0..<4 { #expect(abs(depth[k] - 500) <= 1e-3, "z/w = 250/0.5") }
  }

  @Test("validates sizes and overlap; zero cells accepted")
  func validation() throws {
    var points = [Float](repeating: 0, count: 16)
    let c = [Float](repeating: 1, count: 16), m = [Float](repeating: 0, count: 32)
    try c.withUnsafeBufferPointer { c in
      try m.withUnsafeBufferPointer { m in
        try identity16.withUnsafeBufferPointer { v in
          try points.withUnsafeMutableBufferPointer { o in
            if StageBackend.blas.isAvailable {
              #expect(throws: CellMotionError.bufferSize(field: "scratch", expected: 64, actual: 0)) {
                try MatrixStages.projectCorners(
                  c, matrices: m, count: 2, viewProjection: v, into: o, backend: .blas)
              }
            }
            #expect(throws: CellMotionError.bufferSize(field: "corners", expected: 24, actual: 16)) {
              try MatrixStages.projectCorners(c, matrices: m, count: 3, viewProjection: v, into: o)
            }
            #expect(throws: CellMotionError.bufferSize(field: "depth", expected: 8, actual: 4)) {
              try MatrixStages.projectCorners(
                c, matrices: m, count: 2, viewProjection: v, into: o,
                depth: UnsafeMutableBufferPointer(rebasing: o[12..<16]))
            }
            #expect(throws: CellMotionError.invalidCombination(field: "depth", reason: "must not overlap points")) {
              try MatrixStages.projectCorners(
                c, matrices: m, count: 1, viewProjection: v,
                into: UnsafeMutableBufferPointer(rebasing: o[0..<8]),
                depth: UnsafeMutableBufferPointer(rebasing: o[6..<10]))
            }
            for backend in StageBackend.available {
              try MatrixStages.projectCorners(
                UnsafeBufferPointer(start: nil, count: 0), matrices: UnsafeBufferPointer(start: nil, count: 0),
                count: 0, viewProjection: v, into: UnsafeMutableBufferPointer(start: nil, count: 0),
                backend: backend)
            }
          }
        }
      }
    }
  }
}

@Suite("The BLAS trait")
struct BLASTraitTests {
  /// Built with the BLAS trait (the default), `.blas` runs and matches `.simd`; built
  /// without it (`--disable-default-traits`), `.blas` is a typed error naming the trait and
  /// `.simd` still runs.
  @Test(".blas runs with the trait and is a typed error without it; .simd always runs")
  func blasTrait() throws {
    #expect(StageBackend.simd.isAvailable)
    #if BLAS
      #expect(StageBackend.blas.isAvailable)
      #expect(StageBackend.available == [.simd, .blas])
    #else
      #expect(!StageBackend.blas.isAvailable)
      #expect(StageBackend.available == [.simd])
    #endif
    let m = [Float](repeating: 0.5, count: 32), p = identity16
    var simd = [Float](repeating: 0, count: 32), blas = [Float](repeating: 0, count: 32)
    try m.withUnsafeBufferPointer { m in
      try p.withUnsafeBufferPointer { p in
        try simd.withUnsafeMutableBufferPointer { o in
          try MatrixStages.composeWithParent(m, count: 2, parent: p, into: o, backend: .simd)
        }
        try blas.withUnsafeMutableBufferPointer { o in
          if StageBackend.blas.isAvailable {
            try MatrixStages.composeWithParent(m, count: 2, parent: p, into: o, backend: .blas)
          } else {
            #expect(throws: CellMotionError.self) {
              try MatrixStages.composeWithParent(m, count: 2, parent: p, into: o, backend: .blas)
            }
          }
        }
      }
    }
    #expect(simd == m)
    #expect(blas == (StageBackend.blas.isAvailable ? m : [Float](repeating: 0, count: 32)))
  }
}
