// The process's registry of open object stores (OO1–OO4 of OpenObjectStores.swift, SL1–SL2 of
// ObjectStoreLease.swift): one store per file however its path is spelled, reference counted,
// another model refused with a typed error and the store untouched, in-memory stores never
// shared, commits announced to the other leases only.

import CdStore
import Foundation
import Synchronization
import Testing
@testable import CdObjects

@Suite struct OpenObjectStoresTests {
    /// A fresh folder with a `store.cdstore` path in it, and a symbolic link to the folder.
    struct Folder {
        let url: URL
        var store: String { url.appendingPathComponent("store.cdstore").path }
        var link: URL { url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + "-link") }

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("cd-open-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        }

        func remove() {
            try? FileManager.default.removeItem(at: link)
            try? FileManager.default.removeItem(at: url)
        }
    }

    static func model(extra: Bool = false) throws -> ObjectModel {
        var attributes: [AttributeDescription] = [.init(name: "name", type: .string)]
        if extra { attributes.append(.init(name: "rank", type: .integer64)) }
        return try ObjectModel(entities: [EntityDescription(name: "Item", attributes: attributes)])
    }

    @Test func everySpellingOfAFileSharesOneStoreUntilTheLastLeaseGoes() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let model = try Self.model()
        let first = try OpenObjectStores.acquire(path: folder.store, model: model)
        let dotted = try OpenObjectStores.acquire(
            path: folder.url.appendingPathComponent("sub/../.").path + "/store.cdstore", model: model)
        let linked = try OpenObjectStores.acquire(
            path: folder.link.appendingPathComponent("store.cdstore").path, model: model)
        #expect(first.store === dotted.store && first.store === linked.store)
        #expect(first.canonicalPath == OpenObjectStores.canonicalPath(folder.store))
        #expect(first.isShared)
        try first.release()
        try first.release()  // SL1: twice is once
        try linked.release()
        #expect(OpenObjectStores.isOpen(path: folder.store), "one lease is left")
        let ids = try dotted.store.newObjectIDs(entity: "Item", count: 1)
        _ = try dotted.store.apply(ChangeSet(inserted: [ids[0]: ["name": .attribute(.string("kept"))]]))
        try dotted.release()
        #expect(!OpenObjectStores.isOpen(path: folder.store))
        // Closed: the file opens again on its own, with what the last lease wrote.
        let reopened = try ObjectStore.open(path: folder.store, model: model)
        #expect(try reopened.read { try $0.values(of: ids[0]) }?["name"] == .attribute(.string("kept")))
        try reopened.close()
    }

    @Test func anotherModelIsRefusedAndTheStoreIsUntouched() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let lease = try OpenObjectStores.acquire(path: folder.store, model: try Self.model())
        defer { try? lease.release() }
        let ids = try lease.store.newObjectIDs(entity: "Item", count: 1)
        _ = try lease.store.apply(ChangeSet(inserted: [ids[0]: ["name": .attribute(.string("a"))]]))
        #expect {
            _ = try OpenObjectStores.acquire(path: folder.store, model: try Self.model(extra: true))
        } throws: { error in
            guard case let CdError.incompatibleModel(_, _, difference) = error else { return false }
            return difference?.contains("is open in this process with another model version") == true
                && difference?.contains("rank") == true
        }
        #expect(!lease.isShared)
        #expect(lease.store.model.versionHash == (try Self.model()).versionHash)
        #expect(try lease.store.read { try $0.values(of: ids[0]) }?["name"] == .attribute(.string("a")))
    }

    @Test func inMemoryStoresAreNeverShared() throws {
        let model = try Self.model()
        let a = try OpenObjectStores.acquire(path: nil, model: model)
        let b = try OpenObjectStores.acquire(path: nil, model: model)
        #expect(a.store !== b.store)
        #expect(a.canonicalPath == nil && !a.isShared)
        try a.release()
        try b.release()
    }

    @Test func aCommitIsAnnouncedToTheOtherLeasesOnly() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let model = try Self.model()
        let writer = try OpenObjectStores.acquire(path: folder.store, model: model)
        let reader = try OpenObjectStores.acquire(path: folder.store, model: model)
        let heardByWriter = Mutex(0), heardByReader = Mutex<[AppliedChanges]>([])
        writer.observeOtherCommits { _ in heardByWriter.withLock { $0 += 1 } }
        reader.observeOtherCommits { applied in heardByReader.withLock { $0.append(applied) } }
        let ids = try writer.store.newObjectIDs(entity: "Item", count: 1)
        let applied = try writer.store.apply(ChangeSet(inserted: [ids[0]: ["name": .attribute(.string("x"))]]))
        writer.announce(applied)
        #expect(heardByReader.withLock { $0 } == [applied])
        #expect(heardByWriter.withLock { $0 } == 0)
        try reader.release()
        writer.announce(applied)  // the released reader hears nothing more
        #expect(heardByReader.withLock { $0.count } == 1)
        try writer.release()
    }

    @Test func aLeaseAskingForHistoryStartsItOnAStoreOpenedWithout() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let model = try Self.model()
        let plain = try OpenObjectStores.acquire(path: folder.store, model: model)
        #expect(!plain.store.isHistoryTracked)
        var options = StoreOptions()
        options.history = .tracked
        let tracked = try OpenObjectStores.acquire(path: folder.store, model: model, options: options)
        #expect(tracked.store === plain.store && plain.store.isHistoryTracked)
        let ids = try plain.store.newObjectIDs(entity: "Item", count: 1)
        _ = try plain.store.apply(ChangeSet(inserted: [ids[0]: ["name": .attribute(.string("h"))]]))
        #expect(try plain.store.history(after: nil).count == 1)
        try plain.release()
        try tracked.release()
    }
}
