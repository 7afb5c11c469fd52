// CellMotionKernelFuzz: the kernel against the scalar reference on fuzzed recipes, geometries,
// retargets and times (`KernelFuzz` in _SoakSupport
// states the properties). Built by `Tools/fuzz.sh --target kernel` with -sanitize=fuzzer,address and
// -DCELLMOTION_LIBFUZZER, it runs under libFuzzer; any other build is the plain driver
// (`FuzzDriver`: seeded random inputs, or the files named).

import _SoakSupport

@main
struct KernelFuzzMain {
  static func main() { FuzzEntry.main(name: "CellMotionKernelFuzz", checks: KernelFuzz.run) }
}
