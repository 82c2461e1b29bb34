/**
 * `dets-console conformance` as a bank's CI pipeline runs it (DESIGN.md "Command line"): the
 * built CLI in its own process against the console's own bank endpoints (`serve --bank-port 0
 * --no-sandbox --service-jwks-url <the runner's JWKS> --users FILE`): exit 0, one JSON object on
 * stdout, every case passed, a JUnit file a CI system reads. Against a broken bank: exit 1 and
 * the case naming the fault failed. Bad flags: exit 2 naming the flag.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort, withBusyPort } from '../support/free-port';
import { describe, expect, it } from 'vitest';
import { parseConformanceFlags } from '../../electron/cli/commands/conformance';
import { toJunit } from '../../electron/core/conformance';
import { startTestBank } from '../core/conformance/broken-bank';
import { quietIo, runBuiltCli } from './helpers';
import { cliTestFile } from './support/spawn-cli';

const CUSTOMER = {
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  external_id: 'cust-000042',
  phone: '+4915112345678',
  key: 'user-secret-key-42',
  first_name: 'Ana',
};

const cli = cliTestFile('dets-conformance-cli-');

const jwksUrlFor = (port: number) => `http://127.0.0.1:${port}/api/v1/.well-known/jwks.json`;

/** Runs the built `conformance` against BANK_AUTH_URL as CUSTOMER, its JWKS on `jwksPort`. */
const runConformance = (bankAuthUrl: string, jwksPort: number, ...extra: string[]) =>
  runBuiltCli([
    'conformance',
    '--bank-auth-url',
    bankAuthUrl,
    '--obj',
    CUSTOMER.obj,
    '--sub',
    CUSTOMER.sub,
    '--jwks-port',
    String(jwksPort),
    ...extra,
  ]);

// ------------------------------------------------------------------- a tiny strict XML parser

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * Parses XML 1.0 strictly enough to prove a file well-formed: one root, matching tags, quoted
 * and unique attributes, only the five predefined entities and character references, no
 * stray `<` or `&`, no control characters. Throws on any violation.
 */
function parseXml(xml: string): XmlElement {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`not well-formed XML at ${i}: ${why} near ${JSON.stringify(xml.slice(i, i + 40))}`);
  };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(xml)) fail('a character XML cannot carry');
  const decode = (raw: string): string =>
    raw.replace(/&([^;]*);|&|</g, (m, ref: string | undefined) => {
      if (m === '<') return fail('a raw < in text or an attribute');
      if (ref === undefined) return fail('a raw &');
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (ref in named) return named[ref]!;
      const num = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref);
      if (!num) return fail(`unknown entity &${ref};`);
      return String.fromCodePoint(num[1] ? parseInt(num[1], 16) : Number(num[2]));
    });
  const NAME = /[A-Za-z_:][\w.:-]*/y;
  const name = () => {
    NAME.lastIndex = i;
    const m = NAME.exec(xml);
    if (!m) fail('expected a name');
    i += m![0].length;
    return m![0];
  };
  const ws = () => {
    while (/\s/.test(xml[i] ?? '')) i++;
  };
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    if (!/^<\?xml version="1\.0" encoding="UTF-8"\?>$/.test(xml.slice(0, end + 2))) fail('odd declaration');
    i = end + 2;
  }
  ws();
  const element = (): XmlElement => {
    if (xml[i] !== '<') fail('expected <');
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [], text: '' };
    for (;;) {
      const before = i;
      ws();
      if (xml.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (xml[i] === '>') {
        i++;
        break;
      }
      if (before === i) fail('expected whitespace before an attribute');
      const attr = name();
      if (attr in el.attrs) fail(`duplicate attribute ${attr}`);
      if (xml[i] !== '=') fail('expected =');
      i++;
      const q = xml[i];
      if (q !== '"' && q !== "'") fail('attribute value not quoted');
      const end = xml.indexOf(q!, i + 1);
      if (end < 0) fail('unterminated attribute value');
      el.attrs[attr] = decode(xml.slice(i + 1, end));
      i = end + 1;
    }
    for (;;) {
      const lt = xml.indexOf('<', i);
      if (lt < 0) fail(`unclosed <${el.name}>`);
      el.text += decode(xml.slice(i, lt));
      i = lt;
      if (xml.startsWith('</', i)) {
        i += 2;
        const close = name();
        if (close !== el.name) fail(`</${close}> closes <${el.name}>`);
        ws();
        if (xml[i] !== '>') fail('expected >');
        i++;
        return el;
      }
      if (xml.startsWith('<!--', i)) {
        const end = xml.indexOf('-->', i);
        if (end < 0) fail('unterminated comment');
        i = end + 3;
        continue;
      }
      el.children.push(element());
    }
  };
  const root = element();
  ws();
  if (i !== xml.length) fail('content after the root element');
  return root;
}

const all = (el: XmlElement, name: string): XmlElement[] =>
  el.children.flatMap((c) => (c.name === name ? [c, ...all(c, name)] : all(c, name)));

describe('the tiny XML parser is strict', () => {
  it('refuses what is not well-formed', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(/closes/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/duplicate/);
    expect(() => parseXml('<a>1 < 2</a>')).toThrow();
    expect(() => parseXml('<a>AT&T</a>')).toThrow(/raw &/);
    expect(() => parseXml('<a/><b/>')).toThrow(/after the root/);
    expect(parseXml('<a t="&lt;&amp;&quot;">x &gt; y</a>')).toMatchObject({
      attrs: { t: '<&"' },
      text: 'x > y',
    });
  });
});

describe('JUnit output', () => {
  it('stays well-formed whatever a bank answered: markup, entities, quotes and control characters', () => {
    const nasty = 'got 200 with <x a="1"> & ]]> \'q\' \u0001\u0008 tab\there \uD800 end';
    const xml = toJunit({
      kind: 'run',
      bank_auth_url: 'http://127.0.0.1:1/a&b',
      obj: 'o<1>',
      sub: 's"2"',
      jwks_url: 'http://127.0.0.1:2/api/v1/.well-known/jwks.json',
      kids: ['k1'],
      jwks_fetches: 1,
      started_at: '2026-01-02T03:04:05.678Z',
      finished_at: '2026-01-02T03:04:06.678Z',
      duration_ms: 1000,
      passed: 1,
      failed: 1,
      skipped: 1,
      cases: [
        {
          id: 'user_auth.valid',
          title: 't',
          status: 'passed',
          detail: 'ok',
          route: '/user_auth',
          spec: '2.5',
          duration_ms: 12.3,
          exchanges: [],
        },
        {
          id: 'key.alg-none',
          title: 'a <title>',
          status: 'failed',
          detail: nasty,
          route: '/key',
          spec: '5.5',
          duration_ms: 1,
          exchanges: [],
        },
        {
          id: 'key.flow',
          title: 't',
          status: 'skipped',
          detail: 'not run',
          route: '/key',
          spec: '2.4',
          duration_ms: 0,
          exchanges: [],
        },
      ],
    });
    const root = parseXml(xml);
    const [suite] = all(root, 'testsuite');
    expect(suite!.attrs).toMatchObject({
      tests: '3',
      failures: '1',
      skipped: '1',
      time: '1.000',
      timestamp: '2026-01-02T03:04:05',
    });
    const props = Object.fromEntries(all(suite!, 'property').map((p) => [p.attrs.name, p.attrs.value]));
    expect(props).toMatchObject({ bank_auth_url: 'http://127.0.0.1:1/a&b', obj: 'o<1>', sub: 's"2"' });
    const [failure] = all(suite!, 'failure');
    expect(failure!.attrs.message).toBe(
      nasty.replaceAll('\u0001', '\uFFFD').replaceAll('\u0008', '\uFFFD').replaceAll('\uD800', '\uFFFD'),
    );
    expect(failure!.text).toContain('a <title>');
    expect(all(suite!, 'skipped')[0]!.attrs.message).toBe('not run');
    expect(all(suite!, 'testcase').map((t) => t.attrs.time)).toEqual(['0.012', '0.001', '0.000']);
  });
});

// --------------------------------------------------------------------------------- the runs

interface Summary {
  passed: number;
  failed: number;
  cases: Array<{ id: string; title: string; status: string; detail: string }>;
}

function checkJunit(xml: string, summary: Summary): XmlElement {
  const root = parseXml(xml);
  expect(root.name).toBe('testsuites');
  const [suite] = all(root, 'testsuite');
  expect(suite).toBeDefined();
  expect(Number(suite!.attrs.tests)).toBe(summary.cases.length);
  expect(Number(suite!.attrs.failures)).toBe(summary.failed);
  expect(Number(suite!.attrs.time)).toBeGreaterThan(0);
  const testcases = all(suite!, 'testcase');
  expect(testcases.map((t) => t.attrs.name)).toEqual(summary.cases.map((c) => c.id));
  for (const t of testcases) {
    expect(t.attrs.classname).toMatch(/^conformance\.(user_auth|key|external_id)$/);
    expect(t.attrs.time).toMatch(/^\d+\.\d{3}$/);
  }
  const failures = all(suite!, 'failure');
  expect(failures).toHaveLength(summary.failed);
  for (const f of failures) {
    expect(f.attrs.message!.length).toBeGreaterThan(10);
    expect(f.text.length).toBeGreaterThan(10);
  }
  return suite!;
}

describe('dets-console conformance against the console’s own bank endpoints (serve)', () => {
  it('exits 0, prints exactly one JSON object with every case passed, and writes a JUnit file', async () => {
    const jwksPort = await freePort();
    const users = path.join(cli.tmp, 'users.json');
    await writeFile(users, JSON.stringify([CUSTOMER]));
    const serve = cli.spawn([
      'serve',
      '--ui-port',
      '0',
      '--bank-port',
      '0',
      '--no-sandbox',
      '--service-jwks-url',
      jwksUrlFor(jwksPort),
      '--users',
      users,
      '--json',
      '--data-dir',
      path.join(cli.tmp, 'serve-profile'),
    ]);
    const ready = (await serve.ready) as { bank: string };
    expect(ready.bank).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const junit = path.join(cli.tmp, 'own-bank.xml');
    const run = await runConformance(ready.bank, jwksPort, '--json', '--junit', junit);
    expect(run.stderr).toContain(`trust ${jwksUrlFor(jwksPort)}`);
    expect(run.code, run.stderr).toBe(0);
    // stdout is exactly one JSON object, with exactly DESIGN.md's keys.
    const lines = run.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as Summary;
    expect(Object.keys(summary)).toEqual(['passed', 'failed', 'cases']);
    expect(summary.failed).toBe(0);
    expect(summary.passed).toBe(summary.cases.length);
    expect(summary.cases.length).toBeGreaterThanOrEqual(40);
    for (const c of summary.cases) {
      expect(Object.keys(c)).toEqual(['id', 'title', 'status', 'detail']);
      expect(c.status).toBe('passed');
      expect(c.title).toMatch(/\(spec [\d., #]+\)$/);
    }
    // The live table went to stderr, a line per case.
    expect(run.stderr).toMatch(/\[ ?1\/\d+\] ✓ passed +user_auth\.valid/);
    expect(run.stderr).toContain('jwks.rotation');

    checkJunit(await readFile(junit, 'utf8'), summary);
    expect((await serve.stop()).code).toBe(0);
  });
});

describe('dets-console conformance against a broken bank', () => {
  it('exits 1, names the failed case, and the JUnit file carries the failures', async () => {
    const jwksPort = await freePort();
    const bank = await startTestBank({
      jwksUrl: jwksUrlFor(jwksPort),
      customer: CUSTOMER,
      faults: { acceptAlgNone: true },
    });
    try {
      const junit = path.join(cli.tmp, 'broken.xml');
      const run = await runConformance(bank.url, jwksPort, '--junit', junit);
      expect(run.code, run.stderr).toBe(1);
      // Without --json the table and the summary are on stdout.
      expect(run.stdout).toContain(`trust ${jwksUrlFor(jwksPort)}`);
      expect(run.stdout).toMatch(/✗ failed +user_auth\.alg-none/);
      expect(run.stdout).toMatch(/3 failed/);
      expect(run.stdout).toMatch(/the bank accepted an unsigned token/);
      const root = parseXml(await readFile(junit, 'utf8'));
      const [suite] = all(root, 'testsuite');
      expect(suite!.attrs.failures).toBe('3');
      const failed = all(suite!, 'testcase')
        .filter((t) => t.children.some((c) => c.name === 'failure'))
        .map((t) => t.attrs.name);
      expect(failed).toEqual(['user_auth.alg-none', 'key.alg-none', 'external_id.alg-none']);
    } finally {
      await bank.close();
    }
  });
});

describe('bad usage exits 2 naming the flag', () => {
  const base = ['conformance', '--obj', 'DE1', '--sub', 's'];
  const cases: Array<[string, string[], RegExp]> = [
    ['missing --bank-auth-url', base, /--bank-auth-url: required/],
    ['an invalid URL', [...base, '--bank-auth-url', 'not a url'], /--bank-auth-url: .* is not a URL/],
    [
      'a non-http URL',
      [...base, '--bank-auth-url', 'ftp://bank.example'],
      /--bank-auth-url: .*not an http\(s\) URL/,
    ],
    [
      'a URL with a query',
      [...base, '--bank-auth-url', 'http://bank.example/auth?x=1'],
      /--bank-auth-url: must have no query/,
    ],
    [
      'missing --obj',
      ['conformance', '--bank-auth-url', 'http://127.0.0.1:9', '--sub', 's'],
      /--obj: required/,
    ],
    [
      'an empty --sub',
      ['conformance', '--bank-auth-url', 'http://127.0.0.1:9', '--obj', 'o', '--sub', ' '],
      /--sub: must not be empty/,
    ],
    [
      'a bad port',
      [...base, '--bank-auth-url', 'http://127.0.0.1:9', '--jwks-port', '70000'],
      /--jwks-port: must be a whole number from 0 to 65535 \(0 picks a free port\), not "70000"$/,
    ],
    [
      'an unknown flag',
      [...base, '--bank-auth-url', 'http://127.0.0.1:9', '--nope'],
      /unknown option --nope$/,
    ],
    [
      'a --junit folder that does not exist',
      [...base, '--bank-auth-url', 'http://127.0.0.1:9', '--junit', '/nonexistent-dir-dets/x.xml'],
      /--junit: folder .* does not exist/,
    ],
  ];
  it.each(cases)('%s', async (_, args, reason) => {
    const run = await runBuiltCli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(reason);
  });

  it('a JWKS port already taken', () =>
    withBusyPort(async (port) => {
      const run = await runBuiltCli([
        ...base,
        '--bank-auth-url',
        'http://127.0.0.1:9',
        '--jwks-port',
        String(port),
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toMatch(
        new RegExp(`^dets-console conformance: --jwks-port: JWKS port ${port} .* in use`),
      );
    }));

  it('a staging bank on another host is allowed (only the JWKS is bound to 127.0.0.1)', () => {
    const o = parseConformanceFlags(
      ['--bank-auth-url', 'https://staging.bank.example/auth/', '--obj', 'DE1', '--sub', 'ops@bank.example'],
      quietIo,
    );
    expect(o).toMatchObject({
      callbacks: { bankAuthUrl: 'https://staging.bank.example/auth' },
      notify: null,
      jwksPort: 7303,
      json: false,
      junit: null,
    });
  });
});
