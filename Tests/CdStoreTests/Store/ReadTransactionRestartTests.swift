import Foundation
import Testing
@testable import CdStore

/// A read transaction begun again after its end (`ReadTransaction.restart`) reads the last commit,
/// as a new one would: the trees it knew are kept on the same commit and looked up again on a new
/// one, and a reader is registered only while it is begun.
@Suite struct ReadTransactionRestartTests {
    static func value(_ tx: ReadTransaction, _ tree: String) throws -> String? {
        try tx.tree(tree)?.get(Array("k".utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aRestartReadsTheLastCommitAndHoldsNoReaderWhileEnded() throws {
        let store = try Store.open(path: "/r", options: CatalogRootsTests.options(InMemoryFileSystem()))
        defer { try? store.close() }
        try CatalogRootsTests.put(store, "a", "k", "1")
        let tx = try store.beginRead()
        #expect(try Self.value(tx, "a") == "1" && Self.value(tx, "b") == nil)
        tx.end()
        #expect(store.statistics.activeReaders == 0)
        // No commit since: the same snapshot, its trees kept.
        #expect(try tx.restart())
        #expect(store.statistics.activeReaders == 1)
        #expect(try Self.value(tx, "a") == "1")
        tx.end()
        // A commit that changes "a" and creates "b": the restart reads both as they are now.
        try CatalogRootsTests.put(store, "a", "k", "2")
        try CatalogRootsTests.put(store, "b", "k", "3")
        #expect(try !tx.restart())
        #expect(tx.snapshot == store.statistics.lastCommit)
        #expect(try Self.value(tx, "a") == "2" && Self.value(tx, "b") == "3")
        tx.end()
        #expect(store.statistics.activeReaders == 0)
        // An ended transaction reads nothing until it restarts.
        #expect(throws: StoreError.self) { try Self.value(tx, "a") }
    }

    @Test func aRestartOnAClosedStoreThrows() throws {
        let store = try Store.open(path: "/c", options: CatalogRootsTests.options(InMemoryFileSystem()))
        let tx = try store.beginRead()
        tx.end()
        try store.close()
        #expect(throws: StoreError.self) { try tx.restart() }
    }
}
