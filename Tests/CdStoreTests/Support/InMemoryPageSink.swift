// A PageSink over a dictionary, for B-tree tests: pages live in memory, freed pages go on a free
// list and are reused (zeroed) by the next allocation, and misuse a real pager would also reject
// (reading an unallocated page, freeing a page twice) is reported as an error, not ignored.

@testable import CdStore

/// Logical pages in a dictionary; counts live pages so tests can check that nothing leaks.
final class InMemoryPageSink: PageSink {
    let pageSize: Int
    private(set) var pages: [PageNumber: PageBuffer] = [:]
    private var freeList: [PageNumber] = []
    /// Page 1 is the store's meta page in a real store, so trees start at page 2 here too.
    private var nextPage: UInt32 = 2

    init(pageSize: Int = 4096) { self.pageSize = pageSize }

    /// Pages allocated and not freed.
    var liveCount: Int { pages.count }

    /// An independent copy of every page, the free list and the allocation point.
    func copy() -> InMemoryPageSink {
        let other = InMemoryPageSink(pageSize: pageSize)
        other.pages = pages.mapValues { PageBuffer(copying: $0) }
        other.freeList = freeList
        other.nextPage = nextPage
        return other
    }

    func page(_ number: PageNumber) throws -> PageBuffer {
        guard let buffer = pages[number] else {
            throw StoreError.corruption(path: "", location: .page(number), detail: "page is not allocated")
        }
        return buffer
    }

    func writablePage(_ number: PageNumber) throws -> PageBuffer { try page(number) }

    func allocatePage() throws -> PageNumber {
        let number: PageNumber
        if let reused = freeList.popLast() {
            number = reused
        } else {
            number = PageNumber(nextPage)
            nextPage += 1
        }
        pages[number] = PageBuffer(zeroed: pageSize)
        return number
    }

    func freePage(_ number: PageNumber) throws {
        guard pages.removeValue(forKey: number) != nil else {
            throw StoreError.invalidArgument("page \(number) freed but not allocated")
        }
        freeList.append(number)
    }
}
