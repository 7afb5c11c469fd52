// Retargeted channels in the kernel: what a derived recipe compiles (the shape: which
// segment replaced the recipe's channel, which additive layers run, with their curves),
// and the per-cell numbers the batch keeps for it in its retarget rows (from, to,
// velocity, begin and end times, deltas), so every cell of a run evaluates the same code.

import CellMotion

/// The shape of one retargeted channel: its curves and durations (compiled once into a
/// derived recipe); the numbers of each cell are in the batch's retarget rows.
package struct RetargetShape: Sendable, Hashable {
  package enum Segment: Sendable, Hashable {
    case timed(AnimationCurve, duration: Double)
    case carrying(Spring)
  }
  package struct Layer: Sendable, Hashable {
    package var curve: AnimationCurve
    package var duration: Double
  }
  package var channel: Channel
  /// The segment that replaced the recipe's channel; nil: the recipe's channel runs.
  package var segment: Segment?
  package var layers: [Layer]

  package init(_ motion: ChannelMotion) {
    channel = motion.channel
    switch motion.base {
    case .recipe: segment = nil
    case .segment(let s):
      switch s.kind {
      case .timed(let curve, let duration): segment = .timed(curve, duration: duration)
      case .carrying(let spring): segment = .carrying(spring)
      }
    }
    layers = motion.layers.map { Layer(curve: $0.curve, duration: $0.duration) }
  }

  /// Rows the segment reads: timed: from, to, begin; carrying: also velocity and end.
  var segmentRows: Int {
    switch segment {
    case nil: return 0
    case .timed: return 3
    case .carrying: return 5
    }
  }

  /// Per-cell rows: the offset, the segment's, then (delta, begin) per layer.
  package var inputRows: Int { 1 + segmentRows + 2 * layers.count }

  /// Scratch rows in a derived recipe: the value, and the staged progress of a timed
  /// segment and of each layer.
  var scratchRows: Int {
    if case .timed = segment { return 2 + layers.count }
    return 1 + layers.count
  }

  /// Hands `motion`'s numbers for one cell to `write(row, value)` (rows from 0, in the
  /// order `inputRows` counts them), times relative to `origin` (seconds); `motion` must
  /// have this shape. No allocation.
  package func writeRows(_ motion: ChannelMotion, origin: Double, _ write: (Int, Float) -> Void) {
    write(0, Float(motion.offset))
    var j = 1
    if case .segment(let s) = motion.base {
      write(1, Float(s.from))
      write(2, Float(s.to))
      write(3, Float(s.begin - origin))
      j = 4
      if case .carrying = s.kind {
        write(4, Float(s.velocity))
        write(5, Float(s.end - origin))
        j = 6
      }
    }
    for l in motion.layers {
      write(j, Float(l.delta))
      write(j + 1, Float(l.begin - origin))
      j += 2
    }
  }
}

/// One retargeted channel of a derived recipe, as the retarget stage runs it: value =
/// offset + (the recipe's channel, or the segment) + the sum of delta x layer progress,
/// written to scratch row `row`, which the channel then reads (from 0 to 1, as a keyframe
/// channel's row).
package struct CompiledRetarget: Sendable {
  /// What replaced the recipe's channel.
  package enum SegmentKind: Sendable {
    /// Nothing: the recipe's channel runs (`base`).
    case none
    /// from + (to - from) x progress of `pieces[0]`, staged in `progressRow`.
    case timed
    /// from + (to - from) x0(tau) + velocity g(tau) until the cell's end, then to: the
    /// spring released at rest (`carrying`, a compiled spring curve).
    case carrying
  }
  package let shape: RetargetShape
  /// The recipe's channel as compiled (its part or keyframe row, from and to); nil when a
  /// segment replaced it.
  package let base: CompiledChannel?
  package let kind: SegmentKind
  /// The staged pieces, in the order their progress is staged from `progressRow` on: a
  /// timed segment's part, then each additive layer's (curve, duration). One array, so
  /// the stages borrow each piece where it is (a segment held in an enum's payload was
  /// copied, 300 bytes, per block). Inline (a segment and at most
  /// `ChannelMotion.maxLayers` layers): an array, reached through a pointer per block, was
  /// retained and released around each use. The first `pieceCount` are used.
  package let pieces: InlineArray<5, CompiledPart>
  package let pieceCount: Int
  /// Where `pieces` sits in the struct (read once).
  fileprivate static let piecesOffset = MemoryLayout<CompiledRetarget>.offset(of: \.pieces)!
  /// The carrying segment's spring (`kind` `.carrying`).
  package let carrying: CompiledCurve?
  /// Rows of the segment's numbers (`RetargetShape.segmentRows`).
  package let segmentRows: Int
  /// First per-cell row in the batch's retarget rows.
  package let input: Int
  /// Scratch row of the value.
  package let row: Int
  /// First scratch row of staged progress: the timed segment's, then each layer's.
  package let progressRow: Int
  /// Whether this is the fold's progress (the fold stage reads `row`), not a channel.
  package let isFold: Bool

  /// Scratch rows of staged progress this retarget uses (one per piece).
  var progressRows: Int { pieceCount }
  /// The first additive layer's index in `pieces` (after a timed segment's part).
  var firstLayer: Int { kind == .timed ? 1 : 0 }
  /// Additive layers.
  var layerCount: Int { pieceCount - firstLayer }
  /// Scratch row of the first additive layer's staged progress.
  var firstLayerRow: Int { progressRow + firstLayer }
  /// The retarget row (from `input`) of piece `j`'s begin times: a timed segment's begin,
  /// or a layer's.
  func beginRow(ofPiece j: Int) -> Int { j < firstLayer ? 3 : 2 + segmentRows + 2 * (j - firstLayer) }

  init(
    _ shape: RetargetShape, base: CompiledChannel, input: Int, row: Int, progressRow: Int, isFold: Bool = false,
    compile: (AnimationCurve) -> CompiledCurve
  ) {
    self.shape = shape
    self.isFold = isFold
    func part(_ curve: AnimationCurve, _ duration: Double) -> CompiledPart {
      CompiledPart(curve: compile(curve), duration: Float(duration), delay: 0, endLocalTime: Float(duration))
    }
    var pieces: [CompiledPart] = []
    switch shape.segment {
    case nil:
      (self.base, kind, carrying) = (base, .none, nil)
    case .timed(let curve, let duration):
      (self.base, kind, carrying) = (nil, .timed, nil)
      pieces.append(part(curve, duration))
    case .carrying(let spring):
      (self.base, kind, carrying) = (nil, .carrying, compile(.spring(spring)))
    }
    pieces += shape.layers.map { part($0.curve, $0.duration) }
    precondition(pieces.count <= 1 + ChannelMotion.maxLayers)
    // Unused slots hold a copy of the first piece (or a linear part when there is none).
    let filler =
      pieces.first ?? CompiledPart(curve: CompiledCurve(.bezier(.linear)), duration: 1, delay: 0, endLocalTime: 1)
    var inline = InlineArray<5, CompiledPart>(repeating: filler)
    for (j, p) in pieces.enumerated() { inline[j] = p }
    self.pieces = inline
    pieceCount = pieces.count
    (self.input, self.row, self.progressRow) = (input, row, progressRow)
    segmentRows = shape.segmentRows
    assert(progressRows == shape.scratchRows - 1)
  }
}

extension UnsafePointer<CompiledRetarget> {
  /// Piece `j` (below `pieceCount`) where the retarget holds it: no copy, no retain.
  func piece(_ j: Int) -> UnsafePointer<CompiledPart> {
    (UnsafeRawPointer(self) + CompiledRetarget.piecesOffset).assumingMemoryBound(to: CompiledPart.self) + j
  }
}
