// RawRepresentable enums in a value query's `#Predicate`: a captured case is compared as the raw
// value the store holds, and a captured `nil` as no value, as the format string with the raw
// value does.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ValueEnumPredicates {
        @Test(arguments: ValueModelSource.allCases) func enumCasesCompareAsTheirRawValues(
            _ source: ValueModelSource
        ) throws {
            try source.open()
            try background {
                try Cd.transactAndWait {
                    for (name, type, previous) in [
                        ("a", VF.CarType.sedan, nil), ("b", .pickup, .sedan), ("c", .sedan, .hatchback),
                    ] as [(String, VF.CarType, VF.CarType?)] {
                        var car = VF.Car(objectID: nil, name: name, type: type, previous: previous)
                        try car.save()
                    }
                }
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
    }
}
