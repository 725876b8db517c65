// todo_read: the session's current todo list.
import { Type } from 'typebox';
import { defineTool } from '../../contract/tool.js';
import { TodoSchema } from '../../store/todos.js';
import { renderTodos } from '../../todos/render.js';

export default defineTool({
  name: 'todo_read',
  category: 'state',
  description: 'Read the session’s todo list, as last written with todo_write (empty at first).',
  capabilities: { idempotent: true },
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ todos: Type.Array(TodoSchema) }),
  examples: [{}],
  async execute(_input, ctx) {
    return { todos: await ctx.services.todos.list(ctx.session.id) };
  },
  render: (data) => renderTodos(data.todos),
});
