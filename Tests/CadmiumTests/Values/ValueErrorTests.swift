// Misuse and errors of the value-type API: saving or deleting on the main thread or outside a
// transaction is misuse (D1, D2, E1, E2); a value that does not fit its entity is a CdValueError
// naming struct, property and entity, and nothing of it is saved.

import Foundation
import Testing
@testable import Cadmium

/// Not in any model.
struct Ghost: CdManagedPersistentStruct {
    var objectID: ObjectID?
    var name: String
}

/// Employee with a property the entity does not have.
struct EmployeeWithSalary: CdManagedPersistentStruct {
    static let entityName = "Employee"
    var objectID: ObjectID?
    var name: String
    var age: Int16
    var department: String
    var job: String
    var salary: Int
}

/// Employee whose `age` is text.
struct EmployeeWithTextAge: CdManagedPersistentStruct {
    static let entityName = "Employee"
    var objectID: ObjectID?
    var name: String
    var age: String
}

/// Employee whose `age` is wider than the attribute (Integer 16).
struct EmployeeWithWideAge: CdManagedPersistentStruct {
    static let entityName = "Employee"
    var objectID: ObjectID?
    var name: String
    var age: Int
    var department: String
    var job: String
}

/// Employee without the required `department` and `job`: fine for updates, not for inserts.
struct PartialEmployee: CdManagedPersistentStruct, Sendable {
    static let entityName = "Employee"
    var objectID: ObjectID?
    var name: String
    var age: Int16
}

/// Employee that requires the optional `position`.
struct StrictEmployee: CdManagedPersistentStruct {
    static let entityName = "Employee"
    var objectID: ObjectID?
    var name: String
    var position: String
}

/// A shop whose employees cannot be inserted.
struct ShopOfPartials: CdManagedPersistentStruct {
    static let entityName = "Shop"
    var objectID: ObjectID?
    var name: String
    var employees: [PartialEmployee]
}

/// Encodes itself as a single value: no entity can hold that.
struct SingleValueEmployee: CdManagedStruct {
    static let entityName = "Employee"
    var name: String
    init(name: String) { self.name = name }
    init(from decoder: any Decoder) throws { name = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// Expects `body` to throw a CdValueError of `kind` about `property` of `structName`.
func expectValueError(
    _ kind: CdValueError.Kind, _ structName: String, property: String?, entity: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected CdValueError.\(kind), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as CdValueError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(error.structName == structName, "\(error)", sourceLocation: sourceLocation)
        #expect(error.property == property, "\(error)", sourceLocation: sourceLocation)
        #expect(error.entity == entity, "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains(entity), sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected CdValueError.\(kind), got \(error)", sourceLocation: sourceLocation)
    }
}

extension CadmiumSuites {
    @Suite struct ValueErrorTests {
        static let carl = VF.Employee(name: "Carl", age: 66, department: "Register", job: "Owner")

        @MainActor @Test func savingOrDeletingOnTheMainThreadIsMisuse() throws {
            try ValueModelSource.derived.open()
            var carl = Self.carl
            expectThrownMisuse(.d1) { try carl.save() }
            expectThrownMisuse(.d1) { _ = try carl.toObject() }
            expectThrownMisuse(.d1) { try VF.Author(id: "a", name: "A").save() }
            carl.objectID = ObjectID(entity: "Employee", primaryKey: 1)
            expectThrownMisuse(.e1) { try carl.delete() }
            #expect(try Cd.values(VF.Employee.self).count() == 0)
        }

        @Test func savingOrDeletingOutsideATransactionIsMisuse() throws {
            try ValueModelSource.derived.open()
            try background {
                var carl = Self.carl
                expectThrownMisuse(.d2) { try carl.save() }
                expectThrownMisuse(.d2) { _ = try VF.Company(name: "C", employees: []).toObject() }
                expectThrownMisuse(.e2) { try VF.Author(id: "a", name: "A").delete() }
            }
            #expect(try background { try Cd.values(VF.Employee.self).count() } == 0)
        }

        @Test(arguments: ValueModelSource.allCases)
        func valuesThatDoNotFitTheirEntity(_ source: ValueModelSource) throws {
            try source.open()
            try background {
                try Cd.throwing.transactAndWait {
                    expectValueError(.unknownEntity, "Ghost", property: nil, entity: "Ghost") {
                        var ghost = Ghost(name: "Boo")
                        try ghost.save()
                    }
                    expectValueError(.unknownProperty, "EmployeeWithSalary", property: "salary", entity: "Employee") {
                        var employee = EmployeeWithSalary(name: "A", age: 1, department: "D", job: "J", salary: 5)
                        try employee.save()
                    }
                    expectValueError(.typeMismatch, "EmployeeWithTextAge", property: "age", entity: "Employee") {
                        var employee = EmployeeWithTextAge(name: "A", age: "old")
                        try employee.save()
                    }
                    expectValueError(.typeMismatch, "EmployeeWithWideAge", property: "age", entity: "Employee") {
                        var employee = EmployeeWithWideAge(name: "A", age: 40_000, department: "D", job: "J")
                        try employee.save()
                    }
                    expectValueError(
                        .missingRequiredAttribute, "PartialEmployee", property: "department",
                        entity: "Employee"
                    ) {
                        var employee = PartialEmployee(name: "A", age: 1)
                        try employee.save()
                    }
                    expectValueError(.unsupportedShape, "SingleValueEmployee", property: nil, entity: "Employee") {
                        _ = try SingleValueEmployee(name: "A").toObject()
                    }
                    expectValueError(.notSaved, "Employee", property: "objectID", entity: "Employee") {
                        try Self.carl.delete()
                    }
                    expectValueError(.notFound, "Employee", property: "objectID", entity: "Employee") {
                        var carl = Self.carl
                        carl.objectID = ObjectID(entity: "Employee", primaryKey: 999)
                        try carl.save()
                    }
                    expectValueError(.entityMismatch, "Employee", property: "objectID", entity: "Employee") {
                        var carl = Self.carl
                        carl.objectID = ObjectID(entity: "Shop", primaryKey: 1)
                        try carl.save()
                    }
                }
                // A nested value that does not fit: nothing of the save is written, even when the
                // transaction catches the error and commits.
                try Cd.throwing.transactAndWait {
                    expectValueError(
                        .missingRequiredAttribute, "PartialEmployee", property: "department",
                        entity: "Employee"
                    ) {
                        var shop = ShopOfPartials(name: "Half", employees: [PartialEmployee(name: "A", age: 1)])
                        try shop.save()
                    }
                }
                #expect(try Cd.values(VF.Shop.self).count() == 0)
                #expect(try Cd.values(VF.Employee.self).count() == 0)
                expectValueError(.unknownEntity, "Ghost", property: nil, entity: "Ghost") {
                    _ = try Cd.values(Ghost.self).fetch()
                }
            }
        }

        @Test(arguments: ValueModelSource.allCases)
        func unboxingErrorsAndPartialUpdates(_ source: ValueModelSource) throws {
            try source.open()
            try background {
                let saved = try Cd.transactAndWait { () throws -> VF.Employee in
                    var carl = Self.carl
                    try carl.save()
                    return carl
                }
                try Cd.transactAndWait {
                    let object = try Self.carl.toObject()
                    expectValueError(.entityMismatch, "Shop", property: nil, entity: "Employee") {
                        _ = try VF.Shop(object: object)
                    }
                    expectValueError(
                        .missingRequiredAttribute, "StrictEmployee", property: "position",
                        entity: "Employee"
                    ) {
                        _ = try StrictEmployee(object: object)
                    }
                    try Cd.throwing.cancelImplicitCommit()
                }
                // A value of some of the entity's properties updates those and leaves the others.
                try Cd.transactAndWait {
                    var partial = PartialEmployee(objectID: saved.objectID, name: "Carl Jr.", age: 30)
                    try partial.save()
                }
                let after = try Cd.values(VF.Employee.self).fetch()
                #expect(after.map(\.name) == ["Carl Jr."] && after.first?.department == "Register")
                #expect(after.first?.objectID == saved.objectID)
            }
        }

        @Test func deletingAValueTwiceIsNotFound() throws {
            try ValueModelSource.derived.open()
            try background {
                let carl = try Cd.transactAndWait { () throws -> VF.Employee in
                    var carl = Self.carl
                    try carl.save()
                    return carl
                }
                try Cd.transactAndWait { try carl.delete() }
                try Cd.throwing.transactAndWait {
                    expectValueError(.notFound, "Employee", property: "objectID", entity: "Employee") {
                        try carl.delete()
                    }
                }
                #expect(try Cd.values(VF.Employee.self).count() == 0)
            }
        }

        @Test func modelDerivationRejectsWhatItCannotMap() {
            expectValueError(.unsupportedShape, "SingleValueEmployee", property: nil, entity: "Employee") {
                _ = try CdModel(classes: [], values: [SingleValueEmployee.self])
            }
            // Value types that listed ones lead to are derived too.
            let model = try? CdModel(classes: [], values: [ShopOfPartials.self])
            #expect(model?.objectModel.entityNames.sorted() == ["Employee", "Shop"])
            #expect(model?.objectModel.relationship("employees", of: "Shop")?.destination == "Employee")
        }
    }
}
