// A typed aggregate answers in the attribute's Swift type: a sum that does not fit it (three
// Int16 ages of 20 000) is a typed error naming the aggregate, never 0 or a wrapped number.

import Foundation
import Testing
import CdObjects
@testable import Cadmium

/// An entity with a small integer attribute whose sum can outgrow it.
final class RvTally: CdManagedObject {
    @Attribute var count: Int16 = 0
    @Attribute var total: Int64 = 0
}

extension CadmiumSuites {
    @Suite struct TypedAggregateRange {
        @Test func aSumThatDoesNotFitTheAttributeTypeIsATypedError() throws {
            try Cd.initWithStore(model: CdModel(classes: [RvTally.self]), storeURL: nil, serialTX: false)
            try background {
                try Cd.transactAndWait {
                    for _ in 0..<3 {
                        let tally = try Cd.create(RvTally.self)
                        tally.count = 20_000
                        tally.total = 20_000
                    }
                }
                try Cd.read {
                    let tallies = Cd.objects(RvTally.self)
                    #expect(try tallies.sum(\.total) == 60_000)
                    #expect(try tallies.limit(1).max(\.count) == 20_000)
                    do {
                        let sum = try tallies.sum(\.count)
                        Issue.record("an Int16 sum of 60 000 was returned as \(sum)")
                    } catch let error as CdQueryError {
                        #expect(error.kind == .resultOutOfRange)
                        #expect(error.part == "@sum.count")
                    }
                }
            }
        }
    }
}
