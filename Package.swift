// swift-tools-version: 6.1
// CellMotion: batch evaluation of table-view cell animations (Core Animation semantics),
// a scalar Double reference and a SIMD Float kernel checked against it.
//
// AVX2/FMA code needs a target flag on the command line (never .unsafeFlags in a library
// target, which would make the package unusable as a dependency):
//   swift build -c release -Xswiftc -target-cpu -Xswiftc haswell
import PackageDescription

var dependencies: [Package.Dependency] = [
  .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
]
// The DocC plugin only when documentation is built (`CELLMOTION_DOCS=1 swift package
// generate-documentation ...`): otherwise every clean build compiles its two plugins
// first (about 5 s before the first target starts), and every package that depends on
// CellMotion fetches it.
if Context.environment["CELLMOTION_DOCS"] != nil {
  dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"))
}

let package = Package(
  name: "CellMotion",
  products: [
    .library(name: "CellMotion", targets: ["CellMotion"]),
    .library(name: "CellMotionKernel", targets: ["CellMotionKernel"]),
    .library(name: "CellMotionTableModel", targets: ["CellMotionTableModel"]),
    .library(name: "CellMotionTable", targets: ["CellMotionTable"]),
    .executable(name: "cellmotion-bench", targets: ["CellMotionBench"]),
    .executable(name: "cellmotion", targets: ["CellMotionCLI"]),
    .executable(name: "cellmotion-soak", targets: ["CellMotionSoak"]),
  ],
  // Package traits (SwiftPM 6.1). BLAS is on by default; build without it with
  // `swift build --disable-default-traits` (Tools/docs/development.md, "BLAS is optional").
  traits: [
    .trait(
      name: "BLAS",
      description:
        "The .blas backend of MatrixStages (one cblas_sgemm per batch): links libblas.so.3 "
        + "(Debian: libblas-dev). Without it the library needs no BLAS and .blas is a typed error."),
    .default(enabledTraits: ["BLAS"]),
  ],
  dependencies: dependencies,
  targets: [
    // MARK: - Public API
    /// Semantics, scalar and exact (Double): transforms, curves, springs, media timing,
    /// recipes and the scalar reference evaluator. The oracle for everything else.
    .target(name: "CellMotion", exclude: ["Recipe/recipe.schema.json"]),
    /// The hot core: SoA batches evaluated in SIMD4/SIMD8 lanes, BLAS stages with the BLAS
    /// trait.
    .target(
      name: "CellMotionKernel",
      dependencies: ["CellMotion", .target(name: "CBLAS", condition: .when(traits: ["BLAS"])), "_CellMotionShims"]),
    /// The table's model (layout, scrolling, display, expansion, updates, simulation): no
    /// kernel, so it compiles while the kernel does; re-exported by CellMotionTable.
    .target(name: "CellMotionTableModel", dependencies: ["CellMotion"]),
    /// Headless table-view simulation driving the kernel frame by frame (`TableAnimator`).
    .target(name: "CellMotionTable", dependencies: ["CellMotion", "CellMotionKernel", "CellMotionTableModel"]),

    // MARK: - Implementation details
    /// A C multiply-add that LLVM may fuse (one FMA with -target-cpu haswell, a multiply
    /// and an add without): Swift's own operators never contract.
    .target(name: "_CellMotionShims"),
    /// cblas.h from Debian's libblas-dev; links libblas.so (OpenBLAS via alternatives).
    .systemLibrary(
      name: "CBLAS", path: "Sources/CBLAS",
      providers: [.apt(["libblas-dev"])]),
    /// Peer baseline for the benchmark: the tip-in recipe per cell with GLM, C++ -O3.
    .target(
      name: "_GLMBaseline", path: "Benchmarks/GLMBaseline",
      cxxSettings: [.unsafeFlags(["-O3"])]),
    /// Counts heap allocations by interposing malloc in the benchmark executable.
    .target(name: "_AllocCounter", path: "Benchmarks/AllocCounter"),

    // MARK: - Executables
    .executableTarget(
      name: "CellMotionBench",
      dependencies: [
        "CellMotion", "CellMotionKernel", "CellMotionTable", "_GLMBaseline", "_AllocCounter",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Benchmarks/CellMotionBench"),
    .executableTarget(
      name: "CellMotionCLI",
      dependencies: [
        "CellMotion", "CellMotionKernel", "CellMotionTable", "_CLISupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/CellMotionCLI"),
    /// The CLI's parts that need neither the kernel nor the animator (curve and timeline
    /// commands, plots, output files, errors, flag types): they compile while the kernel
    /// does. After the table model (whose RowAnimation is a flag type here), so a clean
    /// build starts the kernel first and this fills the core the kernel leaves idle.
    .target(
      name: "_CLISupport",
      dependencies: [
        "CellMotion", "CellMotionTableModel", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/CLISupport"),
    /// Fuzzes the strict recipe reader. A plain build replays its corpus and runs seeded
    /// mutations; Tools/fuzz.sh builds it with libFuzzer (-DCELLMOTION_LIBFUZZER).
    .executableTarget(
      name: "CellMotionFuzz",
      dependencies: ["CellMotion", "CellMotionKernel", "_TestSupport", "_SoakSupport"],
      path: "Tools/CellMotionFuzz",
      exclude: ["corpus", "recipe.dict"]),
    /// The model-based soak: random sessions of the table animator checked every frame
    /// against a model (`_SoakSupport`); violations shrink to replayable scripts.
    .executableTarget(
      name: "CellMotionSoak",
      dependencies: [
        "_SoakSupport", "_AllocCounter", "CellMotion",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/CellMotionSoak"),
    /// The soak's sessions, invariant checks and shrinker, and the kernel fuzz target's
    /// property (shared with `swift test`); re-exports `_SoakModel`.
    .target(
      name: "_SoakSupport", dependencies: ["CellMotion", "CellMotionKernel", "CellMotionTable", "_TestSupport", "_SoakModel"],
      path: "Tools/SoakSupport"),
    /// The soak's and fuzzers' kernel-free parts: the rows model, the session script and its
    /// parser, the recipes, the update fuzz target's property and the fuzz drivers. They
    /// need only the table model, so they compile beside the kernel, not after the animator.
    .target(
      name: "_SoakModel", dependencies: ["CellMotion", "CellMotionTableModel", "_TestSupport", "_CellMotionFuzzShim"],
      path: "Tools/SoakModel"),
    /// The kernel against the reference on fuzzed recipes and times (Tools/fuzz.sh --target kernel).
    .executableTarget(
      name: "CellMotionKernelFuzz", dependencies: ["_SoakSupport"],
      path: "Tools/CellMotionKernelFuzz"),
    /// Update-batch sequences against a brute-force model (Tools/fuzz.sh --target update).
    .executableTarget(
      name: "CellMotionUpdateFuzz", dependencies: ["_SoakModel"],
      path: "Tools/CellMotionUpdateFuzz"),
    /// Declares libFuzzer's LLVMFuzzerRunDriver for the fuzz targets.
    .target(name: "_CellMotionFuzzShim", path: "Tools/CellMotionFuzzShim"),

    // MARK: - Unit test bundles
    .target(name: "_TestSupport", dependencies: ["CellMotion"], path: "Tests/_TestSupport"),
    .testTarget(name: "CellMotionTests", dependencies: ["CellMotion", "_TestSupport"]),
    .testTarget(
      name: "CellMotionKernelTests",
      dependencies: ["CellMotion", "CellMotionKernel", "_TestSupport"]),
    .testTarget(
      name: "CellMotionTableTests",
      dependencies: ["CellMotion", "CellMotionKernel", "CellMotionTable", "CellMotionTableModel", "_TestSupport"]),
    .testTarget(
      name: "CellMotionSoakTests",
      dependencies: ["_SoakSupport", "CellMotion", "CellMotionKernel", "CellMotionTable", "CellMotionTableModel", "_TestSupport"]),
    .testTarget(
      name: "CellMotionCLITests", dependencies: ["CellMotionCLI", "_CLISupport", "CellMotionKernel", "_TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
