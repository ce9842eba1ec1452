import Foundation

/// Writes Core Data stores, in Core Data's layout, for what no fixture has: external storage
/// files, a repeated attribute name in sibling sub-entities (`ZTITLE1`, `ZTITLE2`), every
/// attribute type at its limits, a to-many without inverse, a self relationship, rows only in
/// the `-wal`, and damaged rows. Also the model (`Gen.xcdatamodel`) they were "written" with.
///
/// Entities, numbered as Core Data numbers them (roots by name ignoring case, sub-entities
/// depth first): Department 1, Employee 2, Manager 3 (sub-entity of Employee), Item 4
/// (abstract), Book 5, Film 6, Sample 7, Tag 8.
struct CoreDataStoreGenerator {
    /// Departments; each has `employeesPerDepartment` employees, the first a manager.
    var departments = 3
    var employeesPerDepartment = 4
    /// Damaged rows: an unknown Z_ENT, a to-one to nowhere, a required attribute nil, an
    /// Integer 16 out of range, an abstract Z_ENT, and a to-one (902's mentor) to a row at a
    /// later key that is not imported (903: an Integer 64 stored as text), which is also in a
    /// department's ordered list.
    var damaged = false
    /// Keep every row in the `-wal` (the main file holds empty tables).
    var walOnly = false
    /// Z_MAX of Employee's hierarchy, above its largest key.
    var employeeMax: Int64 = 1000
    let uuid = "3C0FFEE0-1234-4ABC-9DEF-0123456789AB"

    static let externalFileName = "6E1A1B84-8C7B-4C7A-9D41-5A0B6D1F0001"
    static let externalBytes = Data((0..<5000).map { UInt8($0 % 251) })
    static let inlineBytes = Data([9, 8, 7])

    static let modelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
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
                <relationship name="mentor" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Employee"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" \
        inverseName="employees" inverseEntity="Tag"/>
            </entity>
            <entity name="Manager" representedClassName="Manager" parentEntity="Employee">
                <relationship name="reports" optional="YES" toMany="YES" deletionRule="Nullify" \
        destinationEntity="Employee"/>
            </entity>
            <entity name="Item" representedClassName="Item" isAbstract="YES"/>
            <entity name="Book" representedClassName="Book" parentEntity="Item">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32" defaultValueString="0"/>
            </entity>
            <entity name="Film" representedClassName="Film" parentEntity="Item">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="minutes" optional="YES" attributeType="Integer 32" defaultValueString="0"/>
            </entity>
            <entity name="Sample" representedClassName="Sample">
                <attribute name="i16" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
                <attribute name="i32" optional="YES" attributeType="Integer 32" defaultValueString="0"/>
                <attribute name="i64" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
                <attribute name="dec" optional="YES" attributeType="Decimal"/>
                <attribute name="dbl" optional="YES" attributeType="Double"/>
                <attribute name="flt" optional="YES" attributeType="Float"/>
                <attribute name="str" optional="YES" attributeType="String"/>
                <attribute name="flag" optional="YES" attributeType="Boolean"/>
                <attribute name="when" optional="YES" attributeType="Date"/>
                <attribute name="bin" optional="YES" attributeType="Binary"/>
                <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="id" optional="YES" attributeType="UUID"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="blob" optional="YES" attributeType="Transformable" \
        valueTransformerName="ColorTransformer"/>
            </entity>
            <entity name="Tag" representedClassName="Tag">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="employees" optional="YES" toMany="YES" deletionRule="Nullify" \
        destinationEntity="Employee" inverseName="tags" inverseEntity="Employee"/>
            </entity>
        </model>
        """

    static let schema = """
        CREATE TABLE ZDEPARTMENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
        CREATE TABLE ZEMPLOYEE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSALARY INTEGER,
            ZDEPARTMENT INTEGER, Z_FOK_DEPARTMENT INTEGER, ZMENTOR INTEGER, Z2_MENTOR INTEGER, Z3REPORTS INTEGER,
            ZNAME VARCHAR );
        CREATE INDEX ZEMPLOYEE_Z_ENT_INDEX ON ZEMPLOYEE (Z_ENT);
        CREATE TABLE ZITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPAGES INTEGER, ZMINUTES INTEGER,
            ZTITLE1 VARCHAR, ZTITLE2 VARCHAR );
        CREATE TABLE ZSAMPLE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZI16 INTEGER, ZI32 INTEGER,
            ZI64 INTEGER, ZFLAG INTEGER, ZWHEN TIMESTAMP, ZDEC DECIMAL, ZDBL FLOAT, ZFLT FLOAT, ZSTR VARCHAR,
            ZLINK VARCHAR, ZBIN BLOB, ZPHOTO BLOB, ZID BLOB, ZBLOB BLOB );
        CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR );
        CREATE TABLE Z_2TAGS ( Z_2EMPLOYEES INTEGER, Z_8TAGS INTEGER, PRIMARY KEY (Z_2EMPLOYEES, Z_8TAGS) );
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
        CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR VARCHAR );
        CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITY INTEGER );
        """

    /// The samples' values: the limits of each type. Row 1 holds maxima, row 2 minima, row 3 nils.
    static let sampleRows: [[SQLValue]] = [
        [
            .integer(32767), .integer(2_147_483_647), .integer(Int64.max), .integer(1), .integer(757_382_400),
            .text("NaN"), .real(Double.greatestFiniteMagnitude), .real(Double(Float.greatestFiniteMagnitude)),
            .text("héllo \u{1F600} wörld"), .text("https://example.com/a?b=c#d"), .blob(Data([0, 1, 255])),
            .blob(Data([2]) + Data(externalFileName.utf8)), .blob(Data((0..<16).map { UInt8($0) })),
            .blob(Data("bytes of a transformer".utf8)),
        ],
        [
            .integer(-32768), .integer(-2_147_483_648), .integer(Int64.min), .integer(0), .real(-978_307_200.5),
            .real(3.3333333332999993), .real(-Double.leastNonzeroMagnitude), .real(-1.3300000429153442),
            .text(""), .text("file:///tmp/x"), .blob(Data()), .blob(Data([1]) + inlineBytes),
            .blob(Data(repeating: 0xFF, count: 16)), .blob(Data()),
        ],
        Array(repeating: .null, count: 14),
    ]

    static let sampleColumns =
        "ZI16, ZI32, ZI64, ZFLAG, ZWHEN, ZDEC, ZDBL, ZFLT, ZSTR, ZLINK, ZBIN, ZPHOTO, ZID, ZBLOB"

    /// Writes `Gen.sqlite` (and its `-wal` when `walOnly`), the external data folder and
    /// `Gen.xcdatamodel` into `folder`; returns (store, model).
    func write(into folder: URL) throws -> (store: URL, model: URL) {
        let model = folder.appendingPathComponent("Gen.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(Self.modelXML.utf8).write(to: model.appendingPathComponent("contents"))
        let external = folder.appendingPathComponent(".Gen_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try Self.externalBytes.write(to: external.appendingPathComponent(Self.externalFileName))

        let store = folder.appendingPathComponent("Gen.sqlite")
        // WAL-only: rows are written into a store whose log is never checkpointed; the files are
        // copied while the connection holds them, as an app's store looks while the app runs.
        let target = walOnly ? folder.appendingPathComponent("writing/Gen.sqlite") : store
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let db = try TestSQLite(path: target.path)
        if walOnly {
            try db.execute("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
            try db.execute(Self.schema)
            // Checkpoint the empty schema into the main file; every row stays in the log.
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE);")
        } else {
            try db.execute(Self.schema)
        }
        try db.execute("BEGIN")
        try writeRows(db)
        try db.execute("COMMIT")
        if walOnly {
            for suffix in ["", "-wal", "-shm"] {
                try FileManager.default.copyItem(atPath: target.path + suffix, toPath: store.path + suffix)
            }
        }
        db.close()
        if walOnly { try FileManager.default.removeItem(at: target.deletingLastPathComponent()) }
        return (store, model)
    }

    /// Employee keys: department d (1-based), employee e (0-based) → key.
    func employeeKey(_ d: Int, _ e: Int) -> Int64 { Int64((d - 1) * employeesPerDepartment + e + 1) }

    private func writeRows(_ db: TestSQLite) throws {
        let entities: [(Int64, String, Int64, Int64)] = [
            (1, "Department", 0, Int64(departments)), (2, "Employee", 0, employeeMax), (3, "Manager", 2, 0),
            (4, "Item", 0, 4), (5, "Book", 4, 0), (6, "Film", 4, 0), (7, "Sample", 0, 3), (8, "Tag", 0, 2),
        ]
        for (n, name, parent, max) in entities {
            try db.run(
                "INSERT INTO Z_PRIMARYKEY VALUES (?, ?, ?, ?)",
                [.integer(n), .text(name), .integer(parent), .integer(max)])
        }
        try db.run("INSERT INTO Z_METADATA VALUES (1, ?, ?)", [.text(uuid), .blob(Data("bplist00".utf8))])
        try db.execute(
            "INSERT INTO ATRANSACTION VALUES (1, 16002, 1, 'app'); INSERT INTO ACHANGE VALUES (1, 16001, 1, 2);")
        try db.execute("INSERT INTO ZTAG VALUES (1, 8, 1, 'red'); INSERT INTO ZTAG VALUES (2, 8, 1, 'blue');")
        for d in 1...max(departments, 1) where departments > 0 {
            try db.run("INSERT INTO ZDEPARTMENT VALUES (?, 1, 1, ?)", [.integer(Int64(d)), .text("Dept \(d)")])
            let manager = employeeKey(d, 0)
            for e in 0..<employeesPerDepartment {
                let key = employeeKey(d, e)
                // Positions in the department in reverse key order, so order is not key order.
                let position = Int64((employeesPerDepartment - e) * 1024)
                try db.run(
                    "INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZSALARY, ZDEPARTMENT, Z_FOK_DEPARTMENT, ZMENTOR, "
                        + "Z2_MENTOR, Z3REPORTS, ZNAME) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        .integer(key), .integer(e == 0 ? 3 : 2), .integer(Int64(1000 * e)), .integer(Int64(d)),
                        .integer(position), e == 0 ? .null : .integer(manager), e == 0 ? .null : .integer(3),
                        e == 0 ? .null : .integer(manager), .text("E\(key)"),
                    ])
                if e % 2 == 1 { try db.run("INSERT INTO Z_2TAGS VALUES (?, 1)", [.integer(key)]) }
                if e % 3 == 1 { try db.run("INSERT INTO Z_2TAGS VALUES (?, 2)", [.integer(key)]) }
            }
        }
        try db.execute(
            """
            INSERT INTO ZITEM VALUES (1, 5, 1, 320, NULL, 'A Book', NULL);
            INSERT INTO ZITEM VALUES (2, 6, 1, NULL, 95, NULL, 'A Film');
            INSERT INTO ZITEM VALUES (4, 5, 1, 10, NULL, 'Another Book', NULL);
            """)
        for (i, row) in Self.sampleRows.enumerated() {
            try db.run(
                "INSERT INTO ZSAMPLE (Z_PK, Z_ENT, Z_OPT, \(Self.sampleColumns)) VALUES (?, 7, 1, "
                    + Array(repeating: "?", count: row.count).joined(separator: ", ") + ")",
                [.integer(Int64(i + 1))] + row)
        }
        if damaged {
            try db.execute(
                """
                INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (900, 99, 1, 'unknown entity');
                INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZDEPARTMENT) VALUES (901, 2, 1, 'nowhere', 7777);
                INSERT INTO ZDEPARTMENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (50, 1, 1, NULL);
                INSERT INTO ZSAMPLE (Z_PK, Z_ENT, Z_OPT, ZI16) VALUES (60, 7, 1, 40000);
                INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT) VALUES (70, 4, 1);
                INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZMENTOR, Z2_MENTOR, ZDEPARTMENT, Z_FOK_DEPARTMENT)
                    VALUES (902, 2, 1, 'mentored by a bad row', 903, 2, 1, 99999);
                INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSALARY, ZDEPARTMENT, Z_FOK_DEPARTMENT)
                    VALUES (903, 2, 1, 'salary of text', 'lots', 1, 100000);
                """)
        }
    }
}
