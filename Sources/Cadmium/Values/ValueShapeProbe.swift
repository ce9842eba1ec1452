// The Codable shape of a value type, found without an instance: the type's Decodable conformance
// is run against a probing decoder that records every key with the Swift type asked for and
// whether it was optional (`decodeIfPresent`), and hands back placeholder values — zero, the
// empty string, an empty array, a probed nested value, an enum's first case.

import Foundation
import CdObjects

/// One property of a value type.
struct ValueProperty {
    let name: String
    let type: Any.Type
    let isOptional: Bool
}

enum ValueShapeProbe {
    /// The properties of `type`, in the order its conformance decodes them.
    static func properties(of type: any CdManagedStruct.Type) throws -> [ValueProperty] {
        let decoder = ProbingDecoder(structName: String(describing: type), entity: type.entityName)
        do {
            _ = try type.init(from: decoder)
        } catch let error as CdValueError {
            throw error
        } catch {
            throw CdValueError(
                .unsupportedShape, structName: String(describing: type), entity: type.entityName,
                message: "its Decodable conformance failed on placeholder values: \(error)")
        }
        return decoder.recorded
    }

    /// A placeholder value of `type`.
    static func placeholder<T: Decodable>(_ type: T.Type, _ decoder: ProbingDecoder) throws -> T {
        if let value = ValueTypes.swiftValue(type, from: .integer(0)) { return value }
        if let value = ValueTypes.swiftValue(type, from: .string("")) { return value }
        if let attribute = type as? any CdAttributeValue.Type, let value = attribute.cdEmptyValue as? T {
            return value
        }
        if let cases = type as? any CaseIterable.Type, let first = firstCase(cases) as? T { return first }
        if let raw = type as? any RawRepresentable.Type, let value = zeroCase(raw) as? T { return value }
        return try T(from: ProbingDecoder(structName: decoder.structName, entity: decoder.entity, recording: false))
    }

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }

    /// The case whose bit pattern is all zeros of a payload-free enum (its first case), checked by
    /// a round trip through its raw value.
    private static func zeroCase<R: RawRepresentable>(_ type: R.Type) -> R? {
        guard _isPOD(R.self), MemoryLayout<R>.size <= 4 else { return nil }
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        defer { bytes.deallocate() }
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: 8)
        let candidate = bytes.load(as: R.self)
        guard let back = R(rawValue: candidate.rawValue),
            ValueTypes.storeValue(of: back) == ValueTypes.storeValue(of: candidate)
        else { return nil }
        return candidate
    }
}

/// The probing decoder (top level, keyed).
final class ProbingDecoder: Decoder {
    let structName: String
    let entity: String
    let recording: Bool
    var recorded: [ValueProperty] = []
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(structName: String, entity: String, recording: Bool = true) {
        self.structName = structName
        self.entity = entity
        self.recording = recording
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if recording { throw rejection }
        return EmptyUnkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if recording { throw rejection }
        return PlaceholderSingleValueContainer(decoder: self)
    }

    var rejection: CdValueError {
        CdValueError(
            .unsupportedShape, structName: structName, entity: entity,
            message: "its Decodable conformance must read one keyed container of the entity's property names "
                + "(the synthesised conformance does).")
    }

    func value<T: Decodable>(_ type: T.Type, _ key: String, optional: Bool) throws -> T? {
        if recording { recorded.append(ValueProperty(name: key, type: type, isOptional: optional)) }
        if optional { return nil }
        if recording, type is any CdManagedStructArray.Type {
            return try T(from: ProbingDecoder(structName: structName, entity: entity, recording: false))
        }
        return try ValueShapeProbe.placeholder(type, self)
    }
}

/// The probing decoder's keyed container: every read is recorded and answered with a placeholder.
struct ProbingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbingDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = try decoder.value(type, key.stringValue, optional: false) else { throw decoder.rejection }
        return value
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try decoder.value(type, key.stringValue, optional: true)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(Box<Bool>.self, key).value }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(Box<String>.self, key).value }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(Box<Double>.self, key).value }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(Box<Float>.self, key).value }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(Box<Int>.self, key).value }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(Box<Int8>.self, key).value }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(Box<Int16>.self, key).value }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(Box<Int32>.self, key).value }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(Box<Int64>.self, key).value }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(Box<UInt>.self, key).value }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(Box<UInt8>.self, key).value }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(Box<UInt16>.self, key).value }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(Box<UInt32>.self, key).value }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(Box<UInt64>.self, key).value }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }

    /// The concrete overloads go through the generic path with the Swift type they name.
    private func decode<T>(_ box: Box<T>.Type, _ key: Key) throws -> Box<T> where T: Decodable {
        Box(value: try decode(T.self, forKey: key))
    }
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decoder.value(type, key.stringValue, optional: true)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw decoder.rejection
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw decoder.rejection }
    func superDecoder() throws -> any Decoder { throw decoder.rejection }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.rejection }
}

/// A value passed through a generic call.
struct Box<T> {
    let value: T
}

/// An empty unkeyed container: the placeholder of any collection.
struct EmptyUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    private var end: DecodingError {
        .valueNotFound(Any.self, .init(codingPath: [], debugDescription: "a placeholder collection is empty"))
    }
    mutating func decodeNil() throws -> Bool { throw end }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end }
    mutating func decode(_ type: Bool.Type) throws -> Bool { throw end }
    mutating func decode(_ type: String.Type) throws -> String { throw end }
    mutating func decode(_ type: Double.Type) throws -> Double { throw end }
    mutating func decode(_ type: Float.Type) throws -> Float { throw end }
    mutating func decode(_ type: Int.Type) throws -> Int { throw end }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { throw end }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { throw end }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { throw end }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { throw end }
    mutating func decode(_ type: UInt.Type) throws -> UInt { throw end }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { throw end }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { throw end }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { throw end }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { throw end }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> { throw end }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end }
    mutating func superDecoder() throws -> any Decoder { throw end }
}

/// A single-value container answering every read with a placeholder (nested transformable types).
struct PlaceholderSingleValueContainer: SingleValueDecodingContainer {
    let decoder: ProbingDecoder
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try ValueShapeProbe.placeholder(type, decoder) }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode(_ type: Float.Type) throws -> Float { 0 }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt.Type) throws -> UInt { 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
}
