// A randomized concurrency campaign (docs/TESTING.md): several non-serial writers on one store at
// once, mixing attribute updates, to-one moves into an ordered to-many, many-to-many links made
// from either side, creates, deletes with cascade, nullify and deny, and reads. Each writer
// records what was acknowledged; at the end the store must hold it.
//
// What makes the checks exact without knowing the commit order: writer w owns the notes it made
// (it alone links and unlinks them, moves and deletes them) and the attribute `wN` of every note
// (it alone writes it). So for each owned link, each owned to-one and each `wN`, the last
// acknowledged change is the writer's own last one. Links are made from both sides (note.tags and
// tag.notes), so transactions still overlap on every tag's list and every folder's list; the
// attribute `shared` is written by all, and must hold one of the acknowledged values.
//
// Under the default policy (property object trump) every acknowledged change holds unless a delete
// removed it. Under the error policy every commit applies whole or fails with 133020 (or 1600, a
// folder delete that deny refused), and no value of a failed commit is visible.
//
// `make campaign` runs the long form: CADMIUM_CAMPAIGN_SEEDS seeds (default 20), each with
// CADMIUM_CAMPAIGN_OPS operations per writer (default 400). A failure prints its seed; set
// CADMIUM_CAMPAIGN_SEED to run that one again.

import Foundation
import Testing
@testable import Cadmium
import CdObjects

final class CampaignNote: CdManagedObject {
    @Attribute var owner: Int64 = 0
    @Attribute var w0: Int64 = 0
    @Attribute var w1: Int64 = 0
    @Attribute var w2: Int64 = 0
    @Attribute var w3: Int64 = 0
    @Attribute var shared: Int64 = 0
    @Relationship(inverse: "notes") var tags: Set<CampaignTag>
    @Relationship(inverse: "notes") var folder: CampaignFolder?
    @Relationship(inverse: "note", deleteRule: .cascade) var comments: Set<CampaignComment>
}

final class CampaignTag: CdManagedObject {
    @Attribute var number: Int64 = 0
    @Relationship(inverse: "tags") var notes: Set<CampaignNote>
}

final class CampaignFolder: CdManagedObject {
    @Attribute var number: Int64 = 0
    @Relationship(inverse: "folder", deleteRule: .deny) var notes: [CampaignNote]
}

final class CampaignComment: CdManagedObject {
    @Attribute var number: Int64 = 0
    @Relationship(inverse: "comments") var note: CampaignNote?
}

/// What one writer knows was acknowledged.
struct CampaignLedger {
    /// Owned live notes (by ID) → the tag numbers they should be linked to.
    var links: [ObjectID: Set<Int64>] = [:]
    /// Owned live notes → the folder number they should be in (nil: none).
    var folders: [ObjectID: Int64?] = [:]
    /// Owned notes acknowledged deleted.
    var deleted: Set<ObjectID> = []
    /// Note → the value this writer last set on its attribute `wN`.
    var attribute: [ObjectID: Int64] = [:]
    /// Values of `shared` this writer got acknowledged.
    var sharedValues: Set<Int64> = []
    /// Values written by commits that failed (must never be visible).
    var failedValues: Set<Int64> = []
    /// Commits acknowledged and failed.
    var acknowledged = 0
    var failed = 0
}

extension CadmiumSuites {
    @Suite struct ConcurrencyCampaign {
        static let writers = 4
        static let tags: Int64 = 6
        static let folders: Int64 = 3

        static var environment: [String: String] { ProcessInfo.processInfo.environment }

        /// The seeds to run: one given seed, or `CADMIUM_CAMPAIGN_SEEDS` seeds (3 in `make test`).
        static func seeds() -> [UInt64] {
            if let one = environment["CADMIUM_CAMPAIGN_SEED"].flatMap(UInt64.init) { return [one] }
            let count = environment["CADMIUM_CAMPAIGN_SEEDS"].flatMap(Int.init) ?? 3
            return (0..<count).map { 0xC0FFEE &+ UInt64($0) &* 7919 }
        }

        static var opsPerWriter: Int { environment["CADMIUM_CAMPAIGN_OPS"].flatMap(Int.init) ?? 60 }

        @Test(arguments: [MergePolicy.mergeByPropertyObjectTrump, .error])
        func everyAcknowledgedChangeHolds(_ policy: MergePolicy) throws {
            for seed in Self.seeds() {
                try Self.run(seed: seed, policy: policy)
            }
        }

        static func run(seed: UInt64, policy: MergePolicy) throws {
            print(
                "concurrency campaign: seed \(seed), policy \(policy), "
                    + "\(writers) writers × \(opsPerWriter) operations")
            try Cd.initWithStore(
                model: try CdModel(classes: [
                    CampaignNote.self, CampaignTag.self, CampaignFolder.self, CampaignComment.self,
                ]),
                storeURL: nil, serialTX: false)
            defer { try? Cd.close() }
            Cd.mergePolicy = policy
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    for n in 1...tags { (try Cd.create(CampaignTag.self)).number = n }
                    for n in 1...folders { (try Cd.create(CampaignFolder.self)).number = n }
                }
            }
            let ledgers = LockedBox<[Int: CampaignLedger]>([:])
            let group = DispatchGroup()
            for w in 0..<writers {
                DispatchQueue.global().async(group: group) {
                    var generator = SplitMix(seed: seed &+ UInt64(w) &* 0x9E37_79B9)
                    let ledger = Self.write(w, &generator, policy: policy)
                    ledgers.update { $0[w] = ledger }
                }
            }
            group.wait()
            try check(ledgers.get(), seed: seed, policy: policy)
        }

        // MARK: - One writer

        /// Runs `opsPerWriter` transactions of writer `w`; returns its ledger.
        static func write(_ w: Int, _ g: inout SplitMix, policy: MergePolicy) -> CampaignLedger {
            var ledger = CampaignLedger()
            var nextValue = Int64(w + 1) * 1_000_000_000
            for _ in 0..<opsPerWriter {
                var pending = ledger
                nextValue += 1
                let value = nextValue
                let choice = g.next(100)
                let pick = g.next(1_000_000)
                let pick2 = g.next(1_000_000)
                let box = LockedBox(pending)
                do {
                    try Cd.transactAndWait {
                        var p = box.get()
                        try Self.operation(w, choice, pick, pick2, value, &p)
                        box.set(p)
                    }
                    pending = box.get()
                    pending.acknowledged += 1
                    ledger = pending
                } catch let error as CdError {
                    let allowed = error.code == 1600 || (policy == .error && error.code == 133020)
                    if !allowed { Issue.record("writer \(w): unexpected failure \(error)") }
                    ledger.failed += 1
                    ledger.failedValues.insert(value)
                } catch {
                    Issue.record("writer \(w): unexpected failure \(error)")
                }
                if g.next(4) == 0 { read() }
            }
            return ledger
        }

        /// One transaction body; `p` is the ledger as it will be if the commit is acknowledged.
        static func operation(
            _ w: Int, _ choice: Int, _ pick: Int, _ pick2: Int, _ value: Int64, _ p: inout CampaignLedger
        )
            throws
        {
            let owned = p.links.keys.sorted()
            func tag(_ n: Int) throws -> CampaignTag? {
                try Cd.objects(CampaignTag.self).filter("number == %@", Int64(n % Int(tags)) + 1).fetchOne()
            }
            func note(_ id: ObjectID) throws -> CampaignNote? {
                try Cd.objects(CampaignNote.self).filter("SELF == %@", id).fetchOne()
            }
            switch choice {
            case 0..<15 where owned.count < 12, 0..<5:
                // Create an owned note linked to one tag and put it in a folder.
                let n = try Cd.create(CampaignNote.self)
                n.owner = Int64(w)
                let t = try #require(try tag(pick))
                n.tags = [t]
                let folder = try Cd.objects(CampaignFolder.self).filter("number == %@", Int64(pick2 % Int(folders)) + 1)
                    .fetchOne()
                n.folder = folder
                let comment = try Cd.create(CampaignComment.self)
                comment.number = value
                comment.note = n
                guard let id = n.objectID else { return }
                p.links[id] = [t.number]
                p.folders[id] = folder?.number
            case 15..<50 where !owned.isEmpty:
                // Link or unlink an owned note and a tag, from either side.
                let id = owned[pick % owned.count]
                guard let n = try note(id), let t = try tag(pick2) else { return }
                let linked = p.links[id, default: []].contains(t.number)
                switch (linked, pick2 % 2 == 0) {
                case (false, true): n.tags.insert(t)
                case (false, false): t.notes.insert(n)
                case (true, true): n.tags.remove(t)
                case (true, false): t.notes.remove(n)
                }
                if linked { p.links[id]?.remove(t.number) } else { p.links[id, default: []].insert(t.number) }
            case 50..<70:
                // This writer's attribute of any live note, and the shared one.
                let all = try Cd.objects(CampaignNote.self).fetch()
                guard !all.isEmpty else { return }
                let n = all[pick % all.count]
                switch w {
                case 0: n.w0 = value
                case 1: n.w1 = value
                case 2: n.w2 = value
                default: n.w3 = value
                }
                if pick2 % 3 == 0 {
                    n.shared = value
                    p.sharedValues.insert(value)
                }
                if let id = n.objectID { p.attribute[id] = value }
            case 70..<82 where !owned.isEmpty:
                // Move an owned note to another folder (or out of any).
                let id = owned[pick % owned.count]
                guard let n = try note(id) else { return }
                let number = Int64(pick2 % Int(folders + 1))
                let folder =
                    number == 0 ? nil : try Cd.objects(CampaignFolder.self).filter("number == %@", number).fetchOne()
                n.folder = folder
                p.folders[id] = folder?.number
            case 82..<88 where !owned.isEmpty:
                // Delete an owned note (its comments cascade, its links nullify).
                let id = owned[pick % owned.count]
                guard let n = try note(id) else { return }
                Cd.delete(n)
                p.links[id] = nil
                p.folders[id] = nil
                p.deleted.insert(id)
            case 88..<91:
                // Delete a folder: deny refuses while it holds notes (1600).
                let number = Int64(pick % Int(folders)) + 1
                guard let folder = try Cd.objects(CampaignFolder.self).filter("number == %@", number).fetchOne() else {
                    return
                }
                Cd.delete(folder)
                for (id, f) in p.folders where f == number { p.folders[id] = .some(nil) }
            default:
                // A comment on an owned note.
                guard !owned.isEmpty, let n = try note(owned[pick % owned.count]) else { return }
                let comment = try Cd.create(CampaignComment.self)
                comment.number = value
                comment.note = n
            }
        }

        /// A read on one snapshot (`Cd.read` pins it) that checks what any commit leaves: inverses
        /// agree. (A transaction body loads each fault from the newest commit, so two loads in one
        /// body may see two commits.)
        static func read() {
            do {
                try Cd.read {
                    for t in try Cd.objects(CampaignTag.self).fetch() {
                        for n in t.notes where !n.tags.contains(t) {
                            Issue.record("a read saw \(t.objectID!) hold \(n.objectID!) without the inverse")
                        }
                    }
                    for f in try Cd.objects(CampaignFolder.self).fetch() {
                        for n in f.notes where n.folder != f {
                            Issue.record("a read saw \(f.objectID!) hold \(n.objectID!), which is elsewhere")
                        }
                    }
                }
            } catch {
                Issue.record("read failed: \(error)")
            }
        }

        // MARK: - The checks

        static func check(_ ledgers: [Int: CampaignLedger], seed: UInt64, policy: MergePolicy) throws {
            let store = try #require(Cd.container?.store as? ObjectStore)
            let problems = try store.engine.read { try ObjectStoreVerifier().verify($0) }
            #expect(problems.isEmpty, "seed \(seed): the store does not verify: \(problems)")
            try background {
                try Cd.transactAndWait {
                    let notes = try Cd.objects(CampaignNote.self).fetch()
                    let byID = Dictionary(uniqueKeysWithValues: notes.map { ($0.objectID!, $0) })
                    let folders = Set(try Cd.objects(CampaignFolder.self).fetch().map(\.number))
                    let failed = ledgers.values.reduce(into: Set<Int64>()) { $0.formUnion($1.failedValues) }
                    let shared = ledgers.values.reduce(into: Set<Int64>([0])) { $0.formUnion($1.sharedValues) }
                    for (w, ledger) in ledgers.sorted(by: { $0.key < $1.key }) {
                        let context = "seed \(seed), policy \(policy), writer \(w)"
                        for id in ledger.deleted {
                            #expect(byID[id] == nil, "\(context): \(id) was deleted but is there")
                        }
                        for (id, expected) in ledger.links {
                            guard let n = byID[id] else {
                                Issue.record("\(context): acknowledged note \(id) is missing")
                                continue
                            }
                            let got = Set(n.tags.map(\.number))
                            #expect(
                                got == expected,
                                "\(context): \(id) is linked to \(got.sorted()), acknowledged \(expected.sorted())")
                            let folder = ledger.folders[id] ?? nil
                            let expectedFolder = folder.flatMap { folders.contains($0) ? $0 : nil }
                            let where_ =
                                "\(context): \(id) is in folder \(String(describing: n.folder?.number)), "
                                + "acknowledged \(String(describing: expectedFolder))"
                            #expect(n.folder?.number == expectedFolder, "\(where_)")
                        }
                        for (id, value) in ledger.attribute {
                            guard let n = byID[id] else { continue }  // deleted since by its owner
                            let got = [n.w0, n.w1, n.w2, n.w3][w]
                            #expect(got == value, "\(context): \(id).w\(w) is \(got), acknowledged \(value)")
                        }
                        #expect(ledger.acknowledged > 0, "\(context): no commit was acknowledged")
                    }
                    for n in notes {
                        #expect(
                            shared.contains(n.shared),
                            "seed \(seed): \(n.objectID!).shared \(n.shared) was never acknowledged")
                        for value in [n.w0, n.w1, n.w2, n.w3, n.shared] where failed.contains(value) {
                            Issue.record("seed \(seed): \(n.objectID!) shows \(value) of a commit that failed")
                        }
                        for t in n.tags where !t.notes.contains(n) {
                            Issue.record("seed \(seed): \(n.objectID!).tags holds \(t.objectID!) without the inverse")
                        }
                        if let f = n.folder, !f.notes.contains(n) {
                            Issue.record("seed \(seed): \(n.objectID!) is in \(f.objectID!), whose notes lack it")
                        }
                        for c in n.comments where c.note != n {
                            Issue.record(
                                "seed \(seed): \(c.objectID!) is listed under \(n.objectID!) but points elsewhere")
                        }
                    }
                    let orphans = try Cd.objects(CampaignComment.self).fetch().filter { $0.note == nil }
                    #expect(orphans.isEmpty, "seed \(seed): comments of deleted notes survived the cascade")
                    let total = ledgers.values.reduce(0) { $0 + $1.acknowledged }
                    let failures = ledgers.values.reduce(0) { $0 + $1.failed }
                    print(
                        "concurrency campaign: seed \(seed), policy \(policy): "
                            + "\(total) commits acknowledged, \(failures) failed"
                    )
                }
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so that a failing seed runs again the same way.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func nextRaw() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in 0..<bound.
    mutating func next(_ bound: Int) -> Int { Int(nextRaw() % UInt64(bound)) }
}
