import Foundation
import Testing

// Checks the claim of the "Coming from Objection" article: every behaviour of the three original
// frameworks (B-OBJ-01...45, B-OBI-01...16, B-INJ-01...19) is either adopted, with a test in this folder
// whose name starts with its id, or listed under "Deliberate differences" with its reason.

extension Seed {
    @Suite("Seeds: behaviour accounting")
    struct SeedAccountingTests {
        /// Every id of the reference list, in order.
        static let allIDs: [String] =
            (1...45).map { id("OBJ", $0) } + (1...16).map { id("OBI", $0) } + (1...19).map { id("INJ", $0) }

        static func id(_ framework: String, _ number: Int) -> String {
            "B-\(framework)-" + (number < 10 ? "0\(number)" : "\(number)")
        }

        /// What the checks read: the article's sections and the seed tests' display names.
        struct Documents {
            let article: String
            let differences: String
            /// Id to status ("adopted" or "different"), one entry per table row.
            let table: [(id: String, status: String)]
            let testNames: [String]
        }

        static func load(filePath: String = #filePath) throws -> Documents {
            let root = URLPath.packageRoot(from: filePath)
            let article = try String(
                contentsOfFile: root + "/Sources/Provision/Provision.docc/ComingFromObjection.md",
                encoding: .utf8
            )
            let differences = try #require(
                URLPath.between("## Deliberate differences\n", "\n## ", in: article),
                "the article has no \"Deliberate differences\" section"
            )
            let accounting = try #require(
                article.range(of: "## Behaviour accounting\n").map { String(article[$0.upperBound...]) },
                "the article has no \"Behaviour accounting\" section"
            )
            let table = accounting.split(separator: "\n").compactMap { line -> (id: String, status: String)? in
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 2, cells[0].hasPrefix("B-") else { return nil }
                return (cells[0], cells[1])
            }

            let folder = (filePath as NSString).deletingLastPathComponent
            let ownName = (filePath as NSString).lastPathComponent
            var testNames: [String] = []
            for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            where file.hasSuffix(".swift") && file != ownName {
                let source = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                for match in source.matches(of: #/@Test\("([^"]*)"/#) {
                    testNames.append(String(match.output.1))
                }
            }
            return Documents(article: article, differences: differences, table: table, testNames: testNames)
        }

        @Test("every seed behaviour is named by a test or listed as a deliberate difference")
        func everyBehaviourAccounted() throws {
            let documents = try Self.load()
            #expect(documents.testNames.count > 80)
            let unaccounted = Self.allIDs.filter { id in
                !documents.testNames.contains { $0.hasPrefix(id + " ") } && !documents.differences.contains(id)
            }
            #expect(unaccounted.isEmpty, "neither tested nor listed as different: \(unaccounted)")
        }

        @Test("the accounting table lists every id once; adopted ones have a test, different ones are listed")
        func accountingTableAgrees() throws {
            let documents = try Self.load()
            #expect(documents.table.map(\.id) == Self.allIDs)
            for (id, status) in documents.table {
                let tests = documents.testNames.filter { $0.hasPrefix(id + " ") }
                switch status {
                case "adopted":
                    #expect(
                        tests.contains { !$0.contains("(different)") },
                        "\(id) is marked adopted but no test of its behaviour carries the id"
                    )
                case "different":
                    #expect(
                        documents.differences.contains(id), "\(id) is marked different but not listed with a reason")
                default:
                    Issue.record("\(id) has the unknown status \"\(status)\"")
                }
            }
            let adopted = documents.table.filter { $0.status == "adopted" }.count
            let different = documents.table.count - adopted
            #expect(documents.article.contains("\(adopted) are adopted and \(different) are different"))
        }

        @Test("every seed test starts with a known id, and only different behaviours have \"(different)\" tests")
        func testNamesAreWellFormed() throws {
            let documents = try Self.load()
            let statuses = Dictionary(
                documents.table.map { ($0.id, $0.status) }, uniquingKeysWith: { first, _ in first })
            for name in documents.testNames {
                let id = String(name.prefix(8))
                #expect(
                    Self.allIDs.contains(id) && name.dropFirst(8).hasPrefix(" "), "malformed seed test name: \(name)")
                if name.contains("(different)") {
                    #expect(statuses[id] == "different", "\(name): marked (different), but \(id) is adopted")
                }
            }
        }
    }
}
