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
  /// SIMD4<Float> (4 lanes; SSE): the width the benchmark compares SIMD8 with. The passes
  /// it compares (progress, keyframes, opacity, matrices, folds) run in 4 lanes; the ones
  /// no 4-lane scenario runs (velocities, retargets, the scroll timeline pass, the general
  /// matrix path, `AnyPlanar`, eased and geometry keyframe tracks, media timing other than
  /// the simple case, springs other than under-damped) run their 8-lane code
  /// (`WideLanes`), lane by lane the same arithmetic, so each is compiled once rather than
  /// once per width.
  case simd4

  /// SIMD8: one ymm register per vector when built for AVX2 (-target-cpu haswell), two
  /// SSE registers otherwise (still correct, and measured no slower than SIMD4 there).
  public static var preferred: LaneWidth { .simd8 }
}

/// The lanes of the passes compiled at one width whatever `LaneWidth` a frame asks for
/// (see `LaneWidth.simd4`). A block's scratch rows hold a multiple of 8 cells
/// (`ScratchLayout.blockCells`), so 8-lane loads of them stay inside the block, and
/// the lanes past a block's last cell are never stored to an output.
typealias WideLanes = SIMD8<Float>

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
    try evaluate(batch, at: time, into: &output, options: options, only: nil)
  }

  /// `evaluate`, or with `ranges` (ascending, disjoint, within the batch) only the cells in
  /// them, on the calling thread: the output's other cells keep what they hold (the caller
  /// writes them: `ScrollEffectBatch` skips the runs of cells its effect leaves at the
  /// identity). Any split gives the cells it evaluates the same bits (`FrameJob`).
  static func evaluate(
    _ batch: CellBatch, at time: Double, into output: inout FrameOutput, options: KernelOptions,
    only ranges: UnsafeBufferPointer<Range<Int>>?
  ) throws(CellMotionError) {
    try FrameJob.validate(batch, at: time, into: output, options: options)
    let n = batch.count
    output.count = n
    guard n > 0 else { return }
    let t = Float(time - batch.timeOrigin)
    let threads = ranges != nil ? 1 : n >= options.parallelThreshold ? options.threads : 1
    // Velocity rows that may hold something other than 0 after this frame: those some
    // recipe of the batch writes, and those written before (`FrameOutput`'s record).
    let moving = output.includesVelocities ? batch.recipeSummary.movingRows : 0
    let clear = moving | output.velocityRowsWritten
    output.velocityRowsWritten = clear
    // Every recipe leaves its cells unmoved (a batch of fade or fold cells): their matrices
    // are the identity, which an earlier frame may have stored already for at least these
    // cells (`FrameOutput.identityCells`); any other frame may store anything.
    // (Not with ranges: the cells between them are not written here.)
    let identityOnly = ranges == nil && batch.recipeSummary.storesIdentity(corners: output.includesCorners)
    let identityStored = identityOnly && n <= output.identityCells
    output.identityCells = identityOnly ? max(n, output.identityCells) : 0
    // The block scratch of the calling thread and the pair worker, once per output.
    if threads <= 2 && output.kernelScratch.isEmpty {
      output.kernelScratch = [Float](repeating: 0, count: 2 * ScratchLayout.Storage.count)
    }
    // Read before the closures, which then capture no part of the batch (capturing it,
    // they copied the whole batch per frame, retaining each of its arrays).
    let recipes = batch.recipes, oneRecipe = batch.recipeChanges == 0, lanes = options.lanes
    batch.withKernelInputs { inputs, recipeIndex in
      output.withKernelOutputs(velocityRowsToClear: clear, identityStored: identityStored) { outputs in
        let job = FrameJob(
          recipes: recipes, recipeIndex: recipeIndex, oneRecipe: oneRecipe, t: t, inputs: inputs, outputs: outputs,
          lanes: lanes, count: n)
        if let ranges {
          for r in ranges { job.run(r, worker: 0) }
        } else {
          job.run(threads: threads)
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
  /// `scratch`: a `ScratchLayout.Storage`-sized slot of the output's scratch for this
  /// worker, or nil (each run uses its stack).
  static func evaluateRange(
    _ range: Range<Int>, recipes: [CompiledRecipe], recipeIndex: UnsafePointer<Int32>, oneRecipe: Bool, t: Float,
    inputs: KernelInputs, outputs: KernelOutputs, lanes: LaneWidth, scratch: UnsafeMutablePointer<Float>?
  ) {
    var i = range.lowerBound
    while i < range.upperBound {
      let r = recipeIndex[i]
      // Every cell of one recipe (`CellBatch.recipeChanges` is 0): the whole range is one
      // run (indices are validated by `append`).
      let j = oneRecipe ? range.upperBound : runEnd(recipeIndex, from: i + 1, to: range.upperBound, value: r)
      switch lanes {
      case .simd8:
        evaluateRun(SIMD8<Float>.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs, scratch: scratch)
      case .simd4:
        evaluateRun(SIMD4<Float>.self, recipes[Int(r)], i..<j, t: t, inputs: inputs, outputs: outputs, scratch: scratch)
      }
      i = j
    }
  }

  /// The progress stages of a block when velocities are asked for: each Bezier part's
  /// solved parameter kept for the velocity stage, in the rows the matrix passes fill only
  /// after it. A function of its own so the frame without velocities keeps its loop small.
  @inline(never)
  static func progressKeepingRates(
    _: WideLanes.Type, _ r: CompiledRecipe, _ clock: PartClock, count n: Int, into base: UnsafeMutablePointer<Float>,
    rates: RateRows
  ) {
    // Each part borrowed where the array holds it, as in `evaluateRun`.
    r.parts.withUnsafeBufferPointer { parts in
      for k in parts.indices {
        progressStage(
          WideLanes.self, parts.baseAddress.unsafelyUnwrapped + k, r.timing, clock, count: n,
          into: base + r.layout.staged(k), rates: rates.keep(k))
      }
    }
  }

  /// Evaluates cells `range`, all of recipe `r`, block by block (`ScratchLayout`: its
  /// cells per block, a multiple of 8, and the rows of the stack scratch), running the
  /// recipe's passes (`CompiledRecipe.passes`) in `KernelPass` order, each a small loop
  /// over the block:
  /// 1. progress: every part's progress into the scratch (`progressStage`);
  /// 2. keyframes: every keyframe channel's value from its part's progress;
  /// 3. retargets: every retargeted channel's value (derived recipes only);
  /// 4. opacity and shadow opacity (`opacityStage`) straight to the outputs;
  /// 5. velocities, when the frame asks for them (`velocityStage`);
  /// 6. matrices by the recipe's `MatrixPlan`: the identity from constants
  ///    (`storeIdentityBlock`; a fold's pass stores it with its halves), the planar path's
  ///    pair rows then one store pass (`storePlanarBlock` or `storeAffineBlock`), a
  ///    single-axis rotation straight to `matrices` (`axisRotationBlock`), or the general
  ///    path's 16 SoA rows then `storeMatrixBlock`; projected corners when asked for;
  /// 7. fold: the two halves straight to `foldTop` / `foldBottom`, and the shadow.
  /// Short loops with few live vectors keep everything in registers and let the processor
  /// overlap iterations (the Bezier solve is a chain of dependent steps; fused into one big
  /// group it left most of each group's latency exposed). A last partial group reads only
  /// its valid cells (padded lanes repeat the first) and writes only its valid cells.
  /// `scratch`: where the blocks' rows go (`ScratchLayout.Storage.count` Floats, the
  /// output's, reused across frames), or nil for a zeroed stack array.
  static func evaluateRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs,
    scratch: UnsafeMutablePointer<Float>?
  ) {
    @inline(__always) func aligned(_ p: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<Float> {
      UnsafeMutableRawPointer(p).alignedUp(toMultipleOf: 64).assumingMemoryBound(to: Float.self)
    }
    if let scratch {
      evaluateBlocks(L.self, r, range, t: t, inputs: inputs, outputs: outputs, base: aligned(scratch))
    } else {
      var storage = ScratchLayout.Storage(repeating: 0)
      var span = storage.mutableSpan
      span.withUnsafeMutableBufferPointer { buffer in
        evaluateBlocks(L.self, r, range, t: t, inputs: inputs, outputs: outputs, base: aligned(buffer.baseAddress!))
      }
    }
  }

  /// `evaluateRun`'s blocks with the scratch at `base` (64-byte aligned, room for
  /// `ScratchLayout.floats`).
  @inline(never)
  static func evaluateBlocks<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs,
    base: UnsafeMutablePointer<Float>
  ) {
    let layout = r.layout, block = layout.blockCells
    let progress = StagedProgress(base: UnsafePointer(base), stride: block)
    let soa = base + layout.matrixOffset
    let rates = RateRows(base: soa, block: block)
    let velocities = outputs.velocities != nil
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
      let height = inputs.height + b, tableWidth = inputs.tableWidth + b
      r.passes.forEach { pass in
        switch pass {
        case .progress:
          if velocities {
            progressKeepingRates(WideLanes.self, r, clock, count: n, into: base, rates: rates)
          } else {
            // Each part borrowed where the array holds it (`progressStage` copies nothing).
            r.parts.withUnsafeBufferPointer { parts in
              for k in parts.indices {
                progressStage(
                  L.self, parts.baseAddress.unsafelyUnwrapped + k, r.timing, clock, count: n,
                  into: base + layout.staged(k))
              }
            }
          }
        case .keyframes:
          // Each track borrowed where the array holds it (`keyframeStage`); a run of
          // hinged tracks that share their knot in one stage (`sharedHingeStage`).
          r.keyframes.withUnsafeBufferPointer { keyframes in
            var k = 0
            while k < keyframes.count {
              let track = keyframes.baseAddress.unsafelyUnwrapped + k
              let run = track.pointee.sharedRun
              // The distance rows go to the last two matrix rows, free until the matrix
              // pass (not with velocities: the kept rates are there).
              if run > 1 && !velocities {
                sharedHingeStage(
                  L.self, track, run: run, progress: progress, height: height, tableWidth: tableWidth, count: n,
                  rows: soa + (ScratchLayout.matrixRows - 2) * block, block: block
                ) { base + layout.staged($0) }
                k &+= run
                continue
              }
              keyframeStage(
                L.self, track, progress: progress, height: height, tableWidth: tableWidth, count: n,
                into: base + layout.staged(track.pointee.row))
              k &+= 1
            }
          }
        case .retargets:
          // Borrowed through the buffer rather than indexed in the array: 0.3-0.4 fewer
          // instructions per cell (callgrind).
          r.retargets.withUnsafeBufferPointer { retargets in
            for k in retargets.indices {
              retargetStage(
                WideLanes.self, retargets.baseAddress.unsafelyUnwrapped + k, scratch: base, block: block,
                rows: inputs.retarget.unsafelyUnwrapped, stride: inputs.retargetStride, at: b, t: t,
                height: height, tableWidth: tableWidth, count: n, rates: velocities ? rates : nil)
            }
          }
        case .opacity:
          opacityStage(
            L.self, r.opacityChannel, modelValue: 1, progress: progress, height: height, tableWidth: tableWidth,
            count: n, into: outputs.opacity + b)
          opacityStage(
            L.self, r.shadowChannel, modelValue: 0, progress: progress, height: height, tableWidth: tableWidth,
            count: n, into: outputs.shadow + b)
        case .velocities:
          guard let out = outputs.velocities else { return }
          velocityStage(
            WideLanes.self, r, at: b, count: n, t: t, clock: clock, progress: progress, inputs: inputs, outputs: outputs,
            out: out, stride: outputs.velocityStride, rates: rates)
        case .matrices:
          matrixPass(
            L.self, r, at: b, count: n, progress: progress, soa: soa, identityCells: identityCells,
            storeIdentity: storeIdentity, inputs: inputs, outputs: outputs)
        case .fold:
          foldStage(
            L.self, r.fold.unsafelyUnwrapped, at: b, count: n, progress: progress, inputs: inputs, outputs: outputs,
            identityCells: storeIdentity)
        }
      }
      b += n
    }
  }

  /// The matrix pass of a block by the recipe's `MatrixPlan` (see `evaluateRun`, pass 6).
  @inline(__always)
  static func matrixPass<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, at b: Int, count n: Int, progress: StagedProgress, soa: UnsafeMutablePointer<Float>,
    identityCells: Bool, storeIdentity: Bool, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    let block = r.layout.blockCells
    switch r.matrixPlan {
    case .identity where identityCells:
      // A fold recipe's pass stores them with its halves, interleaved with its work.
      if r.fold == nil && storeIdentity { storeIdentityBlock(count: n, at: b, outputs) }
    case .identity(let k), .planar(let k):
      let unpacked = evaluatePlanarRun(
        L.self, r, k, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
      if outputs.affine {
        storeAffineBlock(soa, stride: 2 * block, count: n, unpacked: unpacked, to: outputs.matrices + 6 * b)
      } else {
        storePlanarBlock(soa, stride: 2 * block, count: n, unpacked: unpacked, to: outputs.matrices + 16 * b)
      }
    case .axisRotation(let ar):
      axisRotationBlock(L.self, r, ar, at: b, count: n, progress: progress, inputs: inputs, outputs: outputs)
    case .general:
      // In `WideLanes` whatever `L`: no 4-lane scenario takes the general path (lane-wise
      // arithmetic into the block's SoA rows, whole 8-lane groups).
      evaluateGeneralBlock(WideLanes.self, r, at: b, count: n, progress: progress, soa: soa, inputs: inputs, outputs: outputs)
      storeMatrixBlock(soa, stride: block, count: n, to: outputs.matrices + 16 * b)
    }
  }
}
