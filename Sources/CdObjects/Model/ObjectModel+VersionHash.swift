// The model version hash: SHA-256 of a canonical byte encoding of the model's *stored shape*.
// Two models with the same hash lay out records, relationships, constraints and indexes the
// same way, so a store written with one can be opened with the other. docs/MODEL.md §Version
// hash describes the encoding byte by byte; `versionHashEncodesDocumentedBytes` keeps the doc
// and this file in step.
//
// In the shape: entity names and parents; non-transient attributes (name, NSAttributeType raw
// value, optional, indexed); non-transient relationships (name, destination, to-many, ordered);
// uniqueness constraints; fetch indexes. Not in it: transient properties, default values,
// validation rules, userInfo, class names, abstract flags, renaming identifiers, transformer
// names, delete rules, inverse names, count bounds.
//
// Canonical order: entities, attributes, relationships and fetch indexes sorted by the bytes of
// their UTF-8 names; constraints sorted by their property lists (each list kept as declared).
// No `hashValue`, no dictionary iteration: the bytes are the same on every run and machine.

import CdStore

extension ObjectModel {
    /// The version hash: 64 lower-case hex digits of SHA-256 over ``storedShapeEncoding``.
    ///
    /// ```swift
    /// if storeHeader.modelHash != model.versionHash {
    ///     throw CdError.incompatibleModel(storeVersionHash: storeHeader.modelHash,
    ///                                     modelVersionHash: model.versionHash,
    ///                                     difference: model.firstStoredShapeDifference(from: storeModel))
    /// }
    /// ```
    public var versionHash: String { SHA256.hex(SHA256.digest(storedShapeEncoding)) }

    /// The canonical bytes the version hash digests (format in docs/MODEL.md).
    public var storedShapeEncoding: [UInt8] {
        var out: [UInt8] = Array("CDMV".utf8)
        out.append(StoredShape.encodingVersion)
        let shape = StoredShape(self)
        out.appendCount(shape.entities.count)
        for e in shape.entities {
            out.appendString(e.name)
            if let parent = e.parent { out.append(1); out.appendString(parent) } else { out.append(0) }
            out.appendCount(e.attributes.count)
            for a in e.attributes {
                out.appendString(a.name)
                out.appendLE(a.typeTag)
                out.append(a.isOptional ? 1 : 0)
                out.append(a.isIndexed ? 1 : 0)
            }
            out.appendCount(e.relationships.count)
            for r in e.relationships {
                out.appendString(r.name)
                out.appendString(r.destination)
                out.append(r.isToMany ? 1 : 0)
                out.append(r.isOrdered ? 1 : 0)
            }
            out.appendCount(e.constraints.count)
            for c in e.constraints {
                out.appendCount(c.count)
                for property in c { out.appendString(property) }
            }
            out.appendCount(e.indexes.count)
            for index in e.indexes {
                out.appendString(index.name)
                out.appendCount(index.elements.count)
                for element in index.elements {
                    out.appendString(element.property)
                    out.append(element.isAscending ? 1 : 0)
                    out.append(element.kind.rawValue)
                }
            }
        }
        return out
    }
}

/// The stored shape of a model in canonical order: what the version hash digests and what
/// `firstStoredShapeDifference` compares, so the two always agree.
struct StoredShape: Equatable {
    /// Version of the byte encoding; bump it (and the golden hashes) on any change.
    static let encodingVersion: UInt8 = 1

    struct Attribute: Equatable {
        var name: String
        var typeTag: UInt16
        var typeName: String
        var isOptional: Bool
        var isIndexed: Bool
    }

    struct Relationship: Equatable {
        var name: String
        var destination: String
        var isToMany: Bool
        var isOrdered: Bool
    }

    struct Entity: Equatable {
        var name: String
        var parent: String?
        var attributes: [Attribute]
        var relationships: [Relationship]
        var constraints: [[String]]
        var indexes: [FetchIndexDescription]
    }

    var entities: [Entity]

    init(_ model: ObjectModel) {
        entities = model.entities.sorted { byteOrder($0.name, $1.name) }.map { e in
            Entity(
                name: e.name,
                parent: e.parent,
                attributes: e.attributes.filter { !$0.isTransient }.sorted { byteOrder($0.name, $1.name) }.map {
                    Attribute(
                        name: $0.name, typeTag: $0.type.coreDataRawValue, typeName: $0.type.xmlName,
                        isOptional: $0.isOptional, isIndexed: $0.isIndexed)
                },
                relationships: e.relationships.filter { !$0.isTransient }.sorted { byteOrder($0.name, $1.name) }.map {
                    Relationship(
                        name: $0.name, destination: $0.destination, isToMany: $0.isToMany,
                        isOrdered: $0.isToMany && $0.isOrdered)
                },
                constraints: e.uniquenessConstraints.sorted { a, b in
                    a.lexicographicallyPrecedes(b, by: byteOrder)
                },
                indexes: e.fetchIndexes.sorted { byteOrder($0.name, $1.name) })
        }
    }
}

/// Orders strings by their UTF-8 bytes (not by Swift's Unicode-aware `<`), so the order is the
/// same for every Swift version and platform.
func byteOrder(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
}

extension [UInt8] {
    /// A count as the hash input's little-endian UInt32.
    mutating func appendCount(_ n: Int) { appendLE(UInt32(n)) }

    /// A string as its UTF-8 length (UInt32) and bytes.
    mutating func appendString(_ s: String) {
        appendCount(s.utf8.count)
        append(contentsOf: s.utf8)
    }
}
