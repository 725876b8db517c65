// Tag query for Java: types, methods, constructors and fields.
export const JAVA_QUERY = `
(import_declaration) @import.statement
(package_declaration) @import.package

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field

(method_invocation name: (identifier) @name) @reference.call
(method_invocation object: (identifier) @name (#match? @name "^[A-Z]")) @reference.class
(object_creation_expression type: (type_identifier) @name) @reference.class
(superclass (type_identifier) @name) @reference.class
(super_interfaces (type_list (type_identifier) @name)) @reference.implementation
(type_identifier) @name @reference.type
(argument_list (identifier) @name) @reference.name
`;
