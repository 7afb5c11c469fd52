// The entry point every fuzz target shares (recipe, kernel, update): under libFuzzer (the
// builds Tools/fuzz.sh makes with -sanitize=fuzzer,address and -DCELLMOTION_LIBFUZZER) it
// hands the command line to libFuzzer's driver; in any other build, to a plain driver.
//
// SwiftPM gives an executable's main() another name on Linux (and links `main` to it), so
// libFuzzer's own main() is never used; the target's @main calls `FuzzEntry.main` instead.

#if canImport(Glibc)
  import Glibc
#endif
#if CELLMOTION_LIBFUZZER
  import _CellMotionFuzzShim
#endif

/// A fuzz target's main: libFuzzer in fuzzer builds, the plain driver otherwise.
public enum FuzzEntry {
  /// The property libFuzzer's callback runs (a C function pointer cannot capture it). Set
  /// once, before the driver starts, and only read after: the driver is single-threaded.
  nonisolated(unsafe) static var property: ([UInt8]) -> Void = { _ in }

  /// Runs a fuzz target on `property` (one input's bytes; traps when broken) and exits.
  /// Under libFuzzer the command line is libFuzzer's; otherwise `plain` runs with it
  /// (without the program name) and its result is the exit status.
  public static func main(property: @escaping ([UInt8]) -> Void, plain: ([String]) -> Int32) -> Never {
    #if CELLMOTION_LIBFUZZER
      Self.property = property
      var argc = CommandLine.argc
      var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
      exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in FuzzEntry.runOne(data, size) })
    #else
      exit(plain(Array(CommandLine.arguments.dropFirst())))
    #endif
  }

  /// Runs `property` as a target built on `FuzzDriver` does: libFuzzer, or the plain driver
  /// of seeded random inputs (and the files named) counting the checks each input made.
  public static func main(name: String, checks property: @escaping ([UInt8]) -> Int) -> Never {
    main(
      property: { _ = property($0) },
      plain: { FuzzDriver.main(name: name, arguments: $0, property: property) })
  }

  /// libFuzzer's callback: one input. Returns 0 (keep going).
  static func runOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    property(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
  }
}

#if CELLMOTION_LIBFUZZER
  /// libFuzzer's runtime references this symbol; the driver itself is given `runOne`.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzEntry.runOne(start, count)
  }
#endif
