// The inputs of a scroll-driven effect: where the scroll view is (one frame) and where a cell
// is laid out. Every number is validated once, by the throwing initialisers; the timelines
// and effects then trust them.
//
// Conventions (UIKit's and CSS's, which agree here):
// - Content coordinates, points: a cell's layout frame is where the layout put it, never
//   moved by a transform (an effect's own transform must not feed back into its progress;
//   Chromium measures view-timeline subjects with kIgnoreTransforms for the same reason).
// - The scroll offset o is the content coordinate at the viewport's leading edge (UIKit's
//   contentOffset.y, CSS scrollTop). A cell whose leading edge is at s appears at s - o in
//   the viewport.
// - Insets shrink the visible part of the viewport to [o + startInset, o + V - endInset]
//   (UIKit's adjustedContentInset, CSS scroll-padding: what a view() timeline's `auto`
//   inset reads). Negative insets grow it.

/// The axis a list scrolls along.
public enum ScrollAxis: String, Sendable, Hashable, Codable, CaseIterable {
  /// A vertical list (UITableView; CSS `block` in horizontal writing modes, `y`).
  case vertical
  /// A horizontal list (a pager, a carousel; CSS `inline`, `x`).
  case horizontal
}

extension InputLimits {
  /// Signed lengths along a scroll axis, points: insets, range offsets in `px`, the
  /// distance limits of a timeline: `-1e6 ... 1e6`.
  public static let scrollLength: ClosedRange<Double> = -1e6...1e6

  /// The percentages of `animation-range` offsets and view-timeline insets, percent:
  /// `-1e6 ... 1e6`.
  public static let rangePercentage: ClosedRange<Double> = -1e6...1e6

  /// Cell positions, section ends and content extents along a scroll axis, points: the
  /// same range as scroll offsets (`scrollOffset`, `-1e15 ... 1e15`).
  public static var scrollPosition: ClosedRange<Double> { scrollOffset }
}

/// One axis of a scroll view at one frame, points.
///
/// The visibility range is `[offset + startInset, offset + viewportExtent - endInset]`
/// in content coordinates. `contentExtent` is only read by `scroll()` timelines
/// (`ScrollTimeline.Kind.scroll`), whose range is `0 ... contentExtent - viewportExtent`.
public struct ScrollAxisState: Sendable, Hashable {
  /// o: the content coordinate at the viewport's leading edge, points (UIKit contentOffset,
  /// CSS scrollTop or scrollLeft). Any value in `InputLimits.scrollOffset`: overscroll
  /// (a negative offset, or one past the end) is accepted as UIKit reports it.
  public let offset: Double
  /// V: the viewport's extent along the axis (bounds height or width), points, in
  /// `InputLimits.length`.
  public let viewportExtent: Double
  /// i0: the inset at the leading edge (top or left), points, in `InputLimits.scrollLength`.
  public let startInset: Double
  /// i1: the inset at the trailing edge (bottom or right), points, in
  /// `InputLimits.scrollLength`.
  public let endInset: Double
  /// The content's extent (contentSize, CSS scrollHeight), points, >= 0 and at most
  /// `InputLimits.scrollPosition`'s bound; nil when unknown.
  public let contentExtent: Double?

  /// - Throws: `.notFinite` for NaN or infinite numbers, `.outOfRange` for a number outside
  ///   its range (a viewport extent <= 0, a negative content extent).
  public init(
    offset: Double, viewportExtent: Double, startInset: Double = 0, endInset: Double = 0, contentExtent: Double? = nil
  ) throws(CellMotionError) {
    try Check.within(offset, InputLimits.scrollOffset, "scroll offset")
    try Check.length(viewportExtent, "viewport extent")
    try Check.within(startInset, InputLimits.scrollLength, "start inset")
    try Check.within(endInset, InputLimits.scrollLength, "end inset")
    if let contentExtent {
      try Check.within(contentExtent, 0...InputLimits.scrollPosition.upperBound, "content extent")
    }
    self.init(unchecked: offset, viewportExtent, startInset, endInset, contentExtent)
  }

  /// For values already validated (the axes of a `ScrollState`).
  init(unchecked offset: Double, _ viewportExtent: Double, _ startInset: Double, _ endInset: Double, _ contentExtent: Double?) {
    self.offset = offset
    self.viewportExtent = viewportExtent
    self.startInset = startInset
    self.endInset = endInset
    self.contentExtent = contentExtent
  }

  /// V - i0 - i1: the extent of the visibility range, points (may be <= 0 when the insets
  /// cover the viewport).
  public var visibleExtent: Double { viewportExtent - startInset - endInset }

  /// i0 + (V - i0 - i1) / 2: the centre of the visibility range in viewport coordinates,
  /// points from the viewport's leading edge.
  public var visibleCentre: Double { startInset + visibleExtent / 2 }
}

/// A cell's layout along one axis, points in content coordinates.
public struct CellSpan: Sendable, Hashable {
  /// s: the content coordinate of the cell's leading edge (its layout position, never a
  /// transformed one), in `InputLimits.scrollPosition`.
  public let start: Double
  /// S: the cell's extent along the axis, points, in `InputLimits.length`.
  public let extent: Double
  /// For a section header: the content coordinate where its section ends (the bottom of
  /// its last row, where the next header starts in UITableView's plain style); nil
  /// otherwise. Sticky headers stop there. A section end before the header's own end is
  /// accepted and read as UIKit's clamp reads it (the header is pushed up by the
  /// difference), never as an error.
  public let sectionEnd: Double?

  /// - Throws: `.notFinite` / `.outOfRange` for numbers outside their ranges.
  public init(start: Double, extent: Double, sectionEnd: Double? = nil) throws(CellMotionError) {
    try Check.within(start, InputLimits.scrollPosition, "cell start")
    try Check.length(extent, "cell extent")
    if let sectionEnd { try Check.within(sectionEnd, InputLimits.scrollPosition, "section end") }
    self.init(unchecked: start, extent, sectionEnd)
  }

  init(unchecked start: Double, _ extent: Double, _ sectionEnd: Double?) {
    self.start = start
    self.extent = extent
    self.sectionEnd = sectionEnd
  }

  /// s + S, points.
  public var end: Double { start + extent }
}

/// A scroll view at one frame, both axes, points (UIScrollView's contentOffset, bounds size,
/// adjustedContentInset and contentSize).
public struct ScrollState: Sendable, Hashable {
  public let offsetX: Double, offsetY: Double
  public let viewportWidth: Double, viewportHeight: Double
  public let insetTop: Double, insetLeft: Double, insetBottom: Double, insetRight: Double
  public let contentWidth: Double?, contentHeight: Double?

  /// - Throws: as `ScrollAxisState.init` for each axis.
  public init(
    offsetX: Double = 0, offsetY: Double = 0, viewportWidth: Double, viewportHeight: Double, insetTop: Double = 0,
    insetLeft: Double = 0, insetBottom: Double = 0, insetRight: Double = 0, contentWidth: Double? = nil,
    contentHeight: Double? = nil
  ) throws(CellMotionError) {
    _ = try ScrollAxisState(
      offset: offsetX, viewportExtent: viewportWidth, startInset: insetLeft, endInset: insetRight,
      contentExtent: contentWidth)
    _ = try ScrollAxisState(
      offset: offsetY, viewportExtent: viewportHeight, startInset: insetTop, endInset: insetBottom,
      contentExtent: contentHeight)
    (self.offsetX, self.offsetY, self.viewportWidth, self.viewportHeight) = (offsetX, offsetY, viewportWidth, viewportHeight)
    (self.insetTop, self.insetLeft, self.insetBottom, self.insetRight) = (insetTop, insetLeft, insetBottom, insetRight)
    (self.contentWidth, self.contentHeight) = (contentWidth, contentHeight)
  }

  /// The state along one axis: y with the top and bottom insets, or x with the left and
  /// right ones.
  public func along(_ axis: ScrollAxis) -> ScrollAxisState {
    switch axis {
    case .vertical: ScrollAxisState(unchecked: offsetY, viewportHeight, insetTop, insetBottom, contentHeight)
    case .horizontal: ScrollAxisState(unchecked: offsetX, viewportWidth, insetLeft, insetRight, contentWidth)
    }
  }
}

/// A cell's layout frame in content coordinates, points (its frame as the layout placed it,
/// before any transform), and, for a section header, where its section ends.
public struct ScrollCell: Sendable, Hashable {
  public let x: Double, y: Double, width: Double, height: Double
  /// For a section header: the content coordinate along the list's axis where its section
  /// ends; see `CellSpan.sectionEnd`.
  public let sectionEnd: Double?

  /// - Throws: `.notFinite` / `.outOfRange` for numbers outside their ranges (positions in
  ///   `InputLimits.scrollPosition`, sizes in `InputLimits.length`).
  public init(x: Double = 0, y: Double = 0, width: Double, height: Double, sectionEnd: Double? = nil) throws(CellMotionError) {
    try Check.within(x, InputLimits.scrollPosition, "cell x")
    try Check.within(y, InputLimits.scrollPosition, "cell y")
    try Check.length(width, "cell width")
    try Check.length(height, "cell height")
    if let sectionEnd { try Check.within(sectionEnd, InputLimits.scrollPosition, "section end") }
    (self.x, self.y, self.width, self.height, self.sectionEnd) = (x, y, width, height, sectionEnd)
  }

  /// The cell along one axis (y and height, or x and width).
  public func along(_ axis: ScrollAxis) -> CellSpan {
    switch axis {
    case .vertical: CellSpan(unchecked: y, height, sectionEnd)
    case .horizontal: CellSpan(unchecked: x, width, sectionEnd)
    }
  }

  /// The geometry a progress-driven recipe reads: the cell's size, and the table's width
  /// (the viewport's width: a pager's page width, since ViewPager2 pages fill the pager).
  public func geometry(in scroll: ScrollState) -> CellGeometry {
    CellGeometry(width: width, height: height, tableWidth: scroll.viewportWidth)
  }
}
