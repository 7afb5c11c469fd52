// Kernel: evaluates a whole CellBatch at one frame time into a FrameOutput.
//
// Goals, in priority order: (1) agree with the scalar reference (ReferenceEvaluator)
// within the stated tolerances; (2) allocate nothing per frame; (3) speed: SIMD8 lanes
// (AVX2 with -target-cpu haswell), runs of one recipe with constants broadcast, cores for
// large batches.

import CellMotion
import Dispatch
import Foundation
import _CellMotionShims

/// Lane width used by the kernel.
public enum LaneWidth: String, Sendable, CaseIterable, Codable {
  /// SIMD8<Float> (8 lanes; one ymm register with AVX2).
  case simd8
  /// SIMD4<Float> (4 lanes; SSE).
  case simd4
  /// The same kernel code on plain Float (one lane): the scalar-Float baseline.
  case scalar

  /// SIMD8: one ymm register per vector when built for AVX2 (-target-cpu haswell), two
  /// SSE registers otherwise (still correct, and measured no slower than SIMD4 there).
  public static var preferred: LaneWidth { .simd8 }
}

/// Options for one evaluation.
public struct KernelOptions: Sendable {
  public var lanes: LaneWidth
  /// Worker threads for large batches, 1...`maxThreads`; 1 evaluates on the calling
  /// thread. Results are bit-identical for any value.
  public var threads: Int
  /// Batches smaller than this many cells (>= 0) run on one thread (spawning costs more
  /// than it saves below it: ~16k cells measured at about 50 us of work); 0 always splits.
  public var parallelThreshold: Int
  /// Most worker threads an evaluation uses: 64. More only adds scheduling: the batch is
  /// split into 4 chunks per thread (at most 256 chunks of 8-cell groups).
  public static let maxThreads = 64
  public init(lanes: LaneWidth = .preferred, threads: Int = 1, parallelThreshold: Int = 16_384) {
    self.lanes = lanes
    self.threads = threads
    self.parallelThreshold = parallelThreshold
  }
  /// All cores of the machine (at most `maxThreads`), SIMD8 where available.
  public static var allCores: KernelOptions {
    KernelOptions(threads: min(maxThreads, max(1, ProcessInfo.processInfo.activeProcessorCount)))
  }

  /// Throws `CellMotionError.outOfRange` naming the field unless `threads` is in
  /// 1...`maxThreads` and `parallelThreshold >= 0` (`Kernel.evaluate` checks this).
  package func validate() throws(CellMotionError) {
    guard threads >= 1, threads <= Self.maxThreads else {
      throw .outOfRange(field: "threads", value: Double(threads), expected: "in [1, \(Self.maxThreads)]")
    }
    guard parallelThreshold >= 0 else {
      throw .outOfRange(field: "parallelThreshold", value: Double(parallelThreshold), expected: ">= 0")
    }
  }
}

/// The batch evaluator.
public enum Kernel {
  /// Evaluates every cell of `batch` at `time` (absolute seconds, same clock as the start
  /// times given to `append`) into `output`.
  ///
  /// Validation happens here, once: the time must be in `InputLimits.time` and within
  /// `CellBatch.precisionWindow` (16 s) of the batch's `timeOrigin` (beyond it the Float
  /// local times lose the precision the stated tolerances need, so the kernel throws
  /// rather than returning wrong values: rebase the batch), `output` must have room for
  /// the batch, `options` must be in range (`KernelOptions.maxThreads`), if a recipe
  /// folds `output` must include fold buffers, and an `.affine2D` output takes only
  /// recipes that stay affine (`CompiledRecipe.isPlanar`). The inner loop is unchecked.
  /// - Complexity: O(count); no heap allocation on one thread.
  public static func evaluate(
    _ batch: CellBatch, at time: Double, into output: inout FrameOutput, options: KernelOptions = .init()
  ) throws(CellMotionError) {
    try Check.time(time, "time")
    guard batch.isWithinPrecisionWindow(time) else {
      throw .outOfRange(
        field: "time - batch.timeOrigin", value: time - batch.timeOrigin,
        expected: "within +-\(Int(CellBatch.precisionWindow)) s (the kernel's Float times lose precision "
          + "beyond it; call CellBatch.rebase(to:) with a time near the frame time)")
    }
    guard output.capacity >= batch.count else {
      throw .bufferSize(field: "FrameOutput capacity", expected: batch.count, actual: output.capacity)
    }
    try options.validate()
    if !output.includesFold, batch.recipes.contains(where: { $0.fold != nil }) {
      throw .invalidCombination(field: "FrameOutput", reason: "a recipe folds but the output has no fold buffers")
    }
    let affine = output.layout == .affine2D
    if affine, let r = batch.recipes.first(where: { !$0.isPlanar }) {
      throw .invalidCombination(
        field: "FrameOutput.layout",
        reason: "recipe \(r.recipe.name) is not affine (perspective, rotation about x or y, or z translation); "
          + "use the transform3D layout")
    }
    let n = batch.count
    output.count = n
    guard n > 0 else { return }
    let t = Float(time - batch.timeOrigin)
    let recipes = batch.recipes
    let includeCorners = output.includesCorners
    batch.start.withUnsafeBufferPointer { st in
      batch.width.withUnsafeBufferPointer { wi in
        batch.height.withUnsafeBufferPointer { he in
          batch.tableWidth.withUnsafeBufferPointer { tw in
            batch.detailHeight.withUnsafeBufferPointer { dh in
              batch.recipeIndex.withUnsafeBufferPointer { ri in
                output.matrices.withUnsafeMutableBufferPointer { mo in
                  output.opacity.withUnsafeMutableBufferPointer { op in
                    output.shadowOpacity.withUnsafeMutableBufferPointer { so in
                      output.foldTop.withUnsafeMutableBufferPointer { ft in
                        output.foldBottom.withUnsafeMutableBufferPointer { fb in
                          output.foldShadow.withUnsafeMutableBufferPointer { fs in
                            output.corners.withUnsafeMutableBufferPointer { co in
                              let inputs = KernelInputs(
                                start: st.baseAddress!, width: wi.baseAddress!, height: he.baseAddress!,
                                tableWidth: tw.baseAddress!, detailHeight: dh.baseAddress!)
                              let outputs = KernelOutputs(
                                matrices: mo.baseAddress!, opacity: op.baseAddress!, shadow: so.baseAddress!,
                                foldTop: ft.baseAddress, foldBottom: fb.baseAddress, foldShadow: fs.baseAddress,
                                corners: includeCorners ? co.baseAddress : nil, affine: affine)
                              let index = ri.baseAddress!
                              let threads = n >= options.parallelThreshold ? options.threads : 1
                              if threads == 1 {
                                evaluateRange(
                                  0..<n, recipes: recipes, recipeIndex: index, t: t, inputs: inputs, outputs: outputs,
                                  lanes: options.lanes)
                              } else if threads == 2, PairWorker.shared.tryStart(
                                0..<n, recipes: recipes, recipeIndex: index, t: t, inputs: inputs, outputs: outputs,
                                lanes: options.lanes)
                              {
                                // Two threads: the calling thread takes the first half, the
                                // persistent worker the second (no allocation per frame).
                                evaluateRange(
                                  0..<PairWorker.split(n), recipes: recipes, recipeIndex: index, t: t, inputs: inputs,
                                  outputs: outputs, lanes: options.lanes)
                                PairWorker.shared.finish()
                              } else {
                                // Chunks aligned to 8 cells; each cell's arithmetic is the same
                                // whatever chunk it falls in, so results are bit-identical.
                                // threads <= maxThreads (validated) so chunks <= 256, and
                                // ceil(n / chunks) is taken without forming n + chunks - 1:
                                // no step can overflow for any count.
                                let chunks = threads * 4
                                let per = (n / chunks + (n % chunks == 0 ? 0 : 1) + 7) & ~7
                                let lanes = options.lanes
                                let ptr = UncheckedPointer(index)
                                DispatchQueue.concurrentPerform(iterations: chunks) { c in
                                  let lo = min(n, c * per), hi = min(n, lo + per)
                                  if lo < hi {
                                    evaluateRange(
                                      lo..<hi, recipes: recipes, recipeIndex: ptr.pointer, t: t, inputs: inputs,
                                      outputs: outputs, lanes: lanes)
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  /// The first index in `i ..< end` whose recipe index is not `value` (or `end`): four
  /// indices per 16-byte compare (a run is usually the whole batch).
  static func runEnd(_ index: UnsafePointer<Int32>, from i: Int, to end: Int, value: Int32) -> Int {
    var j = i
    let raw = UnsafeRawPointer(index)
    let v = SIMD4<Int32>(repeating: value)
    while j + 4 <= end {
      let x = raw.loadUnaligned(fromByteOffset: 4 * j, as: SIMD4<Int32>.self)
      // Equal lanes xor to zero; OR-reducing the four lanes as two 64-bit words.
      let d = unsafeBitCast(x ^ v, to: SIMD2<UInt64>.self)
      if d[0] | d[1] != 0 { break }
      j += 4
    }
    while j < end && index[j] == value { j += 1 }
    return j
  }

  /// Splits `range` into runs of one recipe and evaluates each at the chosen width.
  static func evaluateRange(
    _ range: Range<Int>, recipes: [CompiledRecipe], recipeIndex: UnsafePointer<Int32>, t: Float,
    inputs: KernelInputs, outputs: KernelOutputs, lanes: LaneWidth
  ) {
    var i = range.lowerBound
    while i < range.upperBound {
      let r = recipeIndex[i]
      // One recipe: the whole range is one run (indices are validated by `append`).
      let j = recipes.count == 1 ? range.upperBound : runEnd(recipeIndex, from: i + 1, to: range.upperBound, value: r)
      switch lanes {
      case .simd8:
        evaluateRun(SIMD8<Float>.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs)
      case .simd4:
        evaluateRun(SIMD4<Float>.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs)
      case .scalar:
        evaluateRun(Float.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs)
      }
      i = j
    }
  }

  /// Floats of per-frame stack scratch for one block (8 KiB, zeroed once per run of one
  /// recipe): every part's progress and the block's matrix entries in SoA form
  /// (`CompiledRecipe.blockCells`). On the stack because `withUnsafeTemporaryAllocation`
  /// goes to the heap above 1 KiB on Linux (`swift_stdlib_isStackAllocationSafe` answers
  /// false, measured).
  public static var scratchFloats: Int { 2048 }

  /// Evaluates cells `range`, all of recipe `r`, block by block (`CompiledRecipe.blockCells`
  /// cells, a multiple of 8), in stages that each run as a small loop over the block:
  /// 1. every part's progress (`progressStage`) into the stack scratch;
  /// 2. opacity and shadow opacity (`opacityStage`) straight to the outputs;
  /// 3. the matrices, in groups of `L.width` lanes, into the scratch: (a, b), (c, d),
  ///    (tx, ty) pair rows on the planar path, 16 SoA rows on the general one (fold halves
  ///    and corners, when present, stored per group);
  /// 4. one out-of-line pass per block from the scratch into `matrices`
  ///    (`storePlanarBlock`, `storeMatrixBlock`).
  /// Short loops with few live vectors keep everything in registers and let the processor
  /// overlap iterations (the Bezier solve is a chain of dependent steps; fused into one big
  /// group it left most of each group's latency exposed). A last partial group reads only
  /// its valid cells (padded lanes repeat the first) and writes only its valid cells.
  @inlinable
  static func evaluateRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    var scratch = InlineArray<2048, Float>(repeating: 0)
    let block = r.blockCells
    let planar = r.planarConstants
    var span = scratch.mutableSpan
    span.withUnsafeMutableBufferPointer { buffer in
      let base = buffer.baseAddress!
      let progress = StagedProgress(base: UnsafePointer(base), stride: block)
      let soa = base + r.parts.count * block
      var b = range.lowerBound
      while b < range.upperBound {
        let n = min(block, range.upperBound - b)
        for k in r.parts.indices {
          progressStage(L.self, r.parts[k], r, t: t, start: inputs.start + b, count: n, into: base + k * block)
        }
        opacityStage(
          L.self, r.opacityChannel, modelValue: 1, progress: progress, height: inputs.height + b,
          tableWidth: inputs.tableWidth + b, count: n, into: outputs.opacity + b)
        opacityStage(
          L.self, r.shadowChannel, modelValue: 0, progress: progress, height: inputs.height + b,
          tableWidth: inputs.tableWidth + b, count: n, into: outputs.shadow + b)
        if let planar {
          evaluatePlanarRun(
            L.self, r, planar, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
          if outputs.affine {
            storeAffineBlock(soa, stride: 2 * block, count: n, unpacked: L.pairsUnpacked, to: outputs.matrices + 6 * b)
          } else {
            storePlanarBlock(
              soa, stride: 2 * block, count: n, unpacked: L.pairsUnpacked, to: outputs.matrices + 16 * b)
          }
        } else {
          evaluateGeneralBlock(L.self, r, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
          storeMatrixBlock(soa, stride: block, count: n, to: outputs.matrices + 16 * b)
        }
        b += n
      }
    }
  }

  /// Stage 3 of a planar block (`CompiledRecipe.isPlanar`): cells `b ..< b + n`, the six
  /// varying entries as pair rows (a, b), (c, d), (tx, ty) of `soa`, 2 x `progress.stride`
  /// Floats each (`FloatLanes.storePairs`, read by `storePlanarBlock`).
  /// A function of its own so that the optimiser inlines the group into a small loop.
  @inlinable
  static func evaluatePlanarBlock<L: FloatLanes, S: PlanarShape>(
    _: L.Type, _: S.Type, _ r: CompiledRecipe, _ k: PlanarConstants, at b: Int, count n: Int,
    progress: StagedProgress, soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    var i = 0
    while i &+ L.width <= n {
      planarGroup(
        L.self, S.self, r, k, at: b, i, lanes: L.width, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
      i &+= L.width
    }
    if i < n {
      planarGroup(
        L.self, S.self, r, k, at: b, i, lanes: n &- i, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
    }
  }

  /// Stage 3 of a planar block with the shape picked for the recipe and outputs: the common
  /// recipes get a specialised loop (`MatrixPlanar`, `ChannelPlanar`), the rest `AnyPlanar`.
  @inlinable
  static func evaluatePlanarRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ k: PlanarConstants, at b: Int, count n: Int, progress: StagedProgress,
    soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    @inline(__always) func run<S: PlanarShape>(_ shape: S.Type) {
      evaluatePlanarBlock(
        L.self, S.self, r, k, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
    }
    let extras = r.fold != nil || outputs.corners != nil
    if !extras && !r.hasChannelTransform && k.part != nil {
      switch (k.smallAngle, k.hasRemainder, k.unitScale) {
      case (true, false, true): run(MatrixPlanar<Yes, No, Yes>.self)
      case (true, false, false): run(MatrixPlanar<Yes, No, No>.self)
      case (true, true, _): run(MatrixPlanar<Yes, Yes, No>.self)
      case (false, false, true): run(MatrixPlanar<No, No, Yes>.self)
      case (false, false, false): run(MatrixPlanar<No, No, No>.self)
      case (false, true, _): run(MatrixPlanar<No, Yes, No>.self)
      }
    } else if !extras && r.hasChannelTransform && k.part == nil {
      switch (k.smallRotationZ, r.translateFirst) {
      case (true, false): run(ChannelPlanar<Yes, No>.self)
      case (true, true): run(ChannelPlanar<Yes, Yes>.self)
      case (false, false): run(ChannelPlanar<No, No>.self)
      case (false, true): run(ChannelPlanar<No, Yes>.self)
      }
    } else {
      run(AnyPlanar.self)
    }
  }

  /// One planar group at the block's cell `i` (`lanes` valid cells; fewer than `L.width`
  /// only in a block's last group).
  @inlinable @inline(__always)
  static func planarGroup<L: FloatLanes, S: PlanarShape>(
    _: L.Type, _: S.Type, _ r: CompiledRecipe, _ k: PlanarConstants, at b: Int, _ i: Int, lanes: Int,
    progress: StagedProgress, soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let c = b &+ i, s = progress.stride
    let wi: L = loadGroup(inputs.width + c, lanes), he: L = loadGroup(inputs.height + c, lanes)
    let m = evaluatePlanarGroup(
      r, k, S.self, progress: progress, at: i, width: wi, height: he,
      tableWidth: loadGroup(inputs.tableWidth + c, lanes))
    // Pair rows (a, b), (c, d), (tx, ty), 2 s Floats each (`storePlanarBlock`).
    L.storePairs(m.a, m.b, to: soa + 2 * i)
    L.storePairs(m.c, m.d, to: soa + 2 * s + 2 * i)
    L.storePairs(m.tx, m.ty, to: soa + 4 * s + 2 * i)
    if S.extras ?? (r.fold != nil || outputs.corners != nil) {
      let z = L(repeating: 0), one = L(repeating: 1)
      let matrix = LaneMatrix<L>(linear: (m.a, m.b, z, m.c, m.d, z, z, z, one), translation: (m.tx, m.ty, z))
      groupExtras(r, matrix, at: b, i, lanes: lanes, progress: progress, width: wi, height: he, inputs: inputs,
        outputs: outputs)
    }
  }

  /// Stage 3 of a block on the general 4x4 path: cells `b ..< b + n`, the 16 entries as
  /// SoA rows of `soa`.
  @inlinable
  static func evaluateGeneralBlock<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, at b: Int, count n: Int, progress: StagedProgress,
    soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    var i = 0
    while i + L.width <= n {
      generalGroup(L.self, r, at: b, i, lanes: L.width, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
      i += L.width
    }
    if i < n {
      generalGroup(L.self, r, at: b, i, lanes: n - i, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
    }
  }

  /// One general group at the block's cell `i` (`lanes` valid cells).
  @inlinable @inline(__always)
  static func generalGroup<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, at b: Int, _ i: Int, lanes: Int, progress: StagedProgress,
    soa: UnsafeMutablePointer<Float>, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let c = b + i, s = progress.stride
    let wi: L = loadGroup(inputs.width + c, lanes), he: L = loadGroup(inputs.height + c, lanes)
    let m = evaluateGroup(
      r, progress: progress, at: i, width: wi, height: he, tableWidth: loadGroup(inputs.tableWidth + c, lanes)).m
    let q = soa + i
    m.0.store(to: q)
    m.1.store(to: q + s)
    m.2.store(to: q + 2 * s)
    m.3.store(to: q + 3 * s)
    m.4.store(to: q + 4 * s)
    m.5.store(to: q + 5 * s)
    m.6.store(to: q + 6 * s)
    m.7.store(to: q + 7 * s)
    m.8.store(to: q + 8 * s)
    m.9.store(to: q + 9 * s)
    m.10.store(to: q + 10 * s)
    m.11.store(to: q + 11 * s)
    m.12.store(to: q + 12 * s)
    m.13.store(to: q + 13 * s)
    m.14.store(to: q + 14 * s)
    m.15.store(to: q + 15 * s)
    if r.fold != nil || outputs.corners != nil {
      groupExtras(r, LaneMatrix(m), at: b, i, lanes: lanes, progress: progress, width: wi, height: he, inputs: inputs,
        outputs: outputs)
    }
  }

  /// The optional outputs of one group: fold halves (recipes with a fold) and projected
  /// corners (outputs that include them).
  @inlinable @inline(__always)
  static func groupExtras<L: FloatLanes>(
    _ r: CompiledRecipe, _ matrix: LaneMatrix<L>, at b: Int, _ i: Int, lanes: Int, progress: StagedProgress,
    width: L, height: L, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let c = b + i
    if let fold = r.fold {
      let f = evaluateFold(
        fold, progress: progress, at: i, width: width, detailHeight: loadGroup(inputs.detailHeight + c, lanes))
      storeFold(f, at: c, lanes: lanes, outputs: outputs)
    }
    if let co = outputs.corners { storeCorners(matrix, at: c, lanes: lanes, to: co, width: width, height: height) }
  }

  /// The four projected corners (0,0), (w,0), (0,h), (w,h) of `lanes` cells: p * M,
  /// divided by w; 8 Floats per cell. Out of line: optional output, kept away from the
  /// hot loops' register allocation.
  @usableFromInline @inline(never)
  static func storeCorners<L: FloatLanes>(
    _ matrix: LaneMatrix<L>, at i: Int, lanes: Int, to co: UnsafeMutablePointer<Float>, width: L, height: L
  ) {
    let m = matrix.m
    let x0 = m.12, y0 = m.13, w0 = m.15
    let xw = width * m.0, yw = width * m.1, ww = width * m.3
    let xh = height * m.4, yh = height * m.5, wh = height * m.7
    // w at or behind the eye (w <= 1e-6: Core Animation clips such points) is clamped to
    // 1e-6 so that the output stays finite.
    let eye = L(repeating: 1e-6)
    let wa = L.maximum(w0, eye), wb = L.maximum(w0 + ww, eye)
    let wc = L.maximum(w0 + wh, eye), wd = L.maximum(w0 + ww + wh, eye)
    let c = (
      x0 / wa, y0 / wa,
      (x0 + xw) / wb, (y0 + yw) / wb,
      (x0 + xh) / wc, (y0 + yh) / wc,
      (x0 + xw + xh) / wd, (y0 + yw + yh) / wd
    )
    for k in 0..<lanes {
      let p = co + 8 * (i + k)
      p[0] = c.0[lane: k]
      p[1] = c.1[lane: k]
      p[2] = c.2[lane: k]
      p[3] = c.3[lane: k]
      p[4] = c.4[lane: k]
      p[5] = c.5[lane: k]
      p[6] = c.6[lane: k]
      p[7] = c.7[lane: k]
    }
  }

  /// Writes `lanes` cells of a group's fold halves (the output has fold buffers: checked
  /// by `evaluate` before any recipe with a fold runs).
  @inlinable @inline(__always)
  static func storeFold<L: FloatLanes>(_ f: LaneFold<L>, at i: Int, lanes: Int, outputs: KernelOutputs) {
    guard let ft = outputs.foldTop, let fb = outputs.foldBottom, let fs = outputs.foldShadow else { return }
    storeMatrices(f.top, to: ft + 16 * i, lanes: lanes)
    storeMatrices(f.bottom, to: fb + 16 * i, lanes: lanes)
    for k in 0..<lanes { fs[i + k] = f.shadow[lane: k] }
  }

  /// SoA -> AoS: 16 lane vectors to `lanes` consecutive 64-byte matrices.
  @inlinable @inline(__always)
  static func storeMatrices<L: FloatLanes>(_ mat: LaneMatrix<L>, to p: UnsafeMutablePointer<Float>, lanes: Int) {
    if L.self == SIMD8<Float>.self && lanes == 8 {
      // Resolved at specialisation: a whole SIMD8 group goes through the out-of-line
      // transpose (see `storePlanar8` for why out of line).
      var soa = unsafeBitCast(mat, to: LaneMatrix<SIMD8<Float>>.self).m
      withUnsafePointer(to: &soa) { q in
        q.withMemoryRebound(to: Float.self, capacity: 128) { storeMatrixBlock($0, stride: 8, count: 8, to: p) }
      }
      return
    }
    let m = mat.m
    for k in 0..<lanes {
      let q = p + 16 * k
      q[0] = m.0[lane: k]
      q[1] = m.1[lane: k]
      q[2] = m.2[lane: k]
      q[3] = m.3[lane: k]
      q[4] = m.4[lane: k]
      q[5] = m.5[lane: k]
      q[6] = m.6[lane: k]
      q[7] = m.7[lane: k]
      q[8] = m.8[lane: k]
      q[9] = m.9[lane: k]
      q[10] = m.10[lane: k]
      q[11] = m.11[lane: k]
      q[12] = m.12[lane: k]
      q[13] = m.13[lane: k]
      q[14] = m.14[lane: k]
      q[15] = m.15[lane: k]
    }
  }
}

extension Kernel {
  /// Stage 4 of a planar block: three pair rows ((a, b), (c, d), (tx, ty) of each cell side
  /// by side, `stride` Floats apart, written by `FloatLanes.storePairs`) of `n` cells become
  /// rows (a b 0 0), (c d 0 0), (0 0 1 0), (tx ty 0 1) of `n` consecutive matrices at `p`:
  /// 8 cells at a time by `cm_store_planar_pairs8` (one 8-byte load per pair, a blend, no
  /// shuffle), the rest one by one. `unpacked`: each 8-cell unit holds its pairs in the
  /// order of `cm_pair_slot8` (SIMD8 lanes), else in cell order.
  ///
  /// Called once per block and never inlined: inlined into the group loop, the optimiser's
  /// SLP vectoriser merged the shuffles with the arithmetic that produced the lanes into
  /// inserts and spills; called per group, every live vector was spilled around the call.
  @usableFromInline @inline(never)
  static func storePlanarBlock(
    _ pairs: UnsafePointer<Float>, stride: Int, count n: Int, unpacked: Bool, to p: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    // One loop per (slot order, alignment), so both are constants inside each. A Swift
    // array's storage (FrameOutput) starts 16 or 48 bytes past a 64-byte line: there the
    // 16-byte-offset form keeps every store inside a cache line.
    let off16 = UInt(bitPattern: p) & 31 == 16
    switch (unpacked, off16) {
    case (true, false):
      while i + 8 <= n {
        cm_store_planar_pairs8(pairs + 2 * i, stride, 1, p + 16 * i)
        i += 8
      }
    case (false, false):
      while i + 8 <= n {
        cm_store_planar_pairs8(pairs + 2 * i, stride, 0, p + 16 * i)
        i += 8
      }
    case (true, true):
      while i + 8 <= n {
        cm_store_planar_pairs8_off16(pairs + 2 * i, stride, 1, p + 16 * i)
        i += 8
      }
    case (false, true):
      while i + 8 <= n {
        cm_store_planar_pairs8_off16(pairs + 2 * i, stride, 0, p + 16 * i)
        i += 8
      }
    }
    while i < n {
      let k = i & 7
      let e = pairs + 2 * ((i - k) + (unpacked ? cm_pair_slot8(k) : k))
      let q = p + 16 * i
      (q[0], q[1], q[2], q[3]) = (e[0], e[1], 0, 0)
      (q[4], q[5], q[6], q[7]) = (e[stride], e[stride + 1], 0, 0)
      (q[8], q[9], q[10], q[11]) = (0, 0, 1, 0)
      (q[12], q[13], q[14], q[15]) = (e[2 * stride], e[2 * stride + 1], 0, 1)
      i += 1
    }
  }

  /// Stage 4 of a planar block with the affine layout: the three pair rows of `n` cells
  /// become `n` consecutive (a b c d tx ty) records of 6 Floats at `p`, 8 cells at a time by
  /// `cm_store_affine_pairs8` (pairs moved as doubles, shuffled into three 32-byte stores
  /// per 4 cells), the rest one by one. Out of line for the reason given at
  /// `storePlanarBlock`.
  @usableFromInline @inline(never)
  static func storeAffineBlock(
    _ pairs: UnsafePointer<Float>, stride: Int, count n: Int, unpacked: Bool, to p: UnsafeMutablePointer<Float>
  ) {
    var i = 0
    if unpacked {
      while i + 8 <= n {
        cm_store_affine_pairs8(pairs + 2 * i, stride, 1, p + 6 * i)
        i += 8
      }
    } else {
      while i + 8 <= n {
        cm_store_affine_pairs8(pairs + 2 * i, stride, 0, p + 6 * i)
        i += 8
      }
    }
    while i < n {
      let k = i & 7
      let e = pairs + 2 * ((i - k) + (unpacked ? cm_pair_slot8(k) : k))
      let q = p + 6 * i
      (q[0], q[1], q[2], q[3], q[4], q[5]) = (e[0], e[1], e[stride], e[stride + 1], e[2 * stride], e[2 * stride + 1])
      i += 1
    }
  }

  /// Stage 4 of a general block: 16 SoA rows (entry e of cell k at `soa[e * stride + k]`)
  /// of `n` cells to `n` consecutive 64-byte matrices at `p`: 8 cells at a time by
  /// `cm_store_matrices8` (two 8 x 8 transposes), the rest one by one. Out of line for the
  /// reason given at `storePlanarBlock`.
  @usableFromInline @inline(never)
  static func storeMatrixBlock(_ soa: UnsafePointer<Float>, stride: Int, count n: Int, to p: UnsafeMutablePointer<Float>) {
    var i = 0
    // See `storePlanarBlock` for the two alignments.
    if UInt(bitPattern: p) & 31 == 16 {
      while i + 8 <= n {
        cm_store_matrices8_off16(soa + i, stride, p + 16 * i)
        i += 8
      }
    } else {
      while i + 8 <= n {
        cm_store_matrices8(soa + i, stride, p + 16 * i)
        i += 8
      }
    }
    while i < n {
      let q = p + 16 * i
      for e in 0..<16 { q[e] = soa[e * stride + i] }
      i += 1
    }
  }
}

/// A persistent second thread for two-way splits. `DispatchQueue.concurrentPerform`
/// allocates on every call (3 allocations per frame, measured by the benchmark's
/// allocation counter); this worker is started once and handed each job through plain
/// stored properties and two semaphores, so a steady-state frame allocates nothing.
/// One job at a time: a caller that finds it busy (another thread evaluating) falls back
/// to `concurrentPerform`.
final class PairWorker: @unchecked Sendable {
  static let shared = PairWorker()

  /// The cell where the worker's half starts: the middle, rounded up to a multiple of 8
  /// (lane groups are the same in any split, so results stay bit-identical).
  static func split(_ n: Int) -> Int { min(n, (n / 2 + 7) & ~7) }

  private let lock = NSLock()
  private let go = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)
  // The job; written by the caller before `go.signal()`, read by the worker after
  // `go.wait()` (the semaphore orders the accesses).
  private var range = 0..<0
  private var recipes: [CompiledRecipe] = []
  private var recipeIndex: UnsafePointer<Int32>? = nil
  private var t: Float = 0
  private var inputs: KernelInputs? = nil
  private var outputs: KernelOutputs? = nil
  private var lanes = LaneWidth.simd8

  private init() {
    let thread = Thread { [unowned self] in self.run() }
    thread.name = "CellMotionKernel.PairWorker"
    thread.start()
  }

  private func run() {
    while true {
      go.wait()
      if let recipeIndex, let inputs, let outputs {
        Kernel.evaluateRange(
          range, recipes: recipes, recipeIndex: recipeIndex, t: t, inputs: inputs, outputs: outputs, lanes: lanes)
      }
      done.signal()
    }
  }

  /// Hands the second half of `all` to the worker; false (nothing started) if it is busy.
  func tryStart(
    _ all: Range<Int>, recipes: [CompiledRecipe], recipeIndex: UnsafePointer<Int32>, t: Float,
    inputs: KernelInputs, outputs: KernelOutputs, lanes: LaneWidth
  ) -> Bool {
    guard lock.try() else { return false }
    range = Self.split(all.upperBound)..<all.upperBound
    self.recipes = recipes
    self.recipeIndex = recipeIndex
    self.t = t
    self.inputs = inputs
    self.outputs = outputs
    self.lanes = lanes
    go.signal()
    return true
  }

  /// Waits for the worker's half and releases the worker.
  func finish() {
    done.wait()
    recipes = []
    recipeIndex = nil
    inputs = nil
    outputs = nil
    lock.unlock()
  }
}

/// A pointer that may cross into concurrentPerform's closure (read-only use).
struct UncheckedPointer: @unchecked Sendable {
  let pointer: UnsafePointer<Int32>
  init(_ p: UnsafePointer<Int32>) { pointer = p }
}
