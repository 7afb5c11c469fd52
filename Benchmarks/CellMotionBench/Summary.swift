// The default run: the headline scenarios at 10,000 cells, the peers side by side as
// ratios, the table sessions' frame times and the machine, on one screen (--all prints
// every scenario at every size; --json the whole document).

import CellMotion
import Foundation

enum Summary {
  /// Cells per scenario in the summary.
  static let cells = 10_000

  /// The summary's rows: a title, then (scenario, what it is) pairs; the first scenario of
  /// a section is the one the others are compared with.
  static let sections: [(title: String, rows: [(name: String, label: String)])] = [
    (
      "tip-in card (rotate, translate, opacity; the brief's headline)",
      [
        ("tipIn/simd8", "CellMotion kernel, SIMD8 lanes"),
        ("tipIn/simd8-2threads", "the same on 2 threads"),
        ("tipIn/glm", "GLM C++ loop, one cell at a time (-O3)"),
        ("tipIn/reference-float", "scalar Swift, Float"),
        ("tipIn/reference-double", "scalar reference, Double"),
      ]
    ),
    (
      "other recipes (kernel vs the scalar reference)",
      [
        ("tipInChannels/simd8", "tip-in as channels"),
        ("tipInChannels/glm", "  GLM"),
        ("moveUpBounce/simd8", "spring (damping 0.4)"),
        ("moveUpBounce/reference-double", "  scalar reference"),
        ("shake/simd8", "keyframes"),
        ("shake/reference-double", "  scalar reference"),
        ("foldOpen/simd8", "fold, two halves, m34 = -1/500"),
        ("foldOpen/reference-double", "  scalar reference"),
      ]
    ),
    (
      "progress from the caller, retargets, scroll effects (vs tip-in)",
      [
        ("tipIn/simd8", "tip-in from the clock"),
        ("tipIn/progress-input", "tip-in from a progress column"),
        ("retarget/tipIn-velocities", "retargeted, with velocities"),
        ("retarget/tipInChannels-additive-velocities", "additive retargets, velocities"),
        ("retarget/tipInChannels-additive-velocities-staggered", "additive retargets, staggered, velocities"),
        ("scroll/reveal", "scroll effect: reveal, a list"),
        ("scroll/edgeFadeScale", "scroll effect: edge fade and scale, a list"),
        ("scroll/coverFlow", "scroll effect: cover flow, a list"),
        ("scroll/wheelPicker", "scroll effect: wheel picker, a list"),
        ("scroll/depthPage", "scroll effect: depth page, a list"),
        ("scroll/reveal-inRange", "scroll effect: reveal, in range"),
        ("scroll/edgeFadeScale-inRange", "scroll effect: edge fade and scale, in range"),
        ("scroll/coverFlow-inRange", "scroll effect: cover flow, in range"),
        ("scroll/wheelPicker-inRange", "scroll effect: wheel picker, in range"),
        ("scroll/depthPage-inRange", "scroll effect: depth page, in range"),
      ]
    ),
    (
      "4x4 matrix stages (vs BLAS sgemm)",
      [
        ("compose/simd", "compose, SIMD"),
        ("compose/blas-netlib", "compose, cblas_sgemm"),
      ]
    ),
  ]

  /// The section whose ratios are bars (issues 31 and 33: at most 1.1x, 2x, 1.5x tip-in).
  static let pairedSection = 2

  /// The bars' scenarios in `scenarios` with their reference (the section's first row,
  /// tip-in in SIMD8, made for the size when the run leaves it out) at the same size, to be
  /// measured again in pairs (`Runner.pair`).
  static func pairedBars(_ scenarios: [Scenario]) -> [(Scenario, Scenario)] {
    let rows = sections[pairedSection].rows
    guard let base = rows.first?.name else { return [] }
    var out: [(Scenario, Scenario)] = []
    for r in rows.dropFirst() {
      for s in scenarios where s.name == r.name {
        let ref =
          scenarios.first { $0.name == base && $0.cells == s.cells }
          ?? KernelScenarios.scenario(Recipe.tipIn, s.cells, .simd8)
        precondition(ref.name == base, "the paired section's reference is \(base), not \(ref.name)")
        out.append((s, ref))
      }
    }
    return out
  }

  /// The scenarios the summary measures (each once, at `cells`).
  static func scenarios(_ catalog: [Scenario]) -> [Scenario] {
    var names: [String] = []
    for s in sections { for r in s.rows where !names.contains(r.name) { names.append(r.name) } }
    return names.compactMap { n in catalog.first { $0.name == n && $0.cells == cells } }
  }

  @_optimize(none)  // text handled once a run: not worth the optimiser's seconds at every build
  static func text(
    machine: MachinePeaks, results: [Measurement], paired: [PairedRatio], scroll: ScrollSessionResult?,
    dense: ScrollSessionResult?,
    denseEffect: ScrollSessionResult?, updates: UpdateSessionResult?
  ) -> String {
    func f(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
    var lines = [
      "cellmotion-bench: \(cells) cells per call, median ns per cell (--all: every scenario and size; --json: all of it)",
      "machine: \(machine.cpuModel); FMA in the kernel: \(machine.stagesUseFusedMultiplyAdd)",
    ]
    for section in sections {
      let rows = section.rows.compactMap { r in results.first { $0.name == r.name }.map { (r, $0) } }
      guard let base = rows.first?.1 else { continue }
      lines.append("")
      lines.append("\(section.title)")
      lines.append("  \(Report.pad("", 44, left: true)) \(Report.pad("ns/cell", 9)) \(Report.pad("x first", 8))  frame (us)")
      var above = base
      for (r, m) in rows {
        // An indented row is compared with the row above it; the others with the first, in
        // pairs of samples where they were measured so.
        let pair = paired.first { $0.scenario == m.name && $0.cells == m.cells && $0.reference == base.name }
        let ratio = pair?.ratio ?? m.medianNsPerCell / (r.label.hasPrefix("  ") ? above : base).medianNsPerCell
        above = m
        lines.append(
          "  \(Report.pad(r.label, 44, left: true)) \(Report.pad(Report.short(m.medianNsPerCell), 9)) "
            + "\(Report.pad(f(ratio) + "x", 8))  \(Report.pad(f(m.medianNsPerCell * Double(m.cells) / 1e3, 1), 9))")
      }
    }
    if scroll != nil || dense != nil || updates != nil {
      lines.append("")
      lines.append("table sessions (TableAnimator, 1,000,000 rows, 120 Hz: 8,333 us a frame)")
      /// One scroll session's line: its frame times and allocations after `label`.
      func session(_ label: String, _ s: ScrollSessionResult, firstFrame: Bool = true) -> String {
        let first = firstFrame ? "init \(f(s.initMicroseconds, 0)) us, first frame \(f(s.firstFrameMicroseconds, 0)) us, " : ""
        // Over the kernel only where the rows are many (the bar's sessions): a frame of 11
        // rows is its fixed costs, not the kernel's.
        let kernel = s.visibleRowsMedian >= 1000 ? " (\(f(s.frameOverKernel))x kernel)" : ""
        return "  \(label): \(first)median \(f(s.frameMedianMicroseconds, 1)) us\(kernel), "
          + "p99 \(f(s.frameP99Microseconds, 1)) us, "
          + "\(f(s.allocationsPerFrameSteadyState)) allocations a frame"
      }
      if let s = scroll { lines.append(session("fling, \(f(s.visibleRowsMedian, 0)) rows visible", s)) }
      if let s = dense { lines.append(session("dense scroll, \(f(s.visibleRowsMedian, 0)) rows visible", s)) }
      if let s = denseEffect {
        lines.append(session("the same with edge fade and scale on every row, frames", s, firstFrame: false))
      }
      if let u = updates {
        let threads = u.updateThreads == 1 ? "one thread" : "two threads"
        lines.append(
          "  batch updates (\(u.insertionsPerBatch) + \(u.deletionsPerBatch) rows, \(threads)): "
            + "performBatchUpdates median \(f(u.updateCallMillisecondsMedian)) ms, max "
            + "\(f(u.updateCallMillisecondsMax)) ms")
        lines.append(
          "    animating frames, \(f(u.visibleRowsMedian, 0)) rows visible: median \(f(u.frameMedianMicroseconds, 1)) us "
            + "(\(f(u.frameOverKernel))x kernel), p99 \(f(u.frameP99Microseconds, 1)) us")
      }
    }
    lines.append("")
    lines.append("x first = ns per cell over the section's first row (indented rows: over the row above), same run; "
        + "frame = one call of \(cells) cells.")
    lines.append("\(sections[pairedSection].title): x first is the median of \(paired.first?.pairs ?? 0) ratios of "
        + "back-to-back samples (the machine's speed drifts between two medians).")
    if scroll != nil || dense != nil || updates != nil {
      lines.append("x kernel = the median frame over the kernel's tip-in time for the visible rows, measured just "
          + "before and after the session.")
    }
    return lines.joined(separator: "\n")
  }
}
