// FrameOutput: what a frame evaluation writes, in layouts a renderer can memcpy.

import CellMotion
import _CellMotionShims

/// How `FrameOutput.matrices` stores each cell's transform.
public enum MatrixLayout: String, Sendable, Hashable, Codable, CaseIterable {
  /// 16 Floats (64 bytes) per cell in CATransform3D field order m11 ... m44: a Metal/simd
  /// `float4x4` (column-major for column vectors), CSS `matrix3d`'s 16 arguments.
  case transform3D
  /// 6 Floats (24 bytes) per cell in CGAffineTransform order a b c d tx ty = m11 m12 m21
  /// m22 m41 m42: what Cairo (`cairo_matrix_t` xx yx xy yy x0 y0), Skia and pixman take
  /// for a 2D draw; a point (x, y) maps to (a x + c y + tx, b x + d y + ty). Only recipes
  /// that stay affine at every time (no perspective, no rotation about x or y, no z
  /// translation, `CompiledRecipe.isPlanar`) can be written this way; `Kernel.evaluate`
  /// throws `.invalidCombination` for any other.
  case affine2D

  /// Floats per cell: 16 or 6.
  public var floatsPerCell: Int { self == .transform3D ? 16 : 6 }
}

/// The kernel's output for one frame, preallocated for a capacity so evaluating allocates
/// nothing.
///
/// Byte layout (little-endian IEEE-754 binary32 throughout):
/// - `matrices` with `layout == .affine2D`: 6 Floats (24 bytes) per cell, cell i at byte
///   offset 24 i: a b c d tx ty (byte 24 i + 4 k holds the k-th), i.e. CATransform3D's m11
///   m12 m21 m22 m41 m42 (see `MatrixLayout.affine2D`).
/// - `matrices` with `layout == .transform3D` (the default): 16 Floats (64 bytes) per
///   cell, cell i at byte offset 64 i. The order is
///   CATransform3D's field order m11 m12 m13 m14 m21 m22 m23 m24 m31 m32 m33 m34 m41 m42 m43
///   m44 (byte 64 i + 4 k holds field k). With Core Animation's row vectors (p' = p M) this
///   is the column-major storage of the column-vector matrix, i.e. a Metal/simd `float4x4`
///   whose column c is (m(c+1)1, m(c+1)2, m(c+1)3, m(c+1)4), used as `M * float4(p, 1)`.
///   The matrix maps a point of the cell's bounds (points, origin top-left, y down) to its
///   drawn position relative to the cell's resting frame origin.
/// - `opacity`, `shadowOpacity`: 1 Float per cell, in [0, 1].
/// - `foldTop`, `foldBottom`: 16 Floats per cell, same layout, for cells whose recipe folds
///   (other cells' entries are left as they were: the identity until a fold writes them);
///   `foldShadow`: 1 Float per cell.
/// - `velocities` (when enabled, `includeVelocities`): one row of `capacity` Floats per
///   channel, in `Channel.allCases` order (opacity, translationX, translationY,
///   translationZ, rotationX, rotationY, rotationZ, scale, scaleX, scaleY, shadowOpacity):
///   channel c's velocity of cell i at index c x capacity + i, in the channel's units per
///   second (points, radians, unitless), 0 where the cell's recipe does not animate it.
///   Exact derivatives of what the kernel evaluates (`ReferenceEvaluator.channelVelocities`,
///   and the retargeted motions' `ChannelMotion.velocity`), not differences.
/// - `corners` (when enabled): 8 Floats per cell: the projected (x, y) of the bounds corners
///   (0, 0), (w, 0), (0, h), (w, h), each divided by its w (a w below 1e-6, a corner at or
///   behind the eye that Core Animation would clip, counts as 1e-6, so every value is finite).
public struct FrameOutput: Sendable {
  public private(set) var capacity: Int
  /// Cells written by the last evaluation.
  public internal(set) var count: Int = 0
  public internal(set) var matrices: [Float]
  public internal(set) var opacity: [Float]
  public internal(set) var shadowOpacity: [Float]
  public internal(set) var foldTop: [Float]
  public internal(set) var foldBottom: [Float]
  public internal(set) var foldShadow: [Float]
  public internal(set) var corners: [Float]
  /// Per-channel velocities, SoA (see the layout above); empty unless `includesVelocities`.
  public internal(set) var velocities: [Float]
  public let includesFold: Bool
  /// Whether evaluations write `velocities` (they cost nothing otherwise).
  public let includesVelocities: Bool
  /// Bit c set once some evaluation may have written a value other than 0 to velocity row
  /// c: rows never written need no clearing (they are 0 from the allocation).
  var velocityRowsWritten: UInt16 = 0
  /// Cells `0 ..< identityCells` of `matrices` hold the identity (in `layout`): the last
  /// evaluation, and every one since the value grew, had only recipes that leave cells
  /// unmoved (`CompiledRecipe.storesIdentity`; any other evaluation sets 0). A frame of
  /// such recipes over at most this many cells does not store them again: a fade or fold
  /// batch then writes 64 bytes per cell fewer each frame (the fold's output lines, 204
  /// bytes per cell, become 140).
  /// Only the kernel writes `matrices` (its setter is internal), so the record holds.
  var identityCells = 0
  /// The kernel's block scratch for one- and two-thread frames (`KernelOutputs.scratch`),
  /// allocated by the first evaluation; its contents carry nothing from frame to frame
  /// (every pass writes a scratch row before any pass reads it).
  var kernelScratch: [Float] = []
  public let includesCorners: Bool
  /// How `matrices` stores each cell: 16 or 6 Floats.
  public let layout: MatrixLayout

  /// Most cells an output holds: 16,777,216 (2^24), `CellBatch.maxCapacity`, so that any
  /// batch fits. With fold buffers and corners a cell takes 59 Floats (236 bytes), about
  /// 4 GB at the maximum; 16 x the maximum is far from overflowing `Int`.
  public static let maxCapacity = CellBatch.maxCapacity

  /// Allocates for `capacity` cells (matrices zero-filled, fold halves identities).
  ///
  /// - Throws: `CellMotionError.outOfRange` unless `0 <= capacity <= maxCapacity`.
  public init(
    capacity: Int, layout: MatrixLayout = .transform3D, includeFold: Bool = true, includeCorners: Bool = false,
    includeVelocities: Bool = false
  ) throws(CellMotionError) {
    try Check.count(capacity, max: Self.maxCapacity, "capacity")
    self.capacity = capacity
    self.layout = layout
    includesFold = includeFold
    includesCorners = includeCorners
    matrices = [Float](repeating: 0, count: layout.floatsPerCell * capacity)
    opacity = [Float](repeating: 0, count: capacity)
    shadowOpacity = [Float](repeating: 0, count: capacity)
    // The halves start as identities: rows (1 0 0 0) and (0 0 0 1) of the top and (1 0 0 0)
    // of the bottom are the same for every fold at every time, so the kernel's SIMD8 stores
    // skip them (`ConstantRows.held`), and nothing else writes these buffers.
    foldTop = includeFold ? Self.identities(capacity) : []
    foldBottom = includeFold ? Self.identities(capacity) : []
    foldShadow = [Float](repeating: 0, count: includeFold ? capacity : 0)
    corners = [Float](repeating: 0, count: includeCorners ? 8 * capacity : 0)
    includesVelocities = includeVelocities
    velocities = [Float](repeating: 0, count: includeVelocities ? Channel.allCases.count * capacity : 0)
  }

  /// Cell `i`'s velocity of `channel` (its units per second) from the last evaluation.
  ///
  /// - Precondition: `0 <= i < count` and the output includes velocities.
  public func velocity(_ channel: Channel, ofCell i: Int) -> Float {
    checkCell(i)
    precondition(includesVelocities, "FrameOutput: velocities read from an output made with includeVelocities: false")
    return velocities[Channel.allCases.firstIndex(of: channel)! * capacity + i]
  }

  /// Grows to at least `n` cells (allocates; call outside the frame loop). Does nothing
  /// when `n <= capacity`.
  ///
  /// - Throws: `CellMotionError.outOfRange` if `n > maxCapacity`; the output is unchanged.
  public mutating func ensureCapacity(_ n: Int) throws(CellMotionError) {
    guard n > capacity else { return }
    try Check.count(n, max: Self.maxCapacity, "capacity")
    capacity = n
    matrices += [Float](repeating: 0, count: layout.floatsPerCell * n - matrices.count)
    opacity += [Float](repeating: 0, count: n - opacity.count)
    shadowOpacity += [Float](repeating: 0, count: n - shadowOpacity.count)
    if includesFold {
      foldTop += Self.identities(n - foldTop.count / 16)
      foldBottom += Self.identities(n - foldBottom.count / 16)
      foldShadow += [Float](repeating: 0, count: n - foldShadow.count)
    }
    if includesCorners { corners += [Float](repeating: 0, count: 8 * n - corners.count) }
    if includesVelocities {
      // Rows are `capacity` apart: lay them out again for the new capacity.
      let rows = Channel.allCases.count, old = velocities.count / rows
      var next = [Float](repeating: 0, count: rows * n)
      for c in 0..<rows { for i in 0..<old { next[c * n + i] = velocities[c * old + i] } }
      velocities = next
    }
  }

  /// Cell `i`'s matrix as a Transform3D (Double), for inspection and tests.
  ///
  /// - Precondition: `0 <= i < count` (a cell of the last evaluation).
  /// With the affine layout the six values are embedded (m11 m12 m21 m22 m41 m42, the
  /// rest identity).
  public func transform(ofCell i: Int) -> Transform3D {
    checkCell(i)
    guard layout == .affine2D else { return Self.transform(matrices, i) }
    let a = matrices[(6 * i)..<(6 * i + 6)].map(Double.init)
    var t = Transform3D.identity
    (t.m11, t.m12, t.m21, t.m22, t.m41, t.m42) = (a[0], a[1], a[2], a[3], a[4], a[5])
    return t
  }
  /// Cell `i`'s top fold half (see `transform(ofCell:)`).
  ///
  /// - Precondition: `0 <= i < count` and the output includes fold buffers.
  public func foldTopTransform(ofCell i: Int) -> Transform3D {
    checkCell(i, fold: true)
    return Self.transform(foldTop, i)
  }
  /// Cell `i`'s bottom fold half (see `transform(ofCell:)`).
  ///
  /// - Precondition: `0 <= i < count` and the output includes fold buffers.
  public func foldBottomTransform(ofCell i: Int) -> Transform3D {
    checkCell(i, fold: true)
    return Self.transform(foldBottom, i)
  }

  /// Traps with a message naming the index and the range (these accessors are for
  /// inspection; the hot loops never call them).
  private func checkCell(_ i: Int, fold: Bool = false) {
    precondition(i >= 0 && i < count, "FrameOutput: cell index \(i) out of range 0..<\(count)")
    precondition(!fold || includesFold, "FrameOutput: fold halves read from an output made with includeFold: false")
  }

  /// `n` identity matrices, 16 Floats each, written by the kernel's own identity store
  /// (`cm_store_identity_matrices`), so the output's identities and the ones a frame stores
  /// have one definition.
  static func identities(_ n: Int) -> [Float] {
    [Float](unsafeUninitializedCapacity: 16 * n) { buffer, count in
      if n > 0 { cm_store_identity_matrices(buffer.baseAddress!, n) }
      count = 16 * n
    }
  }

  static func transform(_ a: [Float], _ i: Int) -> Transform3D {
    var t = Transform3D.identity
    for k in 0..<16 { t[k / 4, k % 4] = Double(a[16 * i + k]) }
    return t
  }
}
