/**
 * The documentation works in a clone (issue 25 item 6): every relative Markdown link in README.md
 * and docs/*.md resolves to a file of the repository, and its #anchor to a heading there; and no
 * tracked file (test fixtures aside) names a path into a `shared` folder beside the repository,
 * where the design documents lived before docs/design.md and docs/service-interface.md mirrored
 * them. The rules are checked on the real tree, and first on small trees made here, so a checker
 * that finds nothing cannot pass for one that works.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anchors, brokenLinks, markdownLinks, sharedPathsOutside, slug } from './markdown-links';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(file, 'utf8');
/** `../` built at run time, so this file's own text holds no such reference. */
const UP = '..' + '/';

/** README.md, CONTRIBUTING.md and every Markdown file of docs/. */
function documentation(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(ROOT, 'docs', name));
  return [path.join(ROOT, 'README.md'), path.join(ROOT, 'CONTRIBUTING.md'), ...docs];
}

describe('the link checker itself', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'dets-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'docs'));
  writeFileSync(
    path.join(dir, 'docs/a.md'),
    '# Title\n\n## Bank endpoints (embedded, `--bank-port`)\n\n## Notes\n\n## Notes\n',
  );

  it('finds inline links, images and reference definitions, and nothing inside code', () => {
    const text = [
      'See [a](docs/a.md#title) and ![pic](img.png "a title").',
      'Not `[code](nope.md)`, and:',
      '```',
      '[fenced](nope.md)',
      '```',
      '[ref]: docs/a.md',
    ].join('\n');
    expect(markdownLinks(text)).toEqual([
      { target: 'docs/a.md#title', line: 1 },
      { target: 'img.png', line: 1 },
      { target: 'docs/a.md', line: 6 },
    ]);
  });

  it("makes GitHub's anchors: punctuation dropped, spaces to hyphens, repeats numbered", () => {
    expect(slug('Bank endpoints (embedded, `--bank-port`)')).toBe('bank-endpoints-embedded---bank-port');
    expect(slug('6. Security notes')).toBe('6-security-notes');
    expect(slug('_Key rotation_ and `failed_check`')).toBe('key-rotation-and-failed_check');
    expect([...anchors(read(path.join(dir, 'docs/a.md')))]).toEqual([
      'title',
      'bank-endpoints-embedded---bank-port',
      'notes',
      'notes-1',
    ]);
  });

  it('reports a missing file, a missing anchor and a path out of the repository, and passes good links', () => {
    const readme = path.join(dir, 'README.md');
    writeFileSync(
      readme,
      [
        '[ok](docs/a.md) [ok](docs/a.md#notes-1) [ok](#top) [web](https://example.invalid/x.md)',
        '[gone](docs/missing.md)',
        '[no anchor](docs/a.md#nowhere)',
        `[outside](${UP}shared/DESIGN.md)`,
        '# Top',
      ].join('\n'),
    );
    expect(brokenLinks(dir, readme, read).map((b) => [b.line, b.target, b.reason])).toEqual([
      [2, 'docs/missing.md', 'no such file: docs/missing.md'],
      [3, 'docs/a.md#nowhere', 'no heading #nowhere in docs/a.md'],
      [4, `${UP}shared/DESIGN.md`, `points outside the repository (${UP}shared/DESIGN.md)`],
    ]);
  });

  it('flags a path into a shared folder beside the repository, and passes one that resolves inside it', () => {
    mkdirSync(path.join(dir, 'renderer/shared'), { recursive: true });
    writeFileSync(path.join(dir, 'renderer/shared/modal.tsx'), '');
    const page = path.join(dir, 'renderer/features/x/page.tsx');
    const source = `import { Modal } from '${UP}${UP}shared/modal';\n// see ${UP}${UP}shared/DESIGN.md "Storage"\n`;
    expect(sharedPathsOutside(dir, page, source)).toEqual([`${UP}${UP}shared/DESIGN.md`]);
    expect(
      sharedPathsOutside(dir, path.join(dir, 'README.md'), `\`${UP}shared/spec/service-interface.md\``),
    ).toEqual([`${UP}shared/spec/service-interface.md`]);
    expect(
      sharedPathsOutside(dir, path.join(dir, '.ci/run'), `# a clone with ${UP}shared beside it`),
    ).toEqual([`${UP}shared`]);
  });
});

describe('the documentation in this repository', () => {
  it.each(documentation().map((file) => [path.relative(ROOT, file), file]))(
    '%s: every relative link resolves, anchors included',
    (_name, file) => {
      const broken = brokenLinks(ROOT, file, read).map((b) => `line ${b.line}: (${b.target}) ${b.reason}`);
      expect(broken).toEqual([]);
    },
  );

  it('README.md leads to the docs a newcomer needs, the design and the interface among them', () => {
    const targets = markdownLinks(read(path.join(ROOT, 'README.md'))).map((l) => l.target.split('#')[0]);
    for (const doc of [
      'docs/design.md',
      'docs/service-interface.md',
      'docs/architecture.md',
      'docs/benchmarks.md',
    ])
      expect(targets).toContain(doc);
  });

  it('no tracked file names a path into a shared folder beside the repository (test fixtures aside)', () => {
    // The lint tests' strings are import samples linted as if they sat in renderer/ or electron/
    // (renderer/shared is a real folder there), not paths from where the test file sits.
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '' && !/(^|\/)fixtures(\/|\.ts$)/.test(f) && !f.startsWith('test/lint/'));
    expect(tracked.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const rel of tracked) {
      let text: string;
      try {
        text = readFileSync(path.join(ROOT, rel), 'utf8');
      } catch {
        continue; // listed but absent from this checkout (a deleted, uncommitted file)
      }
      if (text.includes('\0')) continue; // binary
      for (const ref of sharedPathsOutside(ROOT, path.join(ROOT, rel), text)) found.push(`${rel}: ${ref}`);
    }
    expect(found).toEqual([]);
  });
});
