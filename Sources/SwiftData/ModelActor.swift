// Actors that own a context: `@ModelActor` (or a hand-written `ModelActor`) runs on a
// `DefaultSerialModelExecutor`, a serial queue whose context is used only by the jobs it runs,
// so the actor's code uses `modelContext` without crossing isolation.

import Dispatch
import Foundation

/// An executor that owns a `ModelContext`.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context, used only on this executor.
    var modelContext: ModelContext { get }
}

/// A `ModelExecutor` that runs jobs one at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The serial executor of a `ModelActor`: jobs run in order on a dispatch queue of its own.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked: `modelContext` is used only by the jobs this executor runs, one at a time.
    /// The context the executor's jobs use.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// An executor for `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.queue = DispatchQueue(label: "SwiftData.DefaultSerialModelExecutor")
    }

    /// Runs `job` after the jobs enqueued before it, on the executor's queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// The executor as an actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// An actor with a context of its own: declare it with `@ModelActor`.
public protocol ModelActor: Actor {
    /// The container the actor's context is on.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that owns the actor's context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its model executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialExecutor else {
            preconditionFailure("a ModelActor's modelExecutor must be a SerialExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with `id`, as `T`, from the actor's context.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        modelContext.model(for: id) as? T
    }
}
