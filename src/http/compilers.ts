// Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), run on a
// route's first use instead of at start-up. Compiling every route's schemas was most of building
// the app (build + ready 220 → 90 ms idle, docs/performance.md "Start-up"), and most processes that
// build it answer few routes: each test file builds it one to five times. One Ajv per process also
// keeps what it compiled for the next app built in the same process. What gets compiled, and the
// answers, are Fastify's defaults; only the moment changes.
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Compile<F> = (route: object) => F;
type Factory<F> = (externalSchemas: unknown, options: unknown) => Compile<F>;

// One per process: an app built again in the same process finds its schemas compiled.
const validators = AjvCompiler() as unknown as Factory<Validate>;
const serializers = SerializerSelector() as unknown as Factory<(data: unknown) => string>;

/** `compile(route)` once, when the route first needs it. */
function onFirstUse<F>(compile: Compile<F>, route: object): () => F {
  let compiled: F | undefined;
  return () => {
    compiled ??= compile(route);
    return compiled;
  };
}

// The factories' types in Fastify are Ajv's and fast-json-stringify's own; the functions below
// keep their calling convention (a validator with `errors`, a serializer to a string).
export const lazyCompilers = {
  buildValidator(externalSchemas: unknown, options: unknown): Compile<Validate> {
    const compile = validators(externalSchemas, options);
    return (route) => {
      const compiled = onFirstUse(compile, route);
      // Fastify reads a failed check's `errors` from the function it holds.
      const validate: Validate = (data) => {
        const check = compiled();
        const valid = check(data);
        validate.errors = check.errors;
        return valid;
      };
      return validate;
    };
  },
  buildSerializer(externalSchemas: unknown, options: unknown): Compile<(data: unknown) => string> {
    const compile = serializers(externalSchemas, options);
    return (route) => {
      const compiled = onFirstUse(compile, route);
      return (data) => compiled()(data);
    };
  },
} as unknown as CompilersFactory;
