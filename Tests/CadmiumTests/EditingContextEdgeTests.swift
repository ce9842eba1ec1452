// Editing contexts at their edges (MC5, MC6 of CdManagedObjectContext.swift): rollback after
// merges and saves, deletes made elsewhere, the error policy across merges, refused cascades,
// and a context dropped with unsaved changes. Each case failed before the fix it names.

import Foundation
import Testing
@testable import Cadmium

/// Cascade from a folder to its docs; a doc with locks cannot be deleted (deny).
final class FiledFolder: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "folder", deleteRule: .cascade) var docs: Set<FiledDoc>
}

final class FiledDoc: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "docs") var folder: FiledFolder?
    @Relationship(inverse: "doc", deleteRule: .deny) var locks: Set<DocLock>
}

final class DocLock: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "locks") var doc: FiledDoc?
}

extension CadmiumSuites {
    @Suite(.timeLimit(.minutes(2))) @MainActor struct EditingContextEdges {
        typealias E = EditingContexts

        /// Lets the main queue run pending merges until `condition` holds.
        func settle(_ condition: () -> Bool) async throws {
            let deadline = Date().addingTimeInterval(5)
            while !condition(), Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        }

        /// rollback() used to un-delete an object another commit deleted (MC6 marked it deleted;
        /// rollback's `live` loop clears isDeleted and refaults it to an empty row).
        @Test func rollbackKeepsAnObjectDeletedElsewhereDeleted() async throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.seed(container, ["A", "B"])
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b) = (staff[0], staff[1])
            a.name = "A2"
            try E.transaction(container) {
                let victim = try Cd.objects(Employee.self).filter("name == %@", "B").fetchOne()!
                Cd.delete(victim)
            }
            try await settle { b.isDeleted }
            #expect(b.isDeleted)
            editor.rollback()
            #expect(b.isDeleted, "rollback resurrected an object deleted elsewhere (name now '\(b.name)')")
        }

        /// An object inserted and deleted before a save stays registered, deleted; a
        /// later rollback() makes it a live object of an ID the store never had.
        @Test func rollbackAfterASaveDoesNotReviveAnInsertedThenDeletedObject() throws {
            let container = try E.container()
            defer { try? container.close() }
            let editor = CdEditingContext(container: container)
            let keep = try editor.create(Employee.self)
            keep.name = "K"
            let temp = try editor.create(Employee.self)
            temp.name = "T"
            try editor.delete(temp)
            try editor.save()
            keep.name = "K2"
            editor.rollback()
            #expect(temp.isDeleted || temp.managedObjectContext == nil, "temp revived: name '\(temp.name)'")
        }

        /// Under `.error`, one edit used to set a context-wide stamp, so a later first edit of
        /// another object the editor had already refreshed to the other commit's values is a
        /// spurious 133020 (CA7 counts from the context's first change, not the object's read).
        @Test func theErrorPolicyReportsNoConflictForAnObjectReadAfterTheOtherCommit() async throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.seed(container, ["X", "Y"])
            let editor = CdEditingContext(container: container)
            editor.mergePolicy = .error
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (x, y) = (staff[0], staff[1])
            x.name = "X2"  // the editor's first change: its stamp
            try E.transaction(container) {
                try Cd.objects(Employee.self).filter("name == %@", "Y").fetchOne()!.salary = 5
            }
            try await settle { y.salary == 5 }
            #expect(y.salary == 5, "the merge refreshed Y: the editor reads the other commit's value")
            y.name = "Y2"  // the first change of Y comes after the editor read the latest Y
            #expect(throws: Never.self) { try editor.save() }
        }

        /// An edited object another commit deleted: the save used to "succeed", drops the edit
        /// (CA6) and leaves the object looking saved and not deleted.
        @Test func anEditedObjectDeletedElsewhereIsNotShownAsSaved() async throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.seed(container, ["A", "B"])
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b) = (staff[0], staff[1])
            a.name = "A2"
            try E.transaction(container) {
                for e in try Cd.objects(Employee.self).fetch() { Cd.delete(e) }
            }
            try await settle { b.isDeleted }
            var threw = false
            do { try editor.save() } catch { threw = true }
            let stored = try E.stored(container)
            #expect(stored.isEmpty)
            #expect(
                threw || a.isDeleted,
                "edit silently dropped: a.name=\(a.name) hasChanges=\(a.hasChanges) isDeleted=\(a.isDeleted)")
        }

        /// The same when the save meets the delete before the merge brought it: the store drops
        /// the changes (CA6) and says so (`goneMeanwhile`), and the object is marked deleted.
        @Test func aSaveThatMeetsADeleteMadeElsewhereMarksTheObjectDeleted() throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.seed(container, ["A", "B"])
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b) = (staff[0], staff[1])
            a.name = "A2"
            b.name = "B2"
            try E.transaction(container) {
                Cd.delete(try Cd.objects(Employee.self).filter("name == %@", "A").fetchOne()!)
            }
            // This synchronous main-actor body keeps the main queue from merging the delete first.
            try editor.save()
            #expect(a.isDeleted && !editor.hasChanges)
            #expect(!b.isDeleted && !b.hasChanges)
            #expect(try E.stored(container).keys.sorted() == ["B2"])
        }

        /// deletedObjects used to list an object inserted and deleted since the last save
        /// (doc: "The stored objects deleted"; Core Data leaves it out), even after save().
        @Test func deletedObjectsListsOnlyStoredObjects() throws {
            let container = try E.container()
            defer { try? container.close() }
            let editor = CdEditingContext(container: container)
            let temp = try editor.create(Employee.self)
            try editor.delete(temp)
            #expect(editor.deletedObjects.isEmpty)
            try editor.save()
            #expect(editor.deletedObjects.isEmpty, "still listed after save()")
        }

        /// A delete of an inserted object that a deny rule further down the cascade
        /// refuses throws, yet leaves the object marked deleted: the next save silently skips it.
        @Test func aRefusedDeleteOfAnInsertedObjectLeavesItAlive() throws {
            let container = try CdContainer(
                model: CdModel(classes: [FiledFolder.self, FiledDoc.self, DocLock.self]), storeURL: nil)
            defer { try? container.close() }
            let editor = CdEditingContext(container: container)
            let folder = try editor.create(FiledFolder.self)
            folder.name = "F"
            let doc = try editor.create(FiledDoc.self)
            doc.name = "D"
            doc.folder = folder
            let lock = try editor.create(DocLock.self)
            lock.name = "L"
            lock.doc = doc
            #expect(throws: (any Error).self) { try editor.delete(folder) }
            #expect(!folder.isDeleted, "the delete threw but the folder is marked deleted")
            var saveError: (any Error)?
            do { try editor.save() } catch { saveError = error }
            #expect(saveError == nil, "save after the refused delete: \(String(describing: saveError))")
            let folders = try Cd.withContainer(container) { try Cd.objects(FiledFolder.self).count() }
            #expect(folders == 1, "the folder was not saved")
        }

        /// An edited object used to keep stale values of the properties it did not change after
        /// another commit changed them, and fetch(in:) filters on the fresh stored values meanwhile.
        @Test func anEditedObjectSeesOtherCommitsPropertiesItDidNotChange() async throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.seed(container, ["A", "B"], salary: 1)
            let editor = CdEditingContext(container: container)
            let staff = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            let (a, b) = (staff[0], staff[1])
            a.name = "A2"
            try E.transaction(container) {
                for e in try Cd.objects(Employee.self).fetch() { e.salary = 7 }
            }
            try await settle { b.salary == 7 }
            let rich = try Cd.objects(Employee.self).filter("salary > %@", 5).fetch(in: editor)
            #expect(rich.contains(a))
            #expect(a.salary == 7, "A matched salary > 5 but reads salary \(a.salary)")
        }

        /// An editing context dropped with unsaved changes is never freed (its pending
        /// objects hold it, it holds them) and stays a merge observer.
        @Test func anEditingContextDroppedWithChangesIsFreed() throws {
            let container = try E.container()
            defer { try? container.close() }
            weak var context: CdManagedObjectContext?
            do {
                let editor = CdEditingContext(container: container)
                context = editor.context
                try editor.create(Employee.self).name = "pending"
            }
            #expect(context == nil, "the editing context leaked with its pending objects")
        }

        /// A to-one moved between two stored objects and rolled back: both sides read as stored.
        @Test func rollbackOfAMovedToOneRestoresBothSides() throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.transaction(container) {
                let (ops, lab) = (try Cd.create(Department.self), try Cd.create(Department.self))
                ops.name = "Ops"
                lab.name = "Lab"
                let e = try Cd.create(Employee.self)
                e.name = "A"
                e.department = ops
            }
            let editor = CdEditingContext(container: container)
            let departments = try Cd.objects(Department.self).sorted(by: \.name).fetch(in: editor)
            let (lab, ops) = (departments[0], departments[1])
            let a = try #require(ops.employees.first)
            a.department = lab
            #expect(lab.employees == [a] && ops.employees.isEmpty)
            editor.rollback()
            #expect(a.department === ops && ops.employees == [a] && lab.employees.isEmpty)
            #expect(!editor.hasChanges)
        }

        /// Links made, saved, changed elsewhere, then changed here again and saved: every link
        /// each side added is stored (to-many changes travel as deltas, MO4, save after save).
        @Test func linksMergeAcrossSavesAndOtherCommits() async throws {
            let container = try CdContainer(
                model: CdModel(classes: [
                    CampaignNote.self, CampaignTag.self, CampaignFolder.self, CampaignComment.self,
                ]),
                storeURL: nil)
            defer { try? container.close() }
            try E.transaction(container) {
                try Cd.create(CampaignTag.self).number = 1
                for owner in 1...4 { try Cd.create(CampaignNote.self).owner = Int64(owner) }
            }
            let editor = CdEditingContext(container: container)
            let tag = try #require(try Cd.objects(CampaignTag.self).fetchOne(in: editor))
            let notes = try Cd.objects(CampaignNote.self).sorted(by: \.owner).fetch(in: editor)
            tag.notes.insert(notes[0])
            try editor.save()
            try E.transaction(container) {
                let theirs = try #require(try Cd.objects(CampaignNote.self).filter(\.owner == 2).fetchOne())
                theirs.tags.insert(try #require(try Cd.objects(CampaignTag.self).fetchOne()))
            }
            tag.notes.insert(notes[2])
            tag.notes.remove(notes[0])
            try editor.save()
            let deadline = Date().addingTimeInterval(5)
            while Set(tag.notes.map(\.owner)) != [2, 3], Date() < deadline {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            #expect(Set(tag.notes.map(\.owner)) == [2, 3])
            let stored = LockedBox<Set<Int64>>([])
            try E.transaction(container) {
                stored.set(Set(try #require(try Cd.objects(CampaignTag.self).fetchOne()).notes.map(\.owner)))
            }
            #expect(stored.get() == [2, 3])
        }

        /// fetch(in:) with onlyProperties, batchSize and prefetch: the objects are the context's,
        /// and its pending changes win over what the fetch read.
        @Test func fetchOptionsKeepTheContextsObjectsAndChanges() throws {
            let container = try E.container()
            defer { try? container.close() }
            try E.transaction(container) {
                let ops = try Cd.create(Department.self)
                ops.name = "Ops"
                for name in ["A", "B", "C"] {
                    let e = try Cd.create(Employee.self)
                    e.name = name
                    e.salary = 1
                    e.department = ops
                }
            }
            let editor = CdEditingContext(container: container)
            let all = try Cd.objects(Employee.self).sorted(by: \.name).fetch(in: editor)
            all[1].salary = 50
            let partial = try Cd.objects(Employee.self).sorted(by: \.name).onlyProperties(\.name).fetch(in: editor)
            let batched = try Cd.objects(Employee.self).sorted(by: \.name).batchSize(2).fetch(in: editor)
            let prefetched = try Cd.objects(Employee.self).sorted(by: \.name).prefetch(\.department).fetch(in: editor)
            for list in [partial, batched, prefetched] {
                #expect(list.count == 3 && zip(list, all).allSatisfy { $0 === $1 })
            }
            #expect(batched[1].salary == 50 && batched[2].salary == 1 && prefetched[0].department?.name == "Ops")
        }

        /// The editor's own calls report misuse as `Cd`'s do: another context's object (D3, E3), a
        /// transient one (E4, G3), and a save or create on a closed container (A1).
        @Test func itsCallsReportMisuse() throws {
            let container = try E.container()
            let editor = CdEditingContext(container: container)
            let other = CdEditingContext(container: container)
            let theirs = try other.create(Employee.self)
            expectMisuse(.d3) { try editor.insert(theirs) }
            expectMisuse(.e3) { try editor.delete(theirs) }
            let transient = try Cd.withContainer(container) { try Cd.create(Employee.self, transient: true) }
            expectMisuse(.e4) { try editor.delete(transient) }
            expectMisuse(.g3) { _ = try editor.object(transient) }
            try container.close()
            expectMisuse(.a1) { try editor.save() }
            expectMisuse(.a1) { _ = try editor.create(Employee.self) }
        }

        /// An editing context keeps its container when the default one changes (EC1).
        @Test func itKeepsItsContainerWhenTheDefaultChanges() throws {
            let model = try CdModel(classes: [Department.self, Employee.self, Owner.self, Pet.self])
            try Cd.initWithStore(model: model, storeURL: nil)
            let first = try #require(Cd.defaultContainer)
            let editor = try Cd.newEditingContext()
            try editor.create(Employee.self).name = "first"
            try Cd.initWithStore(model: model, storeURL: nil)  // a new default
            defer { try? Cd.close() }
            #expect(editor.container === first && Cd.defaultContainer !== first)
            expectMisuse(.a1) { try editor.save() }  // initWithStore closed the first
            let editor2 = try Cd.newEditingContext()
            try editor2.create(Employee.self).name = "second"
            try editor2.save()
            #expect(try Cd.objects(Employee.self).fetch().map(\.name) == ["second"])
        }
    }
}
