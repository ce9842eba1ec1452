// The conflict decisions of one push, made in memory from what the server holds (PU2 of
// ServerConnection+Push.swift), before anything is written.
//
// A stored property is concurrent with a pushed edit when another replica wrote it and the
// pushing replica had not pulled it (its change number is above the request's `seen`).

import Foundation

struct PushResolution {
    struct Winner {
        var gid: UUID
        var name: String
        var json: String
        var hlc: Int64
    }

    let request: PushRequest
    var newObjects: [(gid: UUID, entity: String)] = []
    var revived: [UUID] = []
    var deletes: [(gid: UUID, entity: String, hlc: Int64)] = []
    var winners: [Winner] = []
    var conflicts: [CdSyncConflict] = []
    /// The losing edit's stamp of each conflict, in `conflicts`' order.
    var conflictStamps: [Int64] = []
    /// Conflicts under the error policy: the batch is refused when any.
    var refusals: [CdSyncConflict] = []

    init(request: PushRequest) { self.request = request }

    mutating func resolve(_ op: PushOp, object: (deleted: Bool, deleteHLC: Int64?)?, stored: [String: StoredProperty]) {
        switch op.kind {
        case .delete:
            if object?.deleted != true { deletes.append((op.gid, op.entity, op.hlc)) }
            return
        case .insert, .update:
            if let object, object.deleted {
                // Delete wins, unless this is a creation after the delete (a derived ID, PU2).
                guard op.kind == .insert, let d = object.deleteHLC, op.hlc > d else {
                    lose(op, property: nil, hlc: op.hlc, loser: request.replica)
                    return
                }
                revived.append(op.gid)
                for p in op.properties {
                    winners.append(Winner(gid: op.gid, name: p.name, json: p.value.json, hlc: p.hlc))
                }
                return
            }
            if object == nil { newObjects.append((op.gid, op.entity)) }
        }
        let policy = request.policies[op.entity] ?? .newestEditWins
        for p in op.properties {
            let json = p.value.json
            guard let s = stored[p.name] else {
                winners.append(Winner(gid: op.gid, name: p.name, json: json, hlc: p.hlc))
                continue
            }
            let concurrent = s.replica != request.replica && s.seq > request.seen && !Self.sameValue(s.json, json)
            let wins: Bool
            switch policy {
            case .newestEditWins:
                wins = (p.hlc, request.replica.uuidString) > (s.hlc, s.replica.uuidString)
            case .mergeByPropertyObjectTrump:
                wins = true
            case .mergeByPropertyStoreTrump:
                wins = !concurrent
            case .error:
                if concurrent {
                    refusals.append(
                        CdSyncConflict(objectID: op.gid, entity: op.entity, property: p.name, loser: request.replica))
                    continue
                }
                wins = true
            }
            if wins {
                winners.append(Winner(gid: op.gid, name: p.name, json: json, hlc: p.hlc))
                if concurrent { lose(op, property: p.name, hlc: s.hlc, loser: s.replica) }
            } else if concurrent || !Self.sameValue(s.json, json) {
                lose(op, property: p.name, hlc: p.hlc, loser: request.replica)
            }
        }
    }

    private mutating func lose(_ op: PushOp, property: String?, hlc: Int64, loser: UUID) {
        conflicts.append(CdSyncConflict(objectID: op.gid, entity: op.entity, property: property, loser: loser))
        conflictStamps.append(hlc)
    }

    /// Whether two values' JSON texts are the same value (jsonb's text form has its own spacing).
    static func sameValue(_ stored: String, _ pushed: String) -> Bool {
        guard let a = try? WireValue(json: stored, where: "stored"),
            let b = try? WireValue(json: pushed, where: "pushed")
        else { return stored == pushed }
        return a == b
    }
}
