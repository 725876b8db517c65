// todo_write: replaces the session's todo list (kept in SQLite, surviving restarts) and returns it.
import { Type } from 'typebox';
import { toolgateError } from '../../lib/errors.js';
import { defineTool } from '../../contract/tool.js';
import { TodoSchema, TODO_PRIORITIES, TODO_STATUSES } from '../../store/todos.js';
import { renderTodos } from '../../todos/render.js';

const MAX_TODOS = 500;

const TodoInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Keep an item’s id; omitted → a new one' }),
    ),
    content: Type.String({ minLength: 1, maxLength: 2000, description: 'What is to be done' }),
    status: Type.Enum([...TODO_STATUSES], { description: 'pending, in_progress, completed or cancelled' }),
    priority: Type.Optional(Type.Enum([...TODO_PRIORITIES], { description: 'high, medium or low' })),
  },
  { additionalProperties: false },
);

const Input = Type.Object(
  {
    todos: Type.Array(TodoInput, {
      maxItems: MAX_TODOS,
      description: 'The whole new list, in order; it replaces the previous one',
    }),
  },
  { additionalProperties: false },
);

const Output = Type.Object({ todos: Type.Array(TodoSchema) });

export default defineTool({
  name: 'todo_write',
  category: 'state',
  description:
    'Replace the session’s todo list with `todos` (the whole list, in order) and return it with ids. ' +
    'Use it to plan multi-step work and to mark progress: keep one item in_progress at a time, mark items ' +
    'completed as soon as they are done. Pass back an item’s id to keep it; items without id get a new one.',
  // Only the session's own todo state changes; no workspace file is touched.
  capabilities: { idempotent: true },
  input: Input,
  output: Output,
  examples: [{ todos: [{ content: 'Write the parser tests', status: 'in_progress', priority: 'high' }] }],
  async execute(input, ctx) {
    const ids = input.todos.map((t) => t.id).filter((id): id is string => id !== undefined);
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
    if (duplicate) {
      throw toolgateError('VALIDATION_FAILED', `Todo id "${duplicate}" appears more than once`, {
        suggestion: 'Give each item its own id, or leave id out for new items.',
      });
    }
    return { todos: await ctx.services.todos.replace(ctx.session.id, input.todos) };
  },
  render: (data) => renderTodos(data.todos),
});
