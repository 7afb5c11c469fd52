// When the parts of a batch update animate, and what each row animation style does, as
// recipes.
//
// Sources (facts, not code):
// - UIKit: `performBatchUpdates` animates every change of a batch at once. Apple documents
//   no duration or curve for row animations; the 0.3 s ease-in-ease-out used here is the
//   value commonly measured and the one UIKit's own animations default to.
//   `UITableView.RowAnimation.automatic` "chooses an appropriate animation style": a row at
//   the beginning of its section uses `.bottom`, one at the end `.top` (WWDC 2011, "UITableView
//   Changes, Tips, Tricks"); elsewhere we use `.fade`.
// - RecyclerView's DefaultItemAnimator (AndroidX): removals first; moves and changes after
//   the remove duration (when something is removed); additions after the remove duration
//   plus the longer of the move and change durations (each counted only when that kind is
//   present). Defaults: add 120 ms, remove 120 ms, move 250 ms, change 250 ms, all with
//   AccelerateDecelerateInterpolator (0.5 - 0.5 cos(pi x)), which the cubic Bezier
//   (0.37, 0, 0.63, 1) follows to within 0.003 (measured by the tests).

import CellMotion

/// When a batch update's parts animate: how long each takes, the curve of the rows' slides
/// and height changes, and whether the parts run at once (UIKit) or one after another
/// (RecyclerView).
public struct UpdateTiming: Sendable, Equatable {
  /// How the parts of one batch are ordered in time.
  public enum Order: String, Sendable, Equatable, CaseIterable {
    /// Everything starts when the batch is applied (`UITableView.performBatchUpdates`).
    case simultaneous
    /// RecyclerView's DefaultItemAnimator: removals, then moves and changes, then additions.
    case phased
  }

  public var order: Order
  /// Seconds a deleted row (and a reloaded row's old contents) takes to animate out.
  public var removeDuration: Double
  /// Seconds rows take to slide to their new places (and to change height).
  public var moveDuration: Double
  /// Seconds a reloaded row's contents take to change.
  public var changeDuration: Double
  /// Seconds an inserted row takes to animate in.
  public var addDuration: Double
  /// The curve of the slides and height changes (and of the standard row recipes).
  public var curve: AnimationCurve
  /// Delays between the inserted rows of one batch, by their position among them in
  /// increasing row order (`Stagger.base` `.batchPosition`; `.row` uses the row index).
  public var insertionStagger: Stagger

  /// - Throws: `CellMotionError` for a duration outside `InputLimits.duration` or a stagger
  ///   `Stagger.validate` refuses.
  public init(
    order: Order, removeDuration: Double, moveDuration: Double, changeDuration: Double, addDuration: Double,
    curve: AnimationCurve, insertionStagger: Stagger = .none
  ) throws(CellMotionError) {
    self.order = order
    self.removeDuration = removeDuration
    self.moveDuration = moveDuration
    self.changeDuration = changeDuration
    self.addDuration = addDuration
    self.curve = curve
    self.insertionStagger = insertionStagger
    try validate()
  }

  /// Checks every number (the properties are `var`, so a changed timing is checked again
  /// where it is used: `TableSimulation.init`).
  ///
  /// - Throws: `CellMotionError` for a duration outside `InputLimits.duration` or a stagger
  ///   `Stagger.validate` refuses.
  public func validate() throws(CellMotionError) {
    for (d, f) in [(removeDuration, "removeDuration"), (moveDuration, "moveDuration"), (changeDuration, "changeDuration"), (addDuration, "addDuration")] {
      try Check.within(d, InputLimits.duration, f)
    }
    try insertionStagger.validate("insertionStagger")
  }

  /// UIKit: everything at once, 0.3 s, ease-in-ease-out.
  public static let uiKit = try! UpdateTiming(
    order: .simultaneous, removeDuration: 0.3, moveDuration: 0.3, changeDuration: 0.3, addDuration: 0.3,
    curve: .bezier(.easeInEaseOut))

  /// The cubic Bezier that stands for Android's AccelerateDecelerateInterpolator
  /// (0.5 - 0.5 cos(pi x)).
  public static let accelerateDecelerate = try! TimingCurve(x1: 0.37, y1: 0, x2: 0.63, y2: 1)

  /// RecyclerView's DefaultItemAnimator: phased; add 0.12 s, remove 0.12 s, move 0.25 s,
  /// change 0.25 s; accelerate-decelerate.
  public static let recyclerView = try! UpdateTiming(
    order: .phased, removeDuration: 0.12, moveDuration: 0.25, changeDuration: 0.25, addDuration: 0.12,
    curve: .bezier(accelerateDecelerate))

  /// Seconds from the batch until each part starts, given which parts the batch has.
  ///
  /// `.simultaneous`: all 0. `.phased` (DefaultItemAnimator): removals at 0; moves and
  /// changes at the remove duration if anything is removed, else 0; additions at (the
  /// remove duration if anything is removed) + the longer of (the move duration if
  /// anything moves) and (the change duration if anything changes).
  public func delays(removes: Bool, moves: Bool, changes: Bool) -> (remove: Double, move: Double, change: Double, add: Double) {
    guard order == .phased else { return (0, 0, 0, 0) }
    let r = removes ? removeDuration : 0
    return (0, r, r, r + max(moves ? moveDuration : 0, changes ? changeDuration : 0))
  }
}

/// What a row animation does to the row it applies to.
public enum RowChange: String, Sendable, Equatable, CaseIterable {
  /// The row is inserted (or its new contents appear, in a reload).
  case insertion
  /// The row is deleted (or its old contents go, in a reload).
  case deletion
}

/// The recipe of each row animation style. Every style is a recipe, so it can be replaced
/// (`custom`); the standard ones are:
///
/// | style | insertion (its end: the row in place) | deletion (its start: the row in place) |
/// |---|---|---|
/// | fade | opacity 0 -> 1 | opacity 1 -> 0 |
/// | right | from one table width to the right | to one table width to the right |
/// | left | from one table width to the left | to one table width to the left |
/// | top | down from one row height above (behind the row above), fading in | up by its height, fading out |
/// | bottom | up from one row height below, fading in | down by its height, fading out |
/// | middle | centred in its growing space: from half its height up, fading in | centred in its shrinking space, fading out |
/// | none | no animation | no animation |
///
/// Inserted and deleted rows draw behind the others (`UpdateCell.isBehind`), so a row that
/// slides from behind its neighbour is hidden by it, as in UIKit. A reload runs the
/// deletion recipe on the old contents and the insertion recipe on the new, at once (a
/// cross-fade for `.fade`).
public struct RowAnimationRecipes: Sendable {
  /// The timing the standard recipes take their durations and curve from.
  public var timing: UpdateTiming
  /// Replacements, keyed by style and change (an `.automatic` key is never used: it
  /// resolves to another style first).
  public var custom: [RowAnimationKey: Recipe] = [:]

  public init(timing: UpdateTiming = .uiKit) { self.timing = timing }

  /// The recipe for `style` (not `.automatic`) and `change`; `reload` picks the change
  /// duration instead of the add or remove duration.
  public func recipe(_ style: RowAnimation, _ change: RowChange, reload: Bool = false) -> Recipe {
    if let r = custom[RowAnimationKey(style: style, change: change, reload: reload)] { return r }
    return Self.standard(
      style, change,
      duration: reload ? timing.changeDuration : (change == .insertion ? timing.addDuration : timing.removeDuration),
      curve: timing.curve)
  }

  /// The standard recipe of `style` for `change`, lasting `duration` seconds along `curve`.
  public static func standard(_ style: RowAnimation, _ change: RowChange, duration: Double, curve: AnimationCurve) -> Recipe {
    // Insertions run from the offset state to the row in place; deletions the other way.
    func channel(_ c: Channel, away: ChannelValue, home: ChannelValue) -> ChannelAnimation {
      change == .insertion
        ? ChannelAnimation(c, from: away, to: home, curve: curve, duration: duration)
        : ChannelAnimation(c, from: home, to: away, curve: curve, duration: duration)
    }
    let fade = channel(.opacity, away: 0, home: 1)
    let channels: [ChannelAnimation]
    switch style {
    case .fade, .automatic: channels = [fade]
    case .right: channels = [channel(.translationX, away: .tableWidth(1), home: 0)]
    case .left: channels = [channel(.translationX, away: .tableWidth(-1), home: 0)]
    case .top: channels = [channel(.translationY, away: .cellHeight(-1), home: 0), fade]
    case .bottom: channels = [channel(.translationY, away: .cellHeight(1), home: 0), fade]
    case .middle: channels = [channel(.translationY, away: .cellHeight(-0.5), home: 0), fade]
    case .none: channels = []
    }
    return Recipe(
      name: "row-\(change.rawValue)-\(style.rawValue)", channels: channels,
      timing: RecipeTiming(fillMode: .both))
  }

  /// The style `.automatic` stands for: `.bottom` for a row at the start of the table,
  /// `.top` for one at its end, `.fade` elsewhere and for reloads. Other styles are
  /// returned as they are.
  public static func resolve(_ style: RowAnimation, row: Int, rowCount: Int, reload: Bool = false) -> RowAnimation {
    guard style == .automatic else { return style }
    if reload || rowCount <= 1 { return .fade }
    if row == 0 { return .bottom }
    if row == rowCount - 1 { return .top }
    return .fade
  }
}

/// A key of `RowAnimationRecipes.custom`.
public struct RowAnimationKey: Sendable, Hashable {
  public var style: RowAnimation
  public var change: RowChange
  /// Whether the recipe is for a reload's contents (old: `.deletion`, new: `.insertion`).
  public var reload: Bool
  public init(style: RowAnimation, change: RowChange, reload: Bool = false) {
    self.style = style
    self.change = change
    self.reload = reload
  }

  /// Number of distinct keys: `_slot` is in `0 ..< _slots`.
  static let _slots = 8 * 2 * 2

  /// A dense number for the key (style, change, reload), for tables indexed by key.
  var _slot: Int {
    let s: Int
    switch style {
    case .fade: s = 0
    case .right: s = 1
    case .left: s = 2
    case .top: s = 3
    case .bottom: s = 4
    case .none: s = 5
    case .middle: s = 6
    case .automatic: s = 7
    }
    return (s * 2 + (change == .insertion ? 0 : 1)) * 2 + (reload ? 1 : 0)
  }
}
