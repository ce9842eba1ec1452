// Cadmium's other spellings of the query builder (docs/CADMIUM-API.md §3), so that code written
// for Cadmium compiles unchanged: `sort(_:ascending:)` (its README's name for `sorted`),
// `nsFetchRequest` (what Cadmium hands to a fetched-results controller; here the request itself)
// and the `NSAttributeType` case names that `includeExpression(_:resultType:withFormat:)` takes.
// Each is the same call as the project's own name; none adds behaviour.
//
// The predicate forms `filter(_:)`, `and(_:)` and `or(_:)` take a `CdPredicate` where Cadmium
// takes an `NSPredicate` (Linux has no `NSPredicate(format:)`): `CdPredicate(format:_:)` parses
// the same format.

import Foundation
import CdObjects

extension CdFetchRequest {
    /// The older spelling of ``sorted(_:ascending:)``: appends a sort key.
    ///
    /// ```swift
    /// try Cd.objects(Employee.self).filter("name = %@", someName).sort("name", ascending: true).fetch()
    /// ```
    public func sort(_ key: String, ascending: Bool = true) -> CdFetchRequest<T> { sorted(key, ascending: ascending) }

    /// The request itself: Cadmium's `nsFetchRequest`, the value a fetched-results controller
    /// takes.
    ///
    /// ```swift
    /// let controller = CdFetchedResultsController(
    ///     fetchRequest: Cd.objects(Item.self).sorted("name").nsFetchRequest,
    ///     sectionNameKeyPath: nil, cacheName: nil)
    /// ```
    public var nsFetchRequest: CdFetchRequest<T> { self }
}

/// Core Data's `NSAttributeType` case names, for `includeExpression(_:resultType:withFormat:)`
/// written as in Cadmium (`resultType: .integer64AttributeType`).
extension AttributeType {
    /// `.integer16`.
    public static var integer16AttributeType: AttributeType { .integer16 }
    /// `.integer32`.
    public static var integer32AttributeType: AttributeType { .integer32 }
    /// `.integer64`.
    public static var integer64AttributeType: AttributeType { .integer64 }
    /// `.decimal`.
    public static var decimalAttributeType: AttributeType { .decimal }
    /// `.double`.
    public static var doubleAttributeType: AttributeType { .double }
    /// `.float`.
    public static var floatAttributeType: AttributeType { .float }
    /// `.string`.
    public static var stringAttributeType: AttributeType { .string }
    /// `.boolean`.
    public static var booleanAttributeType: AttributeType { .boolean }
    /// `.date`.
    public static var dateAttributeType: AttributeType { .date }
    /// `.binaryData`.
    public static var binaryDataAttributeType: AttributeType { .binaryData }
    /// `.uuid`.
    public static var UUIDAttributeType: AttributeType { .uuid }
    /// `.uri`.
    public static var URIAttributeType: AttributeType { .uri }
}
