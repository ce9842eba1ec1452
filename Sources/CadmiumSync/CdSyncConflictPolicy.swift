// The conflict policies a synced entity may choose, named after Core Data's merge policies.

import Foundation

/// How the server resolves a property that two replicas changed concurrently (neither had pulled
/// the other's edit when it pushed its own). Chosen per entity; ``newestEditWins`` by default.
/// Whatever the policy, a delete wins over concurrent edits.
///
/// ```swift
/// let sync = try CdSync(server: url, scope: "team-42", entities: ["Note", "Tag"],
///                       policies: ["Tag": .mergeByPropertyStoreTrump])
/// ```
public enum CdSyncConflictPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Per property, the edit with the newer hybrid-clock stamp wins; equal stamps are broken by
    /// the larger replica ID. Every replica converges on the same value whatever the push order.
    case newestEditWins
    /// Per property, the pushing replica's edit wins (Core Data's object trump): the last push wins.
    case mergeByPropertyObjectTrump
    /// Per property, the value already on the server wins (Core Data's store trump): the first
    /// push wins; the later replica's edit is dropped and it pulls the server's value.
    case mergeByPropertyStoreTrump
    /// A concurrent edit refuses the whole batch with the conflicts listed
    /// (``CdSyncError/Code/conflictRefused``); the replica then pulls the server's values.
    case error
}

/// One concurrent edit a policy decided against, as the server records it and an event reports.
public struct CdSyncConflict: Sendable, Hashable, CustomStringConvertible {
    /// The object's global ID.
    public let objectID: UUID
    /// Its entity.
    public let entity: String
    /// The property, or nil when the loss is an edit of an object another replica deleted.
    public let property: String?
    /// The replica whose edit lost.
    public let loser: UUID

    /// `Note 1B4E…/title lost by <replica>`.
    public var description: String {
        "\(entity) \(objectID.uuidString)/\(property ?? "(deleted)") lost by \(loser.uuidString)"
    }
}
