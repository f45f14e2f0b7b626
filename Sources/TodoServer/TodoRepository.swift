import Foundation
import Logging
import PostgresNIO

/// Reads to-do items from PostgreSQL; a singleton shared by every request. Writes go through the
/// request's ``UnitOfWork``, so that they are committed together, or not at all.
final class TodoRepository: Sendable {
    private let client: PostgresClient

    init(client: PostgresClient) {
        self.client = client
    }

    /// The item `id`, or `nil`.
    func find(_ id: UUID, logger: Logger) async throws -> Todo? {
        let rows = try await client.query("SELECT id, title, done FROM todos WHERE id = \(id)", logger: logger)
        for try await (id, title, done) in rows.decode((UUID, String, Bool).self) {
            return Todo(id: id, title: title, done: done)
        }
        return nil
    }

    /// The `limit` most recently created items, newest first.
    func recent(limit: Int, logger: Logger) async throws -> [Todo] {
        let rows = try await client.query(
            "SELECT id, title, done FROM todos ORDER BY created_at DESC LIMIT \(limit)",
            logger: logger
        )
        var todos: [Todo] = []
        for try await (id, title, done) in rows.decode((UUID, String, Bool).self) {
            todos.append(Todo(id: id, title: title, done: done))
        }
        return todos
    }
}
