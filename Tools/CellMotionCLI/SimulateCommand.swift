// `cellmotion simulate`: per-frame, per-cell transforms (16 numbers in CATransform3D
// field order) and opacities as CSV or JSON Lines.

import ArgumentParser
import CellMotion
import CellMotionKernel
import Foundation
import _CLISupport

struct SimulateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Write per-frame, per-cell transforms and opacities as CSV or JSON Lines.",
    discussion: """
      One record per visible cell per frame: frame, time (s), row, part (cell, foldTop, \
      foldBottom), the 16 matrix entries m11 ... m44 (CATransform3D field order = CSS \
      matrix3d argument order; cell points -> viewport points, y down) and the opacity \
      (for fold halves: the shadow opacity). CSV has a header line and 21 columns; JSON \
      Lines has one object per line with the same fields, the matrix as an array "m".       With --layout affine each matrix is 6 numbers a b c d tx ty (CGAffineTransform       order = m11 m12 m21 m22 m41 m42; CSV: 11 columns), for recipes that stay affine.
      """)

  @Argument(help: "A preset name or a recipe JSON file.")
  var recipe: String = "tipIn"

  @OptionGroup var table: TableOptions

  @Option(help: "Output format: csv or jsonl.")
  var format: SimulateFormat = .csv

  @Option(help: "Matrix layout: 4x4 (16 numbers, CATransform3D order) or affine (a b c d tx ty).")
  var layout: SimulateLayout = .fourByFour

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
    let matrixLayout = layout.matrixLayout
    if matrixLayout == .affine2D, recipe.fold != nil {
      throw CLIError("--layout affine: \(recipe.name) folds, and fold halves are 3D; use --layout 4x4")
    }
    // Streamed: each frame's records are written as soon as the frame is computed, so
    // memory does not grow with frames x cells.
    try destination.write { out in
      if format == .csv { try out.write(matrixLayout == .affine2D ? Self.affineCSVHeader : Self.csvHeader) }
      var n = 0
      try TableScript.run(plan, matrixLayout: matrixLayout, forceProgress: progress) { frame in
        try Self.write(frame, number: n, format: format, floatsPerCell: matrixLayout.floatsPerCell, to: out)
        n += 1
      }
    }
  }

  static let matrixColumns = (1...4).flatMap { r in (1...4).map { "m\(r)\($0)" } }
  static let csvHeader = "frame,time,row,part," + matrixColumns.joined(separator: ",") + ",opacity\n"
  static let affineCSVHeader = "frame,time,row,part,a,b,c,d,tx,ty,opacity\n"

  /// Writes the records of frame `n`: its cells, then its fold halves.
  static func write(
    _ f: TableFrame, number n: Int, format: SimulateFormat, floatsPerCell k: Int = 16, to out: FDWriter
  ) throws(CLIError) {
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
      try record(row, "cell", f.matrices[(k * i)..<(k * i + k)].map { number($0) }, f.opacity[i])
    }
    // Cells that are not visible rows: part `deleted` (row: its index before the batch),
    // `reloadedOld` or `moving` (row: its index now).
    for x in f.extras {
      try record(x.row, x.kind, x.matrix.map { number($0) }, x.opacity)
    }
    for fold in f.folds {
      try record(fold.row, "foldTop", fold.top.fieldOrder.map { number($0) }, fold.shadowOpacity)
      try record(fold.row, "foldBottom", fold.bottom.fieldOrder.map { number($0) }, fold.shadowOpacity)
    }
  }
}

/// The simulate matrix layout.
enum SimulateLayout: String, CaseIterable, ExpressibleByArgument {
  case fourByFour = "4x4"
  case affine

  var matrixLayout: MatrixLayout { self == .affine ? .affine2D : .transform3D }
}

/// The simulate output format.
enum SimulateFormat: String, CaseIterable, ExpressibleByArgument {
  case csv, jsonl
}
