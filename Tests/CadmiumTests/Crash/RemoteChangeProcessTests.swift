import CdFaultSupport
import CdObjects
import CdStore
import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    /// Two processes on one store through `Cd`, for real: this process opens the crash workload's
    /// store with history tracked and commits transaction 1; a `cadmium-crash-child --cd --history`
    /// process opens the same file while it is open here (`Cd.initWithStore` just works) and
    /// commits transactions 2–5. This process then reads the child's transactions with
    /// `Cd.history(after:)`, gets them in `Cd.remoteChanges` events with the newest token, finds
    /// the marker object its main context held updated by the merge, and sees the child's last
    /// transaction from a transaction of its own.
    @Suite struct RemoteChangeProcesses {
        @Test func aChildProcessesCommitsReachTheHistoryTheEventsAndTheMainContext() async throws {
            let child = try CrashChild.executable()
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cadmium-remote-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let path = dir.appendingPathComponent("shared.cdstore").path
            try CdCrashWorkload.open(path: path, history: true)
            defer { Cd.reset() }
            try background { try CdCrashWorkload.commit(1) }
            let marker = try await MainActor.run {
                Unchecked(try #require(try Cd.objects(CrashMarker.self).fetchOne()))
            }
            let log = RemoteChanges.RemoteLog()

            let run = try background {
                try CrashChild.runToEnd(child, arguments: ["--cd", "--history", path, "--max", "4"])
            }
            #expect(run.status == 0, "the child failed: \(run.stderr)")
            #expect(run.stdout.hasPrefix("OPEN 1"), "the child continued after this process's commit: \(run.stdout)")

            let history = try Cd.history(after: nil)
            #expect(history.count == 5, "this process's transaction and the child's four")
            let mine = try #require(history.first)
            let childs = try Cd.history(after: mine.token)
            #expect(childs.count == 4)
            #expect(
                childs.allSatisfy { $0.changes.contains { $0.objectID.entity == "CrashMarker" && $0.kind == .update } })

            let newest = try #require(history.last?.token)
            #expect(await waitUntil(timeout: 10) { log.events.get().last?.historyToken == newest })
            let announced = log.events.get().flatMap(\.transactions).map(\.token)
            #expect(announced == childs.map(\.token), "every transaction of the child, once, and none of this process")
            let last = await MainActor.run { marker.value.last }
            #expect(last == 5, "the main context merged the child's commits")
            #expect(try background { try CdCrashWorkload.lastNumber() } == 5)
            #expect(try background { try CdCrashWorkload.check() } == 5)
        }
    }
}
