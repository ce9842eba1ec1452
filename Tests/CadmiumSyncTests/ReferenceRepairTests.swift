// A reference left pointing at a deleted object is repaired on the server, once, and every
// replica converges on the repair (PU4 of ServerConnection+Push.swift). The campaign's seed 7919
// (400 steps) met the case: notes on the server still named a tag that a concurrent push had
// deleted; when the tag was created again under its derived ID the reference came back to life
// there, while replicas that had dropped it (PA3) never pulled the note again — they diverged.
// Here: links pushed after their targets' deletes are stripped, so the server names no tombstone.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: references to deleted objects") struct ReferenceRepairTests {
    @Test func linksPushedAfterTheirTargetsWereDeletedAreStrippedOnTheServer() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(2, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try a.create("Tag", ["name": .string("swift")])
        let folder = try a.create("Folder", ["name": .string("inbox")])
        let note = try a.create("Note", ["title": .string("n")])
        try await set.syncAll()
        // b deletes the tag and the folder; a, not having pulled that, links its note to both
        // (a newer edit of the note: it wins, and named two tombstones on the server).
        try b.delete(try #require(try b.find("Tag", "name", "swift").first))
        try b.delete(try #require(try b.find("Folder", "name", "inbox").first))
        try await b.engine.syncNow()
        let tagA = try #require(try a.find("Tag", "name", "swift").first)
        try a.update(note, ["tags": .toMany([tagA]), "folder": .toOne(folder)])
        try await a.engine.syncNow()
        try await set.syncAll()
        // The server names no deleted object (so nothing can come back if one is created again
        // under its derived ID), and a replica that starts now agrees with a and b.
        let late = try TestReplica(
            path: set.dir.appendingPathComponent("late.cdstore").path, server: server, scope: set.scope)
        try await late.engine.syncNow()
        try set.expectConverged()
        #expect(try late.canonicalState() == a.canonicalState())
        #expect(try await Self.serverMatches(a, server, set.scope))
        let lateNote = try #require(try late.find("Note", "title", "n").first)
        #expect(try late.store.read { try $0.related(lateNote, "tags") }.isEmpty, "the deleted tag's link came back")
        #expect(try late.store.read { try $0.values(of: lateNote)?["folder"] } == .toOne(nil))
        try await late.close()
    }

    /// Whether the server's objects, as stored (dangling references kept), are `r`'s.
    static func serverMatches(_ r: TestReplica, _ server: URL, _ scope: String) async throws -> Bool {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        let pulled = try await c.pull(scope, replica: UUID(), after: nil)
        var stored: [String: String] = [:]
        for o in pulled.objects where !o.deleted {
            let parts = try o.properties.keys.sorted().map { name in
                "\(name)=\(try WireValue(json: o.properties[name]!.json, where: name).json)"
            }
            stored[o.gid.uuidString] = ([o.entity] + parts).joined(separator: " ")
        }
        let local = try r.store.read {
            try WireState.of($0, schema: SyncSchema(model: r.store.model, entities: SyncTestModel.entities))
        }
        return stored == local
    }
}
