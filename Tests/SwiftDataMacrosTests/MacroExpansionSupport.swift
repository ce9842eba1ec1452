// Expansion tests of SwiftData's macros, with swift-syntax's generic test support reporting to
// Swift Testing. Each case is a pair of files under Fixtures/swiftdata-macros/: `NAME.input`
// (source using the macros) and `NAME.expanded` (the expected source after expansion), plus
// `NAME.diagnostics` for misuse (one `line:column: message` per expected diagnostic).

import Foundation
import SwiftDataMacroImplementations
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros as the SwiftData module declares them.
let swiftDataMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: PersistentModelMacro.self, conformances: ["PersistentModel", "Observable", "Sendable"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: SchemaPropertyMacro.self),
    "Relationship": MacroSpec(type: SchemaPropertyMacro.self),
    "Transient": MacroSpec(type: SchemaPropertyMacro.self),
    "Unique": MacroSpec(type: SchemaConstraintMacro.self),
    "Index": MacroSpec(type: SchemaConstraintMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
]

/// One expansion case read from the fixtures.
struct ExpansionCase: CustomTestStringConvertible, Sendable {
    let name: String
    let input: String
    let expanded: String
    let diagnostics: [String]

    var testDescription: String { name }

    /// The folder of the cases, found from this file's path.
    static let folder: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("Fixtures/swiftdata-macros")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: "Fixtures/swiftdata-macros")
    }()

    /// Every case of the folder, by name.
    static func all() throws -> [ExpansionCase] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".input") }.map { String($0.dropLast(".input".count)) }.sorted()
        return try names.map { name in
            func read(_ suffix: String) throws -> String {
                try String(contentsOf: folder.appendingPathComponent(name + suffix), encoding: .utf8)
            }
            let diagnosticsFile = folder.appendingPathComponent(name + ".diagnostics")
            let diagnostics =
                FileManager.default.fileExists(atPath: diagnosticsFile.path)
                ? try read(".diagnostics").split(separator: "\n").map(String.init) : []
            return ExpansionCase(
                name: name, input: try read(".input"), expanded: try read(".expanded"), diagnostics: diagnostics)
        }
    }

    /// The expected diagnostics as swift-syntax specs (`line:column: message`).
    func diagnosticSpecs() -> [DiagnosticSpec] {
        diagnostics.compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 2)
            guard parts.count == 3, let row = Int(parts[0]), let column = Int(parts[1]) else { return nil }
            return DiagnosticSpec(
                message: parts[2].trimmingCharacters(in: .whitespaces), line: row, column: column)
        }
    }
}
