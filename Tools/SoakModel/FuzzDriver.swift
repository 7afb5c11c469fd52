// The plain driver shared by the kernel and update fuzz targets (every build without
// -DCELLMOTION_LIBFUZZER, so `swift build` needs no fuzzer runtime): replays the files
// named on the command line, then runs seeded random inputs for a number of iterations or
// seconds. A broken property traps; the seed and input index printed reproduce it.

import _TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The plain (no libFuzzer) driver of a fuzz target.
public enum FuzzDriver {
  /// Runs `property` as the command line `arguments` (without the program name) asks:
  /// `[--seed N] [--iterations N] [--seconds S] [--max-len N] [FILE ...]`. Returns the
  /// process exit status (0, or 2 for a usage error; a broken property traps).
  public static func main(name: String, arguments: [String], property: ([UInt8]) -> Int) -> Int32 {
    let parsed = FuzzArguments.parse(
      arguments, name: name, iterations: 2000, usage: "[--seed N] [--iterations N] [--seconds S] [--max-len N] [FILE ...]")
    guard let options = parsed.arguments else { return parsed.status }
    let (seed, iterations, seconds, maxLength, files) =
      (options.seed, options.iterations, options.seconds, options.maxLength, options.paths)
    for path in files {
      guard let bytes = read(path) else {
        print("\(name): cannot read \(path)")
        return 2
      }
      let n = property(bytes)
      print("\(path): \(n) checks, no failure")
    }
    if !files.isEmpty && seconds == nil && !options.iterationsGiven { return 0 }
    print("\(name): seed \(seed), \(seconds.map { "\($0) s" } ?? "\(iterations) inputs") of up to \(maxLength) bytes")
    var rng = SeededGenerator(seed: seed)
    let start = now()
    var inputs = 0, checks = 0
    while seconds.map({ now() - start < $0 }) ?? (inputs < iterations) {
      let count = Int(rng.next() % UInt64(maxLength + 1))
      var bytes = [UInt8](repeating: 0, count: count)
      for i in 0..<count { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
      checks += property(bytes)
      inputs += 1
    }
    let elapsed = now() - start
    print(
      "\(name): \(inputs) inputs (input \(inputs) of seed \(seed) last), \(checks) checks, "
        + "\(Int(Double(inputs) / max(elapsed, 1e-9))) inputs/s, no failure")
    return 0
  }

  /// Seconds on a monotonic clock.
  public static func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }

  static func read(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = fread(&buffer, 1, buffer.count, f)
      if n <= 0 { break }
      bytes += buffer[0..<n]
    }
    return bytes
  }
}

/// The command line every fuzz target's plain driver reads:
/// `[--seed N] [--iterations N] [--seconds S] [--max-len N] [PATH ...]`.
public struct FuzzArguments: Sendable {
  /// The random inputs' seed (default: the time).
  public var seed = UInt64(time(nil))
  /// Random inputs to run unless `seconds` is given.
  public var iterations: Int
  /// Seconds to run instead of `iterations`.
  public var seconds: Double? = nil
  /// Longest random input, bytes.
  public var maxLength = 512
  /// Files (or folders) named.
  public var paths: [String] = []
  /// Whether `--iterations` was given.
  public var iterationsGiven = false

  /// Parses `arguments`; nil with the exit status after `--help` (0, usage printed) or an
  /// unknown option (2, message printed).
  public static func parse(_ arguments: [String], name: String, iterations: Int, usage: String) -> (
    arguments: FuzzArguments?, status: Int32
  ) {
    var a = FuzzArguments(iterations: iterations)
    var args = arguments[...]
    while let arg = args.popFirst() {
      switch arg {
      case "--seed": a.seed = args.popFirst().flatMap { UInt64($0) } ?? a.seed
      case "--iterations":
        a.iterations = args.popFirst().flatMap { Int($0) } ?? a.iterations
        a.iterationsGiven = true
      case "--seconds": a.seconds = args.popFirst().flatMap { Double($0) }
      case "--max-len": a.maxLength = max(1, args.popFirst().flatMap { Int($0) } ?? a.maxLength)
      case "--help", "-h":
        print("usage: \(name) \(usage)")
        return (nil, 0)
      default:
        if arg.hasPrefix("-") && arg != "-" {
          print("\(name): unknown option \(arg)")
          return (nil, 2)
        }
        a.paths.append(arg)
      }
    }
    return (a, 0)
  }
}
