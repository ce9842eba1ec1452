// The conflict decisions of one push, made in memory from what the server holds (PU2 of
// ServerConnection+Push.swift), before anything is written.
//
// A stored property is concurrent with a pushed edit when another replica wrote it and the
// pushing replica had not pulled it (its change number is above the request's `seen`). Creates
// and deletes of one global ID meet when an entity derives IDs from unique values (GI2): a tag
// deleted on one replica and created, by name, on another.
//
// Invariants:
//  PR1. A create is new data, not an edit: an insert of an object the server holds as a
//       tombstone brings it back, whatever the stamps, with the insert's properties (every
//       synced one). When the creating replica had not pulled the delete (made by another
//       replica, numbered after `seen`), the delete lost: a `created` conflict, its replica the
//       loser.
//  PR2. A delete removes an object unless another replica created it in a change the deleting
//       replica had not pulled (numbered after `seen`): then the delete loses (a `created`
//       conflict, the deleting replica the loser) and the object stays. The server keeps the
//       object's last create and the last create by any other replica, which is enough to know
//       the newest create by a replica other than the deleting one. So a create and a delete
//       that neither had seen end the same whichever is pushed first: the object lives. A delete
//       that had pulled every other replica's create wins, and records nothing.
//  PR3. An insert of a live object (the same unique values created elsewhere) merges into it
//       property by property as an edit, and becomes the object's last create (PR2).
//  PR4. A batch's operations are decided in order, each against the state the earlier ones
//       left: a replica that deleted its tag and created another of the same name before
//       pushing (one batch) deletes the old object — its properties and the references to it
//       go — and creates the new one. Nothing a batch writes is concurrent with the batch.
//  PR5. An edit of a deleted object is dropped (a `deleted` conflict, the pushing replica the
//       loser), whatever the policy; so is the state a replica sends when it starts syncing
//       (`PushOp.Kind.state`, PC4), which is not a create.
//  PR6. Every object on which the pushing replica lost something takes the push's change
//       number (`renumbered`), so that the replica pulls the server's state of it again even
//       when its cursor is past the winning change: without this, a losing create stamped
//       below a tombstone it had pulled stayed on its replica alone, for ever.
//  PR7. A state (PC4) writes only the properties the server lacks, whatever the policy: under
//       newest edit wins its lowest stamp already lost to every stored one, but "last push wins"
//       let it overwrite them — a store migrated to a newer model (its history started anew,
//       MG11) sent its defaults for the new properties over the values newer replicas had set.
//  PR9. A state property marked `pulled` (PC6 of PushCollector.swift) whose value differs from
//       a stored one that the pushing replica had seen (its own, or numbered at or below
//       `seen`) is the replica's edit, made after it saw the stored one: it wins, whatever the
//       policy, stamped just above the stored stamp (causally after it). One concurrent with a
//       stored edit the replica had not seen loses to it (a `property` conflict, the replica the
//       loser), as PR7 has it. A property not marked (one the replica's model lacked when it
//       last pulled, such as a field a migration added) keeps PR7: it fills in only what the
//       server lacks.
//  PR8. Rows from before the server's migration 2 hold no create or delete record (NULL). A
//       create that brings back such a tombstone without having pulled it records its `created`
//       conflict with the nil UUID as the loser (`CdSyncConflict.unknownReplica`), as the delete's
//       replica is unknown (before, it recorded nothing); its change number still tells whether
//       the creator had pulled it. A live object from before holds no create, so a delete of it
//       wins as it did before migration 2 (PR2 cannot know of a create it does not record).

import Foundation

/// What the server holds of one object (a row of `cadmium_sync.objects`).
struct ServerObject: Sendable, Equatable {
    var deleted: Bool
    var deleteHLC: Int64?
    /// The change number of the object's last change (for a tombstone: its delete).
    var seq: Int64
    var deleteReplica: UUID?
    /// The replica and change number of the object's last create (PR2, PR3).
    var createdReplica: UUID?
    var createdSeq: Int64?
    /// The change number of the last create by a replica other than `createdReplica` (PR2).
    var otherCreatedSeq: Int64?

    /// The change number of the newest create of the object by a replica other than `replica`.
    func newestCreate(notBy replica: UUID) -> Int64? {
        createdReplica == replica ? otherCreatedSeq : createdSeq
    }

    /// Records a create by `replica` in change `seq` (PR3).
    mutating func recordCreate(by replica: UUID, seq: Int64) {
        if createdReplica != replica { otherCreatedSeq = createdSeq }
        createdReplica = replica
        createdSeq = seq
    }
}

struct PushResolution {
    struct Winner {
        var gid: UUID
        var name: String
        var json: String
        var hlc: Int64
    }

    let request: PushRequest
    /// The change number this push writes.
    let seq: Int64
    /// The objects as the batch's operations so far leave them (PR4).
    private(set) var objects: [UUID: ServerObject]
    private var stored: [UUID: [String: StoredProperty]]
    /// The objects as they were before the batch.
    let before: [UUID: ServerObject]
    /// Objects the server lacks, to insert (live).
    private(set) var newObjects: [(gid: UUID, entity: String)] = []
    /// Deletes the batch makes, in order: each drops its object's properties and the references
    /// to it (PU4), even when a later insert of the batch brings the object back (PR4).
    private(set) var deletes: [(gid: UUID, entity: String, hlc: Int64)] = []
    private var deletedHere: Set<UUID> = []
    /// Objects whose last create is this push's (PR1, PR3).
    private(set) var created: Set<UUID> = []
    /// The properties to write by object, and the objects in the order they first won.
    private var winnersByObject: [UUID: [String: Winner]] = [:]
    private var winnerOrder: [UUID] = []
    private(set) var conflicts: [CdSyncConflict] = []
    /// The losing change's stamp of each conflict, in `conflicts`' order.
    private(set) var conflictStamps: [Int64] = []
    /// Conflicts under the error policy: the batch is refused when any.
    private(set) var refusals: [CdSyncConflict] = []
    /// Objects on which the pushing replica lost something (PR6).
    private(set) var renumbered: Set<UUID> = []

    init(
        request: PushRequest, seq: Int64, objects: [UUID: ServerObject], stored: [UUID: [String: StoredProperty]]
    ) {
        self.request = request
        self.seq = seq
        self.objects = objects
        self.before = objects
        self.stored = stored
    }

    /// The properties to write, one per object and name (the batch's last decision for each).
    var winners: [Winner] {
        var listed = Set<UUID>()
        return winnerOrder.filter { listed.insert($0).inserted }.flatMap { gid in
            (winnersByObject[gid] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// Objects that end the batch live but were deleted before it or within it: their row is
    /// marked live again after the batch's deletes are written (PR1, PR4).
    var revived: [UUID] {
        objects.filter { gid, o in !o.deleted && (before[gid]?.deleted == true || deletedHere.contains(gid)) }
            .map(\.key).sorted { $0.uuidString < $1.uuidString }
    }

    /// Decides every operation of the request, in order (PR4).
    mutating func resolveAll() {
        for op in request.ops { resolve(op) }
    }

    private mutating func resolve(_ op: PushOp) {
        let me = request.replica
        switch op.kind {
        case .delete:
            guard let object = objects[op.gid] else {
                markDeleted(op)  // a tombstone for an object the server never had
                return
            }
            if object.deleted { return }
            if let at = object.newestCreate(notBy: me), at > request.seen {
                lose(op, property: nil, kind: .created, hlc: op.hlc, loser: me)  // PR2
                return
            }
            markDeleted(op)
        case .insert:
            if let object = objects[op.gid], object.deleted {
                // PR1: a create brings the object back, with nothing of the deleted one.
                // PR8: a tombstone from before migration 2 names no deleting replica.
                let deleter = object.deleteReplica ?? CdSyncConflict.unknownReplica
                if deleter != me, object.seq > request.seen {
                    lose(op, property: nil, kind: .created, hlc: object.deleteHLC ?? 0, loser: deleter)
                }
                objects[op.gid] = ServerObject(deleted: false, seq: seq)
                stored[op.gid] = [:]
            } else if objects[op.gid] == nil {
                newObjects.append((op.gid, op.entity))
                objects[op.gid] = ServerObject(deleted: false, seq: seq)
            }
            objects[op.gid]!.recordCreate(by: me, seq: seq)  // PR1, PR3
            created.insert(op.gid)
            merge(op)
        case .update, .state:
            if let object = objects[op.gid], object.deleted {
                lose(op, property: nil, kind: .deleted, hlc: op.hlc, loser: me)  // PR5
                return
            }
            if objects[op.gid] == nil {
                newObjects.append((op.gid, op.entity))
                objects[op.gid] = ServerObject(deleted: false, seq: seq)
            }
            merge(op)
        }
    }

    private mutating func markDeleted(_ op: PushOp) {
        // Once per object: the statement that writes the deletes may touch a row once only.
        if deletedHere.insert(op.gid).inserted { deletes.append((op.gid, op.entity, op.hlc)) }
        var object = objects[op.gid] ?? ServerObject(deleted: true, seq: seq)
        object.deleted = true
        object.deleteHLC = op.hlc
        object.deleteReplica = request.replica
        object.seq = seq
        objects[op.gid] = object
        stored[op.gid] = [:]
        created.remove(op.gid)
        winnersByObject[op.gid] = nil
    }

    /// Resolves the operation's properties against the stored ones by the entity's policy.
    private mutating func merge(_ op: PushOp) {
        let policy = request.policies[op.entity] ?? .newestEditWins
        for p in op.properties {
            let json = p.value.json
            guard let s = stored[op.gid]?[p.name] else {
                win(op.gid, p, json)
                continue
            }
            let concurrent = s.replica != request.replica && s.seq > request.seen && !Self.sameValue(s.json, json)
            let wins: Bool
            switch policy {
            case _ where op.kind == .state:
                // PR7: a state fills in only what the server lacks, but for the replica's own
                // edits of what it had pulled (PR9).
                wins = p.pulled && !concurrent && !Self.sameValue(s.json, json)
            case .newestEditWins:
                wins = (p.hlc, request.replica.uuidString) > (s.hlc, s.replica.uuidString)
            case .mergeByPropertyObjectTrump:
                wins = true
            case .mergeByPropertyStoreTrump:
                wins = !concurrent
            case .error:
                if concurrent {
                    refusals.append(
                        CdSyncConflict(
                            objectID: op.gid, entity: op.entity, property: p.name, loser: request.replica,
                            kind: .property))
                    continue
                }
                wins = true
            }
            if wins {
                var p = p
                if op.kind == .state { p.hlc = max(p.hlc, s.hlc + 1) }  // PR9: it follows what it had seen
                win(op.gid, p, json)
                if concurrent { lose(op, property: p.name, kind: .property, hlc: s.hlc, loser: s.replica) }
            } else if concurrent || !Self.sameValue(s.json, json) {
                lose(op, property: p.name, kind: .property, hlc: p.hlc, loser: request.replica)
            }
        }
    }

    private mutating func win(_ gid: UUID, _ p: PushOp.Property, _ json: String) {
        if winnersByObject[gid] == nil { winnerOrder.append(gid) }
        winnersByObject[gid, default: [:]][p.name] = Winner(gid: gid, name: p.name, json: json, hlc: p.hlc)
        stored[gid, default: [:]][p.name] = StoredProperty(json: json, hlc: p.hlc, replica: request.replica, seq: seq)
    }

    private mutating func lose(_ op: PushOp, property: String?, kind: CdSyncConflict.Kind, hlc: Int64, loser: UUID) {
        conflicts.append(
            CdSyncConflict(objectID: op.gid, entity: op.entity, property: property, loser: loser, kind: kind))
        conflictStamps.append(hlc)
        if loser == request.replica { renumbered.insert(op.gid) }  // PR6
    }

    /// Whether two values' JSON texts are the same value (jsonb's text form has its own spacing).
    static func sameValue(_ stored: String, _ pushed: String) -> Bool {
        guard let a = try? WireValue(json: stored, where: "stored"),
            let b = try? WireValue(json: pushed, where: "pushed")
        else { return stored == pushed }
        return a == b
    }
}
