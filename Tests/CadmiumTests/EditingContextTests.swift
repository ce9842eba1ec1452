// The editing context (`CdEditingContext`, MC5 and MC6 of CdManagedObjectContext.swift, EC1 and
// EC2 of CdEditingContext.swift): long-lived and editable on the main actor, its changes pending
// until `save()` or `rollback()`, its fetches seeing them, and other commits refreshing its clean
// objects while its edits stay. Each case opens a container of its own; the suite is serialized
// because two cases install a misuse handler, which is global.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite(.timeLimit(.minutes(2))) @MainActor struct EditingContexts {
        /// A fresh in-memory container of the README's company model and Owner/Pet (deny).
        static func container() throws -> CdContainer {
            try CdContainer(
                model: CdModel(classes: [Department.self, Employee.self, Owner.self, Pet.self]), storeURL: nil)
        }

        /// Runs `body` in a transaction of `container` on a background thread and waits for it.
        static func transaction(_ container: CdContainer, _ body: @escaping () throws -> Void) throws {
            try background { try Cd.withContainer(container) { try Cd.transactAndWait { try body() } } }
        }

        /// Stores employees named `names` with `salary`, in one transaction.
        static func seed(_ container: CdContainer, _ names: [String], salary: Int64 = 0) throws {
            try transaction(container) {
                for name in names {
                    let e = try Cd.create(Employee.self)
                    e.name = name
                    e.salary = salary
                }
            }
        }

        /// The employees of `container` as a transaction reads them: name → (salary, department).
        static func stored(_ container: CdContainer) throws -> [String: (Int64, String?)] {
            let rows = LockedBox<[String: (Int64, String?)]>([:])
            try transaction(container) {
                for e in try Cd.objects(Employee.self).fetch() {
                    rows.update { $0[e.name] = (e.salary, e.department?.name) }
                }
            }
            return rows.get()
        }

        @Test func changesStayPendingUntilSaveAndSaveRepeats() throws {
            let container = try Self.container()
            defer { try? container.close() }
            let editor = CdEditingContext(container: container)
            #expect(!editor.hasChanges)
            let research = try editor.create(Department.self)
            research.name = "Research"
            let ann = try editor.create(Employee.self)
            ann.name = "Ann"
            ann.salary = 100
            ann.department = research
            // The inverse is kept in memory before the save.
            #expect(research.employees == [ann])
            #expect(editor.hasChanges && editor.insertedObjects == [research, ann])
            #expect(ann.managedObjectContext === editor.context)

            // Nothing is stored yet: the main context and a transaction see nothing.
            let mainCount = try Cd.withContainer(container) { try Cd.objects(Employee.self).count() }
            #expect(mainCount == 0)
            #expect(try Self.stored(container).isEmpty)
            // The editing context's own fetches see its pending objects, as the same instances.
            let request = Cd.objects(Employee.self)
            #expect(try request.count(in: editor) == 1)
            #expect(try request.fetchOne(in: editor) === ann)

            try editor.save()
            #expect(!editor.hasChanges && editor.insertedObjects.isEmpty)
            let first = try Self.stored(container)
            #expect(first.count == 1 && first["Ann"]?.0 == 100 && first["Ann"]?.1 == "Research")

            // The same objects go on being edited and saved.
            ann.salary = 120
            #expect(editor.updatedObjects == [ann])
            try editor.save()
            #expect(try Self.stored(container)["Ann"]?.0 == 120)
            #expect(ann.salary == 120 && ann.department === research)
        }

        @Test func fetchesSeePendingInsertsChangesAndDeletes() throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.transaction(container) {
                for (name, salary) in [("A", 10), ("B", 20), ("C", 30)] {
                    let e = try Cd.create(Employee.self)
                    e.name = name
                    e.salary = Int64(salary)
                }
            }
            let editor = CdEditingContext(container: container)
            let all = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            #expect(all.map(\.name) == ["A", "B", "C"])
            // One instance per object in the context.
            #expect(try Cd.objects(Employee.self).filter("name == %@", "B").fetchOne(in: editor) === all[1])

            all[0].salary = 99  // A moves above the filter below
            try editor.delete(all[2])  // C goes
            let d = try editor.create(Employee.self)
            d.name = "D"
            d.salary = 50
            #expect(editor.deletedObjects == [all[2]] && all[2].isDeleted)
            let rich = try Cd.objects(Employee.self).filter("salary > %@", 15).sorted(by: \.name).fetch(in: editor)
            #expect(rich.map(\.name) == ["A", "B", "D"])
            #expect(rich[0] === all[0] && rich[2] === d)
            #expect(try Cd.objects(Employee.self).count(in: editor) == 3)
            // The store is untouched until the save.
            #expect(try Self.stored(container).mapValues(\.0) == ["A": 10, "B": 20, "C": 30])
            try editor.save()
            #expect(try Self.stored(container).mapValues(\.0) == ["A": 99, "B": 20, "D": 50])
            #expect(try Cd.objects(Employee.self).count(in: editor) == 3)
        }

        @Test func rollbackDropsInsertsChangesAndDeletes() throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.transaction(container) {
                let ops = try Cd.create(Department.self)
                ops.name = "Ops"
                for name in ["A", "B"] {
                    let e = try Cd.create(Employee.self)
                    e.name = name
                    e.department = ops
                }
            }
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b) = (staff[0], staff[1])
            let ops = try #require(a.department)
            a.name = "A2"
            try editor.delete(b)
            let newcomer = try editor.create(Employee.self)
            newcomer.name = "N"
            newcomer.department = ops
            #expect(ops.employees.count == 3)  // B is deleted, but its link goes at the save (nullify)
            editor.rollback()

            #expect(!editor.hasChanges)
            #expect(a.name == "A" && !b.isDeleted && b.name == "B")
            #expect(Set(ops.employees.map(\.name)) == ["A", "B"])
            // The inserted object left the context, with its attributes.
            #expect(newcomer.managedObjectContext == nil && newcomer.objectID == nil && newcomer.name == "N")
            #expect(newcomer.department == nil)
            #expect(try Cd.objects(Employee.self).count(in: editor) == 2)
            try editor.save()  // nothing to save
            #expect(try Self.stored(container).keys.sorted() == ["A", "B"])
            // It can be inserted again, as any transient object.
            try editor.insert(newcomer)
            try editor.save()
            #expect(try Self.stored(container).keys.sorted() == ["A", "B", "N"])
        }

        @Test func otherCommitsRefreshCleanObjectsAndKeepEdits() async throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.seed(container, ["A", "B", "C"], salary: 1)
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b, c) = (staff[0], staff[1], staff[2])
            a.name = "A (edited)"
            try Self.transaction(container) {
                let list = try Cd.objects(Employee.self).sorted(by: \.name).fetch()
                list[0].salary = 7  // A's salary: the editor did not touch it
                list[1].name = "B (theirs)"
                Cd.delete(list[2])
            }
            // The main queue merges the commit; the editor's clean objects follow it.
            let deadline = Date().addingTimeInterval(5)
            while !(b.name == "B (theirs)" && c.isDeleted), Date() < deadline {
                try await Task.sleep(nanoseconds: 5_000_000)  // lets the main queue run the merge
            }
            #expect(b.name == "B (theirs)" && c.isDeleted)
            // An object with edits takes the commit in too, its own changes on top (MC6).
            #expect(a.name == "A (edited)" && a.hasChanges && a.salary == 7)
            try editor.save()
            let stored = try Self.stored(container)
            // The default policy keeps both: the editor's name, the transaction's salary.
            #expect(stored.count == 2 && stored["A (edited)"]?.0 == 7 && stored["B (theirs)"] != nil)
        }

        @Test func linksMadeElsewhereWhileATagHasEditsHereAreKept() async throws {
            let container = try CdContainer(
                model: CdModel(classes: [
                    CampaignNote.self, CampaignTag.self, CampaignFolder.self, CampaignComment.self,
                ]),
                storeURL: nil)
            defer { try? container.close() }
            try Self.transaction(container) {
                let tag = try Cd.create(CampaignTag.self)
                tag.number = 1
                for owner in 1...3 { try Cd.create(CampaignNote.self).owner = Int64(owner) }
            }
            let editor = CdEditingContext(container: container)
            let tag = try #require(try Cd.objects(CampaignTag.self).fetchOne(in: editor))
            let notes = try Cd.objects(CampaignNote.self).sorted(by: \.owner).fetch(in: editor)
            #expect(tag.notes.isEmpty)  // the list is read now, before the other link
            tag.notes.insert(notes[0])  // a pending change: the tag keeps it through the merge
            // Another transaction links note 2 to the same tag, from the note's side.
            try Self.transaction(container) {
                let theirs = try #require(try Cd.objects(CampaignNote.self).filter(\.owner == 2).fetchOne())
                let tag = try #require(try Cd.objects(CampaignTag.self).fetchOne())
                theirs.tags.insert(tag)
            }
            tag.notes.insert(notes[2])
            try editor.save()
            // Both sides' links are stored: the save carried only the links it added (MO4).
            let stored = LockedBox<Set<Int64>>([])
            try Self.transaction(container) {
                let tag = try #require(try Cd.objects(CampaignTag.self).fetchOne())
                stored.set(Set(tag.notes.map(\.owner)))
            }
            #expect(stored.get() == [1, 2, 3])
            // And the editor's tag reads the stored list after its save.
            #expect(Set(tag.notes.map(\.owner)) == [1, 2, 3])
        }

        @Test func refreshKeepsOrDropsOneObjectsChanges() throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.seed(container, ["A", "B"], salary: 1)
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b) = (staff[0], staff[1])
            a.name = "A2"
            try editor.delete(b)
            try Self.transaction(container) {
                for e in try Cd.objects(Employee.self).fetch() { e.salary = 5 }
            }
            // Before the main queue merged that commit: a refresh reads it now.
            editor.refresh(a, mergeChanges: true)
            #expect(a.name == "A2" && a.salary == 5 && a.hasChanges)
            editor.refresh(b, mergeChanges: false)
            #expect(!b.isDeleted && b.salary == 5 && editor.deletedObjects.isEmpty)
            editor.refresh(a, mergeChanges: false)
            #expect(a.name == "A" && !a.hasChanges && !editor.hasChanges)
            a.salary = 9
            editor.refreshAllObjects()
            #expect(a.salary == 9 && a.name == "A")
            try editor.save()
            #expect(try Self.stored(container).mapValues(\.0) == ["A": 9, "B": 5])
        }

        @Test func aFailedSaveKeepsTheChangesPending() throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.transaction(container) {
                let owner = try Cd.create(Owner.self)
                owner.name = "O"
                let pet = try Cd.create(Pet.self)
                pet.name = "P"
                pet.owner = owner
            }
            let editor = CdEditingContext(container: container)
            let owner = try #require(try Cd.objects(Owner.self).fetchOne(in: editor))
            owner.name = "O2"
            try editor.delete(owner)
            #expect(throws: CdError.self) { try editor.save() }  // deny: the owner has a pet
            #expect(editor.hasChanges && owner.isDeleted)
            editor.rollback()
            #expect(!owner.isDeleted && owner.name == "O")
            owner.name = "O3"
            try editor.save()
            #expect(try Cd.objects(Owner.self).fetchOne(in: editor)?.name == "O3")
        }

        @Test func theErrorPolicyReportsAChangeMadeElsewhereAfterTheEdit() throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.transaction(container) {
                let e = try Cd.create(Employee.self)
                e.name = "A"
            }
            let editor = CdEditingContext(container: container)
            editor.mergePolicy = .error
            let a = try #require(try Cd.objects(Employee.self).fetchOne(in: editor))
            a.name = "mine"
            try Self.transaction(container) { try Cd.objects(Employee.self).fetchOne()!.name = "theirs" }
            do {
                try editor.save()
                Issue.record("the save went through a conflict")
            } catch let error as CdError {
                #expect(error.code == 133020)
            }
            #expect(a.hasChanges)
            #expect(try Self.stored(container).keys.sorted() == ["theirs"])
        }

        @Test func anotherContextsObjectComesInWithItsStoredValues() throws {
            let container = try Self.container()
            defer { try? container.close() }
            try Self.transaction(container) { try Cd.create(Employee.self).name = "A" }
            let editor = CdEditingContext(container: container)
            let main = try #require(try Cd.withContainer(container) { try Cd.objects(Employee.self).fetchOne() })
            let mine = try #require(try editor.object(main))
            #expect(mine !== main && mine.name == "A" && mine.managedObjectContext === editor.context)
            #expect(try editor.object(main) === mine)
            mine.name = "B"
            try editor.save()
            #expect(try Cd.withContainer(container) { try Cd.objects(Employee.self).fetchOne()?.name } == "B")
        }

        @Test func itsObjectsAreUsedOnTheMainActorOnly() throws {
            let container = try Self.container()
            defer { try? container.close() }
            let editor = CdEditingContext(container: container)
            let e = try editor.create(Employee.self)
            e.name = "A"
            let team = try editor.create(Department.self)
            let (box, teamBox) = (Unchecked(e), Unchecked(team))
            try background {
                expectMisuse(.i5) { _ = box.value.name }
                expectMisuse(.j5) { box.value.name = "B" }
                expectMisuse(.j5) { box.value.department = teamBox.value }
                expectMisuse(.k1) { teamBox.value.employees = [box.value] }
            }
            #expect(e.department == nil && team.employees.isEmpty)
            #expect(e.name == "A", "the write off the main actor did nothing")
            // A transaction's objects stay the transaction's: moving a pending editing object is G2.
            try background {
                Cd.withContainer(container) {
                    Cd.transactAndWait { expectMisuse(.g2) { _ = Cd.useInCurrentContext(box.value) } }
                }
            }
        }
    }
}
