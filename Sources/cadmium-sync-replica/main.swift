// One replica process of the convergence campaign (Tests/CadmiumSyncTests/CampaignTests.swift):
// opens its store, runs the seeded workload against the server, syncing now and then, and prints
// its counts. The harness kills it (SIGKILL) and starts it again on the same store.
//
//   cadmium-sync-replica <store> <server URL> <scope> <index> <seed> <steps> [skew-ms] [--duplicate-pushes]
//                        [--page-size N]
//   cadmium-sync-replica cd-example <store> <server URL> <scope>     (CdExample.swift)
//   cadmium-sync-replica slow-pull <store> <server URL> <scope> <page size> <pause ms>  (SlowPull.swift)
//   cadmium-sync-replica measure <dir> <server URL> [commits]        (Measure.swift)

import CadmiumSync
import CdSyncTesting
import Foundation

let arguments = CommandLine.arguments
if arguments.count >= 4, arguments[1] == "measure", let url = URL(string: arguments[3]) {
    do {
        try await runMeasure(
            dir: arguments[2], server: url, commits: arguments.count > 4 ? Int(arguments[4]) ?? 200 : 200)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("measure: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count == 7, arguments[1] == "slow-pull", let url = URL(string: arguments[3]),
    let pageSize = Int(arguments[5]), let pause = Int(arguments[6])
{
    do {
        try await runSlowPull(store: arguments[2], server: url, scope: arguments[4], pageSize: pageSize, pause: pause)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("slow-pull: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.count == 5, arguments[1] == "cd-example", let url = URL(string: arguments[3]) {
    do {
        try await runCdExample(store: arguments[2], server: url, scope: arguments[4])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("cd-example: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 7, let url = URL(string: arguments[2]), let index = Int(arguments[4]),
    let seed = UInt64(arguments[5]), let steps = Int(arguments[6])
else {
    FileHandle.standardError.write(
        Data(
            ("usage: cadmium-sync-replica <store> <url> <scope> <index> <seed> <steps> [skew-ms] [--duplicate-pushes]"
                + " [--page-size N]\n").utf8))
    exit(2)
}
var options = SyncEngineOptions()
if arguments.count >= 8, let skew = Double(arguments[7]) { options.clockOffset = skew / 1000 }
options.duplicatePushes = arguments.contains("--duplicate-pushes")
if let i = arguments.firstIndex(of: "--page-size"), i + 1 < arguments.count, let size = Int(arguments[i + 1]) {
    options.pullPageSize = size  // pulls of many pages, so that a SIGKILL can fall between two
}
do {
    let replica = try TestReplica(path: arguments[1], server: url, scope: arguments[3], options: options)
    var workload = CampaignWorkload(replica: replica, index: index, seed: seed)
    let counts = await workload.run(steps: steps)
    try await replica.close()
    print("replica \(index): \(counts)")
    exit(counts.torn == 0 ? 0 : 3)
} catch {
    FileHandle.standardError.write(Data("replica \(index): \(error)\n".utf8))
    exit(1)
}
