// The table and scroll script shared by `render` and `simulate`: a table of N rows, a
// scroll trajectory (none, constant velocity, fling), a display rule, and for fold
// recipes the rows to expand; run through `TableAnimator` (the kernel) frame by frame.

import ArgumentParser
import CellMotion
import CellMotionKernel
import CellMotionTable
import Foundation
import _CLISupport

/// How the table scrolls during the run.
enum ScrollKind: String, CaseIterable, ExpressibleByArgument {
  /// The table stays at offset 0.
  case none
  /// Constant velocity from `--scroll-start`, clamped to the content.
  case constant
  /// A UIScrollView-style fling released at `--scroll-start`.
  case fling
}

/// Which displays animate (`DisplayRule`).
enum RuleKind: String, CaseIterable, ExpressibleByArgument {
  /// `.firstAppearanceOnly`.
  case first
  /// `.always`.
  case always
  /// `.firstScreenfulOnly`.
  case screenful

  var rule: DisplayRule {
    switch self {
    case .first: .firstAppearanceOnly
    case .always: .always
    case .screenful: .firstScreenfulOnly
    }
  }
}


/// `--update-timing`: how a batch update's parts are ordered (`UpdateTiming`).
enum UpdateTimingKind: String, CaseIterable, ExpressibleByArgument {
  case uikit, recyclerview

  var timing: UpdateTiming { self == .uikit ? .uiKit : .recyclerView }
}

/// Table, scroll and clock options (points, seconds).
struct TableOptions: ParsableArguments {
  @Option(parsing: .unconditional, help: "Number of rows in the table.")
  var rows: Int = 20
  @Option(parsing: .unconditional, help: "Row height, points.")
  var rowHeight: Double = 80
  @Option(parsing: .unconditional, help: "Table (and cell) width, points.")
  var width: Double = 375
  @Option(parsing: .unconditional, help: "Viewport height, points.")
  var viewportHeight: Double = 667
  @Option(
    help: ArgumentHelp(
      "Layout: vertical (a table view) or horizontal (rows side by side: a pager, a carousel, a cover flow).",
      discussion: "Horizontal: lengths along the list run along x. --row-height is each row's width, --viewport-height the viewport's width, --width the rows' (and the viewport's) height; a scroll effect preset reads the horizontal axis. Expanding rows (fold recipes) are vertical only."))
  var axis: ScrollAxis = .vertical
  @Option(help: "Scroll script: \(ScrollKind.allCases.map(\.rawValue).joined(separator: ", ")).")
  var scroll: ScrollKind = .none
  @Option(parsing: .unconditional, help: "Scroll velocity, points per second (positive moves down the table); default 400 for constant, 3000 for fling.")
  var velocity: Double?
  @Option(parsing: .unconditional, help: "Time the scroll starts, seconds.")
  var scrollStart: Double = 0.1
  @Option(help: "Display rule: first (first appearance only), always, screenful (first screenful only).")
  var rule: RuleKind = .first
  @Option(
    help: "Reduce motion for every recipe: full, reduced (nothing moves; opacity animates or cross-fades), none (end states at once). Default: the recipe's own.")
  var motion: MotionPolicy?
  @Option(parsing: .unconditional, help: "Frames per second.")
  var fps: Double = 60
  @Option(parsing: .unconditional, help: "Seconds to simulate (default: until scrolling and every animation has ended, at most 10 s).")
  var duration: Double?
  @Option(parsing: .upToNextOption, help: "Fold recipes: rows to expand.")
  var expand: [Int] = [1]
  @Option(parsing: .unconditional, help: "Fold recipes: detail height, points.")
  var detailHeight: Double = 160
  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp(
      "Fold recipes: toggle ROW at TIME seconds (ROW@TIME), repeatable; replaces --expand's automatic toggles.",
      discussion: "Toggle a row again before it has opened to interrupt it: --toggle 1@0.1 --toggle 1@0.25."))
  var toggle: [String] = []
  @Option(
    help: """
      Fold recipes: how a toggle mid-way moves the row's height and its fold: reverse (back along       their timelines, the default), carry (a critically damped spring keeping the velocity),       additive (UIKit's), from-current (from where they are, at rest).
      """)
  var heightRetarget: HeightRetarget = .reverse
  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp(
      "Batch update: insert rows ROWS at TIME seconds (ROWS@TIME; ROWS is 3 or 3-5, indexes after the batch), repeatable.",
      discussion: "Every --insert, --delete, --move and --reload at one time is one batch, as in performBatchUpdates."))
  var insert: [String] = []
  @Option(parsing: .unconditionalSingleValue, help: "Batch update: delete rows ROWS@TIME (indexes before the batch), repeatable.")
  var delete: [String] = []
  @Option(
    parsing: .unconditionalSingleValue,
    help: "Batch update: move a row FROM:TO@TIME (or FROM->TO@TIME; FROM before the batch, TO after it), repeatable.")
  var move: [String] = []
  @Option(parsing: .unconditionalSingleValue, help: "Batch update: reload rows ROWS@TIME (indexes before the batch), repeatable.")
  var reload: [String] = []
  @Option(help: "Batch updates: how inserted, deleted and reloaded rows animate: \(RowAnimation.allCases.map(\.rawValue).joined(separator: ", ")).")
  var rowAnimation: RowAnimation = .automatic
  @Option(help: "Batch updates: uikit (every part at once, 0.3 s) or recyclerview (removals, then moves and changes, then additions).")
  var updateTiming: UpdateTimingKind = .uikit
  @Option(
    help: ArgumentHelp(
      "A scroll effect on every visible row: \(ScrollEffectKind.allCases.map(\.rawValue).joined(separator: ", ")), or a scroll effect file (a recipe file with a \"scroll\" object; `recipe-template --scroll-effect NAME` prints one).",
      discussion: "Presets are built for the table: cover flow and carousel pitch = the row height, the wheel's viewport = the viewport height. Rows up to one viewport beyond each edge are drawn (a wheel's rows)."))
  var scrollEffect: ScrollEffectSpec?

  /// The scroll effect of `--scroll-effect`, sized for this table (nil: none).
  func effect() throws -> ScrollEffect? {
    try scrollEffect?.effect(rowHeight: rowHeight, viewportHeight: viewportHeight, axis: axis)
  }

  /// The viewport as drawn, points: width and height (exchanged for a horizontal table).
  var viewportSize: (width: Double, height: Double) {
    axis == .horizontal ? (viewportHeight, width) : (width, viewportHeight)
  }

  /// Points drawn beyond each edge of the viewport: one viewport with a scroll effect.
  var overscan: Double { scrollEffect == nil ? 0 : viewportHeight }

  mutating func validate() throws {
    guard rows > 0, rows <= 1_000_000 else { throw ValidationError("--rows must be in 1...1000000, got \(rows)") }
    for (name, v) in [("--row-height", rowHeight), ("--width", width), ("--viewport-height", viewportHeight),
                      ("--fps", fps), ("--detail-height", detailHeight)] where !(v.isFinite && v > 0) {
      throw ValidationError("\(name) must be a finite number > 0, got \(v)")
    }
    guard fps <= 1000 else { throw ValidationError("--fps must be <= 1000, got \(fps)") }
    if let d = duration, !(d.isFinite && d >= 0 && d <= 600) {
      throw ValidationError("--duration must be in 0...600 seconds, got \(d)")
    }
    if let v = velocity, !v.isFinite { throw ValidationError("--velocity must be finite, got \(v)") }
    guard scrollStart.isFinite, scrollStart >= 0 else { throw ValidationError("--scroll-start must be >= 0, got \(scrollStart)") }
    for r in expand where r < 0 || r >= rows { throw ValidationError("--expand row \(r) is out of range 0..<\(rows)") }
    for t in try toggles() where t.row >= rows {
      throw ValidationError("--toggle row \(t.row) is out of range 0..<\(rows)")
    }
    _ = try updates()
  }

  /// The batch updates of `--insert`, `--delete`, `--move` and `--reload`, one per distinct
  /// time, in time order. Indexes are checked when a batch is applied (a typed error).
  func updates() throws -> [(time: Double, update: RowUpdate)] {
    func rows(_ text: String, _ flag: String) throws -> (ClosedRange<Int>, Double) {
      let form = "ROWS@TIME with ROWS a row or FIRST-LAST (at most 100000 rows, seconds in 0...600)"
      guard let (spec, time) = Self.splitAtTime(text) else { throw ValidationError("\(flag) expects \(form), got \"\(text)\"") }
      let ends = spec.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
      guard (1...2).contains(ends.count), let first = ends[0], let last = ends[ends.count - 1], first >= 0, first <= last,
        last - first < 100_000
      else { throw ValidationError("\(flag) expects \(form), got \"\(text)\"") }
      return (first...last, time)
    }
    // Every flag parsed once; the rows named over all of them are bounded before any batch
    // is built.
    let inserts = try insert.map { try rows($0, "--insert") }
    let deletes = try delete.map { try rows($0, "--delete") }
    let reloads = try reload.map { try rows($0, "--reload") }
    let named = (inserts + deletes + reloads).reduce(move.count) { $0 + $1.0.count }
    guard named <= 1_000_000 else {
      throw ValidationError("--insert, --delete, --reload and --move name \(named) rows in all, more than 1000000")
    }
    var batches: [Double: RowUpdate] = [:]
    for (r, t) in inserts { batches[t, default: RowUpdate()].insertRows(at: r, height: rowHeight, with: rowAnimation) }
    for (r, t) in deletes { batches[t, default: RowUpdate()].deleteRows(at: r, with: rowAnimation) }
    for (r, t) in reloads { batches[t, default: RowUpdate()].reloadRows(at: r, with: rowAnimation) }
    for text in move {
      let ends = Self.splitAtTime(text).map {
        ($0.0.replacingOccurrences(of: "->", with: ":").split(separator: ":", omittingEmptySubsequences: false), $0.1)
      }
      guard let (ends, t) = ends, ends.count == 2, let from = Int(ends[0]), let to = Int(ends[1]), from >= 0, to >= 0 else {
        throw ValidationError("--move expects FROM:TO@TIME (rows >= 0, seconds in 0...600), got \"\(text)\"")
      }
      batches[t, default: RowUpdate()].moveRow(at: from, to: to)
    }
    return batches.sorted { $0.key < $1.key }.map { (time: $0.key, update: $0.value) }
  }

  /// `WHAT@TIME` split at its `@`, with TIME seconds in 0...600; nil when it is not that.
  static func splitAtTime(_ text: String) -> (String, Double)? {
    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
    guard parts.count == 2, let time = Double(parts[1]), time.isFinite, time >= 0, time <= 600 else { return nil }
    return (String(parts[0]), time)
  }

  /// `--toggle ROW@TIME` events, in time order.
  func toggles() throws -> [(time: Double, row: Int)] {
    try toggle.map { text in
      guard let (spec, time) = Self.splitAtTime(text), let row = Int(spec), row >= 0 else {
        throw ValidationError("--toggle expects ROW@TIME (a row >= 0, seconds in 0...600), got \"\(text)\"")
      }
      return (time, row)
    }.sorted { $0.time < $1.time }
  }
}

/// `--height-retarget`: how a row's height and fold move when toggled mid-way.
enum HeightRetarget: String, CaseIterable, ExpressibleByArgument {
  case reverse, carry, additive
  case fromCurrent = "from-current"

  /// The policy over `duration` seconds (nil: reverse along the timeline).
  func policy(duration: Double) throws -> RetargetPolicy? {
    switch self {
    case .reverse: return nil
    case .carry: return .carryVelocity(spring: try Spring(stiffness: 300, damping: 2 * 300.0.squareRoot()))
    case .additive: return .additive(curve: .bezier(.easeInEaseOut), duration: duration)
    case .fromCurrent: return .fromCurrentState(curve: .bezier(.easeInEaseOut), duration: duration)
    }
  }
}

/// One computed frame: the visible rows' matrices (16 Floats each, CATransform3D field
/// order = CSS matrix3d argument order, cell points -> viewport points; 6 Floats a b c d
/// tx ty with the affine layout), opacities, the
/// cells' collapsed heights (points) and any folding detail halves.
struct TableFrame {
  /// Seconds.
  var time: Double
  var rows: Range<Int>
  var matrices: [Float]
  var opacity: [Float]
  /// Collapsed cell heights, points (the detail of an expanded row is drawn by its halves).
  var cellHeights: [Double]
  var folds: [FoldedDetail]
  /// Expanded rows whose fold has finished: the flat, open detail's viewport y (points);
  /// it is `TableRun.options.detailHeight` tall.
  var openDetails: [(row: Int, top: Double)] = []
  /// Each visible row's identifier (its index until a batch update renumbers the rows).
  var ids: [Int] = []
  /// Whether each visible row draws behind the others (an inserted row animating in).
  var behind: [Bool] = []
  /// Cells that are not visible rows: deleted rows and reloaded rows' old contents
  /// animating out, moved rows far from the visible ones.
  var extras: [FrameExtra] = []
}

/// A drawn cell that is not one of a frame's visible rows (`ExtraCell`).
struct FrameExtra {
  /// `deleted`, `reloadedOld` or `moving`.
  var kind: String
  var id: Int
  /// The row's index now, or for a deleted row its index before the batch.
  var row: Int
  /// In the run's matrix layout (16 or 6 Floats).
  var matrix: [Float]
  var opacity: Float
  /// Points.
  var height: Double
  var isBehind: Bool
}

/// A finished run of the table script, every frame kept (render).
struct TableRun {
  var recipe: Recipe
  var options: TableOptions
  var frames: [TableFrame]
  /// Each fold half's height, points (half the detail height).
  var halfHeight: Double { options.detailHeight / 2 }
}

/// A run of the table script worked out before anything is simulated: the table, the
/// scroll, the fold toggles, and how big the run can get. Commands check its `RunSize`
/// against their caps before calling `TableScript.run`.
struct TablePlan {
  var recipe: Recipe
  var options: TableOptions
  var layout: TableLayout
  var scroll: ScrollTrajectory
  /// Rows toggled (expanded, then for closing recipes collapsed) and when, seconds.
  var toggles: [(time: Double, row: Int)]
  /// Batch updates and when, seconds.
  var updates: [(time: Double, update: RowUpdate)] = []
  var expansion: ExpansionState?
  /// Frames at most: `--duration`, or the automatic end's estimate (at most 10 s), times
  /// `--fps`, plus the frame at 0. An automatic run may stop earlier, once settled.
  var frameCount: Int
  /// Most rows a viewport can show at once (`RunSize.visibleCells`).
  var visibleCells: Int
  /// `frameCount x visibleCells`: the records of a run, at most (fold halves aside).
  var cellFrames: Double { Double(frameCount) * Double(visibleCells) }
}

enum TableScript {
  /// Hard limit of the automatic duration, seconds.
  static let automaticLimit = 10.0

  /// Works out a run of `recipe` on the table described by `o`. Cheap whatever the
  /// options: the layout is uniform (O(1)), nothing is simulated or allocated per row.
  static func plan(_ recipe: Recipe, _ o: TableOptions) throws -> TablePlan {
    let layout = try TableLayout(rowCount: o.rows, rowHeight: o.rowHeight)
    let limits = try layout.scrollRange(viewportHeight: o.viewportHeight)
    let scroll: ScrollTrajectory
    switch o.scroll {
    case .none: scroll = try .stationary(at: 0)
    case .constant:
      scroll = try .constantVelocity(from: 0, velocity: o.velocity ?? 400, startTime: o.scrollStart, limits: limits)
    case .fling:
      scroll = try .fling(from: 0, velocity: o.velocity ?? 3000, startTime: o.scrollStart, limits: limits)
    }
    var toggles: [(time: Double, row: Int)] = []
    var expansion: ExpansionState?
    if let spec = recipe.fold {
      if let policy = try o.heightRetarget.policy(duration: 0.3) {
        expansion = try ExpansionState(
          rowCount: o.rows, detailHeights: .uniform(o.detailHeight), foldDuration: spec.duration,
          heightAnimation: .bezier(.easeInEaseOut), retarget: policy, foldAnimation: spec.curve)
      } else {
        expansion = try ExpansionState(rowCount: o.rows, detailHeights: .uniform(o.detailHeight), foldDuration: spec.duration)
      }
      if !o.toggle.isEmpty {
        toggles = try o.toggles()
      } else {
        let open = 0.1
        toggles = o.expand.map { (open, $0) }
        // A closing recipe is shown as the tutorial uses it: open first, then close.
        // (The fold runs after the row's height change; see ExpansionState.)
        let opened = open + (expansion?.heightDuration ?? 0) + spec.duration
        if spec.direction == .close { toggles += o.expand.map { (opened + 0.3, $0) } }
      }
    } else if !o.toggle.isEmpty {
      throw CLIError("--toggle needs a fold recipe (foldOpen, foldClosed or a file with a fold); \(recipe.name) does not fold")
    }
    let updates = try o.updates()
    if !updates.isEmpty, recipe.fold != nil {
      throw CLIError("--insert, --delete, --move and --reload need a recipe that does not fold; \(recipe.name) folds")
    }
    // Every batch applied once here, so an invalid one is refused before any frame is
    // written (a uniform table stays O(1) under batches of its own row height).
    var rows = TableRows(layout: layout)
    for u in updates { try rows.apply(u.update, minimumHeight: InputLimits.length.lowerBound) }
    // Automatic end: scrolling over, no animation or fold running, no toggle pending.
    let staggerRows = recipe.stagger.base == .row ? Double(o.rows) : o.viewportHeight / o.rowHeight + 1
    let estimate = (scroll.endTime.isFinite ? scroll.endTime : 0) + recipe.stagger.step * staggerRows
      + recipe.activeDuration + (toggles.last?.time ?? 0) + 0.5
      + (updates.last.map { $0.time + 1 } ?? 0)
    let end = o.duration ?? (estimate.isFinite ? min(automaticLimit, estimate) : automaticLimit)
    if let last = updates.last, last.time > end {
      throw CLIError(
        "a batch update at \(num(last.time)) s comes after the run's end at \(num(end)) s; "
          + (o.duration == nil ? "the automatic end is at most \(num(automaticLimit)) s" : "raise --duration"))
    }
    // end <= 600 s and fps <= 1000 (TableOptions.validate), so this fits any Int.
    return TablePlan(
      recipe: recipe, options: o, layout: layout, scroll: scroll, toggles: toggles, updates: updates,
      expansion: expansion, frameCount: RunSize.frameCount(o, end: end), visibleCells: RunSize.visibleCells(o))
  }

  /// Runs `plan` through `TableAnimator` (the kernel), handing each frame to `visit` as
  /// soon as it is computed; nothing is kept between frames.
  /// - Parameters:
  ///   - matrixLayout: how each frame's `matrices` stores a row (16 or 6 Floats).
  ///   - forceProgress: draw the progress bar even when stderr is not a terminal.
  static func run(
    _ plan: TablePlan, matrixLayout: MatrixLayout = .transform3D, forceProgress: Bool,
    _ visit: (TableFrame) throws -> Void
  ) throws {
    let o = plan.options, recipe = plan.recipe
    let simulation = try TableSimulation(
      layout: plan.layout, viewportHeight: o.viewportHeight, scroll: plan.scroll, rule: o.rule.rule,
      expansion: plan.expansion, overscan: o.overscan, updateRecipes: RowAnimationRecipes(timing: o.updateTiming.timing))
    let recipes = recipe.fold != nil ? TableRecipes(first: Recipe(name: "none"), fold: recipe) : TableRecipes(first: recipe)
    var animator = try TableAnimator(
      simulation: simulation, recipes: recipes, cellWidth: o.width, tableWidth: o.width, layout: matrixLayout,
      motion: o.motion, scrollEffect: o.effect(), axis: o.axis)
    var progress = ProgressBar("simulating", total: plan.frameCount, force: forceProgress)
    var pending = plan.toggles[...]
    var pendingUpdates = plan.updates[...]
    let floats = matrixLayout.floatsPerCell
    for n in 0..<plan.frameCount {
      let t = Double(n) / o.fps
      while let next = pending.first, next.time <= t {
        try animator.toggle(row: next.row, at: t)
        pending.removeFirst()
      }
      while let next = pendingUpdates.first, next.time <= t {
        try animator.performBatchUpdates(next.update, at: t)
        pendingUpdates.removeFirst()
      }
      try animator.step(to: t)
      let f = animator.frame
      // Collapsed heights (a detail is drawn by its halves); with updates, the rows' drawn
      // heights (a changing height slides).
      let heights =
        plan.updates.isEmpty
        ? try f.rows.map { row throws(CellMotionError) in try animator.simulation.layout.rowHeight(row) }
        : f.heights.map(Double.init)
      let ids = animator.simulation.rows.ids
      let extras = f.extraCells.enumerated().map { k, c in
        FrameExtra(
          kind: c.kind.rawValue, id: c.id.rawValue, row: c.row ?? c.deletedFrom ?? -1,
          matrix: Array(f.extraMatrices[(floats * k)..<(floats * k + floats)]), opacity: f.extraOpacity[k],
          height: c.height, isBehind: c.isBehind)
      }
      try visit(
        TableFrame(
          time: t, rows: f.rows, matrices: f.matrices, opacity: f.opacity, cellHeights: heights, folds: f.folds,
          openDetails: f.openDetails.map { ($0.row, $0.detailTop) }, ids: f.rows.map { ids[$0].rawValue },
          behind: f.behind, extras: extras))
      progress.update(n + 1)
      if o.duration == nil, animator.isSettled, pending.isEmpty, pendingUpdates.isEmpty, t > 0, n > 0 { break }
    }
    progress.finish()
  }

  /// Runs `plan` keeping every frame (render; check the caps first).
  static func collect(_ plan: TablePlan, forceProgress: Bool) throws -> TableRun {
    var frames: [TableFrame] = []
    frames.reserveCapacity(plan.frameCount)
    try run(plan, forceProgress: forceProgress) { frames.append($0) }
    return TableRun(recipe: plan.recipe, options: plan.options, frames: frames)
  }
}


/// How big a run gets, from the flags.
struct RunSize {
  /// Frames at most (nil: not known from the flags alone, the automatic end needs the plan).
  var frameCount: Int?
  /// Most rows a viewport shows at once.
  var visibleCells: Int
  var options: TableOptions

  /// Frames of a run ending at `end` seconds: end x fps, plus the frame at 0. `end` <= 600 s
  /// and fps <= 1000 (TableOptions.validate), so this fits any Int.
  static func frameCount(_ o: TableOptions, end: Double) -> Int { Int((end * o.fps).rounded(.down)) + 1 }

  /// ceil(viewport height / row height) + 1 rows (a viewport over uniform rows cuts at most
  /// two partially), at most `--rows`; expanded details only make rows taller.
  static func visibleCells(_ o: TableOptions) -> Int {
    Int(min(Double(o.rows), ((o.viewportHeight + 2 * o.overscan) / o.rowHeight).rounded(.up) + 1))
  }

  /// What the flags alone say: exact visible cells, and frames when `--duration` is given.
  /// Checked before the library builds anything, so its own input checks cannot come first.
  init(_ o: TableOptions) {
    self.frameCount = o.duration.map { Self.frameCount(o, end: $0) }
    self.visibleCells = Self.visibleCells(o)
    self.options = o
  }

  /// The planned run.
  init(_ plan: TablePlan) {
    self.frameCount = plan.frameCount
    self.visibleCells = plan.visibleCells
    self.options = plan.options
  }
}

/// Caps that keep a run's memory and time bounded whatever the flags (Tools/docs/cli.md, "Caps").
/// Commands check the flags' `RunSize` before anything else and the plan's before
/// simulating; a refusal names the flags to change (exit 64).
enum RunCaps {
  /// Frames `render` may keep (it holds every frame for the HTML player).
  static let renderFrames = 20_000
  /// Cells over all frames `render` may keep (frames x visible cells).
  static let renderCells = 500_000
  /// Cells one frame may show (`render` and `simulate`): viewport height / row height.
  static let visibleCellsPerFrame = 100_000
  /// Records `simulate` may write (frames x visible cells; about 50-200 bytes each).
  static let simulateRecords = 100_000_000

  /// The visible-cells cap.
  static func checkVisibleCells(_ size: RunSize, command: String) throws(ValidationError) {
    guard size.visibleCells > visibleCellsPerFrame else { return }
    let o = size.options
    throw ValidationError(
      "\(command) would show up to \(size.visibleCells) cells per frame (--viewport-height \(num(o.viewportHeight)) / "
        + "--row-height \(num(o.rowHeight)), at most --rows \(o.rows)), more than the cap of \(visibleCellsPerFrame); "
        + "lower --viewport-height or --rows, or raise --row-height")
  }

  /// `render`'s caps: visible cells, frames, then frames x visible cells.
  static func checkRender(_ size: RunSize) throws(ValidationError) {
    try checkVisibleCells(size, command: "render")
    guard let frames = size.frameCount else { return }
    let o = size.options
    if frames > renderFrames {
      let span = o.duration.map { "--duration \(num($0)) s" } ?? "the automatic duration"
      throw ValidationError(
        "render would keep up to \(frames) frames (--fps \(num(o.fps)) x \(span)), more than the cap of "
          + "\(renderFrames); lower --fps or --duration (simulate streams any number of frames)")
    }
    let cells = Double(frames) * Double(size.visibleCells)
    if cells > Double(renderCells) {
      throw ValidationError(
        "render would keep up to \(Int(cells)) cells (\(frames) frames x \(size.visibleCells) visible "
          + "cells), more than the cap of \(renderCells); lower --fps or --duration, or --viewport-height")
    }
  }

  /// `simulate`'s caps: visible cells, then records.
  static func checkSimulate(_ size: RunSize) throws(ValidationError) {
    try checkVisibleCells(size, command: "simulate")
    guard let frames = size.frameCount else { return }
    let records = Double(frames) * Double(size.visibleCells)
    if records > Double(simulateRecords) {
      throw ValidationError(
        "simulate would write up to \(Int(records)) records (\(frames) frames x \(size.visibleCells) "
          + "visible cells), more than the cap of \(simulateRecords); lower --fps or --duration, or --viewport-height")
    }
  }
}

extension Transform3D {
  /// The 16 entries as Floats in field order.
  var floats: [Float] { fieldOrder.map(Float.init) }
}
