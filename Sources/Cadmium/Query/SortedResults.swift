// `SortedResults`: a fetched results controller's objects in sort order, stored as a list of
// chunks so that one insert or removal costs a binary search and a shift inside one chunk
// (a few hundred elements), not a shift of the whole result. Position lookups add up the chunk
// sizes before the chunk (one add per chunk: 400 for 100,000 results).
//
// Invariants:
//   OB7. The concatenation of `chunks` is strictly increasing by `areInIncreasingOrder` (a
//        total order: the sort keys, then the primary key), so an element is found by binary
//        search and appears at most once.
//   OB8. No chunk is empty and none holds more than `chunkLimit` elements: an insert that
//        overfills a chunk splits it in two halves, a removal that empties one drops it.
//   OB9. `sizes[i]` is `chunks[i].count` (kept apart, in one flat array, so that adding up the
//        sizes before a chunk touches no chunk), and `count` is their sum.
//
// Confinement: a value type; the controller's copy is used on the main queue.

/// Elements kept in order, with O(log n + n / chunkLimit) insert, remove and lookup.
struct SortedResults<Element> {
    /// The most elements in one chunk (OB8).
    static var chunkLimit: Int { 512 }

    private(set) var chunks: [[Element]] = []
    /// The size of each chunk (OB9).
    private var sizes: [Int] = []
    private(set) var count = 0
    /// The strict order of OB7.
    let areInIncreasingOrder: (Element, Element) -> Bool

    /// Results from `elements`, which must already be in order (keeps OB7–OB9).
    init(sorted elements: [Element], by areInIncreasingOrder: @escaping (Element, Element) -> Bool) {
        self.areInIncreasingOrder = areInIncreasingOrder
        let half = Self.chunkLimit / 2
        chunks = stride(from: 0, to: elements.count, by: half).map {
            Array(elements[$0..<min($0 + half, elements.count)])
        }
        sizes = chunks.map(\.count)
        count = elements.count
    }

    /// Every element, in order.
    var elements: [Element] { Array(chunks.joined()) }

    /// The chunk and offset where `element` is or would be inserted (the first element not
    /// ordered before it).
    private func slot(of element: Element) -> (chunk: Int, offset: Int) {
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if areInIncreasingOrder(chunks[mid][chunks[mid].count - 1], element) { low = mid + 1 } else { high = mid }
        }
        if low == chunks.count { return (max(chunks.count - 1, 0), chunks.last?.count ?? 0) }
        let chunk = chunks[low]
        var a = 0, b = chunk.count
        while a < b {
            let mid = (a + b) / 2
            if areInIncreasingOrder(chunk[mid], element) { a = mid + 1 } else { b = mid }
        }
        return (low, a)
    }

    /// The position of the chunk's first element.
    private func start(of chunk: Int) -> Int {
        sizes.withUnsafeBufferPointer { sizes in
            var position = 0
            for i in 0..<chunk { position += sizes[i] }
            return position
        }
    }

    /// Whether `a` and `b` are the same place in the order (neither before the other).
    private func same(_ a: Element, _ b: Element) -> Bool {
        !areInIncreasingOrder(a, b) && !areInIncreasingOrder(b, a)
    }

    /// The position of `element` (an element equal to it in the order), or nil.
    func index(of element: Element) -> Int? {
        let (c, o) = slot(of: element)
        guard c < chunks.count, o < chunks[c].count, same(chunks[c][o], element) else { return nil }
        return start(of: c) + o
    }

    /// The element at `position` (0 ..< count).
    func element(at position: Int) -> Element {
        precondition(position >= 0 && position < count, "position \(position) out of 0..<\(count)")
        var rest = position
        for (i, size) in sizes.enumerated() {
            if rest < size { return chunks[i][rest] }
            rest -= size
        }
        preconditionFailure("count out of step with the chunk sizes (OB9)")
    }

    /// Inserts `element` in order and returns its position (keeps OB7–OB9).
    @discardableResult
    mutating func insert(_ element: Element) -> Int {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[element]]
            sizes = [1]
            return 0
        }
        let (c, o) = slot(of: element)
        let position = start(of: c) + o
        chunks[c].insert(element, at: o)
        sizes[c] += 1
        if chunks[c].count > Self.chunkLimit {
            let upper = Array(chunks[c][(Self.chunkLimit / 2)...])
            chunks[c].removeSubrange((Self.chunkLimit / 2)...)
            chunks.insert(upper, at: c + 1)
            sizes[c] = chunks[c].count
            sizes.insert(upper.count, at: c + 1)
        }
        return position
    }

    /// Removes the element equal to `element` in the order; returns the position it had, or
    /// nil when there is none (keeps OB7–OB9).
    @discardableResult
    mutating func remove(_ element: Element) -> Int? {
        let (c, o) = slot(of: element)
        guard c < chunks.count, o < chunks[c].count, same(chunks[c][o], element) else { return nil }
        let position = start(of: c) + o
        chunks[c].remove(at: o)
        sizes[c] -= 1
        if chunks[c].isEmpty {
            chunks.remove(at: c)
            sizes.remove(at: c)
        }
        count -= 1
        return position
    }
}
