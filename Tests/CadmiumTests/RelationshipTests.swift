// Relationships through the Cd API: inverses kept in step, cascade through a to-many, nullify,
// deny (a thrown CdError 1600 at the implicit commit), ordered to-many, and predicates on
// relationships and object arguments.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct Relationships {
        /// R&D with Ann and Bob; Ops with Cat.
        static func seed() throws {
            try background {
                try Cd.transactAndWait {
                    let rnd = try Cd.create(Department.self)
                    rnd.name = "R&D"
                    let ops = try Cd.create(Department.self)
                    ops.name = "Ops"
                    for (name, salary, department) in [("Ann", 120, rnd), ("Bob", 90, rnd), ("Cat", 70, ops)] {
                        let e = try Cd.create(Employee.self)
                        e.name = name
                        e.salary = Int64(salary) * 1000
                        e.department = department
                    }
                }
            }
        }

        @MainActor @Test func inversesAreKeptInStep() throws {
            try initCompany()
            try Self.seed()
            let rnd = try #require(try Cd.objects(Department.self).filter("name = %@", "R&D").fetchOne())
            #expect(Set(rnd.employees.map(\.name)) == ["Ann", "Bob"])
            let cat = try #require(try Cd.objects(Employee.self).filter("name = %@", "Cat").fetchOne())
            #expect(cat.department?.name == "Ops")
            #expect(try Cd.objects(Employee.self).filter("department.name = %@", "R&D").count() == 2)
            #expect(try Cd.objects(Employee.self).filter("department == %@", rnd).count() == 2)
            #expect(
                try Cd.objects(Department.self).filter("ANY employees.salary > %@", 100_000).fetch().map(\.name) == [
                    "R&D"
                ])
        }

        /// Before the commit a to-many holds what the store will hold after it: its targets
        /// sorted by primary key (ToManyList TL1), kept in step by writes to
        /// the to-one side, which add and remove in place.
        @MainActor @Test func toManyInMemoryIsInStoreOrderBeforeTheCommit() throws {
            try initCompany()
            let (before, moved, other, keys) = try background {
                try Cd.transactAndWait { () -> ([ObjectID], [ObjectID], [ObjectID], [ObjectID]) in
                    let rnd = try Cd.create(Department.self)
                    rnd.name = "R&D"
                    let ops = try Cd.create(Department.self)
                    ops.name = "Ops"
                    let people = try Cd.create(Employee.self, count: 4)
                    for (i, e) in people.enumerated() { e.name = "e\(i + 1)" }
                    let ids = people.compactMap(\.objectID)
                    rnd.employees = [people[2], people[0]]  // a Set: no order of its own
                    let before = rnd.rawTargets("employees")
                    people[1].department = rnd
                    people[3].department = rnd
                    people[0].department = ops
                    return (before, rnd.rawTargets("employees"), ops.rawTargets("employees"), ids)
                }
            }
            #expect(keys.map(\.primaryKey) == keys.map(\.primaryKey).sorted(), "created in key order")
            #expect(before == [keys[0], keys[2]])
            #expect(moved == [keys[1], keys[2], keys[3]])
            #expect(other == [keys[0]])
            let rnd = try #require(try Cd.objects(Department.self).filter("name = %@", "R&D").fetchOne())
            #expect(rnd.rawTargets("employees") == moved, "the committed list is the in-memory one")
            #expect(Set(rnd.employees.map(\.name)) == ["e2", "e3", "e4"])
        }

        /// Two overlapping transactions link one employee each to the same department. The
        /// first read the department's list before the second committed; its commit adds its
        /// employee and keeps the other's, because a to-many whose inverse is a to-one travels
        /// as the members' to-one values, not as the list the transaction last saw.
        @MainActor @Test func overlappingLinksToOneOwnerAreBothKept() throws {
            try initCompany()
            try Self.seed()
            let firstRead = DispatchSemaphore(value: 0), secondCommitted = DispatchSemaphore(value: 0)
            let link: @Sendable (String) throws -> Void = { name in
                let e = try Cd.create(Employee.self)
                e.name = name
                e.department = try Cd.objects(Department.self).filter("name = %@", "Ops").fetchOne()
            }
            let group = DispatchGroup()
            let failures = LockedBox<[String]>([])
            DispatchQueue.global().async(group: group) {
                do {
                    try Cd.transactAndWait(serial: false) {
                        let ops = try Cd.objects(Department.self).filter("name = %@", "Ops").fetchOne()!
                        _ = ops.employees  // the list as this transaction first sees it
                        firstRead.signal()
                        secondCommitted.wait()
                        try link("Dee")
                    }
                } catch { failures.update { $0.append("first: \(error)") } }
            }
            DispatchQueue.global().async(group: group) {
                firstRead.wait()
                do { try Cd.transactAndWait(serial: false) { try link("Eve") } } catch {
                    failures.update { $0.append("second: \(error)") }
                }
                secondCommitted.signal()
            }
            group.wait()
            #expect(failures.get().isEmpty)
            let ops = try #require(try Cd.objects(Department.self).filter("name = %@", "Ops").fetchOne())
            #expect(Set(ops.employees.map(\.name)) == ["Cat", "Dee", "Eve"])
            #expect(try Cd.objects(Employee.self).filter("department.name = %@", "Ops").count() == 3)
        }

        /// Inside a transaction, fetches see a to-many built from the members' to-one values.
        @Test func pendingToManyIsVisibleToFetches() throws {
            try initCompany()
            let (matched, counted) = try background {
                try Cd.transactAndWait { () -> ([String], Int) in
                    let lab = try Cd.create(Department.self)
                    lab.name = "Lab"
                    for name in ["Fay", "Gus"] {
                        let e = try Cd.create(Employee.self)
                        e.name = name
                        e.department = lab
                    }
                    let matched = try Cd.objects(Department.self).filter("ANY employees.name = %@", "Gus").fetch().map(
                        \.name)
                    let counted = try Cd.objects(Department.self).filter("employees.@count = 2").count()
                    return (matched, counted)
                }
            }
            #expect(matched == ["Lab"])
            #expect(counted == 1)
        }

        @MainActor @Test func cascadeThroughToMany() throws {
            try initCompany()
            try Self.seed()
            try background {
                try Cd.transactAndWait {
                    try Cd.objects(Department.self).filter("name = %@", "R&D").delete()
                }
            }
            #expect(try Cd.objects(Department.self).count() == 1)
            #expect(try Cd.objects(Employee.self).sorted("name").fetch().map(\.name) == ["Cat"])
        }

        @MainActor @Test func nullifyRemovesTheInverse() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let p = try Cd.create(Project.self)
                    p.title = "Move"
                    let chores = try Cd.create(Chore.self, count: 3)
                    for (i, chore) in chores.enumerated() { chore.title = "c\(i)" }
                    p.chores = chores  // ordered to-many
                }
            }
            let project = try #require(try Cd.objects(Project.self).fetchOne())
            #expect(project.chores.map(\.title) == ["c0", "c1", "c2"], "order kept")
            // Deleting a chore nullifies it out of the project; deleting the project leaves chores.
            try background {
                try Cd.transactAndWait { try Cd.objects(Chore.self).filter("title = %@", "c1").delete() }
            }
            let reloaded = try #require(try Cd.objects(Project.self).fetchOne())
            #expect(reloaded.chores.map(\.title) == ["c0", "c2"])
            try background {
                try Cd.transactAndWait { try Cd.objects(Project.self).delete() }
            }
            let chores = try Cd.objects(Chore.self).fetch()
            #expect(chores.count == 2)
            #expect(chores.allSatisfy { $0.project == nil })
        }

        @Test func denyBlocksTheDeleteWithAThrownError() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let owner = try Cd.create(Owner.self)
                    owner.name = "Kim"
                    let pet = try Cd.create(Pet.self)
                    pet.name = "Rex"
                    pet.owner = owner
                }
                expectCdError(code: 1600) {
                    try Cd.transactAndWait { try Cd.objects(Owner.self).delete() }
                }
                // Nothing changed; once the pet is gone the owner can go.
                try Cd.transactAndWait { () throws in
                    #expect(try Cd.objects(Owner.self).count() == 1)
                    try Cd.objects(Pet.self).delete()
                }
                try Cd.transactAndWait { try Cd.objects(Owner.self).delete() }
                #expect(try Cd.transactAndWait { try Cd.objects(Owner.self).count() } == 0)
            }
        }

        @Test func toOneMoveUpdatesBothDepartments() throws {
            try initCompany()
            try Self.seed()
            try background {
                try Cd.transactAndWait {
                    let bob = try Cd.objects(Employee.self).filter("name = %@", "Bob").fetchOne()!
                    bob.department = try Cd.objects(Department.self).filter("name = %@", "Ops").fetchOne()
                }
                try Cd.transactAndWait { () throws in
                    let ops = try Cd.objects(Department.self).filter("name = %@", "Ops").fetchOne()!
                    #expect(Set(ops.employees.map(\.name)) == ["Bob", "Cat"])
                    let rnd = try Cd.objects(Department.self).filter("name = %@", "R&D").fetchOne()!
                    #expect(rnd.employees.map(\.name) == ["Ann"])
                }
            }
        }

        @Test func validationRangeFromAttributeOptions() throws {
            try initCompany()
            try background {
                expectCdError(code: 1610) {
                    try Cd.transactAndWait {
                        let chore = try Cd.create(Chore.self)
                        chore.title = "too important"
                        chore.priority = 11
                    }
                }
            }
        }
    }
}
