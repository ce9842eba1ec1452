// Entities for relationship tests: the README's Department/Employee (ReadmeExamplesTests.swift)
// plus small entities for the nullify and deny delete rules and an ordered to-many.

import Foundation
import Testing
@testable import Cadmium

// Department and Employee are the README's, declared in ReadmeExamplesTests.swift.

/// Nullify on both sides; `chores` is ordered.
final class Project: CdManagedObject {
    @Attribute var title: String
    @Relationship(inverse: "project") var chores: [Chore]
}

final class Chore: CdManagedObject {
    @Attribute var title: String
    @Attribute(.range(0...10)) var priority: Int64 = 1
    @Relationship(inverse: "chores") var project: Project?
}

/// Deny: an owner with pets cannot be deleted.
final class Owner: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "owner", deleteRule: .deny) var pets: Set<Pet>
}

final class Pet: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "pets") var owner: Owner?
}

/// A class that is not in any model (check B1).
final class Stranger: CdManagedObject {
    @Attribute var name: String
}

/// Fresh in-memory store with the company model and no data.
func initCompany(serialTX: Bool = false) throws {
    let model = try CdModel(classes: [Department.self, Employee.self, Project.self, Chore.self, Owner.self, Pet.self])
    try Cd.initWithStore(model: model, storeURL: nil, serialTX: serialTX)
    Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
}
