// What a replica pulled with, and what it skipped: the record of the synced schema that lets a
// replica on an older model keep for later the entities and properties it does not know
// (docs/SYNC.md, Versions).
//
// Where the skipped values are kept: on the server. A pull copies the server's current state of
// the objects it reads; what this model does not know stays in `cadmium_sync.properties` (a
// property row outlives every push that does not name it) and in `cadmium_sync.objects`, and the
// replica remembers, in the record, which names it applied. When its schema later names more (a
// model upgrade whose migration kept the sync state, MG12; an entity added to `entities:`), one
// pull reads the grown entities' objects whole again.
//
// Invariants:
//  VR1. Every pull's local commit writes, beside its cursor (RS2), the record of the schema it
//       applied with (`m.schema`): the name of every synced entity and every "Entity.property".
//  VR2. A pull whose schema names something its record lacks reads, in its one snapshot (PG1),
//       every object of the grown entities up to the snapshot's change number — not only those
//       changed after the cursor — and applies what differs (PA2) in its one local commit (PG2),
//       which writes the new record. After it the replica holds the server's values of every
//       entity and property it had skipped, as a replica that always knew them would; before
//       it, nothing of the catch-up is visible.
//  VR3. A store with a cursor and no record (synced before the record existed) catches up every
//       entity once: it cannot tell what it skipped.
//  VR4. The catch-up is a pull like any other: it runs only when no local transaction is
//       pending (PA1), so it overwrites no unpushed edit and re-applies none; the pending edits
//       are pushed first. A schema that shrank catches up nothing; its record shrinks with it, so
//       a name that comes back is caught up again.
//  VR5. A push names only properties this schema knows — an insert every synced property, an
//       update those its transactions changed (PushCollector) — and the server writes only the
//       properties a push names (PU2): a push from an older model never erases a newer model's
//       properties of an object. Only a delete drops them all.

import CdObjects
import Foundation

extension SyncSchema {
    /// The record of this schema (VR1): every synced entity's name and its "Entity.property"
    /// names.
    var record: Set<String> {
        var names: Set<String> = []
        for entity in entities.values {
            names.insert(entity.name)
            for p in entity.synced { names.insert("\(entity.name).\(p)") }
        }
        return names
    }

    /// The entities whose objects a pull must read whole again (VR2, VR3): those naming anything
    /// `recorded` lacks, every entity when nothing is recorded, sorted.
    func grown(since recorded: Set<String>?) -> [String] {
        entities.values.filter { entity in
            guard let recorded else { return true }
            return !recorded.contains(entity.name)
                || entity.synced.contains { !recorded.contains("\(entity.name).\($0)") }
        }.map(\.name).sorted()
    }
}

extension ReplicaState {
    /// The record's bytes: its names sorted, joined by line feeds (UTF-8).
    static func write(record: Set<String>) -> SideTreeWrite {
        meta("schema", Array(record.sorted().joined(separator: "\n").utf8))
    }

    /// Decodes the record's bytes.
    static func record(_ bytes: [UInt8]) -> Set<String> {
        Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }
}
