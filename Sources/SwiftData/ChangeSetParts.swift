// The one place where this module builds the to-many part of a `ChangeSet`: every save and
// every pending-change overlay of a fetch goes through `toMany`, so that a change in how to-many
// changes travel to the store (a whole list today) is made here only.

internal import CdObjects

/// Builders of change set parts.
enum ChangeSetParts {
    /// A to-many relationship's new value: the whole list of its targets.
    static func toMany(_ targets: [ObjectID]) -> PropertyValue { .toMany(targets) }
}
