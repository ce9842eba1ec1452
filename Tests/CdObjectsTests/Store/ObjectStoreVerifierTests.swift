import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStoreVerifier")
struct ObjectStoreVerifierTests {
    /// A consistent company store plus the IDs in it.
    static func populated() throws -> (ObjectStore, department: ObjectID, employee: ObjectID, project: ObjectID) {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("D")])
        let e = try store.insert("Employee", ["badge": str("B"), "name": str("Eve"), "department": .toOne(d)])
        let p = try store.insert("Project", ["title": str("P"), "members": .toMany([e])])
        #expect(try store.verify() == [])
        return (store, d, e, p)
    }

    /// Changes engine trees directly, under the object layer.
    static func tamper(_ store: ObjectStore, _ body: (WriteTransaction, StoredObjects) throws -> Void) throws {
        try store.engine.write { tx in try body(tx, StoredObjects(tx: tx, layout: store.layout)) }
    }

    @Test func aMissingIndexEntryIsReported() throws {
        let (store, _, e, _) = try Self.populated()
        try Self.tamper(store) { tx, stored in
            let rec = try #require(try stored.record(e))
            let index = try #require(rec.entity.indexes.first { $0.definition.properties == ["name"] })
            #expect(try tx.tree(index.definition.tree)!.delete(IndexKey.key(index, rec, primaryKey: e.primaryKey)))
        }
        let problems = try store.verify()
        #expect(problems.count == 1)
        #expect(problems.first?.tree == "cd.idx.Employee.attr.name")
        #expect(problems.first?.message.contains("has no entry") == true)
    }

    @Test func anIndexEntryWithoutARecordIsReported() throws {
        let (store, _, _, _) = try Self.populated()
        try Self.tamper(store) { tx, _ in
            var key: [UInt8] = []
            IndexKey.appendColumn(.string("Ghost"), type: .string, to: &key)
            key.appendBE(99)
            try tx.tree("cd.idx.Employee.attr.name")!.put(key, [])
        }
        let problems = try store.verify()
        #expect(problems.map(\.message) == ["index entry for primary key 99 matches no record"])
    }

    @Test func aBrokenInverseAndARecordThatDoesNotDecodeAreReported() throws {
        let (store, d, e, p) = try Self.populated()
        try Self.tamper(store) { tx, stored in
            // Drop the department's side of the relationship only.
            let tree = try #require(try tx.tree("cd.rel.Department.employees"))
            #expect(try tree.delete(RecordCodec.key(d.primaryKey) + RecordCodec.key(e.primaryKey)))
            // A project record with a truncated field.
            try tx.tree("cd.rec.Project")!.put(RecordCodec.key(p.primaryKey), [1, 4, 1, 0, 4, 9])
            _ = stored
        }
        let problems = try store.verify()
        #expect(problems.contains { $0.objectID == e && $0.message.contains("employees does not hold") }, "\(problems)")
        #expect(
            problems.contains { $0.tree == "cd.rec.Project" && $0.message.contains("does not decode") }, "\(problems)")
    }

    @Test func aManyToManyEntryMissingOnOneSideIsReportedFromTheOther() throws {
        let (store, _, e, p) = try Self.populated()
        try Self.tamper(store) { tx, _ in
            // Drop the employee's side of Project.members ↔ Employee.projects only.
            let tree = try #require(try tx.tree("cd.rel.Employee.projects"))
            #expect(try tree.delete(RecordCodec.key(e.primaryKey) + RecordCodec.key(p.primaryKey)))
        }
        let problems = try store.verify()
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.objectID == p && problems.first?.message.contains("projects does not hold") == true)
    }

    @Test func anOrderedListThatDropsAMemberIsReportedFromTheMembersSide() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Playlist",
                relationships: [.toMany("songs", destination: "Song", inverse: "playlist", ordered: true)]),
            EntityDescription(
                name: "Song", relationships: [.init(name: "playlist", destination: "Playlist", inverse: "songs")]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let list = try store.insert("Playlist", [:])
        let s = try store.newObjectIDs(entity: "Song", count: 3)
        try store.apply(ChangeSet(inserted: [s[0]: [:], s[1]: [:], s[2]: [:]], updated: [list: ["songs": .toMany(s)]]))
        #expect(try store.verify() == [])
        try Self.tamper(store) { tx, _ in
            // Position 1 now names s[0] again: s[1] still says it is on the list, the list lacks it.
            var key = RecordCodec.key(list.primaryKey)
            key.appendBE(UInt32(1))
            var value: [UInt8] = []
            value.appendVarint(UInt64(store.layout.entities["Song"]!.code))
            value.appendVarint(UInt64(s[0].primaryKey))
            try tx.tree("cd.rel.Playlist.songs")!.put(key, value)
        }
        let problems = try store.verify()
        #expect(problems.contains { $0.objectID == s[1] && $0.message.contains("songs does not hold") }, "\(problems)")
        #expect(problems.contains { $0.message.contains("holds Song/\(s[0].primaryKey) twice") }, "\(problems)")
    }

    @Test func anIndexEntryWithAnotherValueThanItsRecordIsReported() throws {
        let (store, _, e, _) = try Self.populated()
        try Self.tamper(store) { tx, _ in
            // An extra entry naming Eve's key under a name she does not have: her own entry stays.
            var key: [UInt8] = []
            IndexKey.appendColumn(.string("Mallory"), type: .string, to: &key)
            key.appendBE(UInt64(e.primaryKey))
            try tx.tree("cd.idx.Employee.attr.name")!.put(key, [])
        }
        let problems = try store.verify()
        #expect(problems.map(\.message) == ["index entry for primary key \(e.primaryKey) matches no record"])
    }

    /// Playlists with ordered songs (a to-one inverse) and songs on ordered albums both ways (an
    /// ordered many-to-many), all consistent.
    static func playlists() throws -> (ObjectStore, lists: [ObjectID], songs: [ObjectID], albums: [ObjectID]) {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Playlist",
                relationships: [.toMany("songs", destination: "Song", inverse: "playlist", ordered: true)]),
            EntityDescription(
                name: "Album",
                relationships: [.toMany("tracks", destination: "Song", inverse: "albums", ordered: true)]),
            EntityDescription(
                name: "Song",
                relationships: [
                    .init(name: "playlist", destination: "Playlist", inverse: "songs"),
                    .toMany("albums", destination: "Album", inverse: "tracks", ordered: true),
                ]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let lists = try store.newObjectIDs(entity: "Playlist", count: 3)
        let albums = try store.newObjectIDs(entity: "Album", count: 4)
        let songs = try store.newObjectIDs(entity: "Song", count: 60)
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for (i, s) in songs.enumerated() { inserted[s] = ["playlist": .toOne(lists[i % 3])] }
        for (i, a) in albums.enumerated() {
            inserted[a] = ["tracks": .toMany(songs.filter { $0.primaryKey % 4 != Int64(i) })]
        }
        for l in lists { inserted[l] = [:] }
        try store.apply(ChangeSet(inserted: inserted))
        #expect(try store.verify() == [])
        return (store, lists, songs, albums)
    }

    /// The trees whose ordered-list tallies disagree after a first run of the relationship checks.
    static func disagreeingTrees(_ store: ObjectStore) throws -> Set<String> {
        try store.engine.read { tx in
            let checks = RelationshipChecks(
                tx: tx, layout: store.layout, records: VerifierRecordLookup(tx: tx, layout: store.layout),
                report: { _ in }, isFull: { false })
            for root in store.layout.roots {
                try tx.tree(StoreLayout.recordTreeName(root: root))?.scan { key, value in
                    let pk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                    try checks.checkToOnes(of: RecordCodec.decode(value, layout: store.layout), primaryKey: pk)
                    return true
                }
            }
            try checks.checkToManyTrees()
            return checks.disagreeingOrderedTrees
        }
    }

    @Test func orderedListTalliesAgreeOnAConsistentStoreAndDisagreeOnlyWhereAListIsDamaged() throws {
        let (store, lists, songs, _) = try Self.playlists()
        #expect(try Self.disagreeingTrees(store) == [])
        try Self.tamper(store) { tx, _ in
            // The first playlist's last entry is dropped: its song still names the playlist.
            var key = RecordCodec.key(lists[0].primaryKey)
            key.appendBE(UInt32(19))
            let deleted = try tx.tree("cd.rel.Playlist.songs")?.delete(key)
            #expect(deleted == true)
        }
        #expect(try Self.disagreeingTrees(store) == ["cd.rel.Playlist.songs"])
        let dropped = songs[57]
        #expect(
            try store.verify().map(\.message) == [
                "playlist points at \(lists[0]) but its songs does not hold \(dropped)"
            ])
    }

    @Test func anOrderedManyToManyMissingOnOneSideIsReportedFromTheOther() throws {
        let (store, _, songs, albums) = try Self.playlists()
        // Drop the last album of the last song's ordered albums (its last position, so that the
        // positions stay whole): the album's tracks still hold the song.
        let song = try #require(songs.last)
        let held = try store.read { try $0.related(song, "albums") }
        let album = try #require(held.last)
        #expect(albums.contains(album))
        try Self.tamper(store) { tx, _ in
            var key = RecordCodec.key(song.primaryKey)
            key.appendBE(UInt32(held.count - 1))
            let deleted = try tx.tree("cd.rel.Song.albums")?.delete(key)
            #expect(deleted == true)
        }
        // Each tree is the other's inverse: one pair fewer held in one, one claim fewer in the other.
        #expect(try Self.disagreeingTrees(store) == ["cd.rel.Song.albums", "cd.rel.Album.tracks"])
        let problems = try store.verify()
        #expect(problems.map(\.message) == ["tracks holds \(song) but its albums does not hold \(album)"])
        #expect(problems.first?.objectID == album && problems.first?.tree == "cd.rel.Album.tracks")
    }

    @Test func aDuplicateUniqueValueAndAMissingRequiredAttributeAreReported() throws {
        let (store, _, e, _) = try Self.populated()
        let f = try store.insert("Employee", ["badge": str("F")])
        try Self.tamper(store) { tx, stored in
            // Rewrite f with e's badge, keeping its index entries in step: only uniqueness is broken.
            var rec = try #require(try stored.record(f))
            let old = rec
            rec.values[rec.entity.attributeSlots["badge"]!] = .string("B")
            for index in rec.entity.indexes {
                let t = try #require(try tx.tree(index.definition.tree))
                try t.delete(IndexKey.key(index, old, primaryKey: f.primaryKey))
                try t.put(IndexKey.key(index, rec, primaryKey: f.primaryKey), [])
            }
            try tx.tree("cd.rec.Employee")!.put(
                RecordCodec.key(f.primaryKey), RecordCodec.encode(rec, layout: store.layout))
        }
        let problems = try store.verify()
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("uniqueness constraint (badge) also held by") == true, "\(problems)")
        try Self.tamper(store) { tx, stored in
            var rec = try #require(try stored.record(e))
            rec.values[rec.entity.attributeSlots["badge"]!] = .null
            try tx.tree("cd.rec.Employee")!.put(
                RecordCodec.key(e.primaryKey), RecordCodec.encode(rec, layout: store.layout))
        }
        #expect(try store.verify().contains { $0.objectID == e && $0.message == "required attribute badge is nil" })
    }

    @Test func aCorruptRecordFailsReadsAndQueriesWithAStoreError() throws {
        let (store, _, _, p) = try Self.populated()
        let code = UInt8(store.layout.entities["Project"]!.code)
        // A Project record whose one field (slot 0, a UUID tag) has no payload.
        try Self.tamper(store) { tx, _ in
            try tx.tree("cd.rec.Project")!.put(RecordCodec.key(p.primaryKey), [1, code, 1, 0, 9])
        }
        #expect(errorCode { _ = try store.values(p) } == 134060)
        var request = FetchRequest(entity: "Project")
        request.predicate = try CdPredicate(format: "title == 'P'")
        #expect(errorCode { _ = try store.fetch(request) } == 134060)
        #expect(errorCode { _ = try store.read { try $0.count(request) } } == 134060)
        // An unknown record format version, read by a count that only looks at entity codes.
        try Self.tamper(store) { tx, _ in try tx.tree("cd.rec.Project")!.put(RecordCodec.key(p.primaryKey), [7]) }
        #expect(
            try store.read { try $0.count(FetchRequest(entity: "Employee")) } == 1, "other hierarchies are unaffected")
        #expect(errorCode { _ = try store.fetch(FetchRequest(entity: "Project")) } == 134060)
        #expect(errorCode { try store.apply(ChangeSet(updated: [p: ["title": str("Q")]])) } == 134060)
    }

    @Test func aStoreWithoutTheObjectLayerIsReported() throws {
        let engine = try Store.open(path: "/x", options: StoreOptions(fileSystem: InMemoryFileSystem()))
        let problems = try engine.read { try ObjectStoreVerifier().verify($0) }
        #expect(problems.map(\.message) == ["the meta tree is missing: not an object store"])
        try engine.close()
    }
}
