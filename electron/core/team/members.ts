/**
 * A team hub's members (issue 30 item 1; DESIGN.md "Team hub": `team add NAME --role R | list |
 * remove NAME`): in the profile (`<data-dir>/team/members.json`, 0600, written atomically) or,
 * with `--store postgres://…`, in the database every hub beside it shares (members-pg.ts). A
 * member is a name, a role and the SHA-256 of their token; the token itself is printed once.
 *
 * Threat model: whoever can write the profile or the database is an admin already. What is
 * stored lets nobody sign in (hashes of random 256-bit tokens). A removal takes effect on the
 * next request, in every hub (the file is re-read when it changes; the database is asked).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { badArgument, ConsoleError } from '../../contract';
import { MemberName, TeamRole } from '../../contract/schemas/team';
import { readJsonFileOrNull, writeFileAtomic } from '../common';
import { newMemberToken, tokenHash, tokenMatchesHash } from './tokens';

/** A member as stored. */
export interface Member {
  name: string;
  role: TeamRole;
  token_sha256: string;
  created_at: string;
}

/** A member as listed (no hash). */
export type MemberInfo = Omit<Member, 'token_sha256'>;

/** Where members live: the profile's file or PostgreSQL. */
export interface MemberStore {
  /** Adds a member; answers their token (the only time it exists in clear). CONFLICT when the name is taken. */
  add(name: string, role: TeamRole): Promise<{ member: MemberInfo; token: string }>;
  list(): Promise<MemberInfo[]>;
  /** Removes a member (their token stops working); NOT_FOUND naming them when there is none. */
  remove(name: string): Promise<void>;
  /** The member holding `token`, or null. */
  byToken(token: string): Promise<Member | null>;
  close(): Promise<void>;
}

/** The name and role checked, BAD_ARGUMENT naming the field otherwise. */
export function checkedMember(name: string, role: string): { name: string; role: TeamRole } {
  const n = MemberName.safeParse(name);
  if (!n.success)
    throw badArgument(`name: "${name.slice(0, 100)}": ${n.error.issues[0]?.message ?? 'invalid'}`, 'name');
  const r = TeamRole.safeParse(role);
  if (!r.success) throw badArgument(`role: "${role.slice(0, 40)}" is not viewer, operator or admin`, 'role');
  return { name: n.data, role: r.data };
}

/** A new member record and its token. */
export function newMember(name: string, role: string): { member: Member; token: string } {
  const checked = checkedMember(name, role);
  const token = newMemberToken();
  return {
    member: { ...checked, token_sha256: tokenHash(token), created_at: new Date().toISOString() },
    token,
  };
}

/** The member whose hash `token` matches, every hash compared in constant time. */
export function findByToken(members: readonly Member[], token: string): Member | null {
  if (token.length === 0 || token.length > 200) return null;
  let found: Member | null = null;
  for (const m of members) if (tokenMatchesHash(token, m.token_sha256) && found === null) found = m;
  return found;
}

export function infoOf(m: Member): MemberInfo {
  return { name: m.name, role: m.role, created_at: m.created_at };
}

/** The members file of a profile. */
export function membersFile(dataDir: string): string {
  return path.join(dataDir, 'team', 'members.json');
}

/** Members in `<data-dir>/team/members.json`, re-read whenever the file changes. */
export class FileMemberStore implements MemberStore {
  private cache: { mtimeMs: number; size: number; members: Member[] } | null = null;

  constructor(private readonly file: string) {}

  private async read(): Promise<Member[]> {
    let stat: { mtimeMs: number; size: number };
    try {
      stat = await fs.stat(this.file);
    } catch {
      return [];
    }
    if (this.cache && this.cache.mtimeMs === stat.mtimeMs && this.cache.size === stat.size)
      return this.cache.members;
    const damaged = (why: string) =>
      new ConsoleError(
        'STATE_DAMAGED',
        `The members file ${this.file} cannot be read (${why}); fix or remove it.`,
        {
          file: this.file,
        },
      );
    const read = await readJsonFileOrNull(this.file, {
      unreadable: (e) => damaged(e.message),
      notJson: () => damaged('not JSON'),
    });
    const members = (read?.value as { members?: unknown } | undefined)?.members;
    if (!Array.isArray(members)) throw damaged('no "members" array');
    const list = members.filter(
      (m): m is Member =>
        typeof m === 'object' &&
        m !== null &&
        typeof (m as Member).name === 'string' &&
        TeamRole.safeParse((m as Member).role).success &&
        /^[0-9a-f]{64}$/.test(String((m as Member).token_sha256)),
    );
    this.cache = { ...stat, members: list };
    return list;
  }

  private async write(members: Member[]): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify({ members }, null, 2)}\n`, { makeDir: true });
    this.cache = null;
  }

  async add(name: string, role: TeamRole): Promise<{ member: MemberInfo; token: string }> {
    const made = newMember(name, role);
    const members = await this.read();
    if (members.some((m) => m.name === made.member.name))
      throw new ConsoleError(
        'CONFLICT',
        `A member named ${made.member.name} exists already; remove them first.`,
      );
    await this.write([...members, made.member]);
    return { member: infoOf(made.member), token: made.token };
  }

  async list(): Promise<MemberInfo[]> {
    return (await this.read()).map(infoOf);
  }

  async remove(name: string): Promise<void> {
    const members = await this.read();
    if (!members.some((m) => m.name === name))
      throw new ConsoleError('NOT_FOUND', `No member named ${name}.`);
    await this.write(members.filter((m) => m.name !== name));
  }

  async byToken(token: string): Promise<Member | null> {
    return findByToken(await this.read(), token);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
