// `cellmotion simulate`: per-frame, per-cell transforms (16 numbers in CATransform3D
// field order) and opacities as CSV or JSON Lines.

import ArgumentParser
import CellMotion
import Foundation

struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Write per-frame, per-cell transforms and opacities as CSV or JSON Lines.",
    discussion: """
      One record per visible cell per frame: frame, time (s), row, part (cell, foldTop, \
      foldBottom), the 16 matrix entries m11 ... m44 (CATransform3D field order = CSS \
      matrix3d argument order; cell points -> viewport points, y down) and the opacity \
      (for fold halves: the shadow opacity). CSV has a header line and 21 columns; JSON \
      Lines has one object per line with the same fields, the matrix as an array "m".
      """)

  @Argument(help: "A preset name or a recipe JSON file.")
  var recipe: String = "tipIn"

  @OptionGroup var table: TableOptions

  @Option(help: "Output format: csv or jsonl.")
  var format: SimulateFormat = .csv

  @Option(name: [.short, .long], help: "Output file (default: stdout).")
  var output: String?

  @Flag(help: "Show the progress bar even when stderr is not a terminal.")
  var progress = false

  mutating func run() throws {
    let destination = try Destination(output)
    try RunCaps.checkSimulate(RunSize(table))
    let recipe = try RecipeSource.load(self.recipe)
    let plan = try TableScript.plan(recipe, table)
    try RunCaps.checkSimulate(RunSize(plan))
    let format = self.format
    // Streamed: each frame's records are written as soon as the frame is computed, so
    // memory does not grow with frames x cells.
    try destination.write { out in
      if format == .csv { try out.write(Self.csvHeader) }
      var n = 0
      try TableScript.run(plan, forceProgress: progress) { frame in
        try Self.write(frame, number: n, format: format, to: out)
        n += 1
      }
    }
  }

  static let matrixColumns = (1...4).flatMap { r in (1...4).map { "m\(r)\($0)" } }
  static let csvHeader = "frame,time,row,part," + matrixColumns.joined(separator: ",") + ",opacity\n"

  /// Writes the records of frame `n`: its cells, then its fold halves.
  static func write(_ f: TableFrame, number n: Int, format: SimulateFormat, to out: FDWriter) throws(CLIError) {
    func record(_ row: Int, _ part: String, _ m: [String], _ opacity: Float) throws(CLIError) {
      switch format {
      case .csv:
        try out.write("\(n),\(num(f.time, 9)),\(row),\(part)," + m.joined(separator: ",") + ",\(num(opacity, 7))\n")
      case .jsonl:
        try out.write(
          "{\"frame\":\(n),\"time\":\(jsonNum(f.time, 9)),\"row\":\(row),\"part\":\"\(part)\",\"m\":["
            + m.joined(separator: ",") + "],\"opacity\":\(jsonNum(opacity, 7))}\n")
      }
    }
    // JSON has no NaN or Infinity: JSON Lines writes null (CSV keeps NaN, Infinity).
    let json = format == .jsonl
    func number(_ x: Double) -> String { json ? jsonNum(x, 8) : num(x, 8) }
    func number(_ x: Float) -> String { json ? jsonNum(x, 8) : num(x, 8) }
    for (i, row) in f.rows.enumerated() {
      try record(row, "cell", f.matrices[(16 * i)..<(16 * i + 16)].map { number($0) }, f.opacity[i])
    }
    for fold in f.folds {
      try record(fold.row, "foldTop", fold.top.fieldOrder.map { number($0) }, fold.shadowOpacity)
      try record(fold.row, "foldBottom", fold.bottom.fieldOrder.map { number($0) }, fold.shadowOpacity)
    }
  }
}

/// The simulate output format.
enum SimulateFormat: String, CaseIterable, ExpressibleByArgument {
  case csv, jsonl
}
