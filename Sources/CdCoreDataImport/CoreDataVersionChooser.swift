// Choosing the model version a Core Data store was written with, by its schema: each version's
// predicted tables and columns (CoreDataLayout) are compared with the store's, and the one
// version with no difference is chosen. Stores are rarely written with a bundle's current
// version, and version identifiers are usually empty or all alike, so neither is used.
//
//   no version matches       CoreDataImportError.noMatchingVersion: the closest versions (fewest
//                            differences) with their differences
//   several versions match   CoreDataImportError.ambiguousVersion listing them (versions that differ
//                            only in what the schema does not show, such as a hash modifier)
//   `version` given          that version only; it must match (versionMismatch otherwise)

import CdObjects
import Foundation

/// One model version of a model file: its name, model and `contents` path.
struct ModelVersionCandidate {
    let name: String
    let file: ModelFile
}

enum CoreDataVersionChooser {
    /// The versions of the model at `url`: every `.xcdatamodel` of a bundle, or the one model.
    static func candidates(
        model url: URL, only version: String?
    ) throws(CoreDataImportError) -> (
        loaded: [ModelVersionCandidate], failed: [VersionMismatch]
    ) {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadableModel(path: path, detail: "no such file")
        }
        var names: [String?] = [nil]
        if isDirectory.boolValue, !FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path) {
            do { names = try ModelFileReader.versions(inBundle: path).map { $0 } } catch {
                throw .unreadableModel(path: path, detail: error.description)
            }
        }
        if let version {
            let wanted = version.hasSuffix(".xcdatamodel") ? version : version + ".xcdatamodel"
            if names != [nil] {
                guard names.contains(wanted) else {
                    throw .unreadableModel(
                        path: path,
                        detail: "no version \(version); the bundle holds "
                            + names.compactMap { $0.map(stem) }.joined(separator: ", "))
                }
                names = [wanted]
            }
        }
        var loaded: [ModelVersionCandidate] = []
        var failed: [VersionMismatch] = []
        for name in names {
            let display =
                name.map(stem)
                ?? stem(
                    url.lastPathComponent == "contents"
                        ? url.deletingLastPathComponent().lastPathComponent : url.lastPathComponent)
            do {
                let file = try ModelFileReader.load(at: path, version: name)
                loaded.append(ModelVersionCandidate(name: display, file: file))
            } catch {
                failed.append(VersionMismatch(version: display, differences: ["the model does not load: \(error)"]))
            }
        }
        if loaded.isEmpty, let first = failed.first, names.count == 1 {
            throw .unreadableModel(path: path, detail: first.differences.joined())
        }
        return (loaded, failed)
    }

    /// The version whose layout matches `schema`, with that layout.
    static func choose(
        model url: URL, version: String?, schema: CoreDataStoreSchema
    ) throws(CoreDataImportError) -> (ModelVersionCandidate, CoreDataLayout) {
        let (loaded, failed) = try candidates(model: url, only: version)
        var matching: [(ModelVersionCandidate, CoreDataLayout)] = []
        var mismatches: [VersionMismatch] = []
        for candidate in loaded {
            let layout = CoreDataLayout(model: candidate.file.model, schema: schema)
            if layout.differences.isEmpty {
                matching.append((candidate, layout))
            } else {
                mismatches.append(VersionMismatch(version: candidate.name, differences: layout.differences))
            }
        }
        if matching.count == 1 { return matching[0] }
        if matching.count > 1 { throw .ambiguousVersion(versions: matching.map(\.0.name)) }
        if version != nil, let only = mismatches.first ?? failed.first { throw .versionMismatch(only) }
        let closest = mismatches.sorted { $0.differences.count < $1.differences.count }.prefix(2)
        throw .noMatchingVersion(closest: Array(closest) + (closest.isEmpty ? failed : []))
    }

    static func stem(_ name: String) -> String {
        name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }
}
