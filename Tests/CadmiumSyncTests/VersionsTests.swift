// Replicas on different models of one scope (docs/SYNC.md, Versions): a replica on an older model
// skips what it does not know and keeps it for later — the server keeps the values, the replica
// its record of what it applied (VR1–VR5 of SyncedSchemaRecord.swift) — and a scope's minimum
// model version refuses older replicas' pushes. The older model has notes without a body and no
// labels (`SyncTestModel.older()`); the newer one has both (`SyncTestModel.newer()`).

@testable import CadmiumSync
import Cadmium
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: replicas on older and newer models") struct VersionsTests {
    /// The two replicas of a test: `old` on the older model (version 1), `new` on the newer (2).
    struct Pair {
        let dir: URL
        let scope: String
        let server: URL
        var old: TestReplica
        let new: TestReplica

        init(server: URL, scope: String, policy: CdSyncConflictPolicy = .newestEditWins) throws {
            dir = try TestServer.temporaryDirectory(scope)
            self.scope = scope
            self.server = server
            old = try TestReplica(
                path: dir.appendingPathComponent("old.cdstore").path, server: server, scope: scope,
                model: try SyncTestModel.older(), entities: SyncTestModel.entities, options: Self.options(1, policy))
            new = try TestReplica(
                path: dir.appendingPathComponent("new.cdstore").path, server: server, scope: scope,
                model: try SyncTestModel.newer(), entities: SyncTestModel.newerEntities,
                options: Self.options(2, policy))
        }

        static func options(_ version: Int, _ policy: CdSyncConflictPolicy) -> SyncEngineOptions {
            var o = SyncEngineOptions.smallPages
            o.modelVersion = version
            o.policies = ["Note": policy, "Folder": policy, "Tag": policy, "Label": policy]
            return o
        }

        /// Closes the old replica and opens its store with the newer model (a lightweight
        /// migration that keeps every object's ID, so the sync state goes along, MG12).
        mutating func upgradeOld(policy: CdSyncConflictPolicy = .newestEditWins) async throws {
            try await old.close()
            old = try TestReplica(
                path: old.path, server: server, scope: scope, model: try SyncTestModel.newer(),
                entities: SyncTestModel.newerEntities, options: Self.options(2, policy))
        }

        func close() async {
            try? await old.close()
            try? await new.close()
            try? FileManager.default.removeItem(at: dir)
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [CdSyncConflictPolicy.newestEditWins, .mergeByPropertyObjectTrump])
    func olderReplicaSkipsWhatItDoesNotKnowAndCatchesUpAfterItsUpgrade(policy: CdSyncConflictPolicy) async throws {
        guard let server = TestServer.url() else { return }
        var pair = try Pair(server: server, scope: TestServer.scope(), policy: policy)
        defer { Task { [pair] in await pair.close() } }
        let new = pair.new
        // The newer replica writes a field and an entity the older model lacks.
        let note = try new.create("Note", ["title": .string("n"), "body": .string("kept for later")])
        try new.create("Label", ["name": .string("urgent")])
        try await new.engine.syncNow()
        // The older replica pulls what it knows and skips the rest (PA4).
        try await pair.old.engine.syncNow()
        let oldNote = try #require(try pair.old.find("Note", "title", "n").first)
        #expect(try pair.old.store.read { try $0.values(of: oldNote) }?["body"] == nil)
        #expect(pair.old.store.model.entity(named: "Label") == nil)
        // Its edit of the note sends the title only: the body stays on the server (VR5).
        try pair.old.update(oldNote, ["title": .string("n, edited on the older model")])
        try await pair.old.engine.syncNow()
        try await new.engine.syncNow()
        let values = try #require(try new.store.read { try $0.values(of: note) })
        #expect(values["title"] == .string("n, edited on the older model"))
        #expect(values["body"] == .string("kept for later"), "an older model's push erased a newer field")
        // More that the older replica skips while its cursor moves past it.
        try new.update(note, ["body": .string("edited while the older replica could not see it")])
        try new.create("Note", ["title": .string("m"), "body": .string("m's body")])
        try new.create("Label", ["name": .string("later")])
        try await new.engine.syncNow()
        try await pair.old.engine.syncNow()
        #expect(try pair.old.find("Note", "title", "m").count == 1)
        let cursorBefore = try await pair.old.engine.status().cursor
        // The upgrade: one pull catches up on every skipped field and entity (VR2), and the
        // state the migrated store pushes first (its history started anew, MG11) overwrites
        // nothing on the server, whatever the policy (PR7).
        try await pair.upgradeOld(policy: policy)
        try await pair.old.engine.syncNow()
        try await new.engine.syncNow()
        #expect(try await pair.old.engine.status().cursor ?? 0 >= cursorBefore ?? 0)
        let upgradedNote = try #require(try pair.old.find("Note", "title", "n, edited on the older model").first)
        #expect(
            try pair.old.store.read { try $0.values(of: upgradedNote) }?["body"]
                == .string("edited while the older replica could not see it"))
        #expect(try pair.old.find("Note", "body", "m's body").count == 1)
        #expect(try pair.old.find("Label", "name", "urgent").count == 1)
        #expect(try pair.old.find("Label", "name", "later").count == 1)
        let oldState = try pair.old.canonicalState()
        #expect(oldState == (try new.canonicalState()))
        #expect(oldState.count == 4)
        // The catch-up happened once: the record now names the newer schema (VR1).
        let recorded = try pair.old.store.read { try ReplicaState($0).schemaRecord }
        let schema = try SyncSchema(model: pair.old.store.model, entities: SyncTestModel.newerEntities)
        #expect(recorded == schema.record)
        #expect(schema.grown(since: recorded).isEmpty)
    }

    @Test(.timeLimit(.minutes(1))) func scopeRefusesPushesFromModelsBelowItsMinimum() async throws {
        guard let server = TestServer.url() else { return }
        var pair = try Pair(server: server, scope: TestServer.scope())
        defer { Task { [pair] in await pair.close() } }
        try pair.old.create("Note", ["title": .string("before the minimum")])
        try await pair.old.engine.syncNow()
        try await Self.setMinimumModelVersion(2, server: server, scope: pair.scope)
        // The older replica's next push is refused with the typed error, and its edit stays
        // pending, whole, for after its upgrade.
        try pair.old.create("Note", ["title": .string("after the minimum")])
        let error = try await #require(throws: CdSyncError.self) { try await pair.old.engine.syncNow() }
        #expect(error.code == .modelTooOld)
        #expect(error.message.contains("model version 2"), "\(error)")
        #expect(try await pair.old.engine.status().pendingTransactions == 1)
        // The newer replica pushes as before, and sees nothing of the refused push.
        try pair.new.create("Note", ["title": .string("from the newer model")])
        try await pair.new.engine.syncNow()
        #expect(try pair.new.find("Note", "title", "after the minimum").isEmpty)
        #expect(try pair.new.find("Note", "title", "before the minimum").count == 1)
        // Upgraded, the replica pushes its edit (kept across the migration as its state, PC4).
        try await pair.upgradeOld()
        try await pair.old.engine.syncNow()
        try await pair.new.engine.syncNow()
        #expect(try pair.new.find("Note", "title", "after the minimum").count == 1)
        #expect(try pair.old.canonicalState() == pair.new.canonicalState())
    }

    @Test(.timeLimit(.minutes(1))) func entityAddedToTheSyncedListIsCaughtUp() async throws {
        guard let server = TestServer.url() else { return }
        let pair = try Pair(server: server, scope: TestServer.scope())
        defer { Task { [pair] in await pair.close() } }
        try pair.new.create("Label", ["name": .string("urgent")])
        try await pair.new.engine.syncNow()
        // A third replica on the newer model that syncs no labels yet: it skips them (PA4) while
        // its cursor moves past them.
        let path = pair.dir.appendingPathComponent("third.cdstore").path
        var third = try TestReplica(
            path: path, server: server, scope: pair.scope, model: try SyncTestModel.newer(),
            entities: SyncTestModel.entities, options: .smallPages)
        try await third.engine.syncNow()
        #expect(try third.find("Label", "name", "urgent").isEmpty)
        // Labels added to its entities: its next pull reads every label, not only those changed
        // after its cursor (VR2).
        try await third.close()
        third = try TestReplica(
            path: path, server: server, scope: pair.scope, model: try SyncTestModel.newer(),
            entities: SyncTestModel.newerEntities, options: .smallPages)
        try await third.engine.syncNow()
        #expect(try third.find("Label", "name", "urgent").count == 1)
        #expect(try third.canonicalState() == pair.new.canonicalState())
        try await third.close()
    }

    @Test(.timeLimit(.minutes(1))) func cdSyncDeclaresTheAppsModelVersion() async throws {
        guard let server = TestServer.url() else { return }
        let pair = try Pair(server: server, scope: TestServer.scope())
        defer { Task { [pair] in await pair.close() } }
        try await pair.new.engine.syncNow()  // the scope exists
        try await Self.setMinimumModelVersion(2, server: server, scope: pair.scope)
        var options = StoreOptions()
        options.history = .tracked
        let container = try CdContainer(
            model: CdModel(objectModel: SyncTestModel.newer(), classes: []),
            storeURL: pair.dir.appendingPathComponent("app.cdstore"), options: options)
        defer { try? container.close() }
        try await Cd.withContainer(container) {
            try await Cd.transaction {
                try Cd.create(entityNamed: "Note").setValue("from the app", forKey: "title")
            }
            // The default version, 1, is below the scope's minimum.
            let old = try CdSync(server: server, scope: pair.scope, entities: SyncTestModel.newerEntities)
            let error = try await #require(throws: CdSyncError.self) { try await old.syncNow() }
            #expect(error.code == .modelTooOld)
            await old.stop()
            let current = try CdSync(
                server: server, scope: pair.scope, entities: SyncTestModel.newerEntities, modelVersion: 2)
            try await current.syncNow()
            await current.stop()
        }
        try await pair.new.engine.syncNow()
        #expect(try pair.new.find("Note", "title", "from the app").count == 1)
    }

    /// Sets the scope's `min_model_version` as an operator would, in SQL.
    static func setMinimumModelVersion(_ version: Int, server: URL, scope: String) async throws {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        _ = try await c.run(
            "UPDATE cadmium_sync.scopes SET min_model_version = \(version) WHERE scope = \(scope)",
            "setting the minimum")
    }
}
