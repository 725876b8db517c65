// Tag query for Python: classes, functions (methods are told apart by their container), module-level names.
export const PYTHON_QUERY = `
(import_statement) @import.statement
(import_from_statement) @import.statement

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))

(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call
(class_definition superclasses: (argument_list (identifier) @name)) @reference.class
(type (identifier) @name) @reference.type
(decorator (identifier) @name) @reference.call
(argument_list (identifier) @name) @reference.name
(attribute object: (identifier) @name) @reference.name
`;
