// Code written only in Cadmium's call forms, as its README, its example app (CadmiumBasicExample)
// and its test suite (CadmiumTests.swift) write them: no `try` that Cadmium did not need, the
// same labels, the same closures. Only the init lines and the entity classes (Models.swift) are
// the Linux ones. Each check runs the code and compares the results with Cadmium's.
//
// Written for Swift 6 language mode: where Cadmium's example captures a managed object in a
// `DispatchQueue.main.async` block (a `@Sendable` closure in Swift 6, which a managed object
// cannot enter), it uses Cadmium's own `Cd.onMainWith`, which takes a plain closure.

import Cadmium
import Foundation

// MARK: - Harness

/// Runs `body` on the main queue (Cadmium's "main thread") and waits for it.
func onMain<R>(_ body: () throws -> R) rethrows -> R {
    try DispatchQueue.main.sync(execute: body)
}

/// Waits (off the main thread) until `condition`, checked on the main queue, holds.
func waitOnMain(_ condition: () -> Bool) -> Bool {
    for _ in 0..<1000 {
        if onMain(condition) { return true }
        usleep(5000)
    }
    return false
}

/// A value shared with Dispatch's `@Sendable` blocks, behind a lock.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
    var get: Value { lock.withLock { value } }
}

/// Records misuses instead of stopping the program (Cadmium's tests caught its exception).
final class Misuses: @unchecked Sendable {
    // @unchecked: `kinds` is behind `lock`.
    private let lock = NSLock()
    private var seen: [CdMisuse.Kind] = []
    var kinds: [CdMisuse.Kind] { lock.withLock { seen } }

    init() {
        Cd.misuseHandler = { [self] misuse in lock.withLock { seen.append(misuse.kind) } }
    }
}

/// The checks, by name, in the order they run; `bundle` is the test model's bundle directory
/// (`TestBundle.make()`).
func compatibilityChecks(_ report: Report, bundle: String) -> [(String, () throws -> Void)] {
    let tests = CadmiumTestSuite(report, bundle: bundle)
    let readme = ReadmeExamples(report)
    return [
        ("signatures", { signaturesAreCadmiums() }),
        ("tests.basicQueries", tests.basicQueries),
        ("tests.sortingQueries", tests.sortingQueries),
        ("tests.basicModification", tests.basicModification),
        ("tests.basicCreate", tests.basicCreate),
        ("tests.basicUseInCurrentContext", tests.basicUseInCurrentContext),
        ("tests.multiCreate", tests.multiCreate),
        ("tests.basicDictionary", tests.basicDictionary),
        ("tests.dictionaryExpressionGrouping", tests.dictionaryExpressionGrouping),
        ("tests.basicDelete", tests.basicDelete),
        ("tests.multiDelete", tests.multiDelete),
        ("tests.createTransientMainInsertLater", tests.createTransientMainInsertLater),
        ("tests.forbidModificationOnMainThread", tests.forbidModificationOnMainThread),
        ("tests.forbidModificationInOtherTx", tests.forbidModificationInOtherTx),
        ("tests.forbidReusingTransient", tests.forbidReusingTransient),
        ("tests.forbidCreateMain", tests.forbidCreateMain),
        ("tests.forbidDeleteMain", tests.forbidDeleteMain),
        ("tests.parallelSerial", tests.parallelSerial),
        ("tests.parallelSerialUsingQueues", tests.parallelSerialUsingQueues),
        ("tests.transactionInTransactionDoesntHang", tests.transactionInTransactionDoesntHang),
        ("tests.callersQueueTargetsTheSerialQueue", tests.callersQueueTargetsTheSerialQueue),
        ("tests.transactAndWaitWith", tests.transactAndWaitWith),
        ("readme.firstExample", { try readmeFirstExample(report) }),
        ("readme.transactions", readme.transactions),
        ("readme.implicitCommit", readme.implicitCommit),
        ("readme.serialTransactions", readme.serialTransactions),
        ("readme.createAndDelete", readme.createAndDelete),
        ("readme.useInCurrentContext", readme.useInCurrentContext),
        ("readme.notifyingTheMainThread", readme.notifyingTheMainThread),
        ("example.addTapDelete", { try exampleApp(report) }),
    ]
}

// MARK: - Signatures

/// Cadmium's non-throwing declarations, pinned as function types: a throwing or differently
/// shaped declaration does not convert, and this file stops compiling.
func signaturesAreCadmiums() {
    let _: (Bool?, DispatchQueue?, () -> Void) -> Void = Cd.transactAndWait
    let _: (TestItem, Bool?, DispatchQueue?, (TestItem?) -> Void) -> Void = Cd.transactAndWaitWith
    let _: ([TestItem], Bool?, DispatchQueue?, ([TestItem]) -> Void) -> Void = Cd.transactAndWaitWith
    let _: () -> Void = Cd.cancelImplicitCommit
    let _: (TestItem) -> TestItem? = Cd.useInCurrentContext
    let _: ([TestItem]) -> [TestItem] = Cd.useInCurrentContext
    let _: (CdManagedObject) -> Void = Cd.insert
    let _: ([CdManagedObject]) -> Void = Cd.insert
    let _: (CdManagedObject) -> Void = Cd.delete
    let _: ([CdManagedObject]) -> Void = Cd.delete
    let _: () throws -> Void = Cd.commit
    let _: (TestItem.Type, Bool) throws -> TestItem = Cd.create
    let _: (TestItem.Type, Int, Bool) throws -> [TestItem] = Cd.create
}

// MARK: - Cadmium's test suite

/// Cadmium's CadmiumTests, test by test: set-up, then the same calls and expectations.
struct CadmiumTestSuite {
    let report: Report
    let dispatchGroup = DispatchGroup()
    let bgQueue = DispatchQueue(label: "CadmiumTests.backgroundQueue")
    let bundle: String

    init(_ report: Report, bundle: String) {
        self.report = report
        self.bundle = bundle
    }

    /// `setUp`: `initCd()` then `initData()`.
    func setUp(serialTX: Bool = false) throws {
        try initCd(bundle, serialTX: serialTX)
        initData()
    }

    func initData() {
        dispatchGroup.enter()
        bgQueue.async {
            Cd.transactAndWait {
                do {
                    let items = try Cd.create(TestItem.self, count: 5)
                    items[0].id = 1
                    items[0].name = "A"
                    items[1].id = 2
                    items[1].name = "B"
                    items[2].id = 3
                    items[2].name = "C"
                    items[3].id = 4
                    items[3].name = "D"
                    items[4].id = 5
                    items[4].name = "E"
                } catch let error {
                    report.expect(false, "initData error: \(error)")
                }
            }
            dispatchGroup.leave()
        }
        dispatchGroup.wait()
    }

    /// Runs `body` on a background queue inside the test and waits, as Cadmium's tests do.
    func inBackground(_ body: @escaping () -> Void) {
        dispatchGroup.enter()
        let work = UncheckedWork(body)
        bgQueue.async {
            work.body()
            dispatchGroup.leave()
        }
        dispatchGroup.wait()
    }

    func basicQueries() throws {
        try setUp()
        try onMain {
            var objs = try Cd.objects(TestItem.self).filter("name = \"C\"").fetch()
            report.expect(objs.count == 1, "Query string equals")
            objs = try Cd.objects(TestItem.self).filter("name < \"C\"").fetch()
            report.expect(objs.count == 2, "Query string less-than")
            objs = try Cd.objects(TestItem.self).filter("id = 4").fetch()
            report.expect(objs.count == 1, "Query int equals")
            objs = try Cd.objects(TestItem.self).filter("id < 4").fetch()
            report.expect(objs.count == 3, "Query int less-than")
        }
    }

    func sortingQueries() throws {
        try setUp()
        try onMain {
            var objs = try Cd.objects(TestItem.self).filter("id > %@ AND id < %@", 1, 5).sorted("id").fetch()
            report.expect(objs.map(\.id) == [2, 3, 4], "Query sorting")
            objs = try Cd.objects(TestItem.self).filter("id > %@ AND id < %@", 1, 5).sorted("id", ascending: false)
                .fetch()
            report.expect(objs.map(\.id) == [4, 3, 2], "Query sorting descending")
            objs = try Cd.objects(TestItem.self).filter("id > %@ AND id < %@", 1, 5).sort("id", ascending: false)
                .fetch()
            report.expect(objs.map(\.id) == [4, 3, 2], "the README's .sort spelling")
            let predicate = try CdPredicate(format: "id > %@", 3)
            objs = try Cd.objects(TestItem.self).filter(predicate).or(CdPredicate(format: "id = 1")).sorted("id")
                .fetch()
            report.expect(objs.map(\.id) == [1, 4, 5], "a predicate object in filter and or")
        }
    }

    func basicModification() throws {
        try setUp()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    do {
                        let item = try Cd.objects(TestItem.self).filter("id = 1").fetchOne()
                        item!.name = "111"
                    } catch let error {
                        report.expect(false, "tx error: \(error)")
                    }
                }
            }
            let objs = try Cd.objects(TestItem.self).filter("id = 1").fetch()
            report.expect(objs.count == 1 && objs[0].name == "111", "modified on main")
            let obj = try Cd.objects(TestItem.self).filter("name = \"111\"").fetchOne()
            report.expect(obj!.id == 1, "found by the new name")
        }
    }

    func basicCreate() throws {
        try setUp()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    let item = try! Cd.create(TestItem.self)
                    item.name = "F"
                    item.id = 1000
                }
            }
            report.expect(try Cd.objects(TestItem.self).fetch().count == 6, "six items")
            report.expect(try Cd.objects(TestItem.self).filter("name = %@", "F").fetchOne()?.id == 1000, "F is 1000")
        }
    }

    func basicUseInCurrentContext() throws {
        try setUp()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    let item = try! Cd.create(TestItem.self)
                    item.name = "F"
                    item.id = 1000
                }
            }
            let f = try Cd.objects(TestItem.self).filter("name = %@", "F").fetch()
            report.expect(f.count == 1, "F on main")
            report.expect(try Cd.objects(TestItem.self).filter("name = %@", "G").fetch().isEmpty, "no G yet")
            let mainObject = UncheckedWork(f[0])
            inBackground {
                Cd.transactAndWait {
                    if let txItem = Cd.useInCurrentContext(mainObject.body) {
                        txItem.name = "G"
                    }
                }
            }
            report.expect(try Cd.objects(TestItem.self).fetch().count == 6, "still six")
            report.expect(try Cd.objects(TestItem.self).filter("name = %@", "G").fetch().count == 1, "G")
            report.expect(try Cd.objects(TestItem.self).filter("name = %@", "F").fetch().isEmpty, "no F")
        }
    }

    func multiCreate() throws {
        try setUp()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    let items = try! Cd.create(TestItem.self, count: 10)
                    for item in items { item.name = "B" }
                }
            }
            report.expect(try Cd.objects(TestItem.self).count() == 15, "fifteen items")
        }
    }

    func basicDictionary() throws {
        try setUp()
        try onMain {
            let rows = try Cd.dictionaryQuery(for: TestItem.self).fetch()
            report.expect(rows.count == 5, "five rows")
        }
    }

    func dictionaryExpressionGrouping() throws {
        try setUp()
        let misuses = Misuses()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    for name in ["TEST", "TEST2"] {
                        for i in 1...10 {
                            let item = try! Cd.create(TestItem.self)
                            item.name = name
                            item.id = Int64(i)
                        }
                    }
                }
            }
            _ = try? Cd.dictionaryQuery(for: TestItem.self).groupBy("name").fetch()
            report.expect(misuses.kinds == [.c2], "groupBy without onlyProperties raises")
            let rows = try Cd.dictionaryQuery(for: TestItem.self)
                .includeExpression("sum", resultType: .integer64AttributeType, withFormat: "@sum.id")
                .includeExpression("count", resultType: .integer64AttributeType, withFormat: "name.@count")
                .onlyProperties(["name", "sum", "count"])
                .groupBy("name")
                .fetch()
            report.expect(rows.count == 7, "seven groups")
            let test = rows.first { ($0["name"] as? String) == "TEST" }
            let test2 = rows.first { ($0["name"] as? String) == "TEST2" }
            report.expect((test?["sum"] as? Int64) == 55 && (test?["count"] as? Int64) == 10, "TEST: 55, 10")
            report.expect((test2?["sum"] as? Int64) == 55, "TEST2: 55")
        }
    }

    func basicDelete() throws {
        try setUp()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    if let item = try! Cd.objects(TestItem.self).fetchOne() {
                        Cd.delete(item)
                    }
                }
            }
            report.expect(try Cd.objects(TestItem.self).count() == 4, "four left")
        }
    }

    func multiDelete() throws {
        try setUp()
        try onMain {
            inBackground {
                Cd.transactAndWait {
                    Cd.delete(try! Cd.objects(TestItem.self).fetch())
                }
            }
            report.expect(try Cd.objects(TestItem.self).count() == 0, "none left")
        }
    }

    func createTransientMainInsertLater() throws {
        try setUp()
        try onMain {
            let obj = try Cd.create(TestItem.self, transient: true)
            obj.name = "F"
            obj.id = 1000
            let transient = UncheckedWork(obj)
            inBackground {
                Cd.transactAndWait {
                    Cd.insert(transient.body)
                }
            }
            report.expect(try Cd.objects(TestItem.self).count() == 6, "six items")
        }
    }

    func forbidModificationOnMainThread() throws {
        try setUp()
        let misuses = Misuses()
        try onMain {
            let obj = try Cd.objects(TestItem.self).filter("name = \"C\"").fetchOne()!
            report.expect(obj.id == 3, "C is 3")
            obj.name = "Bob"
            report.expect(misuses.kinds == [.j1] && obj.name == "C", "J1, and the write did nothing")
        }
    }

    func forbidModificationInOtherTx() throws {
        try setUp()
        let misuses = Misuses()
        inBackground {
            var bob: TestItem?
            Cd.transactAndWait {
                bob = try! Cd.create(TestItem.self)
                bob!.name = "Bob"
            }
            Cd.transactAndWait {
                Cd.cancelImplicitCommit()
                bob!.name = "Robert"
            }
        }
        report.expect(misuses.kinds == [.j4], "J4")
    }

    func forbidReusingTransient() throws {
        try setUp()
        let misuses = Misuses()
        inBackground {
            var obj: TestItem?
            Cd.transactAndWait {
                obj = try! Cd.create(TestItem.self, transient: true)
            }
            Cd.transactAndWait {
                report.expect(Cd.useInCurrentContext(obj!) == nil, "not available")
            }
        }
        report.expect(misuses.kinds == [.g3], "G3")
    }

    func forbidCreateMain() throws {
        try setUp()
        let misuses = Misuses()
        onMain {
            report.expect((try? Cd.create(TestItem.self)) == nil, "no object")
        }
        report.expect(misuses.kinds == [.b2], "B2")
    }

    func forbidDeleteMain() throws {
        try setUp()
        let misuses = Misuses()
        try onMain {
            let a = try Cd.objects(TestItem.self).filter("name = \"A\"").fetchOne()!
            Cd.delete(a)
            report.expect(misuses.kinds == [.e1], "E1")
            report.expect(try Cd.objects(TestItem.self).count() == 5, "nothing deleted")
        }
    }

    /// `helperRunParallelInc` (serial forms only: their results do not depend on timing).
    func parallelInc(_ forcedSerial: Bool?, onQueue: DispatchQueue? = nil) -> [Int64] {
        let ids = Locked<[Int64]>([])
        let concurrent = DispatchQueue(label: "CadmiumTests.concurrent", attributes: .concurrent)
        for _ in 0..<5 {
            let group = DispatchGroup()
            for _ in 0..<20 {
                concurrent.async(group: group) {
                    Cd.transactAndWait(serial: forcedSerial, on: onQueue) {
                        if let item = try! Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne() {
                            usleep(UInt32.random(in: 0...10))
                            let id = item.id
                            ids.update { $0.append(id) }
                            item.id = id + 1
                        }
                    }
                }
            }
            group.wait()
        }
        return ids.get
    }

    /// `helperRunParallelIncNormalTransact` with a given queue.
    func parallelIncNormalTransact(onQueue: DispatchQueue) -> [Int64] {
        let ids = Locked<[Int64]>([])
        for _ in 0..<5 {
            let group = DispatchGroup()
            for _ in 0..<16 {
                group.enter()
                Cd.transact(on: onQueue) {
                    if let item = try! Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne() {
                        let id = item.id
                        ids.update { $0.append(id) }
                        item.id = id + 1
                    }
                    group.leave()
                }
            }
            group.wait()
        }
        Cd.transactAndWait(serial: true) {}  // the last commit is done: every serial one passes here
        return ids.get
    }

    func parallelSerial() throws {
        try setUp(serialTX: true)
        var ids = parallelInc(nil)
        report.expect(ids.sorted() == Array(1...100), "default serial: no duplicates")
        try setUp()
        ids = parallelInc(true)
        report.expect(ids.sorted() == Array(1...100), "forced serial: no duplicates")
    }

    func parallelSerialUsingQueues() throws {
        try setUp()
        var ids = parallelIncNormalTransact(onQueue: DispatchQueue(label: "CadmiumTests.serial"))
        report.expect(ids.sorted() == Array(1...80), "a serial queue: no duplicates")
        try setUp()
        ids = parallelIncNormalTransact(
            onQueue: DispatchQueue(label: "CadmiumTests.concurrent", attributes: .concurrent))
        report.expect(ids.sorted() == Array(1...80), "a concurrent queue targets the serial queue (README)")
    }

    func transactionInTransactionDoesntHang() throws {
        try setUp(serialTX: true)
        let done = DispatchSemaphore(value: 0)
        func bump() {
            let a = try! Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()!
            a.id += 1
        }
        Cd.transact(serial: true) {
            bump()
            Cd.transactAndWait(serial: true) {
                bump()
                Cd.transactAndWait(serial: true) {
                    bump()
                }
            }
            done.signal()
        }
        report.expect(done.wait(timeout: .now() + 10) == .success, "no deadlock")
        Cd.transactAndWait(serial: true) {}  // its commit is done
    }

    /// The README's promise: a given queue targets the internal serial queue, so twenty serial
    /// increments and one on `myQueue` make twenty-one.
    func callersQueueTargetsTheSerialQueue() throws {
        try setUp()
        let myQueue = DispatchQueue(label: "CadmiumTests.myQueue")
        for _ in 0..<20 {
            Cd.transact(serial: true) {
                let a = try! Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()!
                a.id += 1
            }
        }
        inBackground {
            Cd.transactAndWait(on: myQueue) {
                let a = try! Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()!
                a.id += 1
            }
            Cd.transactAndWait(serial: true) {}  // after the twenty: the queue is FIFO
        }
        let a = try onMain { try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()! }
        report.expect(onMain { a.id } == 22, "1 + 21 increments")
    }

    func transactAndWaitWith() throws {
        try setUp()
        let b = try onMain { UncheckedWork(try Cd.objects(TestItem.self).filter("name = %@", "B").fetchOne()!) }
        let all = try onMain { UncheckedWork(try Cd.objects(TestItem.self).fetch()) }
        inBackground {
            Cd.transactAndWaitWith(b.body) { item in item?.name = "BB" }
            Cd.transactAndWaitWith(all.body) { items in
                for item in items { item.id += 100 }
            }
        }
        try onMain {
            report.expect(try Cd.objects(TestItem.self).filter("name = %@", "BB").fetchOne()?.id == 102, "B moved")
        }
    }
}

/// Hands a value to a `@Sendable` block (Dispatch's): Cadmium checks confinement at run time.
struct UncheckedWork<Body>: @unchecked Sendable {
    let body: Body
    init(_ body: Body) { self.body = body }
}

// MARK: - README

/// The README's examples, in order.
struct ReadmeExamples {
    let report: Report

    init(_ report: Report) { self.report = report }

    /// Waits for the transactions started so far (serial by default here: `serialTX: true`).
    func barrier() {
        Cd.transactAndWait(serial: true) {}
    }

    func employees() -> [(String, Int64)] {
        onMain { (try? Cd.objects(Employee.self).sorted("name").fetch())?.map { ($0.name, $0.salary) } ?? [] }
    }

    func transactions() throws {
        try initAppStore(serialTX: true)
        Cd.transactAndWait {
            let newEmployee = try! Cd.create(Employee.self)
            newEmployee.name = "Ann"
            newEmployee.salary = 90000
        }
        Cd.transact {
            try! Cd.objects(Employee.self).fetch().forEach {
                $0.salary += 10000
            }
        }
        barrier()
        report.expect(employees().map(\.1) == [100000], "everyone got a raise")
        let someName = "Ann"
        try onMain {
            for employee in try Cd.objects(Employee.self)
                .filter("name = %@", someName)
                .sort("name", ascending: true)
                .fetch()
            {
                report.expect(employee.name == "Ann", "Employee name: \(employee.name)")
            }
        }
    }

    func implicitCommit() throws {
        try initAppStore(serialTX: true)
        let someErrorOccurred = true
        Cd.transact {
            let e = try! Cd.create(Employee.self)
            e.name = "Kept"
            try! Cd.commit()  // changes before this cannot be rolled back
            let f = try! Cd.create(Employee.self)
            f.name = "Dropped"
            if someErrorOccurred {
                Cd.cancelImplicitCommit()
                return
            }
        }
        barrier()
        report.expect(employees().map(\.0) == ["Kept"], "the cancelled part is not committed")
    }

    func serialTransactions() throws {
        try initAppStore(serialTX: false)
        let myID: Int64 = 7
        Cd.transactAndWait {
            let place = try! Cd.create(Place.self)
            place.id = myID
        }
        for _ in 0..<30 {
            Cd.transact(serial: true) {
                if let place = try! Cd.objects(Place.self).filter("id = %@", myID).fetchOne() {
                    place.visits += 1
                }
            }
        }
        Cd.transact(serial: true) {
            Cd.transactAndWait(serial: true) {
                if let place = try! Cd.objects(Place.self).filter("id = %@", myID).fetchOne() {
                    place.visits += 1
                }
            }
        }
        Cd.transact(serial: false) {}
        barrier()
        let visits = onMain { try? Cd.objects(Place.self).filter("id = %@", myID).fetchOne()?.visits }
        report.expect(visits == 31, "31 visits, none lost")
    }

    func createAndDelete() throws {
        try initAppStore(serialTX: true)
        Cd.transact {
            let newEmployee = try! Cd.create(Employee.self)
            newEmployee.name = "Bob"
            newEmployee.salary = 10000
        }
        Cd.transact {
            let rich = try! Cd.create(Employee.self)
            rich.name = "Rich"
            rich.salary = 200000
        }
        barrier()
        report.expect(employees().map(\.0) == ["Bob", "Rich"], "created")
        Cd.transact {
            Cd.delete(try! Cd.objects(Employee.self).filter("name = %@", "Bob").fetch())
        }
        barrier()
        try onMain { try Cd.objects(Employee.self).filter("salary > 100000").delete() }
        barrier()
        report.expect(employees().isEmpty, "both deleted")
    }

    func useInCurrentContext() throws {
        try initAppStore(serialTX: true)
        Cd.transactAndWait {
            let e = try! Cd.create(Employee.self)
            e.name = "Ann"
            e.salary = 1
        }
        onMain {
            // Acquire a read-only employee object somewhere on the main thread
            guard let employee = try! Cd.objects(Employee.self).fetchOne() else {
                return
            }
            // Modify it in a transaction
            Cd.transact {
                guard let txEmployee = Cd.useInCurrentContext(employee) else {
                    return
                }
                txEmployee.salary += 10000
            }
        }
        barrier()
        report.expect(employees().map(\.1) == [10001], "modified in the transaction")
    }

    func notifyingTheMainThread() throws {
        try initAppStore(serialTX: true)
        let events = NSLock()
        var seen: [String] = []
        // A view keeps the object it shows; the main context holds its objects weakly.
        let shown = Locked<ExampleItem?>(nil)
        Cd.transact {
            let newItem = try! Cd.create(ExampleItem.self)
            newItem.name = "Test"
            // Synchronously saves newItem to the persistent store
            try! Cd.commit()
            Cd.onMainWith(newItem) { mainItem in
                if let mainItem = mainItem {
                    let name = mainItem.name
                    events.withLock { seen.append("created \(name)") }
                    mainItem.updateHandler = { event in
                        events.withLock { seen.append("\(name) \(event)") }
                    }
                    shown.update { $0 = mainItem }
                }
            }
        }
        report.expect(waitOnMain { events.withLock { seen == ["created Test"] } }, "on main after the commit")
        Cd.transact {
            try! Cd.objects(ExampleItem.self).fetchOne()?.numberTaps += 1
        }
        report.expect(
            waitOnMain { events.withLock { seen == ["created Test", "Test updated"] } },
            "the update handler saw the change")
        barrier()
    }
}

// MARK: - The example app

/// CadmiumBasicExample's view controller: a fetched-results controller over the items, "Add"
/// (an item and its other item, committed, then used on main), a tap (numberTaps += 1), and a
/// delete.
func exampleApp(_ report: Report) throws {
    try initAppStore(serialTX: false)
    let fetchedResultsController = onMain {
        CdFetchedResultsController(
            fetchRequest: Cd.objects(ExampleItem.self).sorted("name").nsFetchRequest,
            sectionNameKeyPath: nil,
            cacheName: nil)
    }
    try onMain { try fetchedResultsController.performFetch() }
    let count = { fetchedResultsController.fetchedObjects?.count ?? 0 }  // read on main

    let seen = NSLock()
    var mainNames: [String] = []
    for randomString in ["b-item", "a-item"] {
        Cd.transact {
            let newItem = try! Cd.create(ExampleItem.self)
            newItem.name = randomString
            let newOther = try! Cd.create(OtherItem.self)
            newOther.prop = 1
            newOther.myExample = newItem
            newItem.myOther = newOther
            try! Cd.commit()
            Cd.onMainWith(newItem) { mainItem in
                seen.withLock { mainNames.append(mainItem!.name) }
            }
        }
    }
    report.expect(waitOnMain { count() == 2 }, "the controller lists both items")
    report.expect(waitOnMain { seen.withLock { mainNames.sorted() == ["a-item", "b-item"] } }, "used on main")

    // didSelectRowAt: the first row, by name.
    onMain {
        guard let item = fetchedResultsController.fetchedObjects?.first else {
            return
        }
        Cd.transact {
            guard let txItem = Cd.useInCurrentContext(item) else {
                return
            }
            txItem.numberTaps += 1
        }
    }
    report.expect(
        waitOnMain { fetchedResultsController.fetchedObjects?.first?.numberTaps == 1 }, "a-item was tapped")

    // commit editingStyle .delete on the first row.
    onMain {
        guard let item = fetchedResultsController.fetchedObjects?.first else {
            return
        }
        Cd.transact {
            guard let txItem = Cd.useInCurrentContext(item) else {
                return
            }
            Cd.delete(txItem)
        }
    }
    report.expect(waitOnMain { count() == 1 }, "a-item was deleted")
    report.expect(
        onMain { fetchedResultsController.fetchedObjects?.first?.myOther?.prop } == 1, "b-item keeps its other item")
    Cd.transactAndWait(serial: true) {}
}
