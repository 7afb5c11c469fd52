// Kernel: evaluates a whole CellBatch at one frame time into a FrameOutput.
//
// Goals, in priority order: (1) agree with the scalar reference (ReferenceEvaluator)
// within the stated tolerances; (2) allocate nothing per frame; (3) speed: SIMD8 lanes
// (AVX2 with -target-cpu znver3), runs of one recipe with constants broadcast, cores for
// large batches.

import CellMotion
import Dispatch
import Foundation

/// Lane width used by the kernel.
public enum LaneWidth: String, Sendable, CaseIterable, Codable {
  /// SIMD8<Float> (8 lanes; one ymm register with AVX2).
  case simd8
  /// SIMD4<Float> (4 lanes; SSE).
  case simd4
  /// The same kernel code on plain Float (one lane): the scalar-Float baseline.
  case scalar

  /// SIMD8: one ymm register per vector when built for AVX2 (-target-cpu znver3), two
  /// SSE registers otherwise (still correct, and measured no slower than SIMD4 there).
  public static var preferred: LaneWidth { .simd8 }
}

/// Options for one evaluation.
public struct KernelOptions: Sendable {
  public var lanes: LaneWidth
  /// Worker threads for large batches; 1 evaluates on the calling thread. Results are
  /// bit-identical for any value.
  public var threads: Int
  /// Batches smaller than this many cells run on one thread (spawning costs more than it
  /// saves below it: ~16k cells measured at about 50 us of work).
  public var parallelThreshold: Int
  public init(lanes: LaneWidth = .preferred, threads: Int = 1, parallelThreshold: Int = 16_384) {
    self.lanes = lanes
    self.threads = threads
    self.parallelThreshold = parallelThreshold
  }
  /// All cores of the machine, SIMD8 where available.
  public static var allCores: KernelOptions {
    KernelOptions(threads: max(1, ProcessInfo.processInfo.activeProcessorCount))
  }
}

/// The batch evaluator.
public enum Kernel {
  /// Evaluates every cell of `batch` at `time` (absolute seconds, same clock as the start
  /// times given to `append`) into `output`.
  ///
  /// Validation happens here, once: the time must be finite, `output` must have room for
  /// the batch, and if a recipe folds `output` must include fold buffers. The inner loop
  /// is unchecked.
  /// - Complexity: O(count); no heap allocation on one thread.
  public static func evaluate(
    _ batch: CellBatch, at time: Double, into output: inout FrameOutput, options: KernelOptions = .init()
  ) throws(CellMotionError) {
    try Check.finite(time, "time")
    guard output.capacity >= batch.count else {
      throw .bufferSize(field: "FrameOutput capacity", expected: batch.count, actual: output.capacity)
    }
    guard options.threads >= 1 else {
      throw .outOfRange(field: "threads", value: Double(options.threads), expected: ">= 1")
    }
    if !output.includesFold, batch.recipes.contains(where: { $0.fold != nil }) {
      throw .invalidCombination(field: "FrameOutput", reason: "a recipe folds but the output has no fold buffers")
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
                                corners: includeCorners ? co.baseAddress : nil)
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
                                let chunks = threads * 4
                                let per = ((n + chunks - 1) / chunks + 7) & ~7
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

  /// Splits `range` into runs of one recipe and evaluates each at the chosen width.
  static func evaluateRange(
    _ range: Range<Int>, recipes: [CompiledRecipe], recipeIndex: UnsafePointer<Int32>, t: Float,
    inputs: KernelInputs, outputs: KernelOutputs, lanes: LaneWidth
  ) {
    var i = range.lowerBound
    while i < range.upperBound {
      let r = recipeIndex[i]
      var j = i + 1
      while j < range.upperBound && recipeIndex[j] == r { j += 1 }
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

  /// Evaluates cells `range`, all of recipe `r`, in groups of `L.width` lanes; the last
  /// partial group is gathered into padded lanes and only its valid lanes are stored.
  @inlinable
  static func evaluateRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs
  ) {
    var i = range.lowerBound
    if r.isPlanar { i = evaluatePlanarRun(L.self, r, range, t: t, inputs: inputs, outputs: outputs) }
    i = evaluateGeneralRun(L.self, r, i..<range.upperBound, t: t, inputs: inputs, outputs: outputs)
    let rest = range.upperBound - i
    if rest > 0 {
      // Pad with the first valid lane's inputs so padded lanes compute finite values.
      var st = L(repeating: inputs.start[i]), wi = L(repeating: inputs.width[i])
      var he = L(repeating: inputs.height[i]), tw = L(repeating: inputs.tableWidth[i])
      var dh = L(repeating: inputs.detailHeight[i])
      for k in 0..<rest {
        st[lane: k] = inputs.start[i + k]
        wi[lane: k] = inputs.width[i + k]
        he[lane: k] = inputs.height[i + k]
        tw[lane: k] = inputs.tableWidth[i + k]
        dh[lane: k] = inputs.detailHeight[i + k]
      }
      let res = evaluateGroup(r, t: t, start: st, width: wi, height: he, tableWidth: tw, detailHeight: dh)
      store(res, at: i, lanes: rest, outputs: outputs, width: wi, height: he)
      if let fold = r.fold {
        storeFold(
          evaluateFold(r, fold, t: t, start: st, width: wi, detailHeight: dh), at: i, lanes: rest, outputs: outputs)
      }
    }
  }

  /// The whole lane groups of a planar run (the tail is left to `evaluateRun`'s general
  /// path); returns the index of the first cell not evaluated. A function of its own so
  /// that the optimiser inlines the group into a small loop (inside the large
  /// `evaluateRun` it kept the group out of line and passed SIMD8 vectors through memory:
  /// callgrind counted 114 instructions per tip-in cell).
  @inlinable
  static func evaluatePlanarRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs
  ) -> Int {
    let w = L.width
    var i = range.lowerBound
    let k = PlanarConstants(r)
    while i + w <= range.upperBound {
      let wi = L.load(inputs.width + i), he = L.load(inputs.height + i)
      let res = evaluatePlanarGroup(
        r, k, t: t, start: L.load(inputs.start + i), width: wi, height: he,
        tableWidth: L.load(inputs.tableWidth + i))
      storePlanar(res, at: i, lanes: w, outputs: outputs, width: wi, height: he)
      if let fold = r.fold {
        let f = evaluateFold(
          r, fold, t: t, start: L.load(inputs.start + i), width: wi, detailHeight: L.load(inputs.detailHeight + i))
        storeFold(f, at: i, lanes: w, outputs: outputs)
      }
      i += w
    }
    return i
  }

  /// The whole lane groups of a run on the general 4x4 path; returns the index of the
  /// first cell not evaluated (a function of its own for the same reason as
  /// `evaluatePlanarRun`).
  @inlinable
  static func evaluateGeneralRun<L: FloatLanes>(
    _: L.Type, _ r: CompiledRecipe, _ range: Range<Int>, t: Float, inputs: KernelInputs, outputs: KernelOutputs
  ) -> Int {
    let w = L.width
    var i = range.lowerBound
    while i + w <= range.upperBound {
      let res = evaluateGroup(
        r, t: t, start: L.load(inputs.start + i), width: L.load(inputs.width + i),
        height: L.load(inputs.height + i), tableWidth: L.load(inputs.tableWidth + i),
        detailHeight: L.load(inputs.detailHeight + i))
      store(res, at: i, lanes: w, outputs: outputs, width: L.load(inputs.width + i), height: L.load(inputs.height + i))
      if let fold = r.fold {
        let f = evaluateFold(
          r, fold, t: t, start: L.load(inputs.start + i), width: L.load(inputs.width + i),
          detailHeight: L.load(inputs.detailHeight + i))
        storeFold(f, at: i, lanes: w, outputs: outputs)
      }
      i += w
    }
    return i
  }

  /// Writes `lanes` cells of a group result from SoA lanes to the AoS outputs.
  @inlinable @inline(__always)
  static func store<L: FloatLanes>(
    _ res: LaneResult<L>, at i: Int, lanes: Int, outputs: KernelOutputs, width: L, height: L
  ) {
    storeMatrices(res.matrix, to: outputs.matrices + 16 * i, lanes: lanes)
    if lanes == L.width {
      res.opacity.store(to: outputs.opacity + i)
      res.shadow.store(to: outputs.shadow + i)
    } else {
      for k in 0..<lanes {
        outputs.opacity[i + k] = res.opacity[lane: k]
        outputs.shadow[i + k] = res.shadow[lane: k]
      }
    }
    if let co = outputs.corners { storeCorners(res.matrix, at: i, lanes: lanes, to: co, width: width, height: height) }
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
    let c = (
      x0 / w0, y0 / w0,
      (x0 + xw) / (w0 + ww), (y0 + yw) / (w0 + ww),
      (x0 + xh) / (w0 + wh), (y0 + yh) / (w0 + wh),
      (x0 + xw + xh) / (w0 + ww + wh), (y0 + yw + yh) / (w0 + ww + wh)
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

  /// Writes `lanes` cells of a planar group: SIMD8 through `storePlanar8`, otherwise as a
  /// general matrix.
  @inlinable @inline(__always)
  static func storePlanar<L: FloatLanes>(
    _ res: LanePlanar<L>, at i: Int, lanes: Int, outputs: KernelOutputs, width: L, height: L
  ) {
    if L.self == SIMD8<Float>.self && lanes == 8 {
      let r8 = unsafeBitCast(res, to: LanePlanar<SIMD8<Float>>.self)
      var soa = (r8.a, r8.b, r8.c, r8.d, r8.tx, r8.ty)
      withUnsafePointer(to: &soa) { q in
        q.withMemoryRebound(to: Float.self, capacity: 48) { storePlanar8($0, to: outputs.matrices + 16 * i) }
      }
      res.opacity.store(to: outputs.opacity + i)
      res.shadow.store(to: outputs.shadow + i)
      if let co = outputs.corners {
        let z = L(repeating: 0), one = L(repeating: 1)
        let m = LaneMatrix<L>(linear: (res.a, res.b, z, res.c, res.d, z, z, z, one), translation: (res.tx, res.ty, z))
        storeCorners(m, at: i, lanes: lanes, to: co, width: width, height: height)
      }
      return
    }
    let z = L(repeating: 0), one = L(repeating: 1)
    let m = LaneMatrix<L>(linear: (res.a, res.b, z, res.c, res.d, z, z, z, one), translation: (res.tx, res.ty, z))
    store(LaneResult(matrix: m, opacity: res.opacity, shadow: res.shadow), at: i, lanes: lanes, outputs: outputs,
      width: width, height: height)
  }

  /// Planar SoA -> AoS for 8 cells: the six lane vectors (a, b, c, d, tx, ty; 48 Floats
  /// at `soa`) become rows (a b 0 0), (c d 0 0), (0 0 1 0), (tx ty 0 1) of 8 matrices.
  ///
  /// Never inlined, on purpose: inlined, the optimiser's SLP vectoriser merged the shuffles
  /// with the arithmetic that produced the lanes into ~300 instructions of inserts and
  /// spills per 8 cells (callgrind); on its own the body is unpack low/high pairs and
  /// 16-byte stores, and the call costs a few instructions per 8 cells.
  @usableFromInline @inline(never)
  static func storePlanar8(_ soa: UnsafePointer<Float>, to p: UnsafeMutablePointer<Float>) {
    let v = UnsafeRawPointer(soa)
    let raw = UnsafeMutableRawPointer(p)
    let zw0 = SIMD4<Float>(0, 0, 0, 0), zw1 = SIMD4<Float>(0, 0, 0, 1)
    @inline(__always)
    func pairs(_ first: Int, _ zw: SIMD4<Float>, _ row: Int) {
      let x = v.loadUnaligned(fromByteOffset: 32 * first, as: SIMD8<Float>.self)
      let y = v.loadUnaligned(fromByteOffset: 32 * first + 32, as: SIMD8<Float>.self)
      for h in 0..<2 {
        let xs = h == 0 ? x.lowHalf : x.highHalf, ys = h == 0 ? y.lowHalf : y.highHalf
        let lo = SIMD4(xs[0], ys[0], xs[1], ys[1]), hi = SIMD4(xs[2], ys[2], xs[3], ys[3])
        let base = 256 * h + 16 * row
        raw.storeBytes(of: SIMD4(lo[0], lo[1], zw[2], zw[3]), toByteOffset: base, as: SIMD4<Float>.self)
        raw.storeBytes(of: SIMD4(lo[2], lo[3], zw[2], zw[3]), toByteOffset: base + 64, as: SIMD4<Float>.self)
        raw.storeBytes(of: SIMD4(hi[0], hi[1], zw[2], zw[3]), toByteOffset: base + 128, as: SIMD4<Float>.self)
        raw.storeBytes(of: SIMD4(hi[2], hi[3], zw[2], zw[3]), toByteOffset: base + 192, as: SIMD4<Float>.self)
      }
    }
    pairs(0, zw0, 0)
    pairs(2, zw0, 1)
    pairs(4, zw1, 3)
    let row2 = SIMD4<Float>(0, 0, 1, 0)
    for k in 0..<8 { raw.storeBytes(of: row2, toByteOffset: 64 * k + 32, as: SIMD4<Float>.self) }
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
        q.withMemoryRebound(to: Float.self, capacity: 128) { storeMatrices8($0, to: p) }
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
  /// SoA -> AoS for 8 cells: 16 lane vectors (128 Floats at `soa`, entry e of cell k at
  /// 8 e + k) to 8 consecutive 64-byte matrices. Each quarter (entries 4r ..< 4r + 4, one
  /// CATransform3D row) is two 4 x 4 transposes on SIMD4 halves (unpack low/high, then
  /// move low/high pairs), then 16-byte stores. Out of line for the reason given at
  /// `storePlanar8`.
  @usableFromInline @inline(never)
  static func storeMatrices8(_ soa: UnsafePointer<Float>, to p: UnsafeMutablePointer<Float>) {
    let v = UnsafeRawPointer(soa)
    let raw = UnsafeMutableRawPointer(p)
    @inline(__always)
    func transpose4(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>, _ offset: Int) {
      let t0 = SIMD4(a[0], b[0], a[1], b[1]), t1 = SIMD4(a[2], b[2], a[3], b[3])
      let t2 = SIMD4(c[0], d[0], c[1], d[1]), t3 = SIMD4(c[2], d[2], c[3], d[3])
      raw.storeBytes(of: SIMD4(t0[0], t0[1], t2[0], t2[1]), toByteOffset: offset, as: SIMD4<Float>.self)
      raw.storeBytes(of: SIMD4(t0[2], t0[3], t2[2], t2[3]), toByteOffset: offset + 64, as: SIMD4<Float>.self)
      raw.storeBytes(of: SIMD4(t1[0], t1[1], t3[0], t3[1]), toByteOffset: offset + 128, as: SIMD4<Float>.self)
      raw.storeBytes(of: SIMD4(t1[2], t1[3], t3[2], t3[3]), toByteOffset: offset + 192, as: SIMD4<Float>.self)
    }
    for row in 0..<4 {
      @inline(__always) func lane(_ e: Int) -> SIMD8<Float> {
        v.loadUnaligned(fromByteOffset: 32 * (4 * row + e), as: SIMD8<Float>.self)
      }
      let a = lane(0), b = lane(1), c = lane(2), d = lane(3)
      transpose4(a.lowHalf, b.lowHalf, c.lowHalf, d.lowHalf, 16 * row)  // cells 0-3
      transpose4(a.highHalf, b.highHalf, c.highHalf, d.highHalf, 256 + 16 * row)  // cells 4-7
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
