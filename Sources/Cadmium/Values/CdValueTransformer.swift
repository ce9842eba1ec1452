// Core Data's Transformable attribute, through named Codable transformers: a transformable
// attribute's `transformerName` picks the transformer that turns a Codable Swift value into the
// bytes the store keeps and back. `CdJSONTransformer` is registered under
// `CdValueTransformers.jsonName` and also serves a transformable attribute with no name (Core
// Data's default, the secure unarchiver, has no Linux counterpart). Apps register their own
// under their own names.
//
// Invariants:
//   CV1. A name maps to one transformer at a time; registering a name again replaces it. The
//        registry is read and written under one lock, so lookups from any thread are safe.

import Foundation
import CdStore

/// Turns Codable values into the bytes of a transformable attribute and back.
///
/// ```swift
/// struct PlistTransformer: CdValueTransformer {
///     func data(from value: any Encodable) throws -> Data { try PropertyListEncoder().encode(value) }
///     func value<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
///         try PropertyListDecoder().decode(type, from: data)
///     }
/// }
/// CdValueTransformers.register(PlistTransformer(), name: "Plist")
/// ```
public protocol CdValueTransformer: Sendable {
    /// The stored bytes of `value`.
    func data(from value: any Encodable) throws -> Data
    /// The value of type `type` that `data` holds.
    func value<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

/// The default transformer: JSON, with keys sorted so that equal values give equal bytes.
public struct CdJSONTransformer: CdValueTransformer {
    public init() {}

    public func data(from value: any Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    public func value<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}

/// The registry of named transformers.
public enum CdValueTransformers {
    /// The name of the built-in JSON transformer, which models derived from structs use.
    public static let jsonName = "CdJSONTransformer"

    /// Keeps CV1.
    private static let registry = LockedState<[String: any CdValueTransformer]>([jsonName: CdJSONTransformer()])

    /// Registers `transformer` under `name`, replacing any transformer of that name (keeps CV1).
    public static func register(_ transformer: any CdValueTransformer, name: String) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`; nil names the default JSON transformer.
    public static func transformer(named name: String?) -> (any CdValueTransformer)? {
        registry.withLock { $0[name ?? jsonName] }
    }
}
