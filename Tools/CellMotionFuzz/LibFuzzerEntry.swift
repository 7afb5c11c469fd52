// libFuzzer's entry points, compiled only by Tools/fuzz.sh (-DCELLMOTION_LIBFUZZER with
// -sanitize=fuzzer,address): LLVMFuzzerTestOneInput runs one input, and main() hands the
// command line to libFuzzer's driver (SwiftPM renames an executable's main on Linux, so
// libFuzzer's own main() is not the one that runs).

#if CELLMOTION_LIBFUZZER
  import Foundation
  import _CellMotionFuzzShim

  /// Called by libFuzzer with each input; 0 = keep going.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    FuzzHarness.run(bytes)
    return 0
  }

  @main
  struct LibFuzzerMain {
    static func main() {
      var argc = CommandLine.argc
      var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
      exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTestOneInput(data, size) })
    }
  }
#endif
