// The deadline on exchanges with the server (ServerDeadline.swift, SD1–SD3): an operation that
// never returns and ignores cancellation — as postgres-nio's query on a connection the server
// closed does — still lets its caller go when the time is up; a fast operation's result comes
// through; cancelling the caller ends the wait at once.

@testable import CadmiumSync
import Foundation
import Synchronization
import Testing

@Suite("Sync: the server deadline") struct ServerDeadlineTests {
    /// A wait that answers nothing but `release()`, not even cancellation.
    final class DeafWait: Sendable {
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
        func wait() async { await withCheckedContinuation { c in waiting.withLock { $0.append(c) } } }
        func release() {
            for c in waiting.withLock({ w in
                defer { w = [] }; return w
            }) { c.resume() }
        }
    }

    @Test(.timeLimit(.minutes(1))) func anOperationThatNeverReturnsLetsItsCallerGoAtTheDeadline() async throws {
        let deaf = DeafWait()
        let timedOut = Mutex(false)
        let started = ContinuousClock.now
        do {
            _ = try await withServerDeadline(
                .milliseconds(300), "waiting deafly", onTimeout: { timedOut.withLock { $0 = true } },
                {
                    await deaf.wait()
                    return 1
                })
            Issue.record("the deadline returned the operation's value")
        } catch let e as CdSyncError {
            #expect(e.code == .serverUnreachable)
            #expect(e.message.contains("waiting deafly"))
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(20), "waited \(waited)")
        #expect(timedOut.withLock { $0 })
        deaf.release()
    }

    @Test func aFastOperationsResultComesThrough() async throws {
        // The operation runs on the cooperative pool, which the whole suite can keep busy for
        // long stretches on a 2-core machine (a 30-second deadline passed once): the deadline here
        // is an hour, since only the result is in question.
        let timedOut = Mutex(false)
        let value = try await withServerDeadline(
            .seconds(3600), "adding", onTimeout: { timedOut.withLock { $0 = true } }, { 40 + 2 })
        #expect(value == 42)
        let thrown = await #expect(throws: CdSyncError.self) {
            try await withServerDeadline(
                .seconds(3600), "failing", onTimeout: {},
                {
                    throw CdSyncError(.serverError, "the operation's own error")
                })
        }
        #expect(thrown?.message == "the operation's own error")
        #expect(!timedOut.withLock { $0 })
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheCallerEndsTheWaitAtOnce() async throws {
        let deaf = DeafWait()
        let caller = Task {
            try await withServerDeadline(.seconds(600), "waiting deafly", onTimeout: {}) {
                await deaf.wait()
                return 1
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        deaf.release()
    }
}
