// The values that configure display tracking and the values it reports.

import CellMotion

/// Which `willDisplay` events start an animation (tutorial recipe 8 in the Recipes article
/// of the CellMotion documentation).
public enum DisplayRule: Sendable, Equatable {
  /// Every `willDisplay` animates, including re-entries; `AnimationStart.appearance` says
  /// whether it is the row's first display since the last reload or a repeat, so a
  /// different recipe can be used for repeats (tutorial recipe 7 in the Recipes article of
  /// the CellMotion documentation).
  case always
  /// A row animates only the first time it is displayed after creation or `reload()`.
  case firstAppearanceOnly
  /// Only the first screenful animates: the rows of the first non-empty visible range
  /// (all entering in that frame). After the last of them has started, nothing animates
  /// until `reload()`.
  case firstScreenfulOnly
}

/// Whether a display is the row's first since creation or the last reload, or a repeat.
public enum Appearance: Sendable, Equatable {
  /// First display since creation or the last `reload()`.
  case first
  /// Second or later display (the row left the visible range and came back).
  case `repeat`
}

// Stagger: CellMotion's `Stagger` (step in seconds, base `.row` or `.batchPosition`) is used
// as is, so a recipe's stagger drives the table directly. `.row` is the tutorials'
// `delay = step * indexPath.row`: far down the table this gives huge delays (row 1,000
// waits 50 s at 0.05 s per row, so a scrolled-to cell stays at its start state long after
// it is on screen). `.batchPosition` multiplies the row's position among the rows that
// start animating in the same frame, in increasing row order: every batch cascades from 0,
// which is what users expect.

extension Stagger {
  /// Throws unless the stagger's numbers are valid (`Stagger.validate`).
  func _validated(_ field: String) throws(CellMotionError) -> Stagger {
    try validate(field)
    return self
  }
}

/// One cell animation to start: the row's recipe begins at `startTime + delay` seconds.
///
/// Like a UIView animation with a delay, the cell should hold the recipe's start state
/// from `startTime` (when it is displayed) until `beginTime` (fill backwards).
public struct AnimationStart: Sendable, Equatable {
  /// The row index.
  public var row: Int
  /// Time in seconds of the frame in which the row was displayed (`willDisplay`).
  public var startTime: Double
  /// Stagger delay in seconds, >= 0.
  public var delay: Double
  /// Whether this is the row's first display (since the last reload) or a repeat; pick
  /// the recipe accordingly.
  public var appearance: Appearance
  /// Position (0, 1, 2, ...) of this row among the rows starting in the same frame, in
  /// increasing row order.
  public var batchPosition: Int
  /// How many rows start in the same frame (the batch's size, for staggers from its last
  /// cell or its centre).
  public var batchCount: Int

  /// Creates an animation start.
  public init(
    row: Int, startTime: Double, delay: Double, appearance: Appearance, batchPosition: Int, batchCount: Int? = nil
  ) {
    self.row = row
    self.startTime = startTime
    self.delay = delay
    self.appearance = appearance
    self.batchPosition = batchPosition
    self.batchCount = batchCount ?? batchPosition + 1
  }

  /// When the recipe's local time 0 is reached, in seconds: `startTime + delay`.
  public var beginTime: Double { startTime + delay }
}

/// The display events of one frame. Reuse one value across frames: the tracker clears
/// the arrays keeping their capacity, so steady-state frames do not allocate.
public struct DisplayEvents: Sendable, Equatable {
  /// Rows entering the visible range this frame, increasing.
  public package(set) var willDisplay: [Int] = []
  /// Rows leaving the visible range this frame, increasing.
  public package(set) var didEndDisplaying: [Int] = []
  /// Animations to start, a subsequence of `willDisplay` in the same order.
  public package(set) var animationStarts: [AnimationStart] = []

  /// Empty events.
  public init() {}

  /// Empties all lists, keeping their capacity.
  public mutating func removeAll() {
    willDisplay.removeAll(keepingCapacity: true)
    didEndDisplaying.removeAll(keepingCapacity: true)
    animationStarts.removeAll(keepingCapacity: true)
  }
}
