import Foundation
import Testing

/// One real Core Data store of `../shared/fixtures/coredata-stores` with its model and the
/// version that wrote it (the folder's SOURCES.md).
struct CoreDataFixture: Sendable, CustomTestStringConvertible {
    var folder: String
    var store: String
    var model: String
    var version: String
    var testDescription: String { folder }
}

/// The real Core Data stores, read-only and kept outside the repository: found in the folder
/// `shared/fixtures/coredata-stores` beside the checkout (walking up from this file until a
/// `shared` sibling is found). Tests skip without it, and fail under `CI=true`.
enum CoreDataFixtures {
    static let all: [CoreDataFixture] = [
        .init(
            folder: "wibosco-posts-v1", store: "CoreDataMigration_Example_1.sqlite",
            model: "CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example"),
        .init(
            folder: "wibosco-one-to-one-v3", store: "CoreDataMigration_Example_3.sqlite",
            model: "CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example 3"),
        .init(
            folder: "wibosco-wal-only-v4", store: "CoreDataMigration_Example_WAL.sqlite",
            model: "CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example 4"),
        .init(
            folder: "wibosco-revised-one-to-many-v3", store: "CoreDataMigration_Example_3.sqlite",
            model: "CoreDataMigration_Example.xcdatamodeld", version: "CoreDataMigration_Example 3"),
        .init(
            folder: "coredataplus-inheritance-v1", store: "SampleModel_V1.sqlite", model: "SampleModel.xcdatamodeld",
            version: "SampleModel"),
        .init(
            folder: "coredataplus-renamed-entity-v2", store: "SampleModel_V2.sqlite",
            model: "SampleModel.xcdatamodeld", version: "SampleModel2"),
        .init(
            folder: "coredataplus-history-codemodel", store: "SampleModel2_V1.sqlite",
            model: "SampleModel2_V1.xcdatamodel", version: "SampleModel2_V1"),
        .init(
            folder: "ddg-bookmarks-ordered-v4", store: "Bookmarks_V4.sqlite", model: "BookmarksModel.xcdatamodeld",
            version: "BookmarksModel 4"),
        .init(
            folder: "ddg-syncmetadata-v3", store: "SyncMetadata_V3.sqlite", model: "SyncMetadata.xcdatamodeld",
            version: "SyncMetadata 3"),
        .init(
            folder: "artsy-oss-stubbed-v2.3", store: "oss_stubbed_data.sqlite", model: "ArtsyPartner.xcdatamodeld",
            version: "ArtsyFolio v2.3"),
        .init(
            folder: "artsy-partner-1.3.5-ios6", store: "ArtsyPartner_1.3.5.sqlite",
            model: "ArtsyPartner.xcdatamodeld", version: "ArtsyPartner 5"),
        .init(
            folder: "artsy-partner-1.4-inplace", store: "ArtsyPartner_1.4.sqlite", model: "ArtsyPartner.xcdatamodeld",
            version: "ArtsyFolio v1.4"),
        .init(folder: "objcio-moody-v1", store: "Moody.moody", model: "Moody.xcdatamodeld", version: "Moody"),
    ]

    /// `../shared/fixtures/coredata-stores`, found by walking up from this file.
    static let folder: URL? = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata-stores")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue
            {
                return candidate.standardizedFileURL
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Run fixture tests when the folder is there, and under CI always (so they fail there).
    static var shouldRun: Bool { folder != nil || isCI }

    static let skipReason: Comment =
        "fixture folder ../shared/fixtures/coredata-stores is missing; skipped (set CI=true to fail instead)"

    /// The fixture's folder, recording a failure when the fixtures are missing.
    static func directory(_ fixture: CoreDataFixture, sourceLocation: SourceLocation = #_sourceLocation) -> URL? {
        guard let folder else {
            Issue.record("fixture folder ../shared/fixtures/coredata-stores is missing", sourceLocation: sourceLocation)
            return nil
        }
        return folder.appendingPathComponent(fixture.folder)
    }
}

/// Every file's bytes under a folder, to prove that an import changed none of them.
func snapshotFiles(_ folder: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [:] }
    for case let url as URL in walker where !url.hasDirectoryPath {
        result[url.path] = try Data(contentsOf: url)
    }
    return result
}

/// A scratch directory under the system temporary directory.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cdimport-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
