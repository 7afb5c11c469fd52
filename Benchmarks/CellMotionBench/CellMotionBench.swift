// cellmotion-bench: measures CellMotion's stages against peers (BLAS, a GLM C++ baseline)
// and the machine's own peaks, in one run.
//
// Build for measurement (AVX2/FMA need the target flag; see Package.swift):
//   swift build -c release -Xswiftc -target-cpu -Xswiftc haswell
//   .build/release/cellmotion-bench            (the summary: headline scenarios, peers, sessions)
//   .build/release/cellmotion-bench --all [--quick] [--filter compose] [--sizes 1000,10000] [--json]
// Self-checks (GLM vs a Swift Double reference, stages vs Double, allocation counter):
//   .build/release/cellmotion-bench --verify

import ArgumentParser
import CellMotionKernel
import Foundation

@main
struct CellMotionBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cellmotion-bench",
    abstract: "Benchmarks CellMotion stages against BLAS, a GLM baseline and machine peaks.")

  @Flag(help: "Print one JSON document (every scenario, as --all) instead of the summary.")
  var json = false

  @Flag(help: "Every scenario at every size, the machine's peaks and every ratio (the summary's default is one screen).")
  var all = false

  @Option(help: "Only scenarios whose name (group/variant) contains this substring; a trailing $ asks for the whole name (retarget/tipIn$).")
  var filter: String?

  @Option(help: "Comma-separated cell counts for every scenario, e.g. 100,1000,10000.")
  var sizes: String?

  @Option(help: "Samples per scenario (each sample is calibrated to at least 200 us).")
  var repetitions: Int?

  @Flag(help: "Shorter warm-up, fewer samples, tighter time caps.")
  var quick = false

  @Flag(help: "Run the self-checks (GLM and stages vs Double references, allocation counter) and exit.")
  var verify = false

  @Option(help: "Callgrind mode: one warm-up call then exactly this many timed calls, no calibration.")
  var runs: Int?

  @Flag(help: "List the scenarios (after --filter and --sizes) and exit.")
  var list = false

  @Flag(help: "Skip measuring machine peaks (profilers: keeps them out of the profile; roofline columns become nan).")
  var noPeaks = false

  @Option(help: "Threads the update session's batch updates may use (TableSimulation.updateThreads): 1 or 2.")
  var updateThreads = 1

  mutating func validate() throws {
    if let repetitions, repetitions < 1 { throw ValidationError("--repetitions must be >= 1") }
    if let runs, runs < 1 { throw ValidationError("--runs must be >= 1") }
    if updateThreads != 1 && updateThreads != 2 { throw ValidationError("--update-threads must be 1 or 2") }
    _ = try parsedSizes()
  }

  func parsedSizes() throws -> [Int]? {
    guard let sizes else { return nil }
    let values = sizes.split(separator: ",").map { Int($0.filter { $0 != "_" && $0 != " " }) }
    guard !values.isEmpty, values.allSatisfy({ ($0 ?? -1) >= 0 }) else {
      throw ValidationError("--sizes must be comma-separated non-negative integers, got \(sizes)")
    }
    return values.map { $0! }
  }

  mutating func run() throws {
    if verify {
      let passed = SelfCheck.runAll()
      if !passed { throw ExitCode.failure }
      return
    }

    // The default: a one-screen summary (no flag that selects or formats scenarios).
    let summary = !all && !json && filter == nil && sizes == nil && runs == nil && !list
    var scenarios = ScenarioCatalog.families(sizes: try parsedSizes())
    if summary { scenarios = Summary.scenarios(ScenarioCatalog.families(sizes: [Summary.cells])) }
    if let filter {
      // "name$": exactly that scenario (a profiler's run of one), not every name containing it.
      if filter.hasSuffix("$") {
        scenarios = scenarios.filter { $0.name == filter.dropLast() }
      } else {
        scenarios = scenarios.filter { $0.name.contains(filter) }
      }
    }
    // The scroll session runs with the default set, or alone with --filter scroll.
    let runScroll = runs == nil && (filter == nil || "scroll-session".contains(filter!))
    // Likewise the update session (batch updates on a million rows), alone with --filter update.
    let runUpdates = runs == nil && (filter == nil || "update-session".contains(filter!))
    // The dense scroll session (about 10,000 visible rows), alone with --filter dense.
    let runDense = runs == nil && (filter == nil || "dense-scroll-session".contains(filter!))
    if list {
      for s in scenarios { print("\(s.name) N=\(s.cells)") }
      if runScroll { print("scroll-session rows=1000000 rate=120 Hz") }
      if runDense { print("dense-scroll-session rows=1000000 visible=10000 rate=120 Hz") }
      if runUpdates { print("update-session rows=1000000 visible=10000 batches=4x(1000+1000)") }
      return
    }

    var policy = quick ? TimingPolicy.quick : TimingPolicy()
    if let repetitions { policy.samples = repetitions; policy.minimumSamples = min(policy.minimumSamples, repetitions) }
    policy.exactRuns = runs

    let machine =
      noPeaks || summary
      ? Machine.unmeasured(stagesUseFMA: MatrixStages.usesFusedMultiplyAdd)
      : Machine.measure(quick: quick || runs != nil, stagesUseFMA: MatrixStages.usesFusedMultiplyAdd)
    if !json && !summary {
      print(Report.machineLines(machine).joined(separator: "\n"))
      print("")
    }
    let runner = Runner(policy: policy, machine: machine)
    var results: [Measurement] = []
    // Not in callgrind mode (--runs): its counts are the scenarios' calls alone.
    let pairs = runs != nil ? [] : Summary.pairedBars(scenarios)
    var progress = BenchProgress(
      total: scenarios.count + pairs.count + (runScroll ? 1 : 0) + (runDense ? 2 : 0) + (runUpdates ? 1 : 0))
    for scenario in scenarios {
      progress.step(scenario.name)
      let m = try runner.measure(scenario)
      results.append(m)
      if !json, runs != nil {
        print("\(m.name) N=\(m.cells): cells evaluated in timedCall: \(m.cellsEvaluated)")
      }
    }

    // The summary's ratio bars (its third section), each measured again in pairs with its
    // reference when both are in this run.
    var paired: [PairedRatio] = []
    for (scenario, reference) in pairs {
      progress.step("\(scenario.name) paired with \(reference.name)")
      paired.append(try runner.pair(scenario, against: reference))
    }

    var scroll: ScrollSessionResult? = nil
    if runScroll {
      progress.step("scroll session")
      scroll = try ScrollSession.phone()
      if !json && !summary { print(scroll!.summary("scroll session")) }
    }
    var dense: ScrollSessionResult? = nil
    var denseEffect: ScrollSessionResult? = nil
    if runDense {
      progress.step("dense scroll session")
      dense = try ScrollSession.dense()
      if !json && !summary { print(dense!.summary("dense scroll session")) }
      progress.step("dense scroll session with a scroll effect")
      denseEffect = try ScrollSession.denseWithEffect()
      if !json && !summary { print(denseEffect!.summary("dense scroll session, edge fade and scale on every row")) }
    }
    var updates: UpdateSessionResult? = nil
    if runUpdates {
      progress.step("update session")
      updates = try UpdateSession.run(threads: updateThreads)
      // The update call's growth with rows and changes (--all and --json only: it takes a while).
      if !summary {
        (updates!.updateCallScaling, updates!.updateCallSustained, updates!.note) = try UpdateSession.scaling(
          threads: updateThreads)
      }
      if !json && !summary { print(updates!.summary) }
    }
    progress.finish()

    var references: [String: String] = [:]
    for s in scenarios where s.isRatioReference { references[s.group] = s.variant }
    for s in scenarios where references[s.group] == nil { references[s.group] = s.variant }
    let document = BenchDocument(
      machine: machine, samplesPerScenario: policy.samples, results: results,
      ratios: Report.ratios(results, references: references), pairedRatios: paired, scrollSession: scroll,
      denseScrollSession: dense, denseScrollEffectSession: denseEffect, updateSession: updates)
    if json {
      print(try Report.json(document))
    } else if summary {
      print(
        Summary.text(
          machine: machine, results: results, paired: paired, scroll: scroll, dense: dense, denseEffect: denseEffect,
          updates: updates))
    } else {
      let table = Report.table(document)
      // The machine lines were printed before measuring; print the rest.
      print(table.split(separator: "\n", omittingEmptySubsequences: false)
        .dropFirst(Report.machineLines(machine).count + 1).joined(separator: "\n"))
    }
  }
}

/// "[k/n] scenario" on standard error while the benchmark runs (one line rewritten on a
/// terminal, nothing otherwise).
struct BenchProgress {
  let total: Int
  var done = 0
  let terminal = isatty(2) != 0

  init(total: Int) { self.total = total }

  mutating func step(_ name: String) {
    done += 1
    guard terminal else { return }
    FileHandle.standardError.write("\r\u{1B}[K[\(done)/\(total)] \(name)".data(using: .utf8)!)
  }

  func finish() {
    guard terminal else { return }
    FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
  }
}
