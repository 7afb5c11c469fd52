// Running soaks: sessions drawn from a master seed until a frame budget is spent, replays
// of scripts, and shrinking a failing history to the shortest that still fails.
//
// Goals, in priority order:
// 1. Reproducible: the master seed names every session (`sessionSeed`), each session's
//    history is kept, and a violation comes with a script that replays it exactly.
// 2. Small reproductions: `shrink` removes actions (halves, quarters, ... single ones),
//    shortens runs of frames and drops operations from batches while the same kind of
//    violation still happens.

import CellMotion
import CellMotionTable
import _TestSupport

// The soak's kernel-free parts (script, rows model, recipes, update fuzz, fuzz drivers):
// what imports this module sees them too.
@_exported import _SoakModel

#if canImport(Glibc)
  import Glibc
#endif

/// Soak sessions, replays and shrinking.
public enum Soak {
  /// The seed of session `index` of a soak with `seed` (SplitMix64 of both).
  public static func sessionSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
    var g = SeededGenerator(seed: seed &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
    return g.next()
  }

  /// The outcome of one session.
  public struct SessionResult: Sendable {
    /// The history run, up to the violation if any.
    public var script: SoakScript
    /// The first broken invariant, or nil.
    public var violation: SoakViolation?
    /// What the session did.
    public var stats: SoakStats
    /// Set when the table refused the drawn configuration (the session did not run).
    public var refusedConfig: String?
  }

  /// Runs a generated session of at most `frames` frames.
  public static func runSession(
    seed: UInt64, maxRows: Int, largest: Bool = false, frames: Int, options: SoakOptions = SoakOptions()
  ) -> SessionResult {
    var script = SoakScript(seed: seed, maxRows: maxRows, largest: largest, actions: [])
    let config = SessionConfig(seed: seed, maxRows: maxRows, largest: largest)
    var session: SoakSession
    do {
      session = try SoakSession(config: config, options: options)
    } catch {
      return SessionResult(script: script, violation: nil, stats: SoakStats(), refusedConfig: "\(error)")
    }
    if let v = session.start() { return SessionResult(script: script, violation: v, stats: session.stats) }
    var generator = SoakGenerator(seed: seed)
    while session.stats.frames < frames {
      var action = generator.next(session)
      if case .frames(let n, let dt) = action { action = .frames(count: min(n, frames - session.stats.frames), interval: dt) }
      script.actions.append(action)
      if let v = session.perform(action) { return SessionResult(script: script, violation: v, stats: session.stats) }
    }
    var stats = session.stats
    if config.axis == .horizontal { stats.horizontalFrames = stats.frames }
    return SessionResult(script: script, violation: nil, stats: stats)
  }

  /// Replays a script; the first violation, if any.
  public static func replay(_ script: SoakScript, options: SoakOptions = SoakOptions()) -> SessionResult {
    let config = SessionConfig(seed: script.seed, maxRows: script.maxRows, largest: script.largest)
    var session: SoakSession
    do {
      session = try SoakSession(config: config, options: options)
    } catch {
      return SessionResult(script: script, violation: nil, stats: SoakStats(), refusedConfig: "\(error)")
    }
    if let v = session.start() { return SessionResult(script: script, violation: v, stats: session.stats) }
    for a in script.actions {
      if let v = session.perform(a) { return SessionResult(script: script, violation: v, stats: session.stats) }
    }
    return SessionResult(script: script, violation: nil, stats: session.stats)
  }

  /// The shortest history found (within `seconds` of trying) that still breaks the same
  /// invariant as `violation`, and the violation it gives.
  public static func shrink(
    _ script: SoakScript, violation: SoakViolation, options: SoakOptions = SoakOptions(), seconds: Double = 120
  ) -> (script: SoakScript, violation: SoakViolation, replays: Int) {
    let deadline = now() + seconds
    var best = script
    best.actions = Array(script.actions.prefix(violation.action + 1))
    var bestViolation = violation
    var replays = 0
    func fails(_ actions: [SoakAction]) -> Bool {
      guard now() < deadline else { return false }
      var candidate = best
      candidate.actions = actions
      replays += 1
      guard let v = replay(candidate, options: options).violation, v.kind == violation.kind else { return false }
      best.actions = Array(actions.prefix(v.action + 1))
      bestViolation = v
      return true
    }
    var changed = true
    while changed && now() < deadline {
      changed = false
      // Remove chunks of actions, from halves down to single ones.
      var chunk = max(1, best.actions.count / 2)
      while chunk >= 1 && now() < deadline {
        var i = 0
        var removed = false
        while i < best.actions.count && now() < deadline {
          var candidate = best.actions
          candidate.removeSubrange(i..<min(best.actions.count, i + chunk))
          if fails(candidate) {
            removed = true
            changed = true
          } else {
            i += chunk
          }
        }
        if !removed { chunk /= 2 }
      }
      // Shorten runs of frames (binary search on the count).
      for i in 0..<best.actions.count {
        guard i < best.actions.count, case .frames(let n, let dt) = best.actions[i], n > 1 else { continue }
        var lo = 1, hi = n
        while lo < hi && i < best.actions.count && now() < deadline {
          let mid = (lo + hi) / 2
          var candidate = best.actions
          candidate[i] = .frames(count: mid, interval: dt)
          if fails(candidate) {
            hi = mid
            changed = true
          } else {
            lo = mid + 1
          }
        }
      }
      // Drop operations from batches.
      for i in 0..<best.actions.count {
        guard i < best.actions.count, case .update(let ops) = best.actions[i], ops.count > 1 else { continue }
        var k = 0
        while i < best.actions.count, case .update(let current) = best.actions[i], k < current.count, now() < deadline {
          var fewer = current
          fewer.remove(at: k)
          var candidate = best.actions
          candidate[i] = .update(fewer)
          if fails(candidate) { changed = true } else { k += 1 }
        }
      }
    }
    return (best, bestViolation, replays)
  }

  /// Seconds on a monotonic clock.
  public static func now() -> Double { FuzzDriver.now() }

  /// Peak resident set size of this process (VmHWM, KiB), and the current one (VmRSS).
  public static func memory() -> (peakKiB: Int, currentKiB: Int) {
    guard let f = fopen("/proc/self/status", "r") else { return (0, 0) }
    defer { fclose(f) }
    var peak = 0, current = 0
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, f) != nil {
      let s = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let value = Int(s.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
      if s.hasPrefix("VmHWM:") { peak = value } else if s.hasPrefix("VmRSS:") { current = value }
    }
    return (peak, current)
  }
}
