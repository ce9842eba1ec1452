// Randomized: fetched results controllers over requests that cross relationships (a predicate
// and a section through `department`), sort case-insensitively, sort by optional values (nil
// dates and emails), tie on their sort keys, or are sectioned by the first sort key, follow
// random commits — inserts, deletes, moves between departments, renamed departments, cascade
// deletes of departments, batch updates and batch deletes. After every commit each controller's
// objects and section names must be exactly those of a fresh fetch.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct ControllerAgainstFetch {
        static let names = ["a", "A", "b", "B", "c", "", "ä"]
        static let departments = ["X", "Y", "Z", "W"]

        /// The requests followed, with their section key paths.
        static func requests() -> [(request: CdFetchRequest<Employee>, section: String?)] {
            [
                (Cd.objects(Employee.self).filter("department.name == 'X'").sorted("name"), nil),
                (
                    Cd.objects(Employee.self).sorted("department.name").sorted("salary", ascending: false),
                    "department.name"
                ),
                (
                    Cd.objects(Employee.self).filter("salary > 3").sorted(
                        CdSortDescriptor("name", caseInsensitive: true)),
                    nil
                ),
                (Cd.objects(Employee.self).sorted("salary").sorted("name", ascending: false), "salary"),
                (Cd.objects(Employee.self).filter("hired != nil OR salary < 5").sorted("hired"), nil),
                (Cd.objects(Employee.self).filter("name IN %@", ["a", "b"]).sorted("email", ascending: false), nil),
            ]
        }

        /// One random commit; `r` are three random numbers.
        static func commit(_ op: Int, _ r: [UInt64]) throws {
            let employees = try Cd.objects(Employee.self).fetch()
            let departments = try Cd.objects(Department.self).fetch()
            func pick<E>(_ list: [E], _ n: UInt64) -> E { list[Int(n % UInt64(list.count))] }
            switch op {
            case 0, 1, 2:
                for k in 0..<Int(r[0] % 3 + 1) {
                    let e = try Cd.create(Employee.self)
                    e.name = pick(names, r[1] >> UInt64(k * 3))
                    e.salary = Int64((r[2] >> UInt64(k * 4)) % 8)
                    if (r[2] >> 20) % 3 != 0 { e.hired = Date(timeIntervalSince1970: Double((r[1] >> 30) % 5)) }
                    if (r[2] >> 24) % 2 == 0 { e.email = pick(names, r[2] >> 28) }
                    if !departments.isEmpty, (r[0] >> 8) % 4 != 0 { e.department = pick(departments, r[0] >> 12) }
                }
            case 3:
                if !employees.isEmpty { Cd.delete(pick(employees, r[0])) }
            case 4:
                if !employees.isEmpty, !departments.isEmpty {
                    pick(employees, r[0]).department = r[1] % 5 == 0 ? nil : pick(departments, r[1])
                }
            case 5:
                if !departments.isEmpty { pick(departments, r[0]).name = pick(Self.departments, r[1]) }
            case 6:
                if !employees.isEmpty {
                    let e = pick(employees, r[0])
                    e.salary = Int64(r[1] % 8)
                    e.name = pick(names, r[2])
                    e.hired = r[2] % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(r[1] % 5))
                }
            case 7:
                try Cd.objects(Employee.self).filter("salary == %@", Int64(r[0] % 8))
                    .batchUpdate(["salary": CdExpression("salary + 1")])
            case 8:
                if r[0] % 4 == 0, departments.count > 1 {
                    Cd.delete(pick(departments, r[1]))  // cascades to its employees
                } else {
                    try Cd.objects(Employee.self).filter("salary == %@", Int64(r[1] % 8)).batchDelete()
                }
            default:
                if departments.count < 4 { try Cd.create(Department.self).name = pick(Self.departments, r[0]) }
            }
        }

        @MainActor @Test(arguments: 0..<4) func controllersEqualAFreshFetchAfterEveryCommit(run: Int) async throws {
            let seed = UInt64(run * 7919 + 17)
            var random = ObservationRandomized.Generator(state: seed | 1)
            try initCompany()
            try await Cd.transaction { for d in ["X", "Y", "Z"] { try Cd.create(Department.self).name = d } }
            let requests = Self.requests()
            var controllers: [CdFetchedResultsController<Employee>] = []
            for (request, section) in requests {
                let controller = Cd.newFetchedResultsController(request, sectionNameKeyPath: section, cacheName: nil)
                try controller.performFetch()
                controllers.append(controller)
            }
            for step in 0..<50 {
                let op = Int(random.next() % 10)
                let r = [random.next(), random.next(), random.next()]
                try await Cd.transaction { try Self.commit(op, r) }
                await drainMainQueue()
                for (i, (request, section)) in requests.enumerated() {
                    let fresh = try request.fetch()
                    let followed = controllers[i].fetchedObjects ?? []
                    let what = "seed \(seed) step \(step) op \(op) request \(i)"
                    #expect(followed.map(\.objectID) == fresh.map(\.objectID), "\(what)")
                    guard let section else { continue }
                    var titles: [String] = []
                    for object in fresh {
                        let name = controllers[i].sectionName(of: object, section)
                        if titles.last != name { titles.append(name) }
                    }
                    #expect(controllers[i].sectionIndexTitles == titles, "\(what): sections")
                }
            }
        }
    }
}
