// Waiting out another process's brief hold on a store's lock.
//
// The engine locks a store with `flock`, which belongs to the open file description. When any
// thread of a process spawns a child (`posix_spawn`, as `Foundation.Process` does), the child
// gets a copy of every open descriptor until its `exec` closes the `O_CLOEXEC` ones — so for that
// instant it keeps alive the lock of a store another thread has just closed. The engine's opens
// wait `StoreOptions.lockWaitSeconds` (0.25 s) for such a hold to pass; the crash campaign spawns
// processes from several tests at once on a loaded machine, so its opens allow a wider margin on
// top; a lock that is still held after `seconds` is a real failure.

#if canImport(Glibc)
import Glibc
#endif
import CdObjects
import CdStore

/// Runs `body`, running it again every 5 ms while it throws `StoreError.locked` (directly or as
/// `CdError.store`), for at most `seconds`.
public func retryingWhileLocked<T>(seconds: Double = 5, _ body: () throws -> T) throws -> T {
    var waited = 0.0
    while true {
        do {
            return try body()
        } catch let error where waited < seconds && isLocked(error) {
            usleep(5_000)
            waited += 0.005
        }
    }
}

func isLocked(_ error: any Error) -> Bool {
    if case .locked? = error as? StoreError { return true }
    if case .store(.locked)? = error as? CdError { return true }
    return false
}
