// Tag query for JavaScript (also the shared core of the TypeScript one): definitions and references.
// Capture names follow tree-sitter's tags.scm convention: @definition.<kind> / @reference.<kind> + @name.
export const JS_CORE_QUERY = `
(import_statement) @import.statement
(export_statement) @import.statement
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
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.class
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.class
(arguments (identifier) @name) @reference.name
(member_expression object: (identifier) @name) @reference.name
`;

export const JAVASCRIPT_QUERY = `${JS_CORE_QUERY}
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field
(class_heritage (identifier) @name) @reference.class
(jsx_opening_element name: (identifier) @name) @reference.class
(jsx_self_closing_element name: (identifier) @name) @reference.class
`;
