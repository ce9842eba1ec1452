// A fetch whose matches come back in slot form: each match's stored values as an array indexed
// by the entity's property slots (`PropertySlots`, PS2), which the object layer takes as its
// objects' value buffers without a per-object dictionary keyed by property name.
//
// Invariants:
//  FP1. A match's buffer has `storedCount` entries: slot `s` below `attributeCount` holds
//       `.attribute(record field s)` (`.null` as `.attribute(.null)`), the next `toOneCount`
//       slots `.toOne(target)`, and the stored to-many slots nil (not read), so that the buffer
//       holds exactly what `values(of:)` gives by name (PS2 makes record field `f` slot `f`).

import CdStore

extension ObjectSnapshot {
    /// ``fetchObjects(_:pending:)`` in slot form (FP1): each match with its stored attribute and
    /// to-one values by slot, read in the same pass as the match (with `pending`, read by id).
    /// `request.propertiesToFetch` is ignored: every stored value is returned.
    package func fetchSlotObjects(
        _ request: FetchRequest, pending: ChangeSet? = nil
    ) throws -> [(id: ObjectID, values: [PropertyValue?]?)] {
        do {
            // A fetch by ID reads its records by primary key (FK1, FK2).
            if let keyed = try keyedSlotObjects(request, pending: pending) { return keyed }
            var request = request
            request.propertiesToFetch = []
            if let pending, !pending.isEmpty {
                let executor = try QueryExecutor(reader: overlayReader(pending))
                return try executor.matches(request, paging: true).map { match in
                    (match.id, try stored.record(match.id).map(Self.slotValues(of:)))
                }
            }
            let executor = QueryExecutor(reader: ObjectReader(stored: stored, overlay: nil))
            return try executor.matches(request, paging: true, keepRecords: true).map { match in
                (match.id, try executor.record(of: match).map(Self.slotValues(of:)))
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }

    /// A record's values in slot form (keeps FP1).
    static func slotValues(of rec: Record) -> [PropertyValue?] {
        let entity = rec.entity
        let count = entity.attributes.count + entity.toOnes.count + entity.toManys.count
        var out: [PropertyValue?] = []
        out.reserveCapacity(count)
        for value in rec.values { out.append(.attribute(value)) }
        for target in rec.toOne { out.append(.toOne(target)) }
        while out.count < count { out.append(nil) }
        return out
    }

    /// A reader that overlays `pending` on this snapshot.
    private func overlayReader(_ pending: ChangeSet) throws -> ObjectReader {
        let applier = ChangeApplier(layout: store.layout, stored: stored, changes: pending, overlay: true)
        try applier.prepare()
        return ObjectReader(stored: stored, overlay: applier)
    }
}
