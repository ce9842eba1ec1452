// OV5 of ObjectStoreVerifier.swift: to-one targets and to-many entries point at existing objects
// of their destination, and inverses agree both ways; an ordered list's positions run 0, 1, 2, …
// without a gap and name no object twice.
//
// Invariants:
//   RC1. Memory does not grow with the store: records are looked up in their trees
//        (VerifierRecordLookup), a to-one is checked while its record passes by in the record
//        scan, a to-many tree is scanned once holding only the list in hand, and questions
//        about ordered lists are tallied (OrderedListLedger, OM1).
//   RC2. Each question costs a bounded number of look-ups (OV7): a to-one inverse is a field of
//        the target's record, an unordered entry is found by its key (source ‖ target), an
//        ordered list's membership is a tally.
//   RC3. When an ordered tree's tallies disagree, `recheckOrderedLists` runs the checks again in
//        exact mode, answering only the questions about the disagreeing trees (with
//        OrderedListMembers, OM2) and reporting only those answers: every other problem was
//        reported by the first run, once.

import CdStore

/// The checks of OV5 over one transaction (RC1–RC3).
final class RelationshipChecks {
    private let tx: Transaction
    private let layout: StoreLayout
    private let stored: StoredObjects
    private let records: VerifierRecordLookup
    private let report: (ObjectStoreProblem) -> Void
    private let isFull: () -> Bool
    /// Nil in the first run (tally ordered questions); the disagreeing trees in the exact one.
    private var exactTrees: Set<String>?
    private var ledger = OrderedListLedger()
    private var members: [String: OrderedListMembers] = [:]

    init(
        tx: Transaction, layout: StoreLayout, records: VerifierRecordLookup,
        report: @escaping (ObjectStoreProblem) -> Void, isFull: @escaping () -> Bool
    ) {
        self.tx = tx
        self.layout = layout
        self.stored = StoredObjects(tx: tx, layout: layout)
        self.records = records
        self.report = report
        self.isFull = isFull
    }

    /// Reports a problem of the current run: in the exact run only answers about ordered lists
    /// are reported (RC3), and they go through `reportAnswer`.
    private func reportOther(_ problem: ObjectStoreProblem) {
        if exactTrees == nil { report(problem) }
    }

    /// Checks `record`'s to-ones (stored under `primaryKey`): each target exists, is of the
    /// destination, and its inverse holds the record.
    func checkToOnes(of record: Record, primaryKey pk: Int64) throws {
        let id = record.entity.objectID(pk)
        for (i, r) in record.entity.toOnes.enumerated() {
            guard let target = record.toOne[i] else { continue }
            let tree = record.entity.recordTree
            guard layout.isKind(target.entity, of: r.destination), let t = try records.record(of: target) else {
                reportOther(
                    ObjectStoreProblem(
                        entity: record.entity.name, objectID: id, tree: tree, key: RecordCodec.key(pk),
                        message: "\(r.name) points at \(target), which does not exist or is not a \(r.destination)"))
                continue
            }
            guard let inverse = record.entity.inverses[r.name] else { continue }
            if try inverseHolds(target, t, inverse, id) == false {
                report(
                    ObjectStoreProblem(
                        entity: record.entity.name, objectID: id, tree: tree, key: RecordCodec.key(pk),
                        message: "\(r.name) points at \(target) but its \(inverse.name) does not hold \(id)"))
            }
        }
    }

    /// Scans every to-many tree once.
    func checkToManyTrees() throws {
        var seenTrees = Set<String>()
        for entity in layout.byCode {
            for r in entity.toManys {
                guard let name = entity.toManyTrees[r.name], seenTrees.insert(name).inserted, let t = try tx.tree(name)
                else { continue }
                try checkToManyTree(t, name: name, relationship: r, of: entity)
                if isFull() { return }
            }
        }
    }

    /// The trees whose ordered-list tallies disagree after the first run (OM2).
    var disagreeingOrderedTrees: Set<String> { ledger.disagreeing }

    /// The exact run over the disagreeing trees (RC3): the to-ones of every record, then the
    /// to-many trees, asking only about lists in `trees`.
    func recheckOrderedLists(_ trees: Set<String>) throws {
        exactTrees = trees
        defer { exactTrees = nil }
        for root in layout.roots {
            guard let t = try tx.tree(StoreLayout.recordTreeName(root: root)) else { continue }
            try t.scan { key, value in
                guard key.count == 8, let record = try? RecordCodec.decode(value, layout: layout),
                    record.entity.root == root
                else { return true }
                try checkToOnes(of: record, primaryKey: Int64(bitPattern: key.readBE(UInt64.self, at: 0)))
                return !isFull()
            }
        }
        try checkToManyTrees()
    }

    private func checkToManyTree(
        _ t: Tree, name: String, relationship r: RelationshipDescription, of entity: EntityLayout
    )
        throws
    {
        let owner = String(name.dropFirst("cd.rel.".count).dropLast(r.name.count + 1))
        let tallied = r.isOrdered && entity.inverses[r.name] != nil && exactTrees == nil
        // The ordered list being scanned: its source, the position due next, its targets.
        var list: (source: Int64, next: UInt64, targets: Set<ObjectID>)?
        try t.scan { key, value in
            guard key.count == (r.isOrdered ? 12 : 16) else {
                reportOther(
                    ObjectStoreProblem(
                        entity: owner, tree: name, key: key, message: "relationship key is \(key.count) bytes"))
                return true
            }
            let spk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
            if r.isOrdered {
                // UInt64: a stored position of u32 max must not overflow the next one.
                let position = UInt64(key.readBE(UInt32.self, at: 8))
                if list?.source != spk { list = (spk, 0, []) }
                if position != list?.next {
                    reportOther(
                        ObjectStoreProblem(
                            entity: owner, tree: name, key: key,
                            message: "position \(position) of \(r.name) of \(spk) where \(list?.next ?? 0) is due"))
                }
                list?.next = position + 1
            }
            let target: ObjectID
            do {
                target = try stored.decodeRelationshipEntry(key: key, value: value, relationship: r, tree: t)
            } catch {
                reportOther(ObjectStoreProblem(entity: owner, tree: name, key: key, message: "\(error)"))
                return true
            }
            if tallied { ledger.held(in: name, source: spk, member: target) }
            guard let source = try records.record(root: entity.root, spk), layout.isKind(source.entity.name, of: owner)
            else {
                reportOther(
                    ObjectStoreProblem(
                        entity: owner, tree: name, key: key,
                        message: "entry of \(r.name) for missing source object \(spk)"))
                return true
            }
            let sid = source.entity.objectID(spk)
            if r.isOrdered, list?.targets.insert(target).inserted == false {
                reportOther(
                    ObjectStoreProblem(
                        entity: owner, objectID: sid, tree: name, key: key,
                        message: "\(r.name) holds \(target) twice"))
            }
            guard layout.isKind(target.entity, of: r.destination), let tr = try records.record(of: target) else {
                reportOther(
                    ObjectStoreProblem(
                        entity: owner, objectID: sid, tree: name, key: key,
                        message: "\(r.name) holds \(target), which does not exist or is not a \(r.destination)"))
                return true
            }
            if let inverse = source.entity.inverses[r.name], try inverseHolds(target, tr, inverse, sid) == false {
                report(
                    ObjectStoreProblem(
                        entity: owner, objectID: sid, tree: name, key: key,
                        message: "\(r.name) holds \(target) but its \(inverse.name) does not hold \(sid)"))
            }
            return !isFull()
        }
    }

    /// Whether `target`'s stored `inverse` holds `member`; nil when there is no answer to report
    /// (that side cannot be read, and a damaged entry there is reported by the pass over its own
    /// tree; or the exact run does not ask this question). Keeps RC2.
    private func inverseHolds(
        _ target: ObjectID, _ targetRecord: Record, _ inverse: RelationshipDescription, _ member: ObjectID
    ) throws -> Bool? {
        if !inverse.isToMany {
            guard exactTrees == nil else { return nil }
            return targetRecord.entity.toOneSlots[inverse.name].map { targetRecord.toOne[$0] == member }
        }
        guard let treeName = targetRecord.entity.toManyTrees[inverse.name] else { return nil }
        if let exactTrees, !(inverse.isOrdered && exactTrees.contains(treeName)) { return nil }
        guard let tree = try tx.tree(treeName) else { return false }
        if inverse.isOrdered {
            guard exactTrees != nil else {
                ledger.claimed(in: treeName, source: target.primaryKey, member: member)
                return true
            }
            if members[treeName] == nil { members[treeName] = try OrderedListMembers(tree, inverse, stored) }
            return members[treeName]?.holds(target.primaryKey, member)
        }
        // An unordered entry is keyed by both primary keys: one get.
        let key = RecordCodec.key(target.primaryKey) + RecordCodec.key(member.primaryKey)
        guard let value = try tree.get(key) else { return false }
        do {
            return try stored.decodeRelationshipEntry(key: key, value: value, relationship: inverse, tree: tree)
                == member
        } catch is CdError {
            return nil
        }
    }
}
