import CdStore

/// The object level of `cdstore-verify`: a verifier pass that runs ``ObjectStoreVerifier`` over
/// a store written by the object store — records decode against their entities, index entries
/// and records match both ways, uniqueness holds, relationships point at existing objects and
/// inverses agree, required attributes are present.
///
/// It runs after the engine's passes and only when they found no problems (object-level reads of
/// a damaged page file would only repeat the engine's findings); a store without the object
/// store's meta tree is a plain engine store and is left alone.
///
/// ```swift
/// var options = VerifierOptions()
/// options.additionalPasses = [ObjectStoreCheck()]
/// let report = try StoreVerifier.verify(path: "/data/app.cdstore", options: options)
/// ```
public struct ObjectStoreCheck: VerificationPass {
    public let name = "objects"

    public init() {}

    public func run(_ context: VerificationContext) throws {
        guard context.problemCount == 0 else {
            context.report(
                .note, VerificationLocation(area: .records),
                "object-level checks skipped: the engine-level problems come first")
            return
        }
        var options = StoreOptions(fileSystem: context.fileSystem)
        options.readOnly = true
        // The verifier's snapshot keeps the files still while this pass reads them (VerifierSnapshot
        // VS1), and `context.fileSystem` ends the WAL where the engine's passes saw it end (VS2):
        // this pass reads the same commits as one process, without attaching to the shared file.
        options.sharing = .exclusive
        options.cacheBytes = 16 << 20
        let store = try Store.open(path: context.path, options: options)
        defer { try? store.close() }
        try store.read { tx in
            guard try tx.tree(StoreLayout.metaTree) != nil else { return }
            for problem in try ObjectStoreVerifier().verify(tx) {
                context.report(
                    .problem, VerificationLocation(area: .records, tree: problem.tree, key: problem.key),
                    problem.description)
            }
        }
    }
}
