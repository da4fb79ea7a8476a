// `npm run check:cycles`: import cycles and layering over src/. Every rule is an error. The
// sources import each other by their real `.ts` names (type stripping), which resolve as files;
// type-only imports count too, since a layer should not know another's types either.
const layer = (names) => `^src/(${names.join('|')})(/|[.]ts$)`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other, directly or through others.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'db-below-features',
      severity: 'error',
      comment: 'src/db is the bottom layer: SQL only, called by the features, never calling them.',
      from: { path: '^src/db/' },
      to: {
        path: layer([
          'routes',
          'http',
          'cli',
          'auth',
          'reports',
          'analytics',
          'ingest',
          'monitoring',
          'recommendations',
          'demo',
          'serializers',
        ]),
      },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain is pure computation: it may use only itself and src/errors.ts.',
      from: { path: '^src/domain/' },
      to: { pathNot: '^src/(domain/|errors[.]ts$)' },
    },
    {
      name: 'routes-not-operator-tools',
      severity: 'error',
      comment: 'HTTP routes may not reach into the command line or the demo data.',
      from: { path: '^src/routes/' },
      to: { path: layer(['cli', 'demo']) },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages such as typebox and kysely/migration resolve only through their `exports` map.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'] },
  },
};
