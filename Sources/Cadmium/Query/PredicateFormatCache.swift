// The process's parsed predicate formats: `filter("SELF == %@", id)` in a loop parses its format
// once and then binds each call's arguments to the template (PredicateTemplate, whose invariant
// PT1 makes that the same as parsing again).
//
// Invariants:
// FC1. At most `capacity` formats are kept; when full, the table is emptied and refills with the
//      formats in use, so a program that builds formats from data cannot grow it without limit.
// FC2. A format with no template is remembered as such (nil) and parsed directly each time.

import CdObjects
import CdStore

enum PredicateFormatCache {
    static let capacity = 256
    private static let table = LockedState<[String: PredicateTemplate?]>([:])

    /// `format` parsed with `arguments`, through the format's template when it has one.
    static func predicate(_ format: String, _ arguments: [Any]) throws -> CdPredicate {
        let cached = table.withLock { $0[format] }
        let template: PredicateTemplate?
        if let cached {
            template = cached
        } else {
            template = PredicateTemplate(format: format)
            table.withLock { table in
                if table.count >= capacity { table.removeAll(keepingCapacity: true) }
                table[format] = .some(template)
            }
        }
        if let template, let bound = try template.bind(arguments) { return bound }
        return try CdPredicate(format: format, argumentArray: arguments)
    }

    /// The number of formats kept (for tests of FC1).
    static var count: Int { table.withLock { $0.count } }
}
