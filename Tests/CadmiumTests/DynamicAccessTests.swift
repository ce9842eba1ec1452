// Dynamic access by name: `Cd.create(entityNamed:)`, `Cd.objects(entityNamed:)`, and
// `value(forKey:)` / `setValue(_:forKey:)`, with the typed calls' confinement checks and typed
// errors for names and values that do not fit the model.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct DynamicAccess {
        /// A project with two chores, made by name only.
        static func seed() throws {
            try background {
                try Cd.transactAndWait {
                    let project = try Cd.create(entityNamed: "Project")
                    try project.setValue("Move", forKey: "title")
                    for (title, priority) in [("Pack", 3), ("Lift", 7)] {
                        let chore = try Cd.create(entityNamed: "Chore")
                        try chore.setValue(title, forKey: "title")
                        try chore.setValue(priority, forKey: "priority")
                        try chore.setValue(project, forKey: "project")
                    }
                }
            }
        }

        @MainActor @Test func objectsMadeByNameAreReadByNameAndByClass() throws {
            try initCompany()
            try Self.seed()
            let projects = try Cd.objects(entityNamed: "Project").fetch()
            #expect(projects.count == 1)
            let project = try #require(projects.first)
            #expect(project is Project, "the entity's bound class")
            #expect(try project.value(forKey: "title") as? String == "Move")
            let chores = try #require(try project.value(forKey: "chores") as? [CdManagedObject])
            #expect(chores.compactMap { try? $0.value(forKey: "title") as? String } == ["Pack", "Lift"])
            #expect(try chores[1].value(forKey: "priority") as? Int64 == 7)
            #expect(try chores[0].value(forKey: "project") as? CdManagedObject === project)
            // The typed view of the same objects agrees.
            let typed = try #require(try Cd.objects(Project.self).fetchOne())
            #expect(typed.chores.map(\.title) == ["Pack", "Lift"])
            let sorted = try Cd.objects(entityNamed: "Chore").filter("priority > %@", 5).fetch()
            #expect(sorted.count == 1)
            #expect(try sorted[0].value(forKey: "title") as? String == "Lift")
        }

        @MainActor @Test func namesAndValuesThatDoNotFitAreTypedErrors() throws {
            try initCompany()
            try Self.seed()
            try background {
                try Cd.transactAndWait {
                    #expect(throws: CdDynamicAccessError.unknownEntity("Spaceship")) {
                        _ = try Cd.create(entityNamed: "Spaceship")
                    }
                    let chore = try #require(try Cd.objects(entityNamed: "Chore").fetch().first)
                    #expect(throws: CdDynamicAccessError.unknownKey(entity: "Chore", key: "colour")) {
                        _ = try chore.value(forKey: "colour")
                    }
                    #expect(throws: CdDynamicAccessError.self) { try chore.setValue(1.5, forKey: "title") }
                    #expect(throws: CdDynamicAccessError.self) { try chore.setValue("x", forKey: "project") }
                    let pet = try Cd.create(entityNamed: "Pet")
                    try pet.setValue("Rex", forKey: "name")
                    #expect(throws: CdDynamicAccessError.self) { try chore.setValue(pet, forKey: "project") }
                    #expect(try chore.value(forKey: "title") as? String == "Pack", "nothing changed")
                    #expect(chore.hasChanges == false)
                }
            }
        }

        @MainActor @Test func dynamicAccessRunsTheTypedChecks() throws {
            try initCompany()
            try Self.seed()
            expectThrownMisuse(.b2) { _ = try Cd.create(entityNamed: "Project") }
            let project = try #require(try Cd.objects(entityNamed: "Project").fetchOne())
            expectMisuse(.j1) { try project.setValue("Renamed", forKey: "title") }
            #expect(try project.value(forKey: "title") as? String == "Move", "the write was dropped")
            let recorder = MisuseRecorder()
            recorder.install()
            let count = try background { () -> Int? in
                _ = try? project.value(forKey: "title")
                return try? Cd.objects(entityNamed: "Project").count()
            }
            #expect(count == nil)
            #expect(recorder.kinds == [.i1, .c1])
        }
    }
}
