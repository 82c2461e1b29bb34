#!/usr/bin/env node
// The static Electron security audit (DESIGN.md: "a static audit (Electronegativity) stays
// clean"): scans the TypeScript sources of electron/main and electron/preload, prints the
// findings by severity and exits 1 when any HIGH finding exists or when the scan itself did not
// happen properly. Part of `npm run lint` and `npm test`.
//
//   node scripts/audit-electron.mjs [--input DIR]... [--csv FILE] [--verbose]
//
// --input DIR  scan DIR instead (repeatable; default: electron/main and electron/preload)
// --csv FILE   also write the findings as CSV (Electronegativity's columns), e.g. for CI
// --verbose    show the tool's own console output
//
// Why the programmatic API rather than `electronegativity -o report.csv` and counting rows:
// the CLI exits 0 whatever it finds, reports a file it cannot parse as one red line and still
// exits 0 (that file is then simply not audited), and writes its CSV with two unawaited
// fs.writeFile calls (header with flag 'w', rows with flag 'a') that can race and lose or
// overwrite rows. Its documented API (`run(options)`) returns the findings and the parse errors
// themselves. Why the sources and not the bundle: its checks match `new BrowserWindow({...})`
// as written; compiled or bundled code hides the options from them (notes/toolchain.md 6).
// Findings reviewed as false positives are silenced in the source with an
// `// eng-disable CHECK_ID` comment on the reported line and a comment saying why.
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const SEVERITIES = ['HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL'];
// Network-only check (it downloads Electron's release list); the version is pinned below.
const EXCLUDED_CHECKS = ['AvailableSecurityFixesGlobalCheck'];
// Electronegativity's own file filter (util/file.js list_files).
const SCANNED = /\.(js|jsx|ts|tsx|html|htm)$|package\.json$|package-lock\.json$|yarn\.lock$/i;

function usage(message) {
  process.stderr.write(
    `audit-electron: ${message}\nusage: node scripts/audit-electron.mjs [--input DIR]... [--csv FILE] [--verbose]\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { inputs: [], csv: null, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--input' || arg === '--csv') {
      const value = argv[++i];
      if (!value) usage(`${arg}: expects a value`);
      if (arg === '--input') opts.inputs.push(resolve(value));
      else opts.csv = resolve(value);
    } else usage(`unknown argument "${arg}"`);
  }
  if (opts.inputs.length === 0) opts.inputs = ['electron/main', 'electron/preload'].map((p) => join(root, p));
  return opts;
}

function electronVersion() {
  try {
    return JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
  } catch {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const range = pkg.devDependencies?.electron ?? pkg.dependencies?.electron;
    const version = range?.match(/\d+\.\d+\.\d+/)?.[0];
    if (!version) usage('cannot tell which Electron version to audit against (electron is not installed)');
    return version;
  }
}

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) walk(p, out);
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

/** `// eng-disable X` comments in the scanned sources: the reviewed suppressions. */
function suppressions(stage) {
  const found = [];
  for (const file of walk(stage)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const m = line.match(/(?:\/\*|\/\/)[ \t]*eng-disable[ \t]+([\w \t]+)/);
        if (m) found.push(`${relative(stage, file)}:${i + 1} ${m[1].trim()}`);
      });
  }
  return found;
}

const csvCell = (v) => (v == null ? 'N/A' : `"${String(v).replace(/"/g, '""')}"`);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  for (const input of opts.inputs) {
    if (!existsSync(input) || !statSync(input).isDirectory()) usage(`--input: "${input}" is not a folder`);
  }

  // Scan a copy under the temp folder: one scan covers main and preload together (the global
  // checks look across files), and the tool silently skips any path containing "node_modules".
  const stage = mkdtempSync(join(tmpdir(), 'dets-audit-'));
  try {
    const names = [];
    for (const input of opts.inputs) {
      const rel = relative(root, input);
      const name = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : basename(input);
      cpSync(input, join(stage, name), {
        recursive: true,
        filter: (src) => basename(src) !== 'node_modules',
      });
      names.push(name);
    }
    const files = walk(stage).filter((f) => SCANNED.test(f) && !f.includes('node_modules'));
    if (files.length === 0) {
      process.stderr.write(`audit-electron: FAILED: nothing to scan in ${names.join(', ')}\n`);
      return 1;
    }

    const version = electronVersion();
    const run = require('@doyensec/electronegativity');
    const toolVersion = JSON.parse(
      readFileSync(require.resolve('@doyensec/electronegativity/package.json'), 'utf8'),
    ).version;

    // The tool chats on the console (translation and release downloads that fail offline).
    const saved = { log: console.log, warn: console.warn, info: console.info, error: console.error };
    const chatter = [];
    if (!opts.verbose) {
      for (const k of Object.keys(saved)) console[k] = (...args) => chatter.push(args.join(' '));
    }
    let result;
    try {
      result = await run({
        input: stage,
        isRelative: true,
        isSarif: false,
        customScan: [],
        excludeFromScan: EXCLUDED_CHECKS.map((c) => c.toLowerCase()),
        // The README calls this `electronVersion`, but run() reads `electronVersionOverride`.
        electronVersionOverride: version,
        parserPlugins: [],
      });
    } catch (err) {
      Object.assign(console, saved);
      process.stderr.write(`audit-electron: FAILED: Electronegativity did not run: ${err?.stack ?? err}\n`);
      if (chatter.length) process.stderr.write(chatter.join('\n') + '\n');
      return 1;
    } finally {
      Object.assign(console, saved);
    }

    const broken = (result.errors ?? []).filter((e) => !e.tolerable);
    const issues = (result.issues ?? []).map((i) => ({
      id: i.id,
      severity: i.severity?.name ?? 'UNKNOWN',
      confidence: i.confidence?.name ?? 'UNKNOWN',
      file: i.file,
      location: `${i.location?.line ?? 0}:${i.location?.column ?? 0}`,
      sample: i.sample,
      description: i.description,
      review: Boolean(i.manualReview),
    }));
    issues.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));

    if (opts.csv) {
      const rows = issues.map((i) =>
        [i.id, i.severity, i.confidence, i.file, i.location, i.sample, i.description]
          .map((v, n) => (n === 0 ? v : csvCell(v)))
          .concat(`https://github.com/doyensec/electronegativity/wiki/${i.id}`)
          .join(','),
      );
      writeFileSync(
        opts.csv,
        ['issue, severity, confidence, filename, location, sample, description, url', ...rows].join('\n') +
          '\n',
      );
    }

    const counts = Object.fromEntries(
      SEVERITIES.map((s) => [s, issues.filter((i) => i.severity === s).length]),
    );
    const out = [];
    out.push(
      `electron audit: Electronegativity ${toolVersion}, Electron ${version}, ${files.length} files in ${names.join(', ')}: ` +
        SEVERITIES.map((s) => `${counts[s]} ${s}`).join(', '),
    );
    for (const i of issues) {
      out.push(`  ${i.severity.padEnd(6)} ${i.id}  ${i.file}:${i.location}${i.review ? '  (review)' : ''}`);
      out.push(`         ${i.description}${i.sample && i.sample !== 'N/A' ? `: ${i.sample}` : ''}`);
    }
    const reviewed = suppressions(stage);
    if (reviewed.length)
      out.push(`  reviewed and silenced in the source (eng-disable): ${reviewed.join('; ')}`);
    for (const e of broken) out.push(`  FAILED to parse ${relative(stage, e.file)}: ${e.message}`);
    process.stdout.write(out.join('\n') + '\n');

    if (broken.length > 0) {
      process.stderr.write(
        `audit-electron: FAILED: ${broken.length} file(s) could not be parsed, so they were not audited\n`,
      );
      return 1;
    }
    if (counts.HIGH > 0) {
      process.stderr.write(`audit-electron: FAILED: ${counts.HIGH} HIGH finding(s)\n`);
      return 1;
    }
    return 0;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

process.exitCode = await main();
