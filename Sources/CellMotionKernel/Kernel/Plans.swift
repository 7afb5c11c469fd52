// The plans a recipe compiles to, each decided once (`CompiledRecipe.init`) and read by
// the passes: the scratch layout of a block, the passes it runs and their order, the
// matrix plan, the fold plan (the velocity plan is `VelocityPlan`). Named numbers of the
// kernel live here too: its widest lane group and the velocity rows' channel mask.

import CellMotion

extension LaneWidth {
  /// Lanes in one group: 8 or 4.
  public var lanes: Int {
    switch self {
    case .simd8: return 8
    case .simd4: return 4
    }
  }
  /// The widest lane group, 8 (SIMD8): blocks and work split between threads are multiples
  /// of it, so every group but a batch's last is whole (a test checks it against `lanes`).
  public static let widest = 8
}

/// The kernel's per-block scratch (the output's, `FrameOutput.kernelScratch`, or a stack
/// array), and how a recipe lays its rows out in it: the one place its arithmetic lives.
///
/// A block of `blockCells` cells uses `stagedRows` rows of staged values (each timed part's
/// progress, each keyframe channel's value, each retargeted channel's value and its staged
/// progress), then `matrixRows` rows of matrix entries (the general path's 16 SoA rows, the
/// planar path's three pair rows; before the matrix pass, the Bezier parameters kept for
/// the velocity pass). Each row holds `blockCells` Floats.
struct ScratchLayout: Sendable, Hashable {
  /// One worker's scratch: `floats` plus `alignmentSlack` (a stack array of this type, or a
  /// slot of this many Floats in `FrameOutput.kernelScratch`).
  typealias Storage = InlineArray<4112, Float>
  /// Floats of slack in `Storage`: its start is rounded up to a 64-byte cache line, so
  /// every lane group's loads and stores stay within one line whatever the stack frame's
  /// layout (a rebuild that moved it measured 3-5 % on the opacity-only presets).
  static let alignmentSlack = 16
  /// Floats a block may use: 4,096 (16 KiB; on the stack because
  /// `withUnsafeTemporaryAllocation` goes to the heap above 1 KiB on Linux, measured).
  static var floats: Int { Storage.count - alignmentSlack }
  /// Rows of matrix entries after the staged rows.
  static let matrixRows = 16
  /// The smallest block: 16 cells (two SIMD8 groups), which sets the most staged rows.
  static let minimumBlockCells = 16
  /// The largest block: 256 cells (every per-block step paid half as often as at 128: 3-10 %
  /// faster on every preset at 10,000 cells; 512 measured no better).
  static let maximumBlockCells = 256
  /// Most staged rows a recipe may have: 240 (`CompiledRecipe.maxParts`).
  static var maxStagedRows: Int { floats / minimumBlockCells - matrixRows }

  /// Rows before the matrix rows.
  let stagedRows: Int
  /// Cells per block: as many as fit, a multiple of `LaneWidth.widest`, at most
  /// `maximumBlockCells`.
  let blockCells: Int

  init(stagedRows: Int) {
    self.stagedRows = stagedRows
    let fit = Self.floats / (stagedRows + Self.matrixRows)
    blockCells = min(Self.maximumBlockCells, fit / LaneWidth.widest * LaneWidth.widest)
  }

  /// Float offset of staged row `row` in a block.
  func staged(_ row: Int) -> Int { row * blockCells }
  /// Float offset of the matrix rows in a block.
  var matrixOffset: Int { stagedRows * blockCells }
}

/// The passes of a block, in data-flow order: the one list of them. `Kernel.evaluateRun`
/// runs a recipe's passes (`CompiledRecipe.passes`) in this order, block by block; each
/// pass is a function compiled once per lane width.
enum KernelPass: Int, CaseIterable, Sendable {
  /// Every timed part's progress from its media timing and curve (`progressStage`; with
  /// velocities, the Bezier parameters it solved are kept in the matrix rows).
  case progress
  /// Every keyframe channel's value from its part's progress (`keyframeStage`).
  case keyframes
  /// Every retargeted channel's value (`retargetStage`; derived recipes only).
  case retargets
  /// Opacity and shadow opacity, straight to the outputs (`opacityStage`).
  case opacity
  /// Every channel's velocity, in frames that ask for them (`velocityStage`).
  case velocities
  /// The cells' matrices by the recipe's `MatrixPlan`, and their store.
  case matrices
  /// The fold halves and their shadow (`foldStage`).
  case fold
}

/// A set of passes (`CompiledRecipe.passes`), iterated in `KernelPass` order without an
/// array (iterating even an empty array retains and releases its storage: 5 % of fadeIn's
/// time when done per block, measured).
struct PassSet: OptionSet, Sendable, Hashable {
  let rawValue: UInt8
  init(rawValue: UInt8) { self.rawValue = rawValue }
  init(_ pass: KernelPass) { rawValue = 1 << UInt8(pass.rawValue) }

  /// Calls `body` with each pass in the set, in `KernelPass` order.
  @inline(__always)
  func forEach(_ body: (KernelPass) -> Void) {
    var bits = rawValue
    while bits != 0 {
      body(KernelPass(rawValue: bits.trailingZeroBitCount).unsafelyUnwrapped)
      bits &= bits &- 1
    }
  }
}

/// How the matrix pass makes a recipe's cell matrices, chosen once.
enum MatrixPlan: Sendable {
  /// Nothing moves the cells (no transform channel, no matrix animation: the fade and fold
  /// recipes): the identity, stored from constants unless an earlier frame left it
  /// (`KernelOutputs.identityStored`), or made by the planar path when corners are asked
  /// for (`PlanarConstants.isIdentity`).
  case identity(PlanarConstants)
  /// The transform stays affine 2D (`CompiledRecipe.isPlanar`): six entries per cell.
  case planar(PlanarConstants)
  /// A single rotation about x or y with translations, a sheared translation and perspective
  /// (the flips, a cover flow, a wheel picker): written straight out.
  case axisRotation(AxisRotation)
  /// The full 4x4 (`evaluateGeneralBlock`).
  case general

  /// The planar constants of an identity or planar plan.
  var planarConstants: PlanarConstants? {
    switch self {
    case .identity(let k), .planar(let k): return k
    case .axisRotation, .general: return nil
    }
  }
  /// The shape of an axis-rotation plan.
  var axisRotation: AxisRotation? {
    if case .axisRotation(let ar) = self { return ar }
    return nil
  }
}

/// The fold pass's plan (recipes with a fold): where its progress comes from, its
/// direction and perspective.
struct FoldPlan: Sendable, Hashable {
  /// Scratch row of the fold's progress: its part's, or its retarget's value row.
  var part: Int
  /// Opening (the top half's angle -pi/2 -> 0), or closing.
  var opening: Bool
  /// -1/d of the halves' perspective.
  var m34: Float
  /// The fold shows its end state (reduce motion): progress 1 in every lane.
  var held: Bool
  /// (c, sin c, cos c) when the fold's angle stays within `AngleCentre.reach` of c (every
  /// fold curve that does not overshoot far); nil: the full-range sine.
  var angleCentre: SIMD3<Float>?
}

/// The velocity rows of `FrameOutput.velocities` as bits, one per channel in
/// `Channel.allCases` order: derived from the channel list, so a channel added there gets
/// a row and a bit (`ChannelRowsTests` checks the mask's width against the list).
enum ChannelRows {
  /// Rows in `FrameOutput.velocities`: one per channel.
  static var count: Int { Channel.allCases.count }
  /// Every row's bit.
  static var all: UInt16 { UInt16(truncatingIfNeeded: (1 << count) - 1) }
  /// The bit of `row`.
  static func bit(_ row: Int) -> UInt16 { 1 << UInt16(row) }
}
