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
//       clock value: it fills the server without beating any edit made elsewhere. An object
//       with a global ID already (synced before) goes as its `state`, which never brings back
//       an object deleted on the server; one without (never synced) as an `insert`, a create.
//       The batch's `from` is still the acknowledged position, which the server holds: with none
//       (nil) the compare-and-set failed, and the reconciliation that followed read the pruned
//       history and failed (or, for a history started anew, called the replica forked).

import CdObjects
import Foundation

/// One collected batch, ready to send.
struct CollectedBatch: Sendable {
    var request: PushRequest
    /// Identity map entries and the clock, to write before sending (PC3).
    var prepare: [SideTreeWrite]
    /// The clock after the batch's stamps.
    var clock: HybridClock
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

    /// The next batch, or nil when nothing after the acknowledged position is left.
    func collect(_ snapshot: ObjectSnapshot, _ state: ReplicaState) throws -> CollectedBatch? {
        guard let historyID = store.historyID else {
            throw CdSyncError(.historyNotTracked, "the store keeps no persistent history (StoreOptions.history)")
        }
        var pushed = state.pushed
        if let p = pushed, p.historyID != historyID { pushed = nil }  // history started anew: PC4
        var transactions: [CdHistoryTransaction] = []
        if let p = pushed {
            do {
                transactions = try snapshot.history(after: CdHistoryToken(storeID: historyID, number: p.number))
            } catch let e as CdError where e.code == 134301 {
                pushed = nil  // PC4
            }
            if pushed != nil && transactions.isEmpty { return nil }
            if pushed != nil { transactions = Array(limit.firstBatch(of: transactions, schema: schema)) }  // PB1–PB3
        }
        var clock = state.clock
        var ops: [ObjectID: PushOp] = [:]
        var order: [ObjectID] = []
        var ids = IdentityResolver(snapshot: snapshot, schema: schema, replica: replica)
        let to: PushedPosition
        if pushed == nil {
            let all = try snapshot.history(after: nil)
            let last = all.last
            to = PushedPosition(
                historyID: historyID, number: last?.token.number ?? 0,
                stamp: last.map { Self.stamp($0.timestamp) } ?? 0, batches: (state.pushed?.batches ?? 0) + 1)
            for entity in schema.entities.values where store.model.entity(named: entity.name)?.isAbstract == false {
                var request = FetchRequest(entity: entity.name)
                request.includesSubentities = false
                for (id, _) in try snapshot.fetchObjects(request) {
                    order.append(id)
                    ops[id] = PushOp(gid: UUID(), entity: entity.name, kind: .insert, hlc: 1, properties: [])
                    for name in entity.synced {
                        ops[id]!.properties.append(.init(name: name, value: .toOne(nil), hlc: 1))
                    }
                }
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
                        let names = c.kind == .insert ? entity.synced : c.updatedProperties.intersection(entity.synced)
                        var byName = Dictionary(uniqueKeysWithValues: ops[id]!.properties.map { ($0.name, $0) })
                        for n in names { byName[n] = .init(name: n, value: .toOne(nil), hlc: hlc) }
                        ops[id]!.properties = byName.keys.sorted().map { byName[$0]! }
                    }
                }
            }
        }
        // Current values and global IDs (PC1, PC3).
        var result: [PushOp] = []
        for id in order {
            guard var op = ops[id] else { continue }
            let entity = schema.entities[op.entity]!
            if op.kind == .delete {
                op.gid = try ids.gid(of: id, values: nil)
                result.append(op)
                continue
            }
            guard let values = try snapshot.values(of: id) else { continue }  // deleted later: its delete follows
            if pushed == nil, try ids.isMapped(id) { op.kind = .state }  // PC4
            op.gid = try ids.gid(of: id, values: values)
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
            scope: scope, replica: replica, from: state.pushed, to: to, ops: result, seen: state.cursor?.sequence ?? 0,
            modelVersion: modelVersion, policies: policies)
        return CollectedBatch(request: request, prepare: prepare, clock: clock)
    }

    /// A transaction's timestamp in microseconds: the fingerprint of a pushed position.
    static func stamp(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }
}

/// Global IDs of local objects within one snapshot: the identity map's, else derived (GI1, GI2),
/// remembering the new map entries (PC3).
struct IdentityResolver {
    let snapshot: ObjectSnapshot
    let schema: SyncSchema
    let replica: UUID
    var known: [ObjectID: UUID] = [:]
    var newMappings: [SideTreeWrite] = []

    init(snapshot: ObjectSnapshot, schema: SyncSchema, replica: UUID) {
        self.snapshot = snapshot
        self.schema = schema
        self.replica = replica
    }

    /// Whether `id` had a global ID in the identity map before this batch (it was synced).
    func isMapped(_ id: ObjectID) throws -> Bool {
        let root = schema.entities[id.entity]?.root ?? id.entity
        return try ReplicaState.global(root: root, primaryKey: id.primaryKey, in: snapshot) != nil
    }

    /// The global ID of `id`; `values` (its stored values) when the caller has them.
    mutating func gid(of id: ObjectID, values: [String: PropertyValue]?) throws -> UUID {
        if let g = known[id] { return g }
        let entity = schema.entities[id.entity]
        let root = entity?.root ?? id.entity
        if let g = try ReplicaState.global(root: root, primaryKey: id.primaryKey, in: snapshot) {
            known[id] = g
            return g
        }
        var gid = GlobalID.created(replica: replica, root: root, primaryKey: id.primaryKey)
        if let unique = entity?.uniqueness, let values = try values ?? snapshot.values(of: id) {
            let parts = unique.map { name -> String in
                if case let .attribute(v)? = values[name] { return WireValue.attribute(v).json }
                return "{}"
            }
            gid = GlobalID.unique(root: root, values: parts)
        }
        known[id] = gid
        if try snapshot.exists(id) { newMappings += ReplicaState.map(gid, to: id, root: root) }
        return gid
    }
}
