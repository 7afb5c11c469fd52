// The values one lane group works on: pointers to the batch's inputs and the frame's
// outputs, a 4x4 matrix, channel values and the planar matrix in lanes, the staged
// progress of a block, and loading a (possibly partial) group.

import CellMotion
import Foundation
import _CellMotionShims

/// Pointers to a batch's SoA inputs, valid for one evaluation.
struct KernelInputs: @unchecked Sendable {
  /// The clock's input: each cell's staggered start - the batch's time origin, seconds.
  let start: UnsafePointer<Float>
  /// The progress source's input: each cell's progress (`ProgressSource.progress`).
  let progress: UnsafePointer<Float>
  let width: UnsafePointer<Float>
  let height: UnsafePointer<Float>
  let tableWidth: UnsafePointer<Float>
  let detailHeight: UnsafePointer<Float>
  /// The batch's retarget rows (`RetargetRows`), row j of cell i at j * retargetStride + i;
  /// nil while no cell was retargeted (then no recipe reads them).
  let retarget: UnsafePointer<Float>?
  let retargetStride: Int
  init(
    start: UnsafePointer<Float>, progress: UnsafePointer<Float>, width: UnsafePointer<Float>,
    height: UnsafePointer<Float>, tableWidth: UnsafePointer<Float>, detailHeight: UnsafePointer<Float>,
    retarget: UnsafePointer<Float>?, retargetStride: Int
  ) {
    self.start = start
    self.progress = progress
    self.width = width
    self.height = height
    self.tableWidth = tableWidth
    self.detailHeight = detailHeight
    self.retarget = retarget
    self.retargetStride = retargetStride
  }
}

/// Pointers to a frame's outputs; optional parts are nil when not requested.
struct KernelOutputs: @unchecked Sendable {
  let matrices: UnsafeMutablePointer<Float>
  let opacity: UnsafeMutablePointer<Float>
  let shadow: UnsafeMutablePointer<Float>
  let foldTop: UnsafeMutablePointer<Float>?
  let foldBottom: UnsafeMutablePointer<Float>?
  let foldShadow: UnsafeMutablePointer<Float>?
  let corners: UnsafeMutablePointer<Float>?
  /// `matrices` holds 6 Floats per cell (`MatrixLayout.affine2D`), not 16.
  let affine: Bool
  /// Per-channel velocity rows (`FrameOutput.velocities`), `velocityStride` apart; nil
  /// when not asked for.
  let velocities: UnsafeMutablePointer<Float>?
  let velocityStride: Int
  /// Bit `row` set for the velocity rows a recipe that does not animate that channel must
  /// write 0 to (some cell may hold another value there); rows never written stay 0.
  let velocityRowsToClear: UInt16
  /// `matrices` already holds the identity for every cell of the frame, written by an
  /// earlier frame (`FrameOutput.identityCells`): recipes that leave cells unmoved skip
  /// storing it again.
  let identityStored: Bool
  /// Block scratch the output keeps for the kernel (`FrameOutput.kernelScratch`): one
  /// `ScratchLayout.Storage`-sized slot per worker of a one- or two-thread frame (worker w
  /// at `w * ScratchLayout.Storage.count`), reused across frames so that a frame does not
  /// zero 16 KB of stack per run; nil when absent (each run then uses its stack).
  let scratch: UnsafeMutablePointer<Float>?
  init(
    matrices: UnsafeMutablePointer<Float>, opacity: UnsafeMutablePointer<Float>,
    shadow: UnsafeMutablePointer<Float>, foldTop: UnsafeMutablePointer<Float>?,
    foldBottom: UnsafeMutablePointer<Float>?, foldShadow: UnsafeMutablePointer<Float>?,
    corners: UnsafeMutablePointer<Float>?, affine: Bool = false, velocities: UnsafeMutablePointer<Float>? = nil,
    velocityStride: Int = 0, velocityRowsToClear: UInt16 = ChannelRows.all, identityStored: Bool = false,
    scratch: UnsafeMutablePointer<Float>? = nil
  ) {
    self.scratch = scratch
    self.affine = affine
    self.identityStored = identityStored
    self.velocityRowsToClear = velocityRowsToClear
    self.velocities = velocities
    self.velocityStride = velocityStride
    self.matrices = matrices
    self.opacity = opacity
    self.shadow = shadow
    self.foldTop = foldTop
    self.foldBottom = foldBottom
    self.foldShadow = foldShadow
    self.corners = corners
  }
}

/// A general 4x4 in lanes (row-vector convention): entry `e` in field order, m11 m12 m13
/// m14 m21 ... m44, is `self[e]`, i.e. row `e / 4`, column `e % 4`. Compositions and
/// stores are loops over entries (`unrolled4`, `unrolled16`); every index is a constant
/// after inlining, so the subscript's switch folds and every entry stays in a register.
///
/// Why sixteen fields and a switch rather than an `InlineArray<16, L>`: measured on the
/// fold pass, the array's storage was rebuilt on the stack in every iteration of a store
/// loop (16 vector stores to read one entry back), 4x the instructions of the whole pass.
@usableFromInline package struct LaneMatrix<L: FloatLanes> {
  var m11, m12, m13, m14, m21, m22, m23, m24: L
  var m31, m32, m33, m34, m41, m42, m43, m44: L

  /// From a function of the entry index (0...15, field order), called once per entry.
  @inline(__always)
  init(entry: (Int) -> L) {
    m11 = entry(0)
    m12 = entry(1)
    m13 = entry(2)
    m14 = entry(3)
    m21 = entry(4)
    m22 = entry(5)
    m23 = entry(6)
    m24 = entry(7)
    m31 = entry(8)
    m32 = entry(9)
    m33 = entry(10)
    m34 = entry(11)
    m41 = entry(12)
    m42 = entry(13)
    m43 = entry(14)
    m44 = entry(15)
  }

  /// From 16 entries in field order.
  @inline(__always)
  init(_ e: (L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L)) {
    (m11, m12, m13, m14, m21, m22, m23, m24) = (e.0, e.1, e.2, e.3, e.4, e.5, e.6, e.7)
    (m31, m32, m33, m34, m41, m42, m43, m44) = (e.8, e.9, e.10, e.11, e.12, e.13, e.14, e.15)
  }

  /// A 3x3 linear part plus translation, m44 = 1.
  @inline(__always)
  init(linear r: (L, L, L, L, L, L, L, L, L), translation t: (L, L, L)) {
    let z = L(repeating: 0), o = L(repeating: 1)
    self.init((r.0, r.1, r.2, z, r.3, r.4, r.5, z, r.6, r.7, r.8, z, t.0, t.1, t.2, o))
  }

  /// Entry `e` (0...15, field order).
  subscript(e: Int) -> L {
    @inline(__always) get {
      switch e {
      case 0: return m11
      case 1: return m12
      case 2: return m13
      case 3: return m14
      case 4: return m21
      case 5: return m22
      case 6: return m23
      case 7: return m24
      case 8: return m31
      case 9: return m32
      case 10: return m33
      case 11: return m34
      case 12: return m41
      case 13: return m42
      case 14: return m43
      default: return m44
      }
    }
    @inline(__always) set {
      switch e {
      case 0: m11 = newValue
      case 1: m12 = newValue
      case 2: m13 = newValue
      case 3: m14 = newValue
      case 4: m21 = newValue
      case 5: m22 = newValue
      case 6: m23 = newValue
      case 7: m24 = newValue
      case 8: m31 = newValue
      case 9: m32 = newValue
      case 10: m33 = newValue
      case 11: m34 = newValue
      case 12: m41 = newValue
      case 13: m42 = newValue
      case 14: m43 = newValue
      default: m44 = newValue
      }
    }
  }

  /// Entry at `row`, `column` (0...3 each).
  subscript(row: Int, column: Int) -> L {
    @inline(__always) get { self[4 &* row &+ column] }
    @inline(__always) set { self[4 &* row &+ column] = newValue }
  }

  /// Calls `body` with 0, 1, 2, 3: a loop written out, so every index is a constant
  /// after inlining and the subscripts' switches fold to field accesses. (LLVM did not
  /// fully unroll `for e in 0..<16 { self[e].store(...) }`: it stayed a loop through a
  /// jump table, 30 instructions per entry.)
  @inline(__always)
  static func unrolled4(_ body: (Int) -> Void) {
    body(0); body(1); body(2); body(3)
  }

  /// Calls `body` with every entry index 0...15 in field order, written out (`unrolled4`).
  @inline(__always)
  static func unrolled16(_ body: (Int) -> Void) {
    unrolled4 { i in unrolled4 { j in body(4 &* i &+ j) } }
  }

  /// self * b (self applies first): entry (i, j) = sum over k of self(i, k) b(k, j).
  @inline(__always)
  func times(_ b: LaneMatrix<L>) -> LaneMatrix<L> {
    var r = self
    Self.unrolled4 { i in
      Self.unrolled4 { j in
        r[i, j] = L.muladd(
          self[i, 0], b[0, j], L.muladd(self[i, 1], b[1, j], L.muladd(self[i, 2], b[2, j], self[i, 3] * b[3, j])))
      }
    }
    return r
  }

  /// The 16 entries as SoA rows: entry e (field order) at `q + e * stride`, one lane group
  /// each.
  @inline(__always)
  func storeRows(to q: UnsafeMutablePointer<Float>, stride s: Int) {
    Self.unrolled16 { e in self[e].store(to: q + e &* s) }
  }

  /// The first `cells` lanes as consecutive 16-Float matrices at `p` (CATransform3D order),
  /// entry by entry: a block's last partial group, and one-lane kernels.
  @inline(__always)
  func storeLanes(_ cells: Int, to p: UnsafeMutablePointer<Float>) {
    for k in 0..<cells {
      let q = p + 16 &* k
      Self.unrolled16 { e in q[e] = self[e][lane: k] }
    }
  }

  /// self * Perspective(m34 = k): column 4 += column 3 * k.
  @inline(__always)
  mutating func applyPerspective(_ k: Float) {
    Self.unrolled4 { i in self[i, 3] = self[i, 3] + self[i, 2] * k }
  }

  /// Translate(-a) * self * Translate(+a) for an anchor (ax, ay, 0).
  @inline(__always)
  mutating func applyAnchor(_ ax: L, _ ay: L) {
    // Translate(-a) * self: row 4 -= ax row 1 + ay row 2.
    Self.unrolled4 { j in self[3, j] = self[3, j] - ax * self[0, j] - ay * self[1, j] }
    // * Translate(+a): columns 1 and 2 += column 4 times ax, ay.
    Self.unrolled4 { i in
      self[i, 0] = self[i, 0] + self[i, 3] * ax
      self[i, 1] = self[i, 1] + self[i, 3] * ay
    }
  }
}

/// Rows of a lane matrix that hold the same constant in every lane, which
/// `FloatLanes.storeMatrices` writes from constants (transposing only the other rows).
@usableFromInline package struct ConstantRows: Sendable {
  /// `cm_store_rows8`'s shape: 0 (row 0 constant), 1 (row 1), 3 (rows 0 and 3).
  let shape: Int32
  /// The constant rows' values: the first (`k0`) and, for shape 3, the last (`k1`).
  let k0: SIMD4<Float>, k1: SIMD4<Float>
  /// The destination already holds the constant rows (the fold halves' buffers hold them
  /// from allocation, `FrameOutput`): a store may skip them (the SIMD8 one does; the
  /// others write the same values). Not for shape 1.
  var held = false
  init(shape: Int32, k0: SIMD4<Float>, k1: SIMD4<Float> = .zero) {
    (self.shape, self.k0, self.k1) = (shape, k0, k1)
  }
  /// Whether SIMD8 stores skip held rows in this build (with AVX; tests only).
  static var skipsHeldRows: Bool { cm_store_skips_held_rows() != 0 }
  /// The same rows, held by the destination (see `held`).
  var heldByOutput: ConstantRows {
    var r = self
    r.held = true
    return r
  }
  /// The first row that varies (then rows 2 and 3, or row 2 alone for shape 3).
  var firstVarying: Int { shape == 1 ? 0 : 1 }
  /// Row 0 is (1 0 0 0): a rotation about x with perspective about an anchor, a fold's
  /// bottom half.
  static var unitRow0: ConstantRows { ConstantRows(shape: 0, k0: SIMD4(1, 0, 0, 0)) }
  /// Row 1 is (0 1 0 0): a rotation about y with perspective about an anchor.
  static var unitRow1: ConstantRows { ConstantRows(shape: 1, k0: SIMD4(0, 1, 0, 0)) }
  /// Rows 0 and 3 are (1 0 0 0) and (0 0 0 1): a fold's top half.
  static var unitRows0And3: ConstantRows {
    ConstantRows(shape: 3, k0: SIMD4(1, 0, 0, 0), k1: SIMD4(0, 0, 0, 1))
  }
}

/// One transform channel kind as the matrix passes read it: the scratch row of its
/// progress and its ends (c + h x cellHeight + w x tableWidth), or `row` -1 when no
/// channel animates it (its identity value then).
struct ChannelSlot: Sendable {
  var row = -1
  var from = SIMD3<Float>.zero, delta = SIMD3<Float>.zero
  /// Whether an end depends on the cell's height or the table's width.
  var usesGeometry = false
  init() {}
  init(_ c: CompiledChannel) {
    (row, from, delta, usesGeometry) = (c.part, c.from, c.to - c.from, c.usesGeometry)
  }

  /// The value per lane at the block's cell `i`, `identity` when nothing animates it (a
  /// uniform branch: the same for every group of the recipe).
  @inline(__always)
  func value<L: FloatLanes>(_ progress: StagedProgress, at i: Int, identity: Float, height: L, tableWidth: L) -> L {
    guard row >= 0 else { return L(repeating: identity) }
    let p: L = progress(row, i)
    if usesGeometry {
      return Kernel.channelValue(from: from, delta: delta, progress: p, height: height, tableWidth: tableWidth)
    }
    return L.muladd(L(repeating: delta.x), p, L(repeating: from.x))
  }
}

/// Every transform channel kind's slot (`CompiledRecipe.channelSlots`): the last channel
/// of each kind wins, as in Core Animation's key paths.
struct ChannelSlots: Sendable {
  var tx = ChannelSlot(), ty = ChannelSlot(), tz = ChannelSlot()
  var rx = ChannelSlot(), ry = ChannelSlot(), rz = ChannelSlot()
  var s = ChannelSlot(), sx = ChannelSlot(), sy = ChannelSlot()
  init(_ channels: [CompiledChannel]) {
    for c in channels {
      switch c.channel {
      case .opacity, .shadowOpacity: break
      case .translationX: tx = ChannelSlot(c)
      case .translationY: ty = ChannelSlot(c)
      case .translationZ: tz = ChannelSlot(c)
      case .rotationX: rx = ChannelSlot(c)
      case .rotationY: ry = ChannelSlot(c)
      case .rotationZ: rz = ChannelSlot(c)
      case .scale: s = ChannelSlot(c)
      case .scaleX: sx = ChannelSlot(c)
      case .scaleY: sy = ChannelSlot(c)
      }
    }
  }
}

/// Transform channel values of one lane group (opacities have a stage of their own).
struct LaneChannels<L: FloatLanes> {
  var tx = L(repeating: 0), ty = L(repeating: 0), tz = L(repeating: 0)
  var rx = L(repeating: 0), ry = L(repeating: 0), rz = L(repeating: 0)
  var s = L(repeating: 1), sx = L(repeating: 1), sy = L(repeating: 1)
  init() {}
}

/// The affine result of a planar group: [a b 0 0; c d 0 0; 0 0 1 0; tx ty 0 1].
struct LanePlanar<L: FloatLanes> {
  var a, b, c, d, tx, ty: L
  init(a: L, b: L, c: L, d: L, tx: L, ty: L) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }
}

/// A fold's two halves and their shadow opacity, per lane.
struct LaneFold<L: FloatLanes> {
  var top: LaneMatrix<L>
  var bottom: LaneMatrix<L>
  var shadow: L
  init(top: LaneMatrix<L>, bottom: LaneMatrix<L>, shadow: L) {
    self.top = top
    self.bottom = bottom
    self.shadow = shadow
  }
}

/// Stage 1's output for one block: the progress of part k (`CompiledRecipe.parts`) for the
/// block's cell i at `base[k * stride + i]`.
struct StagedProgress: @unchecked Sendable {
  let base: UnsafePointer<Float>
  let stride: Int
  init(base: UnsafePointer<Float>, stride: Int) {
    self.base = base
    self.stride = stride
  }
  /// The lane group of part `part` at the block's cell `i`. Wrapping arithmetic: `part`
  /// and `i` come from the recipe's compiled layout, inside the block's scratch; checked
  /// products left an overflow test and branch per slot in every group loop.
  @inline(__always)
  func callAsFunction<L: FloatLanes>(_ part: Int, _ i: Int) -> L { L.load(base + (part &* stride &+ i)) }
}

extension Kernel {
  /// Loads a lane group from `p`; when fewer than `L.width` values remain (`available`),
  /// only those are read and the other lanes repeat the first (finite, like real input).
  @inline(__always)
  static func loadGroup<L: FloatLanes>(_ p: UnsafePointer<Float>, _ available: Int) -> L {
    if available >= L.width { return L.load(p) }
    var v = L(repeating: p[0])
    for k in 1..<available { v[lane: k] = p[k] }
    return v
  }
}

/// A block's per-cell geometry (cell width, cell height, table width) by lane group for
/// the matrix passes: whole groups loaded straight from the batch, and the block's last
/// partial group, if any, loaded once, padded (`loadGroup`), before the loop. The general
/// path's one loop takes `group(at:)` (one copy of its group's code, one compare per
/// group: neutral on cover flow); the planar path keeps whole groups and the tail apart.
struct BlockGeometry<L: FloatLanes> {
  let width: UnsafePointer<Float>
  let height: UnsafePointer<Float>
  let tableWidth: UnsafePointer<Float>
  /// Cells in whole lane groups.
  let whole: Int
  let tail: (width: L, height: L, tableWidth: L)

  @inline(__always)
  init(_ inputs: KernelInputs, at b: Int, count n: Int) {
    (width, height, tableWidth) = (inputs.width + b, inputs.height + b, inputs.tableWidth + b)
    whole = n / L.width * L.width
    if whole < n {
      let rest = n &- whole
      tail = (
        Kernel.loadGroup(width + whole, rest), Kernel.loadGroup(height + whole, rest),
        Kernel.loadGroup(tableWidth + whole, rest)
      )
    } else {
      tail = (L(repeating: 0), L(repeating: 0), L(repeating: 0))
    }
  }

  /// The whole group at the block's cell `i` (`i + L.width <= whole`).
  @inline(__always)
  func whole(at i: Int) -> (width: L, height: L, tableWidth: L) {
    (L.load(width + i), L.load(height + i), L.load(tableWidth + i))
  }
  /// The group at the block's cell `i` (a multiple of `L.width` below the block's count).
  @inline(__always)
  func group(at i: Int) -> (width: L, height: L, tableWidth: L) { i < whole ? whole(at: i) : tail }
}
