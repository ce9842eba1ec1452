// A pull on the server: everything of a scope after a replica's cursor, read in one
// repeatable-read snapshot together with the scope's change number (SS4), so that the replica
// applies whole pushes only.

import Foundation
import PostgresNIO

/// One object as a pull brings it: its current state, not the edits that led to it.
struct PulledObject: Sendable {
    var gid: UUID
    var entity: String
    var deleted: Bool
    /// Every property of a live object, by name: its value's JSON text and stamp.
    var properties: [String: (json: String, hlc: Int64)]
}

/// What one pull read.
struct PullResult: Sendable {
    /// The scope's change number the snapshot saw: the replica's next cursor.
    var sequence: Int64
    var epoch: UUID
    /// The objects changed after the cursor, in change-number order.
    var objects: [PulledObject]
    /// The replica's acknowledged position as the server holds it (a restored server's may be
    /// behind the replica's, SE3).
    var position: PushedPosition? = nil
}

extension ServerConnection {
    /// The objects of `scope` changed after `cursor` (all of them for nil, another epoch, or a
    /// cursor the server has no record of: a server restored from an older backup), from one
    /// snapshot; records how far `replica` pulled.
    func pull(_ scope: String, replica: UUID, after cursor: PullCursor?) async throws -> PullResult {
        try await transaction("pulling \(scope)", begin: "BEGIN ISOLATION LEVEL REPEATABLE READ") {
            () async throws -> PullResult in
            let rows = try await run(
                "SELECT seq, epoch FROM cadmium_sync.scopes WHERE scope = \(scope)", "reading scope \(scope)")
            guard let row = rows.first else { return PullResult(sequence: 0, epoch: UUID(), objects: []) }
            let (sequence, epoch) = try row.decode((Int64, UUID).self)
            // Another epoch (a scope made anew) or a cursor past the server's number (a server
            // restored from an older backup): read everything again.
            let pulled = try await run(
                "SELECT pulled FROM cadmium_sync.replicas WHERE scope = \(scope) AND replica = \(replica)",
                "reading how far the replica pulled"
            ).first.map { try $0.decode(Int64.self) }
            var after: Int64 = 0
            if let cursor, cursor.epoch == epoch, cursor.sequence <= sequence, let pulled, cursor.sequence <= pulled {
                after = cursor.sequence
            }
            var objects: [PulledObject] = []
            var index: [UUID: Int] = [:]
            for row in try await run(
                """
                SELECT gid, entity, deleted FROM cadmium_sync.objects
                WHERE scope = \(scope) AND seq > \(after) AND seq <= \(sequence) ORDER BY seq, gid
                """, "reading changed objects")
            {
                let (gid, entity, deleted) = try row.decode((UUID, String, Bool).self)
                index[gid] = objects.count
                objects.append(PulledObject(gid: gid, entity: entity, deleted: deleted, properties: [:]))
            }
            for row in try await run(
                """
                SELECT p.gid, p.name, p.value::text, p.hlc FROM cadmium_sync.properties p
                JOIN cadmium_sync.objects o ON o.scope = p.scope AND o.gid = p.gid
                WHERE p.scope = \(scope) AND o.seq > \(after) AND o.seq <= \(sequence) AND NOT o.deleted
                """, "reading changed objects' properties")
            {
                let (gid, name, json, hlc) = try row.decode((UUID, String, String, Int64).self)
                if let i = index[gid] { objects[i].properties[name] = (json, hlc) }
            }
            let position = try await replicaPosition(scope, replica)
            try await run(
                """
                INSERT INTO cadmium_sync.replicas (scope, replica, pulled) VALUES (\(scope), \(replica), \(sequence))
                ON CONFLICT (scope, replica) DO UPDATE SET pulled = EXCLUDED.pulled
                """, "recording how far the replica pulled")
            return PullResult(sequence: sequence, epoch: epoch, objects: objects, position: position)
        }
    }
}
