// A rename of an object whose global ID derives from its unique values (GI4 of GlobalID.swift):
// the push deletes the old ID and creates the new one, and the references to the old ID that
// the renaming replica had seen move to the new one.
//
// Invariants:
//  PU5. Every reference property of the scope that names a renamed object's old ID and that the
//       pushing replica had seen — written by itself, or numbered at or below the request's
//       `seen` — names the new ID after the push: a to-one is rewritten, in a list each renamed
//       ID is replaced and an ID listed twice keeps its first place. Such a property, and its
//       object, take the push's change number, so every replica pulls it. A reference the
//       replica had not seen is concurrent with the rename and keeps the old ID: it meant the
//       object its writer knew by that ID, which lives on only when another replica created it
//       concurrently (PR2); otherwise the delete's repair strips it. So the outcome does not
//       depend on which of the two pushes reaches the server first.
//  PU6. The properties to move are read before the push writes anything and written, whole,
//       after its deletes and their repair (PU4): every renamed ID is replaced at once (two tags
//       that swap names swap their links, not move them twice), and an entry naming an object
//       the batch deletes and does not rename is dropped as the repair drops it. Moving them
//       before the deletes let the repair strip a link moved to an ID the batch deletes and
//       creates again (a tag renamed to the name of one it deleted, or a swap).

import Foundation
import PostgresNIO

/// A reference property that a push's renames move (PU5), as read before the push.
struct MovedReference: Sendable {
    var gid: UUID
    var name: String
    var value: WireValue
}

extension ServerConnection {
    /// The reference properties that name an ID the batch renames and that the pushing replica had
    /// seen (PU5), read before the push writes anything (PU6).
    func referencesToMove(_ request: PushRequest) async throws -> [MovedReference] {
        let olds = request.ops.compactMap { $0.kind == .insert ? $0.renamedFrom?.uuidString : nil }
        guard !olds.isEmpty else { return [] }
        return try await run(
            """
            SELECT gid, name, value::text FROM cadmium_sync.properties p
            WHERE p.scope = \(request.scope) AND (p.replica = \(request.replica) OR p.seq <= \(request.seen))
                AND ((p.value->>'t' = 'r' AND p.value->>'v' = ANY(\(olds)::text[]))
                    OR (p.value->>'t' = 'm' AND p.value->'v' ?| \(olds)::text[]))
            """, "reading the references that renames move"
        ).map { row in
            let (gid, name, json) = try row.decode((UUID, String, String).self)
            return MovedReference(gid: gid, name: name, value: try WireValue(json: json, where: "\(gid).\(name)"))
        }
    }

    /// Writes `moved` with every renamed ID of the batch replaced and the IDs it deletes dropped,
    /// after the batch's deletes (PU6).
    func writeMovedReferences(
        _ moved: [MovedReference], _ request: PushRequest, deleted: Set<UUID>, seq: Int64
    ) async throws {
        guard !moved.isEmpty else { return }
        var renamed: [UUID: UUID] = [:]
        for op in request.ops where op.kind == .insert {
            if let old = op.renamedFrom { renamed[old] = op.gid }
        }
        let values = moved.map { Self.moving($0.value, renamed: renamed, deleted: deleted).json }
        let scope = request.scope
        try await run(
            """
            UPDATE cadmium_sync.properties p SET value = t.v::jsonb, seq = \(seq)
            FROM unnest(\(moved.map(\.gid))::uuid[], \(moved.map(\.name))::text[], \(values)::text[]) AS t(g, n, v)
            WHERE p.scope = \(scope) AND p.gid = t.g AND p.name = t.n
            """, "moving references to renamed objects")
        try await run(
            """
            UPDATE cadmium_sync.objects SET seq = \(seq)
            WHERE scope = \(scope) AND gid = ANY(\(Array(Set(moved.map(\.gid))))) AND NOT deleted
            """, "numbering objects whose references moved")
    }

    /// `value` with the renamed IDs replaced, all at once, and the deleted ones dropped (PU6).
    static func moving(_ value: WireValue, renamed: [UUID: UUID], deleted: Set<UUID>) -> WireValue {
        switch value {
        case let .toOne(g?):
            if let new = renamed[g] { return .toOne(new) }
            return deleted.contains(g) ? .toOne(nil) : value
        case let .toMany(gs):
            var seen = Set<UUID>()
            let list = gs.compactMap { g -> UUID? in
                if let new = renamed[g] { return new }
                return deleted.contains(g) ? nil : g
            }
            return .toMany(list.filter { seen.insert($0).inserted })
        case .toOne(nil), .attribute:
            return value
        }
    }
}
