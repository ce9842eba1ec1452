// Loading objects and links as they are, for a bulk import of another store's objects (the Core
// Data importer): each record is written once with its to-ones, and each to-many as relationship
// entries in key order, with no inverse maintenance. `apply` keeps inverses in step itself
// (CA3), which costs a record load and rewrite of the other side per link; an importer that
// already holds both sides of every link (a foreign key column, a join table) writes them
// directly instead.
//
// Invariants (the writer keeps LD1, LD2 and LD4; the caller keeps LD3):
//  LD1. `load(_:)` inserts as `apply` does — primary keys checked free, attributes and to-one
//       counts validated (at once: a failing batch throws and rolls back, BW1), index and
//       uniqueness entries written, next keys raised — but each given to-one is stored as the
//       record's value without touching its inverse. It takes inserts only, and no to-many
//       values (1550). A to-one target must be of the relationship's destination (1550); that it
//       exists is not checked.
//  LD2. `loadLinks(owner:relationship:members:startingAt:)` writes the owner's list of one
//       to-many, whole or in pieces (each piece its own call, in list order, possibly in
//       different transactions, so that a list of any length is written in bounded memory):
//       unordered, one entry per member keyed by its primary key; ordered, positions
//       `startingAt`, `startingAt + 1`, … in the given order, where `startingAt` is the number of
//       members the earlier pieces wrote (0 for the first or only piece). A member named twice
//       in one piece is written once (its first place); members are distinct across pieces (the
//       caller's: an ordered list would hold the member twice). Members must be of the
//       destination (1550); that the owner and the members exist, and that the owner had no
//       list before its first piece, is not checked.
//  LD3. The caller makes both sides of every link agree over the whole load: a loaded to-one
//       whose inverse is a to-many appears in the list it loads for the target, a one-to-one is
//       loaded from both sides, a many-to-many into both lists. A load is therefore only for a
//       store that nothing reads before the load ends and `ObjectStoreVerifier` (OV5) has
//       checked it, such as a new store renamed into place only then.
//  LD4. To-many counts (required, minimum, maximum) are not validated per batch (the lists come
//       after their owners): `toManyCountErrors` checks them over the whole store at the end.

import CdStore

extension ObjectStoreWriter {
    /// Inserts a batch of new objects with their attributes and to-ones, stored as given (LD1).
    ///
    /// ```swift
    /// try writer.load(ChangeSet(inserted: [employee: ["name": .attribute(.string("Ada")),
    ///                                                 "department": .toOne(department)]]))
    /// ```
    @discardableResult
    package func load(_ changes: ChangeSet) throws -> AppliedChanges {
        try write(loads: true) { stored in
            ChangeApplier(layout: store.layout, stored: stored, changes: changes, overlay: false)
        }
    }

    /// Writes `owner`'s list of the to-many `relationship` as `members`, or one piece of it
    /// (LD2): `startingAt` is the number of members earlier pieces of the list wrote, where an
    /// ordered list's positions continue.
    ///
    /// ```swift
    /// try writer.loadLinks(owner: department, relationship: "employees", members: [ada, grace])
    /// try writer.loadLinks(owner: department, relationship: "employees", members: [alan], startingAt: 2)
    /// ```
    package func loadLinks(
        owner: ObjectID, relationship name: String, members: [ObjectID], startingAt firstPosition: Int = 0
    ) throws {
        precondition(firstPosition >= 0, "a piece of a list starts at a position of 0 or more")
        let tx = try open()
        cachedSnapshot = nil
        do {
            let layout = store.layout
            let entity = try layout.entityOrThrow(of: owner)
            guard let r = entity.relationships[name], r.isToMany, let treeName = entity.toManyTrees[name] else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: owner.description, key: name,
                        message: "\(name) is not a stored to-many relationship of \(entity.name)"))
            }
            var seen = Set<ObjectID>()
            var list: [(ObjectID, Int)] = []
            list.reserveCapacity(members.count)
            for m in members where seen.insert(m).inserted {
                guard let target = layout.entity(of: m), layout.isKind(target.name, of: r.destination) else {
                    throw CdError.validation(
                        ValidationFailure(
                            entity: entity.name, objectID: owner.description, key: name,
                            message: "\(m) is not a \(r.destination)"))
                }
                list.append((m, target.code))
            }
            if !r.isOrdered { list.sort { $0.0.primaryKey < $1.0.primaryKey } }
            let tree = try StoredObjects(tx: tx, layout: layout).writableTree(treeName)
            let source = RecordCodec.key(owner.primaryKey)
            // In key order (U2 of ChangeApplier+Write.swift): the tree grows at one place.
            for (offset, (member, code)) in list.enumerated() {
                var value: [UInt8] = []
                value.appendVarint(UInt64(code))
                if r.isOrdered {
                    value.appendVarint(UInt64(bitPattern: member.primaryKey))
                    try tree.put(source + ChangeApplier.position(firstPosition + offset), value)
                } else {
                    try tree.put(source + RecordCodec.key(member.primaryKey), value)
                }
            }
        } catch {
            rollback()
            if let e = error as? StoreError { throw CdError.store(e) }
            throw error
        }
    }
}

extension ObjectStore {
    /// The to-many count failures (required, minimum, maximum) of the stored objects, at most
    /// `limit`: the validation a load leaves to its end (LD4). Reads every record of the
    /// hierarchies that declare such a count, in one read transaction.
    ///
    /// ```swift
    /// try ChangeApplier.throwErrors(try store.toManyCountErrors())
    /// ```
    package func toManyCountErrors(limit: Int = 20) throws -> [CdError] {
        func constrained(_ r: RelationshipDescription) -> Bool { !r.isOptional || r.minCount > 0 || r.maxCount != nil }
        let roots = Set(layout.byCode.filter { $0.toManys.contains(where: constrained) }.map(\.root))
        do {
            return try engine.read { tx in
                let stored = StoredObjects(tx: tx, layout: layout)
                var errors: [CdError] = []
                for root in roots.sorted() {
                    guard let t = try stored.tree(StoreLayout.recordTreeName(root: root)) else { continue }
                    try t.scan { key, value in
                        guard key.count == 8 else { throw stored.corruption(t, "record key \(key) is not 8 bytes") }
                        let pk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                        let record = try stored.decode(value, tree: t, primaryKey: pk)
                        let entity = record.entity
                        for r in entity.toManys where constrained(r) {
                            let count = try stored.relatedCount(
                                entity.objectID(pk), treeName: entity.toManyTrees[r.name]!)
                            if let e = r.validateCount(
                                count, entityName: entity.name, objectID: entity.objectID(pk).description)
                            {
                                errors.append(e)
                            }
                        }
                        return errors.count < limit
                    }
                    if errors.count >= limit { break }
                }
                return errors
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
    }
}

extension ChangeApplier {
    /// Phase 2 of a load batch (LD1): the given to-ones become the records' values as they are;
    /// nothing else is related.
    func relateLoaded() throws {
        guard staged.updated.isEmpty, deleting.isEmpty else {
            throw CdError.validation(
                ValidationFailure(
                    entity: "", key: "load", message: "a load inserts objects; it updates or deletes none"))
        }
        for (i, object) in staged.inserted.enumerated() {
            let entity = object.entity
            for (position, r) in entity.toManys.enumerated() where object.toMany(position) != nil {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: object.id.description, key: r.name,
                        message: "a load writes to-many \(r.name) with loadLinks, not with its objects"))
            }
            for (position, r) in entity.toOnes.enumerated() {
                guard case let .toOne(target?)? = object.toOne(position) else { continue }
                guard layout.isKind(target.entity, of: r.destination) else {
                    throw CdError.validation(
                        ValidationFailure(
                            entity: entity.name, objectID: object.id.description, key: r.name,
                            message: "\(target) is not a \(r.destination)"))
                }
            }
            staged.toOnesRelated[i] = entity.toOnes.count  // keeps SC3: every to-one is staged
        }
    }
}
