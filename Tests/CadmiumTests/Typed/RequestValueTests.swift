// Requests are values: chaining returns a new request and leaves the old one as it was, the
// terminals change nothing, and one stored request runs on the main thread, inside transactions
// and on several threads at once with the same answers.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct RequestValues {
        @MainActor @Test func chainingLeavesTheOriginalAsItWas() throws {
            try initTypedCompany()
            let all = Cd.objects(Employee.self)
            let rich = all.filter(\.salary > 100_000)
            let richByName = rich.sorted(by: \.name)
            let firstRich = richByName.limit(1)
            #expect(try all.count() == 7)
            #expect(try rich.count() == 3)
            #expect(try richByName.fetchValues(\.name) == ["Ann", "Axel", "Dan"])
            #expect(try firstRich.fetchValues(\.name) == ["Ann"])
            #expect(all.request.predicate == nil && rich.request.sortDescriptors.isEmpty)
            #expect(richByName.request.limit == nil)
        }

        @MainActor @Test func terminalsChangeNothing() throws {
            try initTypedCompany()
            let request = Cd.objects(Employee.self).sorted(by: \.name)
            let before = request.request
            #expect(try request.fetchOne()?.name == "Abe")
            _ = try request.count()
            _ = try request.sum(\.salary)
            _ = try request.explain()
            #expect(request.request == before)
            #expect(try request.fetch().count == 7)
        }

        @MainActor @Test func aStoredRequestRunsOnTheMainThreadAndInTransactions() throws {
            try initTypedCompany()
            let rnd = Cd.objects(Employee.self).filter(\.department?.name == "R&D").sorted(by: \.name)
            #expect(try rnd.fetchValues(\.name) == ["Ann", "Axel", "Bob", "Cid"])
            let inTransaction = try background {
                try Cd.transactAndWait { () throws -> [String] in
                    let dan = try #require(try Cd.objects(Employee.self).filter(\.name == "Dan").fetchOne())
                    dan.department = try Cd.objects(Department.self).filter(\.name == "R&D").fetchOne()
                    return try rnd.fetchValues(\.name)  // sees the transaction's own change
                }
            }
            #expect(inTransaction == ["Ann", "Axel", "Bob", "Cid", "Dan"])
            #expect(try rnd.fetchValues(\.name) == ["Ann", "Axel", "Bob", "Cid", "Dan"])
        }

        @MainActor @Test func oneRequestRunsOnManyThreadsAtOnce() throws {
            try initTypedCompany()
            let request = Cd.objects(Employee.self).filter(\.department?.name == "Sales").sorted(by: \.salary)
            let answers = LockedBox<[[String]]>([])
            try background {
                DispatchQueue.concurrentPerform(iterations: 8) { _ in
                    let names = try? Cd.read { try request.fetchValues(\.name) }
                    answers.update { $0.append(names ?? []) }
                }
            }
            #expect(answers.get().count == 8)
            #expect(answers.get().allSatisfy { $0 == ["Eve", "Dan"] })
        }

        @MainActor @Test func aShapingErrorIsThrownByEveryTerminal() throws {
            try initTypedCompany()
            let bad = Cd.objects(Employee.self).sorted(by: \.description).filter(\.salary > 1)
            for run in [{ _ = try bad.fetch() }, { _ = try bad.count() }, { _ = try bad.fetchValues(\.name) }] {
                #expect(throws: CdQueryError.self) { try run() }
            }
            do {
                _ = try bad.fetch()
            } catch let error as CdQueryError {
                #expect(error.kind == .unresolvedKeyPath)
            }
        }
    }
}
