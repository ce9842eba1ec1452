// Read access to a replica's identity map (RS3 of ReplicaState.swift) for tools and tests.

import CdObjects
import CdStore
import Foundation

/// The identity map of a synced store.
package enum SyncIdentity {
    /// Every mapped local object with its global ID, as `snapshot` sees the map (objects since
    /// deleted included): the entries on which the map's two directions agree (RS3; PA5 of
    /// PullApplier.swift), so an object keeps one ID when a stale entry names it too.
    package static func globalIDs(_ snapshot: ObjectSnapshot) throws -> [ObjectID: UUID] {
        guard let tree = try snapshot.sideTree(ReplicaState.tree) else { return [:] }
        var byGlobal: [UUID: ObjectID] = [:]
        var result: [ObjectID: UUID] = [:]
        do {
            try tree.scan(from: [UInt8(ascii: "g")], upTo: [UInt8(ascii: "h")]) { key, value in
                guard let gid = UUID(bytes: Array(key.dropFirst())), let zero = value.firstIndex(of: 0),
                    value.count - zero == 9
                else { return true }
                byGlobal[gid] = ObjectID(
                    entity: String(decoding: value[..<zero], as: UTF8.self),
                    primaryKey: ReplicaState.i64(Array(value[(zero + 1)...]), 0))
                return true
            }
            try tree.scan(from: [UInt8(ascii: "l")], upTo: [UInt8(ascii: "m")]) { key, value in
                guard key.count >= 9, let gid = UUID(bytes: value), let id = byGlobal[gid],
                    id.primaryKey == ReplicaState.i64(Array(key.suffix(8)), 0)
                else { return true }
                result[id] = gid
                return true
            }
        } catch let e as StoreError {
            throw CdError.store(e)
        }
        return result
    }

    /// The replica's sync state as stored (no engine needed): what `cdsync status` prints.
    package static func storedStatus(_ store: ObjectStore) throws -> CdSyncStatus {
        let state = try store.read { try ReplicaState($0) }
        var pending = 0
        if let id = store.historyID {
            let token = state.pushed.flatMap {
                $0.historyID == id ? CdHistoryToken(storeID: id, number: $0.number) : nil
            }
            pending = ((try? store.history(after: token)) ?? []).filter { $0.author != PushCollector.author }.count
        }
        return CdSyncStatus(
            replicaID: state.replicaID, scope: state.scope, pendingTransactions: pending,
            acknowledgedTransaction: state.pushed?.number, acknowledgedBatches: state.pushed?.batches ?? 0,
            cursor: state.cursor?.sequence, lastPush: nil, lastPull: nil, lastError: nil)
    }
}
