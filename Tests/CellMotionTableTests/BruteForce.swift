// Brute-force oracles for the table tests: O(n) scans with the documented definitions.

import CellMotion
import CellMotionTable
import _TestSupport

/// The visible rows by scanning every row with the documented predicate: row i with top a
/// and bottom b is visible in [lower, upper) iff a < upper and (b > lower or a >= lower).
/// Returns the range, or nil when the visible rows are not contiguous (a bug).
func bruteForceVisible(
  rowCount: Int, top: (Int) throws -> Double, lower: Double, upper: Double
) rethrows -> (range: Range<Int>?, firstBelow: Int) {
  var first: Int? = nil
  var last: Int? = nil
  var contiguous = true
  var firstBelow = rowCount
  for i in 0..<rowCount {
    let a = try top(i)
    let b = try top(i + 1)
    if firstBelow == rowCount, b > lower || a >= lower { firstBelow = i }
    if a < upper && (b > lower || a >= lower) {
      if let l = last, l != i - 1 { contiguous = false }
      if first == nil { first = i }
      last = i
    }
  }
  guard contiguous else { return (nil, firstBelow) }
  if let first, let last { return (first..<(last + 1), firstBelow) }
  return (firstBelow..<firstBelow, firstBelow)
}

/// Random heights: about 20 % zero, 20 % whole points, the rest fractional in [0, 120].
func randomHeights(count: Int, using rng: inout SeededGenerator) -> [Double] {
  (0..<count).map { _ in
    switch rng.next() % 5 {
    case 0: return 0
    case 1: return Double(rng.next() % 120)
    default: return rng.uniform(0...120)
    }
  }
}
