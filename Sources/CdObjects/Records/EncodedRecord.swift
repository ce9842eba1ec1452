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
//  ER3. An encoded record lives inside one fetch, while the snapshot that read it holds the
//       store's layout, which owns every `EntityLayout`: `entity` is therefore held without
//       reference counting (a scan makes one of these per record, and the count traffic was a
//       measurable share of a full scan).

import CdStore
import Foundation

/// One stored record, read lazily. Cheap to make: the bytes are shared, not copied.
struct EncodedRecord {
    let bytes: [UInt8]
    /// Held without counting (ER3).
    unowned(unsafe) let entity: EntityLayout
    /// Offset of the first field (ER2).
    let fields: Int
    let fieldCount: Int

    /// Parses the header: format version, entity code (checked against `layout`), field count.
    init(_ bytes: [UInt8], layout: StoreLayout) throws {
        let (code, count, fields) = try bytes.withUnsafeBufferPointer { buffer in
            var r = BorrowedRecordReader(buffer)
            let version = try r.u8()
            guard version == StoreLayout.formatVersion else {
                throw RecordDecodingError("unknown record format \(version)")
            }
            let code = try r.varint()
            guard code < UInt64(layout.byCode.count) else {
                throw RecordDecodingError("unknown entity code \(code)")
            }
            let count = try r.varint()
            // Each field takes at least two bytes (slot, tag): a larger count is damage.
            guard count <= UInt64(buffer.count) else { throw RecordDecodingError("field count \(count) overruns") }
            return (Int(code), Int(count), r.offset)
        }
        self.bytes = bytes
        self.entity = layout.byCode[code]
        self.fields = fields
        self.fieldCount = count
    }

    /// The offset of `slot`'s tag byte, or nil when the record omits it (a nil value). Keeps ER1.
    func tagOffset(of slot: Int) throws -> Int? {
        try bytes.withUnsafeBufferPointer { try tagOffset(of: slot, in: $0) }
    }

    private func tagOffset(of slot: Int, in buffer: UnsafeBufferPointer<UInt8>) throws -> Int? {
        let attributeCount = entity.attributes.count
        let slotCount = attributeCount + entity.toOnes.count
        var r = BorrowedRecordReader(buffer, offset: fields)
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
            try Self.skipField(&r, isToOne: current >= attributeCount, slot: current)
        }
        return nil
    }

    /// Steps over one field's tag and payload.
    private static func skipField(_ r: inout BorrowedRecordReader, isToOne: Bool, slot: Int) throws {
        guard let tag = RecordTag(rawValue: try r.u8()) else {
            throw RecordDecodingError("unknown tag at byte \(r.offset - 1)")
        }
        guard (tag == .object) == isToOne else {
            throw RecordDecodingError(
                isToOne ? "to-one slot \(slot) holds tag \(tag)" : "an object tag in an attribute slot")
        }
        switch tag {
        case .integer: _ = try r.varint()
        case .double, .date: try r.skip(8)
        case .decimal, .string, .data, .uri: _ = try r.lengthPrefixed()
        case .boolFalse, .boolTrue: break
        case .uuid: try r.skip(16)
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
        try bytes.withUnsafeBufferPointer { buffer in
            guard let offset = try tagOffset(of: slot, in: buffer) else { return nil }
            var r = BorrowedRecordReader(buffer, offset: offset)
            guard try r.u8() == RecordTag.integer.rawValue else { throw wrongTag(slot, buffer[offset]) }
            return try r.zigZag()
        }
    }

    /// A string attribute's UTF-8 bytes, in place (no `String` is made), passed to `body` with
    /// their range in `bytes`; `body` gets nil for an omitted field. The slot must be of string
    /// type; any other tag in it is damage.
    func withStringBytes<R>(
        ofAttribute slot: Int, _ body: (UnsafeBufferPointer<UInt8>?, Range<Int>) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            guard let offset = try tagOffset(of: slot, in: buffer) else { return try body(nil, 0..<0) }
            var r = BorrowedRecordReader(buffer, offset: offset)
            guard try r.u8() == RecordTag.string.rawValue else { throw wrongTag(slot, buffer[offset]) }
            let range = try r.lengthPrefixed()
            return try body(UnsafeBufferPointer(rebasing: buffer[range]), range)
        }
    }

    private func wrongTag(_ slot: Int, _ tag: UInt8) -> RecordDecodingError {
        let attribute = entity.attributes[slot]
        return RecordDecodingError("\(entity.name).\(attribute.name) holds tag \(tag), not a \(attribute.type.xmlName)")
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
        let target = layout.byCode[Int(targetCode)]
        guard entity.toOneTargets[index][target.code] else {
            let r = entity.toOnes[index]
            throw RecordDecodingError("\(entity.name).\(r.name) points at a \(target.name), not a \(r.destination)")
        }
        return target.objectID(Int64(bitPattern: pk))
    }

    /// The value of an attribute or to-one by name, as `ObjectSnapshot.values(of:)` gives it;
    /// nil for a name the entity does not store.
    func propertyValue(_ name: String, layout: StoreLayout) throws -> PropertyValue? {
        if let s = entity.attributeSlots[name] { return .attribute(try value(ofAttribute: s)) }
        if let s = entity.toOneSlots[name] { return .toOne(try toOne(s, layout: layout)) }
        return nil
    }
}
