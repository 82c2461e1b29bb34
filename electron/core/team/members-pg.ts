/**
 * Members in PostgreSQL (issue 30 item 4: several hubs on one database share one team). The
 * table is the store's (store/pg-schema.ts `team_members`); a removal is seen by every hub on its
 * next request.
 */
import pg from 'pg';
import { ConsoleError } from '../../contract';
import type { TeamRole } from '../../contract/schemas/team';
import { migratePgSchema } from '../store';
import { findByToken, infoOf, type Member, type MemberInfo, type MemberStore, newMember } from './members';

/** Members in the `team_members` table of the hub's database. */
export class PgMemberStore implements MemberStore {
  private constructor(private readonly pool: pg.Pool) {}

  /** Opens the database at `url` (its schema created or upgraded). */
  static async open(url: string): Promise<PgMemberStore> {
    const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => undefined);
    try {
      await migratePgSchema(pool);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return new PgMemberStore(pool);
  }

  async add(name: string, role: TeamRole): Promise<{ member: MemberInfo; token: string }> {
    const made = newMember(name, role);
    const m = made.member;
    const r = await this.pool.query(
      'INSERT INTO team_members (name, role, token_sha256, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING',
      [m.name, m.role, m.token_sha256, m.created_at],
    );
    if (r.rowCount === 0)
      throw new ConsoleError('CONFLICT', `A member named ${m.name} exists already; remove them first.`);
    return { member: infoOf(m), token: made.token };
  }

  async list(): Promise<MemberInfo[]> {
    const r = await this.pool.query<Member>(
      'SELECT name, role, token_sha256, created_at FROM team_members ORDER BY name',
    );
    return r.rows.map(infoOf);
  }

  async remove(name: string): Promise<void> {
    const r = await this.pool.query('DELETE FROM team_members WHERE name = $1', [name]);
    if (r.rowCount === 0) throw new ConsoleError('NOT_FOUND', `No member named ${name}.`);
  }

  async byToken(token: string): Promise<Member | null> {
    // Every hash compared in constant time, as the file store does (a team is a handful of people).
    const r = await this.pool.query<Member>('SELECT name, role, token_sha256, created_at FROM team_members');
    return findByToken(r.rows, token);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
