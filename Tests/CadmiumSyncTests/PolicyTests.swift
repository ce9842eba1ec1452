// The conflict policies other than the default, and the model rules checked at start.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: policies and model rules") struct PolicyTests {
    /// a and b edit one note's title concurrently (b later); a pushes first.
    private func concurrentTitles(_ policy: CdSyncConflictPolicy) async throws -> (ReplicaSet, Error?)? {
        guard let server = TestServer.url() else { return nil }
        var options = SyncEngineOptions()
        options.policies = ["Note": policy]
        let set = try ReplicaSet(2, server: server, scope: TestServer.scope("\(policy)"), options: options)
        let a = set[0], b = set[1]
        let note = try a.create("Note", ["title": .string("start")])
        try await set.syncAll()
        let noteB = try #require(try b.find("Note", "title", "start").first)
        try a.update(note, ["title": .string("from a")])
        try await Task.sleep(for: .milliseconds(5))
        try b.update(noteB, ["title": .string("from b")])
        try await a.engine.syncNow()
        var error: Error?
        do { try await b.engine.syncNow() } catch let e { error = e }
        try await b.engine.syncNow()
        try await a.engine.syncNow()
        return (set, error)
    }

    @Test func storeTrumpKeepsTheFirstPushedEdit() async throws {
        guard let (set, _) = try await concurrentTitles(.mergeByPropertyStoreTrump) else { return }
        let line = try set.expectConverged().values.first { $0.hasPrefix("Note ") } ?? ""
        #expect(line.contains("title=\"from a\""))
        await set.close()
    }

    @Test func objectTrumpKeepsTheLastPushedEdit() async throws {
        guard let (set, _) = try await concurrentTitles(.mergeByPropertyObjectTrump) else { return }
        let line = try set.expectConverged().values.first { $0.hasPrefix("Note ") } ?? ""
        #expect(line.contains("title=\"from b\""))
        await set.close()
    }

    @Test func theErrorPolicyRefusesTheBatchListingTheConflict() async throws {
        guard let (set, error) = try await concurrentTitles(.error) else { return }
        let e = try #require(error as? CdSyncError)
        #expect(e.code == .conflictRefused)
        #expect(e.message.contains("title"))
        // The refused replica pulled the server's value, and its next push is no longer concurrent.
        let line = try set.expectConverged().values.first { $0.hasPrefix("Note ") } ?? ""
        #expect(line.contains("title=\"from a\""))
        await set.close()
    }

    @Test func aRequiredRelationshipIsRefusedNamingTheEntityAndTheRule() throws {
        var entities = try SyncTestModel.make().entities
        let i = try #require(entities.firstIndex { $0.name == "Note" })
        let j = try #require(entities[i].relationships.firstIndex { $0.name == "folder" })
        entities[i].relationships[j].isOptional = false
        entities[i].relationships[j].minCount = 1
        let model = try ObjectModel(entities: entities)
        do {
            _ = try SyncSchema(model: model, entities: ["Note", "Folder", "Tag"])
            Issue.record("a required relationship was accepted")
        } catch let e as CdSyncError {
            #expect(e.code == .modelRule)
            #expect(e.message.contains("Note") && e.message.contains("folder"))
        }
        #expect(throws: CdSyncError.self) { try SyncSchema(model: model, entities: ["Nope"]) }
        do {
            _ = try SyncSchema(model: try SyncTestModel.make(), entities: ["Note"])
            Issue.record("a relationship to an entity that is not synced was accepted")
        } catch let e as CdSyncError {
            #expect(e.code == .modelRule)
            #expect(e.message.contains("not synced"))
        }
    }

    @Test func eachRelationshipPairTravelsOnOneSide() throws {
        let schema = try SyncSchema(model: try SyncTestModel.make(), entities: SyncTestModel.entities)
        #expect(schema.entities["Note"]?.relationships.keys.sorted() == ["folder", "tags"])
        #expect(schema.entities["Folder"]?.relationships.isEmpty == true)
        #expect(schema.entities["Tag"]?.relationships.isEmpty == true)
        #expect(schema.entities["Tag"]?.uniqueness == ["name"])
    }
}
