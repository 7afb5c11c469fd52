// A short fuzz run of the strict recipe reader in the test suite: every checked-in corpus
// input (Tools/CellMotionFuzz/corpus), a few generated large ones, and seeded mutations.
// Property: Recipe.decodeFile returns a recipe that validates and reads back equal from
// its own JSON, or throws a CellMotionError (typed throws), and never traps.
// Tools/fuzz.sh runs the same reader under libFuzzer for as long as asked.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

@Suite("recipe reader fuzz")
struct RecipeFuzzTests {
  /// Tools/CellMotionFuzz/corpus, found from this file.
  static let corpusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Tools/CellMotionFuzz/corpus")

  static func corpus() throws -> [(name: String, bytes: [UInt8])] {
    let names = try FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path).sorted()
    return try names.map { ($0, [UInt8](try Data(contentsOf: corpusDirectory.appendingPathComponent($0)))) }
  }

  /// The property; returns the outcome for further checks.
  @discardableResult
  func check(_ bytes: [UInt8], _ context: @autoclosure () -> String) -> Result<Recipe, CellMotionError> {
    let outcome: Result<Recipe, CellMotionError>
    do {
      outcome = .success(try Recipe.decodeFile(Data(bytes), source: "fuzz.json"))
    } catch {
      #expect(!error.description.isEmpty)
      return .failure(error)
    }
    if case .success(let recipe) = outcome {
      #expect(throws: Never.self, "\(context())") { try recipe.validate() }
      if let encoded = try? JSONEncoder().encode(recipe) {
        #expect((try? Recipe.decodeFile(encoded, source: "again.json")) == recipe, "\(context()): round trip")
      }
    }
    return outcome
  }

  @Test("every corpus input; the regression inputs fail the way they must")
  func corpusInputs() throws {
    let corpus = try Self.corpus()
    #expect(corpus.count >= 40)
    // Inputs JSONSerialization accepted (or choked on differently) that are not JSON here.
    let notJSON: Set<String> = [
      "regress-duplicate-key.json", "regress-duplicate-top-key.json", "regress-trailing-comma-object.json",
      "regress-trailing-comma-array.json", "regress-nan.json", "regress-infinity.json", "regress-overflow-1e400.json",
      "regress-deep-nesting.json", "regress-invalid-utf8.json", "regress-lone-surrogate.json", "regress-empty.json",
      "regress-control-char-name-raw.json", "regress-leading-zero.json", "regress-comment.json",
      "regress-single-quotes.json", "regress-garbage-after.json",
    ]
    let mustRead: Set<String> = ["regress-shorthands.json", "regress-bom.json", "regress-control-char-name-escaped.json", "regress-long-name.json"]
    for (name, bytes) in corpus {
      let outcome = check(bytes, name)
      if notJSON.contains(name) {
        guard case .failure(.invalidJSON) = outcome else {
          Issue.record("\(name): expected invalidJSON, got \(outcome)")
          continue
        }
      }
      if name.hasPrefix("preset-") || mustRead.contains(name) {
        guard case .success = outcome else {
          Issue.record("\(name): expected a recipe, got \(outcome)")
          continue
        }
      }
    }
    if case .failure(.invalidJSON(_, _, _, let reason)) = check(corpus.first { $0.name == "regress-duplicate-key.json" }?.bytes ?? [], "dup") {
      #expect(reason == "duplicate key \"duration\" at channels[0].duration")
    }
  }

  @Test("large generated inputs: a near-megabyte name reads, past 1 MiB and past 64 levels do not")
  func largeInputs() throws {
    let fadeIn = String(decoding: try JSONEncoder().encode(try Recipe.preset(named: "fadeIn")), as: UTF8.self)
    let bigName = fadeIn.replacingOccurrences(of: "\"name\":\"fadeIn\"", with: "\"name\":\"\(String(repeating: "é", count: 500_000))\"")
    #expect(bigName.utf8.count > 1_000_000 && bigName.utf8.count <= Recipe.maximumFileSize)
    guard case .success(let r) = check(Array(bigName.utf8), "big name") else {
      Issue.record("a 1,000,000-byte name within 1 MiB is readable")
      return
    }
    #expect(r.name.count == 500_000)
    let tooBig = fadeIn.replacingOccurrences(of: "\"name\":\"fadeIn\"", with: "\"name\":\"\(String(repeating: "x", count: Recipe.maximumFileSize))\"")
    guard case .failure(.invalidJSON(_, _, _, let reason)) = check(Array(tooBig.utf8), "too big") else {
      Issue.record("over 1 MiB accepted")
      return
    }
    #expect(reason.contains("larger than"))
    let deep = Array(repeating: UInt8(ascii: "["), count: 200_000)
    guard case .failure(.invalidJSON(_, 1, 65, _)) = check(deep, "deep") else {
      Issue.record("deep nesting")
      return
    }
  }

  @Test("seeded mutations of the corpus", arguments: [0x00C0_FFEE, 0x0BAD_CAFE] as [UInt64])
  func mutations(seed: UInt64) throws {
    let corpus = try Self.corpus().map(\.bytes)
    var rng = SeededGenerator(seed: seed)
    var outcomes = [0, 0]
    for i in 0..<4_000 {
      let base = corpus[Int.random(in: 0..<corpus.count, using: &rng)]
      let input = JSONMutator.mutate(base, corpus: corpus, using: &rng)
      if case .success = check(input, "seed \(seed), mutation \(i): \(String(decoding: input.prefix(300), as: UTF8.self))") {
        outcomes[0] += 1
      } else {
        outcomes[1] += 1
      }
    }
    // The mutations reach both sides: some still read, most are refused.
    #expect(outcomes[0] > 20 && outcomes[1] > 200, "seed \(seed): \(outcomes[0]) read, \(outcomes[1]) refused")
  }
}
