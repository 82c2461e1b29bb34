/**
 * `<dataDir>/keys/keys.json` (dir 0700, file 0600): every signing key's metadata, its public
 * JWK and either its private key sealed by the vault (PKCS#8 DER, aad `signing-key:<kid>`) or,
 * for a key held elsewhere, the argument template of its signing command (no secret: refused
 * when the key is added). Nothing in it is a secret in clear; the sealed blobs are useless
 * without the vault key.
 *
 * Failure model: the file is the only copy of the bank's keys, so it is never half-written
 * (common/files.ts) and never thrown away. A file that cannot be read, parsed or validated is
 * STATE_DAMAGED naming the file and is left byte for byte as it was: the store reads it before
 * every change and writes nothing after a failed read.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import { Kid, KeyStatus, SigningAlg, SpecJwk } from '../../contract/schemas/keys';
import { describeIssues, ensurePrivateDir, writeFileAtomic } from '../common';

export const KEYS_DIR = 'keys';
export const KEYS_FILE = 'keys.json';
/** The most words a signing command may have (a real one has about fifteen). */
export const MAX_SIGN_WORDS = 64;

export const StoredKey = z.object({
  kid: Kid,
  alg: SigningAlg,
  bits: z.number().int().min(2048),
  label: z.string(),
  counterparty_guid: z.string().nullable(),
  status: KeyStatus,
  created_at: z.string(),
  expires: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .nullable(),
  /** Strict: a stored public JWK with any other member (a private one above all) is damage. */
  public_jwk: z.strictObject(SpecJwk.shape),
  /** The vault's sealed PKCS#8 DER, opened only inside sign(). Absent for a key held elsewhere. */
  sealed_private_key: z.string().min(1).optional(),
  /** A key held elsewhere: its signing command's argument template (external-command.ts). */
  sign_command: z.array(z.string().min(1)).min(1).max(MAX_SIGN_WORDS).optional(),
});
export type StoredKey = z.infer<typeof StoredKey>;

const KeysDocument = z.object({ version: z.literal(1), keys: z.array(StoredKey) }).superRefine((doc, ctx) => {
  const seen = new Set<string>();
  doc.keys.forEach((k, i) => {
    if (seen.has(k.kid))
      ctx.addIssue({ code: 'custom', path: ['keys', i, 'kid'], message: `kid "${k.kid}" appears twice` });
    seen.add(k.kid);
    if ((k.sealed_private_key === undefined) === (k.sign_command === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['keys', i],
        message: 'a key has either sealed_private_key or sign_command, exactly one',
      });
    }
    if (k.public_jwk.kid !== k.kid || k.public_jwk.alg !== k.alg) {
      ctx.addIssue({
        code: 'custom',
        path: ['keys', i, 'public_jwk'],
        message: "kid or alg differs from the key's own",
      });
    }
  });
  if (doc.keys.filter((k) => k.status === 'active').length > 1) {
    ctx.addIssue({ code: 'custom', path: ['keys'], message: 'more than one key is active' });
  }
});
type KeysDocument = z.infer<typeof KeysDocument>;

function damaged(file: string, problem: string): ConsoleError {
  return new ConsoleError(
    'STATE_DAMAGED',
    `the key file ${file} ${problem}. It was left untouched: repair it (or restore a backup), or move it ` +
      'away to start with no keys',
    { file },
  );
}

export class KeyFile {
  readonly dir: string;
  readonly file: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, KEYS_DIR);
    this.file = path.join(this.dir, KEYS_FILE);
  }

  /** Every stored key, in the file's order; [] when there is no file yet. Rejects STATE_DAMAGED. */
  async read(): Promise<StoredKey[]> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw damaged(this.file, `could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw damaged(this.file, 'is not valid JSON');
    }
    const parsed = KeysDocument.safeParse(value);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error, { max: 3, countRest: true });
      throw damaged(this.file, `does not have the expected shape (${issues})`);
    }
    return parsed.data.keys;
  }

  async write(keys: StoredKey[]): Promise<void> {
    const doc: KeysDocument = { version: 1, keys };
    try {
      await ensurePrivateDir(this.dir);
      await writeFileAtomic(this.file, `${JSON.stringify(doc, null, 2)}\n`);
    } catch (err) {
      throw new ConsoleError(
        'INTERNAL',
        `could not write the key file ${this.file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
