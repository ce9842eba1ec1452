// The Cd-facing front (`CdSync`) as an app uses it, in a process of its own (the `Cd` stack is
// one per process): the example of docs/SYNC.md pushes a note, another replica answers with
// one, and the front's background sync brings it to the main context, `Cd.commits` and a query
// observation (`changes()`, followed by a results controller) as an insert.

@testable import CadmiumSync
import CdFaultSupport
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: the Cd front") struct CdFrontTests {
    @Test(.timeLimit(.minutes(2))) func theExampleSyncsWithAnotherReplicaThroughTheCdStack() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = try ChildProcess(
            BuiltExecutable.locate("cadmium-sync-replica"),
            ["cd-example", dir.appendingPathComponent("app.cdstore").path, server.absoluteString, scope],
            outputPath: dir.appendingPathComponent("app.log").path)
        let peer = try TestReplica(path: dir.appendingPathComponent("peer.cdstore").path, server: server, scope: scope)
        // Wait for the app's note, then answer.
        var found = false
        let end = ContinuousClock.now + .seconds(60)
        while !found, ContinuousClock.now < end {
            try await peer.engine.syncNow()
            found = try !peer.find("Note", "title", "from cd").isEmpty
            if !found { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(found, "the app's note never reached the peer")
        try peer.create("Note", ["title": .string("from peer")])
        try await peer.engine.syncNow()
        let status = try await app.exitStatus()
        let text = app.output
        #expect(status == 0, "\(text)")
        #expect(text.contains("notes: from cd, from peer"), "\(text)")
        #expect(text.contains("pulled event: true, commit: true, pending: 0"), "\(text)")
        #expect(text.contains("observed insert: true"), "\(text)")
        try await peer.close()
    }
}
