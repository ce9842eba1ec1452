// `cadmium-sync-replica cd-example <store> <url> <scope>`: the issue's and docs/SYNC.md's code
// as an app runs it, on the `Cd` stack: a note written in a transaction is pushed; the process
// then syncs in the background until a note titled "from peer" (which the test writes on another
// replica) has arrived through the ordinary commit path — in a fetch on the main context and in
// `Cd.commits` — and prints what it saw.

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
    let status = try await sync.status()
    await sync.stop()
    let titles = try Cd.objects(entityNamed: "Note").fetch().compactMap { try $0.value(forKey: "title") as? String }
    print("notes: \(titles.sorted().joined(separator: ", "))")
    print("pulled event: \(sawEvent), commit: \(sawCommit), pending: \(status.pendingTransactions)")
}
