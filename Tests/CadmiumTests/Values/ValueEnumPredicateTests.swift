// RawRepresentable enums in a value query's `#Predicate`: a captured case is compared as the raw
// value the store holds, and a captured `nil` as no value, as the format string with the raw
// value does.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ValueEnumPredicates {
        /// Saves cars a (sedan, no previous), b (pickup, previously sedan), c (sedan, previously hatchback).
        static func saveThreeCars() throws {
            try Cd.transactAndWait {
                for (name, type, previous) in [
                    ("a", VF.CarType.sedan, nil), ("b", .pickup, .sedan), ("c", .sedan, .hatchback),
                ] as [(String, VF.CarType, VF.CarType?)] {
                    var car = VF.Car(objectID: nil, name: name, type: type, previous: previous)
                    try car.save()
                }
            }
        }

        @Test(arguments: ValueModelSource.allCases) func enumCasesCompareAsTheirRawValues(
            _ source: ValueModelSource
        ) throws {
            try source.open()
            try background {
                try Self.saveThreeCars()
                let cars = Cd.values(VF.Car.self)
                let sedan = VF.CarType.sedan
                let wasSedan: VF.CarType? = .sedan
                let never: VF.CarType? = nil
                let byType = try cars.filter(#Predicate<VF.Car> { $0.type == sedan }).sorted(by: \.name).fetch()
                #expect(byType.map(\.name) == ["a", "c"])
                #expect(byType == (try cars.filter("type == %@", "sedan").sorted("name").fetch()))
                let byPrevious = try cars.filter(#Predicate<VF.Car> { $0.previous == wasSedan }).fetch()
                #expect(byPrevious.map(\.name) == ["b"])
                let noPrevious = try cars.filter(#Predicate<VF.Car> { $0.previous == never }).fetch()
                #expect(noPrevious.map(\.name) == ["a"])
            }
        }

        @Test(arguments: ValueModelSource.allCases) func enumCasesInKeyPathPredicates(_ source: ValueModelSource) throws
        {
            try source.open()
            try background {
                try Self.saveThreeCars()
                let cars = Cd.values(VF.Car.self)
                #expect(try cars.filter(\.type == .sedan).sorted(by: \.name).fetch().map(\.name) == ["a", "c"])
                #expect(try cars.filter(\.type != .sedan).fetch().map(\.name) == ["b"])
                #expect(try cars.filter(\.previous == .sedan).fetch().map(\.name) == ["b"])
                #expect(try cars.filter(\.previous == nil).fetch().map(\.name) == ["a"])
                #expect(try cars.filter(\.previous != nil).sorted(by: \.name).fetch().map(\.name) == ["b", "c"])
                #expect(try cars.filter(isIn(\.type, [.pickup, .hatchback])).fetch().map(\.name) == ["b"])
                let typed = try (\VF.Car.type == .pickup || \.previous == .hatchback).predicate()
                let format = try CdPredicate(format: "type == %@ OR previous == %@", "pickup", "hatchback")
                #expect(typed == format, "the typed form is the format string's predicate")
            }
        }
    }
}
