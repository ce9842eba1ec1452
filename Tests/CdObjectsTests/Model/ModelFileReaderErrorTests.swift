import Foundation
import Testing
@testable import CdObjects

/// Broken and unusual model files, written to a scratch directory per test.
@Suite struct ModelFileReaderErrorTests {
    private func load(
        _ xml: String, file: (String) -> Void = { _ in }
    ) throws -> (Result<ModelFile, ModelError>, String) {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = try dir.write("M.xcdatamodel/contents", xml)
        file(path)
        do { return (.success(try ModelFileReader.load(at: dir.path("M.xcdatamodel"))), path) } catch {
            return (.failure(error), path)
        }
    }

    @Test func malformedXMLIsATypedErrorWithPathAndLine() throws {
        let (result, path) = try load("<?xml version=\"1.0\"?>\n<model>\n<entity name=\"A\">\n</model>")
        guard case let .failure(.malformedXML(errorPath, line, _)) = result else {
            Issue.record("expected malformedXML, got \(String(describing: result))"); return
        }
        #expect(errorPath == path)
        #expect(line != nil)
    }

    @Test func emptyContentsIsMalformed() throws {
        let (result, _) = try load("")
        guard case .failure(.malformedXML) = result else {
            Issue.record("expected malformedXML, got \(String(describing: result))"); return
        }
    }

    @Test func wrongRootElementIsNotAModel() throws {
        let (result, _) = try load("<?xml version=\"1.0\"?><plist><dict/></plist>")
        guard case .failure(.invalidModelFile) = result else {
            Issue.record("expected invalidModelFile, got \(result)"); return
        }
    }

    @Test func missingFileIsATypedErrorWithThePath() {
        let path = "/nonexistent/cadmium/Model.xcdatamodel"
        #expect(throws: ModelError.fileNotFound(path: path)) { try ModelFileReader.load(at: path) }
    }

    @Test func unknownAttributeTypeNamesEntityAndAttribute() throws {
        let (result, path) = try load(
            modelXML(
                """
                <entity name="A"><attribute name="shape" attributeType="Polygon"/></entity>
                """))
        guard case let .failure(.unknownAttributeType(errorPath, line, entity, attribute, typeName)) = result else {
            Issue.record("expected unknownAttributeType, got \(result)"); return
        }
        #expect(errorPath == path && line == 3 && entity == "A" && attribute == "shape" && typeName == "Polygon")
    }

    @Test func unknownElementsAndXMLAttributesAreWarnings() throws {
        let (result, path) = try load(
            modelXML(
                """
                <entity name="A" color="blue">
                    <attribute name="x" attributeType="String" optional="YES"/>
                    <sparkle level="9"><child/></sparkle>
                </entity>
                <fetchRequest name="all" entity="A"/>
                <elements><element name="A" positionX="1"/></elements>
                """))
        let file = try result.get()
        #expect(file.model["A"]?.attributes.map(\.name) == ["x"])
        #expect(file.warnings.count == 2)
        #expect(file.warnings.map(\.element) == ["entity", "sparkle"])
        #expect(file.warnings.allSatisfy { $0.file == path && $0.line != nil })
        #expect(file.warnings[0].message.contains("color"))
        #expect(file.warnings[1].line == 5)
    }

    @Test func missingInverseNamesEntityAndRelationship() throws {
        let (result, _) = try load(
            modelXML(
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" \
                destinationEntity="B" inverseName="a"/></entity>
                <entity name="B"><attribute name="x" attributeType="String"/></entity>
                """))
        #expect(throws: ModelError.missingInverse(entity: "A", relationship: "b", destination: "B", inverse: "a")) {
            try result.get()
        }
    }

    @Test func missingDestinationNamesEntityAndRelationship() throws {
        let (result, _) = try load(
            modelXML(
                """
                <entity name="A"><relationship name="b" maxCount="1" deletionRule="Cascade" \
                destinationEntity="Nowhere"/></entity>
                """))
        #expect(throws: ModelError.missingDestination(entity: "A", relationship: "b", destination: "Nowhere")) {
            try result.get()
        }
    }

    @Test func badDefaultValueAndDeleteRuleAreTypedErrors() throws {
        let (badDefault, _) = try load(
            modelXML(
                """
                <entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="ten"/></entity>
                """))
        guard case let .failure(.invalidXMLValue(_, _, entity, property, key, value)) = badDefault else {
            Issue.record("expected invalidXMLValue, got \(badDefault)"); return
        }
        #expect(entity == "A" && property == "n" && key == "defaultValueString" && value == "ten")
        let (badRule, _) = try load(
            modelXML(
                """
                <entity name="A"><relationship name="a" maxCount="1" deletionRule="Explode" \
                destinationEntity="A"/></entity>
                """))
        guard case .failure(.invalidXMLValue(_, _, "A", "a", "deletionRule", "Explode")) = badRule else {
            Issue.record("expected invalidXMLValue, got \(badRule)"); return
        }
    }

    @Test func defaultsAndBoundsAreParsedByType() throws {
        let (result, _) = try load(
            modelXML(
                """
                <entity name="A">
                    <attribute name="born" attributeType="Date" defaultValueString="86400" minValueString="0" \
                maxDateTimeInterval="3600000"/>
                    <attribute name="ok" attributeType="Boolean" defaultValueString="YES"/>
                    <attribute name="code" attributeType="String" minValueString="2" maxValueString="8" \
                regularExpressionString="[A-Z]+"/>
                    <attribute name="ratio" attributeType="Double" defaultValueString="0.5" minValueString="0" \
                maxValueString="1"/>
                    <attribute name="id" attributeType="UUID" \
                defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F" indexed="YES"/>
                    <attribute name="home" attributeType="URI" defaultValueString="https://example.com/a"/>
                    <relationship name="kids" optional="YES" toMany="YES" minCount="1" maxCount="4" \
                deletionRule="Deny" destinationEntity="A"/>
                </entity>
                """))
        let model = try result.get().model
        let born = try #require(model.attribute("born", of: "A"))
        #expect(born.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 86400)))
        #expect(born.defaultValue == .date(Date(timeIntervalSince1970: 978_307_200 + 86400)))
        #expect(born.validation.minValue == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(born.validation.maxValue == .date(Date(timeIntervalSinceReferenceDate: 3_600_000)))
        #expect(model.attribute("ok", of: "A")?.defaultValue == .bool(true))
        #expect(
            model.attribute("code", of: "A")?.validation
                == AttributeValidation(minLength: 2, maxLength: 8, pattern: "[A-Z]+"))
        #expect(
            model.attribute("ratio", of: "A")?.validation
                == AttributeValidation(minValue: .double(0), maxValue: .double(1)))
        #expect(
            model.attribute("id", of: "A")?.defaultValue
                == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(model.attribute("id", of: "A")?.isIndexed == true)
        #expect(model.attribute("home", of: "A")?.defaultValue == .uri(URL(string: "https://example.com/a")!))
        let kids = try #require(model.relationship("kids", of: "A"))
        #expect(kids.minCount == 1 && kids.maxCount == 4 && kids.deleteRule == .deny && kids.isToMany)
    }

    @Test func unsupportedDetailsAreSkippedWithWarnings() throws {
        let (result, _) = try load(
            modelXML(
                """
                <entity name="A">
                    <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
                    <attribute name="blob" optional="YES" attributeType="Binary" defaultValueString="abc" \
                minValueString="1"/>
                    <relationship name="a" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="A" \
                inverseName="a" inverseEntity="B"/>
                    <fetchedProperty name="recent" optional="YES"><fetchRequest name="r" entity="A"/></fetchedProperty>
                </entity>
                """))
        let file = try result.get()
        #expect(file.model.allAttributes(of: "A").map(\.name) == ["blob"])
        #expect(file.model.attribute("blob", of: "A")?.defaultValue == nil)
        #expect(file.model.relationship("a", of: "A")?.destination == "A")
        #expect(
            file.warnings.map(\.element) == ["attribute", "attribute", "attribute", "relationship", "fetchedProperty"])
        #expect(file.warnings.map(\.line) == [4, 5, 5, 6, 7])
    }

    @Test func aContentsFileAndInMemoryXMLLoadToo() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let xml = modelXML(
            "<entity name=\"A\"><attribute name=\"x\" attributeType=\"Float\" defaultValueString=\"1.5\"/></entity>")
        let path = try dir.write("M.xcdatamodel/contents", xml)
        let fromFile = try ModelFileReader.load(at: path)
        let fromData = try ModelFileReader.parse(contents: Data(xml.utf8), path: "memory")
        #expect(fromFile.model == fromData.model)
        #expect(fromFile.contentsPath == path && fromData.contentsPath == "memory")
        #expect(fromData.model.entitiesByName["A"]?.attributes.first?.defaultValue == .double(1.5))
    }

    @Test func unclosedElementIsMalformed() throws {
        let (result, _) = try load("<?xml version=\"1.0\"?>\n<model>\n<entity name=\"A\">")
        guard case .failure(.malformedXML) = result else {
            Issue.record("expected malformedXML, got \(String(describing: result))"); return
        }
    }

    // MARK: - Bundles

    private func bundle(currentVersion: String?) throws -> TempDirectory {
        let dir = try TempDirectory()
        for (version, entity) in [("M", "One"), ("M 2", "Two"), ("M 10", "Ten")] {
            try dir.write("M.xcdatamodeld/\(version).xcdatamodel/contents", modelXML("<entity name=\"\(entity)\"/>"))
        }
        if let currentVersion { try dir.write("M.xcdatamodeld/.xccurrentversion", currentVersion) }
        return dir
    }

    @Test func emptyCurrentVersionFallsBackToLastVersionWithAWarning() throws {
        let dir = try bundle(currentVersion: "")
        defer { dir.remove() }
        let file = try ModelFileReader.load(at: dir.path("M.xcdatamodeld"))
        #expect(file.availableVersions == ["M.xcdatamodel", "M 2.xcdatamodel", "M 10.xcdatamodel"])
        #expect(file.versionName == "M 10.xcdatamodel")
        #expect(file.model.entityNames == ["Ten"])
        #expect(file.warnings.count == 1)
        #expect(file.warnings.first?.element == ".xccurrentversion")
        #expect(file.warnings.first?.message.contains("empty") == true)
    }

    @Test func missingCurrentVersionWithOneVersionUsesItWithAWarning() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try dir.write("S.xcdatamodeld/Only.xcdatamodel/contents", modelXML("<entity name=\"Solo\"/>"))
        let file = try ModelFileReader.load(at: dir.path("S.xcdatamodeld"))
        #expect(file.versionName == "Only.xcdatamodel")
        #expect(file.warnings.map(\.message) == ["no .xccurrentversion; using the only version, Only.xcdatamodel"])
    }

    @Test func currentVersionPlistIsHonoured() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>M 2.xcdatamodel</string></dict></plist>
            """
        let dir = try bundle(currentVersion: plist)
        defer { dir.remove() }
        let file = try ModelFileReader.load(at: dir.path("M.xcdatamodeld"))
        #expect(file.versionName == "M 2.xcdatamodel")
        #expect(file.model.entityNames == ["Two"])
        #expect(file.warnings == [])
    }

    @Test func currentVersionNamingAMissingVersionIsAnError() throws {
        let plist =
            "<plist version=\"1.0\"><dict><key>_XCCurrentVersionName</key>"
            + "<string>Gone.xcdatamodel</string></dict></plist>"
        let dir = try bundle(currentVersion: plist)
        defer { dir.remove() }
        #expect(throws: ModelError.versionNotFound(path: dir.path("M.xcdatamodeld"), version: "Gone.xcdatamodel")) {
            try ModelFileReader.load(at: dir.path("M.xcdatamodeld"))
        }
    }

    @Test func bundleWithoutVersionsIsAnError() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path("E.xcdatamodeld"), withIntermediateDirectories: true)
        #expect(throws: ModelError.noModelVersion(path: dir.path("E.xcdatamodeld"))) {
            try ModelFileReader.load(at: dir.path("E.xcdatamodeld"))
        }
    }
}
