// Overlapping non-serial transactions lose no acknowledged link: to-many changes travel as links
// added and removed (ToManyDelta) and merge link by link; attribute conflicts follow the merge
// policy (MergePolicy); a link to an object another transaction deleted meanwhile follows the
// delete, and an error names the failing transaction's own change.

import Foundation
import Testing
@testable import Cadmium
import CdObjects

final class TaggedNote: CdManagedObject {
    @Attribute var text: String
    @Relationship(inverse: "notes") var tags: Set<NoteTag>
}

final class NoteTag: CdManagedObject {
    @Attribute(.unique) var name: String
    @Relationship(inverse: "tags") var notes: Set<TaggedNote>
}

/// Two threads that meet: each `arrive` waits until the other has arrived too.
final class Rendezvous: @unchecked Sendable {
    private let first = DispatchSemaphore(value: 0)
    private let second = DispatchSemaphore(value: 0)
    /// Party A: signals and waits for B.
    func arriveA() {
        first.signal()
        _ = second.wait(timeout: .now() + 10)
    }
    /// Party B.
    func arriveB() {
        second.signal()
        _ = first.wait(timeout: .now() + 10)
    }
}

/// Runs `a` and `b` on two threads at once and returns what each threw, if anything.
func runBoth(_ a: @escaping () throws -> Void, _ b: @escaping () throws -> Void) -> ((any Error)?, (any Error)?) {
    let results = LockedBox<[Int: any Error]>([:])
    let group = DispatchGroup()
    for (index, body) in [a, b].enumerated() {
        let work = Unchecked(body)
        DispatchQueue.global().async(group: group) {
            do { try work.value() } catch { results.update { $0[index] = error } }
        }
    }
    group.wait()
    let r = results.get()
    return (r[0], r[1])
}

extension CadmiumSuites {
    @Suite struct OverlappingTransactions {
        static func open(_ policy: MergePolicy? = nil) throws {
            try Cd.initWithStore(
                model: try CdModel(classes: [TaggedNote.self, NoteTag.self]), storeURL: nil, serialTX: false)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            if let policy { Cd.mergePolicy = policy }
        }

        static func tag(_ name: String) throws -> NoteTag {
            try #require(try Cd.objects(NoteTag.self).filter("name == %@", name).fetchOne())
        }

        /// Reproduction 1: each transaction links a new note to tag "x", waits until the other
        /// has linked, then both commit.
        static func linkTwoNotesAtOnce() -> ((any Error)?, (any Error)?) {
            let meet = Rendezvous()
            func body(_ text: String, _ arrive: @escaping () -> Void) -> () throws -> Void {
                {
                    try Cd.transactAndWait {
                        let x = try tag("x")
                        let note = try Cd.create(TaggedNote.self)
                        note.text = text
                        note.tags.insert(x)
                        arrive()
                    }
                }
            }
            return runBoth(body("a", meet.arriveA), body("b", meet.arriveB))
        }

        static func seedTag(notes: [String]) throws {
            try background {
                try Cd.transactAndWait {
                    let x = try Cd.create(NoteTag.self)
                    x.name = "x"
                    for text in notes {
                        let n = try Cd.create(TaggedNote.self)
                        n.text = text
                        n.tags = [x]
                    }
                }
            }
        }

        @MainActor @Test func overlappingLinksToOneTagAreAllKept() throws {
            try Self.open()
            try Self.seedTag(notes: [])
            let (a, b) = Self.linkTwoNotesAtOnce()
            #expect(a == nil && b == nil, "both commits succeed: \(String(describing: a)), \(String(describing: b))")
            let x = try Self.tag("x")
            #expect(Set(x.notes.map(\.text)) == ["a", "b"])
            for note in try Cd.objects(TaggedNote.self).fetch() { #expect(note.tags.map(\.name) == ["x"]) }
        }

        @MainActor @Test func overlappingLinksFailWholeUnderTheErrorPolicy() throws {
            try Self.open(.error)
            try Self.seedTag(notes: [])
            let (a, b) = Self.linkTwoNotesAtOnce()
            let failures = [a, b].compactMap { $0 as? CdError }
            #expect(
                failures.count == 1,
                "exactly one of the two commits fails: \(String(describing: a)) \(String(describing: b))")
            #expect(failures.first?.code == 133020)
            if case let .mergeConflict(conflicts)? = failures.first {
                #expect(conflicts.map(\.objectID.entity) == ["NoteTag"])
            }
            // The failed commit wrote nothing: one note, linked.
            let notes = try Cd.objects(TaggedNote.self).fetch()
            #expect(notes.count == 1)
            #expect(try Self.tag("x").notes.count == 1)
        }

        /// Reproduction 2: A links a new note n1 to "x" while B deletes n0 (also in "x") and commits
        /// first; A's commit does not fail over n0, which it never named.
        static func linkWhileAnotherDeletes() -> ((any Error)?, (any Error)?) {
            let meet = Rendezvous()
            let bCommitted = DispatchSemaphore(value: 0)
            let a: () throws -> Void = {
                try Cd.transactAndWait {
                    let x = try tag("x")
                    _ = x.notes.count  // A reads the list, n0 in it
                    let n1 = try Cd.create(TaggedNote.self)
                    n1.text = "n1"
                    n1.tags.insert(x)
                    meet.arriveA()
                    _ = bCommitted.wait(timeout: .now() + 10)
                }
            }
            let b: () throws -> Void = {
                defer { bCommitted.signal() }
                try Cd.transactAndWait {
                    let n0 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n0").fetchOne())
                    meet.arriveB()
                    Cd.delete(n0)
                }
            }
            return runBoth(a, b)
        }

        @MainActor @Test func aLinkDoesNotFailOverAMemberAnotherTransactionDeleted() throws {
            try Self.open()
            try Self.seedTag(notes: ["n0"])
            let (a, b) = Self.linkWhileAnotherDeletes()
            #expect(a == nil, "A commits: \(String(describing: a))")
            #expect(b == nil)
            #expect(try Self.tag("x").notes.map(\.text) == ["n1"])
            #expect(try Cd.objects(TaggedNote.self).fetch().map(\.text) == ["n1"])
        }

        @MainActor @Test func linkWhileAnotherDeletesIsAConflictUnderTheErrorPolicy() throws {
            try Self.open(.error)
            try Self.seedTag(notes: ["n0"])
            let (a, b) = Self.linkWhileAnotherDeletes()
            #expect(b == nil)
            #expect((a as? CdError)?.code == 133020, "A fails with 133020: \(String(describing: a))")
            #expect(try Self.tag("x").notes.isEmpty)
            #expect(try Cd.objects(TaggedNote.self).count() == 0)
        }

        /// A link to an object another transaction deleted meanwhile is not made (the delete's
        /// nullify wins); the commit's other changes apply.
        @MainActor @Test func aLinkToAnObjectDeletedMeanwhileFollowsTheDelete() throws {
            try Self.open()
            try Self.seedTag(notes: ["n0"])
            let meet = Rendezvous()
            let deleted = DispatchSemaphore(value: 0)
            let (a, b) = runBoth(
                {
                    try Cd.transactAndWait {
                        let n0 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n0").fetchOne())
                        let y = try Cd.create(NoteTag.self)
                        y.name = "y"
                        y.notes.insert(n0)
                        meet.arriveA()
                        _ = deleted.wait(timeout: .now() + 10)
                    }
                },
                {
                    defer { deleted.signal() }
                    try Cd.transactAndWait {
                        let n0 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n0").fetchOne())
                        meet.arriveB()
                        Cd.delete(n0)
                    }
                })
            #expect(a == nil && b == nil, "\(String(describing: a)) \(String(describing: b))")
            #expect(try Self.tag("y").notes.isEmpty)
            #expect(try Cd.objects(TaggedNote.self).count() == 0)
        }

        /// An error names the failing transaction's own change: the object and key that link to
        /// an object that never existed.
        @MainActor @Test func aLinkToAnObjectThatNeverExistedNamesTheLinkingChange() throws {
            try Self.open()
            try Self.seedTag(notes: [])
            // Through the store's change set (a context never holds an object that is not there).
            let store = try #require(Cd.container?.store as? ObjectStore)
            let x = try Self.tag("x").objectID!
            var changes = ChangeSet()
            changes.toManyDeltas[x] = ["notes": ToManyDelta(added: [ObjectID(entity: "TaggedNote", primaryKey: 9_999)])]
            do {
                try store.apply(changes)
                Issue.record("a link to TaggedNote/9999 was accepted")
            } catch let e as CdError {
                #expect(e.failure?.objectID == x.description)
                #expect(e.failure?.key == "notes")
                #expect(e.description.contains("TaggedNote/9999"))
            }
        }

        /// Two transactions change different attributes of one object: both values stay (per
        /// property). The same attribute: the policy decides.
        /// A reads n0's text, waits until B has set it to "from B" and committed, then sets it to
        /// "from A" (after `setUp`, inside its body) and commits: what each commit threw.
        static func writeTextAfterAnotherCommit(
            _ setUp: @escaping () throws -> Void = {}
        ) -> ((any Error)?, (any Error)?) {
            let meet = Rendezvous()
            let bCommitted = DispatchSemaphore(value: 0)
            return runBoth(
                {
                    try Cd.transactAndWait {
                        try setUp()
                        let n0 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n0").fetchOne())
                        _ = n0.text
                        meet.arriveA()
                        _ = bCommitted.wait(timeout: .now() + 10)
                        n0.text = "from A"
                    }
                },
                {
                    defer { bCommitted.signal() }
                    try Cd.transactAndWait {
                        let n0 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n0").fetchOne())
                        meet.arriveB()
                        n0.text = "from B"
                    }
                })
        }

        @MainActor @Test(arguments: MergePolicy.allCases)
        func attributeConflictsFollowThePolicy(_ policy: MergePolicy) throws {
            try Self.open(policy)
            try Self.seedTag(notes: ["n0"])
            let (a, b) = Self.writeTextAfterAnotherCommit()
            #expect(b == nil)
            let text = try #require(try Cd.objects(TaggedNote.self).fetchOne()).text
            switch policy {
            case .mergeByPropertyObjectTrump, .overwrite:
                #expect(a == nil)
                #expect(text == "from A")
            case .mergeByPropertyStoreTrump, .rollback:
                #expect(a == nil)
                #expect(text == "from B")
            case .error:
                guard case let .mergeConflict(conflicts)? = a as? CdError else {
                    Issue.record("expected 133020, got \(String(describing: a))")
                    return
                }
                #expect(text == "from B")
                let property = try #require(conflicts.first?.properties.first)
                #expect(property.key == "text")
                #expect(property.read == .string("n0"))
                #expect(property.stored == .string("from B"))
                #expect(property.committing == .string("from A"))
                #expect((a as? CdError)?.description.contains("from A") == true)
            }
        }

        /// The per-transaction policy overrides the store's.
        @MainActor @Test func aTransactionsPolicyOverridesTheStores() throws {
            try Self.open(.error)
            try Self.seedTag(notes: ["n0"])
            let (a, b) = Self.writeTextAfterAnotherCommit {
                try Cd.transactionContext().mergePolicy = .mergeByPropertyStoreTrump
            }
            #expect(a == nil && b == nil)
            #expect(try Cd.objects(TaggedNote.self).fetchOne()?.text == "from B")
        }

        /// Removing a link another transaction removed meanwhile, and unlinking while another
        /// links a different member: each link change is applied on its own.
        @MainActor @Test func unlinkAndLinkOfDifferentMembersBothApply() throws {
            try Self.open()
            try Self.seedTag(notes: ["n0", "n1"])
            let meet = Rendezvous()
            let (a, b) = runBoth(
                {
                    try Cd.transactAndWait {
                        let x = try Self.tag("x")
                        let n0 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n0").fetchOne())
                        x.notes.remove(n0)
                        meet.arriveA()
                    }
                },
                {
                    try Cd.transactAndWait {
                        let n1 = try #require(try Cd.objects(TaggedNote.self).filter("text == %@", "n1").fetchOne())
                        let n2 = try Cd.create(TaggedNote.self)
                        n2.text = "n2"
                        n2.tags = try [Self.tag("x")]
                        n1.tags = []
                        meet.arriveB()
                    }
                })
            #expect(a == nil && b == nil)
            #expect(try Self.tag("x").notes.map(\.text) == ["n2"])
            #expect(
                try Cd.objects(TaggedNote.self).fetch().map { "\($0.text):\($0.tags.count)" }.sorted() == [
                    "n0:0", "n1:0", "n2:1",
                ])
        }

        /// An ordered to-many: two transactions append different members at once; both stay,
        /// after the members that were there.
        @MainActor @Test func overlappingAppendsToAnOrderedListAreBothKept() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let p = try Cd.create(Project.self)
                    p.title = "P"
                    for title in ["c1", "c2"] {
                        let c = try Cd.create(Chore.self)
                        c.title = title
                        p.chores.append(c)
                    }
                }
            }
            let meet = Rendezvous()
            func append(_ title: String, _ arrive: @escaping () -> Void) -> () throws -> Void {
                {
                    try Cd.transactAndWait {
                        let p = try #require(try Cd.objects(Project.self).fetchOne())
                        let c = try Cd.create(Chore.self)
                        c.title = title
                        p.chores.append(c)
                        arrive()
                    }
                }
            }
            let (a, b) = runBoth(append("c3", meet.arriveA), append("c4", meet.arriveB))
            #expect(a == nil && b == nil)
            let titles = try #require(try Cd.objects(Project.self).fetchOne()).chores.map(\.title)
            #expect(titles.count == 4)
            #expect(Array(titles.prefix(2)) == ["c1", "c2"])
            #expect(Set(titles.suffix(2)) == ["c3", "c4"])
            #expect(try Cd.objects(Chore.self).fetch().allSatisfy { $0.project?.title == "P" })
        }

        /// One transaction reorders an ordered list while another appends to it: the order the
        /// first wants holds for the members it knew, and the appended member is kept after them.
        @MainActor @Test func aReorderAndAnOverlappingAppendBothHold() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let p = try Cd.create(Project.self)
                    p.title = "P"
                    for title in ["c1", "c2", "c3"] {
                        let c = try Cd.create(Chore.self)
                        c.title = title
                        p.chores.append(c)
                    }
                }
            }
            let meet = Rendezvous()
            let (a, b) = runBoth(
                {
                    try Cd.transactAndWait {
                        let p = try #require(try Cd.objects(Project.self).fetchOne())
                        p.chores = p.chores.reversed()
                        meet.arriveA()
                    }
                },
                {
                    try Cd.transactAndWait {
                        let p = try #require(try Cd.objects(Project.self).fetchOne())
                        let c = try Cd.create(Chore.self)
                        c.title = "c4"
                        p.chores.append(c)
                        meet.arriveB()
                    }
                })
            #expect(a == nil && b == nil)
            let titles = try #require(try Cd.objects(Project.self).fetchOne()).chores.map(\.title)
            #expect(titles == ["c3", "c2", "c1", "c4"])
        }
    }
}
