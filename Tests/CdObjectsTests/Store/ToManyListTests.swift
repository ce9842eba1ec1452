// ToManyList against a plain model: random inserts and removes on unordered and ordered lists
// give what a sorted set (TL1) or an append-once array (TL2) gives, and report change the same way.

import Testing
@testable import CdObjects

struct ToManyListTests {
    @Test(arguments: [false, true]) func randomEditsMatchTheModel(ordered: Bool) {
        var generator = SeededGenerator(seed: ordered ? 7 : 11)
        var list: [ObjectID] = []
        var model: [Int64] = []
        for step in 0..<4_000 {
            let key = Int64(generator.next() % 300) + 1
            let id = ObjectID(entity: "E", primaryKey: key)
            if generator.next() % 3 == 0 {
                let changed = ToManyList.remove(id, from: &list, ordered: ordered)
                let index = model.firstIndex(of: key)
                if let index { model.remove(at: index) }
                #expect(changed == (index != nil), "step \(step): remove \(key)")
            } else {
                let changed = ToManyList.insert(id, into: &list, ordered: ordered)
                let fresh = !model.contains(key)
                if fresh {
                    model.append(key)
                    if !ordered { model.sort() }
                }
                #expect(changed == fresh, "step \(step): insert \(key)")
            }
            if list.map(\.primaryKey) != model {
                Issue.record("step \(step): \(list.map(\.primaryKey)) != \(model)")
                return
            }
        }
        #expect(!list.isEmpty)
    }

    @Test func increasingKeysAppend() {
        var list: [ObjectID] = []
        for key in [Int64(5), 9, 12] {
            ToManyList.insert(ObjectID(entity: "E", primaryKey: key), into: &list, ordered: false)
        }
        ToManyList.insert(ObjectID(entity: "E", primaryKey: 7), into: &list, ordered: false)
        #expect(list.map(\.primaryKey) == [5, 7, 9, 12])
        #expect(ToManyList.lowerBound(of: 10, in: list) == 3)
        #expect(ToManyList.lowerBound(of: 1, in: list) == 0)
        #expect(ToManyList.lowerBound(of: 99, in: list) == 4)
    }
}
