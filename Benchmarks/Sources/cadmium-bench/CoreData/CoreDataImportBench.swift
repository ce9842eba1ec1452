import ArgumentParser
import CdCoreDataImport
import CdObjects
import Foundation
import GRDB

// `cadmium-bench coredata-import`: objects/s importing a generated store in Core Data's SQLite
// layout (`CoreDataImport.importStore`), beside the ObjectStore's bulk insert of the same objects
// (`ObjectStoreWriter.apply` in batches of 2,000, one commit). The store: departments of 100
// (one department row, 99 employees in an ordered to-many, one of 10 tags per employee through a
// many-to-many join table), so every object carries a to-one and a link. Both rates count the
// same objects: the import's includes reading SQLite, decoding values, writing every link and
// the object checks it runs before the store is renamed into place.

struct CoreDataImportBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coredata-import",
        abstract: "Times importing a generated Core Data store beside the ObjectStore's bulk insert.")

    @Option(help: "Objects in the generated store (departments of 100).")
    var objects = 200_000
    @Option(help: "Directory for the stores.")
    var dataDirectory = ".build/bench-data"

    func validate() throws {
        if objects < 100 { throw ValidationError("--objects: \(objects); at least 100 (one department)") }
    }

    func run() throws {
        let folder = URL(fileURLWithPath: dataDirectory).appendingPathComponent("coredata-import-\(objects)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try CoreDataBenchStore(departments: objects / 100).write(into: folder)
        let model = try ModelFileReader.load(at: generated.model.path).model

        let insert = try bulkInsert(model: model, departments: objects / 100, path: folder.path + "/bulk.cdstore")
        let output = folder.appendingPathComponent("imported.cdstore")
        let start = now()
        let report = try CoreDataImport.importStore(at: generated.store, model: generated.model, to: output)
        let seconds = now() - start
        precondition(report.objectCount == generated.objects, "imported \(report.objectCount) of \(generated.objects)")
        print("objects   ObjectStore bulk insert   Core Data import   import ÷ insert (rate)")
        print(
            String(
                format: "%-8d  %15.0f obj/s   %10.0f obj/s   %8.2f×", generated.objects, insert,
                Double(generated.objects) / seconds, Double(generated.objects) / seconds / insert))
    }

    /// Objects/s of the ObjectStore's bulk insert of the generated store's objects.
    func bulkInsert(model: ObjectModel, departments: Int, path: String) throws -> Double {
        let store = try ObjectStore.open(path: path, model: model)
        defer { try? store.close() }
        let start = now()
        let writer = try store.beginWriter()
        var batch: [ObjectID: [String: PropertyValue]] = [:]
        var count = 0
        func flush() throws {
            try writer.apply(ChangeSet(inserted: batch))
            count += batch.count
            batch.removeAll(keepingCapacity: true)
        }
        let tags = CoreDataBenchStore.tags
        for t in 1...tags {
            batch[ObjectID(entity: "Tag", primaryKey: Int64(t))] = ["label": .attribute(.string("tag \(t)"))]
        }
        for d in 1...departments {
            let department = ObjectID(entity: "Department", primaryKey: Int64(d))
            batch[department] = ["name": .attribute(.string("Dept \(d)"))]
            for e in 0..<CoreDataBenchStore.employeesPerDepartment {
                let key = CoreDataBenchStore.employeeKey(d, e)
                batch[ObjectID(entity: "Employee", primaryKey: key)] = [
                    "name": .attribute(.string("E\(key)")), "salary": .attribute(.integer(key * 10)),
                    "department": .toOne(department),
                    "tags": .toMany([ObjectID(entity: "Tag", primaryKey: key % Int64(tags) + 1)]),
                ]
            }
            if batch.count >= 2_000 { try flush() }
        }
        if !batch.isEmpty { try flush() }
        try writer.commit()
        return Double(count) / (now() - start)
    }
}

/// A Core Data store written the way `NSSQLiteStoreType` lays it out (docs/COREDATA-IMPORT.md):
/// Department 1, Employee 2, Tag 3; `Department.employees` ordered (Z_FOK_DEPARTMENT), and
/// `Employee.tags` ⇄ `Tag.employees` through the join table Z_2TAGS.
struct CoreDataBenchStore {
    let departments: Int
    static let employeesPerDepartment = 99
    static let tags = 10

    static func employeeKey(_ d: Int, _ e: Int) -> Int64 { Int64((d - 1) * employeesPerDepartment + e + 1) }

    static let modelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Department" representedClassName="Department">
                <attribute name="name" attributeType="String"/>
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" \
        destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
            </entity>
            <entity name="Employee" representedClassName="Employee">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="salary" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
                <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" \
        inverseName="employees" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" \
        destinationEntity="Employee" inverseName="tags" inverseEntity="Employee"/>
            </entity>
        </model>
        """

    /// Writes `Bench.sqlite` and `Bench.xcdatamodel` into `folder`.
    func write(into folder: URL) throws -> (store: URL, model: URL, objects: Int) {
        let model = folder.appendingPathComponent("Bench.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(Self.modelXML.utf8).write(to: model.appendingPathComponent("contents"))
        let store = folder.appendingPathComponent("Bench.sqlite")
        let queue = try DatabaseQueue(path: store.path)
        var objects = 0
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE ZDEPARTMENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
                    CREATE TABLE ZEMPLOYEE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSALARY INTEGER,
                        ZDEPARTMENT INTEGER, Z_FOK_DEPARTMENT INTEGER, ZNAME VARCHAR );
                    CREATE INDEX ZEMPLOYEE_ZDEPARTMENT_INDEX ON ZEMPLOYEE (ZDEPARTMENT);
                    CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR );
                    CREATE TABLE Z_2TAGS ( Z_2EMPLOYEES INTEGER, Z_3TAGS INTEGER, PRIMARY KEY (Z_2EMPLOYEES, Z_3TAGS) );
                    CREATE INDEX Z_2TAGS_Z_3TAGS_INDEX ON Z_2TAGS (Z_3TAGS, Z_2EMPLOYEES);
                    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER,
                        Z_MAX INTEGER);
                    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                    CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
                    """)
            let employees = departments * Self.employeesPerDepartment
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY VALUES (1, 'Department', 0, ?), (2, 'Employee', 0, ?), (3, 'Tag', 0, ?)",
                arguments: [departments, employees, Self.tags])
            try db.execute(
                sql: "INSERT INTO Z_METADATA VALUES (1, '0BE2C4D6-0000-4000-8000-00000000BE4C', ?)",
                arguments: [Data("bplist00".utf8)])
            for t in 1...Self.tags {
                try db.execute(sql: "INSERT INTO ZTAG VALUES (?, 3, 1, ?)", arguments: [t, "tag \(t)"])
            }
            let department = try db.makeStatement(sql: "INSERT INTO ZDEPARTMENT VALUES (?, 1, 1, ?)")
            let employee = try db.makeStatement(sql: "INSERT INTO ZEMPLOYEE VALUES (?, 2, 1, ?, ?, ?, ?)")
            let link = try db.makeStatement(sql: "INSERT INTO Z_2TAGS VALUES (?, ?)")
            for d in 1...departments {
                try department.execute(arguments: [d, "Dept \(d)"])
                for e in 0..<Self.employeesPerDepartment {
                    let key = Self.employeeKey(d, e)
                    try employee.execute(arguments: [key, key * 10, d, (e + 1) * 1024, "E\(key)"])
                    try link.execute(arguments: [key, key % Int64(Self.tags) + 1])
                }
            }
            objects = Self.tags + departments + employees
        }
        try queue.close()
        return (store, model, objects)
    }
}
