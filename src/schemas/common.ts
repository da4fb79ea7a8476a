import { type TInteger, type TSchema, Type } from 'typebox';

// Building blocks shared by every resource's schemas.

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Detail = Type.Object(
  { detail: Type.String() },
  { $id: 'Detail', description: 'Error message.' },
);
export const FieldErrorsBody = Type.Record(Type.String(), Type.Array(Type.String()), {
  $id: 'FieldErrors',
  description: 'Each offending parameter (or non_field_errors) mapped to its messages.',
});

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, description: '1-based page number.' })),
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'Items per page; default 25, values above 100 are clamped to 100.',
    }),
  ),
};

// Typed by the literal name, so that handlers read `request.params.<name>` as a number.
export const IdParam = <K extends string>(name: K) => {
  const id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
  return Type.Object({ [name]: id } as Record<K, TInteger>);
};

/** A page envelope; `name` is its component name in the OpenAPI document. */
export function Paginated<T extends TSchema>(name: string, item: T, extra: Record<string, TSchema> = {}) {
  return Type.Object(
    {
      count: Type.Integer(),
      next: Nullable(Type.String()),
      previous: Nullable(Type.String()),
      results: Type.Array(item),
      ...extra,
    },
    { $id: name },
  );
}

// Every status the service can answer an API request with, Node's own refusals of the request
// (408, 431: src/http/errors.ts) included.
const errorResponses = {
  400: { $ref: 'FieldErrors#' },
  401: { $ref: 'Detail#' },
  403: { $ref: 'Detail#' },
  404: { $ref: 'Detail#' },
  408: { $ref: 'Detail#' },
  429: { $ref: 'Detail#' },
  431: { $ref: 'Detail#' },
  500: { $ref: 'Detail#' },
  503: { $ref: 'Detail#' },
} as const;

/** The response map of a keyed endpoint: its success body plus the shared error bodies. */
export function responses<T extends TSchema>(ok: T) {
  return { 200: ok, ...errorResponses };
}
