// Runs the pieces of one read on several threads and gives back what running them one after the
// other, in order, would give: the same values in piece order, the same first error, the same
// stop. A read is split into pieces in key order (runs of subtrees of a tree, chunks of a sorted
// key list: Tree+Parallel.swift); piece `p` holds only keys after those of piece `p - 1`.
//
// Threads: `DispatchQueue.concurrentPerform` with at most `threads` iterations, the calling
// thread among them. Each iteration takes the next piece from a shared counter until none is
// left, so a slow piece (pages not in the cache) does not hold the others back, and no more than
// `threads` pieces run at once whatever the piece count.
//
// Invariants:
//  PP1. The cutoff is the lowest piece that threw or stopped, or `Int.max`; it only decreases.
//       A piece above the cutoff is not started, and a running one sees `isCancelled` and ends
//       early; its outcome is discarded. Every piece at or below the final cutoff ran to its end
//       (a piece is cut short only while the cutoff is below it, and it never rises again).
//  PP2. The result is the one of running the pieces in order on one thread: the values of the
//       pieces below the cutoff, then the cutoff piece's value when it stopped, or its error when
//       it threw (no piece below it threw or stopped, or the cutoff would be lower).
//  PP3. Slot `p` is written once, by the thread that took piece `p` from the counter, and read
//       by the caller only after `concurrentPerform` returned (which orders every write before).
//  PP4. `run` returns only when every piece that started has ended, so nothing a piece borrows
//       (a snapshot, SnapshotPages SN1) outlives the call.

import Dispatch
import Synchronization

/// Runs the pieces of one read on up to a given number of threads (PP1–PP4).
package enum ParallelPieces {
    /// What one piece gives back: its value, and whether it stopped before its end (a body that
    /// returned false, or a piece cancelled because an earlier one stopped or threw).
    package struct Outcome<Value: Sendable>: Sendable {
        package var value: Value
        package var stopped: Bool

        package init(_ value: Value, stopped: Bool) {
            self.value = value
            self.stopped = stopped
        }
    }

    /// Tells a running piece that its outcome no longer counts (PP1).
    package struct Cancellation: Sendable {
        let piece: Int
        let state: RunState

        /// True once a piece before this one threw or stopped: end early, the outcome is dropped.
        package var isCancelled: Bool { state.cutoff.load(ordering: .relaxed) < piece }
    }

    /// Runs `work` for pieces `0..<count` on up to `threads` threads and returns their values in
    /// piece order, up to and including the first piece that stopped; rethrows the error of the
    /// first piece (in piece order) that threw when no piece before it stopped (PP2).
    ///
    /// ```swift
    /// let sums = try ParallelPieces.run(count: chunks.count, threads: 4) { piece, _ in
    ///     .init(chunks[piece].reduce(0, +), stopped: false)
    /// }
    /// ```
    package static func run<Value: Sendable>(
        count: Int, threads: Int, _ work: @Sendable (Int, Cancellation) throws -> Outcome<Value>
    ) throws -> [Value] {
        guard count > 0 else { return [] }
        let state = RunState()
        let slots = PieceSlots<Value>(count: count)
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, count))) { _ in
            while true {
                let piece = state.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard piece < count else { return }
                if state.cutoff.load(ordering: .relaxed) < piece { continue }  // PP1: not started
                let result = Result { try work(piece, Cancellation(piece: piece, state: state)) }
                switch result {
                case .failure: state.cutoff.min(piece, ordering: .relaxed)
                case .success(let outcome) where outcome.stopped: state.cutoff.min(piece, ordering: .relaxed)
                case .success: break
                }
                slots.store(result, at: piece)  // PP3
            }
        }
        // PP2: the pieces in order, up to the cutoff.
        let cutoff = state.cutoff.load(ordering: .relaxed)
        var values: [Value] = []
        values.reserveCapacity(min(count, cutoff == .max ? count : cutoff + 1))
        for piece in 0..<min(count, cutoff == .max ? count : cutoff + 1) {
            guard let result = slots.take(at: piece) else {
                preconditionFailure("piece \(piece) at or below the cutoff \(cutoff) did not run (PP1)")
            }
            let outcome = try result.get()
            values.append(outcome.value)
            if outcome.stopped { break }
        }
        return values
    }
}

/// The counters one run shares between its threads.
final class RunState: Sendable {
    /// The next piece to take.
    let next = Atomic<Int>(0)
    /// The lowest piece that threw or stopped (PP1).
    let cutoff = Atomic<Int>(.max)
}

/// One result slot per piece (PP3). `@unchecked Sendable`: each slot is written by one thread
/// and read after the run joined, which the type cannot express.
final class PieceSlots<Value: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Result<ParallelPieces.Outcome<Value>, any Error>?>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    func store(_ result: Result<ParallelPieces.Outcome<Value>, any Error>, at piece: Int) {
        slots[piece] = result
    }

    func take(at piece: Int) -> Result<ParallelPieces.Outcome<Value>, any Error>? {
        slots[piece].take()
    }
}
