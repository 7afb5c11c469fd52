// A soak session's history: the actions, and the replayable script they print as.
//
// Script format (one line each; lines starting with `#` are comments; blank lines are
// ignored):
//
//     session SEED MAXROWS          the table (SessionConfig(seed:maxRows:)), first line
//     largest                       (optional, after `session`) the largest-table variant
//     frames N DT                   N frames, DT seconds apart
//     fling V normal|fast           a fling from the current offset at V points/s
//     constant V                    constant scrolling at V points/s, clamped to the range
//     jump F                        the offset jumps to fraction F of the scroll range
//     toggle ROW                    expand or collapse ROW
//     update OP, OP, ...            one batch: del I ANIM | ins I H ANIM [#ID] | mov F T |
//                                   rel I H|- ANIM | hgt I H | expect N
//     reload                        display rules start over
//     lanes simd4|simd8             the kernel's lane width from now on
//     badstep                       a step back in time and a NaN step, both refused
//
// Times are relative: every action happens at the time of the last frame, before the
// next one. Numbers print with enough digits to read back exactly.

import CellMotion
import CellMotionTableModel

/// The kernel's lane width a session switches to (`LaneWidth`'s cases, named here so the
/// script and its parser need no kernel).
public enum SoakLanes: String, Equatable, Sendable {
  case simd8, simd4
}

/// One operation of a batch update (`RowUpdate`'s entries, in UIKit's index conventions).
public enum SoakUpdateOp: Equatable, Sendable {
  case delete(Int, RowAnimation)
  case insert(Int, height: Double, id: RowID?, RowAnimation)
  case move(Int, Int)
  case reload(Int, height: Double?, RowAnimation)
  case height(Int, Double)
  case expect(Int)
}

/// One step of a session's history.
public enum SoakAction: Equatable, Sendable {
  /// `count` frames, `interval` seconds apart.
  case frames(count: Int, interval: Double)
  /// A fling from the current offset, points per second.
  case fling(velocity: Double, fast: Bool)
  /// Constant scrolling from the current offset, points per second, within the range.
  case constant(velocity: Double)
  /// The offset jumps to `fraction` of the scroll range (a documented discontinuity).
  case jump(fraction: Double)
  case toggle(row: Int)
  case update([SoakUpdateOp])
  case reload
  case lanes(SoakLanes)
  /// Steps that must be refused (earlier time, NaN), leaving the frame as it was.
  case badStep

  /// The batch of an `.update`, and the row count it expects if it says.
  public static func rowUpdate(_ ops: [SoakUpdateOp]) -> (RowUpdate, expected: Int?) {
    var u = RowUpdate()
    var expected: Int? = nil
    for op in ops {
      switch op {
      case .delete(let i, let a): u.deleteRows(at: [i], with: a)
      case .insert(let i, let h, let id, let a): u.insertRow(at: i, height: h, id: id, with: a)
      case .move(let f, let t): u.moveRow(at: f, to: t)
      case .reload(let i, let h, let a): u.reloadRows(at: [i], height: h, with: a)
      case .height(let i, let h): u.setHeight(ofRow: i, to: h)
      case .expect(let n): expected = n
      }
    }
    return (u, expected)
  }
}

extension SoakUpdateOp: CustomStringConvertible {
  /// The line of a script that means this.
  public var description: String {
    switch self {
    case .delete(let i, let a): return "del \(i) \(a.rawValue)"
    case .insert(let i, let h, let id, let a): return "ins \(i) \(h) \(a.rawValue)" + (id.map { " #\($0.rawValue)" } ?? "")
    case .move(let f, let t): return "mov \(f) \(t)"
    case .reload(let i, let h, let a): return "rel \(i) \(h.map { "\($0)" } ?? "-") \(a.rawValue)"
    case .height(let i, let h): return "hgt \(i) \(h)"
    case .expect(let n): return "expect \(n)"
    }
  }
}

extension SoakAction: CustomStringConvertible {
  /// The line of a script that means this.
  public var description: String {
    switch self {
    case .frames(let n, let dt): return "frames \(n) \(dt)"
    case .fling(let v, let fast): return "fling \(v) \(fast ? "fast" : "normal")"
    case .constant(let v): return "constant \(v)"
    case .jump(let f): return "jump \(f)"
    case .toggle(let r): return "toggle \(r)"
    case .update(let ops): return "update " + ops.map(\.description).joined(separator: ", ")
    case .reload: return "reload"
    case .lanes(let w): return "lanes \(w.rawValue)"
    case .badStep: return "badstep"
    }
  }
}

/// A session's table and history: what a replay script holds.
public struct SoakScript: Equatable, Sendable {
  /// The session seed (`SessionConfig(seed:maxRows:largest:)`).
  public var seed: UInt64
  /// The most rows the session may draw.
  public var maxRows: Int
  /// The largest-table variant (the first session of a soak).
  public var largest: Bool
  /// The history, in order.
  public var actions: [SoakAction]

  /// A script of `actions` on the table of `seed`.
  public init(seed: UInt64, maxRows: Int, largest: Bool = false, actions: [SoakAction]) {
    self.seed = seed
    self.maxRows = maxRows
    self.largest = largest
    self.actions = actions
  }

  /// The frames the script steps.
  public var frameCount: Int {
    actions.reduce(0) { n, a in if case .frames(let c, _) = a { return n + c } else { return n } }
  }

  /// The script's text (see the file's header), with `comment` lines first.
  public func text(comment: [String] = []) -> String {
    var lines = comment.map { "# " + $0 }
    lines.append("session \(seed) \(maxRows)")
    if largest { lines.append("largest") }
    lines += actions.map(\.description)
    return lines.joined(separator: "\n") + "\n"
  }

  /// An error reading a script: the line and what was wrong.
  public struct ParseError: Error, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// What was wrong.
    public var message: String
    /// "line N: message".
    public var description: String { "line \(line): \(message)" }
  }

  /// Reads a script.
  ///
  /// - Throws: `ParseError` naming the first line it cannot read.
  @_optimize(none)  // text handled once a run: not worth the optimiser's seconds at every build
  public static func parse(_ text: String) throws(ParseError) -> SoakScript {
    var script: SoakScript? = nil
    for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      // A comment is a whole line (`#` inside a line is an inserted row's identifier).
      if raw.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") { continue }
      let line = String(raw)
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
      guard let head = words.first else { continue }
      func fail(_ m: String) -> ParseError { ParseError(line: n + 1, message: m) }
      func int(_ i: Int) throws(ParseError) -> Int {
        guard i < words.count, let v = Int(words[i]) else { throw fail("expected an integer as word \(i + 1)") }
        return v
      }
      func double(_ i: Int) throws(ParseError) -> Double {
        guard i < words.count, let v = Double(words[i]) else { throw fail("expected a number as word \(i + 1)") }
        return v
      }
      if head == "session" {
        guard words.count == 3, let seed = UInt64(words[1]), let rows = Int(words[2]) else {
          throw fail("expected `session SEED MAXROWS`")
        }
        script = SoakScript(seed: seed, maxRows: rows, actions: [])
        continue
      }
      guard script != nil else { throw fail("the first line must be `session SEED MAXROWS`") }
      let action: SoakAction
      switch head {
      case "largest":
        script!.largest = true
        continue
      case "frames": action = .frames(count: try int(1), interval: try double(2))
      case "fling":
        action = .fling(velocity: try double(1), fast: words.count > 2 && words[2] == "fast")
      case "constant": action = .constant(velocity: try double(1))
      case "jump": action = .jump(fraction: try double(1))
      case "toggle": action = .toggle(row: try int(1))
      case "reload": action = .reload
      case "badstep": action = .badStep
      case "lanes":
        guard words.count == 2, let w = SoakLanes(rawValue: words[1]) else { throw fail("expected `lanes simd4|simd8`") }
        action = .lanes(w)
      case "update":
        let rest = words.dropFirst().joined(separator: " ")
        var ops: [SoakUpdateOp] = []
        for part in rest.split(separator: ",") {
          let w = part.split(separator: " ").map(String.init)
          guard let op = w.first else { continue }
          func i(_ k: Int) throws(ParseError) -> Int {
            guard k < w.count, let v = Int(w[k]) else { throw fail("update \(op): expected an integer") }
            return v
          }
          func d(_ k: Int) throws(ParseError) -> Double {
            guard k < w.count, let v = Double(w[k]) else { throw fail("update \(op): expected a number") }
            return v
          }
          func anim(_ k: Int) throws(ParseError) -> RowAnimation {
            guard k < w.count, let a = RowAnimation(rawValue: w[k]) else { throw fail("update \(op): expected an animation") }
            return a
          }
          switch op {
          case "del": ops.append(.delete(try i(1), try anim(2)))
          case "ins":
            var id: RowID? = nil
            if w.count > 4, w[4].hasPrefix("#"), let v = Int(w[4].dropFirst()) { id = RowID(v) }
            ops.append(.insert(try i(1), height: try d(2), id: id, try anim(3)))
          case "mov": ops.append(.move(try i(1), try i(2)))
          case "rel": ops.append(.reload(try i(1), height: w.count > 2 && w[2] == "-" ? nil : try d(2), try anim(3)))
          case "hgt": ops.append(.height(try i(1), try d(2)))
          case "expect": ops.append(.expect(try i(1)))
          default: throw fail("unknown update operation \(op)")
          }
        }
        action = .update(ops)
      default: throw fail("unknown action \(head)")
      }
      script!.actions.append(action)
    }
    guard let script else { throw ParseError(line: 1, message: "no `session` line") }
    return script
  }
}
