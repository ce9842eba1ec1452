import CdStore
import Foundation
import Testing
@testable import CdObjects

/// The next keys and key bounds an `ObjectStore` keeps in memory so that an apply reads neither
/// `cd.meta` nor the record tree for a fresh key (ObjectStore OS4): what they store and reject is
/// what reading them would give.
@Suite("ObjectStore next keys")
struct ObjectStoreNextKeyTests {
    /// The stored next key of `root`, read from the last commit.
    static func storedNext(_ store: ObjectStore, _ root: String) throws -> Int64 {
        try store.engine.read { tx in try StoredObjects(tx: tx, layout: store.layout).storedNextKey(root: root) }
    }

    @Test func oneObjectCommitsStoreEachNextKey() throws {
        let store = try companyStore()
        for i in 1...20 {
            let id = try store.insert("Office", ["city": str("City \(i)")])
            #expect(id.primaryKey == Int64(i))
            // One reserved block covers every key handed out so far (KR1).
            #expect(try Self.storedNext(store, "Office") == 1 + ObjectStore.keyBlockSize)
        }
        #expect(try store.verify().isEmpty)
    }

    @Test func noKeysAreNoneOnAFreshStoreAndInAStreamingWriter() throws {
        // A request for no keys before any block is reserved (it looped for ever).
        let store = try companyStore()
        #expect(try store.newObjectIDs(entity: "Office", count: 0) == [])
        let writer = try store.beginWriter()
        #expect(try store.newObjectIDs(entity: "Employee", count: 0) == [])
        #expect(try store.newObjectIDs(entity: "Employee", count: 2).map(\.primaryKey) == [1, 2])
        try writer.commit()
        #expect(try store.newObjectIDs(entity: "Office", count: 1).map(\.primaryKey) == [1])
    }

    @Test func keysBelowTheUsedBoundAreCheckedAndKeysAboveItAreFree() throws {
        let store = try companyStore()
        let ids = try store.newObjectIDs(entity: "Office", count: 10)
        try store.apply(ChangeSet(inserted: [ids[4]: ["city": str("five")]]))
        #expect(try Self.storedNext(store, "Office") == 1 + ObjectStore.keyBlockSize, "the block's keys are covered")
        // Below the used bound (6): looked up, free.
        try store.apply(ChangeSet(inserted: [ids[2]: ["city": str("three")]]))
        // Below the used bound and taken: rejected, the stored object kept.
        #expect(errorCode { try store.apply(ChangeSet(inserted: [ids[4]: ["city": str("again")]])) } == 1550)
        #expect(try store.values(ids[4])?["city"] == str("five"))
        // Above the used bound, below the stored next key: free without a look-up, and then taken.
        try store.apply(ChangeSet(inserted: [ids[7]: ["city": str("eight")]]))
        #expect(errorCode { try store.apply(ChangeSet(inserted: [ids[7]: ["city": str("again")]])) } == 1550)
        #expect(try store.values(ids[7])?["city"] == str("eight"))
        #expect(try store.verify().isEmpty)
    }

    @Test func keysAStreamingWriterInsertedAreKnownTakenAfterItsCommit() throws {
        let store = try companyStore()
        let ids = try store.newObjectIDs(entity: "Office", count: 10)
        let writer = try store.beginWriter()
        try writer.apply(ChangeSet(inserted: [ids[5]: ["city": str("six")]]))
        try writer.apply(ChangeSet(inserted: [ids[8]: ["city": str("nine")]]))
        try writer.commit()
        #expect(try Self.storedNext(store, "Office") == 1 + ObjectStore.keyBlockSize)
        // The writer's keys lie above what the store knew before it: they must be looked up.
        #expect(errorCode { try store.apply(ChangeSet(inserted: [ids[5]: ["city": str("again")]])) } == 1550)
        #expect(errorCode { try store.apply(ChangeSet(inserted: [ids[8]: ["city": str("again")]])) } == 1550)
        #expect(try store.values(ids[5])?["city"] == str("six"))
        #expect(try store.values(ids[8])?["city"] == str("nine"))
        try store.apply(ChangeSet(inserted: [ids[9]: ["city": str("ten")]]))
        #expect(try store.verify().isEmpty)
    }

    @Test func aRolledBackWriterLeavesTheKnownKeysAsStored() throws {
        let store = try companyStore()
        let ids = try store.newObjectIDs(entity: "Office", count: 4)
        try store.apply(ChangeSet(inserted: [ids[0]: ["city": str("one")]]))
        let writer = try store.beginWriter()
        try writer.apply(ChangeSet(inserted: [ids[2]: ["city": str("three")]]))
        writer.rollback()
        try store.apply(ChangeSet(inserted: [ids[2]: ["city": str("three, again")]]))
        #expect(errorCode { try store.apply(ChangeSet(inserted: [ids[0]: ["city": str("again")]])) } == 1550)
        #expect(try store.values(ids[2])?["city"] == str("three, again"))
        #expect(try store.verify().isEmpty)
    }

    @Test func aFailedApplyLeavesTheKnownKeysAsStored() throws {
        let store = try companyStore()
        let ids = try store.newObjectIDs(entity: "Office", count: 3)
        try store.apply(ChangeSet(inserted: [ids[0]: ["city": str("one")]]))
        // Two inserts: the second fails validation, so nothing of the apply is stored.
        #expect(
            errorCode { try store.apply(ChangeSet(inserted: [ids[2]: ["city": str("three")], ids[1]: [:]])) } != nil)
        #expect(try !store.exists(ids[2]))
        try store.apply(ChangeSet(inserted: [ids[2]: ["city": str("three")]]))
        #expect(errorCode { try store.apply(ChangeSet(inserted: [ids[2]: ["city": str("again")]])) } == 1550)
        #expect(try Self.storedNext(store, "Office") == 1 + ObjectStore.keyBlockSize)
    }

    @Test func twoStoresOnOneFileHandOutDifferentKeysAndKeepEachOthersObjects() throws {
        let fs = InMemoryFileSystem()
        var options = StoreOptions(fileSystem: fs)
        options.durability = .normal
        let a = try ObjectStore.open(path: "/two.cdstore", model: companyModel(), options: options)
        let b = try ObjectStore.open(path: "/two.cdstore", model: companyModel(), options: options)
        var ids: [ObjectID: String] = [:]
        for i in 0..<(3 * Int(ObjectStore.keyBlockSize) / 2) {
            let (store, name) = i % 3 == 0 ? (a, "a\(i)") : (b, "b\(i)")
            let id = try store.insert("Office", ["city": str(name)])
            #expect(ids[id] == nil, "\(id) was handed out twice")
            ids[id] = name
        }
        // Every object of both stores is there with its own values, read through either store.
        for (id, name) in ids {
            #expect(try a.values(id)?["city"] == str(name))
            #expect(try b.values(id)?["city"] == str(name))
        }
        // A key the other store inserted since this one's last commit is looked up (OS4): an
        // insert that reuses it is refused, never written over the other's object.
        let taken = try #require(ids.first { $0.value.hasPrefix("b") }?.key)
        #expect(errorCode { try a.apply(ChangeSet(inserted: [taken: ["city": str("over")]])) } == 1550)
        #expect(try b.values(taken)?["city"] == str(ids[taken]!))
        #expect(try a.verify().isEmpty)
        try a.close()
        try b.close()
    }

    @Test func aReopenedStoreContinuesAtTheStoredNextKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("next-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.cdstore").path
        var store = try ObjectStore.open(path: path, model: companyModel())
        let first = try store.insert("Office", ["city": str("Oslo")])
        _ = try store.newObjectIDs(entity: "Office", count: 5)  // handed out, never stored
        let second = try store.insert("Office", ["city": str("Bergen")])
        #expect(second.primaryKey == first.primaryKey + 6)
        try store.close()
        store = try ObjectStore.open(path: path, model: companyModel())
        // The first session gave back the keys of its block it never handed out (KR1).
        let third = try store.insert("Office", ["city": str("Tromsø")])
        #expect(third.primaryKey == second.primaryKey + 1)
        #expect(errorCode { try store.apply(ChangeSet(inserted: [second: ["city": str("again")]])) } == 1550)
        #expect(try store.verify().isEmpty)
        try store.close()
    }
}
