import CdCoreDataImport
import CdObjects
import Foundation
import Testing

/// A one-to-one keeps a key column on both sides. Both sides are written from their own columns
/// (no update afterwards), so a link comes across when the two columns name each other; two
/// columns that disagree have no answer for both sides and are left empty on both and listed.
@Suite struct OneToOneImportTests {
    static let modelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Passport" representedClassName="Passport">
                <attribute name="number" optional="YES" attributeType="String"/>
                <relationship name="holder" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Person" inverseName="passport" inverseEntity="Person"/>
            </entity>
            <entity name="Person" representedClassName="Person">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="passport" optional="YES" maxCount="1" deletionRule="Nullify" \
        destinationEntity="Passport" inverseName="holder" inverseEntity="Passport"/>
            </entity>
        </model>
        """

    @Test func bothSidesComeAcrossWhenTheyAgreeAndAreListedWhenNot() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let model = scratch.url.appendingPathComponent("People.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(Self.modelXML.utf8).write(to: model.appendingPathComponent("contents"))
        let store = scratch.url.appendingPathComponent("People.sqlite")
        let db = try TestSQLite(path: store.path)
        // Passport 1 ⇄ Person 1 agree; Person 2 names Passport 2, which names Person 3, which
        // names nothing.
        try db.execute(
            """
            CREATE TABLE ZPASSPORT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZHOLDER INTEGER,
                ZNUMBER VARCHAR );
            CREATE TABLE ZPERSON ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZPASSPORT INTEGER,
                ZNAME VARCHAR );
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Passport', 0, 2), (2, 'Person', 0, 3);
            INSERT INTO Z_METADATA VALUES (1, '11111111-2222-4333-8444-555555555555', X'62706C6973743030');
            INSERT INTO ZPASSPORT VALUES (1, 1, 1, 1, 'P-1'), (2, 1, 1, 3, 'P-2');
            INSERT INTO ZPERSON VALUES (1, 2, 1, 1, 'Ada'), (2, 2, 1, 2, 'Bo'), (3, 2, 1, NULL, 'Cy');
            """)
        db.close()
        let output = scratch.url.appendingPathComponent("People.cdstore")
        let report = try CoreDataImport.importStore(at: store, model: model, to: output)
        #expect(report.objectCounts == ["Passport": 2, "Person": 3])
        #expect(
            Set(report.badRows.map { "\($0.table) \($0.primaryKey)" }) == ["ZPASSPORT 2", "ZPERSON 2"],
            "\(report.badRows)")
        let opened = try ObjectStore.open(path: output.path, model: try ModelFileReader.load(at: model.path).model)
        defer { try? opened.close() }
        #expect(try opened.engine.read { try ObjectStoreVerifier().verify($0) }.isEmpty)
        func person(_ k: Int64) -> ObjectID { ObjectID(entity: "Person", primaryKey: k) }
        func passport(_ k: Int64) -> ObjectID { ObjectID(entity: "Passport", primaryKey: k) }
        #expect(try opened.storedValues(person(1))?["passport"] == .toOne(passport(1)))
        #expect(try opened.storedValues(passport(1))?["holder"] == .toOne(person(1)))
        #expect(try opened.storedValues(person(2))?["passport"] == .toOne(nil))
        #expect(try opened.storedValues(passport(2))?["holder"] == .toOne(nil))
        #expect(try opened.storedValues(person(3))?["passport"] == .toOne(nil))
    }
}
