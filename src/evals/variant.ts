// A configuration a dataset runs against. Several in one run make an A/B report: the same cases, side by
// side. A variant changes how each case's session is made (profile, categories, excluded tools) and
// which tool a case's calls go to (two versions of a tool folder under two names); the CLI can also give
// a variant its own app (other environment: another tool folder, config file or policy).
import { Type, type Static } from 'typebox';

export const VariantSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 60, pattern: '^[A-Za-z0-9._-]+$' }),
    session: Type.Optional(
      Type.Object(
        {
          profile: Type.Optional(Type.String()),
          categories: Type.Optional(Type.Array(Type.String())),
          excludeTools: Type.Optional(Type.Array(Type.String())),
        },
        { additionalProperties: false, description: "Overrides the case's session settings" },
      ),
    ),
    rename: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Tool name in the dataset → the tool this variant calls instead',
      }),
    ),
  },
  { additionalProperties: false },
);

export type Variant = Static<typeof VariantSchema>;

export const DEFAULT_VARIANT: Variant = { name: 'default' };
