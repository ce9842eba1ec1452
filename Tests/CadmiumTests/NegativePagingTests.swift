// A negative limit or offset on a request is bad input: every terminal (objects, counts,
// dictionary rows, values) throws a typed error naming the entity and the numbers, in a
// transaction with pending changes too, rather than stopping the program.

import Foundation
import Testing
import CdObjects
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct NegativePaging {
        @Test(arguments: [(-1, 0), (2, -3), (-2, -2)])
        func aNegativeLimitOrOffsetIsATypedError(_ limit: Int, _ offset: Int) throws {
            try initTypedCompany()
            try background {
                try Cd.transactAndWait {
                    let pending = try Cd.create(Employee.self)
                    pending.name = "Zoe"
                    let request = Cd.objects(Employee.self).sorted(by: \.name).limit(limit).offset(offset)
                    #expect(throws: CdPredicateError.self) { try request.fetch() }
                    #expect(throws: CdPredicateError.self) { try request.count() }
                    #expect(throws: CdPredicateError.self) { try request.fetchValues(\.name) }
                }
                let unsorted = Cd.objects(Employee.self).limit(limit).offset(offset)
                try Cd.read {
                    #expect(throws: CdPredicateError.self) { try unsorted.fetch() }
                    #expect(throws: CdPredicateError.self) { try unsorted.count() }
                }
            }
        }
    }
}
