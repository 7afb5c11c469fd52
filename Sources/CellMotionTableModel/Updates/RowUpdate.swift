// A batch update of a table's rows, as `UITableView.performBatchUpdates` takes it: deletions,
// insertions, moves, reloads and height changes applied at once.
//
// Goals, in priority order:
// 1. UIKit's index conventions exactly: deletions, reloads, move sources and height changes
//    name rows before the update; insertions and move destinations name rows after it.
//    Every batch UITableView would refuse is refused here with a typed error naming the
//    rule (`CellMotionError.invalidUpdate`).
// 2. A batch is plain data (Sendable, Equatable), built with calls named like UIKit's.

import CellMotion

/// A row's stable identity: it stays with the row through insertions, deletions and moves
/// of other rows (a diffable data source's item identifier).
public struct RowID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The identifier's value.
  public var rawValue: Int

  /// An identifier with value `rawValue`.
  public init(_ rawValue: Int) { self.rawValue = rawValue }

  public static func < (a: RowID, b: RowID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "#\(rawValue)" }
}

/// How an inserted, deleted or reloaded row animates: the cases of `UITableView.RowAnimation`.
/// `RowAnimationRecipes` turns each into a recipe (its documentation says what each does).
public enum RowAnimation: String, Sendable, Equatable, CaseIterable, Codable {
  /// Fades in (insertion) or out (deletion).
  case fade
  /// Slides in from the right edge, or out to it.
  case right
  /// Slides in from the left edge, or out to it.
  case left
  /// Slides down from behind the row above, or up behind it.
  case top
  /// Slides up from below into its place, or down out of it.
  case bottom
  /// No animation of the row itself: it appears or disappears at once (the other rows
  /// still slide).
  case none
  /// Stays centred in the space it will occupy (or did), which grows (or shrinks).
  case middle
  /// The table chooses (`RowAnimationRecipes.resolve`).
  case automatic
}

/// One batch of row changes, applied at once (`TableRows.apply`, `TableSimulation.performBatchUpdates`).
///
/// Index conventions are UIKit's: `deleteRows`, `reloadRows`, the `from` of `moveRow` and
/// `setHeight` name rows as they are before the update; `insertRows` and the `to` of
/// `moveRow` name rows as they are after it. The row count after the update is the count
/// before, minus the deletions, plus the insertions. Heights are points.
public struct RowUpdate: Sendable, Equatable {
  /// An inserted row: its index after the update, its height in points, its identifier
  /// (nil: the table issues a fresh one) and how it animates.
  public struct Insertion: Sendable, Equatable {
    public var index: Int
    public var height: Double
    public var id: RowID?
    public var animation: RowAnimation
  }
  /// A deleted row: its index before the update and how it animates.
  public struct Deletion: Sendable, Equatable {
    public var index: Int
    public var animation: RowAnimation
  }
  /// A reloaded row (its contents change in place: the old contents animate out and the new
  /// in): its index before the update, its new height in points (nil: unchanged) and how
  /// it animates.
  public struct Reload: Sendable, Equatable {
    public var index: Int
    public var height: Double?
    public var animation: RowAnimation
  }
  /// A moved row: its index before the update and after it.
  public struct Move: Sendable, Equatable {
    public var from: Int
    public var to: Int
  }
  /// A row whose height changes (it stays where it is in the order): its index before the
  /// update and its new height in points.
  public struct HeightChange: Sendable, Equatable {
    public var index: Int
    public var height: Double
  }

  public private(set) var insertions: [Insertion] = []
  public private(set) var deletions: [Deletion] = []
  public private(set) var reloads: [Reload] = []
  public private(set) var moves: [Move] = []
  public private(set) var heightChanges: [HeightChange] = []

  /// An empty batch.
  public init() {}

  /// Whether the batch changes nothing.
  public var isEmpty: Bool {
    insertions.isEmpty && deletions.isEmpty && reloads.isEmpty && moves.isEmpty && heightChanges.isEmpty
  }

  /// Inserts rows at `indices` (indexes after the update), each `height` points tall.
  ///
  /// - Parameters:
  ///   - indices: where the new rows are after the update.
  ///   - height: each new row's height, points.
  ///   - ids: the new rows' identifiers, one per index, or nil to let the table issue fresh
  ///     ones.
  ///   - animation: how they animate in.
  /// Checked when the batch is applied.
  public mutating func insertRows(
    at indices: some Sequence<Int>, height: Double, ids: [RowID]? = nil, with animation: RowAnimation = .automatic
  ) {
    for (k, i) in indices.enumerated() {
      insertions.append(
        Insertion(index: i, height: height, id: ids.flatMap { k < $0.count ? $0[k] : nil }, animation: animation))
    }
  }

  /// Inserts one row at `index` (after the update), `height` points tall.
  public mutating func insertRow(at index: Int, height: Double, id: RowID? = nil, with animation: RowAnimation = .automatic) {
    insertions.append(Insertion(index: index, height: height, id: id, animation: animation))
  }

  /// Deletes the rows at `indices` (indexes before the update).
  public mutating func deleteRows(at indices: some Sequence<Int>, with animation: RowAnimation = .automatic) {
    for i in indices { deletions.append(Deletion(index: i, animation: animation)) }
  }

  /// Reloads the rows at `indices` (before the update): their old contents animate out and
  /// their new contents in, in place. `height` (points) is their new height, nil to keep it.
  public mutating func reloadRows(
    at indices: some Sequence<Int>, height: Double? = nil, with animation: RowAnimation = .automatic
  ) {
    for i in indices { reloads.append(Reload(index: i, height: height, animation: animation)) }
  }

  /// Moves the row at `from` (before the update) to `to` (after it).
  public mutating func moveRow(at from: Int, to: Int) { moves.append(Move(from: from, to: to)) }

  /// Sets the height of the row at `index` (before the update) to `height` points; the row
  /// and those below animate to it.
  public mutating func setHeight(ofRow index: Int, to height: Double) {
    heightChanges.append(HeightChange(index: index, height: height))
  }
}
