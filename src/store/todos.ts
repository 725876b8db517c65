// Todo lists, one per session: replaced whole by todo_write, read by todo_read, removed with the session.
import { randomBytes } from 'node:crypto';
import { Type, type Static } from 'typebox';
import type { Migration, SqlDatabase } from './sql.js';

export const todoMigrations: Migration[] = [
  {
    name: 'todos_0001_create',
    sql: `
      CREATE TABLE todos (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        id TEXT NOT NULL,
        content TEXT NOT NULL,
        status TEXT NOT NULL,
        priority TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, position)
      );
    `,
  },
];

export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export const TODO_PRIORITIES = ['high', 'medium', 'low'] as const;

export const TodoSchema = Type.Object({
  id: Type.String(),
  content: Type.String(),
  status: Type.Enum([...TODO_STATUSES]),
  priority: Type.Optional(Type.Enum([...TODO_PRIORITIES])),
});
export type Todo = Static<typeof TodoSchema>;
export type TodoInput = Omit<Todo, 'id'> & { id?: string };

interface TodoRow {
  id: string;
  content: string;
  status: Todo['status'];
  priority: Todo['priority'] | null;
}

export class TodoStore {
  constructor(private readonly db: SqlDatabase) {}

  async list(sessionId: string): Promise<Todo[]> {
    const rows = await this.db.all<TodoRow>(
      'SELECT id, content, status, priority FROM todos WHERE session_id = ? ORDER BY position',
      [sessionId],
    );
    return rows.map(({ priority, ...row }) => (priority ? { ...row, priority } : row));
  }

  /** Replaces the session's list in one transaction; items without an id get a fresh one. */
  async replace(sessionId: string, todos: TodoInput[], now = Date.now()): Promise<Todo[]> {
    const saved: Todo[] = todos.map((todo) => ({
      ...todo,
      id: todo.id ?? `todo_${randomBytes(6).toString('base64url')}`,
    }));
    await this.db.transaction(async (tx) => {
      await tx.run('DELETE FROM todos WHERE session_id = ?', [sessionId]);
      for (const [position, todo] of saved.entries()) {
        await tx.run(
          `INSERT INTO todos (session_id, position, id, content, status, priority, updated_at)
           VALUES (@sessionId, @position, @id, @content, @status, @priority, @updatedAt)`,
          {
            sessionId,
            position,
            id: todo.id,
            content: todo.content,
            status: todo.status,
            priority: todo.priority ?? null,
            updatedAt: now,
          },
        );
      }
    });
    return saved;
  }
}
