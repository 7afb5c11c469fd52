// Scroll-effect presets against their sources' formulas, computed here independently:
// Flutter's wheel (its column-vector paint transform built from list_wheel_viewport.dart's
// facts, and the closed form of the centre), Android's page transformers (their published
// formulas), UIKit's sticky-header clamp, SwiftUI's interpolation rule, CSS reveal, and the
// composition with time-driven animations.
//
// Tolerances: 1e-9 points for positions (a few dozen roundings of numbers below 1e3), 1e-12
// for opacities and scales.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

/// Where the cell-local point (x, y) is drawn relative to the cell's resting origin.
func drawn(_ state: ScrollEffectState, _ x: Double, _ y: Double) -> (x: Double, y: Double) {
  state.transform.projectedPoint(x: x, y: y) ?? (.nan, .nan)
}

/// easeInOut (0.42, 0, 0.58, 1) solved by bisection (independent of TimingCurve's solver).
func easeInOutByBisection(_ t: Double) -> Double {
  func bez(_ a: Double, _ b: Double, _ u: Double) -> Double { 3 * a * (1 - u) * (1 - u) * u + 3 * b * (1 - u) * u * u + u * u * u }
  var (lo, hi) = (0.0, 1.0)
  for _ in 0..<200 {
    let mid = (lo + hi) / 2
    if bez(0.42, 0.58, mid) < t { lo = mid } else { hi = mid }
  }
  return bez(0, 1, (lo + hi) / 2)
}

@Suite("Scroll presets: Flutter's wheel")
struct WheelPickerTests {
  // A CupertinoPicker 216 points tall, 320 wide, items 32 tall.
  let H = 216.0, W = 320.0, E = 32.0
  // Flutter's numbers, from picker.dart and list_wheel_viewport.dart.
  let diameterRatio = 1.07, perspective = 0.003, squeeze = 1.45

  /// Flutter's paint transform for item k at scroll offset o, as list_wheel_viewport.dart
  /// builds it (column vectors, row-major 4x4 arrays): Tc M Tc^-1 T(paintOrigin) with
  /// M = P Rx(theta) T(0, 0, r); nil when Flutter does not paint the item.
  func flutterPoint(item k: Int, offset o: Double, x: Double, y: Double) -> (x: Double, y: Double)? {
    typealias M4 = [[Double]]
    func mul(_ a: M4, _ b: M4) -> M4 {
      var c: M4 = Array(repeating: Array(repeating: 0, count: 4), count: 4)
      for i in 0..<4 { for j in 0..<4 { for k in 0..<4 { c[i][j] += a[i][k] * b[k][j] } } }
      return c
    }
    func translate(_ x: Double, _ y: Double, _ z: Double) -> M4 {
      [[1, 0, 0, x], [0, 1, 0, y], [0, 0, 1, z], [0, 0, 0, 1]]
    }
    let maxRadian = asin(1 / diameterRatio)
    let layoutY = Double(k) * E  // indexToScrollOffset
    let topScrollMargin = -H / 2 + E / 2
    let untransformedY = layoutY - topScrollMargin - o
    let fractionalY = (untransformedY + E / 2) / H
    let angle = -(fractionalY - 0.5) * 2 * maxRadian / squeeze
    guard abs(angle) <= Double.pi / 2 else { return nil }
    // Built only when the item's slot meets [o + E/2 - H squeeze/2, o + E/2 + H squeeze/2).
    let first = o + E / 2 - H * squeeze / 2
    guard layoutY < first + H * squeeze, layoutY + E > first else { return nil }
    let r = H * diameterRatio / 2
    var p = translate(0, 0, 0)
    p[3][2] = -perspective
    p[2][3] = -r
    p[3][3] = perspective * r + 1
    let rx: M4 = [[1, 0, 0, 0], [0, cos(angle), -sin(angle), 0], [0, sin(angle), cos(angle), 0], [0, 0, 0, 1]]
    let m = mul(mul(p, rx), translate(0, 0, r))
    let tc = translate(W / 2, H / 2, 0), tcInverse = translate(-W / 2, -H / 2, 0)
    let paint = mul(mul(mul(tc, m), tcInverse), translate(0, -topScrollMargin, 0))
    let v = (0..<4).map { i in paint[i][0] * x + paint[i][1] * y + paint[i][3] }
    return (v[0] / v[3], v[1] / v[3])
  }

  /// Our effect for item k at offset o: the cell laid out so that item k is centred at o = kE.
  func ours(_ effect: ScrollEffect, item k: Int, offset o: Double) throws -> (state: ScrollEffectState, restingY: Double) {
    let s = Double(k) * E + H / 2 - E / 2
    let state = effect.evaluate(
      cell: try ScrollCell(y: s, width: W, height: E), scroll: try ScrollState(offsetY: o, viewportWidth: W, viewportHeight: H))
    return (state, s - o)
  }

  @Test("Every painted point lands where Flutter's paint transform puts it")
  func matchesFlutterTransform() throws {
    let effect = try ScrollEffect.wheelPicker(viewportExtent: H, itemExtent: E)
    var tracker = ErrorTracker("wheel vs Flutter", tolerance: 1e-9)
    var painted = 0, hidden = 0
    for o in stride(from: -40.0, through: 400, by: 7.3) {
      for k in -4...16 {
        let (state, restingY) = try ours(effect, item: k, offset: o)
        guard flutterPoint(item: k, offset: o, x: 0, y: 0) != nil else {
          // Flutter does not paint it: hidden here (apart from the exact edge of the band).
          if state.opacity != 0 { Issue.record("item \(k) at \(o) should be hidden: \(state.output)") }
          hidden += 1
          continue
        }
        #expect(state.opacity > 0, "item \(k) at \(o)")
        painted += 1
        for (x, y) in [(0.0, 0.0), (W, 0), (0, E), (W, E), (W / 2, E / 2), (80, 5)] {
          let f = flutterPoint(item: k, offset: o, x: x, y: y)!
          let d = drawn(state, x, y)
          tracker.record(d.x, f.x, "item \(k) o \(o) (\(x), \(y)) x")
          tracker.record(d.y + restingY, f.y, "item \(k) o \(o) (\(x), \(y)) y")
        }
      }
    }
    print("\(tracker); \(painted) painted, \(hidden) hidden")
    #expect(tracker.passed, "\(tracker)")
    #expect(painted > 300 && hidden > 100)
  }

  @Test("The centre against Flutter's closed form dY = -r sin(theta) / (1 + perspective r (1 - cos(theta)))")
  func centreClosedForm() throws {
    let effect = try ScrollEffect.wheelPicker(viewportExtent: H, itemExtent: E)
    let r = H * diameterRatio / 2
    let maxRadian = asin(1 / diameterRatio)
    for (k, o) in [(0, 0.0), (1, 0), (2, 0), (3, 0), (-2, 0), (5, 100), (3, 80.5), (4, 17)] {
      let (state, restingY) = try ours(effect, item: k, offset: o)
      let d = (Double(k) * E - o) / (H / 2)
      let theta = -d * maxRadian / squeeze
      let dY = -r * sin(theta) / (1 + perspective * r * (1 - cos(theta)))
      let centre = drawn(state, W / 2, E / 2)
      #expect(abs(centre.y + restingY - (H / 2 + dY)) < 1e-9, "item \(k) at \(o): \(centre.y + restingY) vs \(H / 2 + dY)")
      #expect(abs(centre.x - W / 2) < 1e-9)
    }
  }

  @Test("Dimming: 1 in the centre, 114/255 once the cell leaves the centre band")
  func dimming() throws {
    let effect = try ScrollEffect.wheelPicker(viewportExtent: H, itemExtent: E)
    let dim = 114.0 / 255  // (0.447 * 255).round() / 255, Flutter's opacity layer
    #expect(abs(try ours(effect, item: 3, offset: 96).state.opacity - 1) < 1e-12)
    #expect(abs(try ours(effect, item: 3, offset: 96 - E).state.opacity - dim) < 1e-12)
    #expect(abs(try ours(effect, item: 3, offset: 96 + 2.5 * E).state.opacity - dim) < 1e-12)
    #expect(abs(try ours(effect, item: 3, offset: 96 + E / 2).state.opacity - (1 + dim) / 2) < 1e-12)
    // ListWheelScrollView's default (no dimming).
    let plain = try ScrollEffect.wheelPicker(viewportExtent: H, itemExtent: E, diameterRatio: 2, offCentreOpacity: 1)
    #expect(try ours(plain, item: 3, offset: 96 + E).state.opacity == 1)
  }

  @Test("A horizontal wheel is the vertical one with x and y exchanged")
  func horizontal() throws {
    let vertical = try ScrollEffect.wheelPicker(viewportExtent: H, itemExtent: E)
    let horizontal = try ScrollEffect.wheelPicker(viewportExtent: H, itemExtent: E, axis: .horizontal)
    for (k, o) in [(0, 0.0), (2, 10), (5, 70), (-1, 0)] {
      let s = Double(k) * E + H / 2 - E / 2
      let v = vertical.evaluate(
        cell: try ScrollCell(y: s, width: W, height: E), scroll: try ScrollState(offsetY: o, viewportWidth: W, viewportHeight: H))
      let h = horizontal.evaluate(
        cell: try ScrollCell(x: s, width: E, height: W), scroll: try ScrollState(offsetX: o, viewportWidth: H, viewportHeight: W))
      var swapped = Transform3D.identity
      let sigma = [1, 0, 2, 3]
      for i in 0..<4 { for j in 0..<4 { swapped[i, j] = v.transform[sigma[i], sigma[j]] } }
      expectClose(h.transform, swapped, tolerance: 1e-9, "item \(k) at \(o)")
      #expect(abs(h.opacity - v.opacity) < 1e-12)
    }
  }
}

@Suite("Scroll presets: Android's page transformers")
struct PageTransformerTests {
  let W = 400.0, H = 700.0

  /// Our state for a page at position p (pages W wide laid side by side, scrolled to 0).
  func page(_ effect: ScrollEffect, _ p: Double) throws -> ScrollEffectState {
    effect.evaluate(
      cell: try ScrollCell(x: p * W, width: W, height: H), scroll: try ScrollState(offsetX: 0, viewportWidth: W, viewportHeight: 900))
  }

  /// Checks a page's corners against Android's View matrix: scale about the pivot (the
  /// page's centre), then translationX.
  func expectPage(
    _ state: ScrollEffectState, alpha: Double, scale: Double, tx: Double, _ note: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(abs(state.opacity - alpha) < 1e-12, "\(note) alpha \(state.opacity) vs \(alpha)", sourceLocation: sourceLocation)
    for (x, y) in [(0.0, 0.0), (W, 0), (0, H), (W, H), (123, 456)] {
      let expected = (x: W / 2 + scale * (x - W / 2) + tx, y: H / 2 + scale * (y - H / 2))
      let d = drawn(state, x, y)
      #expect(
        abs(d.x - expected.x) < 1e-9 && abs(d.y - expected.y) < 1e-9, "\(note) corner (\(x), \(y)): \(d) vs \(expected)",
        sourceLocation: sourceLocation)
    }
  }

  @Test("ZoomOutPageTransformer: MIN_SCALE 0.85, MIN_ALPHA 0.5")
  func zoomOut() throws {
    let effect = try ScrollEffect.zoomOutPage()
    for p in [-1, -0.9, -0.6, -0.15, -0.1, -0.02, 0, 0.05, 0.12, 0.15, 0.4, 1] {
      // The published formula.
      let sc = max(0.85, 1 - abs(p))
      let vm = H * (1 - sc) / 2, hm = W * (1 - sc) / 2
      let tx = p < 0 ? hm - vm / 2 : -hm + vm / 2
      let alpha = 0.5 + (sc - 0.85) / (1 - 0.85) * (1 - 0.5)
      expectPage(try page(effect, p), alpha: alpha, scale: sc, tx: tx, "zoom-out at \(p)")
    }
    for p in [-3, -1.0001, 1.0001, 1.5] {
      #expect(try page(effect, p).opacity == 0, "zoom-out at \(p) is off")
    }
  }

  @Test("DepthPageTransformer: MIN_SCALE 0.75")
  func depth() throws {
    let effect = try ScrollEffect.depthPage()
    for p in [-1, -0.7, -0.2, 0, 0.1, 0.25, 0.5, 0.9, 1] {
      if p <= 0 {
        expectPage(try page(effect, p), alpha: 1, scale: 1, tx: 0, "depth at \(p)")
      } else {
        let scale = 0.75 + (1 - 0.75) * (1 - abs(p))
        expectPage(try page(effect, p), alpha: 1 - p, scale: scale, tx: -W * p, "depth at \(p)")
      }
    }
    for p in [-2, -1.01, 1.01, 4] {
      #expect(try page(effect, p).opacity == 0, "depth at \(p) is off")
    }
  }
}

@Suite("Scroll presets: headers, SwiftUI, CSS, carousels")
struct ScrollPresetTests {
  @Test("Sticky header against UIKit's clamp yHeader = min(max(o + insetTop, yNatural), ySectionEnd - hHeader)")
  func sticky() throws {
    let effect = try ScrollEffect.stickyHeader()
    // Three sections: headers 28 tall at 0, 28 + 5 x 44 = 248, 248 + 28 + 2 x 44 = 364; the last
    // section has 12 rows.
    let headers: [(y: Double, end: Double)] = [(0, 248), (248, 364), (364, 364 + 28 + 12 * 44)]
    let h = 28.0, insetTop = 64.0
    var checked = 0
    for o in stride(from: -150.0, through: 900, by: 3.7) {
      let scroll = try ScrollState(offsetY: o, viewportWidth: 390, viewportHeight: 844, insetTop: insetTop, insetBottom: 34)
      for header in headers {
        let state = effect.evaluate(cell: try ScrollCell(y: header.y, width: 390, height: h, sectionEnd: header.end), scroll: scroll)
        let expected = min(max(o + insetTop, header.y), header.end - h)
        let top = header.y + drawn(state, 0, 0).y
        #expect(abs(top - expected) < 1e-9, "header at \(header.y), o \(o): \(top) vs \(expected)")
        #expect(state.opacity == 1)
        checked += 1
      }
    }
    #expect(checked > 800)
  }

  @Test("Stretchy header: a pull stretches it from its bottom edge, a push moves it at half speed")
  func stretchy() throws {
    let effect = try ScrollEffect.stretchyHeader(height: 200)
    func state(_ o: Double) throws -> ScrollEffectState {
      effect.evaluate(cell: try ScrollCell(y: 0, width: 390, height: 200), scroll: try ScrollState(offsetY: o, viewportWidth: 390, viewportHeight: 844))
    }
    // Pulled 50 points: the top reaches the visible top (content y -50), the bottom stays at 200.
    let pulled = try state(-50)
    #expect(abs(drawn(pulled, 0, 0).y - -50) < 1e-9 && abs(drawn(pulled, 0, 200).y - 200) < 1e-9)
    #expect(abs(drawn(pulled, 390, 100).x - 390) < 1e-9)
    // Pushed 100 points: moved down 50 relative to its frame (on screen: up at half speed).
    let pushed = try state(100)
    #expect(abs(drawn(pushed, 0, 0).y - 50) < 1e-9 && abs(drawn(pushed, 0, 200).y - 250) < 1e-9)
    #expect(try state(0).transform == .identity || abs(drawn(try state(0), 0, 0).y) < 1e-12)
  }

  @Test("Edge fade and scale: SwiftUI's lerp(edge, identity, curve(t)), t = 0 hidden, 1 at the threshold")
  func edgeFadeScale() throws {
    let effect = try ScrollEffect.edgeFadeScale()
    var worst = 0.0
    defer { print("edge fade opacity vs SwiftUI's rule: worst error \(worst)") }
    // Container 600 (insets 0), cell 100: hidden at |c| = 350, fully visible at |c| = 250.
    for c in [-400.0, -349, -330, -300, -270, -250, -100, 0, 120, 260, 290, 300, 337, 350, 500] {
      let o = 5000.0
      let s = o + 300 + c - 50
      let state = effect.evaluate(
        cell: try ScrollCell(y: s, width: 390, height: 100), scroll: try ScrollState(offsetY: o, viewportWidth: 390, viewportHeight: 600))
      let t = min(max((350 - abs(c)) / 100, 0), 1)
      let e = easeInOutByBisection(t)
      worst = worstOf(worst, abs(state.opacity - (0.3 + 0.7 * e)))
      #expect(abs(state.opacity - (0.3 + 0.7 * e)) < 1e-12, "c \(c): opacity \(state.opacity) vs \(0.3 + 0.7 * e)")
      let scale = 0.85 + 0.15 * e
      // Scale about the centre (195, 50).
      let corner = drawn(state, 0, 0)
      #expect(abs(corner.x - 195 * (1 - scale)) < 1e-9 && abs(corner.y - 50 * (1 - scale)) < 1e-9, "c \(c) scale")
    }
  }

  @Test("Reveal: opacity and a 24-point slide over CSS's entry range")
  func reveal() throws {
    let effect = try ScrollEffect.reveal()
    func state(_ o: Double) throws -> ScrollEffectState {
      // V 600, cell at 1000, 100 tall: entry [400, 500].
      effect.evaluate(cell: try ScrollCell(y: 1000, width: 390, height: 100), scroll: try ScrollState(offsetY: o, viewportWidth: 390, viewportHeight: 600))
    }
    for (o, p) in [(300.0, 0.0), (400, 0), (425, 0.25), (450, 0.5), (499, 0.99), (500, 1), (800, 1)] {
      let s = try state(o)
      #expect(abs(s.opacity - p) < 1e-12, "o \(o)")
      #expect(abs(drawn(s, 0, 0).y - 24 * (1 - p)) < 1e-9, "o \(o)")
    }
  }

  @Test("Cover flow: the inner edge comes forward, clamped one pitch away")
  func coverFlow() throws {
    let effect = try ScrollEffect.coverFlow(pitch: 200)
    func state(_ p: Double) throws -> ScrollEffectState {
      // Items 180 wide centred at p pitches from the viewport's centre (viewport 390 wide).
      effect.evaluate(
        cell: try ScrollCell(x: 195 + 200 * p - 90, width: 180, height: 240), scroll: try ScrollState(viewportWidth: 390, viewportHeight: 300))
    }
    let centre = try state(0)
    #expect(abs(drawn(centre, 0, 0).x) < 1e-9 && abs(drawn(centre, 180, 240).y - 240) < 1e-9)
    // Right of centre: the left (inner) edge is taller on screen than the right (outer) edge.
    let right = try state(0.5)
    let innerHeight = drawn(right, 0, 240).y - drawn(right, 0, 0).y
    let outerHeight = drawn(right, 180, 240).y - drawn(right, 180, 0).y
    #expect(innerHeight > outerHeight)
    // Left of centre, mirrored.
    let left = try state(-0.5)
    #expect(drawn(left, 180, 240).y - drawn(left, 180, 0).y > drawn(left, 0, 240).y - drawn(left, 0, 0).y)
    // The documented transform at p = 0.5: rotation pi/12 about y, then z -50, m34 -1/1000, about the centre.
    var persp = Transform3D.identity
    persp.m34 = -1.0 / 1000
    let expected = Transform3D.rotation(Double.pi / 12, 0, 1, 0).concatenating(.translation(0, 0, -50)).concatenating(persp)
      .about(Vector3(90, 120, 0))
    expectClose(right.transform, expected, tolerance: 1e-12, "cover flow at 0.5")
    // Clamped beyond one pitch.
    #expect(try state(2.5).transform == (try state(1)).transform)
    // A vertical list turns about x: a cell below has its top edge forward (wider on screen).
    let vertical = try ScrollEffect.coverFlow(pitch: 100, axis: .vertical)
    let below = vertical.evaluate(
      cell: try ScrollCell(y: 300 + 50 - 40, width: 300, height: 80), scroll: try ScrollState(viewportWidth: 300, viewportHeight: 600))
    #expect(drawn(below, 300, 0).x - drawn(below, 0, 0).x > drawn(below, 300, 80).x - drawn(below, 0, 80).x)
  }

  @Test("Carousel keylines: piecewise linear between keylines, clamped beyond")
  func carousel() throws {
    let effect = try ScrollEffect.carouselKeylines(pitch: 200)
    func state(_ p: Double) throws -> ScrollEffectState {
      effect.evaluate(
        cell: try ScrollCell(x: 195 + 200 * p - 90, width: 180, height: 240), scroll: try ScrollState(viewportWidth: 390, viewportHeight: 300))
    }
    // (-1.5, 0.4), (-0.5, 1), (0.5, 1), (1.5, 0.4): at 1, half-way from 1 to 0.4.
    for (p, v) in [(0.0, 1.0), (0.5, 1), (1, 0.7), (-1, 0.7), (1.25, 0.55), (1.5, 0.4), (3, 0.4), (-7, 0.4)] {
      let s = try state(p)
      #expect(abs(s.opacity - v) < 1e-12, "p \(p) opacity")
      #expect(abs(drawn(s, 0, 0).x - 90 * (1 - v)) < 1e-9, "p \(p) scale")
    }
  }

  @Test("Parallax content: overflow/2 - overflow x P over cover, extended to [-1, 2]")
  func parallax() throws {
    let effect = try ScrollEffect.parallaxContent(overflow: 60)
    func ty(_ o: Double) throws -> Double {
      // V 600, cell at 1000, 100 tall: cover [400, 1100], 700 long.
      drawn(
        effect.evaluate(cell: try ScrollCell(y: 1000, width: 390, height: 100), scroll: try ScrollState(offsetY: o, viewportWidth: 390, viewportHeight: 600)),
        0, 0
      ).y
    }
    #expect(abs(try ty(400 + 0.25 * 700) - 15) < 1e-9)
    #expect(abs(try ty(750) - 0) < 1e-9)
    #expect(abs(try ty(400 - 0.5 * 700) - 60) < 1e-9)  // extended
    #expect(abs(try ty(400 + 3 * 700) - -90) < 1e-9)  // held at P = 2
  }

  @Test("A scroll effect composes outside a time-driven animation: transforms in order, opacities multiply")
  func composition() throws {
    let cell = try ScrollCell(y: 1000, width: 375, height: 80)
    let scroll = try ScrollState(offsetY: 410, viewportWidth: 375, viewportHeight: 600)
    let scrollState = try ScrollEffect.reveal().evaluate(cell: cell, scroll: scroll)
    let time = ReferenceEvaluator.evaluate(.tipIn, geometry: CellGeometry(width: 375, height: 80), time: 0.1)
    let both = scrollState.applied(to: time)
    #expect(abs(both.opacity - time.opacity * scrollState.opacity) < 1e-15)
    #expect(scrollState.opacity > 0 && scrollState.opacity < 1 && time.opacity < 1)
    for (x, y) in [(0.0, 0.0), (375, 80), (100, 30)] {
      let inner = time.transform.apply(Vector3(x, y))
      let outer = scrollState.transform.apply(inner)
      let p = both.transform.apply(Vector3(x, y))
      #expect(abs(p.x - outer.x) < 1e-9 && abs(p.y - outer.y) < 1e-9)
    }
    // No effect leaves the time-driven state as it is.
    #expect(ScrollEffectState.noEffect.applied(to: time) == time)
  }

  @Test("Every preset validates and stays finite over accepted extremes")
  func presetsFinite() throws {
    let presets: [ScrollEffect] = try [
      .reveal(), .reveal(axis: .horizontal), .parallaxContent(overflow: 80), .edgeFadeScale(),
      .edgeFadeScale(threshold: .centered, axis: .horizontal), .coverFlow(pitch: 200), .coverFlow(pitch: 90, axis: .vertical),
      .wheelPicker(viewportExtent: 216, itemExtent: 32), .wheelPicker(viewportExtent: 300, itemExtent: 40, axis: .horizontal),
      .wheelPicker(viewportExtent: 400, itemExtent: 50, diameterRatio: 0.8), .carouselKeylines(pitch: 150), .depthPage(),
      .zoomOutPage(), .stickyHeader(), .stretchyHeader(height: 200), .stretchyHeader(height: 1e-3, maximumPull: 0.5),
    ]
    var g = SeededGenerator(seed: 2024)
    for _ in 0..<300 {
      let scroll = try ScrollState(
        offsetX: g.extreme(InputLimits.scrollOffset), offsetY: g.extreme(InputLimits.scrollOffset),
        viewportWidth: g.extreme(InputLimits.length), viewportHeight: g.extreme(InputLimits.length),
        insetTop: g.extreme(InputLimits.scrollLength), insetLeft: g.extreme(InputLimits.scrollLength),
        insetBottom: g.extreme(InputLimits.scrollLength), insetRight: g.extreme(InputLimits.scrollLength))
      let cell = try ScrollCell(
        x: g.extreme(InputLimits.scrollPosition), y: g.extreme(InputLimits.scrollPosition), width: g.extreme(InputLimits.length),
        height: g.extreme(InputLimits.length), sectionEnd: g.extreme(InputLimits.scrollPosition))
      for effect in presets {
        let s = effect.evaluate(cell: cell, scroll: scroll)
        #expect(s.transform.isFinite && s.opacity.isFinite && (0...1).contains(s.opacity), "\(effect.name) seed \(g.seed)")
      }
    }
    // Bad parameters are typed errors.
    #expect(throws: CellMotionError.self) { try ScrollEffect.wheelPicker(viewportExtent: 216, itemExtent: 32, perspective: 0.02) }
    #expect(throws: CellMotionError.self) { try ScrollEffect.wheelPicker(viewportExtent: .nan, itemExtent: 32) }
    #expect(throws: CellMotionError.self) { try ScrollEffect.zoomOutPage(minScale: 1) }
    #expect(throws: CellMotionError.self) { try ScrollEffect.carouselKeylines(pitch: 100, keylines: [.init(position: 0, scale: 1, opacity: 1)]) }
    #expect(throws: CellMotionError.self) { try ScrollEffect.stretchyHeader(height: 1e-3, maximumPull: 1000) }
    #expect(throws: CellMotionError.self) { try ScrollEffect.edgeFadeScale(opacity: 2) }
    #expect(throws: CellMotionError.self) {
      try ScrollEffect(name: "unbounded", timeline: .distance(limit: .unbounded, fill: .both), recipe: .fadeIn)
    }
    #expect(throws: CellMotionError.self) {
      try ScrollEffect(name: "fold", timeline: .view(fill: .both), recipe: .foldOpen)
    }
  }
}

@Suite("Scroll effects: the documentation's example")
struct ScrollEffectsArticleTests {
  @Test("The ScrollEffects article's example runs and says what it prints")
  func articleExample() throws {
    // Sources/CellMotion/CellMotion.docc/ScrollEffects.md, as written there.
    let wheel = try ScrollEffect.wheelPicker(viewportExtent: 216, itemExtent: 32)
    let scroll = try ScrollState(offsetY: 40, viewportWidth: 320, viewportHeight: 216)
    let cell = try ScrollCell(y: 3 * 32 + 92, width: 320, height: 32)
    let state = wheel.evaluate(cell: cell, scroll: scroll)
    #expect(state.transform.isFinite && state.opacity > 0)
    let answer = try ViewTimelineQuery.answer(
      jsonLine: #"{"viewport": 600, "cellStart": 1000, "cellExtent": 100, "offset": 450, "rangeStart": "entry", "rangeEnd": "entry", "fill": "both"}"#)
    #expect(answer == #"{"progress": 0.5}"#)
  }
}
