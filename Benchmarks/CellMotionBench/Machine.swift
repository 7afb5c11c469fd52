// Machine facts measured or read at startup: DRAM store bandwidth and single-core SIMD8
// FMA peak (the roofline denominators), the CPU model and which BLAS library is loaded.

#if canImport(Glibc)
  import Glibc
#endif
import CellMotionKernel

struct BLASLibrary: Codable {
  /// What libblas.so.3 resolves to: "netlib reference BLAS", "OpenBLAS", "BLIS", "ATLAS",
  /// "MKL", "unknown" or "not installed".
  var kind: String
  /// The libraries the blas-* scenarios load and compare (name and path).
  var compared: [String]
  /// Whether this build has the BLAS trait (the library's `.blas` backend, linked).
  var traitEnabled: Bool
  /// The chain from the link-time name through Debian's alternatives to the file.
  var alternativesChain: [String]
}

struct MachinePeaks: Codable {
  var cpuModel: String
  var storeBandwidthGBs: Double
  var storeBufferMiB: Int
  var fmaPeakGFLOPs: Double
  /// FMA peak is only meaningful when built with `-Xswiftc -target-cpu -Xswiftc haswell`;
  /// otherwise `addingProduct` is one `fmaf` call per lane and the "peak" is tiny.
  var fmaPeakNote: String
  var blas: BLASLibrary
  /// Whether the kernel and stage multiply-adds are fused (`MatrixStages.usesFusedMultiplyAdd`:
  /// true when built for a target with FMA, e.g. `-Xswiftc -target-cpu -Xswiftc haswell`).
  var stagesUseFusedMultiplyAdd: Bool
}

enum Machine {
  // MARK: Text files

  /// Lines of a text file (works for /proc and /sys files, whose size reads as 0).
  static func lines(ofFile path: String) -> [String] {
    guard let file = fopen(path, "r") else { return [] }
    defer { fclose(file) }
    var result: [String] = []
    var line: UnsafeMutablePointer<CChar>? = nil
    var capacity = 0
    while getline(&line, &capacity, file) > 0 {
      if let line { result.append(String(cString: line).trimmingNewline) }
    }
    free(line)
    return result
  }

  static func resolvedPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Follows symlinks one step at a time (Debian alternatives are a two-link chain).
  static func symlinkChain(_ path: String) -> [String] {
    var chain = [path]
    var current = path
    for _ in 0..<8 {
      var buffer = [CChar](repeating: 0, count: 4096)
      let n = readlink(current, &buffer, buffer.count - 1)
      guard n > 0 else { break }
      var target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if !target.hasPrefix("/") {
        let directory = current.split(separator: "/", omittingEmptySubsequences: false).dropLast()
          .joined(separator: "/")
        target = directory + "/" + target
      }
      chain.append(target)
      current = target
    }
    return chain
  }

  static var cpuModel: String {
    for line in lines(ofFile: "/proc/cpuinfo") where line.hasPrefix("model name") {
      if let colon = line.firstIndex(of: ":") {
        return String(line[line.index(after: colon)...]).trimmingSpaces
      }
    }
    return "unknown"
  }

  /// Last-level cache size in bytes from sysfs (index3), or 32 MiB if unknown.
  static var lastLevelCacheBytes: Int {
    for index in [3, 2] {
      let text = lines(ofFile: "/sys/devices/system/cpu/cpu0/cache/index\(index)/size").first ?? ""
      if text.hasSuffix("K"), let k = Int(text.dropLast()) { return k * 1024 }
      if text.hasSuffix("M"), let m = Int(text.dropLast()) { return m * 1024 * 1024 }
    }
    return 32 << 20
  }

  // MARK: BLAS

  /// The BLAS libraries the stage scenarios compare, and what libblas.so.3 (the library's
  /// `.blas` backend, with the BLAS trait) resolves to.
  static func loadedBLAS() -> BLASLibrary {
    let chain = symlinkChain("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    let target = (chain.last ?? "").lowercased()
    let kind: String
    if target.isEmpty || chain.count < 2 {
      kind = "not installed"
    } else if target.contains("openblas") {
      kind = "OpenBLAS"
    } else if target.contains("blis") {
      kind = "BLIS"
    } else if target.contains("atlas") {
      kind = "ATLAS"
    } else if target.contains("mkl") {
      kind = "MKL"
    } else if target.contains("/blas/libblas") {
      kind = "netlib reference BLAS"
    } else {
      kind = "unknown"
    }
    return BLASLibrary(
      kind: kind, compared: LoadedBLAS.installed.map { "\($0.name) (\($0.path))" },
      traitEnabled: StageBackend.blas.isAvailable, alternativesChain: chain)
  }

  // MARK: Peaks

  /// Store bandwidth, GB/s: SIMD8 stores over a buffer of `bytes` (> last-level cache),
  /// best of `passes` after one untimed pass that faults the pages in.
  static func storeBandwidth(bytes: Int, passes: Int) -> Double {
    let count = bytes / MemoryLayout<Float>.stride / 32 * 32
    let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
    defer { raw.deallocate() }
    let base = raw.bindMemory(to: Float.self, capacity: count)
    var best = Double.infinity
    for pass in 0...passes {
      let t0 = monotonicNanoseconds()
      fillPass(base, count, Float(pass))
      let t1 = monotonicNanoseconds()
      if pass > 0 { best = min(best, Double(t1 - t0)) }
    }
    blackHole(base[count / 2])
    return Double(count * 4) / best
  }

  @inline(never)
  static func fillPass(_ base: UnsafeMutablePointer<Float>, _ count: Int, _ value: Float) {
    let v = SIMD8<Float>(repeating: value)
    var p = UnsafeMutableRawPointer(base)
    let end = p + count * 4
    while p < end {
      p.storeBytes(of: v, as: SIMD8<Float>.self)
      (p + 32).storeBytes(of: v, as: SIMD8<Float>.self)
      (p + 64).storeBytes(of: v, as: SIMD8<Float>.self)
      (p + 96).storeBytes(of: v, as: SIMD8<Float>.self)
      p += 128
    }
  }

  /// Single-core FMA peak, GFLOP/s (2 flops per lane per FMA): 12 independent SIMD8
  /// `addingProduct` chains (more than FMA latency x FMA ports), run for about
  /// `seconds`.
  static func fmaPeak(seconds: Double) -> Double {
    var iterations = 20_000
    while true {
      let t0 = monotonicNanoseconds()
      fmaChains(iterations, 0.999_9, 1e-4)
      let ns = Double(monotonicNanoseconds() - t0)
      if ns >= seconds * 1e9 || iterations > 1 << 30 {
        return Double(iterations) * 12 * 8 * 2 / ns
      }
      iterations = Int(Double(iterations) * min(64, max(2, seconds * 1e9 / max(ns, 1) * 1.1)))
    }
  }

  @inline(never)
  static func fmaChains(_ iterations: Int, _ scale: Float, _ add: Float) {
    let m = SIMD8<Float>(repeating: scale), c = SIMD8<Float>(repeating: add)
    var a0 = SIMD8<Float>(repeating: 0.1), a1 = a0 + 0.1, a2 = a0 + 0.2, a3 = a0 + 0.3
    var a4 = a0 + 0.4, a5 = a0 + 0.5, a6 = a0 + 0.6, a7 = a0 + 0.7
    var a8 = a0 + 0.8, a9 = a0 + 0.9, a10 = a0 + 1.0, a11 = a0 + 1.1
    for _ in 0..<iterations {
      a0 = c.addingProduct(a0, m); a1 = c.addingProduct(a1, m)
      a2 = c.addingProduct(a2, m); a3 = c.addingProduct(a3, m)
      a4 = c.addingProduct(a4, m); a5 = c.addingProduct(a5, m)
      a6 = c.addingProduct(a6, m); a7 = c.addingProduct(a7, m)
      a8 = c.addingProduct(a8, m); a9 = c.addingProduct(a9, m)
      a10 = c.addingProduct(a10, m); a11 = c.addingProduct(a11, m)
    }
    let low: SIMD8<Float> = a0 + a1 + a2 + a3, mid: SIMD8<Float> = a4 + a5 + a6 + a7
    let high: SIMD8<Float> = a8 + a9 + a10 + a11
    blackHole(low + mid + high)
  }

  /// Everything but the peaks (which become nan), for profiling runs.
  static func unmeasured(stagesUseFMA: Bool) -> MachinePeaks {
    MachinePeaks(
      cpuModel: cpuModel, storeBandwidthGBs: .nan, storeBufferMiB: 0, fmaPeakGFLOPs: .nan,
      fmaPeakNote: "not measured (--no-peaks)", blas: loadedBLAS(),
      stagesUseFusedMultiplyAdd: stagesUseFMA)
  }

  static func measure(quick: Bool, stagesUseFMA: Bool) -> MachinePeaks {
    let buffer = min(max(4 * lastLevelCacheBytes, 64 << 20), 512 << 20)
    let bandwidth = storeBandwidth(bytes: buffer, passes: quick ? 2 : 4)
    let peak = fmaPeak(seconds: quick ? 0.02 : 0.06)
    let note =
      peak < 8
      ? "suspiciously low: built without -Xswiftc -target-cpu -Xswiftc haswell? (fmaf calls)"
      : "meaningful only with -Xswiftc -target-cpu -Xswiftc haswell (AVX2+FMA)"
    return MachinePeaks(
      cpuModel: cpuModel, storeBandwidthGBs: bandwidth, storeBufferMiB: buffer >> 20,
      fmaPeakGFLOPs: peak, fmaPeakNote: note, blas: loadedBLAS(),
      stagesUseFusedMultiplyAdd: stagesUseFMA)
  }
}

extension String {
  var trimmingNewline: String {
    var s = self
    while s.last == "\n" || s.last == "\r" { s.removeLast() }
    return s
  }
  var trimmingSpaces: String {
    String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
  }
}
