// The Cd-facing front (`CdSync`) as an app uses it, in a process of its own (the `Cd` stack is
// one per process): the example of docs/SYNC.md pushes a note, another replica answers with
// one, and the front's background sync brings it to the main context and `Cd.commits`.

@testable import CadmiumSync
import CdFaultSupport
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: the Cd front") struct CdFrontTests {
    @Test func theExampleSyncsWithAnotherReplicaThroughTheCdStack() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let process = Process()
        process.executableURL = try BuiltExecutable.locate("cadmium-sync-replica")
        process.arguments = [
            "cd-example", dir.appendingPathComponent("app.cdstore").path, server.absoluteString, scope,
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let peer = try TestReplica(path: dir.appendingPathComponent("peer.cdstore").path, server: server, scope: scope)
        // Wait for the app's note, then answer.
        var found = false
        for _ in 0..<200 where !found {
            try await peer.engine.syncNow()
            found = try !peer.find("Note", "title", "from cd").isEmpty
            if !found { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(found, "the app's note never reached the peer")
        try peer.create("Note", ["title": .string("from peer")])
        try await peer.engine.syncNow()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("notes: from cd, from peer"), "\(text)")
        #expect(text.contains("pulled event: true, commit: true, pending: 0"), "\(text)")
        try await peer.close()
    }
}
