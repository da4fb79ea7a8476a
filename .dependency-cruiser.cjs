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
      comment: 'src/db is the bottom layer: SQL in, rows out. It may use the pure domain and config, never a feature.',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db/|domain/|errors[.]ts$|config[.]ts$)' },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain is pure computation: itself, src/errors.ts and pure libraries; no other layer.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(domain/|errors[.]ts$)' },
    },
    {
      name: 'domain-does-no-io',
      severity: 'error',
      comment: 'Node built-ins (files, processes, network) have no place in pure computation.',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'mcp-is-an-api-client',
      severity: 'error',
      comment:
        'src/mcp reads through the SDK (clients/typescript) like any client of the API, so scopes, tenancy and the rate limit apply: never the database or a feature service.',
      from: { path: '^src/mcp/' },
      to: {
        path: '^src/',
        pathNot: '^src/(mcp/|auth/gate[.]ts$|http/types[.]ts$|errors[.]ts$|config[.]ts$)',
      },
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
