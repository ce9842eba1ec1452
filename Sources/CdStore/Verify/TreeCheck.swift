// Pass 7: the catalog tree (root page 2), then every tree it names, through BTreeChecker (key
// order within pages and against the parents' separators, equal leaf depth, no cycles, cell
// space accounting, complete overflow chains: BTree T2–T8). Every page a tree reaches is claimed
// for that tree, so a page shared by two trees, or used and listed free, is a problem naming both.

struct TreeCheck: VerificationPass {
    static let catalogName = "(catalog)"
    let name = "trees"

    func run(_ context: VerificationContext) throws {
        guard context.metaPage != nil || context.pageCount > MetaPage.catalogRoot.rawValue else { return }
        let source = context.source
        let catalogReport = check(context, name: Self.catalogName, tree: BTree(root: MetaPage.catalogRoot))
        if context.operationalError != nil { return }
        var roots: [PageNumber: String] = [:]
        let leaves = catalogReport.pages.filter { $0.value == .leaf }.map(\.key).sorted()
        var entries: [(key: [UInt8], name: String, tree: BTree)] = []
        for leaf in leaves {
            guard let buffer = try? source.page(leaf), let node = try? BTreeNode(buffer, number: leaf) else { continue }
            for i in 0..<node.count {
                guard let key = try? node.key(i) else { continue }  // reported by the checker
                let location = VerificationLocation(area: .tree, page: leaf, tree: Self.catalogName, key: key)
                guard let name = String(validating: key, as: UTF8.self) else {
                    context.problem(location, "catalog key is not a UTF-8 tree name")
                    continue
                }
                // Catalog values are 8 bytes, always inline: never follow a chain from here (a
                // hostile chain could be long); BTreeChecker checks the chain itself.
                guard let cell = try? node.leafCell(i) else { continue }  // reported by the checker
                guard !cell.isOverflow else {
                    context.problem(location, "catalog entry for tree \"\(name)\" is stored in an overflow chain")
                    continue
                }
                let value = Array(node.bytes[cell.valueStart..<cell.valueStart + cell.valueLength])
                do {
                    let tree = try Catalog.decodeRoot(value, tree: name, path: context.path)
                    if let other = roots[tree.root] {
                        context.problem(
                            VerificationLocation(area: .tree, page: tree.root, tree: name),
                            "trees \"\(other)\" and \"\(name)\" have the same root page \(tree.root)")
                        continue
                    }
                    roots[tree.root] = name
                    entries.append((key, name, tree))
                } catch let StoreError.corruption(_, _, detail) {
                    context.problem(VerificationLocation(area: .tree, page: leaf, tree: name), detail)
                }
            }
        }
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        context.trees = entries.map { ($0.name, $0.tree) }
        for (i, e) in entries.enumerated() {
            context.progress(name, i, entries.count)
            _ = check(context, name: e.name, tree: e.tree)
            if context.operationalError != nil { return }
        }
    }

    /// Runs BTreeChecker on one tree, reports its problems under the tree's name, claims its pages.
    private func check(_ context: VerificationContext, name: String, tree: BTree) -> BTreeCheckReport {
        let report = BTreeChecker.check(tree, in: context.source)
        for p in report.problems {
            if p.detail == alreadyReported {
                context.attribute(page: p.page, toTree: name)  // name the tree on the image's problem
            } else {
                context.problem(VerificationLocation(area: .page, page: p.page, tree: name, key: p.key), p.detail)
            }
        }
        for page in report.pages.keys.sorted() { context.claim(page.rawValue, .tree(name)) }
        context.updateSummary { s in
            s.trees.append(
                TreeSummary(
                    name: name, root: tree.root.rawValue, entries: report.entryCount,
                    depth: report.depth, pages: report.pages.count))
        }
        return report
    }
}
