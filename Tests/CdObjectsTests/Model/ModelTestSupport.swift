import Foundation
import Testing
@testable import CdObjects

/// Real-world Core Data model files, read-only and kept outside the repository (they are other
/// projects' models), found in the folder `shared/fixtures/models` beside the checkout; tests
/// that need them skip without it, or fail under `CI=true`.
enum ModelFixtures {
    /// The repository root: this file is Tests/CdObjectsTests/Model/ModelTestSupport.swift.
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let folder: URL = repoRoot.appendingPathComponent("../shared/fixtures/models").standardizedFileURL

    static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Run fixture tests when the folder is there, and under CI always (so they fail there).
    static var shouldRun: Bool { isPresent || isCI }

    static let skipReason: Comment =
        "fixture folder ../shared/fixtures/models is missing; skipped (set CI=true to fail instead)"

    /// The path of a fixture, recording a failure that says the folder is missing when it is.
    static func path(_ relative: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        guard isPresent else {
            Issue.record("fixture folder is missing: \(folder.path)", sourceLocation: sourceLocation)
            return nil
        }
        return folder.appendingPathComponent(relative).path
    }

    static func load(
        _ relative: String, version: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ModelFile? {
        guard let path = path(relative, sourceLocation: sourceLocation) else { return nil }
        return try ModelFileReader.load(at: path, version: version)
    }
}

/// A scratch directory under the system temporary directory, removed by `remove()`.
struct TempDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cdmodel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `relative` (creating folders) and returns its path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A `contents` document around `body` (entity elements).
func modelXML(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
    \(body)
    </model>
    """
}

/// Department ⇄ Employee, Manager a sub-entity of Employee: the builder's example model.
func companyEntities() -> [EntityDescription] {
    [
        EntityDescription(
            name: "Department",
            attributes: [.init(name: "name", type: .string, isOptional: false)],
            relationships: [.toMany("employees", destination: "Employee", inverse: "department", deleteRule: .cascade)],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Employee",
            attributes: [
                .init(name: "salary", type: .integer64, defaultValue: .integer(0)),
                .init(name: "badge", type: .string, isOptional: false),
                .init(name: "onBreak", type: .boolean, isTransient: true),
            ],
            relationships: [
                .init(name: "department", destination: "Department", inverse: "employees", deleteRule: .nullify)
            ],
            uniquenessConstraints: [["badge"], ["department", "salary"]],
            fetchIndexes: [
                FetchIndexDescription(name: "bySalary", elements: [.descending("salary"), .ascending("badge")])
            ],
            userInfo: ["note": "people"]),
        EntityDescription(
            name: "Manager", parent: "Employee",
            attributes: [.init(name: "level", type: .integer16, isOptional: false, defaultValue: .integer(1))],
            relationships: [.toMany("reports", destination: "Employee")]),
    ]
}
