import Foundation
import Hummingbird

/// The JSON API, the same in both wirings:
///
/// - `GET /todos?limit=N`: the N most recent items (20 by default, at most 100);
/// - `GET /todos/:id`: one item, or 404;
/// - `POST /todos` `{"title": "..."}`: creates an item, 201 with it;
/// - `PATCH /todos/:id` `{"done": true}`: updates an item, or 404;
/// - `GET /health`: 200 once the server runs.
enum TodoRoutes {
    static func add<Context: TodoContext>(to router: Router<Context>) {
        router.get("health") { _, _ in HTTPResponse.Status.ok }
        let todos = router.group("todos")
        todos.get { request, context in
            let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? 20
            return try await context.todoService().recent(limit: limit)
        }
        todos.get(":id") { _, context in
            try await context.todoService().find(context.parameters.require("id", as: UUID.self))
        }
        todos.post { request, context in
            let new = try await request.decode(as: NewTodo.self, context: context)
            let todo = try context.todoService().create(new)
            return EditedResponse(status: .created, response: todo)
        }
        todos.patch(":id") { request, context in
            let change = try await request.decode(as: TodoChange.self, context: context)
            return try await context.todoService().update(context.parameters.require("id", as: UUID.self), change)
        }
    }
}
