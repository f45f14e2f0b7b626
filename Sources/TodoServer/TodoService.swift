import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// What a request can do with to-do items: reads through the repository, writes through the request's
/// unit of work. One per request (`.scoped`), made with the request's logger and identifier.
final class TodoService: Sendable {
    private let repository: TodoRepository
    private let unitOfWork: UnitOfWork
    private let logger: Logger

    init(repository: TodoRepository, unitOfWork: UnitOfWork, logger: Logger) {
        self.repository = repository
        self.unitOfWork = unitOfWork
        self.logger = logger
    }

    /// The most recent items.
    func recent(limit: Int) async throws -> [Todo] {
        try await repository.recent(limit: min(max(limit, 1), 100), logger: logger)
    }

    /// The item `id`; throws 404 when there is none.
    func find(_ id: UUID) async throws -> Todo {
        guard let todo = try await repository.find(id, logger: logger) else {
            throw HTTPError(.notFound, message: "no to-do item \(id)")
        }
        return todo
    }

    /// Creates an item; written when the request's unit of work commits.
    func create(_ new: NewTodo) throws -> Todo {
        let title = new.title.trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty, title.count <= 200 else {
            throw HTTPError(.badRequest, message: "a title has 1 to 200 characters")
        }
        let todo = Todo(id: UUID(), title: title, done: false)
        unitOfWork.write("INSERT INTO todos (id, title, done) VALUES (\(todo.id), \(todo.title), \(todo.done))")
        logger.debug("Creating a to-do item", metadata: ["todo.id": "\(todo.id)"])
        return todo
    }

    /// Marks item `id` done or not; throws 404 when there is none.
    func update(_ id: UUID, _ change: TodoChange) async throws -> Todo {
        var todo = try await find(id)
        todo.done = change.done
        unitOfWork.write("UPDATE todos SET done = \(change.done) WHERE id = \(id)")
        return todo
    }
}
