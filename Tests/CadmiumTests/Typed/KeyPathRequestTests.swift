// The key-path forms of the chain methods (`sorted(by:)`, `onlyProperties`, `groupBy`, `prefetch`,
// `distinct`), typed dictionary rows and the typed terminals, each beside its string form.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct KeyPathRequests {
        @MainActor @Test func keyPathChainMethodsShapeTheSameRequestAsNames() throws {
            try initTypedCompany()
            let base = Cd.objects(Employee.self)
            #expect(
                base.sorted(by: \.salary, ascending: false).sorted(by: \.name).request
                    == base.sorted("salary", ascending: false).sorted("name").request)
            #expect(
                base.sorted(by: \.name, caseInsensitive: true).request
                    == base.sorted(CdSortDescriptor("name", caseInsensitive: true)).request)
            let typed = try base.onlyProperties(\.name, \.department?.name).sorted(by: \.name).fetch()
            let named = try base.onlyProperties(["name", "department.name"]).sorted("name").fetch()
            #expect(typed.map(\.name) == named.map(\.name))
            let departments = try Cd.objects(Department.self).prefetch(\.employees).sorted(by: \.name).fetch()
            #expect(departments.map { $0.employees.count } == [0, 4, 2])
        }

        @MainActor @Test func typedRowsGroupAndAggregate() throws {
            try initTypedCompany()
            let rows = try Cd.objects(Employee.self).filter(\.department != nil).groupBy(\.department?.name)
                .sorted(by: \.department?.name)
                .rows(.key(\.department?.name), .sum(\.salary, as: "total"), .count(as: "n"), .max(\.salary, as: "top"))
                .fetch()
            #expect(rows.map { $0["department.name"] as? String } == ["R&D", "Sales"])
            #expect(rows.map { $0["total"] as? Int64 } == [425_000, 190_000])
            #expect(rows.map { $0["n"] as? Int64 } == [4, 2])
            #expect(rows.map { $0["top"] as? Int64 } == [150_000, 110_000])
            let kept = try Cd.objects(Employee.self).filter(\.department != nil).groupBy(\.department?.name)
                .onlyProperties(\.department?.name).sorted(by: \.department?.name).rows(.count(as: "n")).fetch()
            #expect(kept.map { $0["department.name"] as? String } == ["R&D", "Sales"])
            #expect(kept.map { $0["n"] as? Int64 } == [4, 2])
            let names = try Cd.dictionaryQuery(for: Employee.self).distinct(\Employee.department?.name)
                .sorted("department.name").fetch()
            #expect(names.compactMap { $0["department.name"] as? String } == ["R&D", "Sales"])
        }

        @MainActor @Test func typedTerminalsAnswerWithTheAttributeType() throws {
            try initTypedCompany()
            let sales = Cd.objects(Employee.self).filter(\.department?.name == "Sales")
            let total: Int64 = try sales.sum(\.salary)
            let low: Int64? = try sales.min(\.salary)
            let emails: [String?] = try sales.sorted(by: \.name).fetchValues(\.email)
            #expect(total == 190_000 && low == 80_000)
            #expect(emails == ["dan@sales.example", nil])
            let nobody = Cd.objects(Employee.self).filter(\.salary > 1_000_000)
            #expect(try nobody.sum(\.salary) == 0)
            #expect(try nobody.average(\.salary) == nil)
            #expect(try nobody.max(\.salary) == nil)
        }

        @MainActor @Test func typedAndStringFormsGetTheSameIndexPlan() throws {
            try initTypedCompany()
            let typed = try Cd.objects(Employee.self).filter(\.email == "ann@rd.example").explain()
            let string = try Cd.objects(Employee.self).filter("email == %@", "ann@rd.example").explain()
            let foundation = try Cd.objects(Employee.self).filter(#Predicate { $0.email == "ann@rd.example" }).explain()
            #expect(typed.hasPrefix("INDEX SCAN"), "\(typed)")
            #expect(typed == string && typed == foundation)
        }

        @MainActor @Test func aToOneComparesWithAnObjectOrNil() throws {
            try initTypedCompany()
            let rnd = try #require(try Cd.objects(Department.self).filter(\.name == "R&D").fetchOne())
            #expect(try Cd.objects(Employee.self).filter(\.department == rnd).count() == 4)
            #expect(try Cd.objects(Employee.self).filter(\.department != rnd).count() == 3)
            #expect(try Cd.objects(Employee.self).filter(\.department == nil).fetchValues(\.name) == ["Abe"])
            let typed = Cd.objects(Employee.self).filter(\.department == rnd).request.predicate
            let format = Cd.objects(Employee.self).filter("department == %@", rnd).request.predicate
            #expect(typed == format)
        }

        @MainActor @Test func theModuleNameReachesTheFunctionsPastMembersOfTheSameName() throws {
            try initTypedCompany()
            // `count` here is this type's member; `Cadmium.count` is the typed aggregate.
            #expect(try count(Cadmium.count(\Department.employees) > 1) == 2)
        }

        private func count(_ predicate: CdTypedPredicate<Department>) throws -> Int {
            try Cd.objects(Department.self).filter(predicate).count()
        }
    }
}
