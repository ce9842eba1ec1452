// `cadmium-sync-replica cd-example <store> <url> <scope>`: the issue's and docs/SYNC.md's code
// as an app runs it, on the `Cd` stack: a note written in a transaction is pushed; the process
// then syncs in the background until a note titled "from peer" (which the test writes on another
// replica) has arrived through the ordinary commit path — in a fetch on the main context, in
// `Cd.commits`, and in a query observation (`request.changes()`, which a results controller
// follows incrementally) as an insert — and prints what it saw.

import Cadmium
import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation

@MainActor
func runCdExample(store: String, server: URL, scope: String) async throws {
    var options = StoreOptions()
    options.history = .tracked
    try Cd.initWithStore(
        model: CdModel(objectModel: SyncTestModel.make(), classes: []), storeURL: URL(fileURLWithPath: store),
        options: options)
    defer { try? Cd.close() }
    let commits = Cd.commits
    try await Cd.transaction {
        let note = try Cd.create(entityNamed: "Note")
        try note.setValue("from cd", forKey: "title")
    }
    let sync = try CdSync(server: server, scope: scope, entities: ["Folder", "Note", "Tag"])
    try await sync.syncNow()
    print("pushed")
    // Observed before the pull: its first change is the results now (the app's note), the pulled
    // note must come as a later, non-initial change that inserts it.
    let observed = Task { @MainActor in
        for try await change in Cd.objects(entityNamed: "Note").sorted("title").changes() {
            let titles = try change.results.compactMap { try $0.value(forKey: "title") as? String }
            if titles.contains("from peer") { return !change.isInitial && !change.inserted.isEmpty }
        }
        return false
    }
    let events = sync.events
    sync.start()
    let deadline = ContinuousClock.now + .seconds(60)
    var sawEvent = false
    for await event in events {
        if case .pulled = event { sawEvent = true }
        if try Cd.objects(entityNamed: "Note").filter("title == %@", "from peer").count() == 1 { break }
        if ContinuousClock.now > deadline { break }
    }
    // The pulled commit reached Cd.commits like any commit.
    let waiter = Task { @MainActor in
        for await commit in commits where commit.inserted["Note"] != nil && commit.number > 1 { return true }
        return false
    }
    let timer = Task {
        try? await Task.sleep(for: .seconds(10))
        waiter.cancel()
    }
    let sawCommit = await waiter.value
    timer.cancel()
    let observer = Task {
        try? await Task.sleep(for: .seconds(10))
        observed.cancel()
    }
    let sawChange = (try? await observed.value) ?? false
    observer.cancel()
    let status = try await sync.status()
    await sync.stop()
    let titles = try Cd.objects(entityNamed: "Note").fetch().compactMap { try $0.value(forKey: "title") as? String }
    print("notes: \(titles.sorted().joined(separator: ", "))")
    print("pulled event: \(sawEvent), commit: \(sawCommit), pending: \(status.pendingTransactions)")
    print("observed insert: \(sawChange)")
}
