// Transform3D's subscript outside 0..<4 traps with a message naming the index and the
// range (exit tests: each runs in a child process).

import Testing

@testable import CellMotion

extension Transform3DTests {
  @Test("Reading [4, 0] traps naming the index and the range")
  func subscriptGetPrecondition() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Transform3D.identity[4, 0]
    }
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    // Optimised builds drop precondition messages (the trap itself is checked above).
    #if DEBUG
      #expect(text.contains("Transform3D index [4, 0] out of range: row and column must be in 0..<4"), "\(text)")
    #else
      _ = text
    #endif
  }

  @Test("Writing [0, -1] traps naming the index and the range")
  func subscriptSetPrecondition() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      var m = Transform3D.identity
      m[0, -1] = 2
    }
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    // Optimised builds drop precondition messages (the trap itself is checked above).
    #if DEBUG
      #expect(text.contains("Transform3D index [0, -1] out of range: row and column must be in 0..<4"), "\(text)")
    #else
      _ = text
    #endif
  }
}
