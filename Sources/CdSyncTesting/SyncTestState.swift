// A replica's objects in a form that compares across replicas: local keys differ, global IDs do
// not. Every object becomes one line, "<entity> <attr>=<value> … <rel>=[<gid>,…]", keyed by its
// global ID; relationships are listed on both sides (sorted), so an inverse that disagrees shows.

import CadmiumSync
import CdObjects
import Foundation

package enum SyncTestState {
    /// The canonical state of every object of the test model in `snapshot`.
    package static func canonical(_ snapshot: ObjectSnapshot, model: ObjectModel) throws -> [String: String] {
        let gids = try SyncIdentity.globalIDs(snapshot)
        var result: [String: String] = [:]
        for entity in model.entityNames.sorted() {
            for id in try snapshot.fetchIDs(FetchRequest(entity: entity)) {
                guard let gid = gids[id] else {
                    result["unmapped \(id)"] = "object \(id) has no global ID"
                    continue
                }
                let values = try snapshot.values(of: id) ?? [:]
                var parts = [entity]
                for a in model.allAttributes(of: entity).map({ $0.name }).sorted() {
                    if case let .attribute(v)? = values[a] { parts.append("\(a)=\(v)") }
                }
                for r in model.allRelationships(of: entity).sorted(by: { $0.name < $1.name }) {
                    let targets: [ObjectID]
                    if r.isToMany {
                        targets = try snapshot.related(id, r.name)
                    } else if case let .toOne(t)? = values[r.name], let t {
                        targets = [t]
                    } else {
                        targets = []
                    }
                    parts.append(
                        "\(r.name)=[" + targets.map { gids[$0]?.uuidString ?? "?\($0)" }.sorted().joined(separator: ",")
                            + "]")
                }
                result[gid.uuidString] = parts.joined(separator: " ")
            }
        }
        return result
    }
}
