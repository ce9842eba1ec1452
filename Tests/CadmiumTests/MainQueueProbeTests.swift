import Testing
import Foundation
@testable import Cadmium

/// Swift Testing on Linux must drain `DispatchQueue.main` while tests run: the update handler
/// and `onMainWith` depend on it.
@Suite struct MainQueueProbeTests {
    @Test func mainQueueIsDrainedWhileTestsRun() async throws {
        let ran = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            DispatchQueue.main.async { c.resume(returning: Thread.isMainThread) }
        }
        #expect(ran)
    }

    @MainActor @Test func mainActorTestsRunOnTheMainThread() {
        #expect(Thread.isMainThread)
    }
}
