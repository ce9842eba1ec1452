// The one place where this module builds the to-many part of a `ChangeSet`. An inserted model
// (or an upsert onto an object it never read) sends its whole list; a saved model whose list was
// read sends the links it added and removed (`ToManyDelta`), which the store applies to the list
// as stored at save time, so links another context saved meanwhile are kept.

internal import CdObjects

/// Builders of change set parts.
enum ChangeSetParts {
    /// A to-many relationship's new value: the whole list of its targets.
    static func toMany(_ targets: [ObjectID]) -> PropertyValue { .toMany(targets) }

    /// The links added and removed between the list as read and as it is now; nil when none.
    static func toManyDelta(from loaded: [ObjectID], to current: [ObjectID]) -> ToManyDelta? {
        var delta = ToManyDelta()
        delta.record(from: loaded, to: current, ordered: false)
        return delta.isEmpty ? nil : delta
    }
}
