// What each save of a container's contexts changed, so that the other contexts of the container
// refresh their registered models: a context that sees a newer generation than it last saw reads
// the entries since then and refaults (or marks deleted) its clean models of those objects. Each
// context does this on its own thread, before its next fetch or property read.
//
// Invariants:
//  CL1. `generation` is the number of saves recorded; entry n holds what save n changed.
//  CL2. The log keeps the last `capacity` entries; a context that last saw an older generation
//       refaults every clean registered model instead (nothing is missed, only reread).

internal import CdObjects
internal import CdStore
import Synchronization

/// The changes of a container's saves, by generation (keeps CL1, CL2).
final class ContainerChangeLog: Sendable {
    /// What one save changed.
    struct Entry: Sendable {
        let generation: Int
        let updated: Set<ObjectID>
        let deleted: Set<ObjectID>
    }

    static let capacity = 64
    /// The latest generation, read on every property access without the lock.
    private let latest = Atomic<Int>(0)
    private let entries = LockedState<[Entry]>([])

    /// The latest generation.
    var generation: Int { latest.load(ordering: .acquiring) }

    /// Records a save's changes; returns its generation.
    @discardableResult
    func record(updated: Set<ObjectID>, deleted: Set<ObjectID>) -> Int {
        entries.withLock { entries in
            let generation = (entries.last?.generation ?? 0) + 1
            entries.append(Entry(generation: generation, updated: updated, deleted: deleted))
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            latest.store(generation, ordering: .releasing)
            return generation
        }
    }

    /// The entries after `seen`, and the generation they reach; nil entries when some were
    /// dropped from the log (CL2).
    func since(_ seen: Int) -> (entries: [Entry]?, generation: Int) {
        entries.withLock { entries in
            let generation = entries.last?.generation ?? 0
            guard let first = entries.first, first.generation <= seen + 1 else {
                return (seen == generation ? [] : nil, generation)
            }
            return (Array(entries.drop { $0.generation <= seen }), generation)
        }
    }
}
