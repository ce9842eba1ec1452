// Shared test support: the TestItem entity (declared in Swift and loaded from the Cadmium test
// model file), store set-up with the five seed items of Cadmium's tests, a misuse recorder, and
// helpers to run work on a background queue while the calling thread waits (as Cadmium's tests
// did, so main-thread fetches run before the asynchronous merge).

import Foundation
import Testing
import CdStore
@testable import Cadmium

/// The entity of Cadmium's test model: `id` Integer 64 required default 0, `name` String required.
final class TestItem: CdManagedObject {
    @Attribute var id: Int64 = 0
    @Attribute var name: String
}

/// `Cd` is global state: every suite that uses it is nested in this one, which runs its tests
/// one at a time.
@Suite(.serialized) struct CadmiumSuites {}

/// Where the test model comes from.
enum ModelSource: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case swift, file
    var testDescription: String {
        rawValue == "swift" ? "model declared in Swift" : "model read from CadmiumTestModel.xcdatamodel"
    }

    /// The model, or nil (skip) when the fixture folder is missing outside CI.
    func model() throws -> CdModel? {
        switch self {
        case .swift:
            return try CdModel(classes: [TestItem.self])
        case .file:
            guard let folder = Fixtures.modelsFolder() else { return nil }
            return try CdModel(
                contentsOf: folder.appendingPathComponent("CadmiumTestModel.xcdatamodel"),
                classes: [TestItem.self])
        }
    }
}

enum Fixtures {
    /// `../shared/fixtures/models` from the repository root. Missing: fails with `CI=true`,
    /// otherwise the caller skips and says so.
    static func modelsFolder() -> URL? {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("../shared/fixtures/models").standardized
        if FileManager.default.fileExists(atPath: folder.path) { return folder }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("fixture folder \(folder.path) is missing (CI=true)")
        } else {
            print("skipping: fixture folder \(folder.path) is missing")
        }
        return nil
    }
}

/// Runs `body` on a global queue and blocks the calling thread until it is done; rethrows.
func background<R>(_ body: @escaping () throws -> R) throws -> R {
    let box = LockedBox<Result<R, any Error>?>(nil)
    let group = DispatchGroup()
    let work = Unchecked(body)
    group.enter()
    DispatchQueue.global().async {
        box.set(Result { try work.value() })
        group.leave()
    }
    group.wait()
    return try box.get()!.get()
}

/// Waits (off the main thread) until `condition` holds, letting the main queue run.
func waitUntil(timeout: Double = 5, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

/// A lock-protected value for test closures: the package's `LockedState`.
typealias LockedBox = LockedState

extension LockedState {
    func get() -> Value { withLock { $0 } }
    func set(_ newValue: Value) { withLock { $0 = newValue } }
    func update(_ body: (inout Value) -> Void) { withLock { body(&$0) } }
}

/// Records misuses instead of stopping the program.
final class MisuseRecorder: @unchecked Sendable {
    let seen = LockedBox<[CdMisuse]>([])
    var kinds: [CdMisuse.Kind] { seen.get().map(\.kind) }
    func install() {
        Cd.misuseHandler = { [seen] misuse in seen.update { $0.append(misuse) } }
    }
}

/// Fresh in-memory store with the five seed items (1,A) … (5,E), created in one
/// `transactAndWait` on a background queue. Returns false (skip) when the model is unavailable.
@discardableResult
func initCd(_ source: ModelSource = .swift, serialTX: Bool = false) throws -> Bool {
    guard let model = try source.model() else { return false }
    try Cd.initWithStore(model: model, storeURL: nil, serialTX: serialTX)
    Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
    try background {
        try Cd.transactAndWait {
            for (id, name) in [(1, "A"), (2, "B"), (3, "C"), (4, "D"), (5, "E")] {
                let item = try Cd.create(TestItem.self)
                item.id = Int64(id)
                item.name = name
            }
        }
    }
    return true
}

/// Expects `body` to report `kind` (and, if it throws, to throw the `CdMisuse` of that kind).
func expectMisuse(
    _ kind: CdMisuse.Kind, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    let recorder = MisuseRecorder()
    let previous = Cd.misuseHandler
    recorder.install()
    defer { Cd.misuseHandler = previous }
    do {
        try body()
    } catch let misuse as CdMisuse {
        #expect(misuse.kind == kind, "thrown misuse", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
    #expect(recorder.kinds == [kind], "reported misuses: \(recorder.seen.get())", sourceLocation: sourceLocation)
    for misuse in recorder.seen.get() {
        #expect(!misuse.message.isEmpty && misuse.message.contains("thread"), sourceLocation: sourceLocation)
    }
}

/// Expects `body` to report `kind` and to throw the `CdMisuse` of that kind.
func expectThrownMisuse(
    _ kind: CdMisuse.Kind, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    var threw = false
    expectMisuse(kind, sourceLocation: sourceLocation) {
        do {
            try body()
        } catch {
            threw = true
            throw error
        }
    }
    #expect(threw, "the throwing form throws the misuse", sourceLocation: sourceLocation)
}

/// Expects `body` to throw a `CdError` with Core Data code `code`.
func expectCdError(code: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected CdError \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as CdError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected CdError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
