// The model of the sync tests and the convergence campaign: notes in folders with tags. Tags are
// unique by name (their global IDs derive from it, GI2); notes and tags are many-to-many; a note
// is in at most one folder.

import CdObjects

/// The sync tests' model.
package enum SyncTestModel {
    package static func make() throws -> ObjectModel {
        try ObjectModel(entities: entities(body: true))
    }

    /// The model before notes had a body (the versions tests' older replica).
    package static func older() throws -> ObjectModel { try ObjectModel(entities: entities(body: false)) }

    /// The model after labels came (the versions tests' newer replica): `make()` and `Label`.
    package static func newer() throws -> ObjectModel {
        try ObjectModel(
            entities: entities(body: true) + [
                EntityDescription(name: "Label", attributes: [AttributeDescription(name: "name", type: .string)])
            ])
    }

    /// The entities of `newer()`.
    package static let newerEntities = entities + ["Label"]

    private static func entities(body: Bool) -> [EntityDescription] {
        [
            EntityDescription(
                name: "Folder",
                attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "notes", destination: "Note", inverse: "folder", isToMany: true, deleteRule: .nullify)
                ]),
            EntityDescription(
                name: "Note",
                attributes: [
                    AttributeDescription(name: "title", type: .string)
                ] + (body ? [AttributeDescription(name: "body", type: .string)] : []) + [
                    AttributeDescription(name: "rank", type: .integer64, isOptional: false, defaultValue: .integer(0))
                ],
                relationships: [
                    RelationshipDescription(
                        name: "folder", destination: "Folder", inverse: "notes", deleteRule: .nullify),
                    RelationshipDescription(
                        name: "tags", destination: "Tag", inverse: "notes", isToMany: true, deleteRule: .nullify),
                ]),
            EntityDescription(
                name: "Tag",
                attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "notes", destination: "Note", inverse: "tags", isToMany: true, deleteRule: .nullify)
                ],
                uniquenessConstraints: [["name"]]),
        ]
    }

    /// The synced entities.
    package static let entities = ["Folder", "Note", "Tag"]
}
