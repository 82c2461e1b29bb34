/**
 * `events --environment ID|NAME` (issue 26 item 1, the Callbacks page's environment filter on
 * the command line): which environment of the profile the flag names, by id or by name in any
 * letter case, as the id the store's `environment` column holds.
 */
import { SANDBOX_ENVIRONMENT_ID } from '../../contract/schemas/service';
import { EnvironmentsFile } from '../../core/service/environments-file';
import { SANDBOX_NAME } from '../../core/service/environments-view';
import { UsageError } from '../io';

/**
 * The id of the environment `value` names in the profile at `dataDir`; a usage error listing
 * the profile's environments when it names none, or several by name.
 *
 * @example
 * await environmentId('/home/me/.dets', 'staging'); // 'env_3f…' (the id of "Staging")
 */
export async function environmentId(dataDir: string, value: string): Promise<string> {
  const state = await new EnvironmentsFile(dataDir).load();
  const all = [
    { id: SANDBOX_ENVIRONMENT_ID, name: SANDBOX_NAME },
    ...state.environments.map((e) => ({ id: e.id, name: e.name })),
  ];
  const byId = all.find((e) => e.id === value);
  if (byId) return byId.id;
  const byName = all.filter((e) => e.name.toLowerCase() === value.toLowerCase());
  if (byName.length === 1) return byName[0]!.id;
  const known = all.map((e) => `${JSON.stringify(e.name)} (${e.id})`).join(', ');
  if (byName.length > 1)
    throw new UsageError(
      `--environment: ${byName.length} environments are named "${value}": give its id (${known})`,
    );
  throw new UsageError(`--environment: "${value}" names no environment of this profile: ${known}`);
}
