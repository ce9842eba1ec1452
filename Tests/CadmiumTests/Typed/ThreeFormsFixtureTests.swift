// Every predicate fixture case (Fixtures/predicates/cases.json) that has a typed equivalent,
// written three ways: the case's format string, key paths, and Foundation's `#Predicate` (where
// the macro can say it). The three must return the case's expected objects, and the store must
// plan the three the same way (`explain()`), so the typed forms use the same indexes.

import Foundation
import Testing
@testable import Cadmium

/// One fixture case in its typed and `#Predicate` forms.
struct ThreeForms: Sendable, CustomTestStringConvertible {
    let id: String
    /// Runs `filter` with the format string, the typed predicate and the `#Predicate` (nil when
    /// the macro has no way to say it), each with `explain()`: (ids, plan) per form.
    let run: @Sendable (_ format: String, _ args: [Any]) throws -> [(form: String, ids: [Int64], plan: String)]

    var testDescription: String { id }

    static func person(_ id: String, _ typed: CdTypedPredicate<FxPerson>, _ foundation: Predicate<FxPerson>?) -> Self {
        ThreeForms(id: id) { format, args in
            let base = Cd.objects(FxPerson.self)
            var forms = [
                ("format", base.filter(try CdPredicate(format: format, argumentArray: args))),
                ("key paths", base.filter(typed)),
            ]
            if let foundation { forms.append(("#Predicate", base.filter(foundation))) }
            return try forms.map { ($0.0, try $0.1.fetchValues(\.id).sorted(), try $0.1.explain()) }
        }
    }

    static func department(
        _ id: String, _ typed: CdTypedPredicate<FxDepartment>, _ foundation: Predicate<FxDepartment>?
    ) -> Self {
        ThreeForms(id: id) { format, args in
            let base = Cd.objects(FxDepartment.self)
            var forms = [
                ("format", base.filter(try CdPredicate(format: format, argumentArray: args))),
                ("key paths", base.filter(typed)),
            ]
            if let foundation { forms.append(("#Predicate", base.filter(foundation))) }
            return try forms.map { ($0.0, try $0.1.fetchValues(\.id).sorted(), try $0.1.explain()) }
        }
    }
}

private let day1980 = PredicateFixtureFiles.day("1980-01-01")
private let uuid7 = UUID(uuidString: "00000000-0000-4000-8000-000000000007")!

/// The cases, by fixture id.
let threeFormsCases: [ThreeForms] = [
    .person("cmp-age-2", \.age == 34, #Predicate { $0.age == 34 }),
    .person("cmp-age-10", \.age != 34, #Predicate { $0.age != 34 }),
    .person("cmp-age-18", \.age < 34, #Predicate { $0.age < 34 }),
    .person("cmp-age-22", \.age <= 34, #Predicate { $0.age <= 34 }),
    .person("cmp-age-30", \.age > 34, #Predicate { $0.age > 34 }),
    .person("cmp-age-34", \.age >= 34, #Predicate { $0.age >= 34 }),
    .person("num-1", \.salary > 100_000, #Predicate { $0.salary > 100_000 }),
    .person("num-2", \.salary == 72000.5, #Predicate { $0.salary == 72000.5 }),
    .department("num-10", \.rating > 3.5, #Predicate { $0.rating > 3.5 }),
    .person("arg-9", \.name == "Eve", #Predicate { $0.name == "Eve" }),
    .person("arg-14", \.active == true, #Predicate { $0.active }),
    .person("arg-18", \.uuid == uuid7, #Predicate { $0.uuid == uuid7 }),
    .person("logic-1", \.age > 40 && \.active == true, #Predicate { $0.age > 40 && $0.active == true }),
    .person("logic-3", \.age < 25 || \.age > 55, #Predicate { $0.age < 25 || $0.age > 55 }),
    .person("logic-5", !(\.age > 30), #Predicate { !($0.age > 30) }),
    .person(
        "logic-7", \.age < 25 || \.age > 55 && \.active == true,
        #Predicate { $0.age < 25 || $0.age > 55 && $0.active }),
    .person("logic-10", !(\.active == true && \.age > 40), #Predicate { !($0.active && $0.age > 40) }),
    .person("between-1", 30...40 ~= \.age, #Predicate { (30...40).contains($0.age) }),
    .person("between-6", !(25...50 ~= \.age), #Predicate { !(25...50).contains($0.age) }),
    .person("between-7", "B"..."E" ~= \.name, #Predicate { ("B"..."E").contains($0.name) }),
    .person("in-1", isIn(\.age, [22, 33, 99]), #Predicate { [22, 33, 99].contains($0.age) }),
    .person(
        "in-2", isIn(\.name, ["Alice", "Bob", "Nobody"]), #Predicate { ["Alice", "Bob", "Nobody"].contains($0.name) }),
    .person("in-3", isIn(\.name, ["ALICE", "bob"], caseInsensitive: true), nil),
    .person("in-14", isIn(\.department?.name, ["Sales", "Marketing"]), nil),
    .person("str-2", beginsWith(\.name, "Ren"), #Predicate { $0.name.starts(with: "Ren") }),
    .person("str-5", beginsWith(\.name, "jo", caseInsensitive: true), nil),
    .person("str-13", beginsWith(\.name, "jo", caseInsensitive: true, diacriticInsensitive: true), nil),
    .person("str-20", endsWith(\.name, "y"), nil),
    .person("str-21", endsWith(\.name, "E", caseInsensitive: true), nil),
    .person("str-33", contains(\.name, "e"), #Predicate { $0.name.contains("e") }),
    .person("str-38", contains(\.name, "RE", caseInsensitive: true), nil),
    .person("str-65", endsWith(\.email, "@corp.net"), nil),
    .person("str-66", beginsWith(\.nickname, "F"), #Predicate { $0.nickname?.starts(with: "F") == true }),
    .person(
        "str-70", contains(\.department?.name, "resume", caseInsensitive: true, diacriticInsensitive: true), nil),
    .person("str-71", \.name < "D", #Predicate { $0.name < "D" }),
    .person("like-1", like(\.name, "*e"), nil),
    .person("like-10", like(\.name, "J?s?"), nil),
    .person("matches-1", matches(\.name, "[A-C].*"), nil),
    .person("matches-5", matches(\.name, "jose", caseInsensitive: true, diacriticInsensitive: true), nil),
    .person("nil-1", \.nickname == nil, #Predicate { $0.nickname == nil }),
    .person("nil-2", \.nickname != nil, #Predicate { $0.nickname != nil }),
    .person("nil-4", \.department == nil, #Predicate { $0.department == nil }),
    .person("nil-5", \.department?.name == nil, #Predicate { $0.department?.name == nil }),
    .person(
        "nil-6", \.department != nil && \.department?.budget > 500_000,
        #Predicate { $0.department != nil && $0.department!.budget > 500_000 }),
    .person("nil-7", \.nickname < "M", #Predicate { $0.nickname.flatMap { $0 < "M" } == true }),
    .person("nil-8", !beginsWith(\.nickname, "F"), #Predicate { !($0.nickname?.starts(with: "F") == true) }),
    .person("date-1", \.birthday < day1980, #Predicate { $0.birthday! < day1980 }),
    .person("path-1", \.department?.name == "Engineering", #Predicate { $0.department?.name == "Engineering" }),
    .person(
        "path-2", \.department?.budget < 400_000, #Predicate { $0.department.flatMap { $0.budget < 400_000 } == true }),
    .person(
        "path-10", any(\.friends, \.department?.name == "Sales"),
        #Predicate { $0.friends.contains { $0.department?.name == "Sales" } }),
    .person("quant-1", any(\.friends, \.age > 50), #Predicate { $0.friends.contains { $0.age > 50 } }),
    .person("quant-3", all(\.friends, \.age > 30), #Predicate { $0.friends.allSatisfy { $0.age > 30 } }),
    .person("quant-4", none(\.friends, \.active == true), #Predicate { !$0.friends.contains { $0.active == true } }),
    .person("quant-5", any(\.friends, beginsWith(\.name, "a", caseInsensitive: true)), nil),
    .person(
        "quant-8", count(\.friends) > 0 && all(\.friends, \.active == true),
        #Predicate { $0.friends.count > 0 && $0.friends.allSatisfy { $0.active == true } }),
    .department("quant-10", any(\.employees, \.age > 55), #Predicate { $0.employees.contains { $0.age > 55 } }),
    .department("quant-11", all(\.employees, \.active == true), #Predicate { $0.employees.allSatisfy { $0.active } }),
    .department(
        "quant-12", none(\.employees, \.salary < 60_000), #Predicate { !$0.employees.contains { $0.salary < 60_000 } }),
    .department(
        "quant-13", any(\.employees, isIn(\.name, ["Eve", "Zoë"])),
        #Predicate { $0.employees.contains { ["Eve", "Zoë"].contains($0.name) } }),
    .department(
        "quant-14", all(\.employees, 25...50 ~= \.age),
        #Predicate { $0.employees.allSatisfy { (25...50).contains($0.age) } }),
    .department("agg-1", count(\.employees) == 3, #Predicate { $0.employees.count == 3 }),
    .department("agg-2", count(\.employees) > 3, #Predicate { $0.employees.count > 3 }),
    .department("agg-3", count(\.employees) == 0, #Predicate { $0.employees.count == 0 }),
    .department("agg-4", sum(\.employees, \.salary) > 300_000, nil),
    .department("agg-6", average(\.employees, \.age) > 40, nil),
    .department("agg-8", min(\.employees, \.age) < 25, nil),
    .department("agg-9", max(\.employees, \.salary) >= 120_000, nil),
    .department("agg-11", min(\.employees, \.name) == "Eve", nil),
    .department("agg-13", 30.0...40.0 ~= average(\.employees, \.age), nil),
    .person("agg-14", count(\.friends) == 0, #Predicate { $0.friends.count == 0 }),
    .department(
        "subq-2", any(\.employees, \.active == false && \.salary > 60_000),
        #Predicate { $0.employees.contains { !$0.active && $0.salary > 60_000 } }),
]

extension CadmiumSuites {
    @Suite struct ThreeFormsFixture {
        @MainActor @Test(arguments: threeFormsCases)
        func theThreeFormsReturnTheCaseObjectsWithOnePlan(_ forms: ThreeForms) throws {
            let fixture = try #require(PredicateFixtureFiles.cases[forms.id], "no fixture case \(forms.id)")
            let expected = try #require(fixture.expect)
            try PredicateFixtureFiles.load()
            let results = try forms.run(fixture.format, PredicateFixtureFiles.arguments(fixture))
            for result in results {
                #expect(result.ids == expected.sorted(), "\(result.form) of \(fixture.format)")
                #expect(result.plan == results[0].plan, "\(result.form) plan of \(fixture.format)")
            }
        }

        @Test func everyCaseNamesAFixtureCaseOnce() {
            #expect(Set(threeFormsCases.map(\.id)).count == threeFormsCases.count)
            #expect(threeFormsCases.allSatisfy { PredicateFixtureFiles.cases[$0.id]?.expect != nil })
        }
    }
}

extension CadmiumSuites.ThreeFormsFixture {
    /// The cases whose argument is an object, fetched after the data is loaded. `#Predicate` has no
    /// form for them: it captures only `Codable` and `Sendable` values, which managed objects are not.
    @MainActor @Test func objectArgumentsInTheFormatAndKeyPathForms() throws {
        try PredicateFixtureFiles.load()
        let d102 = try #require(try Cd.objects(FxDepartment.self).filter(\.id == 102).fetchOne())
        let p7 = try #require(try Cd.objects(FxPerson.self).filter(\.id == 7).fetchOne())
        let people = Cd.objects(FxPerson.self)
        let cases: [(String, CdManagedObject, CdFetchRequest<FxPerson>)] = [
            ("path-3", d102, people.filter(\.department == d102)),
            ("path-4", d102, people.filter(\.department != d102)),
            ("path-12", p7, people.filter(contains(\.friends, p7))),
        ]
        for (id, argument, typed) in cases {
            let fixture = try #require(PredicateFixtureFiles.cases[id])
            let format = people.filter(try CdPredicate(format: fixture.format, argumentArray: [argument]))
            #expect(try format.fetchValues(\.id).sorted() == fixture.expect, "\(id) format")
            #expect(try typed.fetchValues(\.id).sorted() == fixture.expect, "\(id) key paths")
            #expect(try typed.explain() == format.explain(), "\(id)")
            #expect(typed.request.predicate == format.request.predicate, "\(id)")
        }
    }
}
