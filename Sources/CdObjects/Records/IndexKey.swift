// Order-preserving index keys: the bytes of a key compare (memcmp) in the order of the values.
// docs/FORMAT.md §Index keys has the table and worked examples.
//
// One column:
//   nil            0x00
//   otherwise      0x01, then by attribute type:
//     integer      u64 BE of the value with the sign bit flipped (Int64.min → 00…, -1 → 7F FF…, 0 → 80 00…)
//     bool         one byte, 0 or 1
//     double/float u64 BE of the bits, all bits flipped when negative, else the sign bit set;
//                  -0.0 is written as 0.0 and every NaN as 00…00 (NaN orders first, as in CdValue.compare)
//     date         as double, seconds since 2001-01-01
//     decimal      as double (monotone but lossy: equal keys are re-checked against the records)
//     string, URI  UTF-8 with 0x00 escaped as 00 FF, then the terminator 00 00 (so "a" < "a\0" < "ab")
//     data         the bytes, escaped and terminated like strings
//     UUID         its 16 bytes
//     to-one       the target's primary key, as integer
//   A descending column is written with every byte complemented.
//   Strings and data longer than `maxTextBytes` are cut there (before escaping): keys stay below the
//   engine's key limit, and equal cut keys are resolved by reading the records.
// An index key is the columns in order, then the object's primary key (u64 BE).
//
// Invariants:
//  IK1. Every column encoding is prefix-free, so a scan from E(v) to successor(E(v)) visits exactly
//       the keys whose column equals v (up to cutting and decimal rounding, which only add candidates).
//  IK2. For values a ≤ b of one column (CdValue.compare, no options): E(a) ≤ E(b) bytewise.

import CdStore
import Foundation

enum IndexKey {
    /// Longest string or data prefix that goes into a key.
    static let maxTextBytes = 400

    /// The index key of a record for one index (IK1, IK2), the primary key appended.
    static func key(_ index: IndexLayout, _ record: Record, primaryKey: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        for c in index.columns {
            let start = out.count
            switch c.source {
            case let .attribute(slot, type): appendColumn(record.values[slot], type: type, to: &out)
            case let .toOne(slot): appendObjectColumn(record.toOne[slot], to: &out)
            }
            if !c.ascending { complement(&out, from: start) }
        }
        out.appendBE(UInt64(bitPattern: primaryKey))
        return out
    }

    /// Whether any column of the key's record is nil (uniqueness does not apply then, as in SQL).
    /// The primary key at the end of an index entry's key, or nil when the key is too short to
    /// end in one after at least one column (damage: an entry is its columns, then 8 bytes).
    static func primaryKey(ofEntry key: [UInt8]) -> Int64? {
        guard key.count > 8 else { return nil }
        return Int64(bitPattern: key.readBE(UInt64.self, at: key.count - 8))
    }

    /// `primaryKey(ofEntry:)` of a key lent in place by a scan.
    static func primaryKey(ofEntry key: UnsafeRawBufferPointer) -> Int64? {
        guard key.count > 8 else { return nil }
        return Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self)))
    }

    static func hasNilColumn(_ index: IndexLayout, _ record: Record) -> Bool {
        index.columns.contains { c in
            switch c.source {
            case let .attribute(slot, _): return record.values[slot].isNull
            case let .toOne(slot): return record.toOne[slot] == nil
            }
        }
    }

    static func complement(_ out: inout [UInt8], from start: Int) {
        for i in start..<out.count { out[i] = ~out[i] }
    }

    static func appendObjectColumn(_ target: ObjectID?, to out: inout [UInt8]) {
        guard let target else { out.append(0); return }
        out.append(1)
        out.appendBE(UInt64(bitPattern: target.primaryKey) ^ (1 << 63))
    }

    /// One attribute column. `value` must be nil or of the attribute's type (the planner converts
    /// constants first with `columnValue`).
    static func appendColumn(_ value: CdValue, type: AttributeType, to out: inout [UInt8]) {
        if value.isNull { out.append(0); return }
        out.append(1)
        switch value {
        case .null: break
        case let .integer(i): out.appendBE(UInt64(bitPattern: i) ^ (1 << 63))
        case let .bool(b): out.append(b ? 1 : 0)
        case let .double(d): appendDouble(d, to: &out)
        case let .date(d): appendDouble(d.timeIntervalSinceReferenceDate, to: &out)
        case let .decimal(d): appendDouble(NSDecimalNumber(decimal: d).doubleValue, to: &out)
        case let .string(s): appendText(s.utf8, to: &out)
        case let .uri(u): appendText(u.absoluteString.utf8, to: &out)
        case let .data(d): appendText(d, to: &out)
        case let .uuid(u): withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        }
    }

    static func appendDouble(_ d: Double, to out: inout [UInt8]) {
        if d.isNaN { out.appendBE(UInt64(0)); return }
        let bits = (d == 0 ? 0.0 : d).bitPattern
        out.appendBE(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }

    static func appendText(_ bytes: some Collection<UInt8>, to out: inout [UInt8], terminate: Bool = true) {
        var n = 0
        for b in bytes {
            if n == maxTextBytes { break }
            out.append(b)
            if b == 0 { out.append(0xFF) }
            n += 1
        }
        if terminate { out.append(0); out.append(0) }
    }

    /// The encoded prefix shared by every string starting with `prefix` (no terminator), or nil
    /// when the prefix is longer than what keys keep.
    static func stringPrefix(_ prefix: String) -> [UInt8]? {
        guard prefix.utf8.count <= maxTextBytes else { return nil }
        var out: [UInt8] = [1]
        appendText(prefix.utf8, to: &out, terminate: false)
        return out
    }

    /// The smallest byte string greater than every string that starts with `prefix`; nil when
    /// there is none (all 0xFF).
    static func successor(_ prefix: [UInt8]) -> [UInt8]? {
        var p = prefix
        while let last = p.last {
            if last < 0xFF { p[p.count - 1] = last + 1; return p }
            p.removeLast()
        }
        return nil
    }

    /// A predicate constant converted to the column's type for key encoding, or nil when it
    /// cannot be represented exactly (the planner then leaves the index alone).
    static func columnValue(_ constant: CdValue, type: AttributeType) -> CdValue? {
        if constant.isNull { return .null }
        switch (type, constant) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer): return constant
        case (.integer16, let .double(d)), (.integer32, let .double(d)), (.integer64, let .double(d)):
            guard d.rounded() == d, abs(d) < 9.2e18 else { return nil }
            return .integer(Int64(d))
        case (.double, .double), (.float, .double): return constant
        case (.double, let .integer(i)), (.float, let .integer(i)): return .double(Double(i))
        case (.decimal, .decimal), (.decimal, .integer), (.decimal, .double):
            return .decimal(constant.decimalValue)
        case (.boolean, .bool): return constant
        case (.string, .string), (.date, .date), (.uuid, .uuid), (.uri, .uri), (.binaryData, .data): return constant
        default: return nil
        }
    }
}
