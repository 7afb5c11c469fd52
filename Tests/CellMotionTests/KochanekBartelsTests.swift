// Kochanek-Bartels tangents of `KeyframeTrack` against the published formula, worked by
// hand: every key with its own tension, continuity and bias (none of them 0 at the inner
// keys, so a changed sign in any term moves a number), uneven key times.
//
// D. Kochanek and R. Bartels, "Interpolating splines with local tension, continuity, and
// bias control", SIGGRAPH 1984, eq. 9-10 (t tension, c continuity, b bias):
//   incoming (source) TS_i = (1-t)(1-c)(1+b)/2 (P_i - P_i-1) + (1-t)(1+c)(1-b)/2 (P_i+1 - P_i)
//   outgoing (dest.)  TD_i = (1-t)(1+c)(1+b)/2 (P_i - P_i-1) + (1-t)(1-c)(1-b)/2 (P_i+1 - P_i)
// The paper's tangents assume evenly spaced keys. `KeyframeTrack` documents its choice for
// uneven key times: tangents are per unit of the segment's parameter u (not rescaled by
// the segments' lengths) and the ends repeat their value (P_-1 = P_0, P_n = P_n-1). So the
// key times change only how the fraction maps to u, and the slope in the fraction just
// before and after a key is the tangent over that segment's span.

import Foundation
import Testing
import _TestSupport

@testable import CellMotion

/// The track every test here uses, and its numbers worked by hand (the kernel's test of the same
/// track, `KochanekBartelsKernelTests`, repeats them).
///
/// Values P = 0, 10, 40, 20 at key times 0, 0.2, 0.7, 1.
/// key 0: t 0.5, c 0.3, b 0;     back 0 (P_-1 = P_0), ahead 10
///   TD_0 = 0.5 x 0.7 x 1 / 2 x 10 = 1.75
/// key 1: t 0.2, c 0.5, b -0.5;  back 10, ahead 30
///   TS_1 = 0.8 x 0.5 x 0.5 / 2 x 10 + 0.8 x 1.5 x 1.5 / 2 x 30 = 1 + 27 = 28
///   TD_1 = 0.8 x 1.5 x 0.5 / 2 x 10 + 0.8 x 0.5 x 1.5 / 2 x 30 = 3 + 9 = 12
/// key 2: t 0, c -0.5, b 0.25;   back 30, ahead -20
///   TS_2 = 1.5 x 1.25 / 2 x 30 + 0.5 x 0.75 / 2 x -20 = 28.125 - 3.75 = 24.375
///   TD_2 = 0.5 x 1.25 / 2 x 30 + 1.5 x 0.75 / 2 x -20 = 9.375 - 11.25 = -1.875
/// key 3: t 0, c -0.2, b 0.4;    back -20, ahead 0 (P_4 = P_3)
///   TS_3 = 1.2 x 1.4 / 2 x -20 = -16.8
///
/// Each segment is the cubic Hermite piece h00 P_i + h10 TD_i + h01 P_i+1 + h11 TS_i+1 in
/// u; at u = 1/2 (h00 = h01 = 1/2, h10 = 1/8, h11 = -1/8):
///   segment 0 (f 0.1):  0 + 1.75 / 8 + 5 - 28 / 8 = 1.71875
///   segment 1 (f 0.45): 5 + 12 / 8 + 20 - 24.375 / 8 = 23.453125
///   segment 2 (f 0.85): 20 - 1.875 / 8 + 10 + 16.8 / 8 = 31.865625
/// and at u = 1/4 of segment 1 (f 0.325; h00 = 27/32, h10 = 9/64, h01 = 5/32, h11 = -3/64):
///   27/32 x 10 + 9/64 x 12 + 5/32 x 40 - 3/64 x 24.375 = 15.232421875
enum KochanekBartelsExample {
  static let values = [0.0, 10, 40, 20]
  static let keyTimes = [0.0, 0.2, 0.7, 1]
  static let tension = [0.5, 0.2, 0, 0]
  static let continuity = [0.3, 0.5, -0.5, -0.2]
  static let bias = [0.0, -0.5, 0.25, 0.4]
  /// (fraction, value) worked by hand above.
  static let samples: [(f: Double, value: Double)] = [
    (0.1, 1.71875), (0.325, 15.232421875), (0.45, 23.453125), (0.85, 31.865625),
    (0, 0), (0.2, 10), (0.7, 40), (1, 20),
  ]
}

@Suite("Kochanek-Bartels tangents against the published formula")
struct KochanekBartelsTests {
  typealias K = KochanekBartelsExample

  func track() throws -> KeyframeTrack {
    try KeyframeTrack(
      values: K.values, keyTimes: K.keyTimes, mode: .cubic, tension: K.tension, continuity: K.continuity, bias: K.bias)
  }

  @Test("tangents at every key: the hand-worked TS_i and TD_i of eq. 9-10")
  func tangents() throws {
    let t = try track()
    // Incoming tangents of keys 1-3, outgoing of keys 0-2: the ones the segments use.
    let incoming = [28, 24.375, -16.8], outgoing = [1.75, 12, -1.875]
    for (k, expected) in incoming.enumerated() {
      #expect(abs(t.inTangents[k + 1] - expected) <= 1e-12, "TS_\(k + 1): \(t.inTangents[k + 1]), by hand \(expected)")
    }
    for (k, expected) in outgoing.enumerated() {
      #expect(abs(t.outTangents[k] - expected) <= 1e-12, "TD_\(k): \(t.outTangents[k]), by hand \(expected)")
    }
  }

  @Test("values between uneven keys: the Hermite pieces with the hand-worked tangents")
  func values() throws {
    let t = try track()
    for (f, expected) in K.samples {
      let v = t.value(at: f)
      #expect(abs(v - expected) <= 1e-12, "f \(f): \(v), by hand \(expected)")
    }
  }

  @Test("slopes either side of key 1: tangent over the segment's span (0.2 before, 0.5 after)")
  func slopesAtUnevenKey() throws {
    let t = try track()
    // TS_1 / 0.2 = 140 just before the key, TD_1 / 0.5 = 24 just after (continuity 0.5
    // makes the corner).
    let h = 1e-7
    let left = (t.value(at: 0.2) - t.value(at: 0.2 - h)) / h
    let right = (t.value(at: 0.2 + h) - t.value(at: 0.2)) / h
    #expect(abs(left - 140) <= 1e-3, "slope before key 1: \(left)")
    #expect(abs(right - 24) <= 1e-3, "slope after key 1: \(right)")
  }
}
