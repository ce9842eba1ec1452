// Edits and deletes that were pending when a store migrated (PC6 of PushCollector.swift, PR9 of
// PushResolution.swift): the migration starts history anew (MG11), so they travel inside the
// state the upgraded replica pushes first, and arrive — an edit of a property the replica had
// pulled wins over the value it had seen, and loses only to an edit made elsewhere that it had
// not seen (a `property` conflict), and a delete is sent for every synced object it no longer
// holds. A rename of a tag (GI4) pending across the migration arrives as a rename (PC7).

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: edits pending across a store migration") struct MigrationPendingTests {
    @Test(.timeLimit(.minutes(1))) func editsAndDeletesPendingAcrossAMigrationArrive() async throws {
        guard let server = TestServer.url() else { return }
        var pair = try VersionsTests.Pair(server: server, scope: TestServer.scope())
        defer { Task { [pair] in await pair.close() } }
        let new = pair.new
        for title in ["edited", "deleted", "contested", "untouched"] {
            try pair.old.create("Note", ["title": .string(title)])
        }
        try await pair.old.engine.syncNow()
        try await new.engine.syncNow()
        // The newer replica edits one note after the older one's last pull.
        let contestedThere = try #require(try new.find("Note", "title", "contested").first)
        try new.update(contestedThere, ["title": .string("contested: the newer replica's")])
        try await new.engine.syncNow()
        // Pending on the older replica when it migrates.
        let edited = try #require(try pair.old.find("Note", "title", "edited").first)
        try pair.old.update(edited, ["title": .string("edited: before the upgrade")])
        try pair.old.delete(try #require(try pair.old.find("Note", "title", "deleted").first))
        let contested = try #require(try pair.old.find("Note", "title", "contested").first)
        try pair.old.update(contested, ["title": .string("contested: the older replica's")])
        #expect(try await pair.old.engine.status().pendingTransactions == 3)

        try await pair.upgradeOld()
        try await pair.old.engine.syncNow()
        try await new.engine.syncNow()
        try await pair.old.engine.syncNow()

        for (name, r) in [("upgraded", pair.old), ("newer", new)] {
            #expect(try r.find("Note", "title", "edited: before the upgrade").count == 1, "\(name): the edit")
            #expect(try r.find("Note", "title", "deleted").isEmpty, "\(name): the delete")
            #expect(try r.find("Note", "title", "contested: the newer replica's").count == 1, "\(name): the conflict")
            #expect(try r.find("Note", "title", "untouched").count == 1, "\(name): the rest")
            #expect(try r.store.read { try $0.fetchIDs(FetchRequest(entity: "Note")) }.count == 3, "\(name)")
        }
        #expect(try pair.old.canonicalState() == new.canonicalState())
        let oldID = try #require(try await pair.old.engine.status().replicaID)
        let conflicts = try await CreateAfterDeleteTests.conflicts(server, pair.scope)
        #expect(conflicts == [CreateAfterDeleteTests.RecordedConflict(kind: "property", loser: oldID)])
    }

    /// The older replica renames the synced tag "swift", which a note of the newer replica
    /// links, to "swiftlang" and migrates before pushing: its state push sends the rename (PC7),
    /// so the tag lives under the ID its new name derives (GI2), the link follows it (PU5), and a
    /// "swiftlang" the newer replica creates afterwards is the same object.
    @Test(.timeLimit(.minutes(1))) func aRenamePendingAcrossAMigrationArrivesAsARename() async throws {
        guard let server = TestServer.url() else { return }
        var pair = try VersionsTests.Pair(server: server, scope: TestServer.scope())
        defer { Task { [pair] in await pair.close() } }
        let new = pair.new
        let tag = try pair.old.create("Tag", ["name": .string("swift")])
        try await pair.old.engine.syncNow()
        try await new.engine.syncNow()
        let newTag = try #require(try new.find("Tag", "name", "swift").first)
        try new.create("Note", ["title": .string("linked"), "tags": .toMany([newTag])])
        try await new.engine.syncNow()
        try await pair.old.engine.syncNow()
        try pair.old.update(tag, ["name": .string("swiftlang")])

        try await pair.upgradeOld()
        try await pair.old.engine.syncNow()
        try await new.engine.syncNow()
        #expect(try await UniqueRenameTests.serverTags(server, pair.scope) == ["swiftlang": "swiftlang"])
        if try new.find("Tag", "name", "swiftlang").isEmpty {
            try new.create("Tag", ["name": .string("swiftlang")])
        }
        try await new.engine.syncNow()
        try await pair.old.engine.syncNow()

        for (name, r) in [("upgraded", pair.old), ("newer", new)] {
            #expect(try UniqueRenameTests.tagNames(r) == ["swiftlang"], "\(name)")
            #expect(try UniqueRenameTests.linkedTagNames(r, note: "linked") == ["swiftlang"], "\(name)")
        }
        #expect(try pair.old.canonicalState() == new.canonicalState())
        #expect(try await UniqueRenameTests.serverTags(server, pair.scope) == ["swiftlang": "swiftlang"])
    }
}
