// Model building from field records (WrapperFields.swift) for class shapes beyond a plain class
// and its subclass: a generic class, a class nested in a type, a chain of three listed classes,
// a chain whose middle class is not listed, and an `entityName` override. Each entity gets the
// names, parents and properties the class declares, and every wrapper reaches its slot.

import Foundation
import Testing
@testable import Cadmium

/// A generic class: its field offsets come from its specialised metadata.
final class RVBox<Payload>: CdManagedObject {
    var payload: Payload?
    @Attribute var label: String
    @Attribute var weight: Int64 = 3
}

enum RVCatalog {
    /// A class nested in another type.
    final class Item: CdManagedObject {
        var _cache: Int = 0
        @Attribute(.indexed) var code: String
    }
}

class RVAnimal: CdManagedObject {
    @Attribute var name: String
}

class RVMammal: RVAnimal {
    var _legs: Int = 4
    weak var keeper: RVAnimal?
    var _onChange: (() -> Void)?
    var _tagged: (Int, String) = (1, "one")
    @Attribute var fur: Bool = true
}

final class RVDog: RVMammal {
    @Attribute var breed: String?
}

/// Not listed in the model: its subclass's entity has no parent and its wrappers are not the
/// subclass's own.
class RVUnlistedBase: CdManagedObject {
    @Attribute var hidden: Int32 = 7
}

final class RVRenamed: RVUnlistedBase {
    override class var entityName: String { "RVOtherName" }
    @Attribute var title: String
}

extension CadmiumSuites {
    @Suite struct ModelBuildingShapes {
        private let classes: [CdManagedObject.Type] = [
            RVBox<[String]>.self, RVCatalog.Item.self, RVAnimal.self, RVMammal.self, RVDog.self, RVRenamed.self,
        ]

        @Test func entitiesOfGenericNestedChainedAndRenamedClasses() throws {
            let model = try CdModel(classes: classes).objectModel
            let box = try #require(model.entity(named: String(describing: RVBox<[String]>.self)))
            #expect(box.className == String(reflecting: RVBox<[String]>.self))
            #expect(box.attributes.map(\.name) == ["label", "weight"])
            #expect(box.attributes[1].defaultValue == .integer(3))
            let item = try #require(model.entity(named: "Item"))
            #expect(item.className == String(reflecting: RVCatalog.Item.self))
            #expect(item.attributes.map(\.name) == ["code"] && item.attributes[0].isIndexed)
            let dog = try #require(model.entity(named: "RVDog"))
            let mammal = try #require(model.entity(named: "RVMammal"))
            #expect(dog.parent == "RVMammal" && mammal.parent == "RVAnimal")
            #expect(dog.attributes.map(\.name) == ["breed"] && mammal.attributes.map(\.name) == ["fur"])
            #expect(model.allAttributes(of: "RVDog").map(\.name) == ["name", "fur", "breed"])
            let renamed = try #require(model.entity(named: "RVOtherName"))
            #expect(renamed.parent == nil && renamed.attributes.map(\.name) == ["title"])
            #expect(WrapperFields.of(RVDog.self).map(\.inherited) == [true, true, false])
            #expect(WrapperFields.of(RVRenamed.self).map(\.name) == ["hidden", "title"])
        }

        @Test func wrappersOfEveryShapeReachTheirSlots() throws {
            try Cd.initWithStore(model: try CdModel(classes: classes), storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    let box = try Cd.create(RVBox<[String]>.self)
                    box.label = "B"
                    box.payload = ["kept in memory"]
                    let item = try Cd.create(RVCatalog.Item.self)
                    item.code = "I-1"
                    let dog = try Cd.create(RVDog.self)
                    dog.name = "Rex"
                    dog.breed = "collie"
                    let renamed = try Cd.create(RVRenamed.self)
                    renamed.title = "T"
                    #expect(item._cache == 0 && dog._legs == 4)
                }
                try Cd.read { () throws in
                    let box = try #require(try Cd.objects(RVBox<[String]>.self).fetchOne())
                    #expect(box.label == "B" && box.weight == 3 && box.payload == nil)
                    let item = try #require(try Cd.objects(RVCatalog.Item.self).fetchOne())
                    #expect(item.code == "I-1")
                    let dog = try #require(try Cd.objects(RVDog.self).fetchOne())
                    #expect(dog.name == "Rex" && dog.fur && dog.breed == "collie")
                    let animals = try Cd.objects(RVAnimal.self).fetch()
                    #expect(animals.count == 1 && animals.first is RVDog)
                    let renamed = try #require(try Cd.objects(RVRenamed.self).fetchOne())
                    #expect(renamed.title == "T")
                }
            }
        }
    }
}
