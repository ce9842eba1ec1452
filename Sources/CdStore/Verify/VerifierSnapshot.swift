// How the verifier (and every tool that reads a store's files directly) holds a store still while
// it reads it, without stopping the processes that have it open.
//
// Beside other processes (the shared file has attached stores), the verifier attaches as one more
// process and takes a snapshot as a reader does (Store+Refresh MP2), with one difference: its
// reader mark is the commit of the page file header in use, not the last commit. Every checkpoint
// copies only commits up to the oldest mark (StoreCoordination CN3), so none copies anything while
// the verifier reads, and none resets the WAL (a reset waits for no reader of another process):
// the page file does not change, and the WAL only grows past the end the shared state named. The
// verifier reads the WAL through a view that ends there (`BoundedLogFileSystem`), so it sees the
// commits written up to one moment, whole, and none that is being appended. Writers go on
// committing meanwhile; checkpoints wait until the verifier is done (the WAL grows meanwhile).
//
// Alone (no other store attached) it holds the writer lock instead and reads the files whole, as a
// store that opened alone would: a process that opens the store meanwhile waits for its first
// write (or its open's catching up) until the verifier is done.
//
// Invariants:
//  VS1. Between `take` and `release` no process overwrites, frees or truncates a byte of the
//       page file or of the WAL's first `walLimit` bytes: the mark (or the writer lock) is set
//       before the state is read for the last time, and a checkpoint that began before it makes
//       the verifier start over (as MP2).
//  VS2. `walLimit` ends the last commit of a published state: the WAL holds that many bytes of
//       whole frames of the generation the page file's header names or a later one.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The verifier's hold on a store other processes may have open (VS1, VS2).
struct VerifierSnapshot {
    /// The verifier's attachment, nil on a file system that shares nothing (or a read-only medium).
    let coordination: SharedStoreCoordination?
    /// Whether the verifier holds the writer lock (alone, or a shared state it could not read).
    let holdsWriter: Bool
    /// The end of the WAL the verifier reads (VS2), nil for the whole file.
    let walLimit: UInt64?

    /// Attaches to the shared file of the store at `path` and takes the snapshot (VS1).
    static func take(path: String, fileSystem: any StoreFileSystem) throws -> VerifierSnapshot {
        guard let provider = sharedRegionProvider(of: fileSystem) else {
            return VerifierSnapshot(coordination: nil, holdsWriter: false, walLimit: nil)
        }
        let region: any SharedRegion
        do {
            region = try provider.openSharedRegion(path + "-shm", size: SharedStateLayout.size)
        } catch StoreError.io(_, _, let code) where code == EACCES || code == EROFS {
            // A medium nobody can write: nobody writes the store either.
            return VerifierSnapshot(coordination: nil, holdsWriter: false, walLimit: nil)
        }
        let coordination = try SharedStoreCoordination(region: region)
        do {
            if coordination.openedAlone {
                _ = try coordination.lockWriter()
                try coordination.finishAttach()
                return VerifierSnapshot(coordination: coordination, holdsWriter: true, walLimit: nil)
            }
            var rounds = 0
            while true {
                rounds += 1
                if rounds > 1 { usleep(rounds < 20 ? 100 : 1_000) }
                guard let (state, _) = coordination.readState(), rounds < 2_000 else {
                    // A state being repaired (or damaged, which the next writer repairs): the
                    // files are still under the writer lock, read whole.
                    _ = try coordination.lockWriter()
                    return VerifierSnapshot(coordination: coordination, holdsWriter: true, walLimit: nil)
                }
                coordination.setReaderMark(state.headerCommit)
                // VS1 as MP2: a checkpoint that began before the mark, or that ended between the
                // read and the mark, sends the verifier round again.
                guard !coordination.checkpointOfOtherRunning(), let (after, _) = coordination.readState(),
                    after.checkpointSequence == state.checkpointSequence, after.walSalt == state.walSalt,
                    after.headerCommit == state.headerCommit
                else {
                    coordination.setReaderMark(nil)
                    continue
                }
                return VerifierSnapshot(coordination: coordination, holdsWriter: false, walLimit: after.walEnd)
            }
        } catch {
            coordination.detach()
            throw error
        }
    }

    /// Ends the snapshot: clears the mark or releases the writer lock, and detaches. The shared
    /// file stays, as every store leaves it (docs/FORMAT.md, "The shared file").
    func release() {
        guard let coordination else { return }
        if holdsWriter { coordination.unlockWriter() } else { coordination.setReaderMark(nil) }
        coordination.detach()
    }
}
