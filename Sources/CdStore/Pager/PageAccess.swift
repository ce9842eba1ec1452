// What a B+tree needs from the pager inside one transaction. The pager implements these for its
// read and write transactions; tests implement them over a dictionary.

/// Read access to the logical pages of one snapshot.
public protocol PageSource: AnyObject {
    /// The logical page size in bytes.
    var pageSize: Int { get }
    /// The page's bytes as of this snapshot. The buffer must not be written (PB2).
    /// Throws `StoreError.corruption` when the page is missing or damaged.
    func page(_ number: PageNumber) throws -> PageBuffer
}

/// Read and write access to the logical pages of the one write transaction.
public protocol PageSink: PageSource {
    /// The page as a buffer private to this transaction, copied on first use; later calls in the
    /// same transaction return the same buffer, and `page(_:)` returns it too.
    func writablePage(_ number: PageNumber) throws -> PageBuffer
    /// A fresh, zero-filled writable page (a reused free page or a new one at the end).
    func allocatePage() throws -> PageNumber
    /// Returns a page to the free list; it must not be referenced any more.
    func freePage(_ number: PageNumber) throws
}
