// The curve plot: value (progress) and velocity (progress per second) over time in two
// panels sharing the time axis, the settling time and the duration marked.

import Foundation

package enum CurvePlot {
  /// Plot size, pixels.
  static let width = 760.0, height = 560.0
  static let left = 64.0, right = 24.0

  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  static func svg(_ c: CurveSample, samples: Int) -> String {
    let ts = (0...samples).map { c.span * Double($0) / Double(samples) }
    let values = ts.map(c.value), velocities = ts.map(c.velocity)
    var s = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(num(width))" height="\(num(height))" \
      viewBox="0 0 \(num(width)) \(num(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="#ffffff"/>
      <text x="\(num(left))" y="24" font-size="14" fill="#222">\(xmlEscape(c.title))</text>

      """
    let include = c.keyframes == nil ? [0, 1] : [c.endValue]
    let valuePanel = Panel(top: 44, height: 290, label: c.valueLabel, times: ts, ys: values, span: c.span, include: include)
    let velocityPanel = Panel(
      top: 370, height: 150, label: c.keyframes == nil ? "velocity (1/s)" : "velocity (per second)", times: ts,
      ys: velocities, span: c.span, include: [0])
    s += valuePanel.draw(color: "#1f6fd1", reference: c.endValue)
    // Keyframes: a dot on the curve at every key time.
    for (k, t) in c.keySeconds.enumerated() where t <= c.span {
      s += "<circle class=\"key\" id=\"key\(k)\" cx=\"\(num(valuePanel.x(t)))\" cy=\"\(num(valuePanel.y(c.value(t))))\" r=\"3.5\" fill=\"#1f6fd1\" stroke=\"#fff\"/>\n"
    }
    s += velocityPanel.draw(color: "#d1621f", reference: 0)
    // Time axis labels under the lower panel.
    for tick in ticks(0, c.span) {
      let x = valuePanel.x(tick)
      s += "<text x=\"\(num(x))\" y=\"\(num(velocityPanel.top + velocityPanel.height + 16))\" text-anchor=\"middle\" fill=\"#444\">\(num(tick, 3))</text>\n"
    }
    s += "<text x=\"\(num(width - right))\" y=\"\(num(height - 6))\" text-anchor=\"end\" fill=\"#444\">time (s)</text>\n"
    // Markers across both panels.
    let markerTop = valuePanel.top, markerBottom = velocityPanel.top + velocityPanel.height
    // Retargets: a solid line at each instant, labelled with its policy.
    for (k, e) in c.retargets.enumerated() where e.time <= c.span {
      let x = valuePanel.x(e.time)
      s += "<line class=\"retarget\" id=\"retarget\(k)\" x1=\"\(num(x))\" y1=\"\(num(markerTop))\" x2=\"\(num(x))\" y2=\"\(num(markerBottom))\" stroke=\"#2e8b57\" stroke-width=\"1.5\"/>\n"
      s += "<text x=\"\(num(x + 4))\" y=\"\(num(markerTop + 46 + 14 * Double(k)))\" fill=\"#2e8b57\">\(xmlEscape(e.policyName)) to \(num(e.target))</text>\n"
    }
    if c.settling.isFinite, c.settling <= c.span {
      let x = valuePanel.x(c.settling)
      s += "<line id=\"settling\" x1=\"\(num(x))\" y1=\"\(num(markerTop))\" x2=\"\(num(x))\" y2=\"\(num(markerBottom))\" stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n"
      s += "<text x=\"\(num(x - 4))\" y=\"\(num(markerTop + 14))\" text-anchor=\"end\" fill=\"#c0392b\">settles at \(num(c.settling, 4)) s</text>\n"
    }
    if abs(c.duration - c.settling) > 1e-9, c.duration <= c.span {
      let x = valuePanel.x(c.duration)
      s += "<line id=\"duration\" x1=\"\(num(x))\" y1=\"\(num(markerTop))\" x2=\"\(num(x))\" y2=\"\(num(markerBottom))\" stroke=\"#777\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>\n"
      s += "<text x=\"\(num(x + 4))\" y=\"\(num(markerTop + 30))\" fill=\"#555\">duration \(num(c.duration, 4)) s</text>\n"
    }
    return s + "</svg>\n"
  }

  /// One panel: a y range fitted to the data, grid lines and the polyline.
  struct Panel {
    var top: Double, height: Double, label: String
    var times: [Double], ys: [Double], span: Double
    var lo: Double, hi: Double

    init(top: Double, height: Double, label: String, times: [Double], ys: [Double], span: Double, include: [Double]) {
      self.top = top
      self.height = height
      self.label = label
      self.times = times
      self.ys = ys
      self.span = span
      let finite = ys.filter(\.isFinite) + include
      let (a, b) = (finite.min() ?? 0, finite.max() ?? 1)
      let pad = max(b - a, 1e-9) * 0.08
      (lo, hi) = (a - pad, b + pad)
    }

    func x(_ t: Double) -> Double { CurvePlot.left + (CurvePlot.width - CurvePlot.left - CurvePlot.right) * t / span }
    func y(_ v: Double) -> Double { top + height * (hi - v) / (hi - lo) }

    @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
    func draw(color: String, reference: Double) -> String {
      let x0 = x(0), x1 = x(span)
      var s = "<g class=\"panel\">\n<rect x=\"\(num(x0))\" y=\"\(num(top))\" width=\"\(num(x1 - x0))\" height=\"\(num(height))\" fill=\"#fafafa\" stroke=\"#bbb\"/>\n"
      for tick in CurvePlot.ticks(lo, hi) {
        s += "<line x1=\"\(num(x0))\" y1=\"\(num(y(tick)))\" x2=\"\(num(x1))\" y2=\"\(num(y(tick)))\" stroke=\"#e4e4e4\"/>\n"
        s += "<text x=\"\(num(x0 - 6))\" y=\"\(num(y(tick) + 4))\" text-anchor=\"end\" fill=\"#444\">\(num(tick, 3))</text>\n"
      }
      for tick in CurvePlot.ticks(0, span) {
        s += "<line x1=\"\(num(x(tick)))\" y1=\"\(num(top))\" x2=\"\(num(x(tick)))\" y2=\"\(num(top + height))\" stroke=\"#eeeeee\"/>\n"
      }
      s += "<line x1=\"\(num(x0))\" y1=\"\(num(y(reference)))\" x2=\"\(num(x1))\" y2=\"\(num(y(reference)))\" stroke=\"#888\" stroke-dasharray=\"3 3\"/>\n"
      let points = zip(times, ys).filter { $0.1.isFinite }.map { "\(num(x($0.0), 7)),\(num(y($0.1), 7))" }
      s += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
      s += "<text x=\"\(num(x0 + 6))\" y=\"\(num(top + height - 8))\" fill=\"\(color)\">\(xmlEscape(label))</text>\n</g>\n"
      return s
    }
  }

  /// About 5-10 round tick values in [a, b].
  static func ticks(_ a: Double, _ b: Double) -> [Double] {
    guard b > a, (b - a).isFinite else { return [a] }
    let raw = (b - a) / 6
    let p = pow(10, floor(log10(raw)))
    let step = [1.0, 2, 2.5, 5, 10].map { $0 * p }.first { $0 >= raw } ?? 10 * p
    var out: [Double] = []
    var t = ceil(a / step) * step
    while t <= b + step * 1e-9 {
      out.append(abs(t) < step * 1e-9 ? 0 : t)
      t += step
    }
    return out
  }
}
