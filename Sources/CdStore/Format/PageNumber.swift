/// A logical page number. Page 0 is never a real page: it means "none" wherever a page is referenced.
public struct PageNumber: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ value: UInt32) { self.rawValue = value }

    /// "No page": the null reference.
    public static let none = PageNumber(0)

    public static func < (lhs: PageNumber, rhs: PageNumber) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(rawValue)" }
}

/// The sequence number of a committed write transaction. Every page image records the commit
/// that wrote it; commit 0 is the empty store as created.
public struct CommitSequence: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ value: UInt64) { self.rawValue = value }

    public static func < (lhs: CommitSequence, rhs: CommitSequence) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The highest sequence a store uses (2^62), for commits and checkpoints alike. A store that
    /// commits once a nanosecond reaches it after 146 years; a file that claims more is damaged,
    /// and checking against it keeps every `+ 1` on a sequence read from the file from wrapping.
    public static let limit = CommitSequence(1 << 62)

    public var next: CommitSequence { CommitSequence(rawValue &+ 1) }
    public var description: String { "\(rawValue)" }
}
