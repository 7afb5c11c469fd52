// `cellmotion curve --scroll-effect`: a scroll effect's channels against its recipe
// progress (0 at the domain's lower end, 1 at its upper), one panel per channel, from the
// reference (`ReferenceEvaluator.channelValues` at the progress's time); or as CSV.

import CellMotion
import Foundation

package struct EffectPlot {
  var effect: ScrollEffect
  var geometry: CellGeometry
  var title: String

  /// The channels the effect's recipe animates, in order of first appearance.
  var channels: [Channel] {
    var seen: [Channel] = []
    for c in effect.recipe.channels where !seen.contains(c.channel) { seen.append(c.channel) }
    return seen
  }

  /// Channel values at recipe progress `p` (0...1).
  func values(at p: Double) throws -> ChannelValues {
    let t = try ReferenceEvaluator.progressTime(effect.recipe, progress: p)
    return ReferenceEvaluator.channelValues(effect.recipe, geometry: geometry, time: t)
  }

  /// `progress,value,<channel>...`: the timeline value each progress stands for
  /// (domain lower + p x its width; |value| for an effect that folds it) and the channels.
  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  func csv(samples: Int) throws -> String {
    let d = effect.domain
    var s = "progress,value," + channels.map(\.rawValue).joined(separator: ",") + "\n"
    for k in 0...samples {
      let p = Double(k) / Double(samples)
      let v = try values(at: p)
      s += "\(num(p, 6)),\(num(d.lowerBound + p * (d.upperBound - d.lowerBound), 6)),"
      s += channels.map { num(v[$0], 9) }.joined(separator: ",") + "\n"
    }
    return s
  }

  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  func svg(samples: Int) throws -> String {
    let ps = (0...samples).map { Double($0) / Double(samples) }
    let all = try ps.map(values(at:))
    let chans = channels
    let top = 44.0, bottom = 48.0, gap = 18.0
    let panelHeight = max(80, (CurvePlot.height - top - bottom - gap * Double(max(chans.count - 1, 0))) / Double(max(chans.count, 1)))
    let height = top + bottom + Double(chans.count) * panelHeight + gap * Double(max(chans.count - 1, 0))
    var s = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(num(CurvePlot.width))" height="\(num(height))" \
      viewBox="0 0 \(num(CurvePlot.width)) \(num(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
      <rect width="100%" height="100%" fill="#ffffff"/>
      <text x="\(num(CurvePlot.left))" y="24" font-size="14" fill="#222">\(xmlEscape(title))</text>

      """
    let colors = ["#1f6fd1", "#d1621f", "#2e8b57", "#8e44ad", "#c0392b", "#16a085"]
    var last: CurvePlot.Panel?
    for (k, c) in chans.enumerated() {
      let panel = CurvePlot.Panel(
        top: top + Double(k) * (panelHeight + gap), height: panelHeight, label: "\(c.rawValue) (\(Self.unit(c)))",
        times: ps, ys: all.map { $0[c] }, span: 1, include: [])
      s += panel.draw(color: colors[k % colors.count], reference: ChannelValues()[c])
      last = panel
    }
    if let panel = last {
      let y = panel.top + panel.height + 16
      for tick in CurvePlot.ticks(0, 1) {
        s += "<text x=\"\(num(panel.x(tick)))\" y=\"\(num(y))\" text-anchor=\"middle\" fill=\"#444\">\(num(tick, 3))</text>\n"
      }
      let d = effect.domain
      let value = effect.foldsValue ? "|value|" : "value"
      s += "<text x=\"\(num(CurvePlot.width - CurvePlot.right))\" y=\"\(num(y + 18))\" text-anchor=\"end\" fill=\"#444\">"
      s += "recipe progress (timeline \(value) \(num(d.lowerBound, 4)) to \(num(d.upperBound, 4)))</text>\n"
    }
    return s + "</svg>\n"
  }

  static func unit(_ c: Channel) -> String {
    switch c {
    case .translationX, .translationY, .translationZ: "points"
    case .rotationX, .rotationY, .rotationZ: "radians"
    default: "unitless"
    }
  }
}
