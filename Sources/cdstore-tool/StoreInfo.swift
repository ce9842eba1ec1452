import CdObjects
import CdStore
import Foundation

// What `cdstore info` reports, and its JSON schema (docs/CDSTORE.md, "info"): one document with
// sorted keys. Object counts are of each entity's own objects (not its sub-entities'), so they
// add up to the store's objects.

/// The report of `cdstore info`.
struct StoreInfo: Codable, Equatable {
    struct Attribute: Codable, Equatable {
        var name: String
        var type: String
        var optional: Bool
        var indexed: Bool
    }

    struct Relationship: Codable, Equatable {
        var name: String
        var destination: String
        var toMany: Bool
        var ordered: Bool
        var inverse: String?
        var deleteRule: String
    }

    struct Index: Codable, Equatable {
        var name: String
        /// Property names, `-` in front of a descending one.
        var elements: [String]
    }

    struct Entity: Codable, Equatable {
        var name: String
        var parent: String?
        var abstract: Bool
        var objects: Int
        var attributes: [Attribute]
        var relationships: [Relationship]
        var indexes: [Index]
        var uniquenessConstraints: [[String]]
    }

    var path: String
    /// The page file's format version (its header), nil when the header cannot be read.
    var formatVersion: UInt32?
    /// The object layer's format version (`cd.meta` key `format`).
    var objectFormatVersion: UInt32?
    var pageSize: Int
    var pageFileBytes: UInt64
    var walBytes: UInt64
    var modelVersionHash: String
    /// The page file as of its last checkpoint (the verifier's summary; nil when it cannot say):
    /// bytes of page contents, bytes of their stored (compressed) images, and their ratio.
    var logicalBytes: UInt64?
    var storedBytes: UInt64?
    var compressionRatio: Double?
    /// Bytes of the page file not used by any page image, map or directory, plus the file's
    /// unused tail: what `compact` could give back.
    var freeBytes: UInt64?
    /// Whether the store records persistent history, and what it keeps: the number of
    /// transactions, the first and last token (`STOREID#N`), and the pages of its tree.
    var historyTracked: Bool
    var historyTransactions: Int?
    var historyFirstToken: String?
    var historyLastToken: String?
    var historyPages: Int?
    var entities: [Entity]

    /// Reads the report of the open store.
    static func read(_ session: StoreSession) throws -> StoreInfo {
        let model = session.model
        let counts = try session.store.read { snapshot in
            try model.entities.map { entity -> Int in
                var request = FetchRequest(entity: entity.name)
                request.includesSubentities = false
                return try snapshot.count(request)
            }
        }
        let entities = zip(model.entities, counts).map { entity, count in
            Entity(
                name: entity.name, parent: entity.parent, abstract: entity.isAbstract, objects: count,
                attributes: entity.attributes.filter { !$0.isTransient }.map {
                    Attribute(name: $0.name, type: $0.type.xmlName, optional: $0.isOptional, indexed: $0.isIndexed)
                },
                relationships: entity.relationships.filter { !$0.isTransient }.map {
                    Relationship(
                        name: $0.name, destination: $0.destination, toMany: $0.isToMany, ordered: $0.isOrdered,
                        inverse: $0.inverse, deleteRule: $0.deleteRule.xmlName)
                },
                indexes: entity.fetchIndexes.map { index in
                    Index(name: index.name, elements: index.elements.map { ($0.isAscending ? "" : "-") + $0.property })
                },
                uniquenessConstraints: entity.uniquenessConstraints)
        }
        // The page file's space, as the verifier measures it: one read of every page image.
        let summary = (try? StoreVerifier.verify(path: session.path))?.summary
        let history = session.store.isHistoryTracked ? try session.store.history(after: nil) : nil
        return StoreInfo(
            path: session.path, formatVersion: headerFormatVersion(session.path),
            objectFormatVersion: session.record.objectFormat, pageSize: session.store.engine.pageSize,
            pageFileBytes: fileSize(session.path), walBytes: fileSize(session.path + "-wal"),
            modelVersionHash: session.record.versionHash, logicalBytes: summary?.logicalBytes,
            storedBytes: summary?.storedBytes, compressionRatio: summary?.compressionRatio,
            freeBytes: summary.map { $0.freeBytes + $0.fileTailBytes }, historyTracked: history != nil,
            historyTransactions: history?.count, historyFirstToken: history?.first?.token.description,
            historyLastToken: history?.last?.token.description,
            historyPages: history == nil ? nil : summary?.trees.first { $0.name == "cd.history" }?.pages ?? 0,
            entities: entities)
    }

    /// The format version of the first header copy with the right magic (docs/FORMAT.md: copies
    /// at offsets 0 and 4096; magic "CdStore\0" in bytes 0–7, version u32 LE in bytes 8–11).
    static func headerFormatVersion(_ path: String) -> UInt32? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        for offset in [UInt64(0), 4096] {
            guard (try? handle.seek(toOffset: offset)) != nil,
                let bytes = try? handle.read(upToCount: 12), bytes.count == 12,
                Array(bytes.prefix(8)) == Array("CdStore\0".utf8)
            else { continue }
            return bytes.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        return nil
    }

    static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The report for a person: sizes first, then each entity with its properties.
    func text(colours: Bool) -> String {
        func bold(_ s: String) -> String { colours ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
        var lines = [
            "store          \(path)",
            "format         page file \(formatVersion.map(String.init) ?? "?"), objects "
                + (objectFormatVersion.map(String.init) ?? "?"),
            "page size      \(pageSize)",
            "page file      \(Self.bytes(pageFileBytes))",
            "WAL            \(Self.bytes(walBytes))",
            "compression    "
                + (compressionRatio.map { ratio in
                    String(format: "%.2f×", ratio)
                        + " (\(Self.bytes(logicalBytes ?? 0, exact: false)) of pages stored in "
                        + "\(Self.bytes(storedBytes ?? 0, exact: false)))"
                } ?? "?"),
            "free space     " + (freeBytes.map { Self.bytes($0) } ?? "?"),
            "history        "
                + (historyTracked
                    ? "tracked, \(historyTransactions ?? 0) transactions"
                        + (historyFirstToken.map { " (\($0) to \(historyLastToken ?? "?"))" } ?? "")
                        + (historyPages.map { ", \($0) page\($0 == 1 ? "" : "s")" } ?? "")
                    : "off"),
            "model hash     \(modelVersionHash)",
            "objects        \(entities.reduce(0) { $0 + $1.objects })",
        ]
        for entity in entities {
            lines.append("")
            var title = bold(entity.name)
            if let parent = entity.parent { title += " : \(parent)" }
            if entity.abstract { title += " (abstract)" }
            lines.append("\(title)  \(entity.objects) object\(entity.objects == 1 ? "" : "s")")
            for a in entity.attributes {
                let flags = [a.optional ? "optional" : nil, a.indexed ? "indexed" : nil].compactMap { $0 }
                lines.append("  \(a.name): \(a.type)" + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))"))
            }
            for r in entity.relationships {
                let kind = r.toMany ? (r.ordered ? "ordered to-many" : "to-many") : "to-one"
                let inverse = r.inverse.map { ", inverse \($0)" } ?? ""
                lines.append("  \(r.name) → \(r.destination) (\(kind)\(inverse), delete \(r.deleteRule))")
            }
            for i in entity.indexes { lines.append("  index \(i.name) (\(i.elements.joined(separator: ", ")))") }
            for u in entity.uniquenessConstraints { lines.append("  unique (\(u.joined(separator: ", ")))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `n` bytes, with KiB/MiB for larger sizes: `1.5 MiB (1572864 bytes)`.
    static func bytes(_ n: UInt64, exact: Bool = true) -> String {
        if n < 1024 { return "\(n) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(n) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " \(units[unit])" + (exact ? " (\(n) bytes)" : "")
    }
}
