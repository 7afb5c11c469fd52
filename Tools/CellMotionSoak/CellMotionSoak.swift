// cellmotion-soak: model-based soak of the table animator. Random sessions of scrolling,
// toggles, batch updates and retargets, every frame checked against a model
// (`_SoakSupport`); a violation is shrunk to a short replayable script.
//
//   cellmotion-soak [--seed S] [--frames N | --seconds T] [--rows R] [--session-frames F]
//                   [--kernel-every K] [--shrink-seconds T] [--no-shrink] [--memory-check]
//                   [--progress T] [--out DIR] [--tolerate-allocations] [--plant FAULT]
//   cellmotion-soak --replay FILE
//
// Ends with `soak: seed S, N frames, A actions, V violations` (exit status 1 when V > 0).

import ArgumentParser
import CellMotion
import Foundation
import _AllocCounter
import _SoakSupport

@main
struct CellMotionSoak: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cellmotion-soak",
    abstract: "Model-based soak of the table animator: random sessions checked every frame.",
    discussion: """
      Sessions are drawn from --seed until --frames frames (or --seconds of wall time) have run. \
      Each violation prints its seed, frame and a shrunk replayable script (also written to \
      --out). The last line is `soak: seed S, N frames, A actions, V violations`; the exit status \
      is 1 when V > 0.
      """)

  @Option(help: "Master seed (sessions are drawn from it).") var seed: UInt64 = 1
  @Option(help: "Frames to run in all (default 20,000 unless --seconds).") var frames: Int?
  @Option(help: "Wall-clock seconds to run (instead of --frames).") var seconds: Double?
  @Option(help: "Largest table, rows (the first session uses it, varied heights).") var rows: Int = 1_000_000
  @Option(help: "Most frames in one session.") var sessionFrames: Int = 4000
  @Option(help: "Check the kernel against the reference every K frames (0: never).") var kernelEvery: Int = 7
  @Option(help: "Seconds to spend shrinking each violation.") var shrinkSeconds: Double = 120
  @Flag(help: "Report violations without shrinking them.") var noShrink = false
  @Flag(help: "Fail unless peak memory at the end is within 10% of its value after 10,000 frames.")
  var memoryCheck = false
  @Option(help: "Seconds between progress lines.") var progress: Double = 30
  @Option(help: "Directory to write each violation's script to (soak-SEED.txt); by default scripts go to standard output only.")
  var out: String?
  @Option(help: "Run only the generated session with this seed (as a soak prints it), --session-frames long.")
  var session: UInt64?
  @Option(help: "Replay a script (one action per line) instead of soaking.") var replay: String?
  @Option(help: "Stop after this many violations.") var maxViolations: Int = 3
  @Flag(help: "Print a line per frame (with --replay).") var trace = false
  @Flag(
    help: """
      Count heap allocations in steady frames and print them, but not as violations (for CI \
      while a known allocation source in the table layer is being removed).
      """)
  var tolerateAllocations = false
  @Option(help: "Plant a bug to show the soak finds and shrinks it: \(PlantedFault.allCases.map(\.rawValue)).")
  var plant: PlantedFault?

  mutating func run() throws {
    var options = SoakOptions()
    options.kernelEvery = kernelEvery
    // Allocation counts mean something only in an optimised build: at -Onone unspecialised
    // generics allocate boxes on ordinary calls (`contains(where:)` on an array).
    #if !DEBUG
      options.allocationCounter = { cm_alloc_count() }
    #endif
    options.trace = trace
    options.toleratesAllocations = tolerateAllocations
    options.plantedFault = plant
    if let replay {
      let text = try String(contentsOfFile: replay, encoding: .utf8)
      let script = try SoakScript.parse(text)
      if options.allocationCounter != nil {
        // The Swift runtime allocates once per process when a generic type is first used
        // (metadata instantiation: ExpansionState.removeSettled's first
        // Dictionary.removeAll, for one). A soak's sessions run warm; so does a replay:
        // first without counting, then counted.
        var warm = options
        warm.allocationCounter = nil
        _ = Soak.replay(script, options: warm)
      }
      let r = Soak.replay(script, options: options)
      if let c = r.refusedConfig { say("replay: the table refused the session's configuration: \(c)") }
      if let v = r.violation { say("replay: \(v)") }
      say(
        "soak: seed \(script.seed), \(r.stats.frames) frames, \(r.stats.actions) actions, \(r.violation == nil ? 0 : 1) violations")
      if r.violation != nil { throw ExitCode(1) }
      return
    }
    if let session {
      let r = Soak.runSession(seed: session, maxRows: rows, frames: sessionFrames, options: options)
      if let c = r.refusedConfig { say("session: the table refused the session's configuration: \(c)") }
      if let v = r.violation { report(v, r.script, options: options) }
      say("soak: seed \(session), \(r.stats.frames) frames, \(r.stats.actions) actions, \(r.violation == nil ? 0 : 1) violations")
      if r.violation != nil { throw ExitCode(1) }
      return
    }
    let budget = frames ?? (seconds == nil ? 20_000 : Int.max)
    let start = Soak.now()
    var lastProgress = start
    var total = SoakStats()
    var violations = 0
    var sessions = 0, refusedConfigs = 0
    var memoryAtWarmup: Int? = nil
    var peakSeen = 0
    var byKind: [String: Int] = [:]
    var firstAllocating: (session: UInt64, frame: Int, allocations: UInt64, rows: Int)? = nil
    say("soak: seed \(seed), \(frames.map { "\($0) frames" } ?? seconds.map { "\($0) s" } ?? "\(budget) frames"), rows up to \(rows)")
    while total.frames < budget && (seconds.map { Soak.now() - start < $0 } ?? true) && violations < maxViolations {
      let s = Soak.sessionSeed(seed, sessions)
      let length = min(budget - total.frames, 200 + Int(s % UInt64(max(1, sessionFrames - 200))))
      let r = Soak.runSession(seed: s, maxRows: rows, largest: sessions == 0, frames: length, options: options)
      sessions += 1
      total.add(r.stats)
      if r.refusedConfig != nil { refusedConfigs += 1 }
      if memoryAtWarmup == nil && total.frames >= 10_000 {
        memoryAtWarmup = Soak.memory().peakKiB
        peakSeen = memoryAtWarmup!
      } else if memoryAtWarmup != nil {
        // Which sessions raise the peak after warm-up, and what was live at their end: a
        // leak shows as the current RSS climbing at session ends; a larger table as a
        // session whose configuration says so.
        let m = Soak.memory()
        if Double(m.peakKiB) > 1.02 * Double(peakSeen) {
          peakSeen = m.peakKiB
          let config = SessionConfig(seed: s, maxRows: rows)
          say(
            "memory: peak RSS \(m.peakKiB / 1024) MiB (current \(m.currentKiB / 1024) MiB) after session \(s) at frame "
              + "\(total.frames): \(config)")
        }
      }
      if firstAllocating == nil, let a = r.stats.firstAllocation { firstAllocating = (s, a.frame, a.allocations, a.rows) }
      if let v = r.violation {
        violations += 1
        byKind[v.kind, default: 0] += 1
        report(v, r.script, options: options)
      }
      let t = Soak.now()
      if t - lastProgress >= progress {
        lastProgress = t
        let m = Soak.memory()
        say(
          "progress: \(total.frames) frames, \(total.actions) actions, \(sessions) sessions, \(violations) violations, "
            + "\(Int(t - start)) s, peak RSS \(m.peakKiB / 1024) MiB, current \(m.currentKiB / 1024) MiB")
      }
    }
    let m = Soak.memory()
    let elapsed = Soak.now() - start
    say(
      "stats: \(sessions) sessions (\(refusedConfigs) configurations refused by the table), "
        + "\(total.horizontalFrames) frames of horizontal tables, \(total.batches) batches, "
        + "\(total.toggles) toggles, \(total.refused) refused actions, \(total.settleChecks) settle checks, "
        + "\(total.kernelCells) kernel cells (worst \(total.worstKernel) normalised, opacity \(total.worstOpacity)), "
        + "\(total.steadyFrames) steady frames checked for allocations, \(total.refinements) continuity refinements")
    say(
      String(
        format: "time: %.1f s, %.0f frames/s; memory: peak RSS %d KiB after 10,000 frames, %d KiB at the end",
        elapsed, Double(total.frames) / max(elapsed, 1e-9), memoryAtWarmup ?? m.peakKiB, m.peakKiB))
    if let a = firstAllocating {
      say(
        "tolerated: allocation in \(total.allocatingFrames) of \(total.steadyFrames) steady frames (first: session seed "
          + "\(a.session), frame \(a.frame), \(a.allocations) allocations, \(a.rows) rows visible)")
    }
    if memoryCheck, let w = memoryAtWarmup, Double(m.peakKiB) > 1.1 * Double(w) {
      violations += 1
      byKind["memory", default: 0] += 1
      say("violation [memory]: peak RSS grew from \(w) KiB after 10,000 frames to \(m.peakKiB) KiB (> 10%)")
    }
    if !byKind.isEmpty {
      say("violations by kind: " + byKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    say("soak: seed \(seed), \(total.frames) frames, \(total.actions) actions, \(violations) violations")
    if violations > 0 { throw ExitCode(1) }
  }

  func report(_ v: SoakViolation, _ script: SoakScript, options: SoakOptions) {
    say("violation: session seed \(script.seed) (soak seed \(seed)), frame \(v.frame): \(v)")
    var final = script
    final.actions = Array(script.actions.prefix(v.action + 1))
    var finalViolation = v
    if !noShrink {
      let t = Soak.now()
      let s = Soak.shrink(script, violation: v, options: options, seconds: shrinkSeconds)
      final = s.script
      finalViolation = s.violation
      say(
        String(
          format: "shrunk: %d actions -> %d (%d frames) in %d replays, %.1f s", v.action + 1, final.actions.count,
          final.frameCount, s.replays, Soak.now() - t))
    }
    let config = SessionConfig(seed: final.seed, maxRows: final.maxRows, largest: final.largest)
    let text = final.text(comment: [
      "cellmotion-soak reproduction (replay: cellmotion-soak --replay FILE)",
      "\(finalViolation)", "table: \(config)",
    ])
    say("reproduction:\n" + text, newline: false)
    guard let out else { return }
    let path = "\(out)/soak-\(script.seed).txt"
    if FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) {
      say("written to \(path)")
    } else {
      say("could not write \(path)")
    }
  }
}

extension PlantedFault: ExpressibleByArgument {}

/// Writes a line to standard output unbuffered (progress shows as it happens in a log).
func say(_ line: String, newline: Bool = true) {
  FileHandle.standardOutput.write(Data((newline ? line + "\n" : line).utf8))
}
