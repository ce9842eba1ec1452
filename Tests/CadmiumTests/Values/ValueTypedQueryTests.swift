// Value queries written with key paths and with Foundation's `#Predicate` return what the format
// string returns, a key path with no store property is a typed error from the terminal, and a
// value query can be observed with `changes()`.

import Foundation
import Testing
import CdObjects
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ValueTypedQueryTests {
        /// Employees Ann 31, Bob 45, Cy 22 (no position), Dee 38.
        func seed() throws {
            let model = try CdModel(classes: [], values: [VF.Employee.self, VF.Shop.self])
            try Cd.initWithStore(model: model, storeURL: nil, serialTX: false)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    for (name, age, position) in [
                        ("Ann", 31, "lead"), ("Bob", 45, "cook"), ("Cy", 22, nil), ("Dee", 38, "cook"),
                    ] {
                        var e = VF.Employee(
                            objectID: nil, name: name, age: Int16(age), position: position, department: "d", job: "j")
                        try e.save()
                    }
                }
            }
        }

        @Test func keyPathsAndFoundationPredicatesAgreeWithFormatStrings() throws {
            try seed()
            try background {
                let values = Cd.values(VF.Employee.self)
                let byFormat = try values.filter("age > %@ AND position != nil", 30).sorted("name").fetch()
                let byKeyPath = try values.filter(\.age > 30 && \.position != nil).sorted(by: \.name).fetch()
                let byFoundation = try values.filter(#Predicate<VF.Employee> { $0.age > 30 && $0.position != nil })
                    .sorted(by: \.name).fetch()
                #expect(byFormat.map(\.name) == ["Ann", "Bob", "Dee"])
                #expect(byKeyPath == byFormat && byFoundation == byFormat)

                let descending = try values.filter(beginsWith(\.name, "d", caseInsensitive: true) || \.age < 25)
                    .sorted(by: \.age, ascending: false).fetch()
                #expect(descending.map(\.name) == ["Dee", "Cy"])
                #expect(try values.filter(30...40 ~= \.age).count() == 2)
                #expect(try values.filter(isIn(\.name, ["Bob", "Zed"])).fetchOne()?.age == 45)
            }
        }

        @Test func aKeyPathThatIsNoStoredPropertyIsATypedError() throws {
            try seed()
            try background {
                let request = Cd.values(VF.Employee.self).sorted(by: \.name.count)
                #expect(throws: CdQueryError.self) { try request.fetch() }
            }
        }

        @MainActor @Test func aValueQueryIsObserved() async throws {
            try seed()
            var changes = Cd.values(VF.Employee.self).filter(\.position == "cook").sorted(by: \.name).changes()
                .makeAsyncIterator()
            let first = try #require(try await changes.next())
            #expect(first.isInitial && first.results.map(\.name) == ["Bob", "Dee"])
            try await Cd.transaction {
                var ann = try #require(try Cd.values(VF.Employee.self).filter(\.name == "Ann").fetchOne())
                ann.position = "cook"
                try ann.save()
            }
            let second = try #require(try await changes.next())
            #expect(second.results.map(\.name) == ["Ann", "Bob", "Dee"] && second.inserted == [0])
            #expect(
                second.results == (try Cd.values(VF.Employee.self).filter("position == 'cook'").sorted("name").fetch()))
        }
    }
}
