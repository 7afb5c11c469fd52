// The SVG contact sheet: a grid of frame thumbnails, each labelled with its time, every
// cell drawn as its projected quad (the 4x4 with its perspective applied to the cell's
// four corners, divided by w) at its opacity, fold halves as two more quads with their
// shadow.

import CellMotion
import CellMotionTable
import Foundation
import _CLISupport

enum ContactSheet {
  /// The SVG text for `run`, with up to `count` thumbnails (evenly spaced frames from the
  /// first at or after `from` seconds, the last included) in `columns` columns, each the
  /// viewport scaled by `scale`.
  @_optimize(none)  // text built once a command: not worth the optimiser's seconds at every build
  static func svg(_ run: TableRun, count: Int, columns: Int, scale: Double, from: Double = 0) -> String {
    let o = run.options
    let first = min(run.frames.firstIndex { $0.time >= from } ?? run.frames.count - 1, max(0, run.frames.count - 1))
    let picks = pick(run.frames.count - first, count).map { $0 + first }
    let cols = max(1, min(columns, picks.count))
    let gap = 16.0, label = 22.0, header = 34.0
    let view = o.viewportSize
    let thumbW = view.width * scale, thumbH = view.height * scale
    let rowsOfThumbs = (picks.count + cols - 1) / cols
    // Wide enough for the title too (15 px Helvetica: about 8 px a character).
    let sheetW = max(gap + Double(cols) * (thumbW + gap), 2 * gap + 8 * Double(title(run).count))
    let sheetH = header + Double(rowsOfThumbs) * (thumbH + label + gap) + gap
    var s = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(num(sheetW))" height="\(num(sheetH))" \
      viewBox="0 0 \(num(sheetW)) \(num(sheetH))" font-family="Helvetica, Arial, sans-serif">
      <rect width="100%" height="100%" fill="#f4f4f6"/>
      <text x="\(num(gap))" y="22" font-size="15" fill="#222">\(xmlEscape(title(run)))</text>

      """
    for (k, index) in picks.enumerated() {
      let frame = run.frames[index]
      let x0 = gap + Double(k % cols) * (thumbW + gap)
      let y0 = header + Double(k / cols) * (thumbH + label + gap) + label
      s += "<g id=\"frame-\(index)\">\n"
      s += "<text x=\"\(num(x0))\" y=\"\(num(y0 - 6))\" font-size=\"12\" fill=\"#333\">t = \(String(format: "%.3f", frame.time)) s</text>\n"
      // The clip path lives in the user space of the group it clips, i.e. viewport points.
      s += "<clipPath id=\"clip-\(k)\"><rect width=\"\(num(view.width))\" height=\"\(num(view.height))\"/></clipPath>\n"
      s += "<rect x=\"\(num(x0))\" y=\"\(num(y0))\" width=\"\(num(thumbW))\" height=\"\(num(thumbH))\" fill=\"#ffffff\" stroke=\"#999\"/>\n"
      s += "<g clip-path=\"url(#clip-\(k))\" transform=\"translate(\(num(x0)) \(num(y0))) scale(\(num(scale)))\">\n"
      s += cells(frame, width: o.width, halfHeight: run.halfHeight, horizontal: o.axis == .horizontal)
      s += "</g>\n</g>\n"
    }
    return s + "</svg>\n"
  }

  /// The polygons of one frame, in viewport points.
  ///
  /// Rows are coloured by identifier, so a row keeps its colour when a batch update
  /// renumbers the rows. Drawing order: inserted and deleted rows behind, then the rows,
  /// then moved rows far from the others and reloaded rows' old contents; deleted rows
  /// have a dashed outline. In a horizontal table (`horizontal`) each cell is its row's
  /// length wide and `width` tall.
  static func cells(_ frame: TableFrame, width: Double, halfHeight: Double, horizontal: Bool = false) -> String {
    func cellQuad(_ m: ArraySlice<Float>, length: Double) -> String? {
      horizontal ? Self.quad(m, length, width) : Self.quad(m, width, length)
    }
    var behind = "", front = "", above = ""
    func polygon(_ cls: String, row: Int, id: Int, _ points: String, _ opacity: Float, dashed: Bool = false) -> String {
      var p = "<polygon class=\"\(cls)\" data-row=\"\(row)\" points=\"\(points)\" fill=\"\(Palette.fill(row: id))\" "
      p += "stroke=\"\(Palette.stroke(row: id))\" stroke-width=\"1.5\"\(dashed ? " stroke-dasharray=\"4 3\"" : "") "
      return p + "opacity=\"\(num(opacity, 4))\"/>\n"
    }
    for (i, row) in frame.rows.enumerated() {
      let m = frame.matrices[(16 * i)..<(16 * i + 16)]
      guard let points = cellQuad(m, length: frame.cellHeights[i]) else { continue }
      let p = polygon("cell", row: row, id: i < frame.ids.count ? frame.ids[i] : row, points, frame.opacity[i])
      if i < frame.behind.count, frame.behind[i] { behind += p } else { front += p }
    }
    for x in frame.extras {
      guard let points = cellQuad(x.matrix[...], length: x.height) else { continue }
      let p = polygon(x.kind, row: x.row, id: x.id, points, x.opacity, dashed: x.kind == "deleted")
      if x.isBehind { behind += p } else { above += p }
    }
    var s = behind + front + above
    for d in frame.openDetails {
      s += "<rect class=\"detail\" data-row=\"\(d.row)\" x=\"0\" y=\"\(num(d.top))\" width=\"\(num(width))\" height=\"\(num(2 * halfHeight))\" "
      s += "fill=\"\(Palette.detail)\" stroke=\"#555\" stroke-width=\"1\"/>\n"
    }
    for f in frame.folds {
      for (half, t) in [("top", f.top), ("bottom", f.bottom)] {
        guard let points = quad(t.floats[...], width, halfHeight) else { continue }
        s += "<polygon class=\"fold-\(half)\" data-row=\"\(f.row)\" points=\"\(points)\" fill=\"\(Palette.detail)\" stroke=\"#555\" stroke-width=\"1\"/>\n"
        s += "<polygon points=\"\(points)\" fill=\"#000\" opacity=\"\(num(0.45 * Double(f.shadowOpacity), 4))\"/>\n"
      }
    }
    return s
  }

  /// The projected corners of a w x h rectangle as SVG `points`, or nil if any corner is
  /// behind the eye.
  static func quad(_ m: ArraySlice<Float>, _ w: Double, _ h: Double) -> String? {
    guard let t = try? Transform3D(fieldOrder: m.map(Double.init)), let corners = t.projectedCorners(width: w, height: h)
    else { return nil }
    return corners.map { "\(num($0.x, 7)),\(num($0.y, 7))" }.joined(separator: " ")
  }

  /// `count` indices spread evenly over `0..<total`, first and last included.
  static func pick(_ total: Int, _ count: Int) -> [Int] {
    guard total > 0 else { return [] }
    guard count > 1, total > count else { return count == 1 ? [0] : Array(0..<total) }
    var out: [Int] = []
    for k in 0..<count {
      let i = Int((Double(k) * Double(total - 1) / Double(count - 1)).rounded())
      if out.last != i { out.append(i) }
    }
    return out
  }

  static func title(_ run: TableRun) -> String {
    let o = run.options
    return "cellmotion \(run.recipe.name)\(o.scrollEffect.map { " + \($0.name)" } ?? ""): \(o.rows) \(o.axis == .horizontal ? "columns" : "rows") x \(num(o.rowHeight)) pt, scroll \(o.scroll.rawValue), "
      + "\(run.frames.count) frames at \(num(o.fps)) fps"
  }
}

/// Row colours: a hue per row, so cells can be told apart between frames.
enum Palette {
  /// The detail halves' fill.
  static let detail = "#d8dde6"

  static func fill(row: Int) -> String { hex(hue: hue(row), saturation: 0.55, lightness: 0.72) }
  static func stroke(row: Int) -> String { hex(hue: hue(row), saturation: 0.5, lightness: 0.38) }

  static func hue(_ row: Int) -> Double { Double((row * 47) % 360) }

  /// `#rrggbb` for an HSL colour (hue in degrees, the rest in [0, 1]).
  static func hex(hue: Double, saturation s: Double, lightness l: Double) -> String {
    let c = (1 - abs(2 * l - 1)) * s
    let h = hue / 60
    let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
    let (r, g, b): (Double, Double, Double)
    switch Int(h) {
    case 0: (r, g, b) = (c, x, 0)
    case 1: (r, g, b) = (x, c, 0)
    case 2: (r, g, b) = (0, c, x)
    case 3: (r, g, b) = (0, x, c)
    case 4: (r, g, b) = (x, 0, c)
    default: (r, g, b) = (c, 0, x)
    }
    let m = l - c / 2
    func byte(_ v: Double) -> Int { Int(((v + m) * 255).rounded()) }
    return String(format: "#%02x%02x%02x", byte(r), byte(g), byte(b))
  }
}
