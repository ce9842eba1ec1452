// How the verifier answers "does this ordered list hold that member?" without a copy of every
// list (OV7 of ObjectStoreVerifier.swift). An ordered to-many tree is keyed by (source, position),
// so the question cannot be one look-up as it is for an unordered tree (source ‖ target), and
// reading the list per question is quadratic (1M objects in 100 lists took hours).
//
// Invariants:
//   OM1. A healthy store costs constant memory: every entry of an ordered tree whose relationship
//        has an inverse is tallied as held, every question about it as claimed, each tally a count
//        and a wrapping sum of a hash of (source, member). Both sides visit every pair once, so
//        the tallies of a consistent tree are equal.
//   OM2. Tallies that differ prove only that something differs: the checks then run again over
//        that tree with `OrderedListMembers`, which answers each question exactly (and holds the
//        tree's pairs, in memory that grows with the tree: damage is the rare case).
//   OM3. Equal tallies when the sets differ need a collision of a 64-bit sum of hashes, and a
//        held entry that nothing claims is reported from its own side (its member's inverse is
//        checked by one look-up), so equal tallies are read as consistent.

import CdStore

/// The held and claimed tallies of each ordered to-many tree (OM1).
struct OrderedListLedger {
    private var held: [String: Tally] = [:]
    private var claimed: [String: Tally] = [:]

    private struct Tally: Equatable {
        var count = 0
        var sum: UInt64 = 0

        mutating func add(_ source: Int64, _ member: ObjectID) {
            var hasher = Hasher()
            hasher.combine(source)
            hasher.combine(member)
            count += 1
            sum &+= UInt64(bitPattern: Int64(hasher.finalize()))
        }
    }

    /// `tree`'s list of `source` has an entry naming `member`.
    mutating func held(in tree: String, source: Int64, member: ObjectID) {
        held[tree, default: Tally()].add(source, member)
    }

    /// `member`'s inverse says that `tree`'s list of `source` holds it.
    mutating func claimed(in tree: String, source: Int64, member: ObjectID) {
        claimed[tree, default: Tally()].add(source, member)
    }

    /// The trees whose held and claimed pairs differ (OM2).
    var disagreeing: Set<String> {
        Set(held.keys).union(claimed.keys).filter { held[$0] != claimed[$0] }
    }
}

/// The (source, target) pairs of one ordered to-many tree, read in one scan (OM2); sources with
/// an entry that does not decode are noted, so that questions about them get no answer (the pass
/// over the tree reports the damage itself).
struct OrderedListMembers {
    private var pairs: Set<Pair> = []
    private var damagedSources: Set<Int64> = []

    private struct Pair: Hashable {
        let source: Int64
        let target: ObjectID
    }

    init(_ tree: Tree, _ relationship: RelationshipDescription, _ stored: StoredObjects) throws {
        try tree.scan { key, value in
            guard key.count >= 8 else { return true }
            let source = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
            do {
                let target = try stored.decodeRelationshipEntry(
                    key: key, value: value, relationship: relationship, tree: tree)
                pairs.insert(Pair(source: source, target: target))
            } catch is CdError {
                damagedSources.insert(source)
            }
            return true
        }
    }

    /// Whether `source`'s list holds `target`; nil when one of its entries does not decode.
    func holds(_ source: Int64, _ target: ObjectID) -> Bool? {
        damagedSources.contains(source) ? nil : pairs.contains(Pair(source: source, target: target))
    }
}
