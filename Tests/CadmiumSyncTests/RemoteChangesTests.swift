// A pull applied by a sync in another process is an ordinary commit of that process: this
// process's `Cd.remoteChanges` reports it, with the pull's history transaction, after the main
// context merged it (RemoteChangeWatcher.swift). The other process is `cdsync once` on the same
// store file, which this process holds open through `Cd`. The `Cd` code runs against a container
// of the test's own (`Cd.withContainer`, where `Cd.remoteChanges` is that container's), since
// the test binary runs other suites' `Cd` code in parallel on the default one.

@testable import CadmiumSync
import Cadmium
import CdFaultSupport
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: another process's pull reaches Cd.remoteChanges") struct RemoteChangesTests {
    @Test(.timeLimit(.minutes(1))) func aPullAppliedByAnotherProcessReachesRemoteChanges() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let shared = dir.appendingPathComponent("shared.cdstore")
        var options = StoreOptions()
        options.history = .tracked
        let container = try CdContainer(
            model: CdModel(objectModel: SyncTestModel.make(), classes: []), storeURL: shared, options: options)
        defer { try? container.close() }
        let stream = Cd.withContainer(container) { Cd.remoteChanges }  // subscribed from here on (RB1)
        // Another replica's note, on the server.
        let peer = try TestReplica(path: dir.appendingPathComponent("peer.cdstore").path, server: server, scope: scope)
        try peer.create("Note", ["title": .string("from peer")])
        try await peer.engine.syncNow()
        try await peer.close()
        // Another process syncs the shared file once: its pull commits the note there.
        let child = try ChildProcess(
            BuiltExecutable.locate("cdsync"),
            [
                "once", shared.path, "--server", server.absoluteString, "--scope", scope, "--entity", "Folder",
                "--entity", "Note", "--entity", "Tag",
            ], outputPath: dir.appendingPathComponent("cdsync.log").path)
        #expect(try await child.exitStatus() == 0, "\(child.output)")
        let heard = Task { () -> CdRemoteChange? in
            for await change in stream {
                let pulled = change.transactions.contains { t in
                    t.author == PushCollector.author
                        && t.changes.contains { $0.kind == .insert && $0.objectID.entity == "Note" }
                }
                if pulled { return change }
            }
            return nil
        }
        let timer = Task {
            try? await Task.sleep(for: .seconds(20))
            heard.cancel()
        }
        let change = await heard.value
        timer.cancel()
        #expect(change != nil, "no remote change carried the other process's pull")
        #expect(change?.storeURL.path == shared.path)
        // The event came after the main context merged the pull.
        let titles = try await MainActor.run {
            try Cd.withContainer(container) {
                try Cd.objects(entityNamed: "Note").fetch().compactMap { try $0.value(forKey: "title") as? String }
            }
        }
        #expect(titles == ["from peer"])
    }
}
