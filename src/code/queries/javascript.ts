// Tag query for JavaScript (also the shared core of the TypeScript one): definitions and references.
// Capture names follow tree-sitter's tags.scm convention: @definition.<kind> / @reference.<kind> + @name.
// Every identifier read as a value is a reference (\`return EMPTY\`, \`instanceof X\`, \`{ next: noop }\`,
// \`[KEY]: …\`); @local.* marks the bindings and scopes whose names shadow module-level ones, and
// @qualifier the object of \`ns.name\`, so a use through a namespace import resolves.
export const JS_CORE_QUERY = `
(import_statement) @import.statement @local.skip
(export_statement) @import.statement
(export_clause) @local.skip
(call_expression function: [(identifier) (import)] @import.function arguments: (arguments . (string (string_fragment) @import.source))) @import.call

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition.function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.class
(new_expression constructor: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @reference.class
(member_expression object: (_) @qualifier property: (property_identifier) @name) @reference.name
(identifier) @name @reference.name
(shorthand_property_identifier) @name @reference.name

(variable_declarator name: (identifier) @local.definition)
(function_expression name: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(for_in_statement left: (identifier) @local.definition)
(array_pattern (identifier) @local.definition)
(pair_pattern value: (identifier) @local.definition)
(assignment_pattern left: (identifier) @local.definition)
(rest_pattern (identifier) @local.definition)
(shorthand_property_identifier_pattern) @local.definition

(function_declaration) @local.scope
(generator_function_declaration) @local.scope
(function_expression) @local.scope
(generator_function) @local.scope
(arrow_function) @local.scope
(method_definition) @local.scope
(statement_block) @local.scope
(for_statement) @local.scope
(for_in_statement) @local.scope
(catch_clause) @local.scope
`;

export const JAVASCRIPT_QUERY = `${JS_CORE_QUERY}
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field
(class_heritage (identifier) @name) @reference.class
(formal_parameters (identifier) @local.definition)
(jsx_opening_element name: (identifier) @name) @reference.class
(jsx_self_closing_element name: (identifier) @name) @reference.class
`;
