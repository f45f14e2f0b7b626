import Foundation
import Provision
import Testing

// The README's example, verbatim between the markers, so that the README stays true.
// README-EXAMPLE-BEGIN
protocol Database: Sendable {
    func query(_ sql: String) -> [String]
}

final class InMemoryDatabase: Database {
    func query(_ sql: String) -> [String] { ["alice", "bob"] }
}

struct ServerConfig: Sendable {
    var port: Int
}

final class UserRepository: Sendable {
    let database: any Database

    init(database: any Database) {
        self.database = database
    }

    func names() -> [String] { database.query("SELECT name FROM users") }
}

final class UserService: Sendable {
    let repository: UserRepository
    let config: ServerConfig

    init(repository: UserRepository, config: ServerConfig) {
        self.repository = repository
        self.config = config
    }
}

struct StorageModule: Module {
    func configure(_ binder: Binder) {
        binder.bind((any Database).self).to(InMemoryDatabase.init).in(.singleton)
        binder.bind(UserRepository.self).to(UserRepository.init(database:))
    }
}

struct ServerModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(ServerConfig.self).toInstance(ServerConfig(port: 8080))
        binder.bind(ServerConfig.self, named: "admin").toInstance(ServerConfig(port: 9090))
        binder.bind(UserService.self).to(UserService.init(repository:config:))
    }
}

func readmeExample() throws -> String {
    let injector = try Injector(StorageModule(), ServerModule())
    let service = try injector.get(UserService.self)
    let admin = try injector.get(ServerConfig.self, named: "admin")
    return "port \(service.config.port), admin \(admin.port): \(service.repository.names().joined(separator: ", "))"
}
// README-EXAMPLE-END

@Suite("Documentation")
struct ReadmeExampleTests {
    @Test("the README example runs as written")
    func readmeExampleRuns() throws {
        #expect(try readmeExample() == "port 8080, admin 9090: alice, bob")
    }

    @Test("the README shows exactly the example this test runs")
    func readmeMatchesTest() throws {
        let root = URLPath.packageRoot(from: #filePath)
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let test = try String(contentsOfFile: #filePath, encoding: .utf8)
        let example = try #require(URLPath.between("// README-EXAMPLE-BEGIN\n", "// README-EXAMPLE-END", in: test))
        #expect(readme.contains(example), "README.md's example differs from ReadmeExampleTests.swift")
    }
}
