// CellMotionKernelFuzz: the kernel against the scalar reference on fuzzed recipes, geometries,
// retargets and times (`KernelFuzz` in _SoakSupport
// states the properties). Built by `Tools/fuzz.sh --target kernel` with -sanitize=fuzzer,address and
// -DCELLMOTION_LIBFUZZER, it runs under libFuzzer; any other build is the plain driver
// (`FuzzDriver`: seeded random inputs, or the files named).

import Glibc
import _SoakSupport

#if CELLMOTION_LIBFUZZER
  import _CellMotionFuzzShim

  /// Called by libFuzzer with each input; 0 = keep going.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    KernelFuzz.run(start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
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
#else
  @main
  struct PlainMain {
    static func main() {
      exit(
        FuzzDriver.main(
          name: "CellMotionKernelFuzz", arguments: Array(CommandLine.arguments.dropFirst()),
          property: { KernelFuzz.run($0) }))
    }
  }
#endif
