// Tag query for Go: functions, methods (container = receiver type), types, package-level consts and vars.
export const GO_QUERY = `
(import_spec) @import.statement
(package_clause) @import.package

(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [
  (type_identifier) (qualified_type) (function_type) (map_type) (slice_type) (array_type)
  (pointer_type) (channel_type) (generic_type)]) @definition.type
(method_elem name: (field_identifier) @name) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
`;
