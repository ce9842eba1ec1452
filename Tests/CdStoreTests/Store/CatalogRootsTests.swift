import Foundation
import Testing
@testable import CdStore

/// Read transactions of one commit share its catalog entries (CatalogRoots CR1–CR3), and a commit
/// of this store or of another process on the same file is seen by the next read transaction:
/// its trees, created, dropped or created again at another root, are looked up anew.
@Suite struct CatalogRootsTests {
    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .normal
        return o
    }

    static func value(_ store: Store, _ tree: String, _ key: String) throws -> String? {
        try store.read { tx in try tx.tree(tree)?.get(Array(key.utf8)).map { String(decoding: $0, as: UTF8.self) } }
    }

    static func put(_ store: Store, _ tree: String, _ key: String, _ value: String) throws {
        try store.write { tx in try tx.openOrCreateTree(tree).put(Array(key.utf8), Array(value.utf8)) }
    }

    @Test func readersOfOneCommitShareItsCatalogEntries() throws {
        let store = try Store.open(path: "/c", options: Self.options(InMemoryFileSystem()))
        defer { try? store.close() }
        try Self.put(store, "a", "k", "1")
        let before = store.catalogRoots.hits
        for _ in 0..<10 { #expect(try Self.value(store, "a", "k") == "1") }
        // The writer noted "a" for the commit it wrote (CR4): every reader finds it shared.
        #expect(store.catalogRoots.hits - before == 10)
        // A name without a tree is shared too, as none: the first reader looks it up.
        for _ in 0..<3 { #expect(try Self.value(store, "missing", "k") == nil) }
        #expect(store.catalogRoots.hits - before == 12)
        // A write transaction of the same commit uses them too while its catalog is that
        // commit's (CR2).
        let found = try store.write { tx in try tx.tree("a") != nil }
        #expect(found)
        #expect(store.catalogRoots.hits - before == 13)
    }

    @Test func theNextWriterFindsTheTreesTheLastOneWrote() throws {
        let store = try Store.open(path: "/w", options: Self.options(InMemoryFileSystem()))
        defer { try? store.close() }
        try Self.put(store, "a", "k", "1")
        let before = store.catalogRoots.hits
        for i in 0..<5 { try Self.put(store, "a", "k", "\(i)") }
        // Each writer finds "a" among the entries its predecessor noted (CR4), with no descent.
        #expect(store.catalogRoots.hits - before == 5)
        #expect(try Self.value(store, "a", "k") == "4")
    }

    @Test func aWriterThatChangedTheCatalogReadsItsOwn() throws {
        let store = try Store.open(path: "/d", options: Self.options(InMemoryFileSystem()))
        defer { try? store.close() }
        try store.write { tx in
            try tx.createTree("a").put(Array("k".utf8), Array("1".utf8))
            try tx.createTree("b").put(Array("k".utf8), Array("1".utf8))
        }
        // The writer noted "a" and "b" for its commit (CR4); once the writer drops "a", neither is read from
        // the shared entries: "a" is gone in its catalog, "b" is looked up in its own (CR2).
        let before = store.catalogRoots.hits
        let (aAfterDrop, bFound) = try store.write { tx -> (Bool, Bool) in
            try tx.dropTree("a")
            return (try tx.tree("a") != nil, try tx.tree("b") != nil)
        }
        #expect(!aAfterDrop)
        #expect(bFound)
        #expect(store.catalogRoots.hits - before == 1)  // the drop's own look-up of "a"
        // The dropped tree is not among the entries noted for the new commit.
        #expect(try Self.value(store, "a", "k") == nil)
        #expect(try Self.value(store, "b", "k") == "1")
        // Created again at another root in one transaction, then read by the next one.
        try store.write { tx in
            try tx.createTree("a").put(Array("k".utf8), Array("2".utf8))
        }
        #expect(try Self.value(store, "a", "k") == "2")
    }

    @Test func aWriteThatAbortsNotesNothing() throws {
        let store = try Store.open(path: "/x", options: Self.options(InMemoryFileSystem()))
        defer { try? store.close() }
        try Self.put(store, "a", "k", "1")
        let tx = try store.beginWrite()
        _ = try tx.createTree("b")
        tx.abort()
        #expect(try Self.value(store, "b", "k") == nil)
        #expect(try Self.value(store, "a", "k") == "1")
    }

    @Test(arguments: ["memory", "posix"])
    func anotherProcesssCommitIsSeenByTheNextReader(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let fs: any StoreFileSystem = kind == "memory" ? InMemoryFileSystem() : POSIXFileSystem()
        let path = kind == "memory" ? "/s" : dir.path("s")
        let a = try Store.open(path: path, options: Self.options(fs))
        let b = try Store.open(path: path, options: Self.options(fs))
        defer {
            try? a.close()
            try? b.close()
        }
        try Self.put(a, "first", "k", "1")
        // `b` learns that "second" does not exist at this commit, twice (the second time shared).
        #expect(try Self.value(b, "second", "k") == nil)
        #expect(try Self.value(b, "second", "k") == nil)
        // The other process creates it: `b`'s next reader finds it.
        try Self.put(a, "second", "k", "2")
        #expect(try Self.value(b, "second", "k") == "2")
        #expect(try Self.value(b, "second", "k") == "2")
        // Dropped by the other process, then created again with other values.
        try a.write { tx in try tx.dropTree("second") }
        #expect(try Self.value(b, "second", "k") == nil)
        try a.write { tx in
            try tx.createTree("second").put(Array("k".utf8), Array("3".utf8))
        }
        #expect(try Self.value(b, "second", "k") == "3")
    }

    @Test func aReaderOfAnOlderCommitReadsItsOwnCatalog() throws {
        let fs = InMemoryFileSystem()
        let a = try Store.open(path: "/h", options: Self.options(fs))
        let b = try Store.open(path: "/h", options: Self.options(fs))
        defer {
            try? a.close()
            try? b.close()
        }
        try Self.put(a, "t", "k", "old")
        let held = try b.beginRead()
        #expect(try held.tree("t")?.get(Array("k".utf8)) == Array("old".utf8))
        // Newer commits of both processes replace the shared entries with the newest commit's;
        // the held reader keeps its own tree, and a tree created after its snapshot stays absent.
        try a.write { tx in
            try tx.dropTree("t")
            try tx.createTree("t").put(Array("k".utf8), Array("new".utf8))
            try tx.createTree("later").put(Array("k".utf8), Array("x".utf8))
        }
        #expect(try Self.value(b, "t", "k") == "new")
        #expect(try Self.value(b, "later", "k") == "x")
        #expect(try held.tree("later") == nil)
        #expect(try held.tree("t")?.get(Array("k".utf8)) == Array("old".utf8))
        held.end()
        #expect(throws: StoreError.self) { try held.tree("later") }
    }
}
