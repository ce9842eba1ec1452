// Reusing the reader of `read`'s snapshot from one read to the next. Each `read` still registers a
// reader on the last commit when it begins and ends it when it returns, exactly as a new snapshot
// does, so between reads nothing is registered and no checkpoint is held back. What is reused is
// the engine transaction and the stored-object reader on it, with the trees they found and the
// lookup cursor: a loop of small fetches (by key, by an indexed value) made them on every fetch,
// found the record and index trees by name again, and freed them.
//
// Invariants:
//  SR1. A parked reader's transaction is ended (no reader registered), and nothing but the park
//       holds the reader: `park` ends the snapshot and keeps its reader only when the snapshot and
//       then the reader were referenced by the caller alone (a snapshot the body let escape is
//       ended and never reused).
//  SR2. A reused reader reads what a new snapshot would at that moment: its transaction registers
//       a reader on the last commit (`ReadTransaction.restart`, as `beginRead` does); when that
//       commit is not the one it ended on, every tree and cursor it found is forgotten, so nothing
//       of the older commit is read. On the same commit they stay valid (a commit's catalog and
//       pages never change).
//  SR3. A reader is taken out of the park by one `read` at a time (under its lock); at most one is
//       parked, the last one returned.
//  SR4. The park holds no snapshot, only its reader, which does not hold the object store: the
//       store and its park form no cycle, so a store nobody holds is freed (and its file closed)
//       as before.

import CdStore

extension ObjectStore {
    /// A snapshot on the parked reader begun again on the last commit (SR2), nil when none is
    /// parked.
    func reusedSnapshot() throws -> ObjectSnapshot? {
        let taken = parkedReader.withLock { parked in
            let reader = parked
            parked = nil
            return reader
        }
        guard let stored = taken, let tx = stored.tx as? ReadTransaction else { return nil }
        do {
            if try !tx.restart() { stored.forgetTrees() }  // keeps SR2
        } catch let e as StoreError {
            throw CdError.store(e)
        }
        stored.readThreads = engine.readThreads
        return ObjectSnapshot(store: self, reusing: stored)
    }

    /// Ends `snapshot` and parks its reader when nothing else holds either (SR1, SR3, SR4).
    func park(_ snapshot: inout ObjectSnapshot?) {
        snapshot?.end()
        guard isKnownUniquelyReferenced(&snapshot), var stored = snapshot?.stored, stored.tx is ReadTransaction
        else { return }
        snapshot = nil
        guard isKnownUniquelyReferenced(&stored) else { return }
        let kept = stored
        parkedReader.withLock { $0 = kept }
    }
}
