// The V4A patch format as a Lark grammar, for the `format` of a custom tool in OpenAI's Responses API:
// the model's free-form apply_patch input is then constrained to a patch src/edit/v4a-parse.ts reads.
// Written from the format (see docs/file-tools.md), a little stricter than the parser: the parser also
// takes what models slip into (wrappers, padded markers), the grammar keeps the model from needing to.
export const V4A_LARK_GRAMMAR = [
  'start: "*** Begin Patch" LF file_op+ "*** End Patch" LF?',
  'file_op: add_file | delete_file | update_file',
  'add_file: "*** Add File: " PATH LF added_line+',
  'delete_file: "*** Delete File: " PATH LF',
  'update_file: "*** Update File: " PATH LF move_to? chunk*',
  'move_to: "*** Move to: " PATH LF',
  'chunk: hint+ body_line+ end_of_file? | body_line+ end_of_file?',
  'hint: "@@" LF | "@@ " TEXT LF',
  'body_line: context_line | removed_line | added_line',
  'context_line: " " TEXT? LF',
  'removed_line: "-" TEXT? LF',
  'added_line: "+" TEXT? LF',
  'end_of_file: "*** End of File" LF',
  'PATH: /[^\\r\\n]+/',
  'TEXT: /[^\\r\\n]+/',
  '%import common.LF',
].join('\n');
