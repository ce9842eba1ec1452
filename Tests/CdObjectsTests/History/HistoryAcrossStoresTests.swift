import CdStore
import Foundation
import Testing
@testable import CdObjects

/// Persistent history with several stores on one file (two stores are two processes,
/// StoreSharingTests): a store opened before another started the history records its commits too
/// (HS6), and two stores starting it at once keep one history.
@Suite struct HistoryAcrossStoresTests {
    @Test(arguments: ["memory", "posix"])
    func aStoreOpenedBeforeTheHistoryStartedRecordsItsCommits(_ kind: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs: any StoreFileSystem = kind == "memory" ? InMemoryFileSystem() : POSIXFileSystem()
        let path = kind == "memory" ? "/h" : dir.appendingPathComponent("h").path
        let model = try historyModel()
        var off = trackedOptions(fs)
        off.history = .off
        let early = try ObjectStore.open(path: path, model: model, options: off)
        #expect(!early.isHistoryTracked)
        let tracking = try ObjectStore.open(path: path, model: model, options: trackedOptions(fs))
        let first = try tracking.newObjectIDs(entity: "Office", count: 1)[0]
        try tracking.apply(ChangeSet(inserted: [first: ["city": .attribute(.string("Lyon"))]]))
        // The early store's commit comes after the tracking store's: it reads the ID, records.
        let second = try early.newObjectIDs(entity: "Office", count: 1)[0]
        try early.apply(ChangeSet(inserted: [second: ["city": .attribute(.string("Oslo"))]]))
        #expect(early.isHistoryTracked)
        let history = try tracking.history(after: nil)
        #expect(history.map { $0.changes.map(\.objectID) } == [[first], [second]])
        #expect(try early.history(after: nil) == history)
        try early.close()
        try tracking.close()
    }

    /// The start that lost the race (it read no ID, then another store stored one before its
    /// write) keeps the ID it finds under the writer, and the history recorded under it.
    @Test func aStartThatFindsAnIDUnderTheWriterKeepsIt() throws {
        let fs = InMemoryFileSystem()
        let store = try ObjectStore.open(path: "/h", model: try historyModel(), options: trackedOptions(fs))
        let id = try #require(store.historyID)
        let office = try store.newObjectIDs(entity: "Office", count: 1)[0]
        try store.apply(ChangeSet(inserted: [office: ["city": .attribute(.string("Lyon"))]]))
        #expect(try HistoryRecorder.startAnew(store.engine, keepingAnyID: true) == id)
        #expect(try store.history(after: nil).count == 1, "its history is kept")
        #expect(try HistoryRecorder.startAnew(store.engine) != id, "a migration's start still begins anew")
        try store.close()
    }
}
