import CdFaultSupport
import CdStore
import Foundation
import Testing
@testable import CdObjects

/// The object level of `cdstore-verify`: `ObjectStoreCheck` as a verifier pass, in process and
/// through the built binary.
@Suite struct ObjectStoreCheckTests {
    /// An on-disk company store with a department, an employee and a project; closed.
    static func writeStore(in dir: URL, tamper: Bool) throws -> String {
        let path = dir.appendingPathComponent("company.cdstore").path
        let store = try ObjectStore.open(path: path, model: try companyModel())
        let d = try store.insert("Department", ["name": str("D")])
        let e = try store.insert("Employee", ["badge": str("B"), "name": str("Eve"), "department": .toOne(d)])
        _ = try store.insert("Project", ["title": str("P"), "members": .toMany([e])])
        if tamper {
            // Engine-consistent, object-inconsistent: the employee's name index loses its entry.
            try store.engine.write { tx in
                let stored = StoredObjects(tx: tx, layout: store.layout)
                let rec = try #require(try stored.record(e))
                let index = try #require(rec.entity.indexes.first { $0.definition.properties == ["name"] })
                #expect(try tx.tree(index.definition.tree)!.delete(IndexKey.key(index, rec, primaryKey: e.primaryKey)))
            }
        }
        try store.close()
        return path
    }

    static func verify(_ path: String) throws -> VerificationReport {
        var options = VerifierOptions()
        options.additionalPasses = [ObjectStoreCheck()]
        return try StoreVerifier.verify(path: path, options: options)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cd-objcheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func consistentObjectStoreHasNoProblems() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = try Self.verify(try Self.writeStore(in: dir, tamper: false))
        #expect(report.problemCount == 0, "\(report.problems)")
    }

    @Test func objectLevelDamageIsAProblemNamingTheTree() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let report = try Self.verify(try Self.writeStore(in: dir, tamper: true))
        #expect(report.problemCount == 1)
        let problem = try #require(report.problems.first)
        #expect(problem.location.area == .records)
        #expect(problem.location.tree == "cd.idx.Employee.attr.name")
    }

    @Test func engineDamageSkipsTheObjectLevelWithANote() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.writeStore(in: dir, tamper: false)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for i in stride(from: 8192, to: bytes.count, by: 97) { bytes[i] ^= 0xFF }  // the data area starts at 8192
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let report = try Self.verify(path)
        #expect(report.problemCount > 0)
        #expect(report.problems.contains { $0.severity == .note && $0.location.area == .records })
    }

    @Test func theCommandReportsObjectLevelDamageWithExitFour() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.writeStore(in: dir, tamper: true)
        let output = try BuiltExecutable.run(
            try BuiltExecutable.locate("cdstore-verify"), arguments: ["--no-progress", path])
        let text = output.stdout
        #expect(output.status == 4, "\(text)")
        #expect(text.contains("cd.idx.Employee.attr.name"))
    }
}
