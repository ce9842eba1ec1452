// The typed-query example of docs/QUERIES.md, verbatim, run against known data: it compiles, and
// each name holds what it says.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct TypedQueryExample {
        @MainActor @Test func theExampleCompilesAndAnswersWhatItsNamesSay() throws {
            try initTypedCompany()
            // From here to the expectations: the example of docs/QUERIES.md, token for token.
            let top = try Cd.objects(Employee.self)
                .filter(\.salary > 100_000 && \.department?.name == "R&D")
                .filter(\.email != nil)
                .sorted(by: \.salary, ascending: false)
                .limit(5)
                .fetch()
            let a = try Cd.objects(Employee.self).filter(beginsWith(\.name, "A", caseInsensitive: true)).count()
            let mid = try Cd.objects(Employee.self).filter(50_000...90_000 ~= \.salary).fetch()  // BETWEEN
            let few = try Cd.objects(Employee.self).filter(isIn(\.name, ["Ann", "Bob"])).fetch()
            let big = try Cd.objects(Department.self).filter(count(\.employees) > 3).fetch()
            let rich = try Cd.objects(Department.self).filter(any(\.employees, \.salary > 100_000)).fetch()
            let none = try Cd.objects(Department.self).filter(!any(\.employees, contains(\.name, "x"))).fetch()
            let names: [String] = try Cd.objects(Employee.self).sorted(by: \.name).fetchValues(\.name)
            let total: Int64 = try Cd.objects(Employee.self).filter(\.department?.name == "R&D").sum(\.salary)
            let avg: Double? = try Cd.objects(Employee.self).average(\.salary)
            let hi: Int64? = try Cd.objects(Employee.self).max(\.salary)
            let p = #Predicate<Employee> { $0.salary > 100_000 && $0.name.starts(with: "A") }  // Foundation
            let same = try Cd.objects(Employee.self).filter(p).fetch()
            // End of the example.

            #expect(top.map(\.name) == ["Ann"])  // Axel earns more than 100,000 in R&D but has no email
            #expect(a == 3)  // Ann, Axel, Abe
            #expect(mid.map(\.name).sorted() == ["Cid", "Eve"])
            #expect(few.map(\.name).sorted() == ["Ann", "Bob"])
            #expect(big.map(\.name) == ["R&D"])
            #expect(rich.map(\.name).sorted() == ["R&D", "Sales"])
            #expect(none.map(\.name).sorted() == ["Ops", "Sales"])  // Axel has an x
            #expect(names == ["Abe", "Ann", "Axel", "Bob", "Cid", "Dan", "Eve"])
            #expect(total == 425_000)
            #expect(avg == 655_000.0 / 7)
            #expect(hi == 150_000)
            #expect(same.map(\.name).sorted() == ["Ann", "Axel"])
        }

        @Test func ordinaryBooleanExpressionsKeepTheirMeaning() {
            // Only a key path (or a to-many aggregate) on the left makes a typed predicate: the
            // operators and functions below are the standard library's, in the same file.
            let salary: Int64 = 120_000
            let name = "Ann"
            let flags: [Bool] = [salary > 100_000 && name == "Ann", !(salary <= 5) || name != "Bob", 1...3 ~= 2]
            #expect(flags == [true, true, true])
            #expect(["Ann", "Bob"].contains(name) && name.contains("n") && max(1, 2) == 2 && min(1, 2) == 1)
            #expect([3, 4].count == 2)
        }
    }
}
