// One polling thread per process watches every shared store (RemoteChangePoller RP1–RP3): three
// containers on three files are each told of another process's commit, one thread polls them all,
// and a container that closed is out of the rounds while the others stay in.

import CdObjects
import CdStore
import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct RemoteChangePolling {
        @Test func containersOnSeveralSharedStoresAreWatchedByOnePollingThread() async throws {
            let model = try CdModel(classes: [Department.self, Employee.self])
            let urls = (0..<3).map { _ in
                FileManager.default.temporaryDirectory.appendingPathComponent("poller-\(UUID()).cdstore")
            }
            defer {
                for url in urls {
                    for suffix in ["", "-wal", "-shm"] {
                        try? FileManager.default.removeItem(atPath: url.path + suffix)
                    }
                }
            }
            let containers = try urls.map { try CdContainer(model: model, storeURL: $0) }
            let watchers = try containers.map { container in try #require(container.remoteWatcher.withLock { $0 }) }
            // Polling begins on the main queue's next turn (RM4).
            #expect(await waitUntil { watchers.allSatisfy { RemoteChangePoller.shared.isPolling($0) } })
            #expect(RemoteChangePoller.shared.threadsStarted == 1)

            for (container, url) in zip(containers, urls) {
                let seen = LockedBox<[CdRemoteChange]>([])
                let stream = container.remoteChanges
                let follower = Task { for await change in stream { seen.update { $0.append(change) } } }
                defer { follower.cancel() }
                let other = try ObjectStore.open(path: url.path, model: model.objectModel, options: StoreOptions())
                let id = try other.newObjectIDs(entity: "Department", count: 1)[0]
                try other.apply(ChangeSet(inserted: [id: ["name": .attribute(.string("Sales"))]]))
                try other.close()
                #expect(await waitUntil { !seen.get().isEmpty }, "\(url.lastPathComponent) was polled")
            }

            try containers[0].close()
            #expect(!RemoteChangePoller.shared.isPolling(watchers[0]), "a closed container's watcher is out")
            #expect(
                RemoteChangePoller.shared.isPolling(watchers[1]) && RemoteChangePoller.shared.isPolling(watchers[2]))
            #expect(RemoteChangePoller.shared.threadsStarted == 1)
            for container in containers.dropFirst() { try container.close() }
        }
    }
}
