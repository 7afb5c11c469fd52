// Seeded mutations of JSON text for fuzzing the recipe reader without libFuzzer: used by
// the tests (a short run) and by CellMotionFuzz's plain driver (`Tools/fuzz.sh --plain`).
// Byte-level edits find parser bugs; token-level edits (numbers, keys, brackets) reach
// the schema check, the decoder and validation with nearly valid recipes.

/// Mutates JSON byte strings, reproducibly from a `SeededGenerator`.
public enum JSONMutator {
  /// Tokens spliced into inputs: structure, hostile numbers, recipe keys and names.
  public static let tokens: [String] = [
    "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "\\u001b", " ", "\n", "null", "true", "false",
    "0", "-0", "1", "-1", "0.5", "1e39", "-1e39", "1e308", "1e-308", "5e-324", "1e400", "1e30", "NaN", "Infinity",
    "1e999999", "123456789012345678901234567890", "0.1e", "01", "-", "\"name\"", "\"channels\"", "\"duration\"",
    "\"delay\"", "\"curve\"", "\"from\"", "\"to\"", "\"matrix\"", "\"fold\"", "\"timing\"", "\"stagger\"",
    "\"speed\"", "\"repeatCount\"", "\"autoreverses\"", "\"fillMode\"", "\"mode\"", "\"step\"", "\"base\"",
    "\"order\"", "\"anchorX\"", "\"perspectiveDistance\"", "\"bezier\"", "\"spring\"", "\"_0\"", "\"x1\"", "\"y2\"",
    "\"mass\"", "\"stiffness\"", "\"damping\"", "\"initialVelocity\"", "\"m11\"", "\"m34\"", "\"m44\"",
    "\"rotationZ\"", "\"opacity\"", "\"scale\"", "\"easeOut\"", "\"cubic-bezier(0.2, 0, 0.2, 1)\"",
    "\"cubic-bezier(0, 1e39, 1, 1)\"", "\"decomposed\"", "\"componentwise\"", "\"close\"", "\"both\"",
    "\"batchPosition\"", "\"translateFirst\"",
  ]

  /// Interesting numbers written over a number in the input.
  public static let numbers: [String] = [
    "0", "-0", "1", "-1", "2", "0.5", "1e-9", "1e-300", "5e-324", "1e9", "1e15", "1e30", "1e38", "3.5e38", "1e39",
    "1e100", "1e300", "1.7976931348623157e308", "-1e39", "-1e308", "100000", "600", "0.0001", "4294967296",
    "9007199254740993",
  ]

  /// One mutation of `input` (sometimes several stacked), with `corpus` for splicing.
  public static func mutate(_ input: [UInt8], corpus: [[UInt8]], using rng: inout SeededGenerator) -> [UInt8] {
    var out = input
    for _ in 0..<Int.random(in: 1...3, using: &rng) {
      out = mutateOnce(out, corpus: corpus, using: &rng)
    }
    return out
  }

  static func mutateOnce(_ input: [UInt8], corpus: [[UInt8]], using rng: inout SeededGenerator) -> [UInt8] {
    var out = input
    let position = out.isEmpty ? 0 : Int.random(in: 0..<out.count, using: &rng)
    switch Int.random(in: 0..<9, using: &rng) {
    case 0:  // flip a bit
      if !out.isEmpty { out[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng) }
    case 1:  // a random byte somewhere
      out.insert(UInt8.random(in: 0...255, using: &rng), at: position)
    case 2:  // delete a short range
      if !out.isEmpty {
        let end = min(out.count, position + Int.random(in: 1...16, using: &rng))
        out.removeSubrange(position..<end)
      }
    case 3:  // duplicate a range (repeated members: duplicate keys, deep nesting)
      if !out.isEmpty {
        let end = min(out.count, position + Int.random(in: 1...64, using: &rng))
        out.insert(contentsOf: out[position..<end], at: end)
      }
    case 4, 5:  // insert a token
      let token = tokens[Int.random(in: 0..<tokens.count, using: &rng)]
      out.insert(contentsOf: Array(token.utf8), at: position)
    case 6:  // replace a number with an interesting one
      if let range = numberRange(in: out, from: position) {
        let n = numbers[Int.random(in: 0..<numbers.count, using: &rng)]
        out.replaceSubrange(range, with: Array(n.utf8))
      }
    case 7:  // splice with another input
      if let other = corpus.randomElement(using: &rng), !other.isEmpty {
        let cut = Int.random(in: 0..<other.count, using: &rng)
        out = Array(out[..<position]) + Array(other[cut...])
      }
    default:  // remove or add a trailing comma / bracket near a structural byte
      if let i = out[position...].firstIndex(where: { $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "]") }) {
        if i > 0, out[i - 1] == UInt8(ascii: ",") { out.remove(at: i - 1) } else { out.insert(UInt8(ascii: ","), at: i) }
      }
    }
    return out
  }

  /// The first JSON-looking number at or after `start`.
  static func numberRange(in bytes: [UInt8], from start: Int) -> Range<Int>? {
    func isNumberByte(_ b: UInt8) -> Bool {
      (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
        || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }
    guard start < bytes.count,
      let first = bytes[start...].firstIndex(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    var lo = first, hi = first
    while lo > 0, bytes[lo - 1] == UInt8(ascii: "-") { lo -= 1 }
    while hi < bytes.count, isNumberByte(bytes[hi]) { hi += 1 }
    return lo..<hi
  }
}
