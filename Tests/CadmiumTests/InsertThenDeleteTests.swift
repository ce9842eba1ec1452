// Objects created and deleted in the same transaction never reach the store: references to them
// from other objects of the transaction are removed in memory first.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct InsertThenDelete {
        @Test func deletingANewObjectDropsReferencesToIt() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let d = try Cd.create(Department.self)
                    d.name = "R&D"
                    let keep = try Cd.create(Employee.self)
                    keep.name = "Ann"
                    keep.department = d
                    let gone = try Cd.create(Employee.self)
                    gone.name = "Bob"
                    gone.department = d
                    Cd.delete(gone)
                    #expect(d.employees.map(\.name) == ["Ann"])
                }
                let names = try Cd.read { try Cd.objects(Department.self).fetchOne()?.employees.map(\.name) }
                #expect(names == ["Ann"])
                #expect(try Cd.read { try Cd.objects(Employee.self).count() } == 1)
            }
        }

        @Test func deletingANewObjectCascadesToNewTargets() throws {
            try initCompany()
            try background {
                try Cd.transactAndWait {
                    let d = try Cd.create(Department.self)
                    d.name = "Temp"
                    let e = try Cd.create(Employee.self)
                    e.name = "Cy"
                    e.department = d
                    Cd.delete(d)
                }
                #expect(try Cd.read { try Cd.objects(Department.self).count() } == 0)
                #expect(try Cd.read { try Cd.objects(Employee.self).count() } == 0)
            }
        }
    }
}
