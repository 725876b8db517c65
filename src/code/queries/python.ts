// Tag query for Python: classes, functions (methods are told apart by their container), module-level names,
// every identifier used as a value or a type, and the local bindings and scopes that shadow module names.
export const PYTHON_QUERY = `
(import_statement) @import.statement @local.skip
(import_from_statement) @import.statement @local.skip

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
; Module level only (extract drops those inside a function or class): also under if/try/with blocks,
; so names defined in \`if TYPE_CHECKING:\` are definitions.
(expression_statement (assignment left: (identifier) @name) @definition.variable)

(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @reference.call
(class_definition superclasses: (argument_list (identifier) @name)) @reference.class
(class_definition superclasses: (argument_list (attribute object: (_) @qualifier attribute: (identifier) @name))) @reference.class
(class_definition superclasses: (argument_list (subscript value: (identifier) @name))) @reference.class
(class_definition superclasses: (argument_list (subscript value: (attribute object: (_) @qualifier attribute: (identifier) @name)))) @reference.class
(type (identifier) @name) @reference.type
(decorator (identifier) @name) @reference.call
(attribute object: (_) @qualifier attribute: (identifier) @name) @reference.name
(identifier) @name @reference.name
; Forward references: type expressions in strings.
; Annotations are searched for strings in code (few have any; wildcard nesting patterns cost more).
(type) @forward.annotation
(keyword_argument name: (identifier) @_bound (#eq? @_bound "bound") value: (string (string_content) @forward))
(call function: [(identifier) (attribute)] @_cast (#match? @_cast "(^|\\.)cast$")
  arguments: (argument_list . (string (string_content) @forward)))

(parameters (identifier) @local.definition)
(default_parameter name: (identifier) @local.definition)
(typed_parameter . (identifier) @local.definition)
(typed_default_parameter name: (identifier) @local.definition)
(list_splat_pattern (identifier) @local.definition)
(dictionary_splat_pattern (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(assignment left: (identifier) @local.definition)
(augmented_assignment left: (identifier) @local.definition)
(pattern_list (identifier) @local.definition)
(tuple_pattern (identifier) @local.definition)
(list_pattern (identifier) @local.definition)
(for_statement left: (identifier) @local.definition)
(for_in_clause left: (identifier) @local.definition)
(as_pattern_target (identifier) @local.definition)
(named_expression name: (identifier) @local.definition)
(keyword_argument name: (identifier) @local.skip)
(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.skip)

(function_definition) @local.scope
(lambda) @local.scope
(list_comprehension) @local.scope
(set_comprehension) @local.scope
(dictionary_comprehension) @local.scope
(generator_expression) @local.scope
`;
