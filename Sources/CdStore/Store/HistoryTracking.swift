/// Whether a store keeps persistent history (``StoreOptions/history``): Core Data's
/// `NSPersistentHistoryTrackingKey`.
///
/// The engine stores no history itself; the object store above it (`CdObjects`) reads this
/// option and records, in each commit, which objects it changed (docs/ARCHITECTURE.md §History).
///
/// ```swift
/// var options = StoreOptions()
/// options.history = .tracked
/// ```
public enum HistoryTracking: Sendable, Equatable {
    /// No history is recorded (the default), unless the store already keeps history: a store
    /// that recorded history once goes on recording it, so a reader never misses a commit.
    case off
    /// Every commit records its history record in the same engine commit as its data.
    case tracked
}
