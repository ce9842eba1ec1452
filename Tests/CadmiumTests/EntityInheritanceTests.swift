// Class inheritance becomes entity inheritance: a listed class whose superclass is listed too is
// a sub-entity, a fetch of the parent returns instances of both classes, and inherited
// properties work through the wrappers declared in the superclass.

import Foundation
import Testing
@testable import Cadmium

class Animal: CdManagedObject {
    @Attribute var name: String
}

final class Dog: Animal {
    @Attribute var breed: String?
}

extension CadmiumSuites {
    @Suite struct EntityInheritance {
        @Test func subEntitiesFromSubclasses() throws {
            let model = try CdModel(classes: [Animal.self, Dog.self])
            #expect(model.objectModel.entity(named: "Dog")?.parent == "Animal")
            #expect(model.objectModel.allAttributes(of: "Dog").map(\.name) == ["name", "breed"])
            try Cd.initWithStore(model: model, storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    let cat = try Cd.create(Animal.self)
                    cat.name = "Tom"
                    let dog = try Cd.create(Dog.self)
                    dog.name = "Rex"
                    dog.breed = "collie"
                }
                try Cd.read { () throws in
                    let animals = try Cd.objects(Animal.self).sorted("name").fetch()
                    #expect(animals.map(\.name) == ["Rex", "Tom"])
                    #expect((animals.first as? Dog)?.breed == "collie", "a Dog instance for the Dog entity")
                }
                #expect(try Cd.read { try Cd.objects(Dog.self).count() } == 1)
            }
        }

        @Test func misuseMessagesNameObjectContextThreadAndRemedy() throws {
            try initCd()
            let item = try background {
                try Cd.transactAndWait { try Cd.objects(TestItem.self).filter("id = 3").fetchOne()! }
            }
            let recorder = MisuseRecorder()
            recorder.install()
            try background { item.name = "x" }
            let message = try #require(recorder.seen.get().first?.message)
            #expect(recorder.kinds == [.j3])
            #expect(message.contains("TestItem/3"), "names the object")
            #expect(message.contains("transaction context #"), "names its context")
            #expect(message.contains("[thread: background thread"), "names the thread")
            #expect(message.contains("Cd.transact"), "says what to do instead")
        }
    }
}
