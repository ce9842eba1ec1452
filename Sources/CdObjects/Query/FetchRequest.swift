/// One key of a sort.
public struct SortDescriptor: Hashable, Sendable {
    /// An attribute name or a key path through to-one relationships (`department.name`).
    public var key: String
    public var ascending: Bool
    /// Compare strings case-insensitively (Core Data's `caseInsensitiveCompare:`).
    public var caseInsensitive: Bool

    public init(_ key: String, ascending: Bool = true, caseInsensitive: Bool = false) {
        self.key = key
        self.ascending = ascending
        self.caseInsensitive = caseInsensitive
    }
}

/// A named expression computed per result row of a dictionary fetch, Cadmium's
/// `includeExpression(_:resultType:withFormat:)`: `"@sum.salary"`, `"name.@count"`,
/// `"@max.hired"`, `"@avg.salary"`, `"@min.salary"`.
public struct FetchExpression: Hashable, Sendable {
    public var name: String
    public var format: String
    public var resultType: AttributeType

    public init(name: String, format: String, resultType: AttributeType) {
        self.name = name
        self.format = format
        self.resultType = resultType
    }
}

/// What a fetch returns.
public enum FetchResultType: Hashable, Sendable {
    case objectIDs
    /// One `[String: PropertyValue]` row per object (or per group with `groupBy`), holding the
    /// `propertiesToFetch`: attributes as `.attribute`, to-one relationships as `.toOne`, and
    /// expressions as `.attribute` of their result type.
    case dictionaries
}

/// A query: entity, filter, sort, paging, and for dictionary results the properties,
/// expressions and grouping. Built by the context layer's `CdFetchRequest`.
///
/// ```swift
/// var request = FetchRequest(entity: "Employee")
/// request.predicate = try CdPredicate(format: "salary > %@", 50_000)
/// request.sortDescriptors = [SortDescriptor("name")]
/// request.limit = 10
/// ```
public struct FetchRequest: Hashable, Sendable {
    public var entity: String
    public var predicate: CdPredicate?
    public var sortDescriptors: [SortDescriptor] = []
    /// At most this many results (after `offset`); nil for all.
    public var limit: Int?
    public var offset: Int = 0
    /// Include instances of sub-entities (Core Data's default).
    public var includesSubentities: Bool = true
    public var resultType: FetchResultType = .objectIDs
    /// For dictionary results: attribute names and expression names, in order.
    /// Empty means every attribute. For `ObjectSnapshot.fetchObjects`, a projection: the values
    /// of each match hold only these attributes and to-one relationships, and the rest of each
    /// record is not decoded.
    public var propertiesToFetch: [String] = []
    /// Expressions that `propertiesToFetch` may name.
    public var expressions: [FetchExpression] = []
    /// For dictionary results: group by these attributes (each must be in `propertiesToFetch`).
    public var groupBy: [String] = []
    /// For dictionary results: drop duplicate rows.
    public var distinct: Bool = false

    public init(entity: String) { self.entity = entity }
}
