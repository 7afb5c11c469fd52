// Error measures that cannot hide a NaN. Swift's `max(1, .nan)` is 1 and `[1, .nan].max()`
// is 1, so a maximum taken with them lets a NaN result pass its tolerance; these count a
// NaN as infinitely large. `worstOf(_:_:)` (TestSupport.swift) is the two-argument form.

/// The largest of `values` (0 for none), a NaN counting as infinitely large.
public func worstOf<S: Sequence>(_ values: S) -> S.Element where S.Element: FloatingPoint {
  values.reduce(0, worstOf)
}

/// How far `x` lies outside [lo, hi] (0 inside), infinitely far when any of them is NaN
/// (`max(0, lo - x, x - hi)` would give 0 for a NaN `x`).
public func distanceOutside<T: FloatingPoint>(_ x: T, _ lo: T, _ hi: T) -> T {
  if x.isNaN || lo.isNaN || hi.isNaN { return .infinity }
  return Swift.max(0, lo - x, x - hi)
}
