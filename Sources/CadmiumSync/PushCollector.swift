// Builds one push from a snapshot of the local store: the history after the acknowledged
// position, coalesced per object and property, with each property's current value read in the
// same snapshot (so the batch is exactly the state after its last transaction).
//
// Invariants:
//  PC1. The batch's `to` is its last history transaction, a boundary past which none of its
//       objects changes (PB2 of PushBatchSplit.swift): the values read in the snapshot are, for
//       its objects, the state after it, and every transaction up to it is covered, so each
//       local commit is in exactly one acknowledged batch.
//  PC2. The engine's own (pulled) transactions contribute deletes only: the objects a pulled
//       delete cascaded to, which the server must learn of; a delete the server has already is a
//       no-op there (PU2).
//  PC3. A batch's inserts get their global IDs (GI1, GI2) written to the identity map in a local
//       commit before the batch is sent, so a crash after the server's commit finds them.
//  PC4. With no acknowledged position (a store that starts syncing, or whose history no longer
//       reaches back to it) the batch is every synced object's state, stamped with the lowest
//       clock value: it fills the server without beating any edit made elsewhere (but the
//       replica's own edits since its last pull, PC6). An object
//       with a global ID already (synced before) goes as its `state`, which never brings back
//       an object deleted on the server; one without (never synced) as an `insert`, a create.
//       The batch's `from` is still the acknowledged position, which the server holds: with none
//       (nil) the compare-and-set failed, and the reconciliation that followed read the pruned
//       history and failed (or, for a history started anew, called the replica forked).
//  PC5. A batch sends its deletes before its other operations, whose order is kept: an object
//       deleted by the batch ends deleted locally, so when another object of the batch ends
//       under the same global ID (a tag deleted and made again, or renamed to the name a deleted
//       tag had, GI4) the server must see the delete first (PR4 decides in the batch's order).
//  PC6. The state carries what the replica changed and had not pushed when its history stopped
//       reaching its position (a store migration starts history anew, MG11, or history pruned):
//       each property its last pull applied (the schema record, VR1) is marked `pulled`, so that
//       a value differing from one the replica had seen is taken as its edit (PR9); and every
//       object of the identity map that the store no longer holds goes as a delete (a tombstone
//       the server has already ignores it). Before, such edits lost to the server's values and
//       such deletes were never sent: the object stayed live everywhere else.
//  PC7. A whole state (PC4) sends a rename (GI4) like any batch: a synced object of a
//       uniqueness-derived entity whose unique values no longer derive its mapped ID goes as the
//       old ID's delete and the new ID's create. Its history, which would have named the rename,
//       no longer reaches back; before, the object went as a state of its old ID with the new
//       values, and a replica that created the new name had the same name under two IDs.

import CdObjects
import Foundation

/// One collected batch, ready to send.
struct CollectedBatch: Sendable {
    var request: PushRequest
    /// Identity map entries and the clock, to write before sending (PC3).
    var prepare: [SideTreeWrite]
    /// The clock after the batch's stamps.
    var clock: HybridClock
    /// The batches of the backlog left after this one (PB5), for the next push once this one is
    /// acknowledged (PP1 of PushPlan.swift).
    var rest: PushPlan?
    /// How many history transactions collecting the batch read (PB5).
    var historyRead: Int
    /// Identity map writes to make with the acknowledgement (renames, IR3 of
    /// IdentityResolver.swift).
    var acknowledge: [SideTreeWrite] = []
}

struct PushCollector: Sendable {
    static let author = "cadmium.sync"

    let store: ObjectStore
    let schema: SyncSchema
    let scope: String
    let replica: UUID
    let policies: [String: CdSyncConflictPolicy]
    let modelVersion: Int
    /// How large one batch may grow (PB3).
    let limit: PushBatchLimit
    /// Added to the wall clock for the hybrid clock's physical part (fault injection: a skewed
    /// clock).
    let clockOffset: TimeInterval

    /// The next batch, or nil when nothing after the acknowledged position is left; taken from
    /// `plan` when it still holds (PP2, PP3 of PushPlan.swift), else from the history read again.
    func collect(_ snapshot: ObjectSnapshot, _ state: ReplicaState, plan: PushPlan? = nil) throws -> CollectedBatch? {
        guard let historyID = store.historyID else {
            throw CdSyncError(.historyNotTracked, "the store keeps no persistent history (StoreOptions.history)")
        }
        var pushed = state.pushed
        if let p = pushed, p.historyID != historyID { pushed = nil }  // history started anew: PC4
        var transactions: ArraySlice<CdHistoryTransaction> = []
        var rest: PushPlan?
        var historyRead = 0
        if let p = pushed {
            if let plan, let next = try plan.next(snapshot, pushed: p, schema: schema) {
                transactions = next.transactions  // PB5
                rest = plan.advanced()
            } else {
                do {
                    let pending = try snapshot.history(after: CdHistoryToken(storeID: historyID, number: p.number))
                    historyRead += pending.count
                    if pending.isEmpty { return nil }
                    let fresh = PushPlan(
                        historyID: historyID, after: p.number, pending: pending, limit: limit, schema: schema)
                    transactions = fresh.batches.first!.transactions  // PB1–PB3
                    rest = fresh.advanced()
                } catch let e as CdError where e.code == 134301 {
                    pushed = nil  // PC4
                }
            }
        }
        var clock = state.clock
        var ops: [ObjectID: PushOp] = [:]
        var order: [ObjectID] = []
        var uniqueTouched = Set<ObjectID>()  // objects whose unique values an update changed (GI4)
        var ids = IdentityResolver(snapshot: snapshot, schema: schema, replica: replica)
        let to: PushedPosition
        if pushed == nil {
            let all = try snapshot.history(after: nil)
            historyRead += all.count
            let last = all.last
            to = PushedPosition(
                historyID: historyID, number: last?.token.number ?? 0,
                stamp: last.map { Self.stamp($0.timestamp) } ?? 0, batches: (state.pushed?.batches ?? 0) + 1)
            let record = state.schemaRecord ?? []  // PC6: what the last pull applied
            for entity in schema.entities.values where store.model.entity(named: entity.name)?.isAbstract == false {
                var request = FetchRequest(entity: entity.name)
                request.includesSubentities = false
                for (id, _) in try snapshot.fetchObjects(request) {
                    order.append(id)
                    ops[id] = PushOp(gid: UUID(), entity: entity.name, kind: .insert, hlc: 1, properties: [])
                    for name in entity.synced {
                        ops[id]!.properties.append(
                            .init(
                                name: name, value: .toOne(nil), hlc: 1,
                                pulled: record.contains("\(entity.name).\(name)")))
                    }
                }
            }
            // PC6: a synced object the replica no longer holds was deleted, by it or by a pull.
            for (id, _) in try SyncIdentity.globalIDs(snapshot) where schema.entities[id.entity] != nil {
                guard ops[id] == nil, try !snapshot.exists(id) else { continue }
                order.append(id)
                ops[id] = PushOp(gid: UUID(), entity: id.entity, kind: .delete, hlc: 1, properties: [])
            }
        } else {
            let last = transactions.last!
            to = PushedPosition(
                historyID: historyID, number: last.token.number, stamp: Self.stamp(last.timestamp),
                batches: pushed!.batches + 1)
            for t in transactions {
                let ours = t.author == Self.author
                let hlc = ours ? 0 : clock.next(at: t.timestamp.addingTimeInterval(clockOffset))
                for c in t.changes {
                    guard let entity = schema.entities[c.objectID.entity] else { continue }
                    let id = c.objectID
                    switch c.kind {
                    case .delete:
                        if ops[id]?.kind == .insert {
                            ops[id] = nil  // created and deleted within the batch: never seen elsewhere
                            continue
                        }
                        if ops[id] == nil { order.append(id) }
                        ops[id] = PushOp(
                            gid: UUID(), entity: entity.name, kind: .delete, hlc: ours ? 1 : hlc, properties: [])
                    case .insert, .update:
                        if ours { continue }  // PC2
                        if ops[id] == nil {
                            order.append(id)
                            ops[id] = PushOp(
                                gid: UUID(), entity: entity.name, kind: c.kind == .insert ? .insert : .update, hlc: hlc,
                                properties: [])
                        }
                        ops[id]!.hlc = hlc
                        if c.kind == .update, let unique = entity.uniqueness,
                            !c.updatedProperties.isDisjoint(with: unique)
                        {
                            uniqueTouched.insert(id)
                        }
                        let names = c.kind == .insert ? entity.synced : c.updatedProperties.intersection(entity.synced)
                        var byName = Dictionary(uniqueKeysWithValues: ops[id]!.properties.map { ($0.name, $0) })
                        for n in names { byName[n] = .init(name: n, value: .toOne(nil), hlc: hlc) }
                        ops[id]!.properties = byName.keys.sorted().map { byName[$0]! }
                    }
                }
            }
        }
        // Renames first, so that every reference of the batch names a renamed object's new ID
        // (GI4; IR2 of IdentityResolver.swift).
        // A whole state names no edits, so any mapped object of such an entity may be renamed (PC7).
        var renames: [ObjectID: UUID] = [:]
        for id in order {
            guard let op = ops[id] else { continue }
            let candidate =
                pushed == nil
                ? op.kind == .insert && schema.entities[op.entity]?.uniqueness != nil
                : op.kind == .update && uniqueTouched.contains(id)
            if candidate, let values = try snapshot.values(of: id), let old = try ids.rename(id, values: values) {
                renames[id] = old
            }
        }
        // Current values and global IDs (PC1, PC3). Deletes go first (PC5).
        var deletes: [PushOp] = []
        var result: [PushOp] = []
        for id in order {
            guard var op = ops[id] else { continue }
            let entity = schema.entities[op.entity]!
            if op.kind == .delete {
                op.gid = try ids.gid(of: id, values: nil)
                deletes.append(op)
                continue
            }
            guard let values = try snapshot.values(of: id) else { continue }  // deleted later: its delete follows
            if pushed == nil, try ids.isMapped(id) { op.kind = .state }  // PC4
            op.gid = try ids.gid(of: id, values: values)
            if let old = renames[id] {
                // GI4: the old ID is deleted and the object created under its new one, whole.
                deletes.append(PushOp(gid: old, entity: op.entity, kind: .delete, hlc: op.hlc, properties: []))
                let sent = Dictionary(uniqueKeysWithValues: op.properties.map { ($0.name, $0) })
                op.kind = .insert
                op.renamedFrom = old
                op.properties = entity.synced.sorted().map {
                    sent[$0] ?? .init(name: $0, value: .toOne(nil), hlc: op.hlc)  // PC6's marks kept
                }
            }
            for i in op.properties.indices {
                let name = op.properties[i].name
                if let rel = entity.relationships[name] {
                    if rel.toMany {
                        var targets = try snapshot.related(id, name).map { try ids.gid(of: $0, values: nil) }
                        if !rel.ordered { targets.sort { $0.uuidString < $1.uuidString } }
                        op.properties[i].value = .toMany(targets)
                    } else if case let .toOne(target)? = values[name] {
                        op.properties[i].value = .toOne(try target.map { try ids.gid(of: $0, values: nil) })
                    }
                } else if case let .attribute(v)? = values[name] {
                    op.properties[i].value = .attribute(v)
                }
            }
            result.append(op)
        }
        var prepare = ids.newMappings
        if clock != state.clock { prepare.append(ReplicaState.write(clock)) }
        let request = PushRequest(
            scope: scope, replica: replica, from: state.pushed, to: to, ops: deletes + result,
            seen: state.cursor?.sequence ?? 0,
            modelVersion: modelVersion, policies: policies)
        return CollectedBatch(
            request: request, prepare: prepare, clock: clock, rest: rest, historyRead: historyRead,
            acknowledge: ids.renameMappings)
    }

    /// A transaction's timestamp in microseconds: the fingerprint of a pushed position.
    static func stamp(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}
