/**
 * Where a laptop's attachment to a team hub is remembered (issue 30 item 2): the hub's URL and
 * the keychain account that holds the member token, in `<data-dir>/team/attachment.json`. The
 * token itself is never in a file (DESIGN.md "Secrets"): it is one OS keychain item, through the
 * vault's keychain layer, under the account named here (random per attachment, so two profiles
 * attached to one hub never share an item).
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract';
import { readJsonFileOrNull, writeFileAtomic } from '../common';

const AttachmentFile = z.object({
  version: z.literal(1),
  hub_url: z.string().url(),
  keychain_account: z.string().regex(/^team-hub-token:[0-9a-f-]{36}$/),
  attached_at: z.string(),
});
export type Attachment = z.infer<typeof AttachmentFile>;

/** The attachment file of a profile. */
export function attachmentFile(dataDir: string): string {
  return path.join(dataDir, 'team', 'attachment.json');
}

/** A new attachment record for `hubUrl` (a fresh keychain account). */
export function newAttachment(hubUrl: string, now = new Date()): Attachment {
  return {
    version: 1,
    hub_url: hubUrl,
    keychain_account: `team-hub-token:${randomUUID()}`,
    attached_at: now.toISOString(),
  };
}

/** The remembered attachment, null when none; a damaged file is STATE_DAMAGED naming it (left as it is). */
export async function readAttachment(dataDir: string): Promise<Attachment | null> {
  const file = attachmentFile(dataDir);
  const damaged = (why: string) =>
    new ConsoleError('STATE_DAMAGED', `${file}: ${why}; attach to the hub again (it is replaced then).`);
  const read = await readJsonFileOrNull(file, {
    unreadable: (err) => damaged(`cannot be read (${err.code ?? err.message})`),
    notJson: () => damaged('is not JSON'),
  });
  if (read === null) return null;
  const parsed = AttachmentFile.safeParse(read.value);
  if (!parsed.success) throw damaged('is not an attachment record');
  return parsed.data;
}

/** Remembers `attachment` (atomically, 0600). */
export async function writeAttachment(dataDir: string, attachment: Attachment): Promise<void> {
  await writeFileAtomic(attachmentFile(dataDir), `${JSON.stringify(attachment, null, 2)}\n`, {
    makeDir: true,
  });
}

/** Forgets the attachment (no error when there is none). */
export async function removeAttachment(dataDir: string): Promise<void> {
  await rm(attachmentFile(dataDir), { force: true });
}
