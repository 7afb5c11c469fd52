// `cellmotion`: recipes and scroll scripts in, pictures and data out.
//
// Goals, in priority order:
// 1. Honest output: every frame comes from the kernel through `TableAnimator`, every
//    curve from `TimingCurve` / `Spring`, every recipe file from `Recipe`'s Codable form.
// 2. Failure is loud and clean: one line `cellmotion: error: ...` on stderr, a non-zero
//    exit code, and never a partial output file (temporary file + rename(2)).
// 3. Defaults that work: every subcommand runs with no arguments.

import ArgumentParser
import CellMotion
import Foundation
import _CLISupport

/// The root command. `main()` is overridden so that every failure, including argument
/// errors, prints exactly one line on stderr.
@main
struct CellMotionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cellmotion",
    abstract: "Render, plot, simulate and inspect CellMotion table-cell animations.",
    discussion: """
      Recipes are preset names (\(Recipe.presetNames.joined(separator: ", "))) or JSON \
      files (see `cellmotion recipe-template` and `cellmotion recipe-schema`). Times are \
      seconds, lengths points, angles radians.
      """,
    subcommands: [
      RenderCommand.self, CurveCommand.self, SimulateCommand.self, InspectCommand.self,
      RecipeTemplateCommand.self, RecipeSchemaCommand.self, TimelineCommand.self,
    ])

  /// Runs the command line and exits with `execute`'s code.
  static func main() {
    Foundation.exit(execute(Array(CommandLine.arguments.dropFirst())))
  }

  /// Parses `arguments` (the command line after the program name), runs the chosen
  /// subcommand and returns the exit code. Help and version requests return 0 with their
  /// usual text on stdout; every error returns non-zero after one line on stderr.
  ///
  /// Never exits the process, so tests run commands in-process with `Console.streams`
  /// bound to files of their own (the output files a command writes are the same as a
  /// process's).
  ///
  /// - Parameter columns: the width help text wraps to; nil: the terminal's (80 when
  ///   stdout is not a terminal).
  static func execute(_ arguments: [String], columns: Int? = nil) -> Int32 {
    let command: any ParsableCommand
    do {
      command = try parseAsRoot(joiningNegativeArrayValues(arguments))
    } catch {
      // Help requests and clean exits print ArgumentParser's text, through a checked write.
      if exitCode(for: error) == .success { return succeed(printing: fullMessage(for: error, columns: columns)) }
      return fail(message(for: error), code: exitCode(for: error).rawValue, fold: true)
    }
    do {
      var mutable = command
      try mutable.run()
      return 0
    } catch let error as CellMotionError {
      return fail(error.description, code: 1)
    } catch let error as CLIError {
      return fail(error.message, code: 1)
    } catch {
      if exitCode(for: error) == .success { return succeed(printing: fullMessage(for: error, columns: columns)) }
      return fail(message(for: error), code: max(1, exitCode(for: error).rawValue), fold: true)
    }
  }

  /// Array options with numeric values. Single-valued numeric options read their next
  /// argument unconditionally (`@Option(parsing: .unconditional)`), so `--velocity -3000`
  /// works; an array option (`--expand 1 3`) cannot, because it must stop at the next
  /// option, so its negative values are rewritten before parsing.
  static let numericArrayOptions: Set<String> = ["--expand"]

  /// Rewrites each negative number that follows a `numericArrayOptions` flag, directly or
  /// after other values of it, as `--flag=<number>`: `--expand 1 -3` becomes
  /// `--expand 1 --expand=-3`, `--expand -3` becomes `--expand=-3`. The value then reaches
  /// the option's validation ("row -3 is out of range") instead of being read as an
  /// unknown option. Nothing after `--` is touched.
  static func joiningNegativeArrayValues(_ arguments: [String]) -> [String] {
    var out: [String] = []
    var open: String?
    for (i, argument) in arguments.enumerated() {
      if argument == "--" {
        out += arguments[i...]
        break
      }
      if let option = open {
        if !argument.hasPrefix("-") {
          out.append(argument)
          continue
        }
        if Double(argument) != nil {
          // The bare flag itself takes the first value if it has none yet.
          if out.last == option { out.removeLast() }
          out.append("\(option)=\(argument)")
          continue
        }
        open = nil
      }
      if numericArrayOptions.contains(argument) { open = argument }
      out.append(argument)
    }
    return out
  }

  /// Prints `text` (help, a clean exit's message) and a newline on stdout and returns 0; a
  /// failed write (a full disk, a closed stdout) is an error like any other.
  static func succeed(printing text: String) -> Int32 {
    if !text.isEmpty {
      do {
        try Console.write(text + "\n")
      } catch {
        return fail(error.message, code: 1)
      }
    }
    return 0
  }

  /// Prints `cellmotion: error: <message>` on one line and returns `code` (1 if it is 0).
  ///
  /// - Parameter fold: join the lines of a multi-line message with "; " (ArgumentParser's
  ///   messages); otherwise a line break is user data and is escaped like any control.
  static func fail(_ message: String, code: Int32, fold: Bool = false) -> Int32 {
    Console.writeError("cellmotion: error: \(errorText(message, fold: fold))\n")
    return code == 0 ? 1 : code
  }

  /// The longest error message printed, in characters; longer ones keep their start and
  /// end around an ellipsis.
  static let maximumErrorLength = 300

  /// `message` made safe for one terminal line: folded (if asked), a leading "Error: "
  /// dropped, control characters escaped (`\u{1B}`, so a recipe name cannot move the
  /// cursor or recolour the terminal), and capped at `maximumErrorLength` characters.
  static func errorText(_ message: String, fold: Bool) -> String {
    var text = message
    if fold {
      text = message.split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
        .joined(separator: "; ")
    }
    if text.lowercased().hasPrefix("error: ") { text.removeFirst(7) }
    return capped(escapingControls(text), maximumErrorLength)
  }

  /// `text` with at most `limit` characters: the first two thirds and the last third of
  /// the budget around "…".
  static func capped(_ text: String, _ limit: Int) -> String {
    guard text.count > limit else { return text }
    let head = limit * 2 / 3
    return String(text.prefix(head)) + "…" + String(text.suffix(limit - head - 1))
  }
}

/// `text` with control characters (C0, DEL, C1), line and paragraph separators and bidi
/// controls written as escapes: `\n`, `\t`, `\r`, otherwise `\u{1B}`.
func escapingControls(_ text: String) -> String {
  var out = String.UnicodeScalarView()
  for scalar in text.unicodeScalars {
    let v = scalar.value
    let bidi = v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    guard v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || bidi else {
      out.append(scalar)
      continue
    }
    let escape: String
    switch v {
    case 0x0A: escape = "\\n"
    case 0x09: escape = "\\t"
    case 0x0D: escape = "\\r"
    default: escape = "\\u{\(String(v, radix: 16, uppercase: true))}"
    }
    out.append(contentsOf: escape.unicodeScalars)
  }
  return String(out)
}
