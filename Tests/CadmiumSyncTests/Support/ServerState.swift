// The server's objects and a replica's, in one form: global ID → "<entity> <name>=<json> …" for
// the synced properties (owned relationships as global IDs, references to objects that are not
// live dropped, as replicas drop them, PA3; an unordered to-many sorted, as its order means
// nothing: the server keeps a list in the order its writer sent it, and a rename replaces the
// old ID in place, PU5, which leaves the new one out of order).

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation

enum ServerState {
    static func read(_ url: URL, scope: String) async throws -> [String: String] {
        let c = try await ServerConnection.open(ServerAddress(url))
        defer { Task { await c.close() } }
        let result = try await c.pull(scope, replica: UUID(), after: nil)
        let live = Set(result.objects.filter { !$0.deleted }.map(\.gid))
        let schema = try SyncSchema(model: try SyncTestModel.make(), entities: SyncTestModel.entities)
        var state: [String: String] = [:]
        for o in result.objects where !o.deleted {
            var parts = [o.entity]
            for name in o.properties.keys.sorted() {
                var value = try WireValue(json: o.properties[name]!.json, where: name)
                switch value {
                case let .toOne(g?) where !live.contains(g): value = .toOne(nil)
                case let .toMany(gs):
                    let ordered = schema.entities[o.entity]?.relationships[name]?.ordered ?? true
                    let kept = gs.filter(live.contains)
                    value = .toMany(ordered ? kept : kept.sorted { $0.uuidString < $1.uuidString })
                default: break
                }
                parts.append("\(name)=\(value.json)")
            }
            state[o.gid.uuidString] = parts.joined(separator: " ")
        }
        return state
    }

    static func conflictCount(_ url: URL, scope: String) async throws -> Int64 {
        let c = try await ServerConnection.open(ServerAddress(url))
        defer { Task { await c.close() } }
        let rows = try await c.run("SELECT count(*) FROM cadmium_sync.conflicts WHERE scope = \(scope)", "counting")
        return try rows.first?.decode(Int64.self) ?? 0
    }
}

enum WireState {
    static func of(_ snapshot: ObjectSnapshot, schema: SyncSchema) throws -> [String: String] {
        let gids = try SyncIdentity.globalIDs(snapshot)
        var state: [String: String] = [:]
        for (name, entity) in schema.entities {
            var request = FetchRequest(entity: name)
            request.includesSubentities = false
            for id in try snapshot.fetchIDs(request) {
                guard let gid = gids[id] else { continue }
                let values = try snapshot.values(of: id) ?? [:]
                var parts = [name]
                for p in entity.synced.sorted() {
                    let value: WireValue
                    if let rel = entity.relationships[p] {
                        if rel.toMany {
                            var list = try snapshot.related(id, p).compactMap { gids[$0] }
                            if !rel.ordered { list.sort { $0.uuidString < $1.uuidString } }
                            value = .toMany(list)
                        } else if case let .toOne(t)? = values[p] {
                            value = .toOne(t.flatMap { gids[$0] })
                        } else {
                            value = .toOne(nil)
                        }
                    } else if case let .attribute(v)? = values[p] {
                        value = .attribute(v)
                    } else {
                        continue
                    }
                    parts.append("\(p)=\(value.json)")
                }
                state[gid.uuidString] = parts.joined(separator: " ")
            }
        }
        return state
    }
}
