// One attribute of an entity: its name, type, optionality, default, and validation rules.
// Core Data's NSAttributeDescription, as a value type.

import Foundation

/// Validation rules of an attribute, as in Xcode's model editor.
///
/// `minValue`/`maxValue` bound numbers (as `.integer`, `.double` or `.decimal`) and dates (as
/// `.date`); `minLength`/`maxLength` bound strings in UTF-16 code units (NSString's `length`,
/// which is what Core Data checks); `pattern` is an NSRegularExpression that must match the
/// whole string (Core Data uses `MATCHES` semantics).
///
/// ```swift
/// AttributeValidation(minValue: .integer(0), maxValue: .integer(150))
/// AttributeValidation(minLength: 1, maxLength: 64, pattern: "[A-Z]{2}-[0-9]+")
/// ```
public struct AttributeValidation: Sendable, Hashable, Codable {
    /// Lowest allowed number or earliest date (1620 / 1640 below it).
    public var minValue: CdValue?
    /// Highest allowed number or latest date (1610 / 1630 above it).
    public var maxValue: CdValue?
    /// Shortest allowed string, in UTF-16 code units (1670 below it).
    public var minLength: Int?
    /// Longest allowed string, in UTF-16 code units (1660 above it).
    public var maxLength: Int?
    /// A regular expression the whole string must match (1680 otherwise).
    public var pattern: String?

    /// Rules; every one is optional.
    public init(
        minValue: CdValue? = nil, maxValue: CdValue? = nil, minLength: Int? = nil,
        maxLength: Int? = nil, pattern: String? = nil
    ) {
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.pattern = pattern
    }

    /// No rules.
    public static let none = AttributeValidation()

    /// True when no rule is set.
    public var isEmpty: Bool { self == .none }

    private enum CodingKeys: String, CodingKey { case minValue, maxValue, minLength, maxLength, pattern }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minValue = try c.decodeIfPresent(CodableCdValue.self, forKey: .minValue)?.value
        maxValue = try c.decodeIfPresent(CodableCdValue.self, forKey: .maxValue)?.value
        minLength = try c.decodeIfPresent(Int.self, forKey: .minLength)
        maxLength = try c.decodeIfPresent(Int.self, forKey: .maxLength)
        pattern = try c.decodeIfPresent(String.self, forKey: .pattern)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(minValue.map(CodableCdValue.init), forKey: .minValue)
        try c.encodeIfPresent(maxValue.map(CodableCdValue.init), forKey: .maxValue)
        try c.encodeIfPresent(minLength, forKey: .minLength)
        try c.encodeIfPresent(maxLength, forKey: .maxLength)
        try c.encodeIfPresent(pattern, forKey: .pattern)
    }
}

/// An attribute of an entity.
///
/// Defaults follow `NSAttributeDescription` created in code: optional, not transient, not
/// indexed, no default value, no validation.
///
/// ```swift
/// let salary = AttributeDescription(name: "salary", type: .integer64, isOptional: false,
///                                   defaultValue: .integer(0),
///                                   validation: .init(minValue: .integer(0)))
/// ```
public struct AttributeDescription: Sendable, Hashable, Codable {
    /// The property name, unique in the entity and its ancestors.
    public var name: String
    /// The stored type.
    public var type: AttributeType
    /// Whether `nil` is allowed at save (a required attribute left `nil` fails with 1570).
    public var isOptional: Bool
    /// The value a new object starts with; `nil` means no default (the value starts `nil`).
    public var defaultValue: CdValue?
    /// Transient attributes live in memory only: not stored, not part of the version hash.
    public var isTransient: Bool
    /// Single-property index (Core Data's older `indexed="YES"`); part of the stored shape.
    public var isIndexed: Bool
    /// Rules checked by `validate(_:entityName:objectID:)`.
    public var validation: AttributeValidation
    /// Free-form key/value pairs from the model (not stored in records, not hashed).
    public var userInfo: [String: String]
    /// The `elementID` from the model file: the attribute's previous name, for migration.
    public var renamingIdentifier: String?
    /// Whether a deleted object's value of this attribute is kept in its persistent history
    /// record's tombstone (Core Data's `preservesValueInHistoryOnDeletion`, `.xcdatamodel`'s
    /// `preserveAfterDeletion="YES"`). Not part of the stored shape or the version hash.
    public var preservesValueInHistoryOnDeletion: Bool

    /// An attribute; only `name` and `type` are required.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, defaultValue: CdValue? = nil,
        isTransient: Bool = false, isIndexed: Bool = false, validation: AttributeValidation = .none,
        userInfo: [String: String] = [:], renamingIdentifier: String? = nil,
        preservesValueInHistoryOnDeletion: Bool = false
    ) {
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isTransient = isTransient
        self.isIndexed = isIndexed
        self.validation = validation
        self.userInfo = userInfo
        self.renamingIdentifier = renamingIdentifier
    }

    private enum CodingKeys: String, CodingKey {
        case name, type, isOptional, defaultValue, isTransient, isIndexed, validation, userInfo, renamingIdentifier
        case preservesValueInHistoryOnDeletion
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        type = try c.decode(AttributeType.self, forKey: .type)
        isOptional = try c.decode(Bool.self, forKey: .isOptional)
        defaultValue = try c.decodeIfPresent(CodableCdValue.self, forKey: .defaultValue)?.value
        isTransient = try c.decode(Bool.self, forKey: .isTransient)
        isIndexed = try c.decode(Bool.self, forKey: .isIndexed)
        validation = try c.decode(AttributeValidation.self, forKey: .validation)
        userInfo = try c.decode([String: String].self, forKey: .userInfo)
        renamingIdentifier = try c.decodeIfPresent(String.self, forKey: .renamingIdentifier)
        preservesValueInHistoryOnDeletion =
            try c.decodeIfPresent(Bool.self, forKey: .preservesValueInHistoryOnDeletion) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(type, forKey: .type)
        try c.encode(isOptional, forKey: .isOptional)
        try c.encodeIfPresent(defaultValue.map(CodableCdValue.init), forKey: .defaultValue)
        try c.encode(isTransient, forKey: .isTransient)
        try c.encode(isIndexed, forKey: .isIndexed)
        try c.encode(validation, forKey: .validation)
        try c.encode(userInfo, forKey: .userInfo)
        try c.encodeIfPresent(renamingIdentifier, forKey: .renamingIdentifier)
        // Written only when set, so the stored JSON of a model without it is what it always was.
        if preservesValueInHistoryOnDeletion { try c.encode(true, forKey: .preservesValueInHistoryOnDeletion) }
    }
}
