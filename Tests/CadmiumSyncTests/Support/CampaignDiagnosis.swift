// What the campaign prints when the server's objects differ from the replicas': for each
// differing global ID, the server's row (who created it, at which change number, whether it is a
// tombstone) and, on every replica, the local object the identity map names for it, whether the
// two map entries agree, and that object's own history (transaction, author, kind). A failure in
// a long run is rare and seeded; this is what says which step lost what.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation

enum CampaignDiagnosis {
    /// Lines describing up to `limit` global IDs whose state differs between `server` and `replica`.
    static func differences(
        server: [String: String], replica: [String: String], replicas: [TestReplica], url: URL, scope: String,
        limit: Int = 8
    ) async throws -> [String] {
        let differing = Set(server.keys).union(replica.keys).filter { server[$0] != replica[$0] }.sorted()
        guard !differing.isEmpty else { return [] }
        var names: [UUID: String] = [:]
        for (i, r) in replicas.enumerated() {
            if let id = try await r.engine.status().replicaID { names[id] = "r\(i)" }
        }
        func name(_ id: UUID?) -> String { id.map { names[$0] ?? $0.uuidString } ?? "-" }
        let c = try await ServerConnection.open(ServerAddress(url))
        defer { c.closeNow() }
        var lines = ["\(differing.count) global IDs differ between the server and replica 0"]
        for text in differing.prefix(limit) {
            lines.append("\(text): server \(server[text] ?? "(none)") | replica 0 \(replica[text] ?? "(none)")")
            guard let gid = UUID(uuidString: text) else { continue }
            for row in try await c.run(
                """
                SELECT deleted, seq, created_replica, created_seq, other_created_seq, delete_replica, delete_seen
                FROM cadmium_sync.objects WHERE scope = \(scope) AND gid = \(gid)
                """, "reading one object")
            {
                let (deleted, seq, creator, createdSeq, otherSeq, deleter, seen) = try row.decode(
                    (Bool, Int64, UUID?, Int64?, Int64?, UUID?, Int64?).self)
                lines.append(
                    "  server: deleted=\(deleted) seq=\(seq) created by \(name(creator)) at \(createdSeq ?? -1) "
                        + "(other create \(otherSeq ?? -1)), deleted by \(name(deleter)) seen \(seen ?? -1)")
            }
            for (i, r) in replicas.enumerated() {
                lines.append("  r\(i): " + (try describe(gid, in: r)))
            }
        }
        return lines
    }

    /// The local object `gid` maps to on `replica`, and that object's history.
    private static func describe(_ gid: UUID, in replica: TestReplica) throws -> String {
        let found: (ObjectID, UUID?, Bool)? = try replica.store.read { snapshot in
            guard let id = try ReplicaState.local(gid, in: snapshot) else { return nil }
            let root = replica.store.model.rootEntity(of: id.entity)?.name ?? id.entity
            let back = try ReplicaState.global(root: root, primaryKey: id.primaryKey, in: snapshot)
            return (id, back, try snapshot.exists(id))
        }
        guard let (id, back, live) = found else { return "not in the identity map" }
        let agreement = back == gid ? "agrees" : "names \(back?.uuidString ?? "nothing") back"
        var steps: [String] = []
        for t in try replica.store.history(after: nil) {
            for change in t.changes where change.objectID == id {
                let who = t.author == PushCollector.author ? "pull" : (t.author ?? "local")
                let properties = change.updatedProperties.sorted().joined(separator: ",")
                steps.append("#\(t.token.number) \(who) \(change.kind)\(properties.isEmpty ? "" : " " + properties)")
            }
        }
        return "\(id) (map \(agreement), \(live ? "live" : "gone")): \(steps.suffix(12).joined(separator: "; "))"
    }
}
