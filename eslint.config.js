// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Layer boundaries a machine checks (STYLE.md 2): only electron/main and electron/preload import
 * `electron`; the core imports neither `electron` nor `react`; the contract imports nothing from
 * Node or the other layers; the renderer imports only the contract from `electron/`.
 */
const electronModule = {
  name: 'electron',
  message: 'Only electron/main and electron/preload may import electron.',
};
const reactModules = ['react', 'react-dom', 'react-dom/client', '@tanstack/react-query', 'zustand'].map(
  (name) => ({
    name,
    message: 'React belongs to the renderer.',
  }),
);
const otherLayers = (allowed) =>
  ['core', 'main', 'preload', 'headless', 'cli']
    .filter((l) => !allowed.includes(l))
    .map((layer) => ({
      regex: `(^|/)(electron/)?${layer}(/|$)`,
      message: `This layer may not import electron/${layer}.`,
    }));
const nodeBuiltins = {
  regex: '^node:',
  message: 'This layer runs in the renderer too: no Node built-ins.',
};

/**
 * Layers inside the core (issue 25 item 3), like VS Code's code-layering rule. Each folder of
 * electron/core is a domain, imported by other domains only through its index.ts barrel:
 * - `common/` (files, queues, zod messages, ids, paths) imports no domain, only the contract;
 * - building blocks (jwt, http, store, answer, vault, keys, tunnel) never import a feature;
 * - features (bank, sandbox, service, walkthrough, conformance) build on the blocks and on each
 *   other's barrels;
 * - the composition root (console-core.ts and its core-*.ts parts, dispatch.ts, downloads.ts) is imported by no domain:
 *   features reach the core's shapes through core-types.ts, which blocks may not import either
 *   (it names the features' types).
 * Import cycles are refused by test/lint/import-cycles.test.ts.
 */
const CORE_FEATURES = ['bank', 'sandbox', 'service', 'walkthrough', 'conformance', 'scenario', 'team'];
const CORE_BLOCKS = ['jwt', 'http', 'store', 'answer', 'vault', 'keys', 'tunnel'];
const coreBase = [
  ...otherLayers(['core']),
  { regex: '(^|/)renderer(/|$)', message: 'The core never imports the renderer.' },
];
/** The rules between domains for a file `depth` folders below electron/core (1: bank/x.ts). */
const domainRulesAt = (depth) => {
  const up = `^${'\\.\\./'.repeat(depth)}`;
  return [
    {
      regex: `${up}(?!\\.\\.)[^/]+/`,
      message: 'A domain is imported through its barrel (../jwt), never a file inside it (../jwt/rsa).',
    },
    {
      regex: `${up}(console-core|core-(?!types$)[a-z-]+|dispatch|downloads)$`,
      message: 'The composition root imports the domains, never the other way round (use ../core-types).',
    },
  ];
};
const domainRules = domainRulesAt(1);
/** A building block never imports a feature, from a file `depth` folders below electron/core. */
const noFeatureAt = (depth) => ({
  regex: `^${'\\.\\./'.repeat(depth)}(${CORE_FEATURES.join('|')}|core-types)(/|$)`,
  message: `A building block (${CORE_BLOCKS.join(', ')}) never imports a feature (${CORE_FEATURES.join(', ')}).`,
});
const noDeepFromRoot = {
  regex: '^\\./[^/]+/',
  message: 'The composition root imports a domain through its barrel (./bank), never a file inside it.',
};
const coreImports = (patterns) => [
  'error',
  { paths: [electronModule, ...reactModules], patterns: [...coreBase, ...patterns] },
];

/**
 * Renderer features import data, not each other (issue 25 item 5): a page under
 * renderer/features/<name>/ (flat folders) may import its own folder, renderer/data (queries and
 * mutations), renderer/shared, renderer/ui (primitives), renderer/api and
 * renderer/app/navigation; what two pages both need moves to one of those. A rule of its own
 * name (the typescript-eslint twin of no-restricted-imports), so the renderer's layer rule
 * above keeps applying to feature files too.
 */
const featureImports = {
  files: ['renderer/features/**/*.{ts,tsx}'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^\\.\\./(?!\\.)|(^|/)features/',
            message:
              'A feature never imports another feature: move what both need to renderer/data, renderer/shared or renderer/ui.',
          },
          {
            regex: '(^|/)app/(?!navigation$)',
            message: 'From the app shell a feature imports only renderer/app/navigation.',
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'coverage/**', 'test-results/**', '.bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['electron/core/**/*.ts'],
    rules: { 'no-restricted-imports': coreImports([]) },
  },
  {
    files: ['electron/core/*.ts'],
    rules: { 'no-restricted-imports': coreImports([noDeepFromRoot]) },
  },
  {
    files: ['electron/core/*/*.ts'],
    rules: { 'no-restricted-imports': coreImports(domainRules) },
  },
  {
    // A domain's own subfolders (walkthrough/derive, conformance/cases): the same rules, one up.
    files: ['electron/core/*/*/*.ts'],
    rules: { 'no-restricted-imports': coreImports(domainRulesAt(2)) },
  },
  {
    files: [`electron/core/{${CORE_BLOCKS.join(',')}}/*.ts`],
    rules: { 'no-restricted-imports': coreImports([...domainRules, noFeatureAt(1)]) },
  },
  {
    files: [`electron/core/{${CORE_BLOCKS.join(',')}}/*/*.ts`],
    rules: { 'no-restricted-imports': coreImports([...domainRulesAt(2), noFeatureAt(2)]) },
  },
  {
    files: ['electron/core/common/*.ts'],
    rules: {
      'no-restricted-imports': coreImports([
        {
          regex: '^\\.\\./(?!\\.\\./contract(/|$))',
          message: 'core/common imports no domain and nothing else of the core, only the contract.',
        },
      ]),
    },
  },
  {
    files: ['electron/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronModule, ...reactModules],
          patterns: [
            nodeBuiltins,
            {
              regex: '^\\.\\./\\.\\.|^\\.\\./(core|main|preload|headless|cli)',
              message: 'The contract imports nothing outside electron/contract.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/headless/**/*.ts', 'electron/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronModule, ...reactModules],
          patterns: [
            ...otherLayers(['core', 'headless', 'cli']),
            { regex: '(^|/)renderer(/|$)', message: 'Hosts never import renderer code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/main/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: reactModules,
          patterns: [
            ...otherLayers(['core', 'main']),
            { regex: '(^|/)renderer(/|$)', message: 'Main never imports renderer code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: reactModules,
          patterns: [
            nodeBuiltins,
            ...otherLayers(['preload']),
            { regex: '(^|/)renderer(/|$)', message: 'Preload never imports renderer code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronModule],
          patterns: [
            nodeBuiltins,
            {
              regex: '(^|/)electron/(core|main|preload|headless|cli)(/|$)',
              message: 'The renderer imports only electron/contract.',
            },
          ],
        },
      ],
    },
  },
  featureImports,
);
