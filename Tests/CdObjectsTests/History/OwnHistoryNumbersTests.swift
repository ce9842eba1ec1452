// The record of a store's own history transactions, one per consumer (OH1, OH2 of
// OwnHistoryNumbers.swift): two `Cd` containers on one store each read past their own
// transactions without making the other take them for another process's.

import Testing
@testable import CdObjects

@Suite struct OwnHistoryNumbersTests {
    @Test func eachConsumerKeepsItsOwnRecord() {
        let numbers = OwnHistoryNumbers()
        numbers.record(1)  // before any consumer: known to none
        let first = numbers.start()
        let second = numbers.start()
        for n in 2...5 { numbers.record(UInt64(n)) }
        numbers.record(nil)  // a commit without history records nothing
        #expect(numbers.take(through: 3, for: first) == [2, 3])
        #expect(numbers.take(through: 3, for: first) == [], "taken numbers are forgotten")
        #expect(numbers.take(through: 5, for: second) == [2, 3, 4, 5], "the other record is whole")
        numbers.stop(first)
        numbers.record(6)
        #expect(numbers.take(through: 9, for: first) == [], "a stopped consumer records nothing")
        #expect(numbers.take(through: 9, for: second) == [6])
    }
}
