// Scroll-driven presets, each a timeline plus a recipe driven by progress, each citing where
// its formula comes from. Every one of them is a progress-driven recipe; none needs a
// parametric evaluator (the doc comments say how the harder ones fit):
// - the Flutter wheel's translation after the perspective divide is linear in the cell's
//   position, so a componentwise matrix animation carries it exactly;
// - Android's pages are piecewise linear in the position, with keyframes at the kinks, and
//   their "alpha 0 beyond one page" is the timeline's `hide` fill;
// - the distances (sticky, stretchy) map onto progress through a wide domain.
//
// Conventions: angles in radians, lengths in points. Recipes run over 1 s with a linear
// curve and fill both (any duration would do: progress f plays the recipe at f x its active
// duration). Sources are cited per preset; numbers marked "unsourced" are this project's
// choices, exposed as parameters.

import Foundation

extension ScrollEffect {
  /// The widest distance the distance presets map onto progress, points: the largest
  /// channel constant a recipe accepts (`InputLimits.channelConstant`).
  public static let distanceReach = 1e6

  // MARK: - CSS

  /// Reveal (CSS scroll-driven animations): the cell fades in and slides `distance` points
  /// into place while it enters the visibility range, as the common pattern
  /// `animation-timeline: view(); animation-range: entry 0% entry 100%;
  /// animation-fill-mode: both` with keyframes from opacity 0 and a translation (MDN,
  /// "CSS scroll-driven animations"; scroll-animations-1).
  ///
  /// Timeline: `view(range)`, fill both. Recipe: opacity 0 -> 1 and translation (y, or x for
  /// a horizontal list) `distance` -> 0, linear in progress. The 24-point distance is
  /// unsourced.
  /// - Throws: `.notFinite` / `.outOfRange` for a distance outside `InputLimits.channelConstant`.
  public static func reveal(distance: Double = 24, range: AnimationRange = .named(.entry), axis: ScrollAxis = .vertical)
    throws(CellMotionError) -> ScrollEffect
  {
    try Check.within(distance, InputLimits.channelConstant, "reveal.distance")
    return try ScrollEffect(
      name: "reveal", timeline: .view(range, axis: axis, fill: .both),
      recipe: Recipe(
        name: "reveal",
        channels: [line(.opacity, 0, 1), line(axis.translation, ChannelValue(distance), 0)], timing: progressTiming))
  }

  /// Parallax content: the cell's content layer (an image `overflow` points longer than the
  /// cell, clipped by it) moves against the scroll so it travels `overflow` points while
  /// the cell crosses the visibility range: ty = overflow/2 - overflow x P on CSS's cover
  /// range (the common "image offset proportional to the cell's place in the viewport";
  /// krishan711.com, "Parallax scrolling in a UITableView").
  ///
  /// Timeline: `view(cover)`, fill extend; the recipe's domain is P in [-1, 2], over which
  /// the translation (linear) continues exactly. That covers every cell on screen whenever
  /// 2 i0 + i1 <= V + S and i0 + 2 i1 <= V + S (V the viewport's extent, i0 and i1 its
  /// insets, S the cell's extent); beyond it the content holds.
  /// The transform is for the content layer, not the cell.
  /// - Throws: `.notFinite` / `.outOfRange` for an overflow outside `InputLimits.scrollLength`.
  public static func parallaxContent(overflow: Double, axis: ScrollAxis = .vertical) throws(CellMotionError) -> ScrollEffect {
    try Check.within(overflow, InputLimits.scrollLength, "parallaxContent.overflow")
    let at = { (p: Double) in ChannelValue(overflow / 2 - overflow * p) }
    return try ScrollEffect(
      name: "parallaxContent", timeline: .view(.normal, axis: axis, fill: .extend),
      recipe: Recipe(name: "parallaxContent", channels: [line(axis.translation, at(-1), at(2))], timing: progressTiming),
      domain: -1...2)
  }

  // MARK: - SwiftUI

  /// Edge fade and scale (the SwiftUI look): `.scrollTransition { content, phase in
  /// content.opacity(phase.isIdentity ? 1 : 0.3).scaleEffect(phase.isIdentity ? 1 : 0.85) }`
  /// under the default `.interactive` configuration (timing curve `.easeInOut`, taken as
  /// (0.42, 0, 0.58, 1)); the opacity and scale are the miniswift.run example's.
  ///
  /// Timeline: SwiftUI's linear phase with `threshold` (`.visible` by default, the
  /// backport's interactive threshold; see `ScrollTransitionThreshold`), read as its
  /// magnitude |phase| (`foldsValue`: the rule is the same on both sides). SwiftUI
  /// interpolates lerp(edge, identity, curve(t)) with t = 1 - |phase|, which is
  /// lerp(identity, edge, g(|phase|)) with g(a) = 1 - curve(1 - a), the curve reversed,
  /// whose Bezier is (1 - x2, 1 - y2, 1 - x1, 1 - y1). Recipe: opacity and scale from
  /// identity to the edge's values over |phase| 0 -> 1 with that curve: SwiftUI's rule
  /// exactly, one solve per cell.
  /// - Throws: `.outOfRange` for an opacity outside [0, 1] or a scale outside
  ///   `InputLimits.channelConstant`.
  public static func edgeFadeScale(
    opacity: Double = 0.3, scale: Double = 0.85, threshold: ScrollTransitionThreshold = .visible,
    curve: TimingCurve = .easeInEaseOut, axis: ScrollAxis = .vertical
  ) throws(CellMotionError) -> ScrollEffect {
    try Check.within(opacity, 0...1, "edgeFadeScale.opacity")
    try Check.within(scale, InputLimits.channelConstant, "edgeFadeScale.scale")
    let reversed = AnimationCurve.bezier(
      try TimingCurve(x1: 1 - curve.x2, y1: 1 - curve.y2, x2: 1 - curve.x1, y2: 1 - curve.y1))
    return try ScrollEffect(
      name: "edgeFadeScale", timeline: .transitionPhase(threshold, axis: axis),
      recipe: Recipe(
        name: "edgeFadeScale",
        channels: [
          ChannelAnimation(.opacity, from: 1, to: ChannelValue(opacity), curve: reversed, duration: 1),
          ChannelAnimation(.scale, from: 1, to: ChannelValue(scale), curve: reversed, duration: 1),
        ], timing: progressTiming),
      domain: 0...1, foldsValue: true)
  }

  // MARK: - Centred positions

  /// Cover flow: items turn their faces toward the centre as they move away from it (the
  /// inner edge comes toward the viewer) and recede in depth. The angle follows the
  /// Android community "FLOW" page transformer (rotationY = 30 degrees x position, its sign
  /// taken here so the inner edge comes forward); depth and perspective are unsourced
  /// parameters.
  ///
  /// Timeline: centred on the item pitch (`pitch` points), fill both on [-1, 1]. Recipe
  /// (Core Animation order: rotation, then translation; m34 = -1/perspectiveDistance about
  /// the cell's centre): rotation `angle` x p about y (horizontal lists) or -`angle` x p
  /// about x (vertical lists, so the top edge of a cell below comes forward);
  /// translation.z -`depth` x |p| (keyframes at -1, 0, 1).
  /// - Throws: `.outOfRange` for numbers outside their ranges.
  public static func coverFlow(
    pitch: Double, angle: Double = Double.pi / 6, depth: Double = 100, perspectiveDistance: Double = 1000,
    axis: ScrollAxis = .horizontal
  ) throws(CellMotionError) -> ScrollEffect {
    try Check.within(angle, InputLimits.channelConstant, "coverFlow.angle")
    try Check.within(depth, InputLimits.channelConstant, "coverFlow.depth")
    let rotation: ChannelAnimation =
      axis == .horizontal ? line(.rotationY, ChannelValue(-angle), ChannelValue(angle)) : line(.rotationX, ChannelValue(angle), ChannelValue(-angle))
    return try ScrollEffect(
      name: "coverFlow", timeline: .centred(unit: .points(pitch), axis: axis, fill: .both),
      recipe: Recipe(
        name: "coverFlow",
        channels: [rotation, keys(.translationZ, [ChannelValue(-depth), 0, ChannelValue(-depth)], at: [0, 0.5, 1])],
        perspectiveDistance: perspectiveDistance, timing: progressTiming))
  }

  /// Wheel picker: Flutter's `RenderListWheelViewport` cylinder with `CupertinoPicker`'s
  /// defaults (diameterRatio 1.07, perspective 0.003, squeeze 1.45, overAndUnderCenterOpacity
  /// 0.447; packages/flutter/lib/src/cupertino/picker.dart), exact for the transform.
  ///
  /// Flutter's facts (rendering/list_wheel_viewport.dart, painting/matrix_utils.dart): with
  /// H the wheel's extent, d = (cell centre - wheel centre) / (H/2), the angle is
  /// theta = -d x maxRadian / squeeze with maxRadian = asin(1 / diameterRatio) (pi/2 below
  /// a ratio of 1), the radius r = H x diameterRatio / 2, and the cell, drawn flat at the
  /// wheel's centre, is painted through M = P Rx(theta) T(0, 0, r) (column vectors; P is the
  /// identity with P[3][2] = -perspective, P[2][3] = -r, P[3][3] = 1 + perspective r) about
  /// the wheel's centre. The centre lands at dY = -r sin(theta) / (1 + perspective r
  /// (1 - cos(theta))) from the wheel's centre.
  ///
  /// As a recipe (translate-first order, anchor at the cell's centre, m34 = -perspective):
  /// translation.z r, rotation.x theta (linear in d), then a componentwise matrix animation
  /// T(0, 0, -r) X(delta) where X moves y by -delta after the perspective divide
  /// (m32 = delta x perspective, m42 = -delta, delta = d H/2: the cell's flat offset from
  /// the centre, undone because Flutter paints every cell from the centre). X is linear in
  /// d, so the componentwise interpolation is exact; the whole is
  /// T(0,0,r) Rx(theta) P^T T(0, -delta, 0) about the cell's centre.
  ///
  /// Timeline: centred, unit H/2, on [-limit, limit] with fill hide: Flutter paints a cell
  /// only while |theta| <= pi/2 and only cells it builds, those whose slot meets the band
  /// H x squeeze around the centre (|delta| < (H squeeze + itemExtent)/2); beyond either the
  /// cell is hidden. (At the build band's exact edge Flutter excludes the cell; the closed
  /// range here includes it.)
  ///
  /// Opacity (an approximation): Flutter draws the part of a cell inside the centre band
  /// (itemExtent tall) flat at full opacity and the rest cylindrically under an opacity
  /// layer of round(0.447 x 255) / 255 = 114/255. A cell's state has one opacity: here the
  /// mean over its flat extent, 1 at the centre falling linearly to 114/255 once the cell
  /// leaves the band (|delta| >= itemExtent). With `offCentreOpacity` >= 1 (ListWheel's
  /// default) there is no dimming. Flutter also clips to the viewport: a clip, not part of a
  /// cell's state. A horizontal wheel turns about y with the same numbers (Flutter's
  /// `Axis.horizontal` cylinder, rotationY, x for y).
  /// - Throws: `.outOfRange` for sizes outside `InputLimits.length`, a diameter ratio or
  ///   squeeze outside [1e-3, 1e3], a perspective outside (0, 0.01] (Flutter's assertion),
  ///   an opacity outside [0, 1].
  public static func wheelPicker(
    viewportExtent H: Double, itemExtent E: Double, diameterRatio: Double = 1.07, perspective: Double = 0.003,
    squeeze: Double = 1.45, offCentreOpacity: Double = 0.447, axis: ScrollAxis = .vertical
  ) throws(CellMotionError) -> ScrollEffect {
    try Check.length(H, "wheelPicker.viewportExtent")
    try Check.length(E, "wheelPicker.itemExtent")
    try Check.within(diameterRatio, 1e-3...1e3, "wheelPicker.diameterRatio")
    try Check.within(squeeze, 1e-3...1e3, "wheelPicker.squeeze")
    try Check.finite(perspective, "wheelPicker.perspective")
    guard perspective > 0, perspective <= 0.01 else {
      throw .outOfRange(field: "wheelPicker.perspective", value: perspective, expected: "in (0, 0.01]")
    }
    try Check.within(offCentreOpacity, 0...1, "wheelPicker.offCentreOpacity")
    let geometry = WheelGeometry(H: H, E: E, diameterRatio: diameterRatio, perspective: perspective, squeeze: squeeze)
    let limit = geometry.limit
    var channels = [
      line(.translationZ, ChannelValue(geometry.radius), ChannelValue(geometry.radius)),
      axis == .vertical
        ? line(.rotationX, ChannelValue(geometry.angle(-limit, axis)), ChannelValue(geometry.angle(limit, axis)))
        : line(.rotationY, ChannelValue(geometry.angle(-limit, axis)), ChannelValue(geometry.angle(limit, axis))),
    ]
    let dim = (offCentreOpacity * 255).rounded() / 255
    if dim < 1 {
      let band = min(2 * E / H, limit)  // |delta| = E in units of H/2
      channels.append(
        keys(
          .opacity, [ChannelValue(dim), ChannelValue(dim), 1, ChannelValue(dim), ChannelValue(dim)],
          at: [0, (limit - band) / (2 * limit), 0.5, (limit + band) / (2 * limit), 1]))
    }
    return try ScrollEffect(
      name: "wheelPicker", timeline: .centred(unit: .points(H / 2), range: -limit...limit, axis: axis, fill: .hide),
      recipe: Recipe(
        name: "wheelPicker", channels: channels,
        matrix: MatrixAnimation(
          from: geometry.undoFlatOffset(-limit, axis), to: geometry.undoFlatOffset(limit, axis), mode: .componentwise,
          curve: .bezier(.linear), duration: 1),
        order: .translateFirst, perspectiveDistance: 1 / perspective, timing: progressTiming))
  }

  /// Carousel keylines (Material-lite): each item's scale and opacity are interpolated
  /// piecewise linearly between keylines at positions (in item pitches from the centre), as
  /// Material's `CarouselLayoutManager` interpolates its KeylineState between the two
  /// keylines around an item's centre. Material masks (clips) items rather than scaling
  /// them, and shifts them to pack the masks; neither is modelled. The default table is
  /// unsourced.
  ///
  /// Timeline: centred on `pitch`, fill both over [first, last] keyline. Recipe: scale and
  /// opacity keyframes at the keylines.
  /// - Throws: `.outOfRange` for fewer than 2 or more than `KeyframeTrack.maximumKeys`
  ///   keylines, positions not increasing from first to last or outside
  ///   `InputLimits.progress`, values outside their ranges.
  public static func carouselKeylines(
    pitch: Double, keylines: [Keyline] = Keyline.defaults, axis: ScrollAxis = .horizontal
  ) throws(CellMotionError) -> ScrollEffect {
    guard keylines.count >= 2, keylines.count <= KeyframeTrack.maximumKeys else {
      throw .outOfRange(
        field: "carouselKeylines.keylines.count", value: Double(keylines.count), expected: "2...\(KeyframeTrack.maximumKeys)")
    }
    for (i, k) in keylines.enumerated() {
      try Check.within(k.position, InputLimits.progress, "carouselKeylines.keylines[\(i)].position")
      try Check.within(k.opacity, 0...1, "carouselKeylines.keylines[\(i)].opacity")
      if i > 0, k.position < keylines[i - 1].position {
        throw .outOfRange(field: "carouselKeylines.keylines[\(i)].position", value: k.position, expected: "not below the previous")
      }
    }
    let (lo, hi) = (keylines[0].position, keylines[keylines.count - 1].position)
    let times = keylines.map { $0 == keylines.last ? 1 : ($0.position - lo) / (hi - lo) }
    return try ScrollEffect(
      name: "carouselKeylines", timeline: .centred(unit: .points(pitch), range: lo...hi, axis: axis, fill: .both),
      recipe: Recipe(
        name: "carouselKeylines",
        channels: [
          keys(.scale, keylines.map { ChannelValue($0.scale) }, at: times),
          keys(.opacity, keylines.map { ChannelValue($0.opacity) }, at: times),
        ], timing: progressTiming))
  }

  /// A keyline: at `position` item pitches from the centre (positive below or right), an
  /// item has `scale` and `opacity`.
  public struct Keyline: Sendable, Hashable {
    public var position: Double
    public var scale: Double
    public var opacity: Double
    public init(position: Double, scale: Double, opacity: Double) {
      self.position = position
      self.scale = scale
      self.opacity = opacity
    }
    /// (-1.5, 0.4), (-0.5, 1), (0.5, 1), (1.5, 0.4) for scale and opacity (unsourced).
    public static let defaults = [
      Keyline(position: -1.5, scale: 0.4, opacity: 0.4), Keyline(position: -0.5, scale: 1, opacity: 1),
      Keyline(position: 0.5, scale: 1, opacity: 1), Keyline(position: 1.5, scale: 0.4, opacity: 0.4),
    ]
  }

  /// Android's DepthPageTransformer ("Slide between fragments using ViewPager2",
  /// developer.android.com/develop/ui/views/animations/screen-slide-2), exact: with
  /// position p (0 centred, +1 one page right), for -1 <= p <= 0 the default slide
  /// (identity); for 0 < p <= 1 alpha 1 - p, translationX -W p (the page stays put while
  /// it fades), scale MIN_SCALE + (1 - MIN_SCALE)(1 - |p|) about the page's centre; beyond,
  /// alpha 0. MIN_SCALE 0.75. (ViewPager2's version also sets translationZ -1, which orders
  /// drawing and is not a transform.)
  ///
  /// Timeline: centred on the page's own width (p = (page centre - pager centre) / W,
  /// Android's (pageLeft - scrollX) / W for full-width pages without padding), fill hide on
  /// [-1, 1]. Recipe: keyframes at p = -1, 0, 1 (the formulas are linear in between),
  /// translation in table widths (the page width: ViewPager2 pages fill the pager, and the
  /// table width is the viewport's).
  /// - Throws: `.outOfRange` for a minimum scale outside `InputLimits.channelConstant`.
  public static func depthPage(minScale: Double = 0.75) throws(CellMotionError) -> ScrollEffect {
    try Check.within(minScale, InputLimits.channelConstant, "depthPage.minScale")
    let t: [Double] = [0, 0.5, 1]
    return try ScrollEffect(
      name: "depthPage", timeline: .centred(unit: .cellExtent, axis: .horizontal, fill: .hide),
      recipe: Recipe(
        name: "depthPage",
        channels: [
          keys(.opacity, [1, 1, 0], at: t),
          keys(.translationX, [0, 0, .tableWidth(-1)], at: t),
          keys(.scale, [1, 1, ChannelValue(minScale)], at: t),
        ], timing: progressTiming))
  }

  /// Android's ZoomOutPageTransformer (the same page), exact: for |p| <= 1,
  /// sc = max(MIN_SCALE, 1 - |p|), vertical margin H(1 - sc)/2, horizontal margin
  /// W(1 - sc)/2, translationX = hm - vm/2 for p < 0 and -hm + vm/2 otherwise, scale sc
  /// about the page's centre, alpha MIN_ALPHA + (sc - MIN_SCALE)/(1 - MIN_SCALE)
  /// (1 - MIN_ALPHA); beyond, alpha 0. MIN_SCALE 0.85, MIN_ALPHA 0.5.
  ///
  /// Timeline: as `depthPage`. Recipe: every property is piecewise linear in p with kinks
  /// at p = -(1 - MIN_SCALE), 0, 1 - MIN_SCALE: keyframes there and at +-1. The translation
  /// at the kinks, (1 - MIN_SCALE)(W/2 - H/4), is a channel value in table widths (W, the
  /// page width) and cell heights (H).
  /// - Throws: `.outOfRange` for a minimum scale outside (0, 1) or a minimum alpha outside
  ///   [0, 1].
  public static func zoomOutPage(minScale: Double = 0.85, minAlpha: Double = 0.5) throws(CellMotionError) -> ScrollEffect {
    try Check.finite(minScale, "zoomOutPage.minScale")
    guard minScale > 0, minScale < 1 else {
      throw .outOfRange(field: "zoomOutPage.minScale", value: minScale, expected: "in (0, 1)")
    }
    try Check.within(minAlpha, 0...1, "zoomOutPage.minAlpha")
    let k = 1 - minScale  // |p| at the kink
    let t: [Double] = [0, (1 - k) / 2, 0.5, (1 + k) / 2, 1]
    let shift = ChannelValue(0, perCellHeight: -k / 4, perTableWidth: k / 2)
    let back = ChannelValue(0, perCellHeight: k / 4, perTableWidth: -k / 2)
    let s = ChannelValue(minScale), a = ChannelValue(minAlpha)
    return try ScrollEffect(
      name: "zoomOutPage", timeline: .centred(unit: .cellExtent, axis: .horizontal, fill: .hide),
      recipe: Recipe(
        name: "zoomOutPage",
        channels: [
          keys(.scale, [s, s, 1, s, s], at: t),
          keys(.opacity, [a, a, 1, a, a], at: t),
          keys(.translationX, [shift, shift, 0, back, back], at: t),
        ], timing: progressTiming))
  }

  // MARK: - Distances

  /// Sticky section header (UITableView's plain style, `sectionHeadersPinToVisibleBounds`):
  /// the header sits at yHeader = min(max(o + insetTop, yNatural), ySectionEnd - hHeader), so
  /// it pins to the top of the visible range and the next section's header pushes it off.
  /// The cell's `sectionEnd` is where its section ends (where the next header starts).
  ///
  /// Timeline: the distance of the visible top past the header's natural top,
  /// d = o + i0 - s, limited to [0, sectionEnd - (s + h)] (`DistanceLimit.toSectionEnd`),
  /// fill both. Recipe: translation d over the domain [0, `distanceReach`] (exact for
  /// sections up to 1e6 points; longer ones hold there). Progress reads the header's
  /// natural layout position, never the pinned one.
  public static func stickyHeader(axis: ScrollAxis = .vertical) throws(CellMotionError) -> ScrollEffect {
    try ScrollEffect(
      name: "stickyHeader", timeline: .distance(limit: .toSectionEnd, axis: axis, fill: .both),
      recipe: Recipe(name: "stickyHeader", channels: [line(axis.translation, 0, ChannelValue(distanceReach))], timing: progressTiming),
      domain: 0...distanceReach)
  }

  /// Stretchy header (the "parallax à la Path" header; jblog): with d = o + i0 - s the
  /// distance the visible top has moved past the header's top, a pull (d < 0) stretches the
  /// header so its top stays at the visible top and its bottom follows the content:
  /// scale (h - d)/h about its bottom edge; a push (d >= 0) moves it by `parallax` x d
  /// (0.5: at half the scroll speed).
  ///
  /// Timeline: the distance, unbounded. Recipe (anchor at the bottom edge): scale keyframes
  /// 1 + maximumPull/h, 1, 1 and translation 0, 0, parallax x reach over
  /// d = -maximumPull, 0, `distanceReach`; exact for pulls up to `maximumPull` (1000
  /// points by default, more than UIKit's rubber band lets a finger pull) and pushes up to
  /// 1e6 points, holding beyond.
  /// - Throws: `.outOfRange` for a height outside `InputLimits.length`, a parallax outside
  ///   [0, 1], a maximum pull outside (0, 1e6] or one that would scale the header past
  ///   `InputLimits.channelConstant`.
  public static func stretchyHeader(
    height h: Double, parallax: Double = 0.5, maximumPull: Double = 1000, axis: ScrollAxis = .vertical
  ) throws(CellMotionError) -> ScrollEffect {
    try Check.length(h, "stretchyHeader.height")
    try Check.within(parallax, 0...1, "stretchyHeader.parallax")
    try Check.within(maximumPull, 1e-3...distanceReach, "stretchyHeader.maximumPull")
    let reach = distanceReach
    let t: [Double] = [0, maximumPull / (maximumPull + reach), 1]
    let scale: Channel = axis == .vertical ? .scaleY : .scaleX
    return try ScrollEffect(
      name: "stretchyHeader", timeline: .distance(limit: .unbounded, axis: axis, fill: .extend),
      recipe: Recipe(
        name: "stretchyHeader",
        channels: [
          keys(scale, [ChannelValue(1 + maximumPull / h), 1, 1], at: t),
          keys(axis.translation, [0, 0, ChannelValue(parallax * reach)], at: t),
        ],
        anchorX: axis == .vertical ? 0.5 : 1, anchorY: axis == .vertical ? 1 : 0.5, timing: progressTiming),
      domain: -maximumPull...reach)
  }

  // MARK: - Building blocks

  /// Progress-driven recipes: fill both, so their ends hold (the effect clamps anyway).
  static let progressTiming = RecipeTiming(fillMode: .both)

  /// A two-value channel linear over progress.
  static func line(_ channel: Channel, _ from: ChannelValue, _ to: ChannelValue) -> ChannelAnimation {
    ChannelAnimation(channel, from: from, to: to, curve: .bezier(.linear), duration: 1)
  }

  /// A keyframe channel over progress, linear unless `curves` says otherwise.
  static func keys(_ channel: Channel, _ values: [ChannelValue], at times: [Double], curves: [AnimationCurve]? = nil)
    -> ChannelAnimation
  {
    ChannelAnimation(channel, keyframes: ChannelKeyframes(values: values, keyTimes: times, timingFunctions: curves), duration: 1)
  }
}

extension ScrollAxis {
  /// The translation channel along the axis.
  var translation: Channel { self == .vertical ? .translationY : .translationX }
}

/// Flutter's wheel numbers for one wheel (see `ScrollEffect.wheelPicker`).
struct WheelGeometry {
  let H: Double, perspective: Double
  /// r = H diameterRatio / 2, points.
  let radius: Double
  /// Radians per unit of d: maxRadian / squeeze.
  let anglePerUnit: Double
  /// The largest |d| Flutter paints: the quarter turn, or the edge of the built band.
  let limit: Double

  init(H: Double, E: Double, diameterRatio: Double, perspective: Double, squeeze: Double) {
    self.H = H
    self.perspective = perspective
    radius = H * diameterRatio / 2
    let maxRadian = diameterRatio < 1 ? Double.pi / 2 : asin(1 / diameterRatio)
    anglePerUnit = maxRadian / squeeze
    let quarterTurn = (Double.pi / 2) / anglePerUnit
    let built = squeeze + E / H  // |delta| < (H squeeze + E) / 2
    limit = min(quarterTurn, built)
  }

  /// The angle at d: -d k about x (vertical; a cell below turns its face up), +d k about y
  /// (horizontal), radians.
  func angle(_ d: Double, _ axis: ScrollAxis) -> Double {
    axis == .vertical ? -d * anglePerUnit : d * anglePerUnit
  }

  /// T(0, 0, -r) X(delta): X moves the projected point back by delta = d H/2 along the axis
  /// after the perspective divide (row vectors: m32 or m31 = delta x perspective, m42 or
  /// m41 = -delta).
  func undoFlatOffset(_ d: Double, _ axis: ScrollAxis) -> Transform3D {
    let delta = d * H / 2
    var x = Transform3D.identity
    switch axis {
    case .vertical: (x.m32, x.m42) = (delta * perspective, -delta)
    case .horizontal: (x.m31, x.m41) = (delta * perspective, -delta)
    }
    return Transform3D.translation(0, 0, -radius).concatenating(x)
  }
}
