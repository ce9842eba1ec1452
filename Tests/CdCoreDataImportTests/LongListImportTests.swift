import CdCoreDataImport
import CdObjects
import Foundation
import Testing

/// To-many lists far longer than a batch are written in pieces (CI2 of CoreDataImporter.swift):
/// no commit holds a whole list, and the lists come across whole and in order.
@Suite struct LongListImportTests {
    /// Two departments of 3,000 employees: each department's ordered list, its manager's
    /// to-many without inverse and both tags' many-to-many lists hold 2,000 to 6,000 members,
    /// against pieces of 100 and commits of 500.
    @Test func listsLongerThanACommitAreWrittenInPiecesAndKeepOrderAndMembers() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var generator = CoreDataStoreGenerator()
        generator.departments = 2
        generator.employeesPerDepartment = 3_000
        generator.employeeMax = 6_000
        let (store, model) = try generator.write(into: scratch.url)
        var options = CoreDataImport.Options()
        options.batchSize = 100
        options.commitSize = 500
        let output = scratch.url.appendingPathComponent("long.cdstore")
        let report = try CoreDataImport.importStore(at: store, model: model, to: output, options: options)
        #expect(report.badRowCount == 0)
        #expect(report.objectCounts["Employee"] == 2 * 2_999)
        #expect(report.objectCounts["Manager"] == 2)

        // No commit held a list of 1,000 or more: a list written whole would put 2,998 to
        // 5,996 links in one commit.
        #expect(report.largestCommit < options.commitSize + options.batchSize, "\(report.largestCommit)")
        // Objects (6,011) and links (6,000 in departments, 5,998 reports, 2 × 4,998 tag pairs).
        let entries = report.objectCount + 6_000 + 5_998 + 2 * 4_998
        #expect(report.commits >= entries / (options.commitSize + options.batchSize), "\(report.commits)")

        let opened = try ObjectStore.open(path: output.path, model: try ModelFileReader.load(at: model.path).model)
        defer { try? opened.close() }
        #expect(try opened.engine.read { try ObjectStoreVerifier().verify($0) }.isEmpty)
        let snapshot = try opened.beginRead()
        defer { snapshot.end() }
        func keys(_ owner: ObjectID, _ relationship: String) throws -> [Int64] {
            try snapshot.related(owner, relationship).map(\.primaryKey)
        }
        // Ordered, across 30 pieces: Z_FOK_ order, which is reverse key order.
        for d in 1...2 {
            let department = ObjectID(entity: "Department", primaryKey: Int64(d))
            let first = generator.employeeKey(d, 0), last = generator.employeeKey(d, 2_999)
            #expect(try keys(department, "employees") == Array((first...last).reversed()))
        }
        // Without inverse: the manager's reports, every employee of the department but itself.
        let manager = ObjectID(entity: "Manager", primaryKey: generator.employeeKey(2, 0))
        #expect(try keys(manager, "reports") == Array(generator.employeeKey(2, 1)...generator.employeeKey(2, 2_999)))
        // Many-to-many, both sides: tag 1 holds every odd employee of each department, tag 2
        // every one whose place leaves 1 divided by 3.
        let all = (1...2).flatMap { d in (0..<3_000).map { (e: $0, key: generator.employeeKey(d, $0)) } }
        #expect(
            try keys(ObjectID(entity: "Tag", primaryKey: 1), "employees") == all.filter { $0.e % 2 == 1 }.map(\.key))
        #expect(
            try keys(ObjectID(entity: "Tag", primaryKey: 2), "employees") == all.filter { $0.e % 3 == 1 }.map(\.key))
        let employee = ObjectID(entity: "Employee", primaryKey: generator.employeeKey(2, 2_995))
        #expect(try keys(employee, "tags") == [1, 2])
    }
}
