// Where a recipe comes from: a preset name, or a JSON file read by the library's strict
// reader (`Recipe.decodeFile`: RFC 8259 without duplicate keys, shorthands, key check,
// decoding, validation).

import CellMotion
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

package enum RecipeSource {
  /// Resolves `spec`: a preset name (`tipIn`, ...) or the path of a recipe JSON file
  /// (anything ending in `.json`, containing a `/`, or naming an existing file).
  ///
  /// - Throws: `CLIError` for a file that cannot be read or is larger than
  ///   `Recipe.maximumFileSize`; `Recipe.decodeFile`'s `CellMotionError`s.
  package static func load(_ spec: String) throws -> Recipe {
    let looksLikePath = spec.hasSuffix(".json") || spec.contains("/")
    if !looksLikePath, Recipe.presetNames.contains(spec) { return try Recipe.preset(named: spec) }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: spec, isDirectory: &isDirectory), !isDirectory.boolValue {
      return try Recipe.decodeFile(try read(spec), source: spec)
    }
    if looksLikePath { throw CLIError("no such recipe file: \(spec)") }
    return try Recipe.preset(named: spec)
  }

  /// The bytes of the file at `path`, reading at most one byte more than
  /// `Recipe.maximumFileSize` (so /dev/zero or a huge file cannot exhaust memory).
  static func read(_ path: String) throws(CLIError) -> Data {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CLIError("cannot read \(path): \(describeErrno(errno))") }
    defer { close(fd) }
    let limit = Recipe.maximumFileSize
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while data.count <= limit {
      let want = min(buffer.count, limit + 1 - data.count)
      #if canImport(Glibc)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
      #else
        let n = buffer.withUnsafeMutableBytes { Darwin.read(fd, $0.baseAddress, want) }
      #endif
      if n < 0 {
        if errno == EINTR { continue }
        throw CLIError("cannot read \(path): \(describeErrno(errno))")
      }
      if n == 0 { break }
      data.append(contentsOf: buffer[0..<n])
    }
    guard data.count <= limit else {
      throw CLIError("cannot read \(path): recipe files are at most \(limit) bytes (1 MiB)")
    }
    return data
  }

  /// The canonical JSON of a recipe (sorted keys, pretty-printed), as `recipe-template`
  /// prints it and `Recipe.decodeFile` reads it back.
  package static func json(_ recipe: Recipe) throws(CLIError) -> String {
    // Only a non-finite number fails to encode, and validated recipes have none.
    guard let text = RecipeFile.encode(recipe) else {
      throw CLIError("cannot write recipe \(recipe.name) as JSON: it has a number that is not finite")
    }
    return text + "\n"
  }
}
