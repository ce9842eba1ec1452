// A value that a test's hooks (`SyncEngineOptions.afterPulledPage`, event loops) change from
// other tasks and the test reads afterwards.

import Synchronization

/// A locked value shared with escaping closures (a `Mutex` itself cannot be captured by them).
final class Recorded<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ initial: Value) { value = Mutex(initial) }

    /// Changes the value; returns what `body` returns.
    @discardableResult
    func update<R: Sendable>(_ body: @Sendable (inout Value) -> R) -> R { value.withLock { body(&$0) } }

    /// The value now.
    var current: Value { value.withLock { $0 } }
}
