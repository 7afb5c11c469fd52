// Reduce motion: what a recipe does when the user asks for less motion (UIKit's
// UIAccessibility.isReduceMotionEnabled, Android's animator duration scale 0, the
// prefers-reduced-motion media query). Apple's Human Interface Guidelines ("Motion"):
// when Reduce Motion is on, replace animations that move, zoom or spin with a dissolve
// (a fade) or none; keep changes of opacity and colour.

/// How much of a recipe moves.
public enum MotionPolicy: String, Sendable, Hashable, Codable, CaseIterable {
  /// Every channel as written (the default).
  case full
  /// Nothing moves: translation, rotation and scale channels, the matrix animation and the
  /// fold hold their end values from the cell's start; opacity and shadow opacity animate
  /// as written. A recipe that moves but has no opacity channel gets a cross-fade instead
  /// (`Recipe.reducedMotionCrossFade`), so the cell still eases in rather than popping.
  case reduced
  /// No animation: every channel, the matrix and the fold show their end values from the
  /// cell's start (opacity too).
  case none

  /// Whether `channel` holds its end value under this policy.
  public func holds(_ channel: Channel) -> Bool {
    switch self {
    case .full: return false
    case .reduced: return channel.movesTransform
    case .none: return true
    }
  }

  /// Whether the matrix animation and the fold hold their end states.
  public var holdsTransforms: Bool { self != .full }
}

extension Channel {
  /// Whether the channel moves the cell's transform (translation, rotation, scale), as
  /// opposed to its opacity or shadow opacity.
  public var movesTransform: Bool { self != .opacity && self != .shadowOpacity }
}

extension Recipe {
  /// The cross-fade `MotionPolicy.reduced` adds in place of the motion: opacity 0 -> 1,
  /// easeInEaseOut, over the delay and duration of the moving part that ends last (a
  /// transform channel, the matrix or the fold; the first of equals); nil when the recipe
  /// has an opacity channel (it is kept as written) or nothing that moves.
  public var reducedMotionCrossFade: ChannelAnimation? {
    guard !channels.contains(where: { $0.channel == .opacity }) else { return nil }
    var moving: [(delay: Double, duration: Double)] = channels.filter { $0.channel.movesTransform }.map { ($0.delay, $0.duration) }
    if let m = matrix { moving.append((m.delay, m.duration)) }
    if let f = fold { moving.append((0, f.duration)) }
    guard var last = moving.first else { return nil }
    for m in moving.dropFirst() where m.delay + m.duration > last.delay + last.duration { last = m }
    return ChannelAnimation(.opacity, from: 0, to: 1, curve: .bezier(.easeInEaseOut), duration: last.duration, delay: last.delay)
  }
}
