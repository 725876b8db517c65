// Validates route params, querystrings and bodies against their TypeBox schemas: defaults applied,
// query strings converted to the declared types, errors reported by the error envelope.
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

export const schemaValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  return (value: unknown) => {
    const converted = httpPart === 'body' ? value : Value.Convert(schema, value);
    const withDefaults = Value.Default(schema, converted);
    if (check.Check(withDefaults)) return { value: withDefaults };
    return { error: [...check.Errors(withDefaults)] as never };
  };
};

/**
 * For routes whose body the handler checks itself (tool input is validated by the pipeline, so refusals
 * are audited and described for a model); the route's schema then only documents the body.
 */
export const skipValidation = () => (value: unknown) => ({ value });

/** For routes with a raw (streamed) body: params, query and headers are validated, the body only documented. */
export const rawBodyValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) =>
  route.httpPart === 'body' ? skipValidation() : schemaValidatorCompiler(route);
