// A managed object made while another's stored properties are initialised (a stored property
// whose initial value is a managed object) restarts the wrapper ordinals of the outer object
// part-way: two of its wrappers would share an ordinal and one property's values would land in
// another's slot. Building a model of such a class is refused with an error naming it.

import Foundation
import Testing
@testable import Cadmium
import CdObjects

/// Made inside `RVNestingOwner`'s initialisation.
final class RVNestedHelper: CdManagedObject {
    @Attribute var note: Int32 = 0
}

final class RVNestingOwner: CdManagedObject {
    @Attribute var first: String
    let helper = RVNestedHelper()
    @Attribute var second: Int64 = 0
}

/// Makes its managed object before any of its own wrappers: their ordinals still differ.
final class RVHelperFirstOwner: CdManagedObject {
    let helper = RVNestedHelper()
    @Attribute var title: String
    @Attribute var rank: Int64 = 2
}

/// Keeps a wrapper inside a tuple field, where no model builder can see it as a property.
final class RVTupleWrapperOwner: CdManagedObject {
    @Attribute var title: String
    let hidden: (Attribute<String>, Int) = (Attribute<String>(), 1)
}

extension CadmiumSuites {
    @Suite struct ObjectMadeDuringInitialisation {
        @Test func aWrapperThatIsNotAStoredPropertyOfItsOwnIsRefused() throws {
            let expected = ModelError.wrapperNotAStoredProperty(
                className: String(reflecting: RVTupleWrapperOwner.self), wrappers: 2, properties: 1)
            #expect(throws: expected) { _ = try CdModel(classes: [RVTupleWrapperOwner.self]) }
        }

        @Test func aModelOfAClassThatMakesAManagedObjectWhileInitialisedIsRefused() throws {
            let expected = ModelError.managedObjectMadeDuringInitialisation(
                className: String(reflecting: RVNestingOwner.self))
            #expect(throws: expected) { _ = try CdModel(classes: [RVNestingOwner.self, RVNestedHelper.self]) }
            let entities = try CdModel(classes: [RVNestedHelper.self]).objectModel.entities
            #expect(
                throws: expected,
                "bound to an entity model built elsewhere"
            ) {
                let described = EntityDescription(name: "RVNestingOwner", className: "RVNestingOwner")
                _ = try CdModel(
                    objectModel: try ObjectModel(entities: entities + [described]), classes: [RVNestingOwner.self])
            }
            // A managed object made before the class's first wrapper leaves its ordinals apart.
            let fine = try CdModel(classes: [RVHelperFirstOwner.self, RVNestedHelper.self]).objectModel
            #expect(fine.entity(named: "RVHelperFirstOwner")?.attributes.map(\.name) == ["title", "rank"])
        }
    }
}
