// Builds one change part of a history transaction (HistoryCodec.swift has the bytes). Names are
// numbered once per part; each entity's attribute and to-one names are numbered the first time
// the part meets the entity, so recording an insert costs a few array reads and varints, no
// string hashing (the bulk insert row of `make bench` measures it).
//
// Confinement: one builder per applier, used by its thread.

import CdStore

/// One change part being written.
struct HistoryPartBuilder {
    /// Name indexes of one entity's properties, by slot.
    private struct EntityNames {
        let entity: UInt64
        let attributes: [UInt64]
        let toOnes: [UInt64]
    }

    private var names: [String] = []
    private var nameIndex: [String: UInt64] = [:]
    /// By entity code (EL1).
    private var tables: [EntityNames?]
    private var body: [UInt8] = []
    /// The changes appended so far.
    private(set) var count = 0

    init(entityCount: Int) { tables = Array(repeating: nil, count: entityCount) }

    var isEmpty: Bool { count == 0 }

    private mutating func index(_ name: String) -> UInt64 {
        if let i = nameIndex[name] { return i }
        let i = UInt64(names.count)
        names.append(name)
        nameIndex[name] = i
        return i
    }

    private mutating func table(_ e: EntityLayout) -> EntityNames {
        if let t = tables[e.code] { return t }
        let t = EntityNames(
            entity: index(e.name), attributes: e.attributes.map { index($0.name) },
            toOnes: e.toOnes.map { index($0.name) })
        tables[e.code] = t
        return t
    }

    private mutating func head(_ kind: CdHistoryChangeKind, _ t: EntityNames, _ key: Int64, properties: Int) {
        count += 1
        body.append(kind.rawValue)
        body.appendVarint(t.entity)
        body.appendVarint(UInt64(bitPattern: key))
        body.appendVarint(UInt64(properties))
    }

    /// An insert of object `key` of `e` holding values in the attributes and to-ones whose slots
    /// `hasValue` accepts (attribute slots first, then to-one positions after them), and members
    /// in the to-manys named.
    mutating func appendInsert(
        _ e: EntityLayout, _ key: Int64, toManys: [String], hasValue: (Int) -> Bool
    ) {
        let t = table(e)
        let slots = e.attributes.count + e.toOnes.count
        var n = toManys.count
        for s in 0..<slots where hasValue(s) { n += 1 }
        head(.insert, t, key, properties: n)
        for s in 0..<slots where hasValue(s) {
            body.appendVarint(s < t.attributes.count ? t.attributes[s] : t.toOnes[s - t.attributes.count])
        }
        for m in toManys { body.appendVarint(index(m)) }
    }

    /// An update of object `key` of `e`: the attribute and to-one slots (numbered as in
    /// `appendInsert`) and to-manys whose values changed.
    mutating func appendUpdate(_ e: EntityLayout, _ key: Int64, slots: [Int], toManys: [String]) {
        let t = table(e)
        head(.update, t, key, properties: slots.count + toManys.count)
        for s in slots {
            body.appendVarint(s < t.attributes.count ? t.attributes[s] : t.toOnes[s - t.attributes.count])
        }
        for m in toManys { body.appendVarint(index(m)) }
    }

    /// A delete of object `key` of `e`, with the tombstone values (attribute slot, non-nil value).
    mutating func appendDelete(_ e: EntityLayout, _ key: Int64, tombstone: [(Int, CdValue)]) {
        let t = table(e)
        head(.delete, t, key, properties: 0)
        body.appendVarint(UInt64(tombstone.count))
        for (slot, value) in tombstone {
            body.appendVarint(t.attributes[slot])
            RecordCodec.appendValue(value, to: &body)
        }
    }

    /// The part's bytes (HistoryCodec.swift).
    func encoded() -> [UInt8] {
        var out: [UInt8] = [HistoryCodec.version]
        out.appendVarint(UInt64(names.count))
        for n in names { out.appendLengthPrefixed(n.utf8) }
        out.appendVarint(UInt64(count))
        out.append(contentsOf: body)
        return out
    }
}
