// The hybrid logical clock that orders edits across replicas (per-property newest wins).
//
// A stamp is (milliseconds since 1970) << 16 | counter, in a signed 64-bit integer.
// Invariants:
//  HC1. Each stamp a replica hands out is above every stamp it handed out or received before
//       (`next` takes max(physical, last + 1); `observe` raises `last` to what a pull brought).
//  HC2. Physical time enters only through `next`'s argument, so a skewed clock moves a replica's
//       stamps ahead or behind but never breaks HC1.

import Foundation

/// A hybrid logical clock's state: the last stamp handed out or observed.
struct HybridClock: Sendable, Equatable {
    /// The last stamp handed out or observed (HC1).
    private(set) var last: Int64

    init(last: Int64 = 0) { self.last = last }

    /// The stamp of an edit made at `time` (keeps HC1).
    mutating func next(at time: Date) -> Int64 {
        let physical = Int64((time.timeIntervalSince1970 * 1000).rounded(.down)) << 16
        last = max(physical, last + 1)
        return last
    }

    /// Raises the clock past a stamp received from the server (keeps HC1).
    mutating func observe(_ stamp: Int64) { last = max(last, stamp) }
}
