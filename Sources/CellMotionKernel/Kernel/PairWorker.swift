// The two-thread worker: a persistent thread that evaluates the second half of a frame.

import CellMotion
import Dispatch
import Foundation

/// A persistent second thread for two-way splits. `DispatchQueue.concurrentPerform`
/// allocates on every call (3 allocations per frame, measured by the benchmark's
/// allocation counter); this worker is started once and handed each job through plain
/// stored properties and two semaphores, so a steady-state frame allocates nothing.
/// One job at a time: a caller that finds it busy (another thread evaluating) falls back
/// to `concurrentPerform`.
final class PairWorker: @unchecked Sendable {
  static let shared = PairWorker()

  /// The cell where the worker's half starts: the middle, rounded up to a multiple of 8
  /// (lane groups are the same in any split, so results stay bit-identical).
  static func split(_ n: Int) -> Int { min(n, (n / 2 + LaneWidth.widest - 1) / LaneWidth.widest * LaneWidth.widest) }

  private let lock = NSLock()
  private let go = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)
  // The job; written by the caller before `go.signal()`, read by the worker after
  // `go.wait()` (the semaphore orders the accesses).
  private var job: FrameJob? = nil

  private init() {
    let thread = Thread { [unowned self] in self.run() }
    thread.name = "CellMotionKernel.PairWorker"
    thread.start()
  }

  private func run() {
    while true {
      go.wait()
      if let job { job.run(Self.split(job.count)..<job.count, worker: 1) }
      done.signal()
    }
  }

  /// Hands the second half of `job` to the worker; false (nothing started) if it is busy.
  func tryStart(_ job: FrameJob) -> Bool {
    guard lock.try() else { return false }
    self.job = job
    go.signal()
    return true
  }

  /// Waits for the worker's half and releases the worker.
  func finish() {
    done.wait()
    job = nil
    lock.unlock()
  }
}
