// The to-ones a model read with its record whose target models are not made yet (ModelStorage MS6),
// by slot. Most models have one to-one or none, so the first entry is kept inline and only further
// ones take a dictionary: making a fetched model with one to-one allocates nothing for it here (a
// dictionary per fetched model was about 1% of a range fetch).
//
// Invariants:
//  UT1. A slot has at most one entry: `first` and `more` never both hold it, and `set` replaces it.

internal import CdObjects

/// Unmade to-one targets by slot (UT1).
struct UnmadeToOnes {
    /// One entry, inline.
    private var first: (slot: Int, target: ObjectID?)?
    /// The other entries.
    private var more: [Int: ObjectID?] = [:]

    /// Notes `target` (nil: the to-one is empty) as the unmade target of `slot`, replacing any.
    mutating func set(_ slot: Int, _ target: ObjectID?) {
        if first?.slot == slot || (first == nil && (more.isEmpty || more[slot] == nil)) {
            first = (slot, target)  // keeps UT1: `more` does not hold the slot
        } else {
            more[slot] = .some(target)
        }
    }

    /// Removes the entry of `slot` and gives it: nil when there is none, `.some(nil)` for an empty
    /// to-one.
    mutating func remove(_ slot: Int) -> ObjectID?? {
        if let entry = first, entry.slot == slot {
            first = nil
            return .some(entry.target)
        }
        return more.isEmpty ? nil : more.removeValue(forKey: slot)
    }

    /// Removes every entry.
    mutating func removeAll() {
        first = nil
        more = [:]
    }
}
