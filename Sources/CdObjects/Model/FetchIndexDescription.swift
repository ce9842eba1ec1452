// A fetch index of an entity (Core Data's NSFetchIndexDescription): a name and an ordered list
// of elements, each a property with a direction and a kind. Part of the stored shape.

/// One element of a fetch index.
public struct FetchIndexElement: Sendable, Hashable, Codable {
    /// Binary (B-tree) or R-tree, as in Core Data. Raw values are frozen (version hash).
    public enum Kind: UInt8, Sendable, Hashable, Codable {
        case binary = 0
        case rTree = 1

        /// The `type` spelling in a `.xcdatamodel` file.
        public var xmlName: String { self == .binary ? "Binary" : "RTree" }
    }

    /// The indexed attribute or relationship.
    public var property: String
    /// Ascending (true) or descending order.
    public var isAscending: Bool
    /// Binary or R-tree.
    public var kind: Kind

    /// An element; ascending binary unless told otherwise.
    public init(property: String, isAscending: Bool = true, kind: Kind = .binary) {
        self.property = property
        self.isAscending = isAscending
        self.kind = kind
    }

    /// An ascending binary element.
    public static func ascending(_ property: String) -> FetchIndexElement {
        FetchIndexElement(property: property, isAscending: true)
    }

    /// A descending binary element.
    public static func descending(_ property: String) -> FetchIndexElement {
        FetchIndexElement(property: property, isAscending: false)
    }
}

/// A named, possibly compound, index over properties of one entity.
///
/// ```swift
/// FetchIndexDescription(name: "byMakerAndPlate", elements: [.ascending("maker"), .descending("numberPlate")])
/// ```
public struct FetchIndexDescription: Sendable, Hashable, Codable {
    /// The index name, unique in the entity.
    public var name: String
    /// The indexed properties, most significant first.
    public var elements: [FetchIndexElement]

    /// A named index over `elements`.
    public init(name: String, elements: [FetchIndexElement]) {
        self.name = name
        self.elements = elements
    }
}
