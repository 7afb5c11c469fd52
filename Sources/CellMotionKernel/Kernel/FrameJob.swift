// FrameJob: one frame's evaluation of a batch as a value (its inputs, outputs, time and
// lane width), shaped as batch-animation runtimes shape their jobs: validated once, then
// run over ranges of cells by one or more workers. Unsafe access to the batch's and the
// output's storage is confined to `withKernelInputs` / `withKernelOutputs` below.

import CellMotion
import Foundation

/// A validated frame: everything `run(_:)` needs to evaluate any range of the batch's
/// cells. Made by `Kernel.evaluate` inside `CellBatch.withKernelInputs` and
/// `FrameOutput.withKernelOutputs` (its pointers are valid only there); the two-thread
/// worker is handed one job. Cells are independent and each cell's arithmetic is the same
/// in any range, so any split gives bit-identical results.
struct FrameJob: @unchecked Sendable {
  let recipes: [CompiledRecipe]
  let recipeIndex: UnsafePointer<Int32>
  /// Every cell has the same recipe index (no run boundaries to find).
  let oneRecipe: Bool
  /// Frame time relative to the batch's time origin, seconds.
  let t: Float
  let inputs: KernelInputs
  let outputs: KernelOutputs
  let lanes: LaneWidth
  /// Cells in the batch.
  let count: Int

  /// Checks that `batch` can be evaluated at `time` into `output` with `options`; the
  /// rules are listed at `Kernel.evaluate`. After this, nothing in `run` can fail.
  /// `output` is borrowed: passed from `Kernel.evaluate`'s inout by value, it was copied
  /// per frame (every buffer retained and released).
  static func validate(
    _ batch: borrowing CellBatch, at time: Double, into output: borrowing FrameOutput, options: KernelOptions
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
    if !output.includesFold, batch.recipeSummary.folds {
      throw .invalidCombination(field: "FrameOutput", reason: "a recipe folds but the output has no fold buffers")
    }
    if output.layout == .affine2D, let name = batch.recipeSummary.firstNonPlanar {
      throw .invalidCombination(
        field: "FrameOutput.layout",
        reason: "recipe \(name) is not affine (perspective, rotation about x or y, or z translation); "
          + "use the transform3D layout")
    }
  }

  /// Evaluates cells `range` (within 0..<count): runs of one recipe at the job's lane width.
  /// `worker` (0 the calling thread, 1 the pair worker, nil any other) picks the output's
  /// scratch slot (`KernelOutputs.scratch`).
  func run(_ range: Range<Int>, worker: Int? = nil) {
    let scratch = worker.flatMap { w in outputs.scratch.map { $0 + w * ScratchLayout.Storage.count } }
    Kernel.evaluateRange(
      range, recipes: recipes, recipeIndex: recipeIndex, oneRecipe: oneRecipe, t: t, inputs: inputs, outputs: outputs,
      lanes: lanes, scratch: scratch)
  }

  /// Runs the whole batch on `threads` threads: the calling thread alone, the calling
  /// thread and the persistent `PairWorker` (no allocation per frame), or
  /// `concurrentPerform` over chunks aligned to 8 cells.
  func run(threads: Int) {
    let n = count
    if threads == 1 {
      run(0..<n, worker: 0)
    } else if threads == 2, PairWorker.shared.tryStart(self) {
      run(0..<PairWorker.split(n), worker: 0)
      PairWorker.shared.finish()
    } else {
      // threads <= maxThreads (validated) so chunks <= 256, and ceil(n / chunks) is taken
      // without forming n + chunks - 1: no step can overflow for any count.
      let chunks = threads * 4
      let w = LaneWidth.widest
      let per = (n / chunks + (n % chunks == 0 ? 0 : 1) + w - 1) / w * w
      DispatchQueue.concurrentPerform(iterations: chunks) { c in
        let lo = min(n, c * per), hi = min(n, lo + per)
        if lo < hi { run(lo..<hi) }
      }
    }
  }
}

extension CellBatch {
  /// Calls `body` with pointers to the batch's SoA arrays and recipe indices, valid only
  /// during the call (the one place the kernel reaches the batch's storage).
  func withKernelInputs<R>(_ body: (KernelInputs, UnsafePointer<Int32>) -> R) -> R {
    columns.withKernelInputs(retargetRows.data, stride: retargetRows.stride, body)
  }
}

extension CellColumns {
  /// `CellBatch.withKernelInputs` on the columns (a method of the columns, so the nested
  /// closures borrow them: reached through the batch, each frame copied the whole batch,
  /// retaining every array, four times).
  func withKernelInputs<R>(
    _ retarget: [Float], stride: Int, _ body: (KernelInputs, UnsafePointer<Int32>) -> R
  ) -> R {
    start.withUnsafeBufferPointer { st in
      progress.withUnsafeBufferPointer { pr in
        width.withUnsafeBufferPointer { wi in
          height.withUnsafeBufferPointer { he in
            tableWidth.withUnsafeBufferPointer { tw in
              detailHeight.withUnsafeBufferPointer { dh in
                recipeIndex.withUnsafeBufferPointer { ri in
                  retarget.withUnsafeBufferPointer { rr in
                    body(
                      KernelInputs(
                        start: st.baseAddress!, progress: pr.baseAddress!, width: wi.baseAddress!,
                        height: he.baseAddress!, tableWidth: tw.baseAddress!, detailHeight: dh.baseAddress!,
                        retarget: rr.baseAddress, retargetStride: stride),
                      ri.baseAddress!)
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

extension FrameOutput {
  /// Calls `body` with pointers to the output's buffers (fold buffers nil when absent,
  /// corners nil unless `includesCorners`), valid only during the call (the one place the
  /// kernel reaches the output's storage). The output must have room for at least one cell.
  mutating func withKernelOutputs<R>(
    velocityRowsToClear: UInt16 = ChannelRows.all, identityStored: Bool = false, _ body: (KernelOutputs) -> R
  ) -> R {
    let includeCorners = includesCorners, affine = layout == .affine2D
    let includeVelocities = includesVelocities, stride = capacity
    return Self.withMutablePointer(&kernelScratch) { sc in
    matrices.withUnsafeMutableBufferPointer { mo in
      opacity.withUnsafeMutableBufferPointer { op in
        shadowOpacity.withUnsafeMutableBufferPointer { so in
          Self.withMutablePointer(&foldTop) { ft in
            Self.withMutablePointer(&foldBottom) { fb in
              Self.withMutablePointer(&foldShadow) { fs in
                Self.withMutablePointer(&corners) { co in
                  Self.withMutablePointer(&velocities) { ve in
                    body(
                      KernelOutputs(
                        matrices: mo.baseAddress!, opacity: op.baseAddress!, shadow: so.baseAddress!,
                        foldTop: ft, foldBottom: fb, foldShadow: fs, corners: includeCorners ? co : nil, affine: affine,
                        velocities: includeVelocities ? ve : nil, velocityStride: stride,
                        velocityRowsToClear: velocityRowsToClear, identityStored: identityStored, scratch: sc))
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

  /// `body` with a pointer to `array`'s elements, nil for an empty array (the output's
  /// absent buffers), which `withUnsafeMutableBufferPointer` would first make unique: a
  /// fresh empty buffer per buffer per frame.
  @inline(__always)
  static func withMutablePointer<R>(_ array: inout [Float], _ body: (UnsafeMutablePointer<Float>?) -> R) -> R {
    array.isEmpty ? body(nil) : array.withUnsafeMutableBufferPointer { body($0.baseAddress) }
  }
}
