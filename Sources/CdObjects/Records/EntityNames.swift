// The process-wide interning of entity names to small integer codes, so that an `ObjectID` holds
// an integer instead of a String: copying, hashing and comparing identifiers never touches a
// string or a reference count. These codes are not the per-store entity codes written in
// records (EL1): those depend on the model, these on the order in which the process first sees
// each name, and an identifier is made and compared without any store at hand.
//
// Invariants:
//  OI1. Append-only: a code, once handed out, names the same entity name for the rest of the
//       process; names are never removed. The table grows only with the distinct entity names
//       the process interns (at most 2^32 − 64, far beyond memory; in practice the entity names
//       of the models it opens plus any name passed to `ObjectID(entity:primaryKey:)`).
//  OI2. One code per name: two names get the same code exactly when they are equal Strings, so
//       code equality is name equality.
//  OI3. A slot (and the segment holding it) is written once, under `lock`, before its code is
//       returned, and never written again. Every code a thread holds came from `code(for:)`
//       (under the lock) or reached it inside a value passed between threads, which Swift's
//       strict concurrency only lets happen through synchronisation; so the write of a slot
//       happens before every read of it, and `name(of:)` reads without the lock.

import CdStore

/// A process-wide code for an entity name (OI1, OI2); only `EntityNames.code(for:)` makes one.
package struct EntityNameCode: Hashable, Sendable {
    package let rawValue: UInt32
    fileprivate init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// The interning table of entity names (OI1–OI3). Names live in segments that double in size
/// (64, 128, 256, … slots), allocated once and never moved or freed, so a reader needs no lock.
package final class EntityNames: @unchecked Sendable {
    /// The one table of the process.
    package static let shared = EntityNames()

    private static let firstSegmentSize = 64
    private static let segmentCount = 26

    private let lock = Lock()
    /// Guarded by `lock`.
    private var codes: [String: EntityNameCode] = [:]
    /// Guarded by `lock`: the number of names interned, so the next code.
    private var count = 0
    /// `segmentCount` segment pointers; segment `k` holds `firstSegmentSize << k` names. A pointer
    /// is set under `lock` before any code in its segment exists (keeps OI3).
    private let segments: UnsafeMutablePointer<UnsafeMutablePointer<String>?>

    private init() {
        segments = .allocate(capacity: Self.segmentCount)
        segments.initialize(repeating: nil, count: Self.segmentCount)
    }

    /// The code of `name`, interning it the first time (keeps OI1, OI2, OI3).
    package func code(for name: String) -> EntityNameCode {
        lock.withLock {
            if let code = codes[name] { return code }
            let (segment, offset) = Self.position(of: count)
            precondition(segment < Self.segmentCount, "more entity names than the interning table holds")
            if segments[segment] == nil {
                segments[segment] = .allocate(capacity: Self.firstSegmentSize << segment)
            }
            (segments[segment].unsafelyUnwrapped + offset).initialize(to: name)
            let code = EntityNameCode(rawValue: UInt32(count))
            count += 1
            codes[name] = code
            return code
        }
    }

    /// The name a code stands for: two array reads, no lock (OI3).
    @inline(__always)
    package func name(of code: EntityNameCode) -> String {
        let (segment, offset) = Self.position(of: Int(code.rawValue))
        return segments[segment].unsafelyUnwrapped[offset]
    }

    /// Segment and offset of the slot of `index`: segment `k` starts at `64 · (2^k − 1)`.
    @inline(__always)
    private static func position(of index: Int) -> (segment: Int, offset: Int) {
        let q = index / firstSegmentSize + 1
        let segment = Int.bitWidth - 1 - q.leadingZeroBitCount
        return (segment, index - firstSegmentSize * ((1 << segment) - 1))
    }
}
