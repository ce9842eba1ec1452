import Cadmium
import ArgumentParser
import Foundation
import GRDB

// `cadmium-bench tagged`: "the notes with tag X", the relationship predicate of a list screen.
// N notes, T tags, each note with 0–3 random tags (the same seed for both systems). Timed, per
// query, each fetching the matching notes (objects with their text):
//   by tag        `ANY tags == %@`            (Cd API: RELATIONSHIP, reads the tag's list)
//   by tag name   `ANY tags.name == %@`       (Cd API: RELATED, the tag's name index, then lists)
//   scan          `NOT (NONE tags == %@)`     (the same answer as "by tag", planned as a full
//                                              scan: what every form cost before the planner
//                                              read relationship trees)
// GRDB: the join table with an index on (tagId, noteId), tag.name UNIQUE (indexed).

final class TaggedNote: CdManagedObject {
    @Attribute var text: String
    @Relationship(inverse: "notes") var tags: Set<TaggedTag>
}

final class TaggedTag: CdManagedObject {
    @Attribute(.unique) var name: String
    @Relationship(inverse: "tags") var notes: Set<TaggedNote>
}

struct Tagged: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Times fetching the notes with one tag (Cd API relationship plans beside GRDB's join).")

    @Option(help: "Notes.")
    var notes = 200_000
    @Option(help: "Tags.")
    var tags = 200
    @Option(help: "Queries timed per form, each for another tag.")
    var queries = 50
    @Option(help: "Directory for the stores.")
    var dataDirectory = ".build/bench-data"

    /// Each note's tags (indexes into the tags), the same for both systems.
    func assignments() -> [[Int]] {
        var seeded = LinearCongruential(seed: 42)
        return (0..<notes).map { _ in
            let count = Int(seeded.next() % 4)
            return Array(Set((0..<count).map { _ in Int(seeded.next() % UInt64(tags)) })).sorted()
        }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let plan = assignments()
        let cd = try cadmium(plan)
        let grdb = try grdbQueries(plan)
        precondition(cd.counts == grdb.counts, "the Cd API and GRDB found different notes")
        print("\(notes) notes, \(tags) tags, \(queries) queries per form (ms per query; results checked equal)")
        print("form           Cd API ms   GRDB ms   Cd ÷ GRDB (speed)   plan")
        for (name, cdMs, grdbMs, planText) in [
            ("by tag", cd.byTag, grdb.byTag, cd.plans.0), ("by tag name", cd.byName, grdb.byName, cd.plans.1),
            ("scan", cd.scan, grdb.byTag, cd.plans.2),
        ] {
            print(
                String(
                    format: "%-13@  %9.3f  %8.3f   %8.2f×            %@", name as NSString, cdMs * 1000, grdbMs * 1000,
                    grdbMs / cdMs, planText as NSString))
        }
    }

    struct Timings {
        var byTag = 0.0
        var byName = 0.0
        var scan = 0.0
        var plans = ("", "", "")
        var counts: [Int] = []
    }

    /// Seconds per query through the Cd API.
    func cadmium(_ plan: [[Int]]) throws -> Timings {
        let path = dataDirectory + "/tagged.cdstore"
        for suffix in ["", "-wal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var options = StoreOptions()
        options.durability = .normal
        try Cd.initWithStore(
            model: try CdModel(classes: [TaggedNote.self, TaggedTag.self]), storeURL: URL(fileURLWithPath: path),
            options: options)
        let tagCount = tags
        let queryCount = queries
        let timings = try onBackgroundThread { () throws -> Timings in
            try Cd.transactAndWait {
                let all = try (0..<tagCount).map { i -> TaggedTag in
                    let tag = try Cd.create(TaggedTag.self)
                    tag.name = "tag \(i)"
                    return tag
                }
                for (i, tagIndexes) in plan.enumerated() {
                    let note = try Cd.create(TaggedNote.self)
                    note.text = "note \(i)"
                    note.tags = Set(tagIndexes.map { all[$0] })
                }
            }
            var t = Timings()
            try Cd.read {
                let all = try Cd.objects(TaggedTag.self).fetch()
                let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
                let chosen = (0..<queryCount).map { byName["tag \(($0 * 7) % tagCount)"]! }
                t.plans = (
                    try Cd.objects(TaggedNote.self).filter("ANY tags == %@", chosen[0]).explain(),
                    try Cd.objects(TaggedNote.self).filter("ANY tags.name == %@", chosen[0].name).explain(),
                    try Cd.objects(TaggedNote.self).filter("NOT (NONE tags == %@)", chosen[0]).explain()
                )
                var start = now()
                for tag in chosen {
                    t.counts.append(try Cd.objects(TaggedNote.self).filter("ANY tags == %@", tag).fetch().count)
                }
                t.byTag = (now() - start) / Double(queryCount)
                start = now()
                for (i, tag) in chosen.enumerated() {
                    let n = try Cd.objects(TaggedNote.self).filter("ANY tags.name == %@", tag.name).fetch().count
                    precondition(n == t.counts[i], "by name found \(n), by tag \(t.counts[i])")
                }
                t.byName = (now() - start) / Double(queryCount)
                start = now()
                for (i, tag) in chosen.enumerated() {
                    let n = try Cd.objects(TaggedNote.self).filter("NOT (NONE tags == %@)", tag).fetch().count
                    precondition(n == t.counts[i], "scan found \(n), by tag \(t.counts[i])")
                }
                t.scan = (now() - start) / Double(queryCount)
            }
            return t
        }
        try Cd.close()
        for suffix in ["", "-wal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return timings
    }

    /// Seconds per query in GRDB, through the join table.
    func grdbQueries(_ plan: [[Int]]) throws -> Timings {
        let path = dataDirectory + "/tagged.sqlite"
        let queue = try NoteTagDatabase.create(at: path)
        try queue.write { db in
            for i in 0..<tags {
                try db.execute(sql: "INSERT INTO tag (id, name) VALUES (?, ?)", arguments: [i + 1, "tag \(i)"])
            }
            for (i, tagIndexes) in plan.enumerated() {
                try GRDBLinkNote(id: Int64(i + 1), text: "note \(i)").insert(db)
                for t in tagIndexes { try GRDBNoteTag(noteId: Int64(i + 1), tagId: Int64(t + 1)).insert(db) }
            }
        }
        var t = Timings()
        try queue.read { db in
            let chosen = (0..<queries).map { ($0 * 7) % tags }
            var start = now()
            for tag in chosen {
                t.counts.append(
                    try GRDBLinkNote.fetchAll(
                        db,
                        sql: "SELECT note.* FROM note JOIN noteTag ON noteTag.noteId = note.id WHERE noteTag.tagId = ?",
                        arguments: [tag + 1]
                    ).count)
            }
            t.byTag = (now() - start) / Double(queries)
            start = now()
            for tag in chosen {
                _ = try GRDBLinkNote.fetchAll(
                    db,
                    sql: """
                        SELECT note.* FROM note JOIN noteTag ON noteTag.noteId = note.id
                        JOIN tag ON tag.id = noteTag.tagId WHERE tag.name = ?
                        """,
                    arguments: ["tag \(tag)"])
            }
            t.byName = (now() - start) / Double(queries)
        }
        try queue.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return t
    }
}

/// A fixed-seed generator, so that both systems get the same tags on the same notes.
struct LinearCongruential {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}
