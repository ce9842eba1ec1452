// A position in a container's persistent history, as SwiftData's `DefaultHistoryToken` is one:
// the store's history token (`CdHistoryToken`: the history ID and a transaction number) and the
// container's store identifier. Apps keep the last token they processed (it is Codable) and
// fetch the transactions after it (`#Predicate { $0.token > lastToken }`).
//
// Invariants:
//  HT1. Two tokens are equal, hash and order as their store tokens do: by history ID, then by
//       transaction number. The store identifier (a file path) is carried along, not compared,
//       so a token stays valid when the file is moved or opened through another path.
//  HT2. A token decoded from JSON is the token encoded (round trip), and bytes that are not one
//       throw `DecodingError` naming the field, never a token of another position.

internal import CdObjects
import Foundation

/// A bookmark in a store's history (SwiftData's `HistoryToken`).
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The value a token stands for.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The store this token is a position of: its file path, or `memory:UUID`.
    var storeIdentifier: String { get }
    /// The token's value.
    var tokenValue: TokenType? { get }
}

/// The token of a transaction of a container's history.
///
/// ```swift
/// let data = try JSONEncoder().encode(transaction.token)          // keep it across launches
/// let lastToken = try JSONDecoder().decode(DefaultHistoryToken.self, from: data)
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.token > lastToken }
/// ```
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The store identifier and the transaction number, as Apple's SwiftData gives it.
    public typealias TokenType = [String: Int64]

    /// The store's own token (HT1).
    let storeToken: CdHistoryToken
    /// The store this token is a position of: its file path, or `memory:UUID`.
    public let storeIdentifier: String

    init(storeToken: CdHistoryToken, storeIdentifier: String) {
        self.storeToken = storeToken
        self.storeIdentifier = storeIdentifier
    }

    /// The store identifier and the transaction's number.
    public var tokenValue: [String: Int64]? {
        [storeIdentifier: Int64(truncatingIfNeeded: storeToken.number)]
    }

    /// The transaction's number in its store's history.
    public var id: Int { Int(truncatingIfNeeded: storeToken.number) }

    /// Ordered by history, then by transaction number (HT1): a later transaction of one history
    /// has a greater token.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.storeToken < rhs.storeToken
    }

    public static func == (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.storeToken == rhs.storeToken
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storeToken) }

    /// `<store identifier>#<history ID>#<number>`.
    public var description: String { "\(storeIdentifier)#\(storeToken)" }

    private enum CodingKeys: String, CodingKey { case storeIdentifier, historyID, number }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .historyID)
        guard let historyID = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .historyID, in: c, debugDescription: "\(text) is not a history ID (a UUID)")
        }
        let number = try c.decode(UInt64.self, forKey: .number)
        storeToken = CdHistoryToken(storeID: historyID, number: number)
        storeIdentifier = try c.decode(String.self, forKey: .storeIdentifier)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(storeIdentifier, forKey: .storeIdentifier)
        try c.encode(storeToken.storeID.uuidString, forKey: .historyID)
        try c.encode(storeToken.number, forKey: .number)
    }
}
