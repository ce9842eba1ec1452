import Foundation

import CdObjects

// How `query` reads its command line into a fetch: predicate arguments, sort keys and property
// lists (docs/CDSTORE.md, "query").

enum QueryArguments {
    /// A predicate argument from the command line: an integer when it reads as one (`42`, `-7`),
    /// else a finite decimal number (`1.5`, `1e6`; not hexadecimal, `nan` or `inf`), else an
    /// object ID when it is `Entity/key` of an entity of the model (`Department/3`), else the
    /// string itself.
    static func argument(_ text: String, model: ObjectModel) -> Any {
        if let integer = Int64(text) { return integer }
        let decimal = text.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
        if decimal, let number = Double(text), number.isFinite { return number }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, model.entity(named: String(parts[0])) != nil, let key = Int64(parts[1]) {
            return ObjectID(entity: String(parts[0]), primaryKey: key)
        }
        return text
    }

    /// `name,-salary` as sort descriptors: `-` in front sorts descending.
    static func sort(_ text: String) throws -> [CdObjects.SortDescriptor] {
        try list(text, option: "--sort").map { key in
            key.hasPrefix("-")
                ? CdObjects.SortDescriptor(String(key.dropFirst()), ascending: false) : CdObjects.SortDescriptor(key)
        }
    }

    /// A comma-separated list of names, each non-empty.
    static func list(_ text: String, option: String) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !names.contains(where: { $0.isEmpty || $0 == "-" }) else {
            throw ToolFailure.usage("\(option) \"\(text)\": an empty name in the list")
        }
        return names
    }
}
