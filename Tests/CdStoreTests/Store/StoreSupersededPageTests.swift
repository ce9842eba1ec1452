import Foundation
import Testing
@testable import CdStore

/// A commit files each page it wrote in the cache slot of the version it supersedes when no reader
/// of the process is registered (WriteTransaction R7, PageCache PC4); with a reader open, the old
/// versions stay, and a reader of an older snapshot reads its own versions either way.
@Suite struct StoreSupersededPageTests {
    static func options() -> StoreOptions {
        var o = StoreOptions(fileSystem: InMemoryFileSystem())
        o.pageSize = 4096
        o.durability = .normal
        o.checkpointThresholdBytes = 1 << 40
        return o
    }

    static func put(_ store: Store, _ value: String) throws {
        try store.write { tx in try tx.openOrCreateTree("t").put(Array("k".utf8), Array(value.utf8)) }
    }

    static func rootKey(_ store: Store, commit: CommitSequence) throws -> PageCache.Key {
        let root = try store.read { tx in try tx.tree("t")!.btree.root }
        return PageCache.Key(page: root.rawValue, commit: commit.rawValue)
    }

    static func value(_ tx: ReadTransaction) throws -> String? {
        try tx.tree("t")?.get(Array("k".utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aCommitReplacesTheVersionItSupersedesWhenNoReaderIsOpen() throws {
        let store = try Store.open(path: "/s", options: Self.options())
        defer { try? store.close() }
        try Self.put(store, "1")
        let first = store.written
        let firstKey = try Self.rootKey(store, commit: first)
        #expect(store.cache.contains(firstKey))
        let cached = store.cache.count
        try Self.put(store, "2")
        let secondKey = try Self.rootKey(store, commit: store.written)
        #expect(!store.cache.contains(firstKey), "the superseded version of the leaf is no longer cached")
        #expect(store.cache.contains(secondKey))
        // The leaf and the meta page each took their old slot: the cache holds as many pages.
        #expect(store.cache.count == cached)
        #expect(try store.read { tx in try Self.value(tx) } == "2")
    }

    @Test func anOpenReaderKeepsTheVersionsItMayRead() throws {
        let store = try Store.open(path: "/r", options: Self.options())
        defer { try? store.close() }
        try Self.put(store, "1")
        let firstKey = try Self.rootKey(store, commit: store.written)
        let reader = try store.beginRead()
        #expect(try Self.value(reader) == "1")
        try Self.put(store, "2")
        #expect(store.cache.contains(firstKey), "a reader is open: the older version stays cached")
        #expect(try Self.value(reader) == "1")
        reader.end()
        try Self.put(store, "3")
        #expect(try store.read { tx in try Self.value(tx) } == "3")
    }

    @Test func aSupersededVersionIsReadBackFromTheLog() throws {
        // A reader of the older snapshot that registers after the commit (with durability `full`,
        // one that begins before the commit's sync) reads that version again from the WAL.
        let store = try Store.open(path: "/l", options: Self.options())
        defer { try? store.close() }
        try Self.put(store, "1")
        let firstKey = try Self.rootKey(store, commit: store.written)
        let tx = try store.beginWrite()
        try tx.tree("t")!.put(Array("k".utf8), Array("2".utf8))
        try tx.commit()
        #expect(!store.cache.contains(firstKey))
        let old = try store.loadPage(PageNumber(firstKey.page), snapshot: CommitSequence(firstKey.commit))
        let node = try BTreeNode(old, number: PageNumber(firstKey.page))
        #expect(node.count == 1)
        #expect(store.cache.contains(firstKey), "read back from the log and cached again")
    }
}
