// `cadmium-sync-replica slow-pull <store> <server URL> <scope> <page size> <pause ms>`: one sync
// whose pull stops for a while after each page and says so on standard output ("page N", written
// unbuffered), so that a test can SIGKILL the process between the pages of a pull
// (Tests/CadmiumSyncTests/PullPagingTests.swift). Prints "done" when the sync has finished.

import CadmiumSync
import CdSyncTesting
import Foundation

func runSlowPull(store: String, server: URL, scope: String, pageSize: Int, pause: Int) async throws {
    var options = SyncEngineOptions()
    options.pullPageSize = pageSize
    options.afterPulledPage = { page in
        FileHandle.standardOutput.write(Data("page \(page)\n".utf8))
        try await Task.sleep(for: .milliseconds(pause))
    }
    let replica = try TestReplica(path: store, server: server, scope: scope, options: options)
    try await replica.engine.syncNow()
    try await replica.close()
    FileHandle.standardOutput.write(Data("done\n".utf8))
}
