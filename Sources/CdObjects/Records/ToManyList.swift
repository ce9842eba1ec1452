// The in-memory order of a to-many relationship's targets, shared by the object store's change
// applier and the context layer's inverse maintenance so both sides agree before and after a
// commit.
//
// Invariants:
// TL1. An unordered list is sorted by primary key with no repeats. Its members share one
//      inheritance root, so a primary key names one member.
// TL2. An ordered list keeps the caller's order with no repeats; a new member goes at the end.
// TL3. Inserting or removing changes the list in place: a run of links to one owner costs a
//      binary search each (an append when keys arrive in increasing order, as new objects' do),
//      never a copy of the whole list.

/// Insertion and removal of one member of a to-many list, keeping invariants TL1–TL2.
package enum ToManyList {
    /// Adds `member` once; returns whether the list changed.
    @discardableResult
    package static func insert(_ member: ObjectID, into list: inout [ObjectID], ordered: Bool) -> Bool {
        if ordered {
            guard !list.contains(member) else { return false }
            list.append(member)
            return true
        }
        if let last = list.last, last.primaryKey < member.primaryKey { list.append(member); return true }
        let i = lowerBound(of: member.primaryKey, in: list)
        if i < list.count && list[i].primaryKey == member.primaryKey { return false }
        list.insert(member, at: i)
        return true
    }

    /// Removes `member` if it is there; returns whether the list changed.
    @discardableResult
    package static func remove(_ member: ObjectID, from list: inout [ObjectID], ordered: Bool) -> Bool {
        let i: Int
        if ordered {
            guard let found = list.firstIndex(of: member) else { return false }
            i = found
        } else {
            i = lowerBound(of: member.primaryKey, in: list)
            guard i < list.count && list[i] == member else { return false }
        }
        list.remove(at: i)
        return true
    }

    /// The first position in `list` (sorted by primary key) whose key is not below `key`.
    package static func lowerBound(of key: Int64, in list: [ObjectID]) -> Int {
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if list[mid].primaryKey < key { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
