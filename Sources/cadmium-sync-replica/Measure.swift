// `cadmium-sync-replica measure <dir> <server URL> [commits]`: the sync figures of
// docs/BENCHMARKS.md (Sync). Two replicas in this process on one server:
//   latency     a note committed on replica A (which then syncs) until replica B, syncing in the
//               background (LISTEN/NOTIFY), holds it — p50 and p99 over `commits` notes;
//   push        10,000 notes committed on A in 100 commits, then pushed (in batches of
//               `SyncEngineOptions.pushBatchLimit`): objects per second, and the batches;
//   pull        B takes them in one sync (pages of 500, one local commit): objects per second.

import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation

func runMeasure(dir: String, server: URL, commits: Int) async throws {
    let scope = "measure-\(UUID().uuidString.prefix(8))"
    let a = try TestReplica(path: "\(dir)/a.cdstore", server: server, scope: scope)
    let b = try TestReplica(path: "\(dir)/b.cdstore", server: server, scope: scope)
    try await a.engine.syncNow()
    try await b.engine.syncNow()
    let loop = Task { await b.engine.runLoop() }
    let listener = Task { await b.engine.listenLoop() }
    try await Task.sleep(for: .milliseconds(300))
    var latencies: [Double] = []
    for i in 0..<commits {
        let title = "latency \(i)"
        let start = ContinuousClock.now
        try a.create("Note", ["title": .attribute(.string(title))])
        try await a.engine.syncNow()
        while try b.find("Note", "title", title).isEmpty {
            try await Task.sleep(for: .microseconds(200))
            if ContinuousClock.now - start > .seconds(30) { throw MeasureFailure("note \(i) never arrived") }
        }
        let d = ContinuousClock.now - start
        latencies.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }
    loop.cancel()
    listener.cancel()
    await b.engine.stopBackground()
    latencies.sort()
    let p50 = latencies[latencies.count / 2]
    let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
    print(String(format: "latency: commit on A to visible on B, %d notes: p50 %.1f ms, p99 %.1f ms", commits, p50, p99))

    let objects = 10_000
    for k in 0..<100 {
        let ids = try a.store.newObjectIDs(entity: "Note", count: objects / 100)
        var changes = ChangeSet()
        for (j, id) in ids.enumerated() {
            changes.inserted[id] = [
                "title": .attribute(.string("bulk \(k)-\(j)")), "rank": .attribute(.integer(Int64(j))),
            ]
        }
        try a.store.apply(changes)
    }
    let batchesBefore = try await a.engine.status().acknowledgedBatches
    let start = ContinuousClock.now
    try await a.engine.syncNow()
    let d = ContinuousClock.now - start
    let batches = try await a.engine.status().acknowledgedBatches - batchesBefore
    let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    print(
        String(
            format: "push: %d notes in 100 local commits, one sync: %.2f s, %.0f objects/s, %d batches (%.2f s each)",
            objects, seconds, Double(objects) / seconds, Int(batches), seconds / Double(max(batches, 1))))
    // Pull: B, whose background loop has stopped, takes the 10,000 notes in one pull (20 pages of
    // 500 from one server snapshot, one local commit).
    let pullStart = ContinuousClock.now
    try await b.engine.syncNow()
    let p = ContinuousClock.now - pullStart
    let pullSeconds = Double(p.components.seconds) + Double(p.components.attoseconds) / 1e18
    let arrived = try b.store.read { try $0.fetchIDs(FetchRequest(entity: "Note")) }.count
    print(
        String(
            format: "pull: %d notes in one sync (pages of 500, one local commit): %.2f s, %.0f objects/s", arrived,
            pullSeconds,
            Double(arrived) / pullSeconds))
    try await a.close()
    try await b.close()
}

struct MeasureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
