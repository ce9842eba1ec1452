// A decoded record: the stored state of one object (attributes and to-one targets). To-many
// relationships live in their own trees and are not part of a record.
//
// Record value (docs/FORMAT.md §Record):
//   u8      format version (1)
//   varint  entity code (EL1 in EntityLayout.swift)
//   varint  number of fields that follow (nil values are omitted)
//   fields  varint slot, u8 tag, payload — slots strictly increasing
//
// Tags (frozen): 1 integer (zig-zag varint), 2 double (u64 LE bits), 3 decimal (length-prefixed
// UTF-8 of its description), 4 string (length-prefixed UTF-8), 5 false, 6 true, 7 date (u64 LE
// bits of seconds since 2001-01-01), 8 data (length-prefixed), 9 UUID (16 bytes), 10 URI
// (length-prefixed UTF-8 absolute string), 11 object (varint entity code, varint primary key).

import CdStore
import Foundation

/// The stored state of one object.
struct Record: Sendable {
    let entity: EntityLayout
    /// One value per attribute slot (`.null` for nil).
    var values: [CdValue]
    /// One target per stored to-one relationship (`EntityLayout.toOnes`).
    var toOne: [ObjectID?]

    /// A record holding the entity's defaults and no relationships.
    init(defaultsOf entity: EntityLayout) {
        self.entity = entity
        values = entity.defaults
        toOne = Array(repeating: nil, count: entity.toOnes.count)
    }

    init(entity: EntityLayout, values: [CdValue], toOne: [ObjectID?]) {
        self.entity = entity
        self.values = values
        self.toOne = toOne
    }

    /// The value of an attribute or to-one relationship by name, for messages and rows.
    func value(of property: String) -> PropertyValue? {
        if let s = entity.attributeSlots[property] { return .attribute(values[s]) }
        if let s = entity.toOneSlots[property] { return .toOne(toOne[s]) }
        return nil
    }
}

/// Frozen type tags of record fields.
enum RecordTag: UInt8 {
    case integer = 1, double = 2, decimal = 3, string = 4, boolFalse = 5, boolTrue = 6
    case date = 7, data = 8, uuid = 9, uri = 10, object = 11
}

/// Encodes and decodes record values.
enum RecordCodec {
    /// The primary key as a record-tree key: u64 big-endian, so key order is key order.
    @inline(__always)
    static func key(_ primaryKey: Int64) -> [UInt8] {
        var k: [UInt8] = []
        k.reserveCapacity(8)
        k.appendBE(UInt64(bitPattern: primaryKey))
        return k
    }

    static func encode(_ record: Record, layout: StoreLayout) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + record.values.count * 10)
        out.append(StoreLayout.formatVersion)
        out.appendVarint(UInt64(record.entity.code))
        var count = 0
        for v in record.values where !v.isNull { count += 1 }
        for t in record.toOne where t != nil { count += 1 }
        out.appendVarint(UInt64(count))
        for (slot, v) in record.values.enumerated() where !v.isNull {
            out.appendVarint(UInt64(slot))
            appendValue(v, to: &out)
        }
        let base = record.entity.attributes.count
        for (i, t) in record.toOne.enumerated() {
            guard let t else { continue }
            out.appendVarint(UInt64(base + i))
            out.append(RecordTag.object.rawValue)
            out.appendVarint(UInt64(layout.entity(of: t)?.code ?? 0))
            out.appendVarint(UInt64(bitPattern: t.primaryKey))
        }
        return out
    }

    @inline(__always)
    static func appendValue(_ v: CdValue, to out: inout [UInt8]) {
        switch v {
        case .null: preconditionFailure("nil values are omitted from records")
        case let .integer(i): out.append(RecordTag.integer.rawValue); out.appendZigZag(i)
        case let .double(d): out.append(RecordTag.double.rawValue); out.appendLE(d.bitPattern)
        case let .decimal(d):
            out.append(RecordTag.decimal.rawValue); out.appendLengthPrefixed(Array(d.description.utf8))
        case let .string(s): out.append(RecordTag.string.rawValue); out.appendLengthPrefixed(s.utf8)
        case let .bool(b): out.append(b ? RecordTag.boolTrue.rawValue : RecordTag.boolFalse.rawValue)
        case let .date(d):
            out.append(RecordTag.date.rawValue); out.appendLE(d.timeIntervalSinceReferenceDate.bitPattern)
        case let .data(d): out.append(RecordTag.data.rawValue); out.appendLengthPrefixed(d)
        case let .uuid(u):
            out.append(RecordTag.uuid.rawValue)
            withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        case let .uri(u): out.append(RecordTag.uri.rawValue); out.appendLengthPrefixed(u.absoluteString.utf8)
        }
    }

    /// The entity code of a record without decoding the fields.
    static func entityCode(_ bytes: [UInt8]) throws -> Int {
        var r = RecordReader(bytes)
        let version = try r.u8()
        guard version == StoreLayout.formatVersion else {
            throw RecordDecodingError("unknown record format \(version)")
        }
        let code = try r.varint()
        guard let entityCode = Int(exactly: code) else { throw RecordDecodingError("unknown entity code \(code)") }
        return entityCode
    }

    /// Decodes a record, checking the entity code, slots, tags and that each value fits its slot.
    static func decode(_ bytes: [UInt8], layout: StoreLayout) throws -> Record {
        var r = RecordReader(bytes)
        let version = try r.u8()
        guard version == StoreLayout.formatVersion else {
            throw RecordDecodingError("unknown record format \(version)")
        }
        let code = try r.varint()
        guard code < UInt64(layout.byCode.count) else { throw RecordDecodingError("unknown entity code \(code)") }
        let entity = layout.byCode[Int(code)]
        var record = Record(
            entity: entity, values: Array(repeating: .null, count: entity.attributes.count),
            toOne: Array(repeating: nil, count: entity.toOnes.count))
        let count = try r.varint()
        let base = entity.attributes.count
        var previous = -1
        for _ in 0..<count {
            let slotValue = try r.varint()
            guard slotValue < UInt64(base + entity.toOnes.count), Int(slotValue) > previous else {
                throw RecordDecodingError(
                    "field slot \(slotValue) is out of order "
                        + "or past \(entity.name)'s \(base + entity.toOnes.count) slots"
                )
            }
            let slot = Int(slotValue)
            previous = slot
            guard let tag = RecordTag(rawValue: try r.u8()) else {
                throw RecordDecodingError("unknown tag at byte \(r.offset - 1)")
            }
            if slot >= base {
                guard tag == .object else { throw RecordDecodingError("to-one slot \(slot) holds tag \(tag)") }
                let targetCode = try r.varint()
                let pk = try r.varint()
                guard targetCode < UInt64(layout.byCode.count) else {
                    throw RecordDecodingError("unknown target entity code \(targetCode)")
                }
                let target = layout.byCode[Int(targetCode)]
                // The applier follows targets to their inverses: one of another entity has none.
                guard entity.toOneTargets[slot - base][target.code] else {
                    let r = entity.toOnes[slot - base]
                    throw RecordDecodingError(
                        "\(entity.name).\(r.name) points at a \(target.name), not a \(r.destination)")
                }
                record.toOne[slot - base] = target.objectID(Int64(bitPattern: pk))
            } else {
                let value = try decodeValue(tag, &r)
                guard entity.attributes[slot].type.accepts(value) else {
                    throw RecordDecodingError(
                        "\(entity.name).\(entity.attributes[slot].name) holds \(value), "
                            + "not a \(entity.attributes[slot].type.xmlName)"
                    )
                }
                record.values[slot] = value
            }
        }
        guard r.isAtEnd else { throw RecordDecodingError("\(bytes.count - r.offset) trailing bytes") }
        return record
    }

    @inline(__always)
    static func decodeValue(_ tag: RecordTag, _ r: inout RecordReader) throws -> CdValue {
        switch tag {
        case .integer: return .integer(try r.zigZag())
        case .double: return .double(Double(bitPattern: try r.u64LE()))
        case .decimal:
            let text = String(decoding: try r.lengthPrefixed(), as: UTF8.self)
            // `Decimal.nan.description` is "NaN", which `Decimal(string:)` does not parse.
            if text == "NaN" { return .decimal(.nan) }
            guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw RecordDecodingError("bad decimal \(text)")
            }
            return .decimal(d)
        case .string: return .string(String(decoding: try r.lengthPrefixed(), as: UTF8.self))
        case .boolFalse: return .bool(false)
        case .boolTrue: return .bool(true)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try r.u64LE())))
        case .data: return .data(Data(try r.lengthPrefixed()))
        case .uuid:
            let b = Array(try r.slice(16))
            return .uuid(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case .uri:
            let text = String(decoding: try r.lengthPrefixed(), as: UTF8.self)
            guard let u = URL(string: text) else { throw RecordDecodingError("bad URI \(text)") }
            return .uri(u)
        case .object: throw RecordDecodingError("an object tag in an attribute slot")
        }
    }
}
