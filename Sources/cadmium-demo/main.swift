// `make demo`: creates a sample store, runs transactions and queries through the engine, shows a
// reader keeping its snapshot while a writer commits, checkpoints, reopens, and prints what it did.
import CdStore
import Foundation

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "demo-store"
for p in [path, path + "-wal"] { try? FileManager.default.removeItem(atPath: p) }

func say(_ text: String) { print(text) }
func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

do {
    let store = try Store.open(path: path)
    say("Created \(path) (page size \(store.pageSize) bytes, durability full)")

    let names = ["Ada", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Niklaus", "Radia"]
    try store.write { tx in
        let people = try tx.createTree("people")
        let byCity = try tx.createTree("people-by-city")
        for (i, name) in names.enumerated() {
            let city = ["Zurich", "London", "Austin"][i % 3]
            let key = utf8(String(format: "person-%03d", i))
            try people.put(key, utf8("\(name), \(city), joined \(1970 + i * 3)"))
            try byCity.put(utf8(city) + [0] + key, [])
        }
    }
    say("Transaction 1: stored \(names.count) people and a city index in two trees")

    let snapshot = try store.beginRead()
    try store.write { tx in
        try tx.tree("people")!.put(utf8("person-000"), utf8("Ada Lovelace, London, joined 1970"))
        try tx.tree("people")!.delete(utf8("person-009"))
    }
    say("Transaction 2: renamed person-000, deleted person-009")
    let old = try snapshot.tree("people")!.get(utf8("person-000")).map { String(decoding: $0, as: UTF8.self) } ?? "-"
    let new =
        try store.read { try $0.tree("people")!.get(utf8("person-000")) }.map { String(decoding: $0, as: UTF8.self) }
        ?? "-"
    say("A reader that began before transaction 2 still sees \"\(old)\"; a new one sees \"\(new)\"")
    snapshot.end()

    try store.read { tx in
        var londoners: [String] = []
        try tx.tree("people-by-city")!.scan(from: utf8("London") + [0], upTo: utf8("London") + [1]) { key, _ in
            let personKey = Array(key.drop(while: { $0 != 0 }).dropFirst())
            if let row = try tx.tree("people")!.get(personKey) {
                londoners.append(String(decoding: row, as: UTF8.self))
            }
            return true
        }
        say("Range scan of the city index for London: \(londoners.count) people")
        for row in londoners { say("  \(row)") }
        say("Trees: \(try tx.treeNames().joined(separator: ", ")); people: \(try tx.tree("people")!.count()) entries")
    }

    try store.write { tx in
        let log = try tx.createTree("log")
        for i in 0..<5000 {
            try log.put(
                utf8(String(format: "event-%06d", i)), utf8("event \(i): user signed in from a browser on a laptop"))
        }
    }
    let before = store.statistics
    let result = try store.checkpoint()
    say(
        "Transaction 3: 5,000 log entries; checkpoint copied \(result.pagesCopied) pages, WAL reset: \(result.walReset)"
    )
    say("  WAL was \(before.walBytes) bytes; page file holds commit \(result.pageFileCommit)")
    try store.close()

    let reopened = try Store.open(path: path)
    let count = try reopened.read { try $0.tree("log")!.count() }
    let stats = reopened.statistics
    try reopened.close()
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    say(
        "Reopened: \(count) log entries, \(stats.pageCount - 1) pages of \(stats.pageSize) bytes "
            + "(\((stats.pageCount - 1) * stats.pageSize) bytes uncompressed) in a \(size)-byte file"
    )
} catch {
    FileHandle.standardError.write(Data("demo failed: \(error)\n".utf8))
    exit(1)
}
