// The logical pages as recovery would see them, for BTreeChecker and later passes: the newest
// WAL image of an applied commit, else the page file's image. A page whose image is damaged was
// reported by the image pass; reading it throws a corruption with the `alreadyReported` detail so
// that the tree walk does not report it twice. I/O errors are kept for the verifier to rethrow
// (a PageSource can only throw into the checker, which would turn them into findings).

final class VerifierPageSource: PageSource {
    unowned let context: VerificationContext

    init(context: VerificationContext) { self.context = context }

    var pageSize: Int { context.pageSize }

    func page(_ number: PageNumber) throws -> PageBuffer {
        guard number != .none, number.rawValue < context.pageCount else {
            throw btreeCorruption(number, "page \(number) is outside the store's pages 1..<\(context.pageCount)")
        }
        if let cached = context.decodedPages[number.rawValue] { return cached }
        if case .damaged = context.imageStatus[number.rawValue] { throw btreeCorruption(number, alreadyReported) }
        let result: Result<(PageBuffer, Int), DamageReport>
        do {
            switch context.version(of: number) {
            case .freed(let commit):
                throw btreeCorruption(number, "page \(number) was freed by commit \(commit) but is still referenced")
            case .absent:
                throw btreeCorruption(number, "page \(number) has no image (never written, or freed)")
            case .unknown:
                throw btreeCorruption(number, alreadyReported)
            case .file(let entry):
                result = try context.readImage(
                    from: context.file, sourceSize: context.fileSize, offset: entry.offset,
                    length: entry.length, page: number, commit: entry.commit, referenceCRC: entry.crc)
            case .wal(let entry):
                guard let wal = context.wal else { throw btreeCorruption(number, alreadyReported) }
                result = try context.readImage(
                    from: wal, sourceSize: (try? wal.size()) ?? 0, offset: entry.offset,
                    length: entry.length, page: number, commit: entry.commit, referenceCRC: entry.imageCRC)
            }
        } catch let error as StoreError {
            if case .corruption = error { throw error }
            context.operationalError = error
            throw error
        }
        switch result {
        case .success(let (buffer, _)): return buffer
        case .failure(let why): throw btreeCorruption(number, why.text)
        }
    }
}
