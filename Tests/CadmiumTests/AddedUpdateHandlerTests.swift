// `addUpdateHandler`: several handlers per main-context object beside `updateHandler`, called in
// order after each merge; a removed handler is not called again; a transaction object is misuse H1.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct AddedUpdateHandlers {
        @MainActor @Test func everyHandlerIsCalledInOrderUntilRemoved() async throws {
            try initCd()
            let a = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
            let calls = LockedBox<[String]>([])
            a.updateHandler = { event in calls.update { $0.append("single \(event)") } }
            let first = a.addUpdateHandler { event in
                #expect(ThreadState.isMain, "delivered on the main queue")
                calls.update { $0.append("first \(event)") }
            }
            let second = a.addUpdateHandler { event in calls.update { $0.append("second \(event)") } }
            #expect(first.isActive && second.isActive)
            try await Cd.transaction { try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()?.name = "A2" }
            #expect(await waitUntil { calls.get().count == 3 })
            #expect(calls.get() == ["single updated", "first updated", "second updated"])

            first.remove()
            first.remove()
            #expect(!first.isActive && second.isActive)
            calls.set([])
            try await Cd.transaction { try Cd.objects(TestItem.self).filter("name = %@", "A2").delete() }
            #expect(await waitUntil { calls.get().count == 2 })
            await drainMainQueue()
            #expect(calls.get() == ["single deleted", "second deleted"])
        }

        @MainActor @Test func addedHandlersWorkWithoutTheSingleOne() async throws {
            try initCd()
            let a = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
            let count = LockedBox(0)
            let tokens = (0..<3).map { _ in a.addUpdateHandler { _ in count.update { $0 += 1 } } }
            try await Cd.transaction { try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()?.name = "B" }
            #expect(await waitUntil { count.get() == 3 })
            for token in tokens { token.remove() }
            try await Cd.transaction { try Cd.objects(TestItem.self).filter("name = %@", "B").fetchOne()?.name = "C" }
            await drainMainQueue()
            await drainMainQueue()
            #expect(count.get() == 3)
        }

        @Test func aTransactionObjectIsMisuseH1() throws {
            try initCd()
            let recorder = MisuseRecorder()
            recorder.install()
            let token = try Cd.throwing.transactAndWait { () -> CdUpdateHandlerToken in
                let a = try #require(try Cd.objects(TestItem.self).fetchOne())
                return a.addUpdateHandler { _ in }
            }
            #expect(recorder.kinds == [.h1])
            #expect(!token.isActive)
        }
    }
}
