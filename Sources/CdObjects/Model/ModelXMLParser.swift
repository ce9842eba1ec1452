// Reads the `contents` XML of one `.xcdatamodel` into entities, with Foundation's XMLParser.
// docs/MODEL.md has the mapping table (XML attribute → model field); this file is its code.
//
// Policy: anything that changes what is stored and cannot be understood (an unknown
// attributeType, a default that does not parse, a bad delete rule) is a `ModelError` naming
// the file, line, entity and property. Anything else that is unknown (an element, an XML
// attribute) is skipped with a `ModelWarning`. Layout and editor data (`elements`,
// `fetchRequest`, `syncable`, `usesScalarValueType`, …) are skipped silently.

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What one `contents` file holds, before resolution.
struct ParsedModelXML {
    var entities: [EntityDescription] = []
    var warnings: [ModelWarning] = []
    var configurations: [String: [String]] = [:]
    var versionIdentifier: String?
}

/// Parses `data` (the bytes of a `contents` file at `path`).
func parseModelXML(_ data: Data, path: String) throws(ModelError) -> ParsedModelXML {
    guard data.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
        throw .malformedXML(path: path, line: nil, detail: "the file is empty")
    }
    try checkParsable(data, path: path)
    let parser = XMLParser(data: data)
    let handler = ModelXMLHandler(path: path)
    parser.delegate = handler
    parser.shouldProcessNamespaces = false
    parser.shouldResolveExternalEntities = false
    let ok = parser.parse()
    if let error = handler.error { throw error }
    if let open = handler.openElements.last {
        throw .malformedXML(
            path: path, line: parser.lineNumber > 0 ? parser.lineNumber : nil, detail: "<\(open)> is not closed")
    }
    guard ok else {
        let detail = parser.parserError.map { "\($0.localizedDescription)" } ?? "parse failed"
        throw .malformedXML(path: path, line: parser.lineNumber > 0 ? parser.lineNumber : nil, detail: detail)
    }
    guard handler.sawModel else {
        throw .invalidModelFile(path: path, line: nil, detail: "no <model> root element")
    }
    return handler.result
}

/// Refuses input that swift-corelibs-foundation's XMLParser (over libxml2 2.9) crashes the process
/// on, before it reaches the parser. Model files are UTF-8 and hold no processing instructions
/// (Xcode writes neither), so nothing real is refused. All three were found by
/// `fuzz-model-reader` (Fixtures/fuzz/model-reader/regressions/):
///  - bytes that are not UTF-8 in a name (`<l e="" \xE3="2`): a trap in
///    `_NSXMLParserStartElementNs` once parsing goes on past the encoding error;
///  - a declaration naming another encoding (`<?xml version="1.0" encoding="UTF7"\xDF`): the
///    encoding switch plus `abortParsing()` from `parseErrorOccurred` is a SEGV in xmlParseChunk;
///  - a processing instruction without data (`<?x?>`): `strlen(NULL)` in
///    `_NSXMLParserProcessingInstruction`, whatever the delegate does;
///  - a NUL byte (`00 00 00 3C` at the start makes libxml2 guess UCS-4): a SEGV in
///    xmlParseChunk. XML allows no NUL character anywhere, so none is refused wrongly.
func checkParsable(_ data: Data, path: String) throws(ModelError) {
    guard String(validating: data, as: UTF8.self) != nil else {
        throw .malformedXML(path: path, line: nil, detail: "the file is not UTF-8")
    }
    let bytes = [UInt8](data)
    if let nul = bytes.firstIndex(of: 0) {
        let line = bytes[..<nul].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        throw .malformedXML(
            path: path, line: line, detail: "the file holds a NUL byte at offset \(nul); XML allows none")
    }
    var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    if bytes[start...].starts(with: Array("<?xml".utf8)) {
        let end = bytes[start...].firstRange(of: Array("?>".utf8))?.upperBound ?? bytes.count
        let declaration = String(decoding: bytes[start..<end], as: UTF8.self)
        if let key = declaration.range(of: "encoding") {
            let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
            let name = rest.prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != "?" }.lowercased()
            guard name == "utf-8" || name == "utf8" else {
                throw .malformedXML(
                    path: path, line: 1, detail: "encoding \"\(name)\" is not supported; model files are UTF-8")
            }
        }
        start = end
    }
    if let pi = bytes[start...].firstRange(of: Array("<?".utf8)) {
        let line = bytes[..<pi.lowerBound].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        throw .malformedXML(path: path, line: line, detail: "processing instructions are not supported in a model file")
    }
}

/// The XMLParser delegate. Used by one parse on one thread, then discarded.
private final class ModelXMLHandler: NSObject, XMLParserDelegate {
    let path: String
    var result = ParsedModelXML()
    var error: ModelError?
    var sawModel = false

    /// Every open element, skipped or not: checks that end tags match (the Linux XMLParser
    /// reports a mismatched end tag as an ordinary end of element).
    private(set) var openElements: [String] = []
    /// Open elements that are being read (not skipped).
    private var stack: [String] = []
    /// Depth inside a skipped subtree (an ignored or unknown element); 0 when not skipping.
    private var skipDepth = 0
    private var entity: EntityDescription?
    private var attribute: AttributeDescription?
    private var relationship: RelationshipDescription?
    private var constraint: [String]?
    private var fetchIndex: FetchIndexDescription?
    private var configuration: String?
    private var line = 0

    init(path: String) { self.path = path }

    // Attributes each element may carry. Those in `silent` are editor data and are dropped
    // without a warning; any other attribute outside `known` gets a warning.
    private static let known: [String: Set<String>] = [
        "model": ["userDefinedModelVersionIdentifier"],
        "entity": ["name", "representedClassName", "parentEntity", "isAbstract", "elementID"],
        "attribute": [
            "name", "attributeType", "optional", "defaultValueString", "defaultDateTimeInterval", "transient",
            "indexed", "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval",
            "regularExpressionString", "valueTransformerName", "elementID",
        ],
        "relationship": [
            "name", "destinationEntity", "inverseName", "inverseEntity", "toMany", "ordered",
            "deletionRule", "minCount", "maxCount", "optional", "transient", "elementID",
        ],
        "userInfo": [], "entry": ["key", "value"],
        "uniquenessConstraints": [], "uniquenessConstraint": [], "constraint": ["value"],
        "fetchIndex": ["name"], "fetchIndexElement": ["property", "type", "order"],
        "configuration": ["name"], "memberEntity": ["name"],
    ]
    private static let silent: Set<String> = [
        "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
        "iOSVersion", "macOSVersion", "syncable", "codeGenerationType", "usesScalarValueType", "customClassName",
        "preserveAfterDeletion", "allowsExternalBinaryDataStorage", "spotlightIndexingEnabled", "storedInTruthFile",
        "allowsCloudEncryption", "versionHashModifier", "usedWithCloudKit", "renamingIdentifier",
    ]
    /// Elements skipped with their children, silently: layout and stored fetch requests.
    private static let ignoredSubtrees: Set<String> = ["elements", "fetchRequest"]

    // MARK: - XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String]
    ) {
        guard error == nil else { return }
        line = parser.lineNumber
        openElements.append(name)
        if skipDepth > 0 { skipDepth += 1; return }
        let parent = stack.last
        stack.append(name)
        if parent == nil {
            guard name == "model" else {
                return fail(
                    .invalidModelFile(path: path, line: line, detail: "root element is <\(name)>, not <model>"), parser)
            }
            sawModel = true
        }
        if Self.ignoredSubtrees.contains(name) { return skip() }
        guard isExpected(name, under: parent) else {
            warn(name, "unknown element ignored" + (parent.map { " (inside <\($0)>)" } ?? ""))
            return skip()
        }
        for key in attributes.keys.sorted()
        where !(Self.known[name]?.contains(key) ?? false) && !Self.silent.contains(key) {
            warn(name, "unknown XML attribute \(key)=\"\(attributes[key] ?? "")\" ignored")
        }
        do throws(ModelError) {
            try start(name, attributes)
        } catch {
            fail(error, parser)
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard error == nil else { return }
        guard openElements.last == name else {
            let expected = openElements.last.map { "</\($0)>" } ?? "no end tag"
            return fail(
                .malformedXML(
                    path: path, line: parser.lineNumber, detail: "</\(name)> found where \(expected) was expected"),
                parser)
        }
        openElements.removeLast()
        if skipDepth > 0 {
            // Closing a skipped element or one of its children; `skip()` already popped it.
            skipDepth -= 1
            return
        }
        stack.removeLast()
        switch name {
        case "entity":
            if let entity { result.entities.append(entity) }
            entity = nil
        case "attribute":
            if let attribute { entity?.attributes.append(attribute) }
            attribute = nil
        case "relationship":
            if let relationship { entity?.relationships.append(relationship) }
            relationship = nil
        case "uniquenessConstraint":
            if let constraint { entity?.uniquenessConstraints.append(constraint) }
            constraint = nil
        case "fetchIndex":
            if let fetchIndex { entity?.fetchIndexes.append(fetchIndex) }
            fetchIndex = nil
        case "configuration":
            configuration = nil
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard error == nil else { return }
        fail(
            .malformedXML(
                path: path, line: parser.lineNumber > 0 ? parser.lineNumber : nil,
                detail: parseError.localizedDescription), parser)
    }

    // MARK: - Elements

    private func isExpected(_ name: String, under parent: String?) -> Bool {
        switch (parent, name) {
        case (nil, "model"), ("model", "entity"), ("model", "configuration"), ("configuration", "memberEntity"),
            ("entity", "attribute"), ("entity", "relationship"), ("entity", "uniquenessConstraints"),
            ("uniquenessConstraints", "uniquenessConstraint"), ("uniquenessConstraint", "constraint"),
            ("entity", "fetchIndex"), ("fetchIndex", "fetchIndexElement"),
            ("entity", "userInfo"), ("attribute", "userInfo"), ("relationship", "userInfo"), ("userInfo", "entry"):
            return true
        default:
            return false
        }
    }

    private func start(_ name: String, _ a: [String: String]) throws(ModelError) {
        switch name {
        case "model":
            result.versionIdentifier = a["userDefinedModelVersionIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        case "entity":
            let entityName = try required("name", a, element: name)
            let className = a["representedClassName"].flatMap { $0.isEmpty ? nil : $0 } ?? "NSManagedObject"
            entity = EntityDescription(
                name: entityName, className: className,
                isAbstract: try bool("isAbstract", a, default: false, entity: entityName, property: nil),
                parent: a["parentEntity"], renamingIdentifier: a["elementID"])
        case "attribute":
            attribute = try makeAttribute(a)
        case "relationship":
            relationship = try makeRelationship(a)
        case "entry":
            let key = try required("key", a, element: name)
            let value = a["value"] ?? ""
            switch stack.dropLast(2).last {
            case "attribute": attribute?.userInfo[key] = value
            case "relationship": relationship?.userInfo[key] = value
            default: entity?.userInfo[key] = value
            }
        case "uniquenessConstraint":
            constraint = []
        case "constraint":
            constraint?.append(try required("value", a, element: name))
        case "fetchIndex":
            fetchIndex = FetchIndexDescription(name: try required("name", a, element: name), elements: [])
        case "fetchIndexElement":
            try addFetchIndexElement(a)
        case "configuration":
            let configurationName = try required("name", a, element: name)
            configuration = configurationName
            result.configurations[configurationName, default: []] = []
        case "memberEntity":
            if let configuration {
                result.configurations[configuration, default: []].append(try required("name", a, element: name))
            }
        default:
            break
        }
    }

    private func makeAttribute(_ a: [String: String]) throws(ModelError) -> AttributeDescription? {
        let entityName = entity?.name ?? ""
        let name = try required("name", a, element: "attribute")
        let typeName = try required("attributeType", a, element: "attribute")
        let isTransient = try bool("transient", a, default: false, entity: entityName, property: name)
        guard let type = AttributeType(xmlName: typeName, transformerName: a["valueTransformerName"]) else {
            if typeName == "Undefined" && isTransient {
                // Core Data's Undefined type exists only for transients, which are never stored.
                warn("attribute", "transient attribute \(name) of type Undefined skipped")
                return nil
            }
            throw .unknownAttributeType(path: path, line: line, entity: entityName, attribute: name, typeName: typeName)
        }
        var attribute = AttributeDescription(
            name: name, type: type,
            isOptional: try bool("optional", a, default: false, entity: entityName, property: name),
            isTransient: isTransient,
            isIndexed: try bool("indexed", a, default: false, entity: entityName, property: name),
            renamingIdentifier: a["elementID"],
            preservesValueInHistoryOnDeletion: try bool(
                "preserveAfterDeletion", a, default: false, entity: entityName, property: name))
        if let text = a["defaultDateTimeInterval"] ?? a["defaultValueString"] {
            let key = a["defaultDateTimeInterval"] != nil ? "defaultDateTimeInterval" : "defaultValueString"
            if type == .binaryData || { if case .transformable = type { return true } else { return false } }() {
                warn("attribute", "\(key) on \(type.xmlName) attribute \(name) ignored")
            } else {
                guard let value = type.parseValue(text) else { throw invalid(key, text, entityName, name) }
                attribute.defaultValue = value
            }
        }
        try readBounds(a, into: &attribute, entity: entityName)
        if let pattern = a["regularExpressionString"], !pattern.isEmpty {
            attribute.validation.pattern = pattern
        }
        return attribute
    }

    /// min/max: lengths for strings, values for numbers, seconds since 2001 for dates.
    private func readBounds(
        _ a: [String: String], into attribute: inout AttributeDescription, entity: String
    ) throws(ModelError) {
        let name = attribute.name
        for (isMin, keys) in [
            (true, ["minDateTimeInterval", "minValueString"]), (false, ["maxDateTimeInterval", "maxValueString"]),
        ] {
            guard let key = keys.first(where: { a[$0] != nil }), let text = a[key] else { continue }
            switch attribute.type {
            case .string:
                guard let length = Int(text), length >= 0 else { throw invalid(key, text, entity, name) }
                if isMin { attribute.validation.minLength = length } else { attribute.validation.maxLength = length }
            default:
                guard attribute.type == .date || attribute.type.isNumeric else {
                    warn("attribute", "\(key) on \(attribute.type.xmlName) attribute \(name) ignored")
                    continue
                }
                guard let value = attribute.type.parseValue(text) else { throw invalid(key, text, entity, name) }
                if isMin { attribute.validation.minValue = value } else { attribute.validation.maxValue = value }
            }
        }
    }

    private func makeRelationship(_ a: [String: String]) throws(ModelError) -> RelationshipDescription {
        let entityName = entity?.name ?? ""
        let name = try required("name", a, element: "relationship")
        let destination = try required("destinationEntity", a, element: "relationship")
        let isToMany = try bool("toMany", a, default: false, entity: entityName, property: name)
        var deleteRule = DeleteRule.nullify
        if let text = a["deletionRule"] {
            guard let rule = DeleteRule(xmlName: text) else { throw invalid("deletionRule", text, entityName, name) }
            deleteRule = rule
        }
        let minCount = try int("minCount", a, entity: entityName, property: name) ?? 0
        // Core Data writes maxCount="1" for every to-one; for to-many, 0 or absent means no limit.
        let maxCount = try int("maxCount", a, entity: entityName, property: name)
        if let inverseEntity = a["inverseEntity"], inverseEntity != destination {
            warn(
                "relationship",
                "relationship \(name): inverseEntity \(inverseEntity) differs from destinationEntity \(destination); "
                    + "destinationEntity used"
            )
        }
        return RelationshipDescription(
            name: name, destination: destination, inverse: a["inverseName"], isToMany: isToMany,
            isOrdered: try bool("ordered", a, default: false, entity: entityName, property: name),
            deleteRule: deleteRule, minCount: minCount,
            maxCount: isToMany ? maxCount.flatMap { $0 == 0 ? nil : $0 } : nil,
            isOptional: try bool("optional", a, default: false, entity: entityName, property: name),
            isTransient: try bool("transient", a, default: false, entity: entityName, property: name),
            renamingIdentifier: a["elementID"])
    }

    private func addFetchIndexElement(_ a: [String: String]) throws(ModelError) {
        let entityName = entity?.name ?? ""
        let property = try required("property", a, element: "fetchIndexElement")
        var kind = FetchIndexElement.Kind.binary
        if let text = a["type"] {
            switch text {
            case "Binary": kind = .binary
            case "RTree": kind = .rTree
            default: throw invalid("type", text, entityName, property)
            }
        }
        var ascending = true
        if let text = a["order"] {
            switch text {
            case "ascending": ascending = true
            case "descending": ascending = false
            default: throw invalid("order", text, entityName, property)
            }
        }
        fetchIndex?.elements.append(FetchIndexElement(property: property, isAscending: ascending, kind: kind))
    }

    // MARK: - Helpers

    private func required(_ key: String, _ a: [String: String], element: String) throws(ModelError) -> String {
        guard let value = a[key], !value.isEmpty else {
            let owner = entity.map { " in entity \($0.name)" } ?? ""
            throw .invalidModelFile(path: path, line: line, detail: "<\(element)>\(owner) has no \(key)")
        }
        return value
    }

    private func bool(
        _ key: String, _ a: [String: String], default value: Bool, entity: String, property: String?
    ) throws(ModelError) -> Bool {
        guard let text = a[key] else { return value }
        switch text {
        case "YES": return true
        case "NO": return false
        default:
            throw .invalidXMLValue(
                path: path, line: line, entity: entity, property: property, xmlAttribute: key, value: text)
        }
    }

    private func int(_ key: String, _ a: [String: String], entity: String, property: String) throws(ModelError) -> Int?
    {
        guard let text = a[key] else { return nil }
        guard let value = Int(text), value >= 0 else { throw invalid(key, text, entity, property) }
        return value
    }

    private func invalid(_ key: String, _ value: String, _ entity: String, _ property: String) -> ModelError {
        .invalidXMLValue(path: path, line: line, entity: entity, property: property, xmlAttribute: key, value: value)
    }

    private func warn(_ element: String, _ message: String) {
        result.warnings.append(ModelWarning(element: element, file: path, line: line, message: message))
    }

    /// Skips the element just opened and all its children.
    private func skip() {
        stack.removeLast()
        skipDepth = 1
    }

    private func fail(_ e: ModelError, _ parser: XMLParser) {
        error = e
        parser.abortParsing()
    }
}
