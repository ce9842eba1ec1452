// Lazy reads of one encoded record (the format is in Record.swift): the header is parsed once, and
// a field is found by walking the field headers and skipping payloads, so a reader that needs two
// fields of a ten-field record decodes two values and copies nothing else. Compiled predicates,
// sort keys and projections read through it; materialising a whole object still goes through
// `RecordCodec.decode`, which checks every field.
//
// Invariants:
//  ER1. Every byte a read steps over is checked as `RecordCodec.decode` checks it: slots strictly
//       increasing and below the entity's slot count, known tags, payloads inside the value, an
//       object tag exactly in to-one slots. A value that is returned is checked against its
//       slot's type (attributes) or the to-one's targets. Damage is a `RecordDecodingError`, never
//       a read past the bytes; fields after the one asked for are not read.
//  ER2. `fields` is the offset of the first field header; `fieldCount` fields follow it.

import CdStore
import Foundation

/// One stored record, read lazily. Cheap to make: the bytes are shared, not copied.
struct EncodedRecord {
    let bytes: [UInt8]
    let entity: EntityLayout
    /// Offset of the first field (ER2).
    let fields: Int
    let fieldCount: Int

    /// Parses the header: format version, entity code (checked against `layout`), field count.
    init(_ bytes: [UInt8], layout: StoreLayout) throws {
        var r = RecordReader(bytes)
        let version = try r.u8()
        guard version == StoreLayout.formatVersion else {
            throw RecordDecodingError("unknown record format \(version)")
        }
        let code = try r.varint()
        guard code < UInt64(layout.byCode.count) else { throw RecordDecodingError("unknown entity code \(code)") }
        let count = try r.varint()
        // Each field takes at least two bytes (slot, tag): a larger count is damage.
        guard count <= UInt64(bytes.count) else { throw RecordDecodingError("field count \(count) overruns") }
        self.bytes = bytes
        self.entity = layout.byCode[Int(code)]
        self.fields = r.offset
        self.fieldCount = Int(count)
    }

    /// The slot count of the entity: attributes, then to-ones.
    private var slotCount: Int { entity.attributes.count + entity.toOnes.count }

    /// The offset of `slot`'s tag byte, or nil when the record omits it (a nil value). Keeps ER1.
    func tagOffset(of slot: Int) throws -> Int? {
        var r = RecordReader(bytes, offset: fields)
        var previous = -1
        for _ in 0..<fieldCount {
            let slotValue = try r.varint()
            guard slotValue < UInt64(slotCount), Int(slotValue) > previous else {
                throw RecordDecodingError(
                    "field slot \(slotValue) is out of order or past \(entity.name)'s \(slotCount) slots")
            }
            let current = Int(slotValue)
            if current > slot { return nil }
            if current == slot { return r.offset }
            previous = current
            try Self.skipField(&r, isToOne: current >= entity.attributes.count, slot: current)
        }
        return nil
    }

    /// Steps over one field's tag and payload.
    private static func skipField(_ r: inout RecordReader, isToOne: Bool, slot: Int) throws {
        guard let tag = RecordTag(rawValue: try r.u8()) else {
            throw RecordDecodingError("unknown tag at byte \(r.offset - 1)")
        }
        guard (tag == .object) == isToOne else {
            throw RecordDecodingError(
                isToOne ? "to-one slot \(slot) holds tag \(tag)" : "an object tag in an attribute slot")
        }
        switch tag {
        case .integer: _ = try r.varint()
        case .double, .date: _ = try r.slice(8)
        case .decimal, .string, .data, .uri: _ = try r.lengthPrefixed()
        case .boolFalse, .boolTrue: break
        case .uuid: _ = try r.slice(16)
        case .object:
            _ = try r.varint()
            _ = try r.varint()
        }
    }

    /// The value of an attribute slot (`.null` when omitted), checked against the slot's type.
    func value(ofAttribute slot: Int) throws -> CdValue {
        guard let offset = try tagOffset(of: slot) else { return .null }
        var r = RecordReader(bytes, offset: offset)
        guard let tag = RecordTag(rawValue: try r.u8()) else {
            throw RecordDecodingError("unknown tag at byte \(offset)")
        }
        let value = try RecordCodec.decodeValue(tag, &r)
        let attribute = entity.attributes[slot]
        guard attribute.type.accepts(value) else {
            throw RecordDecodingError(
                "\(entity.name).\(attribute.name) holds \(value), not a \(attribute.type.xmlName)")
        }
        return value
    }

    /// An integer attribute's value without making a `CdValue`: nil for an omitted field.
    /// The slot must be of an integer type; any other tag in it is damage.
    func integer(ofAttribute slot: Int) throws -> Int64? {
        guard let offset = try tagOffset(of: slot) else { return nil }
        var r = RecordReader(bytes, offset: offset)
        guard try r.u8() == RecordTag.integer.rawValue else {
            let attribute = entity.attributes[slot]
            throw RecordDecodingError(
                "\(entity.name).\(attribute.name) holds tag \(bytes[offset]), not a \(attribute.type.xmlName)")
        }
        return try r.zigZag()
    }

    /// A string attribute's UTF-8 bytes, in place (no `String` is made): nil for an omitted
    /// field. The slot must be of string type; any other tag in it is damage.
    func stringBytes(ofAttribute slot: Int) throws -> Range<Int>? {
        guard let offset = try tagOffset(of: slot) else { return nil }
        var r = RecordReader(bytes, offset: offset)
        guard try r.u8() == RecordTag.string.rawValue else {
            let attribute = entity.attributes[slot]
            throw RecordDecodingError(
                "\(entity.name).\(attribute.name) holds tag \(bytes[offset]), not a \(attribute.type.xmlName)")
        }
        let payload = try r.lengthPrefixed()
        return payload.startIndex..<payload.endIndex
    }

    /// The target of the to-one at `index` in `entity.toOnes` (nil when unset), checked like
    /// `RecordCodec.decode` checks it.
    func toOne(_ index: Int, layout: StoreLayout) throws -> ObjectID? {
        let slot = entity.attributes.count + index
        guard let offset = try tagOffset(of: slot) else { return nil }
        var r = RecordReader(bytes, offset: offset)
        guard try r.u8() == RecordTag.object.rawValue else {
            throw RecordDecodingError("to-one slot \(slot) holds tag \(bytes[offset])")
        }
        let targetCode = try r.varint()
        let pk = try r.varint()
        guard targetCode < UInt64(layout.byCode.count) else {
            throw RecordDecodingError("unknown target entity code \(targetCode)")
        }
        let target = layout.byCode[Int(targetCode)].name
        guard entity.toOneTargets[index].contains(target) else {
            let r = entity.toOnes[index]
            throw RecordDecodingError("\(entity.name).\(r.name) points at a \(target), not a \(r.destination)")
        }
        return ObjectID(entity: target, primaryKey: Int64(bitPattern: pk))
    }

    /// The value of an attribute or to-one by name, as `ObjectSnapshot.values(of:)` gives it;
    /// nil for a name the entity does not store.
    func propertyValue(_ name: String, layout: StoreLayout) throws -> PropertyValue? {
        if let s = entity.attributeSlots[name] { return .attribute(try value(ofAttribute: s)) }
        if let s = entity.toOneSlots[name] { return .toOne(try toOne(s, layout: layout)) }
        return nil
    }
}
