// Typed errors raised at the API boundary. Every public numeric entry point validates its
// inputs once (a throwing initialiser or factory); hot loops then trust them.

/// An input rejected at the API boundary. The message always names the offending field.
public enum CellMotionError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A number that must be finite was NaN or infinite.
  case notFinite(field: String, value: Double)
  /// A finite number outside its allowed range; `expected` says the range in words.
  case outOfRange(field: String, value: Double, expected: String)
  /// A matrix with no inverse (determinant zero or not finite).
  case singularMatrix(field: String)
  /// Text that does not parse (timing-function strings, recipe files).
  case invalidSyntax(field: String, text: String, reason: String)
  /// An unknown name (preset, curve, channel, key) in a recipe or on the command line.
  case unknownName(kind: String, name: String, location: String)
  /// A caller-supplied buffer of the wrong size.
  case bufferSize(field: String, expected: Int, actual: Int)
  /// An index outside `0..<count`.
  case indexOutOfRange(field: String, index: Int, count: Int)
  /// A combination of individually valid inputs that cannot be used together.
  case invalidCombination(field: String, reason: String)
  /// A file (`source`, e.g. its path) that is not JSON as `Recipe.decodeFile` reads it:
  /// RFC 8259 with no duplicate keys, no number that overflows a Double, at most 64 levels
  /// of nesting and 1 MiB. `line` and `column` are 1-based (columns count Unicode scalars).
  case invalidJSON(source: String, line: Int, column: Int, reason: String)
  /// A JSON document without the structure its type needs (a missing key, a value of the
  /// wrong type) at `path`, a JSON path such as `channels[0].duration`.
  case invalidStructure(source: String, path: String, reason: String)
  /// A table batch update that UITableView would refuse (it raises
  /// NSInternalInconsistencyException): `rule` names the broken rule, `field` the offending
  /// entry (such as `deletions[2]`), `reason` says it in words.
  case invalidUpdate(field: String, rule: UpdateRule, reason: String)

  public var description: String {
    switch self {
    case .notFinite(let field, let value):
      return "\(field) must be a finite number, got \(value)"
    case .outOfRange(let field, let value, let expected):
      return "\(field) must be \(expected), got \(value)"
    case .singularMatrix(let field):
      return "\(field) is singular (it has no inverse)"
    case .invalidSyntax(let field, let text, let reason):
      return "\(field): cannot parse \"\(text)\": \(reason)"
    case .unknownName(let kind, let name, let location):
      return "unknown \(kind) \"\(name)\" at \(location)"
    case .bufferSize(let field, let expected, let actual):
      return "\(field) must hold \(expected) elements, got \(actual)"
    case .indexOutOfRange(let field, let index, let count):
      return "\(field) \(index) is out of range 0..<\(count)"
    case .invalidCombination(let field, let reason):
      return "\(field): \(reason)"
    case .invalidJSON(let source, let line, let column, let reason):
      return "\(source) is not valid JSON: \(reason) (line \(line), column \(column))"
    case .invalidStructure(let source, let path, let reason):
      return "\(reason) at \(path) in \(source)"
    case .invalidUpdate(let field, _, let reason):
      return "invalid batch update: \(field): \(reason)"
    }
  }
}

/// The rules a table batch update must keep, as UITableView checks them in
/// `performBatchUpdates` (deletions, reloads and move sources are indexes before the update;
/// insertions and move destinations are indexes after it).
public enum UpdateRule: String, Sendable, Equatable, CaseIterable {
  /// An index outside the rows before the update (deletions, reloads, move sources, height
  /// changes) or after it (insertions, move destinations).
  case indexOutOfRange
  /// The same index twice among the deletions, reloads and move sources, or among the
  /// insertions and move destinations.
  case repeatedIndex
  /// A row both deleted and moved.
  case deletedAndMoved
  /// A row both reloaded and moved.
  case reloadedAndMoved
  /// A row both deleted and reloaded.
  case deletedAndReloaded
  /// A height change for a deleted row, or two heights for one row.
  case changedDeletedRow
  /// An inserted row's identifier that a row of the table already has, or that two
  /// insertions share.
  case duplicateIdentifier
  /// The row count after the update is not the one the caller expected (UIKit's "invalid
  /// number of rows": before, minus deletions, plus insertions).
  case rowCountMismatch
}

/// Validation helpers shared by the throwing initialisers. `package` so that the kernel
/// and table modules validate the same way without making these public API.
package enum Check {
  /// Throws unless `value` is finite. Returns it for chaining.
  @discardableResult
  package static func finite(_ value: Double, _ field: String) throws(CellMotionError) -> Double {
    guard value.isFinite else { throw .notFinite(field: field, value: value) }
    return value
  }
  /// Finite and > 0, and not subnormal: at least `Double.leastNormalMagnitude`
  /// (2.2e-308). A subnormal positive passes "> 0" but its reciprocal overflows to
  /// infinity (1 / 2.2e-310 = inf), and callers of this check divide by the value
  /// (m34 = -1/d, a frame interval 1/rate, a fling's log(stopSpeed / v)).
  @discardableResult
  package static func positive(_ value: Double, _ field: String) throws(CellMotionError) -> Double {
    try finite(value, field)
    guard value > 0 else { throw .outOfRange(field: field, value: value, expected: "> 0") }
    guard value >= Double.leastNormalMagnitude else {
      throw .outOfRange(field: field, value: value, expected: "> 0 and not subnormal (>= 2.2250738585072014e-308)")
    }
    return value
  }
  /// Finite and >= 0.
  @discardableResult
  package static func nonNegative(_ value: Double, _ field: String) throws(CellMotionError) -> Double {
    try finite(value, field)
    guard value >= 0 else { throw .outOfRange(field: field, value: value, expected: ">= 0") }
    return value
  }
  /// A count, capacity or size in `0...maximum` (a documented limit), checked before any
  /// arithmetic or allocation uses it.
  package static func count(_ value: Int, max maximum: Int, _ field: String) throws(CellMotionError) {
    guard value >= 0 else { throw .outOfRange(field: field, value: Double(value), expected: ">= 0") }
    guard value <= maximum else {
      throw .outOfRange(field: field, value: Double(value), expected: "<= \(maximum)")
    }
  }
  /// Finite and in the closed range.
  @discardableResult
  package static func inRange(_ value: Double, _ range: ClosedRange<Double>, _ field: String)
    throws(CellMotionError) -> Double
  {
    try finite(value, field)
    guard range.contains(value) else {
      throw .outOfRange(
        field: field, value: value,
        expected: "in [\(range.lowerBound), \(range.upperBound)]")
    }
    return value
  }
}
