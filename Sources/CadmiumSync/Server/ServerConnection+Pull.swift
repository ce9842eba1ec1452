// A pull on the server, in pages: one REPEATABLE READ transaction (`beginPull` … `finishPull`)
// reads the scope's change number and, page by page, every object changed after the replica's
// cursor, in keyset order (change number, global ID). The transaction's one snapshot makes the
// pages together exactly the objects changed up to that number, each once (PG1 of
// SyncEngine+Pull.swift); SS4 makes that a whole number of pushes.
//
// Invariants:
//  SP1. Every page of a pull reads the snapshot `beginPull` took: a push that commits meanwhile
//       is not seen (it has a higher change number and is the next pull's).
//  SP2. Pages follow the total order (seq, gid) of the snapshot's changed objects: page n + 1
//       starts after the last key of page n, so no object is read twice or skipped, whatever the
//       page size (keyset pagination: each page is an index range scan, not an OFFSET).
//  SP3. `finishPull` records how far the replica pulled in the same transaction and commits it;
//       a pull abandoned before (an error, a cut connection) records nothing.

import Foundation
import PostgresNIO

/// One object as a pull brings it: its current state, not the edits that led to it.
struct PulledObject: Sendable {
    var gid: UUID
    var entity: String
    var deleted: Bool
    /// The change number of the object's last change (its page key with `gid`, SP2).
    var sequence: Int64
    /// The properties a page asked for (`PullPass`), by name: the value's JSON text and stamp.
    var properties: [String: (json: String, hlc: Int64)]
}

/// Which properties a page brings (PG4 of SyncEngine+Pull.swift).
enum PullPass: Sendable, CaseIterable {
    /// Every changed object, deleted or not, with its attributes.
    case attributes
    /// The live changed objects with their relationships (to-one and to-many values).
    case references
    /// Every changed object with every property (tools and tests that read a whole state).
    case everything
}

/// Where a pull starts, as its snapshot sees the scope (SP1).
struct PullStart: Sendable {
    /// The scope's change number the snapshot saw: the replica's next cursor.
    var sequence: Int64
    var epoch: UUID
    /// Changes after this number are read: the cursor, or 0 to read everything again.
    var after: Int64
    /// The replica's acknowledged position as the server holds it (a restored server's may be
    /// behind the replica's, SE3).
    var position: PushedPosition?
    /// Whether the scope has a row (a pull of a scope nobody pushed to records nothing).
    var scopeExists: Bool
    /// Entities whose every object is read, changed after the cursor or not (a catch-up, VR2 of
    /// SyncedSchemaRecord.swift).
    var catchUp: [String] = []

    /// The key before the first page (SP2): a catch-up reads from the first change.
    var firstKey: PageKey { PageKey(sequence: catchUp.isEmpty ? after : 0, gid: UUID(uuid: UUID.zero)) }
}

/// The keyset position of a page: the (change number, global ID) of its last object (SP2).
struct PageKey: Sendable, Hashable {
    var sequence: Int64
    var gid: UUID
}

extension UUID {
    /// The all-zero UUID, below every other in PostgreSQL's `uuid` order.
    static let zero: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

extension ServerConnection {
    /// Opens the pull's transaction and reads where it starts: everything after `cursor`, or
    /// after 0 for nil, another epoch, or a cursor the server has no record of (a server restored
    /// from an older backup); the objects of `catchUp` entities are read whatever their change
    /// number (VR2). Leaves the transaction open for `pullPage` and `finishPull`.
    func beginPull(
        _ scope: String, replica: UUID, after cursor: PullCursor?, catchUp: [String] = []
    ) async throws -> PullStart {
        try await run("BEGIN ISOLATION LEVEL REPEATABLE READ", "pulling \(scope): BEGIN")
        let rows = try await run(
            "SELECT seq, epoch FROM cadmium_sync.scopes WHERE scope = \(scope)", "reading scope \(scope)")
        let position = try await replicaPosition(scope, replica)
        guard let row = rows.first else {
            return PullStart(sequence: 0, epoch: UUID(), after: 0, position: position, scopeExists: false)
        }
        let (sequence, epoch) = try row.decode((Int64, UUID).self)
        let pulled = try await run(
            "SELECT pulled FROM cadmium_sync.replicas WHERE scope = \(scope) AND replica = \(replica)",
            "reading how far the replica pulled"
        ).first.map { try $0.decode(Int64.self) }
        var after: Int64 = 0
        if let cursor, cursor.epoch == epoch, cursor.sequence <= sequence, let pulled, cursor.sequence <= pulled {
            after = cursor.sequence
        }
        return PullStart(
            sequence: sequence, epoch: epoch, after: after, position: position, scopeExists: true,
            catchUp: after == 0 ? [] : catchUp)
    }

    /// The next page of the pull `start` began: at most `limit` objects changed after `after`
    /// (SP2), with the properties `pass` asks for, in key order.
    func pullPage(
        _ scope: String, _ start: PullStart, _ pass: PullPass, after key: PageKey, limit: Int
    ) async throws -> [PulledObject] {
        let liveOnly = pass == .references
        var objects: [PulledObject] = []
        var index: [UUID: Int] = [:]
        for row in try await run(
            """
            SELECT gid, entity, deleted, seq FROM cadmium_sync.objects
            WHERE scope = \(scope) AND (seq > \(start.after) OR entity = ANY(\(start.catchUp)::text[]))
                AND seq <= \(start.sequence)
                AND (seq, gid) > (\(key.sequence), \(key.gid)) AND (NOT deleted OR NOT \(liveOnly))
            ORDER BY seq, gid LIMIT \(limit)
            """, "reading changed objects")
        {
            let (gid, entity, deleted, sequence) = try row.decode((UUID, String, Bool, Int64).self)
            index[gid] = objects.count
            objects.append(
                PulledObject(gid: gid, entity: entity, deleted: deleted, sequence: sequence, properties: [:]))
        }
        let live = objects.filter { !$0.deleted }.map(\.gid)
        guard !live.isEmpty else { return objects }
        // The relationship tags of WireValue.swift: `r` to-one, `m` to-many.
        let everything = pass == .everything, references = pass == .references
        for row in try await run(
            """
            SELECT gid, name, value::text, hlc FROM cadmium_sync.properties
            WHERE scope = \(scope) AND gid = ANY(\(live))
                AND (\(everything) OR (value->>'t' IN ('r', 'm')) = \(references))
            """, "reading changed objects' properties")
        {
            let (gid, name, json, hlc) = try row.decode((UUID, String, String, Int64).self)
            if let i = index[gid] { objects[i].properties[name] = (json, hlc) }
        }
        return objects
    }

    /// Records how far `replica` pulled and commits the pull's transaction (SP3).
    func finishPull(_ scope: String, replica: UUID, _ start: PullStart) async throws {
        if start.scopeExists {
            try await run(
                """
                INSERT INTO cadmium_sync.replicas (scope, replica, pulled)
                VALUES (\(scope), \(replica), \(start.sequence))
                ON CONFLICT (scope, replica) DO UPDATE SET pulled = EXCLUDED.pulled
                """, "recording how far the replica pulled")
        }
        try await run("COMMIT", "pulling \(scope): COMMIT")
    }

    /// Ends a pull's transaction without recording anything (SP3).
    func abandonPull() async throws {
        try await run("ROLLBACK", "abandoning a pull")
    }

    /// The objects of `scope` changed after `cursor` with every property, from one snapshot, all
    /// in memory (tools and tests that compare whole states; the engine pulls in pages,
    /// SyncEngine+Pull.swift); records how far `replica` pulled.
    func pull(_ scope: String, replica: UUID, after cursor: PullCursor?) async throws -> PullResult {
        let start = try await beginPull(scope, replica: replica, after: cursor)
        do {
            var objects: [PulledObject] = []
            var key = start.firstKey
            while true {
                let page = try await pullPage(scope, start, .everything, after: key, limit: 1000)
                objects += page
                guard page.count == 1000, let last = page.last else { break }
                key = PageKey(sequence: last.sequence, gid: last.gid)
            }
            try await finishPull(scope, replica: replica, start)
            return PullResult(sequence: start.sequence, epoch: start.epoch, objects: objects, position: start.position)
        } catch {
            try? await abandonPull()
            throw error
        }
    }
}

/// A whole pull in memory (`ServerConnection.pull`).
struct PullResult: Sendable {
    /// The scope's change number the snapshot saw.
    var sequence: Int64
    var epoch: UUID
    /// The objects changed after the cursor, in change-number order.
    var objects: [PulledObject]
    /// The replica's acknowledged position as the server holds it.
    var position: PushedPosition? = nil
}
