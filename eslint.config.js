// Lint = the layering rules the compiler cannot state, plus a few correctness rules. Per-package tsconfigs
// already make a DOM global or node type in core a type error; these rules name the import itself:
//   packages/core   imports no node built-in (node:* or bare 'fs'), nothing from apps/, no DOM globals;
//   apps/web        imports no node built-in and nothing from apps/server (it runs in a browser);
//   apps/server     imports nothing from apps/web;
//   none of the three imports bench/ (@inferscope/bench): the lab depends on the product, never the reverse.
// Unused eslint-disable comments are errors, so a disable comment always names a rule that is on.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const browserSafe = 'core and the dashboard run in the browser too: no node built-ins (do the I/O in apps/server).';
// Bare names as exact paths ('events' as a pattern would also match '../events').
const nodeBuiltinPaths = builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message: browserSafe }));
const nodeBuiltins = { group: ['node:*'], message: browserSafe };
const fromApps = {
  group: ['**/apps/**', '@inferscope/server', '@inferscope/server/*', '@inferscope/web', '@inferscope/web/*'],
  message: 'dependencies point one way: apps import core, core never imports an app.',
};
// The apps import core by area (its package.json `exports`: '@inferscope/core/config', '.../scheduler'),
// never a file inside one: an area's index is its contract, its files are free to move.
const deepCore = {
  group: ['@inferscope/core/*/*', '@inferscope/core/*.ts', '@inferscope/core/src/*'],
  message: "import a core area ('@inferscope/core/<area>'), not a file inside it: add what you need to the area's index.ts.",
};
const fromWeb = { group: ['**/apps/web/**', '**/web/src/**', '@inferscope/web', '@inferscope/web/*'], message: 'the server does not import the dashboard.' };
const fromServer = { group: ['**/apps/server/**', '**/server/src/**', '@inferscope/server', '@inferscope/server/*'], message: 'the dashboard talks to the server over HTTP and Socket.IO only.' };
const fromBench = {
  group: ['**/bench/**', '@inferscope/bench', '@inferscope/bench/*'],
  message: 'bench/ is the lab: it depends on the product, the product never imports it (put what the product needs in core or the server).',
};
const domGlobals = ['window', 'document', 'navigator', 'location', 'localStorage', 'sessionStorage', 'HTMLElement',
  'requestAnimationFrame', 'fetch', 'process', 'Buffer', 'require', '__dirname', '__filename']
  .map((name) => ({ name, message: 'core runs in the server and the browser: take this from the app that calls core.' }));

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'apps/web/public/**', 'model_repository/**', 'test/**/output/**', 'bench/**/out/**'] },
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-control-regex': 'error',
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-unreachable': 'error',
      '@typescript-eslint/no-empty-object-type': 'error',
    },
  },
  {
    // Product code states its types; tests may poke at loosely typed wire data.
    files: ['packages/*/src/**/*.{ts,tsx}', 'apps/*/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeBuiltinPaths, patterns: [nodeBuiltins, fromApps, fromBench] }],
      'no-restricted-globals': ['error', ...domGlobals],
    },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ignores: ['apps/web/src/**/*.test.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { paths: nodeBuiltinPaths, patterns: [nodeBuiltins, fromServer, fromBench, deepCore] }] },
  },
  {
    files: ['apps/server/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [fromWeb, fromBench, deepCore] }] },
  },
);
