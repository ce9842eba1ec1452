// The slot of a property found by the identity of the key path object a getter passes, before its
// hash. A `@Model` getter passes its key path literal (`\.name`) on every read, and the runtime
// hands out one object per literal, so after the first read of a property through a literal its
// slot is one pointer-keyed look-up away instead of a hash of the key path's components (which
// was most of a property read's cost). Reads take no lock: the map is published whole, through an
// atomic pointer, and never changes once published.
//
// Invariants:
//  KI1. A published map only grows (each map holds its predecessor's entries plus one), and every
//       map ever published stays alive as long as the table, so a reader holding a pointer it
//       loaded never reads a freed map.
//  KI2. A map holds each key path object it lists, so the object's identity (its address) is never
//       reused by another object while the map lives: an identity found in the map is that very
//       key path, whose slot `learn` was told after an equality look-up (`indexByKeyPath`).
//  KI3. At most `limit` key paths are learned; past it (key paths made at run time, one object per
//       call) the table answers by hash, as before, so the maps stay small.

import Synchronization

/// Slots by key path identity, learned from equality look-ups (KI1–KI3).
final class KeyPathIdentitySlots: Sendable {
    /// One published map (KI1, KI2). Unchecked: a key path is immutable once made, and a map only
    /// holds its key paths (to keep their identities), never reads them.
    private final class Map: @unchecked Sendable {
        let slots: [ObjectIdentifier: Int]
        /// The key paths listed, held so that their identities stay theirs (KI2).
        let keyPaths: [AnyKeyPath]

        init(slots: [ObjectIdentifier: Int], keyPaths: [AnyKeyPath]) {
            self.slots = slots
            self.keyPaths = keyPaths
        }
    }

    /// The number of key paths learned at most (KI3).
    let limit: Int
    /// The latest map's address, 0 before the first is published.
    private let latest = Atomic<Int>(0)
    /// Every map published, oldest first (keeps KI1).
    private let published = Mutex<[Map]>([])

    init(limit: Int) {
        self.limit = limit
    }

    /// The slot learned for `key`'s identity, if any.
    func slot(of key: AnyKeyPath) -> Int? {
        let address = latest.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        // Alive: every published map is held by `published` (KI1).
        return Unmanaged<Map>.fromOpaque(pointer).takeUnretainedValue().slots[ObjectIdentifier(key)]
    }

    /// Records that `key` is at `slot` (found by equality), unless known or past the limit (KI3).
    func learn(_ key: AnyKeyPath, slot: Int) {
        published.withLock { maps in
            let current = maps.last
            let identity = ObjectIdentifier(key)
            guard current?.slots[identity] == nil, (current?.keyPaths.count ?? 0) < limit else { return }
            var slots = current?.slots ?? [:]
            slots[identity] = slot
            let next = Map(slots: slots, keyPaths: (current?.keyPaths ?? []) + [key])  // keeps KI2
            maps.append(next)  // keeps KI1
            latest.store(Int(bitPattern: Unmanaged.passUnretained(next).toOpaque()), ordering: .releasing)
        }
    }

    /// The number of key paths learned.
    var count: Int { published.withLock { $0.last?.keyPaths.count ?? 0 } }
}
