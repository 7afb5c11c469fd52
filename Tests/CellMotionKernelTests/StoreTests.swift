// The kernel's direct stores against the plainest possible truth: every Float they write,
// compared bit for bit with entry-by-entry copies, at every destination alignment they
// branch on (16 bytes past a 32-byte boundary, on one, and merely 4-byte aligned) and
// every count from 0 to past a group, with guard Floats around the destination that must
// stay untouched. Exact equality is right here: a store moves bits and computes nothing.

import CellMotion
import Testing
import _TestSupport

@testable import CellMotionKernel

/// A buffer of `floats` Floats whose `start` is `offset` bytes past a 64-byte boundary,
/// filled with a sentinel so that writes outside `start ..< start + floats` show.
private struct GuardedBuffer {
  static let sentinel: Float = -7.25
  let storage: UnsafeMutableRawPointer
  let start: UnsafeMutablePointer<Float>
  let floats: Int
  static let pad = 64

  init(floats: Int, offset: Int) {
    self.floats = floats
    storage = .allocate(byteCount: 4 * floats + 2 * Self.pad + 64, alignment: 64)
    let all = storage.bindMemory(to: Float.self, capacity: floats + 2 * Self.pad / 4 + 16)
    all.initialize(repeating: Self.sentinel, count: floats + 2 * Self.pad / 4 + 16)
    start = (storage + Self.pad + offset).assumingMemoryBound(to: Float.self)
  }
  func free() { storage.deallocate() }
  /// Whether everything before `start` and after `start + floats` still holds the sentinel.
  var guardsIntact: Bool {
    let all = storage.assumingMemoryBound(to: Float.self)
    let total = floats + 2 * Self.pad / 4 + 16
    let lo = (UnsafeMutableRawPointer(start) - storage) / 4, hi = lo + floats
    return (0..<lo).allSatisfy { all[$0] == Self.sentinel } && (hi..<total).allSatisfy { all[$0] == Self.sentinel }
  }
  var values: [Float] { Array(UnsafeBufferPointer(start: start, count: floats)) }
}

/// The first index where `a` and `b` differ (as "index: a vs b"), or nil when equal.
private func firstDifference(_ a: [Float], _ b: [Float]) -> String? {
  guard a.count == b.count else { return "counts \(a.count) vs \(b.count)" }
  guard let i = a.indices.first(where: { a[$0].bitPattern != b[$0].bitPattern }) else { return nil }
  return "Float \(i) (cell \(i / 16), entry \(i % 16)): \(a[i]) vs \(b[i])"
}

@Suite("Kernel stores")
struct StoreTests {
  /// Byte offsets past a 64-byte boundary: the two alignments the stores pick between
  /// (16 mod 32 and 0 mod 32, both halves of a line) and two that are only 4-byte aligned.
  static let offsets = [0, 16, 32, 48, 4, 24]
  static let counts = [0, 1, 3, 7, 8, 9, 15, 16, 17, 33, 128]

  @Test("The identity store writes exactly the identity, 16 or 6 Floats per cell, nothing else")
  func identity() {
    let one: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    let affine: [Float] = [1, 0, 0, 1, 0, 0]
    for offset in Self.offsets {
      for n in Self.counts {
        for isAffine in [false, true] {
          let per = isAffine ? 6 : 16
          let b = GuardedBuffer(floats: per * n, offset: offset)
          defer { b.free() }
          // Only `matrices` and `affine` are read; the other outputs point at a spare Float.
          var spare: Float = 0
          withUnsafeMutablePointer(to: &spare) { o in
            let outputs = KernelOutputs(
              matrices: b.start, opacity: o, shadow: o, foldTop: nil, foldBottom: nil, foldShadow: nil, corners: nil,
              affine: isAffine)
            Kernel.storeIdentityBlock(count: n, at: 0, outputs)
          }
          let expected = (0..<n).flatMap { _ in isAffine ? affine : one }
          let diff = firstDifference(b.values, expected)
          #expect(diff == nil, "offset \(offset), \(n) cells, affine \(isAffine): \(diff ?? "")")
          #expect(b.guardsIntact, "offset \(offset), \(n) cells, affine \(isAffine): wrote outside")
        }
      }
    }
  }

  /// A lane matrix with the rows `constants` names (row index: its 4 values) and random
  /// entries elsewhere.
  func randomMatrix<L: FloatLanes>(_: L.Type, constants: [Int: [Float]], g: inout SeededGenerator) -> LaneMatrix<L> {
    LaneMatrix<L>(entry: { e in
      var v = L(repeating: 0)
      for k in 0..<L.width { v[lane: k] = constants[e / 4].map { $0[e % 4] } ?? Float(g.uniform(-1000...1000)) }
      return v
    })
  }

  /// Random lane matrices with the constant rows a shape promises, stored by
  /// `storeMatrices` and entry by entry (`storeLanes`, the plain loop). With `held`, the
  /// fold halves' stores, whose destination holds the constant rows already
  /// (`ConstantRows.held`): the constants are put in place beforehand (sentinels
  /// elsewhere) and the result must still equal the full store; a whole SIMD8 group must
  /// also leave those rows untouched (checked with a marker in their place), which is
  /// what makes it cheaper.
  func matrices<L: FloatLanes>(_: L.Type, held: Bool, g: inout SeededGenerator) {
    var shapes: [(ConstantRows, [Int: [Float]])] = [
      (.unitRow0, [0: [1, 0, 0, 0]]),
      (.unitRows0And3, [0: [1, 0, 0, 0], 3: [0, 0, 0, 1]]),
    ]
    // Rotations about y (row 1 constant) are never stored into held rows.
    shapes = held ? shapes.map { ($0.0.heldByOutput, $0.1) } : shapes + [(.unitRow1, [1: [0, 1, 0, 0]])]
    for (shape, constants) in shapes {
      for offset in Self.offsets {
        for cells in Set([0, 1, L.width / 2, L.width - 1, L.width].filter { $0 >= 0 && $0 <= L.width }).sorted() {
          let m = randomMatrix(L.self, constants: constants, g: &g)
          let fast = GuardedBuffer(floats: 16 * cells, offset: offset)
          let plain = GuardedBuffer(floats: 16 * cells, offset: offset)
          let marked = GuardedBuffer(floats: 16 * cells, offset: offset)
          defer {
            fast.free()
            plain.free()
            marked.free()
          }
          for k in 0..<cells where held {
            for (row, values) in constants {
              for j in 0..<4 {
                fast.start[16 * k + 4 * row + j] = values[j]
                marked.start[16 * k + 4 * row + j] = 99
              }
            }
          }
          L.storeMatrices(m, constant: shape, cells: cells, to: fast.start)
          m.storeLanes(cells, to: plain.start)
          let label = "\(L.self) shape \(shape.shape) held \(held), offset \(offset), \(cells) cells, seed \(g.seed)"
          let diff = firstDifference(fast.values, plain.values)
          #expect(diff == nil, "\(label): \(diff ?? "")")
          #expect(fast.guardsIntact, "\(label): wrote outside")
          // The plain loop itself against the matrix, lane by lane.
          let values = plain.values
          let exact = (0..<cells).allSatisfy { k in (0..<16).allSatisfy { e in values[16 * k + e] == m[e][lane: k] } }
          #expect(exact, "\(label): storeLanes")
          // The skipping store is the AVX one (an SSE2 build writes every row).
          if held && L.self == SIMD8<Float>.self && cells == 8 && ConstantRows.skipsHeldRows {
            L.storeMatrices(m, constant: shape, cells: cells, to: marked.start)
            let untouched = (0..<cells).allSatisfy { k in
              constants.keys.allSatisfy { row in (0..<4).allSatisfy { marked.start[16 * k + 4 * row + $0] == 99 } }
            }
            #expect(untouched && marked.guardsIntact, "\(label): wrote the held rows")
          }
        }
      }
    }
  }

  @Test(
    "storeMatrices (constant rows from constants, the rest transposed) equals entry-by-entry stores, also into a destination holding the constant rows"
  )
  func constantRowStores() {
    var g = SeededGenerator(seed: 0x5703E)
    for _ in 0..<4 {
      for held in [false, true] {
        matrices(SIMD8<Float>.self, held: held, g: &g)
        matrices(SIMD4<Float>.self, held: held, g: &g)
        matrices(Float.self, held: held, g: &g)
      }
    }
  }
}
