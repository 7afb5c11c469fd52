// Frame times of a display refreshing at a fixed rate.

import CellMotion

/// The presentation times of a display that refreshes `rate` times per second.
///
/// Frame `n` is shown at `t_n = n / rate` seconds. Times are computed by one division,
/// never by accumulating the frame interval, so frame 1,000,000 has no drift.
public struct FrameClock: Sendable, Equatable {
  /// Refresh rate in frames per second (Hz), finite, > 0 and not subnormal.
  public let rate: Double

  /// A clock at `rate` frames per second (Hz).
  ///
  /// - Throws: `CellMotionError.notFinite` / `.outOfRange` unless `rate` is finite, > 0
  ///   and not subnormal (at least 2.2e-308, so that `frameInterval` is finite).
  public init(rate: Double) throws(CellMotionError) {
    try Check.positive(rate, "rate")
    self.rate = rate
  }

  private init(unchecked rate: Double) { self.rate = rate }

  /// 60 Hz (most iPhones).
  public static let hz60 = FrameClock(unchecked: 60)
  /// 120 Hz (ProMotion displays).
  public static let hz120 = FrameClock(unchecked: 120)

  /// Seconds between two frames, `1 / rate`.
  public var frameInterval: Double { 1 / rate }

  /// The time of frame `n` in seconds, `Double(n) / rate`.
  ///
  /// - Complexity: O(1).
  public func time(ofFrame n: Int) -> Double { Double(n) / rate }

  /// The number of frames in `[0, duration]` seconds: frames `0...floor(duration * rate)`
  /// (with a 1e-9 frame tolerance so that `duration = n / rate` includes frame `n`).
  ///
  /// - Throws: `CellMotionError` unless `duration` is finite and >= 0.
  /// - Complexity: O(1).
  public func frameCount(through duration: Double) throws(CellMotionError) -> Int {
    try Check.nonNegative(duration, "duration")
    let last = (duration * rate + 1e-9).rounded(.down)
    guard last < Double(Int.max - 1) else {
      throw .outOfRange(field: "duration", value: duration, expected: "fewer than Int.max frames")
    }
    return Int(last) + 1
  }
}
