/**
 * The `scenario.*` methods (issue 28 items 2 and 3): record stored events or a walkthrough as a
 * scenario, save it into the folder the engineer keeps in git, list that folder, and run one file
 * against the active environment's bank.
 *
 * A run from the page plays the service against a private instance of the console's own bank
 * endpoints, as the conformance self-check does: the live bank's customers, behaviours and
 * forward setting, its own temporary data folder, and the runner's JWKS as the service's keys. So
 * a run never changes what the live bank trusts, never mixes its traffic into the live pages, and
 * judges what the active environment's bank answers (or, in forward mode, the engineer's backend).
 *
 * Threat model: the folder is the engineer's own choice on their own machine; a file name is a
 * plain name inside it (no path), a save never overwrites, and a file read is capped at 1 MiB.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';
import type { Handlers } from '../../contract';
import type { Recorded, ScenarioFolder, ScenarioReport } from '../../contract/schemas/scenario';
import type { WalkthroughState } from '../../contract/schemas/walkthrough';
import { privateBankCopy, type PrivateBank } from '../bank';
import { badArgument } from '../common';
import type { CoreDeps } from '../core-types';
import type { RunContext } from './context';
import { engineDelivery } from './delivery';
import { startScenarioKeys } from './keys';
import { parseScenario } from './load';
import { recordScenario } from './record';
import { runScenario } from './run';

/** A scenario file is a flow of steps, not data. */
const MAX_FILE_BYTES = 1024 * 1024;
/** The most files a folder listing reads. */
const MAX_FILES = 500;

export interface ScenarioHandlerDeps {
  deps: CoreDeps;
  /** The walkthrough's state of an environment (its steps name the events that proved them). */
  walkthroughState: (envId: string) => Promise<WalkthroughState>;
  /**
   * The host's --time-scale (issue 27, the sandbox's): a run from the Scenarios page plays the
   * delivery ladder at the same pace as the sandbox. Default 1 (the service's own pace).
   */
  timeScale?: number;
}

type RecordArgs = Parameters<Handlers['scenario.record']>[0];

/** The events a recording reads: by id, or every event an environment's walkthrough names. */
async function recordFrom(h: ScenarioHandlerDeps, args: RecordArgs): Promise<Recorded> {
  const store = await h.deps.store();
  let ids = args.event_ids ?? [];
  if (args.walkthrough !== undefined) {
    const state = await h.walkthroughState(args.walkthrough);
    ids = [...new Set(state.steps.flatMap((s) => s.event_ids))];
    if (ids.length === 0) {
      throw badArgument(
        `the walkthrough of ${args.walkthrough} names no event yet: run its steps first`,
        'walkthrough',
      );
    }
  }
  const events = [];
  const missing: Recorded['left_out'] = [];
  for (const id of ids) {
    const event = await store.get(id).catch(() => null);
    if (event) events.push(event);
    else if (args.walkthrough === undefined) {
      throw badArgument(`event_ids: no stored event ${JSON.stringify(id)}`, 'event_ids');
    } else {
      // A walkthrough also names what other stores keep (the service client's exchanges).
      missing.push({
        id,
        why: 'not in the event store (a record of the service client, not a request to the bank)',
      });
    }
  }
  const recorded = recordScenario(events, args.name);
  if (recorded.scenario.steps.length === 0) {
    throw badArgument(
      `none of the ${events.length} events is a callback or a notification: nothing to replay (${recorded.left_out.map((l) => l.why).join('; ')})`,
      args.walkthrough !== undefined ? 'walkthrough' : 'event_ids',
    );
  }
  return {
    scenario: recorded.scenario as Record<string, unknown>,
    left_out: [...missing, ...recorded.left_out],
  };
}

/** An existing folder, absolute; BAD_ARGUMENT naming `folder` otherwise. */
async function folderOf(folder: string): Promise<string> {
  const abs = path.resolve(folder);
  const st = await fs.stat(abs).catch(() => null);
  if (!st?.isDirectory()) throw badArgument(`folder: ${abs} is not an existing folder`, 'folder');
  return abs;
}

async function readCapped(file: string): Promise<string> {
  const st = await fs.stat(file);
  if (st.size > MAX_FILE_BYTES) throw new Error(`${path.basename(file)}: larger than 1 MiB`);
  return fs.readFile(file, 'utf8');
}

/** Every *.json of the folder, each parsed and checked as `scenario run` would. */
async function listFolder(folder: string): Promise<ScenarioFolder> {
  const abs = await folderOf(folder);
  const names = (await fs.readdir(abs, { withFileTypes: true }))
    .filter((d) => d.isFile() && d.name.endsWith('.json'))
    .map((d) => d.name)
    .sort()
    .slice(0, MAX_FILES);
  const files: ScenarioFolder['files'] = [];
  for (const file of names) {
    try {
      const scenario = parseScenario(await readCapped(path.join(abs, file)), file);
      files.push({
        file,
        name: scenario.name,
        description: scenario.description ?? null,
        steps: scenario.steps.length,
        error: null,
      });
    } catch (err) {
      files.push({ file, name: null, description: null, steps: 0, error: (err as Error).message });
    }
  }
  return { folder: abs, files };
}

/** Runs one file against a private instance of the live bank (see the module comment). */
async function runFile(h: ScenarioHandlerDeps, folder: string, file: string): Promise<ScenarioReport> {
  const abs = path.join(await folderOf(folder), file);
  let scenario;
  try {
    scenario = parseScenario(await readCapped(abs), file);
  } catch (err) {
    throw err instanceof ConsoleError ? err : badArgument(`file: ${(err as Error).message}`, 'file');
  }
  const keys = await startScenarioKeys(0);
  let copy: PrivateBank;
  try {
    copy = await privateBankCopy(
      { live: await h.deps.bank() },
      { jwksUrl: keys.jwksUrl, fetch: h.deps.fetch, label: 'dets-scenario-run-' },
    );
  } catch (err) {
    await keys.close().catch(() => undefined);
    throw err;
  }
  copy.onClose(() => keys.close());
  try {
    // The run's own deliveries, in the copy's temporary folder (issue 28 item 3: the sandbox's engine).
    // Each attempt is announced as the sandbox's are (issue 27 item 4): the Scenarios page shows
    // a step on the ladder's ~4 minutes as it goes, not nothing.
    const delivery = engineDelivery({
      dataDir: copy.dir,
      timeScale: h.timeScale ?? 1,
      onChange: (d) => h.deps.events.emit('sandbox.attempted', d),
    });
    copy.onClose(() => delivery.close());
    const ctx: RunContext = {
      keys,
      target: { bankAuthUrl: copy.url, notifyUrl: copy.url },
      delivery,
      giveUpMs: 5000,
      rotated: null,
    };
    return await runScenario(ctx, {
      ...scenario,
      notify_prefix: scenario.notify_prefix ?? copy.notifyPrefix,
    });
  } finally {
    await copy.close();
  }
}

/**
 * The contract's `scenario.*` handlers.
 *
 * @example
 * const handlers = scenarioHandlers({ deps, walkthroughState: (id) => walkthrough['walkthrough.state']({ env_id: id }) });
 */
export function scenarioHandlers(h: ScenarioHandlerDeps) {
  return {
    'scenario.record': (args) => recordFrom(h, args),
    'scenario.save': async (args) => {
      const abs = path.join(await folderOf(args.folder), args.file);
      const { folder: _folder, file: _file, ...recordArgs } = args;
      const recorded = await recordFrom(h, recordArgs);
      // 'wx': never over an existing file; a file meant for git, so the usual mode, not 0600.
      await fs
        .writeFile(abs, `${JSON.stringify(recorded.scenario, null, 2)}\n`, { flag: 'wx' })
        .catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
          throw badArgument(
            `file: ${args.file} already exists in ${path.dirname(abs)}: choose another name`,
            'file',
          );
        });
      return { path: abs, recorded };
    },
    'scenario.list': (args) => listFolder(args.folder),
    'scenario.run': (args) => runFile(h, args.folder, args.file),
  } satisfies Partial<Handlers>;
}
