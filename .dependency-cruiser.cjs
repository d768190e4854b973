// The architecture as checked rules (npm run lint). The layers point one way:
//   protocol/ (pure codecs) <- storage/ (log engine) <- src/ (server, handlers, coordinators, admin)
//   config/ is read by src/ and bench/; console/ is the browser front end, served as files only.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make modules impossible to read or test on their own.',
      from: { pathNot: '^protocol/generated/' },
      to: { circular: true, pathNot: '^protocol/generated/' },
    },
    {
      name: 'protocol-is-pure',
      severity: 'error',
      comment: 'protocol/ holds pure codecs: no log engine, no configuration, no server.',
      from: { path: '^protocol/' },
      to: { path: '^(storage|config|src|console)/' },
    },
    {
      name: 'storage-knows-no-server',
      severity: 'error',
      comment: 'storage/ is the log engine: it knows nothing of requests, sockets or coordinators.',
      from: { path: '^storage/' },
      to: { path: '^(src|console)/' },
    },
    {
      name: 'config-knows-no-server',
      severity: 'error',
      comment: 'config/ parses and validates configuration; it does not reach into the server.',
      from: { path: '^config/' },
      to: { path: '^(src|console)/' },
    },
    {
      name: 'handlers-are-independent',
      severity: 'error',
      comment: 'One file per API key; a helper two handlers share moves to its own module.',
      from: { path: '^src/handlers/[0-9]+-' },
      to: { path: '^src/handlers/[0-9]+-' },
    },
    {
      name: 'registry-only-imports-handlers',
      severity: 'error',
      comment: 'Only the registry (src/handlers/index.ts) lists the handler files; the rest of the server goes through it.',
      from: { path: '^(src|storage|protocol|config)/', pathNot: '^src/handlers/' },
      to: { path: '^src/handlers/[0-9]+-' },
    },
    {
      name: 'console-is-separate',
      severity: 'error',
      comment: 'The console front end talks to the broker over HTTP only, and the server serves its built files only.',
      from: { path: '^console/' },
      to: { path: '^(src|storage|protocol|config|bench)/' },
    },
    {
      name: 'server-does-not-import-console',
      severity: 'error',
      from: { path: '^(src|storage|protocol|config)/' },
      to: { path: '^console/' },
    },
    {
      name: 'no-test-or-bench-in-product',
      severity: 'error',
      comment: 'Product code never depends on tests or benchmarks.',
      from: { path: '^(src|storage|protocol|config|console|bin)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'bench-not-from-test',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|build|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: {
      archi: { collapsePattern: '^(protocol/generated|protocol|storage|config|src|console|bench|test|bin|native)/' },
    },
  },
};
