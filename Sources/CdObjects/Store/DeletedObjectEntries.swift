// What the write phase and the history still need of the stored objects a change set deletes,
// once their delete rules have run: the index entries to remove and the history tombstones.
// Not their records — a delete of 100,000 objects holds these few bytes per object instead of
// 100,000 decoded records with their strings (ChangeApplier+Delete D2).
//
// Invariants:
//  DE1. An object is noted once, from its stored record (`originals`, CA1), after its delete
//       rules have run: its index entries are those the index trees hold for it, since the stored
//       record is what they were written from.
//  DE2. `indexEntries[tree]` lists the entries of every noted object in that index tree (in the
//       order the objects were noted; the write phase sorts each tree's removals, U2).
//  DE3. `tombstones[id]` holds the non-nil values of the attributes marked
//       `preservesValueInHistoryOnDeletion`; an object without any has no entry (the history
//       writes an empty tombstone for it).

/// The index entries and history tombstones of deleted stored objects (DE1–DE3).
struct DeletedObjectEntries {
    /// Index entries to remove, per index tree (DE2).
    private(set) var indexEntries: [String: [[UInt8]]] = [:]
    /// Preserved attribute values by slot, per object that has any (DE3).
    private(set) var tombstones: [ObjectID: [(Int, CdValue)]] = [:]

    /// Notes the entries and tombstone of `id`, deleted, from its stored record (DE1).
    mutating func note(_ id: ObjectID, stored original: Record) {
        let entity = original.entity
        for index in entity.indexes {
            indexEntries[index.definition.tree, default: []].append(
                IndexKey.key(index, original, primaryKey: id.primaryKey))
        }
        var tombstone: [(Int, CdValue)] = []
        for (s, attribute) in entity.attributes.enumerated()
        where attribute.preservesValueInHistoryOnDeletion && !original.values[s].isNull {
            tombstone.append((s, original.values[s]))
        }
        if !tombstone.isEmpty { tombstones[id] = tombstone }
    }

    /// The index entries noted, handed over to the write phase and dropped here.
    mutating func takeIndexEntries() -> [String: [[UInt8]]] {
        defer { indexEntries = [:] }
        return indexEntries
    }

    /// The tombstone of `id` (empty when it preserves nothing, DE3).
    func tombstone(_ id: ObjectID) -> [(Int, CdValue)] { tombstones[id] ?? [] }
}
