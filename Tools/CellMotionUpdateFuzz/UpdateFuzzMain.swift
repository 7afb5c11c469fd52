// CellMotionUpdateFuzz: sequences of batch updates (valid and invalid) against the brute-force
// model of the rows, through TableRows and TableSimulation (`UpdateFuzz` in _SoakModel states
// the properties). Built by `Tools/fuzz.sh --target update` with -sanitize=fuzzer,address and
// -DCELLMOTION_LIBFUZZER, it runs under libFuzzer; any other build is the plain driver
// (`FuzzDriver`: seeded random inputs, or the files named).

import _SoakModel

@main
struct UpdateFuzzMain {
  static func main() { FuzzEntry.main(name: "CellMotionUpdateFuzz", checks: UpdateFuzz.run) }
}
