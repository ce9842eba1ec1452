import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Encoding the page images of one commit, on more than one core when the commit is large.
//
// Compression is most of a bulk commit's CPU time (callgrind on a 100k-key sequential load: 60%
// of the instructions in deflate, ~95 µs per 8 KiB page at level 1), and pages compress
// independently. A commit of many pages therefore splits them over up to `workers` threads, each
// with its own reused deflate stream. The images are byte-for-byte those a single compressor
// makes (a fresh deflateReset per page either way), so the format and the WAL are unchanged.
//
// Confinement: owned by the store's writer; only the thread holding the writer gate calls
// `encode`, which returns after every worker is done.

final class PageImageEncoder {
    /// Commits with fewer pages than this compress on the calling thread: handing work to other
    /// threads costs more than it saves for the 2–3 pages of a small commit.
    static let parallelThreshold = 32

    private let compressors: [PageCompressor]

    init(level: Int, pageSize: Int, workers: Int = PageImageEncoder.defaultWorkers) {
        compressors = (0..<max(1, workers)).map { _ in PageCompressor(level: level, pageSize: pageSize) }
    }

    /// The online cores, capped at 4 (past that the commit's write dominates).
    static var defaultWorkers: Int { max(1, min(4, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }

    /// The images of `pages` (in the given order) for commit `commit`.
    func encode(_ pages: [(number: PageNumber, buffer: PageBuffer)], commit: CommitSequence) -> [[UInt8]] {
        let workers = pages.count >= Self.parallelThreshold ? compressors.count : 1
        if workers == 1 {
            return pages.map { PageImage.encode(page: $0.buffer, number: $0.number, commit: commit, compressor: compressors[0]) }
        }
        var images = [[UInt8]](repeating: [], count: pages.count)
        images.withUnsafeMutableBufferPointer { out in
            let job = EncodeJob(pages: pages, compressors: compressors, out: out.baseAddress!, commit: commit)
            // Worker w takes pages w, w + workers, …: neighbours in a bulk load are alike in size,
            // so striding balances the work. Each slot of `out` is written by one worker only.
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < job.pages.count {
                    let p = job.pages[i]
                    job.out[i] = PageImage.encode(page: p.buffer, number: p.number, commit: job.commit,
                                                  compressor: job.compressors[w])
                    i += workers
                }
            }
        }
        return images
    }
}

/// What the workers of one `encode` share. Each worker uses only its own compressor and writes
/// only its own slots of `out`, and `encode` waits for all of them: hence unchecked.
private struct EncodeJob: @unchecked Sendable {
    let pages: [(number: PageNumber, buffer: PageBuffer)]
    let compressors: [PageCompressor]
    let out: UnsafeMutablePointer<[UInt8]>
    let commit: CommitSequence
}
