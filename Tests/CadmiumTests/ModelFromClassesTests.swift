// Building a model from classes reads each class's wrapper fields from its field records
// (WrapperFields.swift): names, declaration order, options, inheritance and class names as
// declared, stored properties that are not wrappers ignored (MB1), inherited wrappers marked (MB2).

import Foundation
import Testing
@testable import Cadmium

class Vehicle: CdManagedObject {
    /// Not a wrapper, though its name has the wrappers' `_` prefix and it holds a small integer.
    var _wheels: Int = 1
    @Attribute(.indexed) var plate: String
    var scratch: [String] = []
    @Attribute var seats: Int16 = 4
    @Relationship(inverse: "vehicles") var owner: Driver?
}

final class Truck: Vehicle {
    var _load: Int = 0
    @Attribute(.unique) var vin: String?
    @Attribute(.range(0...40)) var tons: Double = 7.5
}

final class Driver: CdManagedObject {
    @Attribute var name: String
    @Relationship var vehicles: Set<Vehicle>
}

extension CadmiumSuites {
    @Suite struct ModelFromClasses {
        @Test func entitiesPropertiesAndOptionsAsDeclared() throws {
            let model = try CdModel(classes: [Vehicle.self, Truck.self, Driver.self]).objectModel
            let vehicle = try #require(model.entity(named: "Vehicle"))
            let truck = try #require(model.entity(named: "Truck"))
            let driver = try #require(model.entity(named: "Driver"))
            #expect(vehicle.className == String(reflecting: Vehicle.self))
            #expect(truck.className == String(reflecting: Truck.self))
            #expect(Truck.entityName == String(describing: Truck.self))
            #expect(vehicle.parent == nil && truck.parent == "Vehicle" && driver.parent == nil)
            #expect(vehicle.attributes.map(\.name) == ["plate", "seats"], "no `_wheels`, no `scratch`")
            #expect(vehicle.relationships.map(\.name) == ["owner"])
            #expect(truck.attributes.map(\.name) == ["vin", "tons"], "own properties only; no `_load`")
            #expect(truck.relationships.isEmpty)
            #expect(model.allAttributes(of: "Truck").map(\.name) == ["plate", "seats", "vin", "tons"])

            let plate = try #require(vehicle.attributes.first)
            #expect(plate.isIndexed && !plate.isOptional && plate.defaultValue == nil)
            let seats = vehicle.attributes[1]
            #expect(seats.type == .integer16 && seats.defaultValue == .integer(4))
            #expect(truck.uniquenessConstraints == [["vin"]])
            #expect(truck.attributes[0].isOptional)
            #expect(truck.attributes[1].validation.minValue == .double(0))
            #expect(truck.attributes[1].validation.maxValue == .double(40))
            #expect(truck.attributes[1].defaultValue == .double(7.5))

            let owner = try #require(vehicle.relationships.first)
            #expect(owner.destination == "Driver" && owner.inverse == "vehicles" && !owner.isToMany)
            let vehicles = try #require(driver.relationships.first)
            #expect(vehicles.destination == "Vehicle" && vehicles.isToMany)
            #expect(vehicles.inverse == "owner", "the inverse named on one side is completed on the other")
        }

        @Test func wrapperFieldsOrdinalsAndInheritance() throws {
            let fields = WrapperFields.of(Truck.self)
            #expect(fields.map(\.name) == ["plate", "seats", "owner", "vin", "tons"])
            #expect(fields.map(\.inherited) == [true, true, true, false, false])
            // Each ordinal is the one the wrapper holds in every instance (OSL1).
            let ordinals = fields.map(\.ordinal)
            #expect(Set(ordinals).count == 5 && ordinals.allSatisfy { (0..<5).contains($0) })
            #expect(WrapperFields.of(Vehicle.self).map(\.inherited) == [false, false, false])
        }

        @Test func subclassWrappersReachTheirSlots() throws {
            let model = try CdModel(classes: [Vehicle.self, Truck.self, Driver.self])
            try Cd.initWithStore(model: model, storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    let driver = try Cd.create(Driver.self)
                    driver.name = "Ann"
                    let truck = try Cd.create(Truck.self)
                    truck.plate = "CD-1"
                    truck.vin = "V1"
                    truck.owner = driver
                    #expect(truck._wheels == 1 && truck._load == 0)
                }
                try Cd.read { () throws in
                    let truck = try #require(try Cd.objects(Truck.self).fetchOne())
                    #expect(truck.plate == "CD-1" && truck.vin == "V1")
                    #expect(truck.seats == 4 && truck.tons == 7.5)
                    #expect(truck.owner?.name == "Ann")
                    #expect(truck.owner?.vehicles.count == 1)
                }
            }
        }
    }
}
