// Binary attributes with "Allows External Storage": Core Data keeps a small value inline and a
// large one in a file of its own, and marks which in the column's first byte:
//
//   OFFSET  SIZE  DESCRIPTION
//   0       1     0x01: the value follows inline; 0x02: stored in a file
//   1       n     0x01: the value's bytes
//                 0x02: the file's name, an ASCII UUID (trailing NUL bytes ignored), under
//                       `.<store file name>_SUPPORT/_EXTERNAL_DATA/` beside the store
//
// The model reader does not keep `allowsExternalBinaryDataStorage` (it changes nothing in a
// Cadmium store), so the importer reads that flag from the model version's `contents` itself.

import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Resolves external-storage values of one store.
struct ExternalData {
    /// `.<store name>_SUPPORT/_EXTERNAL_DATA`.
    let folder: URL

    init(store: URL) {
        folder = store.deletingLastPathComponent()
            .appendingPathComponent(".\(store.deletingPathExtension().lastPathComponent)_SUPPORT")
            .appendingPathComponent("_EXTERNAL_DATA")
    }

    /// The value a column of an external-storage attribute stands for.
    func resolve(_ bytes: Data) throws(ValueProblem) -> Data {
        guard let marker = bytes.first else { return bytes }
        switch marker {
        case 0x01:
            return bytes.dropFirst()
        case 0x02:
            let name = String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            guard UUID(uuidString: name) != nil else {
                throw ValueProblem(message: "external data reference '\(name.prefix(40))' is not a UUID")
            }
            let file = folder.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw ValueProblem(message: "external data file \(file.path) is missing or unreadable")
            }
            return data
        default:
            throw ValueProblem(message: "external-storage value starts with byte \(marker), not 1 or 2")
        }
    }

    /// The attributes (entity, name) with `allowsExternalBinaryDataStorage="YES"` in a `contents` file.
    static func externalAttributes(contents path: String) -> Set<ExternalAttribute> {
        guard let parser = XMLParser(contentsOf: URL(fileURLWithPath: path)) else { return [] }
        let finder = ExternalAttributeFinder()
        parser.delegate = finder
        _ = parser.parse()
        return finder.found
    }
}

/// An attribute stored with external storage allowed.
struct ExternalAttribute: Hashable {
    let entity: String
    let attribute: String
}

private final class ExternalAttributeFinder: NSObject, XMLParserDelegate {
    var found: Set<ExternalAttribute> = []
    private var entity: String?

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if element == "entity" { entity = attributes["name"] }
        if element == "attribute", let entity, let name = attributes["name"],
            attributes["allowsExternalBinaryDataStorage"] == "YES"
        {
            found.insert(ExternalAttribute(entity: entity, attribute: name))
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "entity" { entity = nil }
    }
}
