// Turns one page of a pull into one batch of the pull's local writer (PullSession.swift): the
// pulled objects' current states mapped to local objects, with the identity map entries of the
// objects it creates as side writes of the same batch (RS3 of ReplicaState.swift). A page of the
// attribute pass creates, updates and deletes objects; a page of the reference pass sets their
// relationships, once every object of the pull exists locally (PG4 of SyncEngine+Pull.swift).
//
// Invariants:
//  PA1. A pull is applied only when every local transaction not the engine's own is pushed
//       (the push queue is empty); otherwise its state would overwrite unpushed edits. The check
//       runs in the pull's writer, which no local commit can pass until the pull commits (PG6).
//  PA2. Only properties whose value differs from the local one are written: applying a state
//       the store already holds changes nothing, so a pull read again after a failure applies
//       nothing twice.
//  PA3. A reference to an object this replica does not hold once the attribute pass is done
//       (deleted, or of an entity it does not sync) is dropped, as every replica drops it: a
//       to-one becomes nil, a list loses it.
//  PA4. Entities and properties this model does not know are skipped and their objects kept on
//       the server: a replica on a newer model pulls from its cursor with those intact there,
//       and this replica, once its schema knows them, reads them again (VR2 of
//       SyncedSchemaRecord.swift).
//  PA5. A pulled object is the local object that the identity map names for its global ID only
//       when that object's own entry names the ID back (RS3); and a pulled object of a
//       uniqueness-derived ID (GI2) that no local object is mapped to, but whose unique values a
//       live local object holds, is that object: its map entries are written and it is updated,
//       not created again. This is what a rename whose acknowledgement was lost leaves (IR3: the
//       server applied it, the replica adopted its position without the rename's map writes): the
//       renamed object, still mapped to its old ID, takes the new one, and the old ID's tombstone,
//       whose entry no longer agrees, deletes nothing. Before, the new ID was created as a second
//       object with the same unique values, and the pull was refused for ever when the old ID's
//       delete fell in a later page.

import CdObjects
import Foundation

struct PullApplier: Sendable {
    let store: ObjectStore
    let schema: SyncSchema

    /// Whether local transactions other than the engine's own wait to be pushed (PA1).
    func hasPendingLocalTransactions(_ snapshot: ObjectSnapshot, state: ReplicaState) throws -> Bool {
        // The writer holds the store's writer (PG6): its last committed token is the snapshot's.
        guard let last = try store.lastHistoryToken(), last.number > (state.pushed?.number ?? 0) else { return false }
        let pending = try snapshot.history(
            after: state.pushed.map { CdHistoryToken(storeID: last.storeID, number: $0.number) })
        return pending.contains { $0.author != PushCollector.author }
    }

    /// The attribute pass's batch for `page`: creates the live objects this replica lacks (with
    /// their identity map entries), writes the attributes that differ (PA2) and deletes what the
    /// server deleted. Observes every stamp in `clock`.
    func attributes(of page: [PulledObject], snapshot: ObjectSnapshot, clock: inout HybridClock) throws -> ChangeSet {
        var changes = ChangeSet()
        changes.author = PushCollector.author
        var adopted: [ObjectID: UUID] = [:]  // PA5, within this page
        for o in page {
            for p in o.properties.values { clock.observe(p.hlc) }
            let mapped = try local(o.gid, snapshot, adopted: adopted)
            let live = try mapped.map { try snapshot.exists($0) } ?? false
            if o.deleted {
                if let mapped, live { changes.deleted.insert(mapped) }
                continue
            }
            guard let entity = schema.entities[o.entity], store.model.entity(named: o.entity)?.isAbstract == false
            else {
                continue  // PA4
            }
            var values: [String: PropertyValue] = [:]
            for (name, p) in o.properties where entity.attributes.contains(name) {  // PA4: unknown skipped
                let wire = try WireValue(json: p.json, where: "\(o.entity) \(o.gid.uuidString).\(name)")
                guard case let .attribute(v) = wire else { continue }
                values[name] = .attribute(v)
            }
            guard let mapped, live else {
                if let holder = try holder(of: values, entity, snapshot), !changes.deleted.contains(holder),
                    adopted[holder] == nil
                {
                    adopted[holder] = o.gid  // PA5
                    changes.sideWrites += ReplicaState.map(o.gid, to: holder, root: entity.root)
                    let current = try snapshot.values(of: holder) ?? [:]
                    let differing = values.filter { current[$0.key] != $0.value }
                    if !differing.isEmpty { changes.updated[holder] = differing }
                    continue
                }
                let id = try store.newObjectIDs(entity: o.entity, count: 1)[0]
                changes.inserted[id] = values
                changes.sideWrites += ReplicaState.map(o.gid, to: id, root: entity.root)
                continue
            }
            guard let current = try snapshot.values(of: mapped) else { continue }
            let differing = values.filter { current[$0.key] != $0.value }  // PA2
            if !differing.isEmpty { changes.updated[mapped] = differing }
        }
        return changes
    }

    /// The reference pass's batch for `page`: the relationships of the live pulled objects, to
    /// local objects (PA3), where they differ (PA2).
    func references(of page: [PulledObject], snapshot: ObjectSnapshot, clock: inout HybridClock) throws -> ChangeSet {
        var changes = ChangeSet()
        changes.author = PushCollector.author
        func target(_ gid: UUID) throws -> ObjectID? {
            guard let id = try local(gid, snapshot), try snapshot.exists(id) else { return nil }
            return id  // PA3
        }
        for o in page where !o.deleted {
            for p in o.properties.values { clock.observe(p.hlc) }
            guard let entity = schema.entities[o.entity], let id = try local(o.gid, snapshot),
                let current = try snapshot.values(of: id)
            else {
                continue  // PA4, or an object the attribute pass could not create
            }
            var differing: [String: PropertyValue] = [:]
            for (name, p) in o.properties {
                guard let relationship = entity.relationships[name] else { continue }  // PA4
                let wire = try WireValue(json: p.json, where: "\(o.entity) \(o.gid.uuidString).\(name)")
                switch wire {
                case .attribute:
                    continue
                case let .toOne(g):
                    let value = PropertyValue.toOne(try g.flatMap(target))
                    if current[name] != value { differing[name] = value }
                case let .toMany(gs):
                    let list = try gs.compactMap(target)
                    let now = try snapshot.related(id, name)
                    if relationship.ordered ? now != list : Set(now) != Set(list) { differing[name] = .toMany(list) }
                }
            }
            if !differing.isEmpty { changes.updated[id] = differing }
        }
        return changes
    }

    /// The local object of `gid` when the identity map's two entries agree on it (PA5); objects
    /// this page adopted count with their new ID.
    private func local(_ gid: UUID, _ snapshot: ObjectSnapshot, adopted: [ObjectID: UUID] = [:]) throws -> ObjectID? {
        guard let id = try ReplicaState.local(gid, in: snapshot) else { return nil }
        if let g = adopted[id] { return g == gid ? id : nil }
        let root = schema.entities[id.entity]?.root ?? store.model.rootEntity(of: id.entity)?.name ?? id.entity
        return try ReplicaState.global(root: root, primaryKey: id.primaryKey, in: snapshot) == gid ? id : nil
    }

    /// The live local object of `entity` that holds the unique values in `values` (the entity's
    /// first uniqueness constraint, GI2), if any (PA5).
    private func holder(
        of values: [String: PropertyValue], _ entity: SyncSchema.Entity, _ snapshot: ObjectSnapshot
    ) throws -> ObjectID? {
        guard let unique = entity.uniqueness else { return nil }
        var predicate: CdPredicate?
        for name in unique {
            guard case let .attribute(v)? = values[name] else { return nil }
            let equal = CdPredicate.comparison(PredicateComparison(.key(name), .equal, .constant(v)))
            predicate = predicate.map { .and($0, equal) } ?? equal
        }
        var request = FetchRequest(entity: entity.name)
        request.predicate = predicate
        return try snapshot.fetchIDs(request).first
    }
}
