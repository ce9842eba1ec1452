import Cadmium
import ArgumentParser
import Foundation
import GRDB

// `cadmium-bench links`: what one many-to-many link costs as the list it joins grows. For each
// size N, a tag that already has N notes; then `--links` transactions each create a note and link
// it to the tag (`note.tags.insert(tag)`, inverse kept by Cadmium), one commit each. Beside it
// the same in GRDB: a note row and a join-table row per transaction. A commit's cost should grow
// with the change (one note, one link), not with N. Durability is `normal` / synchronous=NORMAL
// for both, so the time is CPU, not fsync.

final class LinkNote: CdManagedObject {
    @Attribute var text: String
    @Relationship(inverse: "notes") var tags: Set<LinkTag>
}

final class LinkTag: CdManagedObject {
    @Attribute(.unique) var name: String
    @Relationship(inverse: "tags") var notes: Set<LinkNote>
}

struct GRDBLinkNote: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "note"
    var id: Int64
    var text: String
}

struct GRDBNoteTag: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "noteTag"
    var noteId: Int64
    var tagId: Int64
}

struct Links: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Times linking one note to a tag that already has N notes (Cd API beside GRDB).")

    @Option(parsing: .upToNextOption, help: "Sizes of the tag's list before the links.")
    var members: [Int] = [50, 2_000, 10_000, 40_000]
    @Option(help: "Transactions timed per size, each creating and linking one note.")
    var links = 200
    @Option(help: "Directory for the stores.")
    var dataDirectory = ".build/bench-data"

    func run() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        print("size      Cd API ms/link   GRDB ms/link   Cd ÷ GRDB (time)")
        for n in members {
            let cd = try cadmium(members: n)
            let grdb = try grdbLinks(members: n)
            print(
                String(format: "%-8d  %14.3f   %12.3f   %8.2f×", n, cd * 1000, grdb * 1000, cd / grdb))
        }
    }

    /// Seconds per link through the Cd API.
    func cadmium(members n: Int) throws -> Double {
        let path = dataDirectory + "/links-\(n).cdstore"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + "-wal")
        var options = StoreOptions()
        options.durability = .normal
        try Cd.initWithStore(
            model: try CdModel(classes: [LinkNote.self, LinkTag.self]), storeURL: URL(fileURLWithPath: path),
            options: options)
        let count = links
        let seconds = try onBackgroundThread { () throws -> Double in
            try Cd.transactAndWait {
                let tag = try Cd.create(LinkTag.self)
                tag.name = "x"
                for i in 0..<n {
                    let note = try Cd.create(LinkNote.self)
                    note.text = "note \(i)"
                    note.tags = [tag]
                }
            }
            let start = now()
            for i in 0..<count {
                try Cd.transactAndWait {
                    guard let tag = try Cd.objects(LinkTag.self).filter("name == %@", "x").fetchOne() else { return }
                    let note = try Cd.create(LinkNote.self)
                    note.text = "linked \(i)"
                    note.tags.insert(tag)
                }
            }
            let seconds = now() - start
            let total = try Cd.read { try Cd.objects(LinkTag.self).fetchOne()?.notes.count ?? 0 }
            precondition(total == n + count, "links lost: \(total) of \(n + count)")
            return seconds
        }
        try Cd.close()
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + "-wal")
        return seconds / Double(count)
    }

    /// Seconds per link in GRDB: a note row and a join row per transaction.
    func grdbLinks(members n: Int) throws -> Double {
        let path = dataDirectory + "/links-\(n).sqlite"
        let queue = try NoteTagDatabase.create(at: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO tag (id, name) VALUES (1, 'x')")
            for i in 0..<n {
                try GRDBLinkNote(id: Int64(i + 1), text: "note \(i)").insert(db)
                try GRDBNoteTag(noteId: Int64(i + 1), tagId: 1).insert(db)
            }
        }
        let start = now()
        for i in 0..<links {
            try queue.write { db in
                guard let tagId = try Int64.fetchOne(db, sql: "SELECT id FROM tag WHERE name = ?", arguments: ["x"])
                else { return }
                let id = Int64(n + i + 1)
                try GRDBLinkNote(id: id, text: "linked \(i)").insert(db)
                try GRDBNoteTag(noteId: id, tagId: tagId).insert(db)
            }
        }
        let seconds = now() - start
        try queue.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return seconds / Double(links)
    }
}

/// The notes-and-tags schema of the GRDB side of `links` and `tagged`: a join table keyed by
/// (noteId, tagId) with an index by tag, as an app would declare it.
enum NoteTagDatabase {
    /// A new database at `path` (earlier files removed) in WAL mode with synchronous=NORMAL and
    /// 8 KiB pages, holding the empty tables.
    static func create(at path: String) throws -> DatabaseQueue {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA page_size = 8192")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE tag (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
                    CREATE TABLE noteTag (noteId INTEGER NOT NULL REFERENCES note(id) ON DELETE CASCADE,
                                          tagId INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
                                          PRIMARY KEY (noteId, tagId)) WITHOUT ROWID;
                    CREATE INDEX noteTagByTag ON noteTag(tagId, noteId);
                    """)
        }
        return queue
    }
}
