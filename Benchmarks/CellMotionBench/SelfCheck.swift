// --verify: checks the measuring instruments before trusting their numbers.
// 1. _AllocCounter counts (a direct malloc, and a Swift array allocated by libswiftCore).
// 2. The stages (both backends) match a Double reference and allocate nothing per call.
// 3. The GLM baseline matches the tip-in channel math in Double (TipInReference).
// 4. The Float reference matches ReferenceEvaluator on every preset (what its ratio means).

import CellMotion
import CellMotionKernel
import _AllocCounter
import _GLMBaseline

#if canImport(Glibc)
  import Glibc
#endif

enum SelfCheck {
  static func report(_ name: String, _ passed: Bool, _ detail: String) -> Bool {
    print("\(passed ? "PASS" : "FAIL")  \(name): \(detail)")
    return passed
  }

  static func runAll() -> Bool {
    var ok = true
    ok = allocationCounter() && ok
    ok = stages() && ok
    ok = glmBaseline() && ok
    ok = floatReference() && ok
    print(ok ? "all self-checks passed" : "SELF-CHECK FAILED")
    return ok
  }

  // MARK: 1. Allocation counter

  @inline(never)
  static func makeArray(_ n: Int) -> [Int] { [Int](repeating: 7, count: n) }

  static func allocationCounter() -> Bool {
    let c0 = cm_alloc_count()
    let raw = malloc(64)
    let c1 = cm_alloc_count()
    blackHole(raw)  // else the optimiser removes the malloc / free pair
    free(raw)
    blackHole(makeArray(1000))  // first use instantiates metadata (more allocations)
    let a0 = cm_alloc_count()
    let array = makeArray(1000)
    blackHole(array)
    let a1 = cm_alloc_count()
    let direct = report("alloc counter (malloc)", c1 - c0 == 1, "malloc(64) counted \(c1 - c0) (want 1)")
    let swift = report(
      "alloc counter (Swift array via libswiftCore)", a1 - a0 == 1,
      "[Int](repeating:count: 1000) counted \(a1 - a0) (want 1: the array buffer)")
    return direct && swift
  }

  // MARK: 2. Stages

  static func stages() -> Bool {
    var ok = true
    let n = 1023
    let matrices = FloatBuffer(count: 16 * n)
    StageScenarios.fillMatrices(matrices, seed: 11)
    let parent = FloatBuffer(count: 16)
    StageScenarios.fillMatrices(parent, seed: 12)
    var rng = BenchRandom(seed: 13)
    let corners = FloatBuffer(count: 8 * n) { _ in rng.float(0, 400) }
    let view = FloatBuffer(count: 16) { StageScenarios.viewProjection[$0] }
    let m = matrices.readOnly, p = parent.readOnly, v = view.readOnly, c = corners.readOnly

    // Double references.
    var composeRef = [Double](repeating: 0, count: 16 * n), composeMag = composeRef
    var projectRef = [Double](repeating: 0, count: 8 * n), projectScale = projectRef
    for i in 0..<n {
      for r in 0..<4 {
        for col in 0..<4 {
          for k in 0..<4 {
            let t = Double(m[16 * i + 4 * r + k]) * Double(p[4 * k + col])
            composeRef[16 * i + 4 * r + col] += t
            composeMag[16 * i + 4 * r + col] += abs(t)
          }
        }
      }
      for corner in 0..<4 {
        let point = [Double(c[8 * i + 2 * corner]), Double(c[8 * i + 2 * corner + 1]), 0, 1]
        var q = [Double](repeating: 0, count: 4), h = q, qMag = q, hMag = q
        for k in 0..<4 {
          for j in 0..<4 {
            q[k] += point[j] * Double(m[16 * i + 4 * j + k])
            qMag[k] += abs(point[j] * Double(m[16 * i + 4 * j + k]))
          }
        }
        for col in 0..<4 {
          for k in 0..<4 {
            h[col] += q[k] * Double(v[4 * k + col])
            hMag[col] += qMag[k] * abs(Double(v[4 * k + col]))
          }
        }
        for axis in 0..<2 {
          let x = h[axis] / h[3]
          projectRef[8 * i + 2 * corner + axis] = x
          // Error scale: magnitudes of the sums behind numerator and w (see StagesTests).
          projectScale[8 * i + 2 * corner + axis] = (hMag[axis] + abs(x) * hMag[3]) / abs(h[3])
        }
      }
    }

    for engine in StageEngine.all {
      let backend = engine.variant, sgemm = engine.sgemm
      let out = FloatBuffer(count: 16 * n)
      // A first call instantiates type metadata once in unoptimised builds; count the second.
      try? MatrixStages.composeWithParent(m, count: n, parent: p, into: out.pointer, sgemm: sgemm)
      let a0 = cm_alloc_count()
      do {
        try MatrixStages.composeWithParent(m, count: n, parent: p, into: out.pointer, sgemm: sgemm)
      } catch { return report("compose \(backend)", false, "threw \(error)") }
      let allocs = cm_alloc_count() - a0
      var worst = 0.0
      for e in 0..<(16 * n) {
        worst = max(worst, abs(Double(out.pointer[e]) - composeRef[e]) / max(composeMag[e], 1e-30))
      }
      ok =
        report(
          "compose \(backend) N=\(n)", worst <= 1e-6 && allocs == 0,
          "max error / magnitude \(worst) (tolerance 1e-6), allocations per call (second call) \(allocs)") && ok

      let points = FloatBuffer(count: 8 * n)
      let scratch = FloatBuffer(count: MatrixStages.projectionScratchCount(count: n, backend: engine.backend))
      try? MatrixStages.projectCorners(
        c, matrices: m, count: n, viewProjection: v, into: points.pointer,
        scratch: scratch.pointer, sgemm: sgemm)
      let b0 = cm_alloc_count()
      do {
        try MatrixStages.projectCorners(
          c, matrices: m, count: n, viewProjection: v, into: points.pointer,
          scratch: scratch.pointer, sgemm: sgemm)
      } catch { return report("project \(backend)", false, "threw \(error)") }
      let projectAllocs = cm_alloc_count() - b0
      var worstPoint = 0.0
      for e in 0..<(8 * n) {
        worstPoint = max(worstPoint, abs(Double(points.pointer[e]) - projectRef[e]) / projectScale[e])
      }
      ok =
        report(
          "project \(backend) N=\(n)", worstPoint <= 2e-6 && projectAllocs == 0,
          "max error / magnitude \(worstPoint) (tolerance 2e-6), allocations per call (second call) \(projectAllocs)")
        && ok
    }
    return ok
  }

  // MARK: 3. GLM baseline

  static func glmBaseline() -> Bool {
    // Start times over [-0.1, 0.9] s at time 0.5: before the start, mid-flight and done.
    let n = 4096
    let time: Float = 0.5
    var rng = BenchRandom(seed: 21)
    let start = FloatBuffer(count: n) { i in i < 2 ? [0.5, 0.1][i] : rng.float(-0.1, 0.9) }
    let width = FloatBuffer(count: n) { _ in rng.float(320, 430) }
    let height = FloatBuffer(count: n) { _ in rng.float(44, 120) }
    let matrices = FloatBuffer(count: 16 * n), opacity = FloatBuffer(count: n)
    cm_glm_tipin(
      Int32(n), start.pointer.baseAddress, width.pointer.baseAddress, height.pointer.baseAddress,
      time, matrices.pointer.baseAddress, opacity.pointer.baseAddress)

    var linear = 0.0, translation = 0.0, constant = 0.0, alpha = 0.0
    for i in 0..<n {
      let ref = TipInReference.cell(
        startTime: Double(start.pointer[i]), width: Double(width.pointer[i]),
        height: Double(height.pointer[i]), time: Double(time))
      for e in 0..<16 {
        let error = abs(Double(matrices.pointer[16 * i + e]) - ref.matrix[e])
        switch e {
        case 0, 1, 4, 5: linear = max(linear, error)
        case 12, 13: translation = max(translation, error)
        default: constant = max(constant, error)
        }
      }
      alpha = max(alpha, abs(Double(opacity.pointer[i]) - ref.opacity))
    }
    // Tolerances: the GLM solver stops at |x(s) - x| < 1e-6, so p is off by up to
    // ~2e-6 (the curve's slope is at most ~1.7); Float matrices round at ~6e-8 relative.
    // Rotation entries: 0.26 rad x 2e-6 plus rounding -> 1e-5. Translation (m41, m42):
    // anchor up to 215 pt x angle error + 20 pt x p error + rounding -> 1e-3 pt.
    let passed = linear <= 1e-5 && translation <= 1e-3 && constant <= 1e-6 && alpha <= 1e-5
    return report(
      "GLM tip-in vs Swift Double (N=\(n), t=\(time) s)", passed,
      "max |error|: m11 m12 m21 m22 \(linear) (tol 1e-5), m41 m42 \(translation) pt (tol 1e-3), "
        + "other entries \(constant) (tol 1e-6), opacity \(alpha) (tol 1e-5)")
  }

  // MARK: 4. Float reference

  static func floatReference() -> Bool {
    var ok = true
    let n = 1023
    for recipe in Recipe.presets {
      guard FloatReference.supports(recipe) else {
        print("SKIP  Float reference vs ReferenceEvaluator, \(recipe.name): keyframe tracks are not in the Float port")
        continue
      }
      guard let (_, cells) = try? KernelScenarios.makeInputs(recipe, n),
        var reference = try? FloatReference(recipe)
      else { return report("Float reference \(recipe.name)", false, "could not build the inputs") }
      reference.staggerCounts.rows = n
      var worstMatrix = 0.0, worstOpacity = 0.0
      for time in [0.05, 0.3, 0.5, 0.9, 1.6] {
        for i in 0..<n {
          let f = reference.cell(
            start: cells.start[i], row: cells.row[i], batchPosition: cells.batchPosition[i],
            width: cells.width[i], height: cells.height[i], tableWidth: cells.tableWidth[i],
            detailHeight: cells.detailHeight[i], time: Float(time))
          let geometry = CellGeometry(
            width: Double(cells.width[i]), height: Double(cells.height[i]),
            tableWidth: Double(cells.tableWidth[i]), detailHeight: Double(cells.detailHeight[i]))
          let d = ReferenceEvaluator.evaluate(
            recipe, geometry: geometry, row: cells.row[i], batchPosition: cells.batchPosition[i], rowCount: n,
            batchCount: 16, startTime: Double(cells.start[i]), time: time)
          // Entries normalised by the cell's size (translations are in points).
          let scale = max(geometry.width, geometry.height)
          for k in 0..<16 {
            let e = abs(Double(f.matrix.m[k]) - d.transform[k / 4, k % 4])
            worstMatrix = max(worstMatrix, k >= 12 ? e / scale : e)
          }
          worstOpacity = max(worstOpacity, abs(Double(f.opacity) - d.opacity))
          if let ff = f.fold, let df = d.fold {
            for k in 0..<16 {
              let et = abs(Double(ff.top.m[k]) - df.top[k / 4, k % 4])
              let eb = abs(Double(ff.bottom.m[k]) - df.bottom[k / 4, k % 4])
              worstMatrix = max(worstMatrix, k >= 12 ? max(et, eb) / scale : max(et, eb))
            }
            worstOpacity = max(worstOpacity, abs(Double(ff.shadow) - df.topShadowOpacity))
          } else if (f.fold == nil) != (d.fold == nil) {
            worstMatrix = .infinity
          }
        }
      }
      // Float rounding of ~10 products and the 1e-6 Bezier stop: 2e-5 as for the kernel.
      let passed = worstMatrix <= 2e-5 && worstOpacity <= 1e-5 && worstMatrix.isFinite
      ok = report(
        "Float reference vs ReferenceEvaluator, \(recipe.name)", passed,
        "max |error| matrix \(worstMatrix) (normalised, tol 2e-5), opacity \(worstOpacity) (tol 1e-5)") && ok
    }
    return ok
  }
}
