// Phase 4 of apply: validation, then the writes — records, index entries (with uniqueness
// checked through the unique indexes), relationship trees and next keys.
//
// Updated objects are validated before writing (throwIfInvalid); inserted ones while they are
// written. Whatever fails, the caller aborts the engine transaction, so nothing is stored.
//
// Write order (keeps U1):
//   1. index entries of deleted objects and the changed entries of updated objects are removed;
//   2. relationship entries of deleted objects are removed (their records left the record
//      trees in phase 3, ChangeApplier+Delete D3);
//   3. records and new index entries of updated, then inserted objects are written, each unique
//      entry checked against what the index holds at that moment;
//   4. changed to-many lists; 5. next keys.
//  U1. When a unique entry is checked, every entry the change set removes is already gone and
//      every entry it adds before is present, so swaps pass and duplicates inside the set fail.
//  U2. Steps 1–3 and the unread list edits of step 4 write one tree at a time, in key order
//      (records by primary key, index and relationship entries by their bytes): a delete or
//      update of many objects then changes each page of a tree in one visit. In hash order every
//      write descended to a random page, and once the dirty pages outgrew the cache each page
//      was spilled and read back (decompressed) several times.
//  U3. Phase 4 holds no more than the working set it writes: the staged updates (already applied
//      to `records` in phase 1) are dropped when it starts, and its lists of updated records and
//      entries hold references into `records`, allocated once at their final size where it is
//      known; a new index entry names its record and index by position (`AddedIndexEntry`).
//      `ObjectStore.apply` then drops the working set before the engine commit (CA8).
//  U4. A change set without inserts (updates and deletes) is written under the engine's
//      `withSequentialWrites` (WriteTransaction R9): by U2 it changes each page once, so the
//      engine spills its pages at a quarter of the usual dirty-page limit at no extra cost. A
//      change set with inserts keeps the whole limit: its index entries come back to the same
//      leaves, and an early spill would write them again and again.

import CdStore

extension ChangeApplier {
    // MARK: - Validation

    /// Validation failures of updated objects, plus denials. Inserted objects are validated as
    /// they are written (`write`), so a bulk insert stages each record once.
    func validationErrors() throws -> [CdError] {
        var errors = denialErrors()
        for id in updated {
            guard let rec = try record(id) else { continue }
            try validate(id, rec, isNew: false, orDefer: &errors)
        }
        return errors
    }

    /// `validate`, or with `deferred` set (a streaming writer's batch), notes a failing object
    /// there instead of reporting it: the writer validates it again at its commit (keeps BW2).
    private func validate(_ id: ObjectID, _ rec: Record, isNew: Bool, orDefer errors: inout [CdError]) throws {
        guard deferred != nil else { return try validate(id, rec, isNew: isNew, into: &errors) }
        var mine: [CdError] = []
        try validate(id, rec, isNew: isNew, into: &mine)
        if !mine.isEmpty { deferred?.insert(id) }
    }

    /// Validation failures of the objects `ids` as the transaction holds them now (deleted or
    /// missing ones are skipped): a streaming writer's check at its commit (BW2).
    func validationErrors(ofStored ids: Set<ObjectID>) throws -> [CdError] {
        var errors: [CdError] = []
        for id in ids.sorted() {
            guard let rec = try record(id) else { continue }
            try validate(id, rec, isNew: false, into: &errors)
        }
        return errors
    }

    private func validate(_ id: ObjectID, _ rec: Record, isNew: Bool, into errors: inout [CdError]) throws {
        let entity = rec.entity
        // The object's description is only built for a failure.
        for (slot, attribute) in entity.attributes.enumerated() {
            if let e = attribute.validate(rec.values[slot], entityName: entity.name) {
                errors.append(e.withObjectID(id.description))
            }
        }
        for (i, r) in entity.toOnes.enumerated() where rec.toOne[i] == nil {
            if let e = r.validateCount(0, entityName: entity.name) { errors.append(e.withObjectID(id.description)) }
        }
        // A load writes to-manys after its objects: their counts are checked at its end (LD4).
        for r in entity.toManys where !loads && (!r.isOptional || r.minCount > 0 || r.maxCount != nil) {
            let count: Int
            if listDeltas[RelationshipKey(object: id, relationship: r.name)] != nil {
                count = try list(id, r, entity).count  // applies the delta (CA2)
            } else if let l = lists[RelationshipKey(object: id, relationship: r.name)] {
                count = l.count
            } else {
                count = isNew ? 0 : try stored.relatedCount(id, treeName: entity.toManyTrees[r.name]!)
            }
            if let e = r.validateCount(count, entityName: entity.name, objectID: id.description) { errors.append(e) }
        }
    }

    /// Throws the one error, or 1560 with all of them.
    func throwIfInvalid() throws {
        try Self.throwErrors(try validationErrors())
    }

    static func throwErrors(_ errors: [CdError]) throws {
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 {
            throw CdError.multipleValidationErrors(errors.sorted { $0.description < $1.description })
        }
    }

    // MARK: - Writing

    /// Writes the working set. `nextKeys` are the store's in-memory counters; the stored next key
    /// of each root becomes the largest of the stored one, the counter and the largest inserted
    /// key + 1. Returns what was applied and the next keys written.
    func write(nextKeys: [String: Int64]) throws -> (AppliedChanges, [String: Int64]) {
        // U4: without inserts every tree is changed in one pass in key order (U2).
        guard staged.inserted.isEmpty, let tx = stored.tx as? WriteTransaction else {
            return try writeWorkingSet(nextKeys: nextKeys)
        }
        return try tx.withSequentialWrites { try writeWorkingSet(nextKeys: nextKeys) }
    }

    private func writeWorkingSet(nextKeys: [String: Int64]) throws -> (AppliedChanges, [String: Int64]) {
        // Keeps U3: the updates as given were applied to `records` in phase 1.
        staged.updated = []
        staged.updatedIndex = [:]
        // 1–2. Deleted objects and the changed index entries of updated objects: the entries are
        // collected per tree and removed in key order (keeps U2).
        // The deleted objects' index entries were noted in phase 3, and their records removed
        // from the record trees there (D2, D3).
        var removals = deletedEntries.takeIndexEntries()
        // New entries of updated objects, per index tree (U3: positions, not copies of records).
        var added: [String: [AddedIndexEntry]] = [:]
        for id in deleted.sorted() {
            guard let entity = entityLayout(of: id) else { continue }
            for r in entity.toManys {
                let tree = entity.toManyTrees[r.name]!
                let lower = RecordCodec.key(id.primaryKey)
                try stored.writableTree(tree).scan(from: lower, upTo: IndexKey.successor(lower)) { k, _ in
                    removals[tree, default: []].append(k)
                    return true
                }
            }
        }
        // 1. Changed index entries of updated objects. Only the current records are kept for
        // step 3 (U3): the original is needed here, for the entries it had.
        var updatedRecords: [(ObjectID, Record)] = []
        updatedRecords.reserveCapacity(updated.count)
        for id in updated.sorted() {
            guard let current = records[id], let original = originals[id] ?? nil,
                current.values != original.values || current.toOne != original.toOne
            else { continue }
            let position = updatedRecords.count
            updatedRecords.append((id, current))
            for (i, index) in current.entity.indexes.enumerated() {
                let old = IndexKey.key(index, original, primaryKey: id.primaryKey)
                let new = IndexKey.key(index, current, primaryKey: id.primaryKey)
                if old != new {
                    removals[index.definition.tree, default: []].append(old)
                    added[index.definition.tree, default: []].append(
                        AddedIndexEntry(record: position, index: i, key: new))
                }
            }
        }
        for tree in removals.keys.sorted() {
            let t = try stored.writableTree(tree)
            for key in removals[tree]!.sorted(by: Self.precedes) { try t.delete(key) }
        }
        // 3. Records (in ID order: each entity's records by primary key) and new entries, per
        // index in key order (keeps U2).
        for (id, current) in updatedRecords {
            try stored.writableTree(current.entity.recordTree).put(
                RecordCodec.key(id.primaryKey), RecordCodec.encode(current, layout: layout))
        }
        for tree in added.keys.sorted() {
            added[tree]!.sort { Self.precedes($0.key, $1.key) }
            for entry in added[tree]! {
                let (id, rec) = updatedRecords[entry.record]
                try addIndexEntry(entry.key, rec.entity.indexes[entry.index], id, rec)
            }
        }
        updatedRecords = []
        added = [:]
        var result = AppliedChanges()
        result.goneMeanwhile = dropped  // CA6
        result.inserted.reserveCapacity(staged.inserted.count)  // one allocation, no rehash as it grows
        var largest: [String: Int64] = [:]
        // In key order: the record trees then grow at their right edge.
        // Inserted objects are validated here; after the first failure nothing more is written
        // (the transaction is aborted) but validation goes on, so every failure is reported, and
        // validation failures take precedence over a uniqueness violation.
        var errors: [CdError] = []
        var violation: CdError?
        for index in staged.insertedOrder {
            let object = staged.inserted[index]
            let id = object.id, entity = object.entity
            if isDeleting(id) { continue }
            let rec = records[id] ?? Self.staged(object, toOnes: entity.toOnes.count)
            try validate(id, rec, isNew: true, orDefer: &errors)
            guard errors.isEmpty, violation == nil else { continue }
            try stored.writableTree(entity.recordTree).put(
                RecordCodec.key(id.primaryKey), RecordCodec.encode(rec, layout: layout))
            do {
                for index in entity.indexes {
                    try addIndexEntry(IndexKey.key(index, rec, primaryKey: id.primaryKey), index, id, rec)
                }
            } catch let e as CdError {
                guard case .constraintViolation = e else { throw e }
                violation = e
            }
            if id.primaryKey > largest[entity.root, default: 0] { largest[entity.root] = id.primaryKey }
            result.inserted.insert(id)
        }
        try Self.throwErrors(errors)
        if let violation { throw violation }
        // 4. To-many lists.
        for (key, list) in lists where !isDeleting(key.object) {
            let original = listOriginals[key] ?? []
            guard list != original, let entity = entityLayout(of: key.object),
                let r = entity.relationships[key.relationship]
            else { continue }
            try writeList(key.object, r, entity, old: original, new: list)
        }
        // Lists never read: their added and removed members only (CA2).
        for (key, delta) in listDeltas where !isDeleting(key.object) {
            guard let entity = entityLayout(of: key.object), let tree = entity.toManyTrees[key.relationship] else {
                continue
            }
            let t = try stored.writableTree(tree)
            let source = RecordCodec.key(key.object.primaryKey)
            // In key order (keeps U2).
            for m in delta.removed.sorted(by: { $0.primaryKey < $1.primaryKey }) {
                try t.delete(source + RecordCodec.key(m.primaryKey))
            }
            for m in delta.added.sorted(by: { $0.primaryKey < $1.primaryKey }) {
                var v: [UInt8] = []
                v.appendVarint(UInt64(entityLayout(of: m)!.code))
                try t.put(source + RecordCodec.key(m.primaryKey), v)
            }
        }
        // 5. Next keys (the stored ones as `ObjectStore` knows them, OS4, else read).
        var written: [String: Int64] = [:]
        for root in Set(largest.keys).union(nextKeys.keys) {
            let storedNext = try nextKey(root)
            let needed = max(storedNext, nextKeys[root] ?? 1, (largest[root] ?? 0) + 1)
            if needed != storedNext {
                var v: [UInt8] = []
                v.appendLE(UInt64(bitPattern: needed))
                try stored.writableTree(StoreLayout.metaTree).put(StoreLayout.nextKeyKey(root: root), v)
                storedNextKeys[root] = needed
            }
            if let top = largest[root], let bound = usedKeyBounds[root], top >= bound { usedKeyBounds[root] = top + 1 }
            written[root] = needed
        }
        result.updated = updated.subtracting(result.inserted)
        result.deleted = deleted
        return (result, written)
    }

    /// Puts an index entry; for a unique index first checks that no other object holds the same
    /// non-nil column values (U1).
    private func addIndexEntry(_ key: [UInt8], _ index: IndexLayout, _ id: ObjectID, _ rec: Record) throws {
        let tree = try stored.writableTree(index.definition.tree)
        if index.definition.isUnique, !IndexKey.hasNilColumn(index, rec) {
            let prefix = Array(key.dropLast(8))
            var conflict: ObjectID?
            try tree.scan(from: prefix, upTo: IndexKey.successor(prefix)) { k, _ in
                guard k.count == key.count, let pk = IndexKey.primaryKey(ofEntry: k) else {
                    throw self.stored.corruption(
                        tree, "index entry \(k) does not end in a primary key after the columns")
                }
                guard pk != id.primaryKey else { return true }
                if let other = try self.currentRecord(primaryKey: pk, recordTree: rec.entity.recordTree),
                    Self.sameColumns(index, rec, other.1)
                {
                    conflict = other.0
                    return false
                }
                return true
            }
            if let conflict {
                let d = index.definition
                let values = d.properties.map { p in rec.value(of: p).map(Self.describe) ?? "nil" }.joined(
                    separator: ", ")
                throw CdError.constraintViolation(
                    ValidationFailure(
                        entity: rec.entity.name, objectID: id.description, key: d.properties.joined(separator: ","),
                        message:
                            "uniqueness constraint (\(d.properties.joined(separator: ", "))) of \(d.entity) "
                            + "violated: \(values) is also held by \(conflict)"
                    ))
            }
        }
        try tree.put(key, [])
    }

    /// The object at `primaryKey` of a hierarchy, as this change set leaves it.
    private func currentRecord(primaryKey: Int64, recordTree: String) throws -> (ObjectID, Record)? {
        guard let t = try stored.tree(recordTree), let bytes = try t.get(RecordCodec.key(primaryKey)) else {
            return nil
        }
        let rec = try stored.decode(bytes, tree: t, primaryKey: primaryKey)
        let id = rec.entity.objectID(primaryKey)
        return (id, records[id] ?? rec)
    }

    static func sameColumns(_ index: IndexLayout, _ a: Record, _ b: Record) -> Bool {
        for c in index.columns {
            guard let pa = a.value(of: c.property), let pb = b.value(of: c.property), pa == pb else { return false }
        }
        return true
    }

    static func describe(_ v: PropertyValue) -> String {
        switch v {
        case let .attribute(x): return x.description
        case let .toOne(x): return x?.description ?? "nil"
        case let .toMany(x): return x.description
        }
    }

    private func writeList(
        _ id: ObjectID, _ r: RelationshipDescription, _ entity: EntityLayout, old: [ObjectID], new: [ObjectID]
    ) throws {
        let t = try stored.writableTree(entity.toManyTrees[r.name]!)
        let source = RecordCodec.key(id.primaryKey)
        if r.isOrdered {
            for i in new.count..<max(new.count, old.count) { try t.delete(source + Self.position(i)) }
            for (i, target) in new.enumerated() where i >= old.count || old[i] != target {
                var v: [UInt8] = []
                v.appendVarint(UInt64(entityLayout(of: target)!.code))
                v.appendVarint(UInt64(bitPattern: target.primaryKey))
                try t.put(source + Self.position(i), v)
            }
        } else {
            let oldSet = Set(old), newSet = Set(new)
            for o in old where !newSet.contains(o) { try t.delete(source + RecordCodec.key(o.primaryKey)) }
            for n in new where !oldSet.contains(n) {
                var v: [UInt8] = []
                v.appendVarint(UInt64(entityLayout(of: n)!.code))
                try t.put(source + RecordCodec.key(n.primaryKey), v)
            }
        }
    }

    /// A new index entry of an updated object: its position in the write phase's list of
    /// updated records, the index's position in its entity's `indexes`, and the entry's key
    /// (24 bytes, where a copy of the record and the index's layout took ~75).
    struct AddedIndexEntry {
        var record: Int
        var index: Int
        var key: [UInt8]
    }

    /// Byte order of tree keys (the engine's key order).
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    static func position(_ i: Int) -> [UInt8] {
        var p: [UInt8] = []
        p.appendBE(UInt32(i))
        return p
    }
}
