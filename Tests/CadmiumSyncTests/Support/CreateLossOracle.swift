// The campaign's check that no acknowledged create vanished without trace (PR1–PR6 of
// PushResolution.swift; docs/SYNC.md, "A create and a delete of one global ID"), once every
// replica has synced:
//  1. Every object a replica created and did not delete itself (its own history's inserts and
//     deletes; the campaign never prunes history) has a global ID and a row on the server: the
//     create reached it.
//  2. No tombstone holds properties (a delete and a create of one ID in one batch once left that).
//  3. Every tombstone's delete had pulled every create of the object by other replicas: the
//     newest such create is numbered at or below what the deleting replica had pulled when it
//     pushed the delete. A create the delete had not seen would have kept the object (PR2), and
//     a create after the delete would have brought it back (PR1) — so a created object that is
//     a tombstone at the end was deleted by a replica that knew of the create.
// The creates, deletes and what each deleting replica had pulled are the server's record of the
// pushes (`objects.created_*`, `delete_*`), written beside the decision, not by it.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation

enum CreateLossOracle {
    struct Report {
        /// Local creates checked (1), over all replicas.
        var creates = 0
        /// Tombstones checked (2, 3).
        var tombstones = 0
        var problems: [String] = []
    }

    private struct Row {
        var deleted: Bool
        var properties: Int64
        var createdReplica: UUID?
        var createdSeq: Int64?
        var otherCreatedSeq: Int64?
        var deleteReplica: UUID?
        var deleteSeen: Int64?
    }

    static func check(_ replicas: [TestReplica], server: URL, scope: String) async throws -> Report {
        var report = Report()
        let rows = try await serverRows(server, scope)
        for (gid, row) in rows where row.deleted {
            report.tombstones += 1
            if row.properties > 0 {
                report.problems.append("tombstone \(gid.uuidString) holds \(row.properties) properties")
            }
            let unseen = row.createdReplica == row.deleteReplica ? row.otherCreatedSeq : row.createdSeq
            if let unseen, let deleter = row.deleteReplica, unseen > (row.deleteSeen ?? 0) {
                report.problems.append(
                    "\(gid.uuidString) was deleted by \(deleter.uuidString), which had pulled up to "
                        + "\(row.deleteSeen ?? 0), over another replica's create numbered \(unseen)")
            }
        }
        for (i, r) in replicas.enumerated() {
            let schema = try SyncSchema(model: r.store.model, entities: SyncTestModel.entities)
            let history = try r.store.history(after: nil).filter { $0.author != PushCollector.author }
            var created = Set<ObjectID>()
            for t in history {
                for c in t.changes where schema.entities[c.objectID.entity] != nil {
                    switch c.kind {
                    case .insert: created.insert(c.objectID)
                    case .delete: created.remove(c.objectID)
                    case .update: break
                    }
                }
            }
            report.creates += created.count
            let gids = try r.store.read { snapshot in
                try created.map { id in
                    let root = schema.entities[id.entity]?.root ?? id.entity
                    return (id, try ReplicaState.global(root: root, primaryKey: id.primaryKey, in: snapshot))
                }
            }
            for (id, gid) in gids {
                guard let gid else {
                    report.problems.append("replica \(i) created \(id), acknowledged, with no global ID")
                    continue
                }
                if rows[gid] == nil {
                    report.problems.append(
                        "replica \(i) created \(id) (\(gid.uuidString)); the server has no row of it")
                }
            }
        }
        return report
    }

    private static func serverRows(_ server: URL, _ scope: String) async throws -> [UUID: Row] {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        var rows: [UUID: Row] = [:]
        for row in try await c.run(
            """
            SELECT o.gid, o.deleted,
                (SELECT count(*) FROM cadmium_sync.properties p WHERE p.scope = o.scope AND p.gid = o.gid),
                o.created_replica, o.created_seq, o.other_created_seq, o.delete_replica, o.delete_seen
            FROM cadmium_sync.objects o WHERE o.scope = \(scope)
            """, "reading the scope's objects")
        {
            let (gid, deleted, properties, creator, createdSeq, otherSeq, deleter, seen) = try row.decode(
                (UUID, Bool, Int64, UUID?, Int64?, Int64?, UUID?, Int64?).self)
            rows[gid] = Row(
                deleted: deleted, properties: properties, createdReplica: creator, createdSeq: createdSeq,
                otherCreatedSeq: otherSeq, deleteReplica: deleter, deleteSeen: seen)
        }
        return rows
    }
}
