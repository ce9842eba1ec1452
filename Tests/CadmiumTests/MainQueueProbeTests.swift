import Testing
import Foundation
@testable import Cadmium

/// Swift Testing on Linux drains `DispatchQueue.main` while tests run (the update handler and
/// `onMainWith` depend on it) — but from a thread that is not the process's main thread, since
/// the main thread has called `dispatch_main()`. `ThreadState.isMain` therefore also accepts
/// the main queue, and `@MainActor` code (which runs on the main queue) counts as main.
@Suite struct MainQueueProbeTests {
    @Test func mainQueueIsDrainedWhileTestsRun() async throws {
        let ran = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            DispatchQueue.main.async { c.resume(returning: ThreadState.isMain) }
        }
        #expect(ran)
    }

    @MainActor @Test func mainActorTestsRunOnTheMainThread() {
        #expect(ThreadState.isMain)
    }
}
