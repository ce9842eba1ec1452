// A `#Predicate` that compares an optional chain's condition with a Boolean
// (`$0.email?.starts(with: "a") == true`) means what Swift means: a missing value is neither true
// nor false. The forms the store can say exactly are translated and return what Swift's
// evaluation returns; the others are a typed error, never a different answer. So is a whole
// collection compared with `==` (a Transformable array): only membership (`IN`) takes one.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct FoundationPredicateOptionalChains {
        @Test func comparingWithTrueAgreesWithSwift() throws {
            try initTypedCompany()
            try background {
                try Cd.transactAndWait {
                    let everyone = try Cd.objects(Employee.self).fetch()
                    let isTrue = #Predicate<Employee> { $0.email?.starts(with: "a") == true }
                    let notTrue = #Predicate<Employee> { $0.email?.starts(with: "a") != true }
                    for predicate in [isTrue, notTrue] {
                        let stored = try Cd.objects(Employee.self).filter(predicate).fetch().map(\.name).sorted()
                        let swift = try everyone.filter { try predicate.evaluate($0) }.map(\.name).sorted()
                        #expect(stored == swift)
                    }
                }
            }
        }

        @Test func comparingWithFalseIsRefusedNotMistranslated() throws {
            let isFalse = CdTypedPredicate(#Predicate<Employee> { $0.email?.starts(with: "a") == false })
            let notFalse = CdTypedPredicate(#Predicate<Employee> { $0.email?.starts(with: "a") != false })
            for typed in [isFalse, notFalse] {
                #expect(throws: CdQueryError.self) { try typed.predicate() }
            }
            // A condition that is not optional keeps both forms.
            let plain = CdTypedPredicate(#Predicate<Employee> { $0.name.starts(with: "A") == false })
            #expect(try plain.predicate() == CdPredicate(format: "NOT name BEGINSWITH 'A'"))
        }

        @Test func aCollectionIsComparedOnlyByMembership() throws {
            let names = ["Ann", "Bob"]
            let equal = CdTypedPredicate(#Predicate<VF.Other> { $0.tags == names })
            let unequal = CdTypedPredicate(#Predicate<VF.Other> { $0.tags != names })
            #expect(throws: CdQueryError.self) { try equal.predicate() }
            #expect(throws: CdQueryError.self) { try unequal.predicate() }
            let member = CdTypedPredicate(#Predicate<Employee> { names.contains($0.name) })
            #expect(try member.predicate() == CdPredicate(format: "name IN {'Ann', 'Bob'}"))
        }
    }
}
