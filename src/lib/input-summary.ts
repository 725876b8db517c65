// A short, redacted description of a call's input for the audit log: never file contents, patches,
// stdin or secrets; long strings cut; environment values dropped.
const CONTENT_KEYS = new Set([
  'content',
  'old_string',
  'new_string',
  'patch',
  'stdin',
  'input',
  'text',
  'data',
  'body',
  'todos',
  'files',
  'edits',
]);
const SECRET_KEYS = /(token|secret|password|passwd|api[_-]?key|authorization|credential)/i;
const SECRET_VALUES = /(Bearer\s+\S+|tg[as]_[A-Za-z0-9_-]{10,}|(?:password|token|secret|api[_-]?key)=\S+)/gi;
const MAX_STRING = 200;
const MAX_SUMMARY = 1000;

function summarizeValue(key: string, value: unknown, depth: number): unknown {
  if (SECRET_KEYS.test(key)) return '[redacted]';
  if (CONTENT_KEYS.has(key)) {
    if (typeof value === 'string') return `[${Buffer.byteLength(value)} bytes]`;
    if (Array.isArray(value)) return `[${value.length} items]`;
    if (value && typeof value === 'object') return `[${Object.keys(value).length} entries]`;
  }
  if (key === 'env' && value && typeof value === 'object') return Object.keys(value);
  if (typeof value === 'string') {
    const masked = value.replace(SECRET_VALUES, '[redacted]');
    return masked.length > MAX_STRING ? `${masked.slice(0, MAX_STRING)}…` : masked;
  }
  if (depth > 2) return typeof value;
  if (Array.isArray(value)) return value.slice(0, 10).map((item) => summarizeValue('', item, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .slice(0, 20)
        .map(([k, v]) => [k, summarizeValue(k, v, depth + 1)]),
    );
  }
  return value;
}

export function summarizeInput(input: unknown): string {
  const text = JSON.stringify(summarizeValue('', input, 0)) ?? 'null';
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY)}…` : text;
}
