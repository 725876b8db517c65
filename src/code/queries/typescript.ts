// Tag query for TypeScript and TSX: the JavaScript core plus types, interfaces, enums and namespaces.
import { JS_CORE_QUERY } from './javascript.js';

const TS_QUERY = `${JS_CORE_QUERY}
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (identifier) @name) @definition.module
(module name: (identifier) @name) @definition.module
(abstract_method_signature name: (property_identifier) @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(function_signature name: (identifier) @name) @definition.function
; \`declare const X: T\` (exported or not) defines X like a const.
(program (ambient_declaration [
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)]))
(program (export_statement declaration: (ambient_declaration [
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)])))
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field

(type_identifier) @name @reference.type
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)
(nested_type_identifier module: (_) @qualifier name: (type_identifier) @name) @reference.type
(extends_clause value: (identifier) @name) @reference.class
(implements_clause (type_identifier) @name) @reference.implementation
`;

export const TYPESCRIPT_QUERY = TS_QUERY;

export const TSX_QUERY = `${TS_QUERY}
(jsx_opening_element name: (identifier) @name) @reference.class
(jsx_self_closing_element name: (identifier) @name) @reference.class
`;
