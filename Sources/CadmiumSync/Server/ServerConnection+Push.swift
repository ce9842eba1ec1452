// A push on the server: one transaction that checks the replica's acknowledged position
// (compare-and-set), resolves conflicts by the entities' policies, writes the winners with the
// scope's next change number (SS4) and moves the replica's position, or does nothing at all.
//
// Invariants:
//  PU1. A batch is applied only when the replica's stored position equals the request's `from`,
//       and the same transaction moves it to `to`: a replayed, duplicated or stale batch finds
//       another position and changes nothing (exactly once).
//  PU2. A property's row changes only when the policy lets the pushed edit win; a delete marks
//       the object deleted (with its replica and what that replica had pulled) and drops its
//       properties; an edit of a deleted object is dropped, and a create brings it back. Creates
//       and deletes of one global ID are decided by PR1–PR6 of PushResolution.swift. The rows are
//       written in an order that makes the batch's order of operations hold (PR4): new objects,
//       deletes, the repair of references to them (PU4), the references that renames move
//       (PU5–PU6, ServerConnection+Rename.swift), objects brought back, creates,
//       properties, the repair of the references just written.
//  PU3. Everything the push changes carries the change number `seq + 1`, and the scope's `seq`
//       becomes that number in the same transaction, under the scope's row lock (SS4).
//  PU4. After a push, no reference property on the server names a deleted object: the push
//       strips the objects it deletes from every reference to them, and strips deleted objects
//       from the references it writes itself. A property so repaired takes the push's change
//       number (its stamp stays), so every replica pulls the repaired value. Without this a
//       reference left pointing at a tombstone came back to life when the object was created
//       again under its derived ID (a unique tag deleted and made anew): replicas that had
//       dropped the reference (PA3) never pulled it again, and a replica that pulled later kept
//       it — they diverged (campaign seed 7919, 400 steps).

import Foundation
import PostgresNIO

extension ServerConnection {
    /// Applies `request` exactly once (PU1–PU3), and announces it to listeners (LISTEN/NOTIFY).
    func push(_ request: PushRequest) async throws -> PushOutcome {
        let scope = request.scope
        do {
            return try await transaction("pushing batch \(request.to.batches) of \(request.replica)") {
                () async throws -> PushOutcome in
                try await lockScope(scope)
                let (seq, minimum) = try await run(
                    "SELECT seq, min_model_version FROM cadmium_sync.scopes WHERE scope = \(scope)", "reading the scope"
                ).first!.decode((Int64, Int).self)
                if request.modelVersion < minimum { return .modelTooOld(minimum: minimum) }
                let position = try await replicaPosition(scope, request.replica)
                guard position == request.from else { return .positionMismatch(server: position) }  // PU1
                let next = seq + 1
                let conflicts = try await apply(request, seq: next)
                if case let .refused(list) = conflicts { throw Refusal(conflicts: list) }
                guard case let .applied(_, list) = conflicts else { return conflicts }
                try await run(
                    """
                    INSERT INTO cadmium_sync.replicas
                        (scope, replica, history_id, acked, acked_stamp, batches, model_version, last_push)
                    VALUES (\(scope), \(request.replica), \(request.to.historyID),
                        \(Int64(bitPattern: request.to.number)),
                        \(request.to.stamp), \(Int64(bitPattern: request.to.batches)), \(request.modelVersion), now())
                    ON CONFLICT (scope, replica) DO UPDATE SET history_id = EXCLUDED.history_id,
                        acked = EXCLUDED.acked, acked_stamp = EXCLUDED.acked_stamp, batches = EXCLUDED.batches,
                        model_version = EXCLUDED.model_version, last_push = EXCLUDED.last_push
                    """, "moving the replica's position")  // PU1
                if !request.ops.isEmpty {
                    // PU3
                    try await run("UPDATE cadmium_sync.scopes SET seq = \(next) WHERE scope = \(scope)", "numbering")
                    try await run("SELECT pg_notify('cadmium_sync', \(scope))", "announcing the push")
                }
                return .applied(seq: request.ops.isEmpty ? seq : next, conflicts: list)
            }
        } catch let refusal as Refusal {
            return .refused(refusal.conflicts)
        }
    }

    /// The error policy's refusal, thrown to roll the transaction back.
    private struct Refusal: Error { let conflicts: [CdSyncConflict] }

    /// Creates the scope when missing and takes its row lock (SS4).
    func lockScope(_ scope: String) async throws {
        try await run(
            """
            INSERT INTO cadmium_sync.scopes (scope, epoch) VALUES (\(scope), \(UUID()))
            ON CONFLICT (scope) DO NOTHING
            """,
            "creating scope \(scope)")
        try await run("SELECT 1 FROM cadmium_sync.scopes WHERE scope = \(scope) FOR UPDATE", "locking scope \(scope)")
    }

    /// The replica's acknowledged position on the server, nil when it has none.
    func replicaPosition(_ scope: String, _ replica: UUID) async throws -> PushedPosition? {
        let rows = try await run(
            """
            SELECT history_id, acked, acked_stamp, batches FROM cadmium_sync.replicas
            WHERE scope = \(scope) AND replica = \(replica)
            """, "reading the replica's position")
        guard let row = rows.first else { return nil }
        let (id, acked, stamp, batches) = try row.decode((UUID?, Int64, Int64, Int64).self)
        guard let id else { return nil }
        return PushedPosition(
            historyID: id, number: UInt64(bitPattern: acked), stamp: stamp, batches: UInt64(bitPattern: batches))
    }

    /// Resolves and writes the batch's changes (PU2, PU3).
    private func apply(_ request: PushRequest, seq: Int64) async throws -> PushOutcome {
        let scope = request.scope
        let gids = request.ops.map(\.gid)
        guard !gids.isEmpty else { return .applied(seq: seq, conflicts: []) }
        // What the server holds of these objects.
        var objects: [UUID: ServerObject] = [:]
        for row in try await run(
            """
            SELECT gid, deleted, delete_hlc, seq, delete_replica, created_replica, created_seq, other_created_seq
            FROM cadmium_sync.objects WHERE scope = \(scope) AND gid = ANY(\(gids))
            """, "reading the batch's objects")
        {
            let (gid, deleted, hlc, s, deleter, creator, createdSeq, otherSeq) = try row.decode(
                (UUID, Bool, Int64?, Int64, UUID?, UUID?, Int64?, Int64?).self)
            objects[gid] = ServerObject(
                deleted: deleted, deleteHLC: hlc, seq: s, deleteReplica: deleter, createdReplica: creator,
                createdSeq: createdSeq, otherCreatedSeq: otherSeq)
        }
        var stored: [UUID: [String: StoredProperty]] = [:]
        for row in try await run(
            """
            SELECT gid, name, value::text, hlc, replica, seq FROM cadmium_sync.properties
            WHERE scope = \(scope) AND gid = ANY(\(gids))
            """, "reading the batch's properties")
        {
            let (gid, name, value, hlc, replica, s) = try row.decode((UUID, String, String, Int64, UUID, Int64).self)
            stored[gid, default: [:]][name] = StoredProperty(json: value, hlc: hlc, replica: replica, seq: s)
        }
        var resolution = PushResolution(request: request, seq: seq, objects: objects, stored: stored)
        resolution.resolveAll()
        if !resolution.refusals.isEmpty { return .refused(resolution.refusals) }
        try await write(resolution, scope: scope, replica: request.replica, seq: seq)
        return .applied(seq: seq, conflicts: resolution.conflicts)
    }

    /// Writes what `resolution` decided, in a handful of set-wise statements, in the order PU2
    /// gives.
    private func write(_ r: PushResolution, scope: String, replica: UUID, seq: Int64) async throws {
        let moved = try await referencesToMove(r.request)  // PU6: read before anything is written
        if !r.newObjects.isEmpty {
            try await run(
                """
                INSERT INTO cadmium_sync.objects (scope, gid, entity, seq)
                SELECT \(scope), g, e, \(seq)
                FROM unnest(\(r.newObjects.map(\.gid))::uuid[], \(r.newObjects.map(\.entity))::text[]) AS t(g, e)
                """, "inserting new objects")
        }
        if !r.deletes.isEmpty {
            let gids = r.deletes.map(\.gid)
            try await run(
                """
                INSERT INTO cadmium_sync.objects
                    (scope, gid, entity, deleted, delete_hlc, delete_replica, delete_seen, seq)
                SELECT \(scope), g, e, true, h, \(replica), \(r.request.seen), \(seq)
                FROM unnest(\(gids)::uuid[], \(r.deletes.map(\.entity))::text[],
                    \(r.deletes.map(\.hlc))::bigint[]) AS t(g, e, h)
                ON CONFLICT (scope, gid) DO UPDATE
                SET deleted = true, delete_hlc = EXCLUDED.delete_hlc, delete_replica = EXCLUDED.delete_replica,
                    delete_seen = EXCLUDED.delete_seen, seq = EXCLUDED.seq
                WHERE NOT cadmium_sync.objects.deleted
                """, "deleting objects")
            try await run(
                "DELETE FROM cadmium_sync.properties WHERE scope = \(scope) AND gid = ANY(\(gids))",
                "dropping deleted objects' properties")
            try await repairReferences(to: Set(gids), scope: scope, seq: seq)  // PU4
        }
        try await writeMovedReferences(moved, r.request, deleted: Set(r.deletes.map(\.gid)), seq: seq)  // PU6
        let revived = r.revived
        if !revived.isEmpty {
            try await run(
                """
                UPDATE cadmium_sync.objects SET deleted = false, delete_hlc = NULL, delete_replica = NULL,
                    delete_seen = NULL, seq = \(seq)
                WHERE scope = \(scope) AND gid = ANY(\(revived))
                """, "creating deleted objects again")
        }
        if !r.created.isEmpty {
            let gids = Array(r.created)
            let others = gids.map { r.objects[$0]?.otherCreatedSeq ?? -1 }  // -1: none (change numbers are > 0)
            try await run(
                """
                UPDATE cadmium_sync.objects o SET created_replica = \(replica), created_seq = \(seq),
                    other_created_seq = NULLIF(t.other, -1), seq = \(seq)
                FROM unnest(\(gids)::uuid[], \(others)::bigint[]) AS t(g, other)
                WHERE o.scope = \(scope) AND o.gid = t.g
                """, "recording creates")
        }
        if !r.winners.isEmpty {
            try await run(
                """
                INSERT INTO cadmium_sync.properties (scope, gid, name, value, hlc, replica, seq)
                SELECT \(scope), g, n, v::jsonb, h, \(replica), \(seq)
                FROM unnest(\(r.winners.map(\.gid))::uuid[], \(r.winners.map(\.name))::text[],
                    \(r.winners.map(\.json))::text[], \(r.winners.map(\.hlc))::bigint[]) AS t(g, n, v, h)
                ON CONFLICT (scope, gid, name) DO UPDATE SET value = EXCLUDED.value, hlc = EXCLUDED.hlc,
                    replica = EXCLUDED.replica, seq = EXCLUDED.seq
                """, "writing properties")
            let touched = Array(Set(r.winners.map(\.gid)))
            try await run(
                "UPDATE cadmium_sync.objects SET seq = \(seq) WHERE scope = \(scope) AND gid = ANY(\(touched))",
                "numbering changed objects")
        }
        try await repairWrittenReferences(r, scope: scope, seq: seq)  // PU4
        if !r.renumbered.isEmpty {
            try await run(
                """
                UPDATE cadmium_sync.objects SET seq = \(seq)
                WHERE scope = \(scope) AND gid = ANY(\(Array(r.renumbered)))
                """, "numbering objects the push lost on")  // PR6
        }
        if !r.conflicts.isEmpty {
            try await run(
                """
                INSERT INTO cadmium_sync.conflicts (scope, gid, name, kind, loser_replica, loser_hlc, seq)
                SELECT \(scope), g, NULLIF(n, ''), k, l, h, \(seq)
                FROM unnest(\(r.conflicts.map(\.objectID))::uuid[], \(r.conflicts.map { $0.property ?? "" })::text[],
                    \(r.conflicts.map(\.kind.rawValue))::text[],
                    \(r.conflicts.map(\.loser))::uuid[], \(r.conflictStamps)::bigint[]) AS t(g, n, k, l, h)
                """, "recording conflicts")
        }
    }
}

extension ServerConnection {
    /// Strips from the references this push wrote the objects the server holds deleted, once the
    /// push's deletes and creates are written (PU4). A push that links to no tombstone (the
    /// common case) runs one look-up at most.
    fileprivate func repairWrittenReferences(_ r: PushResolution, scope: String, seq: Int64) async throws {
        var named = Set<UUID>()
        for w in r.winners {
            switch try? WireValue(json: w.json, where: "\(w.gid.uuidString).\(w.name)") {
            case let .toOne(g?): named.insert(g)
            case let .toMany(gs): named.formUnion(gs)
            default: break
            }
        }
        guard !named.isEmpty else { return }
        var dead = Set<UUID>()
        for row in try await run(
            """
            SELECT gid FROM cadmium_sync.objects
            WHERE scope = \(scope) AND gid = ANY(\(Array(named))) AND deleted
            """, "looking for links to deleted objects")
        {
            dead.insert(try row.decode(UUID.self))
        }
        try await repairReferences(to: dead, scope: scope, seq: seq)
    }

    /// Strips `dead` (deleted objects) from every reference property of the scope that names
    /// them, and gives the repaired properties, and their objects, the push's change number
    /// (PU4). Reference values are `{"t": "r", "v": gid}` (to-one) and `{"t": "m", "v": [gid,
    /// …]}` (to-many, its order kept), WireValue.swift.
    fileprivate func repairReferences(to dead: Set<UUID>, scope: String, seq: Int64) async throws {
        guard !dead.isEmpty else { return }
        let texts = dead.map(\.uuidString)
        let repaired = try await run(
            """
            UPDATE cadmium_sync.properties p SET seq = \(seq), value = CASE WHEN p.value->>'t' = 'r'
                THEN '{"t": "r"}'::jsonb
                ELSE jsonb_build_object('t', 'm', 'v', COALESCE((
                    SELECT jsonb_agg(t.e ORDER BY t.i)
                    FROM jsonb_array_elements(p.value->'v') WITH ORDINALITY AS t(e, i)
                    WHERE NOT EXISTS (
                        SELECT 1 FROM cadmium_sync.objects o
                        WHERE o.scope = p.scope AND o.gid = (t.e #>> '{}')::uuid AND o.deleted)), '[]'::jsonb))
                END
            WHERE p.scope = \(scope)
                AND ((p.value->>'t' = 'r' AND p.value->>'v' = ANY(\(texts)::text[]))
                    OR (p.value->>'t' = 'm' AND p.value->'v' ?| \(texts)::text[]))
            RETURNING p.gid
            """, "repairing references to deleted objects")
        let objects = Array(Set(try repaired.map { try $0.decode(UUID.self) }))
        guard !objects.isEmpty else { return }
        try await run(
            "UPDATE cadmium_sync.objects SET seq = \(seq) WHERE scope = \(scope) AND gid = ANY(\(objects))",
            "numbering repaired objects")
    }
}

/// A property as the server holds it.
struct StoredProperty: Sendable {
    var json: String
    var hlc: Int64
    var replica: UUID
    var seq: Int64
}
