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
    try FrameJob.validate(batch, at: time, into: output, options: options)
    let n = batch.count
    output.count = n
    guard n > 0 else { return }
    let t = Float(time - batch.timeOrigin)
    let threads = n >= options.parallelThreshold ? options.threads : 1
    // Velocity rows that may hold something other than 0 after this frame: those some
    // recipe of the batch writes, and those written before (`FrameOutput`'s record).
    let moving = output.includesVelocities ? batch.recipes.reduce(UInt16(0)) { $0 | $1.velocityPlan.movingRows } : 0
    let clear = moving | output.velocityRowsWritten
    output.velocityRowsWritten = clear
    // Every recipe leaves its cells unmoved (a batch of fade or fold cells): their matrices
    // are the identity, which an earlier frame may have stored already for at least these
    // cells (`FrameOutput.identityCells`); any other frame may store anything.
    let identityOnly = batch.recipes.allSatisfy { $0.storesIdentity(corners: output.includesCorners) }
    let identityStored = identityOnly && n <= output.identityCells
    output.identityCells = identityOnly ? max(n, output.identityCells) : 0
    // Read before the closures, which then capture no part of the batch (capturing it,
    // they copied the whole batch per frame, retaining each of its arrays).
    let recipes = batch.recipes, oneRecipe = batch.recipeChanges == 0, lanes = options.lanes
    batch.withKernelInputs { inputs, recipeIndex in
      output.withKernelOutputs(velocityRowsToClear: clear, identityStored: identityStored) { outputs in
        FrameJob(
          recipes: recipes, recipeIndex: recipeIndex, oneRecipe: oneRecipe, t: t, inputs: inputs, outputs: outputs,
          lanes: lanes, count: n
        ).run(threads: threads)
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
    _ range: Range<Int>, recipes: [CompiledRecipe], recipeIndex: UnsafePointer<Int32>, oneRecipe: Bool, t: Float,
    inputs: KernelInputs, outputs: KernelOutputs, lanes: LaneWidth
  ) {
    var i = range.lowerBound
    while i < range.upperBound {
      let r = recipeIndex[i]
      // Every cell of one recipe (`CellBatch.recipeChanges` is 0): the whole range is one
      // run (indices are validated by `append`).
      let j = oneRecipe ? range.upperBound : runEnd(recipeIndex, from: i + 1, to: range.upperBound, value: r)
      switch lanes {
      case .simd8:
        evaluateRun(SIMD8<Float>.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs)
      case .simd4:
        evaluateRun(SIMD4<Float>.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs)
      }
      i = j
    }
  }

  /// Floats of per-frame stack scratch for one block (16 KiB, zeroed once per run of one
  /// recipe): every part's progress and the block's matrix entries in SoA form
  /// (`CompiledRecipe.blockCells`). On the stack because `withUnsafeTemporaryAllocation`
  /// goes to the heap above 1 KiB on Linux (`swift_stdlib_isStackAllocationSafe` answers
  /// false, measured).
  package static var scratchFloats: Int { 4096 }

  /// The progress stages of a block when velocities are asked for: each Bezier part's
  /// solved parameter kept for the velocity stage, in the rows the matrix passes fill only
  /// after it. A function of its own so the frame without velocities keeps its loop small.
  @inline(never)
  static func progressKeepingParameters<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ clock: PartClock, count n: Int, into base: UnsafeMutablePointer<Float>,
    soa: UnsafeMutablePointer<Float>
  ) {
    let block = r.blockCells
    // Each part borrowed where the array holds it, as in `evaluateRun`.
    r.parts.withUnsafeBufferPointer { parts in
      for k in parts.indices {
        progressStage(
          L.self, parts.baseAddress.unsafelyUnwrapped + k, r.timing, clock, count: n,
          into: base + k * block, parameters: ParameterRows(base: soa, block: block).keep(k))
      }
    }
  }

  /// Evaluates cells `range`, all of recipe `r`, block by block (`CompiledRecipe.blockCells`
  /// cells, a multiple of 8), in stages that each run as a small loop over the block:
  /// 1. every part's progress (`progressStage`) into the stack scratch, then every
  ///    keyframe channel's value from its part's progress (`keyframeStage`), then every
  ///    retargeted channel's value (`retargetStage`, derived recipes only);
  /// 2. opacity and shadow opacity (`opacityStage`) straight to the outputs;
  /// 3. the matrices, in groups of `L.width` lanes, into the scratch: (a, b), (c, d),
  ///    (tx, ty) pair rows on the planar path (`evaluatePlanarRun`), 16 SoA rows on the
  ///    general one (`evaluateGeneralBlock`), projected corners when asked for; a
  ///    single-axis rotation (`axisRotationBlock`) goes straight to `matrices`, its
  ///    varying rows transposed in registers (`FloatLanes.storeMatrices`);
  /// 4. one out-of-line pass per block from the scratch into `matrices`
  ///    (`storePlanarBlock`, `storeAffineBlock`, `storeMatrixBlock`); a recipe that moves
  ///    nothing skips stage 3 and stores the identity (`storeIdentityBlock`);
  /// 5. fold recipes: the two halves straight to `foldTop` / `foldBottom` as in 3's
  ///    single-axis rotations, and the fold shadow (`foldStage`).
  /// Short loops with few live vectors keep everything in registers and let the processor
  /// overlap iterations (the Bezier solve is a chain of dependent steps; fused into one big
  /// group it left most of each group's latency exposed). A last partial group reads only
  /// its valid cells (padded lanes repeat the first) and writes only its valid cells.
  static func evaluateRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    // 16 Floats more than `scratchFloats`, so its start can be rounded up to a cache line:
    // every lane group's loads and stores then stay within one line, whatever the stack
    // frame's layout (a rebuild that moved it measured 3-5 % on the opacity-only presets).
    var scratch = InlineArray<4112, Float>(repeating: 0)
    let block = r.blockCells
    let planar = r.planarConstants
    var span = scratch.mutableSpan
    span.withUnsafeMutableBufferPointer { buffer in
      let base = UnsafeMutableRawPointer(buffer.baseAddress!).alignedUp(toMultipleOf: 64)
        .assumingMemoryBound(to: Float.self)
      let progress = StagedProgress(base: UnsafePointer(base), stride: block)
      let soa = base + r.timedRows * block
      // Tested once per run: iterating even an empty array retains and releases its
      // storage, measured at 5 % of fadeIn's time when done per block.
      let hasKeyframes = !r.keyframes.isEmpty, hasRetargets = !r.retargets.isEmpty
      // Nothing moves the cells and no corners are asked for: their matrices are the
      // identity, stored from constants (`storeIdentityBlock`, or the fold pass) unless an
      // earlier frame left them there (`KernelOutputs.identityStored`).
      let identityCells = r.storesIdentity(corners: outputs.corners != nil)
      let storeIdentity = identityCells && !outputs.identityStored
      // Where the cells are on the recipe's timeline (`PartClock`): the one place the
      // source matters.
      let recipeClock: PartClock
      switch r.source {
      case .clock: recipeClock = .clock(start: inputs.start, t: t)
      case .progress: recipeClock = .progress(inputs.progress, span: r.progressSpan)
      }
      var b = range.lowerBound
      while b < range.upperBound {
        let n = min(block, range.upperBound - b)
        let clock = recipeClock.advanced(by: b)
        if outputs.velocities != nil {
          progressKeepingParameters(L.self, r, clock, count: n, into: base, soa: soa)
        } else {
          // Each part borrowed where the array holds it (`progressStage` copies nothing).
          r.parts.withUnsafeBufferPointer { parts in
            for k in parts.indices {
              progressStage(
                L.self, parts.baseAddress.unsafelyUnwrapped + k, r.timing, clock, count: n,
                into: base + k * block)
            }
          }
        }
        if hasKeyframes {
          for k in r.keyframes {
            keyframeStage(
              L.self, k, progress: progress, height: inputs.height + b, tableWidth: inputs.tableWidth + b, count: n,
              into: base + k.row * block)
          }
        }
        if hasRetargets {
          // Borrowed through the buffer rather than indexed in the array: 0.3-0.4 fewer
          // instructions per cell (callgrind); `retargetStage`'s switch on the segment
          // still copies the retarget once per block.
          r.retargets.withUnsafeBufferPointer { retargets in
            for k in retargets.indices {
              retargetStage(
                L.self, (retargets.baseAddress.unsafelyUnwrapped + k).pointee, scratch: base, block: block,
                rows: inputs.retarget.unsafelyUnwrapped, stride: inputs.retargetStride, at: b, t: t,
                height: inputs.height + b, tableWidth: inputs.tableWidth + b, count: n,
                parameters: outputs.velocities != nil ? ParameterRows(base: soa, block: block) : nil)
            }
          }
        }
        opacityStage(
          L.self, r.opacityChannel, modelValue: 1, progress: progress, height: inputs.height + b,
          tableWidth: inputs.tableWidth + b, count: n, into: outputs.opacity + b)
        opacityStage(
          L.self, r.shadowChannel, modelValue: 0, progress: progress, height: inputs.height + b,
          tableWidth: inputs.tableWidth + b, count: n, into: outputs.shadow + b)
        if let velocities = outputs.velocities {
          velocityStage(
            L.self, r, at: b, count: n, t: t, clock: clock, progress: progress, inputs: inputs, outputs: outputs,
            out: velocities,
            stride: outputs.velocityStride,
            parameters: ParameterRows(base: soa, block: block))
        }
        if identityCells {
          // A fold recipe's pass stores them with its halves, interleaved with its work.
          if r.fold == nil && storeIdentity {
            storeIdentityBlock(count: n, at: b, outputs)
          }
        } else if let planar {
          evaluatePlanarRun(
            L.self, r, planar, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
          if outputs.affine {
            storeAffineBlock(soa, stride: 2 * block, count: n, unpacked: L.pairsUnpacked, to: outputs.matrices + 6 * b)
          } else {
            storePlanarBlock(
              soa, stride: 2 * block, count: n, unpacked: L.pairsUnpacked, to: outputs.matrices + 16 * b)
          }
        } else if let ar = r.axisRotation {
          axisRotationBlock(L.self, r, ar, at: b, count: n, progress: progress, inputs: inputs, outputs: outputs)
        } else {
          evaluateGeneralBlock(L.self, r, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
          storeMatrixBlock(soa, stride: block, count: n, to: outputs.matrices + 16 * b)
        }
        if let fold = r.fold {
          foldStage(
            L.self, fold, centre: r.foldAngleCentre, at: b, count: n, progress: progress, inputs: inputs,
            outputs: outputs, identityCells: storeIdentity)
        }
        b += n
      }
    }
  }
}
