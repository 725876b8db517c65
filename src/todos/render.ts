// Compact text of a todo list for an LLM: one line per item with a status mark.
import type { Todo } from '../store/todos.js';

const MARKS: Record<Todo['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  completed: '[x]',
  cancelled: '[-]',
};

export function renderTodos(todos: Todo[]): string {
  if (!todos.length) return '(no todos)';
  const open = todos.filter((t) => t.status === 'pending' || t.status === 'in_progress').length;
  const lines = todos.map(
    (t) => `${MARKS[t.status]} ${t.content}${t.priority ? ` (${t.priority})` : ''}  [${t.id}]`,
  );
  return [...lines, `${open} open of ${todos.length}`].join('\n');
}
