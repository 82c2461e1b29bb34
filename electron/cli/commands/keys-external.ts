/**
 * `dets-console keys add-external --kid KID --public FILE(.pem|.json) --sign-command CMD`
 * (DESIGN.md "Command line" and "Keys held elsewhere"; the flags are fixed). The public key is
 * read from FILE, the command line is passed as it is: the core splits it into words, refuses a
 * template holding a secret, makes a test signature and verifies it before anything is stored.
 * A refused argument exits 2 naming the flag; a command that cannot sign exits 1 with the
 * command's own stderr.
 */
import type { KeyInfo } from '../../contract/schemas/keys';
import { EXIT, UsageError, dataDirFlag, parseFlags, type CliIo } from '../io';
import { KEYS_ADD_EXTERNAL } from '../table';
import { call, describeKey, readInputFile, withCore } from './keys';

/** A public key file is far smaller than this (an RSA-16384 JWK is under 4 KiB). */
const PUBLIC_KEY_LIMIT = 64 * 1024;

const FIELDS = { public_key: '--public', kid: '--kid', sign_command: '--sign-command', alg: '--public' };

/** `keys add-external`: registers a key held elsewhere in the profile. */
export async function addExternal(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, KEYS_ADD_EXTERNAL);
  const what = {
    kid: 'the kid the service knows the key by',
    public: 'the public key file, PEM or JWK',
    'sign-command': 'the command that signs, with {in} and {out}',
  } as const;
  const missing = (['kid', 'public', 'sign-command'] as const).find((f) => values[f] === undefined);
  if (missing) throw new UsageError(`--${missing}: required (${what[missing]})`);
  const text = await readInputFile(values.public as string, '--public', PUBLIC_KEY_LIMIT, 'a public key');
  const dataDir = dataDirFlag(values['data-dir'], io, 'write');
  return withCore(dataDir, io, async (core) => {
    const key = await call<KeyInfo>(
      core,
      'keys.addExternal',
      { kid: values.kid, public_key: text, sign_command: values['sign-command'] },
      FIELDS,
      { KEY_INVALID: '--public', CONFLICT: '--kid' },
    );
    io.stdout(describeKey('Added', key));
    return EXIT.OK;
  });
}
