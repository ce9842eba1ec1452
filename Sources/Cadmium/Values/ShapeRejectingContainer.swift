// The encoding containers handed out when a value's Encodable conformance asks for a shape that
// cannot map onto an entity (a top level that is not keyed, a nested container): every write
// throws the rejection, so the value is refused before anything is written. (Decoders can throw
// when asked for such a container, so decoding needs no counterpart.)

import Foundation

/// An unkeyed or single-value encoding container that throws `rejection` at every write.
struct ShapeRejectingContainer {
    let rejection: CdValueError
    var codingPath: [any CodingKey] = []
}

extension ShapeRejectingContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    var count: Int { 0 }
    mutating func encodeNil() throws { throw rejection }
    mutating func encode(_ value: Bool) throws { throw rejection }
    mutating func encode(_ value: String) throws { throw rejection }
    mutating func encode(_ value: Double) throws { throw rejection }
    mutating func encode(_ value: Float) throws { throw rejection }
    mutating func encode(_ value: Int) throws { throw rejection }
    mutating func encode(_ value: Int8) throws { throw rejection }
    mutating func encode(_ value: Int16) throws { throw rejection }
    mutating func encode(_ value: Int32) throws { throw rejection }
    mutating func encode(_ value: Int64) throws { throw rejection }
    mutating func encode(_ value: UInt) throws { throw rejection }
    mutating func encode(_ value: UInt8) throws { throw rejection }
    mutating func encode(_ value: UInt16) throws { throw rejection }
    mutating func encode(_ value: UInt32) throws { throw rejection }
    mutating func encode(_ value: UInt64) throws { throw rejection }
    mutating func encode<T: Encodable>(_ value: T) throws { throw rejection }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RejectingKeyedContainer<NestedKey>(rejection: rejection))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { RejectingCoder(rejection: rejection) }
}

/// A keyed encoding container that throws `rejection` at every write.
struct RejectingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let rejection: CdValueError
    var codingPath: [any CodingKey] = []
    mutating func encodeNil(forKey key: Key) throws { throw rejection }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw rejection }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RejectingKeyedContainer<NestedKey>(rejection: rejection))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ShapeRejectingContainer(rejection: rejection)
    }
    mutating func superEncoder() -> any Encoder { RejectingCoder(rejection: rejection) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RejectingCoder(rejection: rejection) }
}

/// An encoder whose containers all throw `rejection`.
struct RejectingCoder: Encoder {
    let rejection: CdValueError
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RejectingKeyedContainer<Key>(rejection: rejection))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { ShapeRejectingContainer(rejection: rejection) }
    func singleValueContainer() -> any SingleValueEncodingContainer { ShapeRejectingContainer(rejection: rejection) }
}
