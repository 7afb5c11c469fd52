// Limits at the kernel's boundary: capacities and thread counts beyond their documented
// maxima are typed errors (never an arithmetic overflow, an allocation abort or a hang),
// and the inspection accessors trap with a message naming the index and the range.

import CellMotion
import Testing

@testable import CellMotionKernel

/// The standard error of an exit test, as text.
func standardError(_ result: ExitTest.Result?) -> String {
  String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

/// Expects the trap's message in its standard error where the build keeps it. An
/// optimised build (`-c release`, as the ThreadSanitizer run in Tools/docs/development.md) drops
/// precondition messages and traps silently; there only the failing exit, which
/// `processExitsWith: .failure` already asserts, is checked.
func expectTrapMessage(
  _ result: ExitTest.Result?, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #if DEBUG
    #expect(standardError(result).contains(message), "\(standardError(result))", sourceLocation: sourceLocation)
  #endif
}

@Suite("Kernel limits")
struct KernelLimitsTests {
  static let tooMany = "<= \(CellBatch.maxCapacity)"

  @Test("FrameOutput capacities beyond maxCapacity are typed errors, and ensureCapacity throws them")
  func frameOutputCapacity() throws {
    #expect(FrameOutput.maxCapacity == 1 << 24 && FrameOutput.maxCapacity == CellBatch.maxCapacity)
    #expect(throws: CellMotionError.outOfRange(field: "capacity", value: Double(Int.max / 8), expected: Self.tooMany)) {
      try FrameOutput(capacity: Int.max / 8)
    }
    #expect(throws: CellMotionError.outOfRange(field: "capacity", value: -1, expected: ">= 0")) {
      try FrameOutput(capacity: -1)
    }
    var out = try FrameOutput(capacity: 4, includeCorners: true)
    for n in [Int.max, Int.max / 16 + 1, FrameOutput.maxCapacity + 1] {
      #expect(throws: CellMotionError.outOfRange(field: "capacity", value: Double(n), expected: Self.tooMany)) {
        try out.ensureCapacity(n)
      }
    }
    #expect(out.capacity == 4 && out.matrices.count == 64 && out.corners.count == 32, "unchanged after the errors")
    try out.ensureCapacity(-3)
    try out.ensureCapacity(10)
    #expect(out.capacity == 10 && out.matrices.count == 160 && out.foldTop.count == 160 && out.corners.count == 80)
  }

  @Test("CellBatch capacities beyond maxCapacity are typed errors")
  func cellBatchCapacity() throws {
    #expect(CellBatch.maxCapacity == 1 << 24)
    #expect(throws: CellMotionError.outOfRange(field: "capacity", value: Double(1 << 60), expected: Self.tooMany)) {
      try CellBatch(recipes: [.fadeIn], capacity: 1 << 60)
    }
    #expect(throws: CellMotionError.outOfRange(field: "capacity", value: -2, expected: ">= 0")) {
      try CellBatch(recipes: [.fadeIn], capacity: -2)
    }
    var batch = try CellBatch(recipes: [.fadeIn], capacity: 2)
    #expect(throws: CellMotionError.outOfRange(field: "capacity", value: Double(Int.max), expected: Self.tooMany)) {
      try batch.reserveCapacity(Int.max)
    }
    try batch.reserveCapacity(-1)
    try batch.reserveCapacity(100)
    #expect(batch.start.capacity >= 100)
  }

  @Test("Thread counts outside 1...maxThreads and negative thresholds are typed errors, not overflows or hangs")
  func threadCounts() throws {
    #expect(KernelOptions.maxThreads == 64)
    #expect((1...KernelOptions.maxThreads).contains(KernelOptions.allCores.threads))
    let n = 1001
    var batch = try CellBatch(recipes: [.tipIn, .fadeIn], capacity: n)
    for i in 0..<n {
      try batch.append(recipe: (i / 100) % 2, row: i, startTime: Double(i % 7) * 0.03, geometry: CellGeometry(width: 320, height: 60))
    }
    var out = try FrameOutput(capacity: n)
    for threads in [Int.max, 1 << 40, Int.max / 4 + 1, KernelOptions.maxThreads + 1, 0, -1, Int.min] {
      #expect(
        throws: CellMotionError.outOfRange(
          field: "threads", value: Double(threads), expected: "in [1, \(KernelOptions.maxThreads)]")
      ) { try Kernel.evaluate(batch, at: 0.2, into: &out, options: KernelOptions(threads: threads, parallelThreshold: 0)) }
    }
    #expect(throws: CellMotionError.outOfRange(field: "parallelThreshold", value: -1, expected: ">= 0")) {
      try Kernel.evaluate(batch, at: 0.2, into: &out, options: KernelOptions(threads: 2, parallelThreshold: -1))
    }
    // The largest accepted count splits even a small batch (256 chunks of 8-cell groups,
    // most of them empty) and gives the one-thread result bit for bit.
    var one = try FrameOutput(capacity: n)
    try Kernel.evaluate(batch, at: 0.2, into: &one)
    for threads in [3, KernelOptions.maxThreads] {
      try Kernel.evaluate(batch, at: 0.2, into: &out, options: KernelOptions(threads: threads, parallelThreshold: 0))
      #expect(out.matrices == one.matrices && out.opacity == one.opacity, "threads \(threads)")
    }
  }

  @Test("projectionScratchCount saturates instead of overflowing")
  func projectionScratchCount() {
    #expect(MatrixStages.projectionScratchCount(count: 10, backend: .blas) == 320)
    #expect(MatrixStages.projectionScratchCount(count: Int.max, backend: .blas) == Int.max)
    #expect(MatrixStages.projectionScratchCount(count: Int.max / 32 + 1, backend: .blas) == Int.max)
    #expect(MatrixStages.projectionScratchCount(count: Int.max, backend: .simd) == 0)
  }

  @Test("FrameOutput.transform(ofCell:) past the evaluated cells traps naming the index and the range")
  func transformOfCellPrecondition() async {
    // Inside the capacity (16) but past the 10 cells evaluated: stale, not a result.
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var batch = try CellBatch(recipes: [.fadeIn], capacity: 10)
      for i in 0..<10 { try batch.append(recipe: 0, row: i, startTime: 0, geometry: CellGeometry(width: 10, height: 10)) }
      var out = try FrameOutput(capacity: 16)
      try Kernel.evaluate(batch, at: 0.1, into: &out)
      _ = out.transform(ofCell: 12)
    }
    expectTrapMessage(result, "FrameOutput: cell index 12 out of range 0..<10")
  }

  @Test("Fold halves of an output without fold buffers trap saying so")
  func foldTransformPrecondition() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var batch = try CellBatch(recipes: [.fadeIn], capacity: 1)
      try batch.append(recipe: 0, row: 0, startTime: 0, geometry: CellGeometry(width: 10, height: 10))
      var out = try FrameOutput(capacity: 1, includeFold: false)
      try Kernel.evaluate(batch, at: 0.1, into: &out)
      _ = out.foldBottomTransform(ofCell: 0)
    }
    expectTrapMessage(result, "FrameOutput: fold halves read from an output made with includeFold: false")
  }

  @Test("CellBatch.endTime(ofCell:) out of range traps naming the index and the range")
  func endTimePrecondition() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var batch = try CellBatch(recipes: [.fadeIn], capacity: 3)
      for i in 0..<3 { try batch.append(recipe: 0, row: i, startTime: 0, geometry: CellGeometry(width: 10, height: 10)) }
      _ = batch.endTime(ofCell: -1)
    }
    expectTrapMessage(result, "CellBatch: cell index -1 out of range 0..<3")
  }
}
