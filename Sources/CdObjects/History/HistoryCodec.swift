// The bytes of the persistent history's entries (docs/FORMAT.md §History). All integers are
// little-endian or LEB128 varints, as in records (RecordBytes.swift).
//
// Header (part 0):
//   u8      version, 1
//   u64 LE  timestamp: bits of the double seconds since 2001-01-01 00:00:00 UTC
//   u8      flags: bit 0 an author follows, bit 1 a context name follows; other bits 0
//   [varint length + UTF-8 author] [varint length + UTF-8 context name]
//   varint  number of change parts k (HS2)
// Change part (1…k):
//   u8      version, 1
//   varint  number of names, then each name as varint length + UTF-8 (entity and property
//           names, each once per part)
//   varint  number of changes, then each change:
//             u8 kind (1 insert, 2 update, 3 delete), varint name index of the entity,
//             varint primary key, varint number of properties, a varint name index each;
//             a delete then has varint number of tombstone values, each a varint name index
//             and a value as in a record field (u8 tag + payload, FORMAT.md §Record; never nil)
//
// Decoding checks every length, index and tag and rejects trailing bytes: these come from disk.

import CdStore
import Foundation

/// One decoded change before it is resolved against a transaction's other parts.
struct HistoryPartChange {
    var objectID: ObjectID
    var kind: CdHistoryChangeKind
    var properties: [String]
    var tombstone: [String: CdValue]?
}

/// The decoded header of a transaction.
struct HistoryHeader: Equatable {
    var timestamp: Date
    var author: String?
    var contextName: String?
    var partCount: Int
}

/// Encodes and decodes history entries.
enum HistoryCodec {
    static let version: UInt8 = 1

    static func encodeHeader(_ h: HistoryHeader) -> [UInt8] {
        var out: [UInt8] = [version]
        out.appendLE(h.timestamp.timeIntervalSinceReferenceDate.bitPattern)
        out.append((h.author == nil ? 0 : 1) | (h.contextName == nil ? 0 : 2))
        if let a = h.author { out.appendLengthPrefixed(a.utf8) }
        if let c = h.contextName { out.appendLengthPrefixed(c.utf8) }
        out.appendVarint(UInt64(h.partCount))
        return out
    }

    static func decodeHeader(_ bytes: [UInt8]) throws -> HistoryHeader {
        var r = RecordReader(bytes)
        let v = try r.u8()
        guard v == version else { throw RecordDecodingError("history header version \(v), not \(version)") }
        let seconds = Double(bitPattern: try r.u64LE())
        guard seconds.isFinite else { throw RecordDecodingError("history timestamp is not a finite number") }
        let flags = try r.u8()
        guard flags & ~3 == 0 else { throw RecordDecodingError("history header flags \(flags) has unknown bits") }
        let author = flags & 1 != 0 ? String(decoding: try r.lengthPrefixed(), as: UTF8.self) : nil
        let context = flags & 2 != 0 ? String(decoding: try r.lengthPrefixed(), as: UTF8.self) : nil
        let parts = try r.varint()
        guard parts <= UInt64(UInt32.max) else { throw RecordDecodingError("history part count \(parts) too large") }
        guard r.isAtEnd else { throw RecordDecodingError("\(bytes.count - r.offset) trailing bytes in a header") }
        return HistoryHeader(
            timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: author, contextName: context,
            partCount: Int(parts))
    }

    /// Decodes a change part. `entityExists` tells whether a name is an entity the reader knows
    /// (HS3); `isProperty` whether a name is a property of an entity.
    static func decodePart(
        _ bytes: [UInt8], isProperty: (String, String) -> Bool, entityExists: (String) -> Bool
    ) throws -> [HistoryPartChange] {
        var r = RecordReader(bytes)
        let v = try r.u8()
        guard v == version else { throw RecordDecodingError("history part version \(v), not \(version)") }
        let nameCount = try r.varint()
        guard nameCount <= UInt64(bytes.count) else { throw RecordDecodingError("\(nameCount) names in a part") }
        var names: [String] = []
        names.reserveCapacity(Int(nameCount))
        for _ in 0..<nameCount { names.append(String(decoding: try r.lengthPrefixed(), as: UTF8.self)) }
        func name(_ r: inout RecordReader) throws -> String {
            let i = try r.varint()
            guard i < UInt64(names.count) else { throw RecordDecodingError("name index \(i) past \(names.count)") }
            return names[Int(i)]
        }
        let count = try r.varint()
        guard count <= UInt64(bytes.count) else { throw RecordDecodingError("\(count) changes in a part") }
        var changes: [HistoryPartChange] = []
        changes.reserveCapacity(Int(count))
        for _ in 0..<count {
            let rawKind = try r.u8()
            guard let kind = CdHistoryChangeKind(rawValue: rawKind) else {
                throw RecordDecodingError("unknown change kind \(rawKind)")
            }
            let entity = try name(&r)
            guard entityExists(entity) else { throw RecordDecodingError("entity \(entity) is not in the model") }
            let key = Int64(bitPattern: try r.varint())
            guard key > 0 else { throw RecordDecodingError("primary key \(key) of \(entity)") }
            let propertyCount = try r.varint()
            guard propertyCount <= UInt64(bytes.count) else { throw RecordDecodingError("\(propertyCount) properties") }
            var properties: [String] = []
            for _ in 0..<propertyCount {
                let p = try name(&r)
                guard isProperty(entity, p) else { throw RecordDecodingError("\(p) is not a property of \(entity)") }
                properties.append(p)
            }
            var tombstone: [String: CdValue]?
            if kind == .delete {
                var values: [String: CdValue] = [:]
                let n = try r.varint()
                guard n <= UInt64(bytes.count) else { throw RecordDecodingError("\(n) tombstone values") }
                for _ in 0..<n {
                    let p = try name(&r)
                    guard isProperty(entity, p) else {
                        throw RecordDecodingError("\(p) is not a property of \(entity)")
                    }
                    let rawTag = try r.u8()
                    guard let tag = RecordTag(rawValue: rawTag), tag != .object else {
                        throw RecordDecodingError("tombstone value tag \(rawTag)")
                    }
                    values[p] = try RecordCodec.decodeValue(tag, &r)
                }
                tombstone = values
            }
            changes.append(
                HistoryPartChange(
                    objectID: ObjectID(entity: entity, primaryKey: key), kind: kind, properties: properties,
                    tombstone: tombstone))
        }
        guard r.isAtEnd else { throw RecordDecodingError("\(bytes.count - r.offset) trailing bytes in a part") }
        return changes
    }
}
