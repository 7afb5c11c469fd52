// Limits at the kernel's boundary: capacities beyond their documented maxima are typed
// errors (never an arithmetic overflow or an allocation abort).

import CellMotion
import Testing

@testable import CellMotionKernel

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
}
