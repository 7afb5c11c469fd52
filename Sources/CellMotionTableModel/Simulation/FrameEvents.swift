// What the table side of the frame stepper produces for one frame.

/// The table's state and events for one frame. Reuse one value across frames with
/// `TableSimulation.step(to:into:)`: arrays are cleared keeping their capacity.
public struct FrameEvents: Sendable, Equatable {
  /// Frame time in seconds.
  public package(set) var time: Double = 0
  /// Scroll offset in points (y of the viewport's top edge in content coordinates).
  public package(set) var scrollOffset: Double = 0
  /// Content height in points, including animated row heights.
  public package(set) var contentHeight: Double = 0
  /// Rows intersecting the viewport (plus overscan), with animated heights.
  public package(set) var visibleRange: Range<Int> = 0..<0
  /// willDisplay, didEndDisplaying and the animations to start this frame.
  public package(set) var display = DisplayEvents()
  /// For each row in `visibleRange` (index `row - visibleRange.lowerBound`): y of its top
  /// edge in viewport coordinates, points (`rowOffset - scrollOffset`, animated heights
  /// included; negative when partly above the viewport).
  public package(set) var rowPositions: [Double] = []
  /// For each row in `visibleRange`: its height in points, animated heights included.
  public package(set) var rowHeights: [Double] = []
  /// Visible rows whose detail is folding (opening or closing) this frame, in increasing
  /// row order. Run the fold recipe at local time `time - fold.startTime`.
  public package(set) var folds: [(row: Int, fold: FoldAnimation)] = []

  /// Row animations of batch updates drawn this frame (inserted, deleted and reloaded rows),
  /// in the order they started, with where they are drawn.
  public package(set) var updateCells: [UpdateCellFrame] = []
  /// Rows a batch moved that are drawn this frame outside `visibleRange` (sliding from
  /// or to a place far from the visible rows): row, viewport y of the top edge and height,
  /// points.
  public package(set) var movingRows: [(row: Int, y: Double, height: Double)] = []

  /// Empty events, to pass to `TableSimulation.step(to:into:)`.
  public init() {}

  /// Rows entering the visible range this frame, increasing.
  public var willDisplay: [Int] { display.willDisplay }
  /// Rows leaving the visible range this frame, increasing.
  public var didEndDisplaying: [Int] { display.didEndDisplaying }
  /// Animations to start this frame.
  public var animationStarts: [AnimationStart] { display.animationStarts }

  /// The y of `row`'s top edge in viewport points, or nil if it is not visible.
  ///
  /// - Complexity: O(1).
  public func position(ofRow row: Int) -> Double? {
    visibleRange.contains(row) ? rowPositions[row - visibleRange.lowerBound] : nil
  }

  /// Exact equality of every field (frames are reproducible bit for bit).
  public static func == (lhs: FrameEvents, rhs: FrameEvents) -> Bool {
    lhs.time == rhs.time && lhs.scrollOffset == rhs.scrollOffset
      && lhs.contentHeight == rhs.contentHeight && lhs.visibleRange == rhs.visibleRange
      && lhs.display == rhs.display && lhs.rowPositions == rhs.rowPositions
      && lhs.rowHeights == rhs.rowHeights
      && lhs.folds.elementsEqual(rhs.folds) { $0.row == $1.row && $0.fold == $1.fold }
      && lhs.updateCells == rhs.updateCells
      && lhs.movingRows.elementsEqual(rhs.movingRows) { $0.row == $1.row && $0.y == $1.y && $0.height == $1.height }
  }
}

/// A row animation of a batch update in one frame: the cell and where it is drawn.
public struct UpdateCellFrame: Sendable, Equatable {
  public var cell: UpdateCell
  /// Viewport y of the cell's top edge, points (the row's place with its slides, or where a
  /// deleted row was).
  public var y: Double
  /// The cell's height, points.
  public var height: Double
}
