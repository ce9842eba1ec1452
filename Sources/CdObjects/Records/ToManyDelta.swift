// What one transaction did to one to-many relationship of one existing object: the links it
// added and removed, and for an ordered relationship the order it wants. A change set carries
// this instead of the whole list, so that the store applies it against the list as it is at
// commit time: two overlapping transactions that link different members to one object both keep
// their links, and a transaction that never named a member can neither drop nor re-add it.
//
// Invariants:
//  TD1. `added` and `removed` are disjoint; each holds a member once. `add` after `remove` of the
//       same member (or the reverse) cancels out, so the delta says what changed, not the steps.
//  TD2. `order`, when set, is the relationship's whole list as the transaction left it (an ordered
//       relationship that was set whole, or read and edited). Applying it puts the members it
//       names in its order, and members it does not name (linked meanwhile by another
//       transaction) after them, in the store's order.

/// The links one transaction added to and removed from one to-many relationship (TD1–TD2).
///
/// ```swift
/// var delta = ToManyDelta()
/// delta.add(note)        // links `note`
/// delta.remove(other)    // unlinks `other`
/// changes.toManyDeltas[tag] = ["notes": delta]
/// ```
public struct ToManyDelta: Hashable, Sendable, CustomStringConvertible {
    /// Members linked, in the order they were linked.
    public private(set) var added: [ObjectID] = []
    /// Members unlinked.
    public private(set) var removed: [ObjectID] = []
    /// `added` and `removed` as sets, so that a transaction linking many members to one object
    /// records each link in constant time.
    private var addedSet: Set<ObjectID> = []
    private var removedSet: Set<ObjectID> = []
    /// For an ordered relationship that the transaction set or reordered: the whole list as it
    /// left it (TD2); nil when it only added (at the end) and removed.
    public var order: [ObjectID]?

    /// An empty delta.
    public init() {}

    /// A delta that links `added` and unlinks `removed`.
    public init(added: [ObjectID], removed: [ObjectID] = [], order: [ObjectID]? = nil) {
        for member in removed { remove(member) }
        for member in added { add(member) }
        self.order = order
    }

    /// Whether the delta changes nothing.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && order == nil }

    /// Links `member` (keeps TD1).
    public mutating func add(_ member: ObjectID) {
        if removedSet.remove(member) != nil {
            removed.remove(at: removed.firstIndex(of: member)!)
        } else if addedSet.insert(member).inserted {
            added.append(member)
        }
    }

    /// Unlinks `member` (keeps TD1).
    public mutating func remove(_ member: ObjectID) {
        if addedSet.remove(member) != nil {
            added.remove(at: added.firstIndex(of: member)!)
        } else if removedSet.insert(member).inserted {
            removed.append(member)
        }
    }

    /// Records that the relationship went from `old` to `new` (both as the transaction saw them):
    /// the members that left are removed, the new ones added; `ordered` keeps `new` as the order
    /// unless it is `old`, less the members removed, with the new ones appended.
    public mutating func record(from old: [ObjectID], to new: [ObjectID], ordered: Bool) {
        let oldSet = Set(old), newSet = Set(new)
        for member in old where !newSet.contains(member) { remove(member) }
        let appended = new.filter { !oldSet.contains($0) }
        for member in appended { add(member) }
        if ordered, order != nil || new != old.filter(newSet.contains) + appended { order = new }
    }

    public var description: String {
        var parts: [String] = []
        if !added.isEmpty { parts.append("+" + added.map(\.description).joined(separator: ",")) }
        if !removed.isEmpty { parts.append("-" + removed.map(\.description).joined(separator: ",")) }
        if let order { parts.append("order " + order.map(\.description).joined(separator: ",")) }
        return "[" + parts.joined(separator: " ") + "]"
    }
}
