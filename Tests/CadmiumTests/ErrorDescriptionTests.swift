// What a caller sees of a failure: `"\(error)"`, `String(describing:)` and `localizedDescription`
// name the entity, the object, the key and the call that met it, with Core Data's code, so that a
// server's log line is enough to find the cause (issue 25: 500s with no useful line).

import CdObjects
import CdStore
import Foundation
import Testing
@testable import Cadmium

/// An entity with a unique name and a bounded priority.
final class DescribedLabel: CdManagedObject {
    @Attribute(.unique) var name: String
    @Attribute(.range(0...10)) var priority: Int64 = 1
}

extension CadmiumSuites {
    @Suite struct ErrorDescription {
        private func open() throws {
            try Cd.initWithStore(model: try CdModel(classes: [DescribedLabel.self]), storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
        }

        /// Every rendering of `error` holds each of `parts`, and they all agree.
        private func expectDescribed(_ error: any Error, _ parts: [String]) {
            let text = "\(error)"
            #expect(String(describing: error) == text)
            #expect(error.localizedDescription == text, "localizedDescription: \(error.localizedDescription)")
            for part in parts { #expect(text.contains(part), "\(part) missing from: \(text)") }
        }

        @Test func aValidationFailureAtTheImplicitCommitNamesObjectKeyAndCall() throws {
            try open()
            let error = try background { () -> (any Error)? in
                do {
                    try Cd.transactAndWait {
                        let label = try Cd.create(DescribedLabel.self)
                        label.name = "urgent"
                        label.priority = 99
                    }
                    return nil
                } catch { return error }
            }
            let failure = try #require(error)
            #expect((failure as? CdError)?.code == 1610)
            expectDescribed(
                failure,
                ["DescribedLabel (DescribedLabel/1).priority", "the commit at the end of a transaction body", "1610"])
        }

        @Test func aUniquenessFailureAtCdCommitNamesBothObjectsTheKeyAndTheCall() throws {
            try open()
            let error = try background { () -> (any Error)? in
                try Cd.transactAndWait { try Cd.create(DescribedLabel.self).name = "home" }
                return try Cd.transactAndWait { () -> (any Error)? in
                    try Cd.create(DescribedLabel.self).name = "home"
                    do { try Cd.commit() } catch {
                        Cd.cancelImplicitCommit()  // the failed changes are not committed again
                        return error
                    }
                    return nil
                }
            }
            let failure = try #require(error)
            #expect((failure as? CdError)?.code == 1551)
            expectDescribed(
                failure, ["DescribedLabel (DescribedLabel/2).name", "DescribedLabel/1", "Cd.commit()", "1551"])
        }

        @Test func aLockedStoreNamesItsFile() throws {
            let url = try CadmiumSuites.Close.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try CdModel(classes: [DescribedLabel.self])
            try Cd.initWithStore(model: model, storeURL: url)
            defer { try? Cd.close() }
            // A second opener that wants the file to itself (as a migration or compaction does)
            // while `Cd` has it open; an ordinary open would share it.
            var exclusive = StoreOptions()
            exclusive.sharing = .exclusive
            do {
                _ = try ObjectStore.open(path: url.path, model: model.objectModel, options: exclusive)
                Issue.record("a second open must be refused")
            } catch let error as CdError {
                guard case .store(.locked(let path)) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(path == url.path)
                expectDescribed(error, [url.path, "locked", "134060"])
            }
        }

        @Test func aFailureWithNoCallKeepsTheObjectStoresText() {
            let failure = ValidationFailure(
                entity: "Note", objectID: "Note/3", key: "title", message: "a value is required")
            #expect(
                "\(CdError.missingMandatoryProperty(failure))"
                    == "Note (Note/3).title: a value is required (Core Data error 1570)")
            let during = CdError.missingMandatoryProperty(failure).during("Cd.commit()").during("another call")
            #expect("\(during)" == "Note (Note/3).title: a value is required, in Cd.commit() (Core Data error 1570)")
        }
    }
}
