// Key path → property names: managed objects through their wrappers (to-one chains, to-many,
// inherited properties), value types through the key path's description, and the typed error for
// a key path that leaves the stored properties.

import Foundation
import Testing
@testable import Cadmium

/// A value type root: stored properties resolve by description, computed ones do not.
private struct Point: Codable {
    var x: Int
    var label: String?
    var twice: Int { x * 2 }
}

@Suite struct KeyPathNames {
    @Test func managedObjectKeyPathsNameTheirWrappers() throws {
        #expect(try CdKeyPathNames.resolve(\Employee.salary).get() == ["salary"])
        #expect(try CdKeyPathNames.resolve(\Employee.email).get() == ["email"])
        #expect(try CdKeyPathNames.resolve(\Employee.department?.name).get() == ["department", "name"])
        #expect(try CdKeyPathNames.resolve(\Department.employees).get() == ["employees"])
        #expect(try CdKeyPathNames.resolve(\FxPerson.department?.employees).get() == ["department", "employees"])
        #expect(try CdKeyPathNames.resolve(\Chore.project?.title).get() == ["project", "title"])
    }

    @Test func keyPathsOffTheWrappersAreTypedErrors() {
        for keyPath: AnyKeyPath in [\Employee.description, \Employee.name.count, \Employee.userInfo] {
            #expect(throws: CdQueryError.self, "\(keyPath)") { try CdKeyPathNames.resolve(keyPath).get() }
        }
    }

    @Test func valueTypeKeyPathsResolveByDescription() throws {
        #expect(try CdKeyPathNames.resolve(\Point.x).get() == ["x"])
        #expect(try CdKeyPathNames.resolve(\Point.label).get() == ["label"])
        #expect(throws: CdQueryError.self) { try CdKeyPathNames.resolve(\Point.twice).get() }
    }

    @Test func resolvingOnManyThreadsGivesOneAnswer() {
        let answers = LockedBox<Set<[String]>>([])
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let names =
                (try? CdKeyPathNames.resolve(i % 2 == 0 ? \FxPerson.department?.name : \FxDepartment.name).get())
            answers.update { $0.insert(names ?? []) }
        }
        #expect(answers.get() == [["department", "name"], ["name"]])
    }
}
