// The README's library example, compiled and run as written (with a check that it agrees
// with the reference sentence that follows it).

import CellMotion
import CellMotionKernel
import Testing

@Test("README example runs and matches the reference")
func readmeExample() throws {
  var batch = try CellBatch(recipes: [.tipIn], capacity: 10_000)
  for row in 0..<10_000 {
    try batch.append(
      recipe: 0, row: row, startTime: Double(row % 20) * 0.02, geometry: CellGeometry(width: 375, height: 80))
  }
  var frame = try FrameOutput(capacity: batch.count)
  try Kernel.evaluate(batch, at: 0.2, into: &frame)
  let m = frame.transform(ofCell: 42)
  let r = ReferenceEvaluator.evaluate(.tipIn, geometry: CellGeometry(width: 375, height: 80), row: 42, startTime: 0.04, time: 0.2)
  for i in 0..<4 {
    for j in 0..<4 { #expect(abs(m[i, j] - r.transform[i, j]) < 2e-5 * (i == 3 ? 375 : 1)) }
  }
}
