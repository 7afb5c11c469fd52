// The BLAS libraries the stage scenarios compare: every one installed at Debian's paths,
// loaded with dlopen and called through its own cblas_sgemm, so one run compares netlib's
// reference BLAS and (when libopenblas0 is installed) OpenBLAS, whichever one Debian's
// alternatives point libblas.so.3 at, and whether or not the package's BLAS trait is on.

#if canImport(Glibc)
  import Glibc
#endif
import CellMotionKernel

/// One BLAS library loaded into the benchmark.
struct LoadedBLAS: @unchecked Sendable {
  /// "netlib" or "openblas" (the scenario variant is "blas-" + name).
  var name: String
  /// The file loaded.
  var path: String
  /// Its cblas_sgemm.
  var sgemm: SGEMMFunction

  /// Debian's install paths, netlib first. OpenBLAS comes in three threading flavours;
  /// the first one installed is used.
  static let candidates: [(name: String, paths: [String])] = [
    ("netlib", ["/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", "/usr/lib/aarch64-linux-gnu/blas/libblas.so.3"]),
    (
      "openblas",
      [
        "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
        "/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3",
        "/usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3",
        "/usr/lib/aarch64-linux-gnu/openblas-pthread/libblas.so.3",
      ]
    ),
  ]

  /// The libraries found, loaded once (handles are kept for the life of the process).
  static let installed: [LoadedBLAS] = {
    var out: [LoadedBLAS] = []
    for (name, paths) in candidates {
      for path in paths {
        // RTLD_DEEPBIND: the library's cblas_sgemm calls its own sgemm_, not the one of the
        // libblas.so.3 this process may already link (the BLAS trait), which would otherwise
        // interpose and make every row measure the same library.
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND), let symbol = dlsym(handle, "cblas_sgemm")
        else {
          continue
        }
        out.append(LoadedBLAS(name: name, path: path, sgemm: unsafeBitCast(symbol, to: SGEMMFunction.self)))
        break
      }
    }
    return out
  }()
}

/// How a stage scenario runs: the SIMD backend, or the BLAS formulation through one
/// loaded library.
enum StageEngine {
  case simd
  case blas(LoadedBLAS)

  /// SIMD, then every installed BLAS library.
  static var all: [StageEngine] { [.simd] + LoadedBLAS.installed.map { .blas($0) } }

  /// The scenario variant: "simd", "blas-netlib", "blas-openblas".
  var variant: String {
    switch self {
    case .simd: "simd"
    case .blas(let b): "blas-\(b.name)"
    }
  }

  var sgemm: SGEMMFunction? {
    switch self {
    case .simd: nil
    case .blas(let b): b.sgemm
    }
  }

  var backend: StageBackend {
    switch self {
    case .simd: .simd
    case .blas: .blas
    }
  }
}
