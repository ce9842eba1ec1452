// A position in a store's persistent history: the store's history ID and the number of one
// transaction. Numbers grow by one per recorded commit (HS1 in HistoryLayout.swift), so a token
// says exactly which transactions a reader has seen.

import Foundation

/// A position in a store's persistent history (Core Data's `NSPersistentHistoryToken`): the
/// store's history ID and the number of the transaction it follows.
///
/// Pass the token of the last transaction read to ``ObjectStore/history(after:author:entity:)``
/// (or `Cd.history(after:)`) to read only the newer ones. Tokens are `Codable`, so a reader can
/// keep its place across launches.
///
/// ```swift
/// let data = try JSONEncoder().encode(last.token)
/// let token = try JSONDecoder().decode(CdHistoryToken.self, from: data)
/// ```
public struct CdHistoryToken: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The history ID of the store (a new one when a migration starts history anew).
    public let storeID: UUID
    /// The transaction's number: 1 for the store's first recorded commit, then one more per
    /// commit, with no gap.
    public let number: UInt64

    /// A token of transaction `number` of the store whose history ID is `storeID`.
    public init(storeID: UUID, number: UInt64) {
        self.storeID = storeID
        self.number = number
    }

    /// Tokens of one store compare by number; tokens of different stores by store ID first
    /// (an order, not a meaning).
    public static func < (lhs: CdHistoryToken, rhs: CdHistoryToken) -> Bool {
        if lhs.storeID != rhs.storeID { return lhs.storeID.uuidString < rhs.storeID.uuidString }
        return lhs.number < rhs.number
    }

    /// `<store ID>#<number>`.
    public var description: String { "\(storeID.uuidString)#\(number)" }
}
