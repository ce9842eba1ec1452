// Which container a `Cd` call runs against (CN2, CN3 of CdContainer.swift), in this order:
//   1. the container of the context attached to the calling thread (inside a transaction or
//      `Cd.read` body, whichever task or queue runs it);
//   2. the container made current with `Cd.withContainer` (a task-local value: it follows the task
//      and its child tasks, and the asynchronous transaction forms carry it to their queues);
//   3. the default container (`Cd.initWithStore`).
// On the main thread, with no body attached, the current context is the main context of the
// container found by 2 or 3.
//
// Confinement: thread-safe (the task-local value is per task or thread; the default is locked).

import Foundation
import CdObjects
import CdStore

/// The container made current with `Cd.withContainer`.
enum CurrentContainer {
    @TaskLocal static var scoped: CdContainer?
}

extension Cd {
    /// The container `Cd` calls made here run against, or nil (no default and none current).
    static var container: CdContainer? {
        if let context = ThreadState.current.context { return context.container }
        return CurrentContainer.scoped ?? defaultContainer
    }

    /// The container ``initWithStore(model:storeURL:options:serialTX:)`` opened, or nil before it
    /// and after ``close()``.
    public static var defaultContainer: CdContainer? { globals.withLock { $0.container } }

    /// The container `Cd` calls made here run against: the one of the transaction or read body
    /// running on this thread, else the one made current with ``withContainer(_:_:)-(CdContainer,()throws->R)``,
    /// else ``defaultContainer``.
    public static var currentContainer: CdContainer? { container }

    /// Runs `body` with `container` current: the `Cd` calls in it (and in the transactions it
    /// starts, on whichever queue they run) use `container`, not the default. The default is not
    /// touched, so code on other threads and tasks is not affected.
    ///
    /// ```swift
    /// let container = try CdContainer(model: model, storeURL: nil)
    /// try Cd.withContainer(container) {
    ///     try Cd.transactAndWait { _ = try Cd.create(Item.self) }
    /// }
    /// ```
    public static func withContainer<R>(_ container: CdContainer, _ body: () throws -> R) rethrows -> R {
        try CurrentContainer.$scoped.withValue(container, operation: body)
    }

    /// Runs the asynchronous `body` with `container` current (the task-local value follows its
    /// awaits and child tasks): parallel tests each run their `Cd` code against a container of
    /// their own.
    ///
    /// ```swift
    /// @Test func countsItems() async throws {
    ///     let container = try CdContainer(model: model, storeURL: nil)
    ///     defer { try? container.close() }
    ///     try await Cd.withContainer(container) {
    ///         try await Cd.transaction { _ = try Cd.create(Item.self) }
    ///         #expect(try await MainActor.run { try Cd.objects(Item.self).count() } == 1)
    ///     }
    /// }
    /// ```
    public static func withContainer<R>(
        _ container: CdContainer, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        try await CurrentContainer.$scoped.withValue(container, operation: body, isolation: isolation)
    }

    /// `body` with `container` current when there is one (a call that found none reports A1
    /// itself).
    static func withContainer<R>(ifAny container: CdContainer?, _ body: () throws -> R) rethrows -> R {
        guard let container else { return try body() }
        return try withContainer(container, body)
    }

    /// The container, or misuse A1. `call` is built only for the report: describing a type in it
    /// costs about a microsecond, and `Cd.create` asks on every object.
    static func requireContainer(_ call: @autoclosure () -> String) throws -> CdContainer {
        if let container { return container }
        throw Misuse.report(
            .a1,
            "\(call()) was called before Cd.initWithStore(model:storeURL:serialTX:) and outside "
                + "Cd.withContainer(_:). Initialise Cadmium first, once, at startup, or run the call against a "
                + "container of its own.")
    }

    /// Whether `container` is the default now (CN4).
    static func isDefault(_ container: CdContainer) -> Bool { globals.withLock { $0.container === container } }

    /// `container` closed: it is the default no more.
    static func forgetDefault(_ container: CdContainer) {
        globals.withLock { globals in
            if globals.container === container { globals.container = nil }
        }
    }

    /// The subscribers of `Cd.commits` outside any container scope: they get the default
    /// container's commits (CN4).
    static let defaultContainerCommits = BroadcastSubscribers<CdCommit>()

    /// The subscribers of `Cd.remoteChanges` outside any container scope (CN4).
    static let defaultContainerRemoteChanges = BroadcastSubscribers<CdRemoteChange>()

    /// The container whose own broadcasts a subscription made here belongs to: nil when it is
    /// the default (or there is none), so that the subscription follows the default (CN4).
    static var scopedNonDefaultContainer: CdContainer? {
        guard let container = Cd.container, !isDefault(container) else { return nil }
        return container
    }
}
