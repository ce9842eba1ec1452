// Turns one pull into one local change set: the pulled objects' current states, mapped to local
// objects, with the new cursor, the clock and the identity map entries as side writes in the
// same commit (RS2 of ReplicaState.swift).
//
// Invariants:
//  PA1. A pull is applied only when every local transaction not the engine's own is pushed
//       (the push queue is empty); otherwise its state would overwrite unpushed edits.
//  PA2. Only properties whose value differs from the local one are written, and each write
//       carries the value the pull read (`ChangeSet.read`) under the store-trump merge policy: a
//       local commit that lands between the pull's snapshot and its commit keeps its edits (the
//       next push sends them, stamped newer than anything pulled, HC1).
//  PA3. A reference to an object this replica does not hold (deleted, or of an entity it does
//       not sync) is dropped, as every replica drops it: a to-one becomes nil, a list loses it.
//  PA4. Entities and properties this model does not know are skipped and their objects kept on
//       the server: a replica on a newer model pulls from its cursor with those intact there.

import CdObjects
import Foundation

struct PullApplier: Sendable {
    let store: ObjectStore
    let schema: SyncSchema

    enum Outcome: Sendable {
        /// The change set to commit (objects and side writes), and how many objects it touches.
        case changes(ChangeSet, objects: Int)
        /// Local transactions are pending: push first (PA1).
        case pushFirst
    }

    func changes(for pull: PullResult, snapshot: ObjectSnapshot, state: ReplicaState, force: Bool) throws -> Outcome {
        if !force, let last = try store.lastHistoryToken(), last.number > (state.pushed?.number ?? 0) {
            let pending = try snapshot.history(
                after: state.pushed.map { CdHistoryToken(storeID: last.storeID, number: $0.number) })
            if pending.contains(where: { $0.author != PushCollector.author }) { return .pushFirst }  // PA1
        }
        var changes = ChangeSet()
        changes.author = PushCollector.author
        changes.mergePolicy = .mergeByPropertyStoreTrump  // PA2
        var clock = state.clock
        // Local IDs: mapped ones, and new ones for objects this replica has not seen.
        var local: [UUID: ObjectID] = [:]
        var live: [UUID: Bool] = [:]
        for o in pull.objects {
            if let id = try ReplicaState.local(o.gid, in: snapshot) {
                local[o.gid] = id
                live[o.gid] = try snapshot.exists(id)
            }
        }
        var fresh: [UUID] = []
        for o in pull.objects where !o.deleted && live[o.gid] != true {
            guard let entity = schema.entities[o.entity], store.model.entity(named: o.entity)?.isAbstract == false
            else {
                continue  // PA4
            }
            let id = try store.newObjectIDs(entity: o.entity, count: 1)[0]
            local[o.gid] = id
            fresh.append(o.gid)
            changes.sideWrites += ReplicaState.map(o.gid, to: id, root: entity.root)
        }
        let freshSet = Set(fresh)
        func target(_ gid: UUID) throws -> ObjectID? {
            guard let id = local[gid] else {
                guard let id = try ReplicaState.local(gid, in: snapshot), try snapshot.exists(id) else { return nil }
                return id  // PA3
            }
            if freshSet.contains(gid) || live[gid] == true { return id }
            return try snapshot.exists(id) ? id : nil
        }
        var touched = 0
        let deletedGIDs = Set(pull.objects.filter(\.deleted).map(\.gid))
        for o in pull.objects {
            for p in o.properties.values { clock.observe(p.hlc) }
            if o.deleted {
                if let id = local[o.gid], live[o.gid] == true {
                    changes.deleted.insert(id)
                    touched += 1
                }
                continue
            }
            guard let entity = schema.entities[o.entity], let id = local[o.gid] else { continue }  // PA4
            var values: [String: PropertyValue] = [:]
            for (name, p) in o.properties where entity.synced.contains(name) {  // PA4: unknown skipped
                let wire = try WireValue(json: p.json, where: "\(o.entity) \(o.gid.uuidString).\(name)")
                switch wire {
                case let .attribute(v):
                    values[name] = .attribute(v)
                case let .toOne(g):
                    let t = try g.flatMap { deletedGIDs.contains($0) ? nil : try target($0) }
                    values[name] = .toOne(t)
                case let .toMany(gs):
                    values[name] = .toMany(try gs.compactMap { deletedGIDs.contains($0) ? nil : try target($0) })
                }
            }
            if freshSet.contains(o.gid) {
                changes.inserted[id] = values
                touched += 1
                continue
            }
            // PA2: only what differs, with what was read.
            guard let current = try snapshot.values(of: id) else { continue }
            var differing: [String: PropertyValue] = [:]
            var read: [String: CdValue] = [:]
            for (name, v) in values {
                if case let .toMany(list) = v {
                    let now = try snapshot.related(id, name)
                    let ordered = entity.relationships[name]?.ordered ?? false
                    if ordered ? now != list : Set(now) != Set(list) { differing[name] = v }
                    continue
                }
                if current[name] != v {
                    differing[name] = v
                    if case let .attribute(old)? = current[name] { read[name] = old }
                }
            }
            if !differing.isEmpty {
                changes.updated[id] = differing
                if !read.isEmpty { changes.read[id] = read }
                touched += 1
            }
        }
        changes.sideWrites.append(ReplicaState.write(PullCursor(sequence: pull.sequence, epoch: pull.epoch)))
        changes.sideWrites.append(ReplicaState.write(clock))
        return .changes(changes, objects: touched)
    }
}
