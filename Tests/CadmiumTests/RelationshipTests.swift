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
            #expect(try Cd.objects(Department.self).filter("ANY employees.salary > %@", 100_000).fetch().map(\.name) == ["R&D"])
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
                    p.chores = chores   // ordered to-many
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
