// Short soak runs for `swift test` (seconds at -Onone): a few generated sessions checked
// every frame, the script format round trip, and the shrinker on a planted violation.

import CellMotion
import CellMotionTable
import Testing
import _SoakSupport
import _TestSupport

@Suite("Soak: model-based sessions")
struct SoakTests {
  @Test("Generated sessions break no invariant", arguments: [UInt64(1), 2, 3, 4])
  func sessions(seed: UInt64) {
    var options = SoakOptions()
    options.kernelEvery = 3
    let r = Soak.runSession(seed: Soak.sessionSeed(seed, 0), maxRows: 5000, frames: 300, options: options)
    #expect(r.violation == nil, "\(r.violation.map { "\($0)\n" + r.script.text() } ?? "")")
  }
}
