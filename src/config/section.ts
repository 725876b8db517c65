// The two forms of a config section: as the file writes it (every key optional, no unknown key) and as
// the service uses it (the schema's defaults filled in).
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** The section as written in the config file: any key may be left out, an unknown key is an error. */
export function fileForm<T extends TObject>(schema: T) {
  return Type.Optional(Type.Partial(schema, { additionalProperties: false }));
}

/** What the file gave (or nothing), with the schema's defaults for the rest. */
export function withDefaults<T extends TSchema>(schema: T, given: object | undefined): Static<T> {
  return Value.Default(schema, { ...(given ?? {}) }) as Static<T>;
}
