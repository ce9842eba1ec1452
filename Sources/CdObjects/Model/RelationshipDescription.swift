// One relationship of an entity: destination, inverse, cardinality, delete rule and count
// bounds. Core Data's NSRelationshipDescription, as a value type, plus the count and delete
// checks (codes 1570, 1580, 1590, 1600) that the record layer runs at save and delete.

/// What happens to related objects when the source object is deleted.
///
/// Raw values are Core Data's `NSDeleteRule` values (no action 0, nullify 1, cascade 2, deny 3);
/// frozen, as they are persisted.
public enum DeleteRule: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Leave related objects alone; they may point at a deleted object (Core Data "No Action").
    case noAction = 0
    /// Remove the deleted object from the inverse relationship of each related object.
    case nullify = 1
    /// Delete the related objects too.
    case cascade = 2
    /// Refuse the delete (error 1600) while related objects exist.
    case deny = 3

    /// The `deletionRule` spelling in a `.xcdatamodel` file.
    public var xmlName: String {
        switch self {
        case .noAction: return "No Action"
        case .nullify: return "Nullify"
        case .cascade: return "Cascade"
        case .deny: return "Deny"
        }
    }

    /// The rule for a `deletionRule` spelling, or `nil`.
    public init?(xmlName: String) {
        guard let rule = DeleteRule.allCases.first(where: { $0.xmlName == xmlName }) else { return nil }
        self = rule
    }

    public var description: String { xmlName }
}

/// A relationship from one entity to another (or to itself).
///
/// Defaults follow `NSRelationshipDescription` created in code: to-one, optional, Nullify,
/// no count bounds.
///
/// ```swift
/// let employees = RelationshipDescription(name: "employees", destination: "Employee",
///                                         inverse: "department", isToMany: true,
///                                         deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Hashable, Codable {
    /// The property name, unique in the entity and its ancestors.
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name on `destination`, if any.
    public var inverse: String?
    /// To-many (a set of objects) or to-one.
    public var isToMany: Bool
    /// For to-many only: the related objects keep their order (NSOrderedSet).
    public var isOrdered: Bool
    /// What deleting the source object does to the related objects.
    public var deleteRule: DeleteRule
    /// The least number of related objects when there are any (0: no minimum).
    public var minCount: Int
    /// The most related objects of a to-many (`nil`: no maximum). To-one relationships are
    /// bounded by 1 by definition and keep `nil` here.
    public var maxCount: Int?
    /// Whether no related object is acceptable at save.
    public var isOptional: Bool
    /// Transient relationships are not stored and not part of the version hash.
    public var isTransient: Bool
    /// Free-form key/value pairs from the model (not hashed).
    public var userInfo: [String: String]
    /// The `elementID` from the model file: the relationship's previous name, for migration.
    public var renamingIdentifier: String?

    /// A relationship; only `name` and `destination` are required.
    public init(
        name: String, destination: String, inverse: String? = nil, isToMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, minCount: Int = 0,
        maxCount: Int? = nil, isOptional: Bool = true, isTransient: Bool = false,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
    }

    /// A to-many relationship; shorthand for `init(…, isToMany: true, …)`.
    public static func toMany(
        _ name: String, destination: String, inverse: String? = nil,
        ordered: Bool = false, deleteRule: DeleteRule = .nullify,
        minCount: Int = 0, maxCount: Int? = nil,
        isOptional: Bool = true
    ) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destination: destination, inverse: inverse, isToMany: true,
            isOrdered: ordered, deleteRule: deleteRule, minCount: minCount,
            maxCount: maxCount, isOptional: isOptional)
    }

    // MARK: - Checks for the record layer

    /// Checks the number of related objects at save: 1570 when a required to-one is empty, 1580
    /// below the minimum (a required to-many needs at least one), 1590 above the maximum (a
    /// to-one holds at most one). An optional relationship may always be empty.
    ///
    /// ```swift
    /// employees.validateCount(0, entityName: "Department")  // nil: optional
    /// ```
    public func validateCount(_ count: Int, entityName: String = "", objectID: String? = nil) -> CdError? {
        func failure(_ message: String) -> ValidationFailure {
            ValidationFailure(entity: entityName, objectID: objectID, key: name, message: message)
        }
        if count == 0 {
            if isOptional { return nil }
            return isToMany
                ? .relationshipLacksMinimumCount(failure("0 related objects, at least \(max(minCount, 1)) required"))
                : .missingMandatoryProperty(failure("a related object is required"))
        }
        let upper = isToMany ? maxCount : 1
        if count < minCount {
            return .relationshipLacksMinimumCount(failure("\(count) related objects, at least \(minCount) required"))
        }
        if let upper, count > upper {
            return .relationshipExceedsMaximumCount(failure("\(count) related objects, at most \(upper) allowed"))
        }
        return nil
    }

    /// Checks a delete of the source object: 1600 when the rule is Deny and `relatedCount`
    /// objects are still related.
    public func validateDelete(relatedCount: Int, entityName: String = "", objectID: String? = nil) -> CdError? {
        guard deleteRule == .deny, relatedCount > 0 else { return nil }
        return .relationshipDeniedDelete(
            ValidationFailure(
                entity: entityName, objectID: objectID, key: name,
                message: "delete denied: \(relatedCount) related object\(relatedCount == 1 ? "" : "s") in \(name)"))
    }
}
