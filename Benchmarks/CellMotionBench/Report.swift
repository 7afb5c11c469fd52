// Output: a readable table, ratios side by side, or one JSON document.

import Foundation

struct Ratio: Codable {
  var group: String
  var cells: Int
  var variant: String
  var reference: String
  /// median ns per cell of `variant` / median ns per cell of `reference`.
  var ratio: Double
}

struct BenchDocument: Codable {
  var tool = "cellmotion-bench"
  var frameBudgetMilliseconds = frameBudgetNanoseconds / 1e6
  var machine: MachinePeaks
  var samplesPerScenario: Int
  var results: [Measurement]
  var ratios: [Ratio]
  /// The stated bars' ratios (scroll effects, the progress column and retargets over tip-in),
  /// measured in alternating samples (`Runner.pair`): the ratios to read on a noisy machine.
  var pairedRatios: [PairedRatio] = []
  /// The table scenario: a fling through 1,000,000 rows at 120 Hz with the tip-in recipe.
  var scrollSession: ScrollSessionResult?
  /// The dense scroll scenario (issue 32): about 10,000 visible rows on 1,000,000, scrolled
  /// so that rows appear in every frame.
  var denseScrollSession: ScrollSessionResult? = nil
  /// The dense scroll scenario with a scroll effect (edge fade and scale) on every visible
  /// row (issue 33).
  var denseScrollEffectSession: ScrollSessionResult? = nil
  /// The table-updates scenario: batches of 1,000 insertions and 1,000 deletions on a
  /// 1,000,000-row table showing about 10,000 rows.
  var updateSession: UpdateSessionResult? = nil
}

enum Report {
  /// Ratios of every variant to its group's reference at each size measured for both.
  static func ratios(_ results: [Measurement], references: [String: String]) -> [Ratio] {
    var out: [Ratio] = []
    for m in results {
      guard let reference = references[m.group], reference != m.variant,
        let base = results.first(where: {
          $0.group == m.group && $0.variant == reference && $0.cells == m.cells
        })
      else { continue }
      out.append(
        Ratio(
          group: m.group, cells: m.cells, variant: m.variant, reference: reference,
          ratio: m.medianNsPerCell / base.medianNsPerCell))
    }
    return out
  }

  static func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - s.count))
    return left ? s + padding : padding + s
  }

  static func fixed(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    return String(format: "%.\(digits)f", x)
  }

  /// Three significant digits, no exponent for the usual range.
  static func short(_ x: Double) -> String {
    guard x.isFinite else { return "\(x)" }
    let a = abs(x)
    if a >= 100 { return fixed(x, 0) }
    if a >= 10 { return fixed(x, 1) }
    if a >= 1 { return fixed(x, 2) }
    return fixed(x, 3)
  }

  static func machineLines(_ machine: MachinePeaks) -> [String] {
    [
      "CPU: \(machine.cpuModel)",
      "store bandwidth: \(fixed(machine.storeBandwidthGBs, 1)) GB/s (SIMD8 stores, \(machine.storeBufferMiB) MiB buffer, best pass)",
      "FMA peak: \(fixed(machine.fmaPeakGFLOPs, 1)) GFLOP/s single core, 12 SIMD8 chains (\(machine.fmaPeakNote))",
      "BLAS compared (blas-* rows, each through its own cblas_sgemm): "
        + (machine.blas.compared.isEmpty ? "none installed" : machine.blas.compared.joined(separator: ", ")),
      "libblas.so.3 (the library's .blas backend\(machine.blas.traitEnabled ? "" : ", not built: BLAS trait off")): "
        + "\(machine.blas.kind), chain \(machine.blas.alternativesChain.joined(separator: " -> "))",
      "fused multiply-add in the kernel and stages (FMA target, e.g. -target-cpu haswell): \(machine.stagesUseFusedMultiplyAdd)",
    ]
  }

  @_optimize(none)  // text handled once a run: not worth the optimiser's seconds at every build
  static func table(_ document: BenchDocument) -> String {
    var lines = machineLines(document.machine)
    lines.append("")
    let header = [
      pad("scenario", 16, left: true), pad("N", 9), pad("ns/cell", 9), pad("min", 8),
      pad("p10-p90", 15), pad("MAD", 7), pad("Mcell/s", 9), pad("frame%", 8), pad("alloc", 6),
      pad("B/cell", 7), pad("flop", 5), pad("store%", 7), pad("flop%", 6),
    ].joined(separator: " ")
    lines.append(header)
    lines.append(String(repeating: "-", count: header.count))
    for m in document.results {
      lines.append(
        [
          pad(m.name, 16, left: true), pad("\(m.cells)", 9), pad(short(m.medianNsPerCell), 9),
          pad(short(m.minNsPerCell), 8),
          pad("\(short(m.p10NsPerCell))-\(short(m.p90NsPerCell))", 15),
          pad(short(m.madNsPerCell), 7), pad(short(m.cellsPerSecond / 1e6), 9),
          pad(short(100 * m.frameBudgetShare), 8), pad(short(m.allocationsPerRun), 6),
          pad("\(m.bytesWrittenPerCell)", 7), pad("\(m.flopsPerCell)", 5),
          pad(short(100 * m.storeRooflineFraction), 7),
          pad(short(100 * m.flopsRooflineFraction), 6),
        ].joined(separator: " "))
    }
    if !document.ratios.isEmpty {
      lines.append("")
      lines.append("ratios (median ns per cell, same run; > 1 means slower than the reference):")
      for r in document.ratios {
        lines.append(
          "  \(pad(r.group, 8, left: true)) N=\(pad("\(r.cells)", 8, left: true)) \(r.variant) / \(r.reference) = \(fixed(r.ratio, 2))x"
        )
      }
    }
    lines.append("")
    lines.append(
      "ns/cell = median of samples; frame% = one run of N cells over 8.333 ms (120 Hz); "
        + "store% and flop% = achieved over the machine peaks above (store% > 100: in cache).")
    return lines.joined(separator: "\n")
  }

  static func json(_ document: BenchDocument) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return String(decoding: try encoder.encode(document), as: UTF8.self)
  }
}
