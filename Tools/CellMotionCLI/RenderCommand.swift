// `cellmotion render`: a recipe on a table, for a scroll script, as an SVG contact sheet
// and a self-contained HTML player.

import ArgumentParser
import CellMotion
import Foundation
import _CLISupport

struct RenderCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render a recipe on a table as an SVG contact sheet and an HTML player.",
    discussion: """
      Writes <output>/<basename>.svg and <output>/<basename>.html (by default \
      ./cellmotion-render.svg and ./cellmotion-render.html). Every frame comes from the \
      kernel through TableAnimator. Open the HTML with #t=0.25 to start paused at 0.25 s.
      """)

  @Argument(help: "A preset name or a recipe JSON file.")
  var recipe: String = "tipIn"

  @OptionGroup var table: TableOptions

  @Option(name: [.short, .long], help: "Output directory (created if missing).")
  var output: String = "."

  @Option(help: "File name without extension.")
  var basename: String = "cellmotion-render"

  @Option(help: "What to write: both, svg, html.")
  var format: RenderFormat = .both

  @Option(parsing: .unconditional, help: "Thumbnails on the contact sheet.")
  var thumbnails: Int = 12

  @Option(parsing: .unconditional, help: "Thumbnails per row of the contact sheet.")
  var columns: Int = 4

  @Option(parsing: .unconditional, help: "Thumbnail scale (1 = one pixel per point).")
  var scale: Double = 0.4

  @Option(parsing: .unconditional, help: "Time of the contact sheet's first thumbnail, seconds (the HTML player keeps every frame).")
  var sheetFrom: Double = 0

  @Flag(help: "Show the progress bar even when stderr is not a terminal.")
  var progress = false

  mutating func validate() throws {
    guard thumbnails >= 1, thumbnails <= 400 else { throw ValidationError("--thumbnails must be in 1...400, got \(thumbnails)") }
    guard columns >= 1 else { throw ValidationError("--columns must be >= 1, got \(columns)") }
    guard scale.isFinite, scale > 0, scale <= 4 else { throw ValidationError("--scale must be in (0, 4], got \(scale)") }
    guard sheetFrom.isFinite, sheetFrom >= 0, sheetFrom <= 600 else {
      throw ValidationError("--sheet-from must be in 0...600 seconds, got \(sheetFrom)")
    }
    try Self.checkBasename(basename)
  }

  /// A base name must make two plain, visible file names next to each other: not empty,
  /// no '/', no control characters, not starting with '.' (`.` and `..` would write
  /// `..svg`; other dot names would be hidden, and the temporary files are dot names), and
  /// short enough for NAME_MAX (255 bytes) with ".html" added.
  static func checkBasename(_ name: String) throws(ValidationError) {
    guard !name.isEmpty else { throw ValidationError("--basename must not be empty") }
    guard !name.contains("/") else { throw ValidationError("--basename must be a file name without '/'") }
    guard !name.hasPrefix(".") else { throw ValidationError("--basename must not start with '.'") }
    guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
      throw ValidationError("--basename must not contain control characters")
    }
    guard name.utf8.count <= 250 else { throw ValidationError("--basename must be at most 250 bytes, got \(name.utf8.count)") }
  }

  mutating func run() throws {
    guard !output.isEmpty else { throw CLIError("--output must not be empty") }
    let base = (output.hasSuffix("/") ? output : output + "/") + basename
    let kinds: [RenderFormat] = format == .both ? [.svg, .html] : [format]
    let paths = kinds.map { base + ($0 == .svg ? ".svg" : ".html") }
    // Every destination is checked before anything is simulated or written.
    let outputs = try StagedOutputs(paths)
    // Render keeps every frame: refuse a run that would not fit before building anything
    // (from the flags), and before simulating (from the plan's automatic end).
    try RunCaps.checkRender(RunSize(table))
    let recipe = try RecipeSource.load(self.recipe)
    let plan = try TableScript.plan(recipe, table)
    try RunCaps.checkRender(RunSize(plan))
    let run = try TableScript.collect(plan, forceProgress: progress)
    // All files or none: each is written to a temporary file, and they are renamed into
    // place only once all are complete (a failed rename undoes the others).
    var sizes: [Int] = []
    try outputs.perform {
      for (i, kind) in kinds.enumerated() {
        let text = kind == .svg ? ContactSheet.svg(run, count: thumbnails, columns: columns, scale: scale, from: sheetFrom) : HTMLPlayer.html(run)
        try outputs.writer(i).write(text)
        sizes.append(text.utf8.count)
      }
    }
    for (path, size) in zip(paths, sizes) {
      Console.writeError("wrote \(escapingControls(path)) (\(run.frames.count) frames, \(size) bytes)\n")
    }
  }
}

/// Which render outputs to write.
enum RenderFormat: String, CaseIterable, ExpressibleByArgument {
  case both, svg, html
}
