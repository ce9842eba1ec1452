// A set of property slots (`PropertySlots`): which slots of a managed object changed, or hold
// values while the object is a partial fault. Slots below 64 live in one word, so the usual
// entity costs no allocation; wider entities spill the rest into a `Set`.

/// A small set of slot indexes.
struct SlotSet: Equatable {
    private var low: UInt64 = 0
    private var high: Set<Int> = []

    var isEmpty: Bool { low == 0 && high.isEmpty }

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        slot < 64 ? low & (1 << UInt64(slot)) != 0 : high.contains(slot)
    }

    /// Inserts `slot`; true when it was not there.
    @discardableResult @inline(__always)
    mutating func insert(_ slot: Int) -> Bool {
        if slot < 64 {
            let bit: UInt64 = 1 << UInt64(slot)
            defer { low |= bit }
            return low & bit == 0
        }
        return high.insert(slot).inserted
    }

    mutating func removeAll() {
        low = 0
        high = []
    }

    /// The slots, ascending.
    var slots: [Int] {
        var result: [Int] = []
        var bits = low
        while bits != 0 {
            result.append(bits.trailingZeroBitCount)
            bits &= bits - 1
        }
        return result + high.sorted()
    }
}
