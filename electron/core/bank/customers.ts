/**
 * The bank's test customers (DESIGN.md "Command line" `--users`: `{obj, sub?, external_id, phone,
 * key, first_name?, last_name?, email?}`), answered from by the callbacks (spec 2.5, 2.6).
 *
 * Threat model: each customer's `key` is a secret (spec 5.7: the user secret key). It is sealed
 * with the vault (AES-256-GCM, aad bound to the customer's obj) before it reaches
 * `<dataDir>/bank/customers.json` (atomic, 0600). Without a vault the directory is kept in this
 * process's memory only and status says so: a secret is never written in clear (DESIGN.md
 * "Secrets"). Lists show only the key's length, never any of its characters.
 *
 * Failure model: a damaged file is named (STATE_DAMAGED) and left untouched; an import or save is
 * validated whole before anything changes, so bad input loses nothing already stored.
 */
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { CustomerView } from '../../contract/schemas/bank';
import { Customer } from '../../contract/schemas/bank';
import {
  badArgument,
  describeIssues,
  ensurePrivateDir,
  issueField,
  readJsonFileOrNull,
  serializer,
  writeFileAtomic,
} from '../common';
import type { SecretSealer } from '../vault';
import { isBlankClaim } from '../jwt';

export const CUSTOMERS_FILE = 'customers.json';

const StoredCustomer = Customer.omit({ key: true }).extend({ key_sealed: z.string().min(1) });
const CustomersFile = z.object({ version: z.literal(1), customers: z.array(StoredCustomer) });

const aadFor = (obj: string) => `bank-customer-key:${obj}`;

/** "24 characters": the length in code points, never any character of the key. */
export function keyHint(key: string): string {
  const n = [...key].length;
  return `${n} character${n === 1 ? '' : 's'}`;
}

export function toView(c: Customer): z.output<typeof CustomerView> {
  const { key, ...rest } = c;
  return { ...rest, key_hint: keyHint(key) };
}

/**
 * BAD_ARGUMENT when the customer's obj or sub is only white space, naming the entry (`where`,
 * e.g. "customers[2]") and the field: no token can ever match it, since the engine fails a blank
 * obj or sub before any customer is looked up (the one rule: ../jwt/policy.ts isBlankClaim).
 */
function refuseBlankIdentity(c: Customer, where: string): void {
  for (const field of ['obj', 'sub'] as const) {
    const value = c[field];
    if (value !== undefined && isBlankClaim(value)) {
      throw new ConsoleError(
        'BAD_ARGUMENT',
        `${where}.${field} is only white space (${JSON.stringify(value)}): no token can match it, as a token whose ${field} is blank fails the ${field} check`,
        { field },
      );
    }
  }
}

/** Validates a whole `--users` array: each customer, and obj unique. Throws BAD_ARGUMENT naming the entry. */
export function parseCustomers(value: unknown): Customer[] {
  if (!Array.isArray(value)) {
    throw badArgument(
      'customers must be a JSON array of {obj, sub?, external_id, phone, key, first_name?, last_name?, email?}',
      'customers',
    );
  }
  const parsed = z.array(Customer).safeParse(value);
  if (!parsed.success)
    throw badArgument(
      describeIssues(parsed.error, { max: 5, prefix: 'customers', brackets: true }),
      issueField(parsed.error, 'customers'),
    );
  const seen = new Map<string, number>();
  parsed.data.forEach((c, i) => {
    refuseBlankIdentity(c, `customers[${i}]`);
    const first = seen.get(c.obj);
    if (first !== undefined) {
      throw badArgument(
        `customers[${i}].obj ${JSON.stringify(c.obj)} is already used by customers[${first}]: obj must be unique`,
        `customers.${i}.obj`,
      );
    }
    seen.set(c.obj, i);
  });
  return parsed.data;
}

export function parseCustomer(value: unknown): Customer {
  const parsed = Customer.safeParse(value);
  if (!parsed.success)
    throw badArgument(
      describeIssues(parsed.error, { max: 5, prefix: 'customer', brackets: true }),
      issueField(parsed.error),
    );
  refuseBlankIdentity(parsed.data, 'customer');
  return parsed.data;
}

export interface CustomerDirectory {
  /** Loads the file (opening the sealed keys). Called once before use; a failure becomes warning(). */
  load(): Promise<void>;
  retryLoad(): Promise<void>;
  /** The hot path: a synchronous map lookup. */
  get(obj: string): Customer | undefined;
  list(): Customer[];
  count(): number;
  save(customer: Customer): Promise<Customer>;
  remove(obj: string): Promise<boolean>;
  replaceAll(customers: Customer[]): Promise<void>;
  /** Why the directory is not what it should be (memory only, keys that cannot be opened). */
  warning(): string | null;
}

export interface CustomerDirectoryOptions {
  dir: string;
  /** Resolves the vault's sealer; rejects when no vault is available or it is locked. */
  sealer?: () => Promise<SecretSealer>;
}

/** Why a customers file cannot be used: STATE_DAMAGED naming it; it is left untouched. */
const damagedFile = (file: string, problem: string) =>
  new ConsoleError(
    'STATE_DAMAGED',
    `the customers file ${file} ${problem}. It was left untouched: repair it, or move it away and import the customers again`,
    { file },
  );

/** The vault's sealer, or why there is none (no vault configured, the vault locked). */
async function openSealer(options: CustomerDirectoryOptions): Promise<SecretSealer | string> {
  if (!options.sealer) return 'no vault is configured';
  try {
    return await options.sealer();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/**
 * Reads `file`: its customers with their keys opened by the vault, or null when there is no file
 * or no customer in it. Throws STATE_DAMAGED (or VAULT_LOCKED) naming what is wrong.
 */
async function readCustomersFile(
  file: string,
  options: CustomerDirectoryOptions,
): Promise<Map<string, Customer> | null> {
  const read = await readJsonFileOrNull(file, {
    unreadable: (err) => damagedFile(file, `could not be read (${err.code ?? String(err)})`),
    notJson: () => damagedFile(file, 'is not JSON'),
  });
  if (read === null) return null;
  const parsed = CustomersFile.safeParse(read.value);
  if (!parsed.success)
    throw damagedFile(
      file,
      `is not a customers file (${describeIssues(parsed.error, { max: 5, brackets: true })})`,
    );
  if (parsed.data.customers.length === 0) return null;
  const sealer = await openSealer(options);
  if (typeof sealer === 'string') {
    throw new ConsoleError(
      'VAULT_LOCKED',
      `the customers' secret keys in ${file} are sealed by the vault, which cannot open them now (${sealer})`,
    );
  }
  const next = new Map<string, Customer>();
  for (const s of parsed.data.customers) {
    const { key_sealed, ...rest } = s;
    let key: string;
    try {
      key = new TextDecoder().decode(await sealer.open(key_sealed, aadFor(s.obj)));
    } catch (err) {
      throw damagedFile(
        file,
        `holds a key for obj ${JSON.stringify(s.obj)} that the vault cannot open (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    next.set(s.obj, { ...rest, key });
  }
  return next;
}

/**
 * The customer directory over `<dir>/customers.json`: a map in memory for the callbacks' hot
 * path, written sealed (or kept in memory only, saying why) on every change.
 *
 * @example
 * const customers = createCustomerDirectory({ dir, sealer: () => vault.sealer() });
 * await customers.load();
 */
export function createCustomerDirectory(options: CustomerDirectoryOptions): CustomerDirectory {
  const file = path.join(options.dir, CUSTOMERS_FILE);
  const exclusive = serializer();
  let customers = new Map<string, Customer>();
  let memoryOnly: string | null = null;
  /** The file could not be loaded: callbacks run with no customers, and writes are refused so it stays untouched. */
  let loadError: ConsoleError | null = null;

  /** Writes the directory sealed, or switches to memory-only (saying why) when no sealer answers. */
  async function persist(next: Map<string, Customer>): Promise<void> {
    const sealer = await openSealer(options);
    if (typeof sealer === 'string') {
      memoryOnly =
        `customers are kept in memory only, for this process: their secret keys cannot be sealed ` +
        `(${sealer}); unlock or set up the vault, then save them again`;
      customers = next;
      return;
    }
    const stored = [];
    for (const c of next.values()) {
      const { key, ...rest } = c;
      stored.push({ ...rest, key_sealed: await sealer.seal(new TextEncoder().encode(key), aadFor(c.obj)) });
    }
    await ensurePrivateDir(options.dir);
    await writeFileAtomic(file, `${JSON.stringify({ version: 1, customers: stored }, null, 2)}\n`);
    memoryOnly = null;
    customers = next;
  }

  const guarded = <T>(task: () => Promise<T>): Promise<T> =>
    exclusive(async () => {
      // The vault may have been unlocked since: try the file again before refusing.
      if (loadError) await tryLoad();
      if (loadError) throw loadError;
      return task();
    });

  async function tryLoad(): Promise<void> {
    try {
      const read = await readCustomersFile(file, options);
      if (read) customers = read;
      loadError = null;
    } catch (err) {
      loadError =
        err instanceof ConsoleError
          ? err
          : new ConsoleError('INTERNAL', err instanceof Error ? err.message : String(err));
    }
  }

  return {
    load: () => exclusive(tryLoad),
    /** Loads again when the last load failed (e.g. the vault was locked then). */
    retryLoad: () => exclusive(async () => (loadError ? tryLoad() : undefined)),
    get: (obj) => customers.get(obj),
    list: () => [...customers.values()],
    count: () => customers.size,
    save: (customer) =>
      guarded(async () => {
        const c = parseCustomer(customer);
        const next = new Map(customers);
        next.set(c.obj, c);
        await persist(next);
        return c;
      }),
    remove: (obj) =>
      guarded(async () => {
        if (!customers.has(obj)) return false;
        const next = new Map(customers);
        next.delete(obj);
        await persist(next);
        return true;
      }),
    replaceAll: (list) =>
      guarded(async () => {
        const valid = parseCustomers(list);
        await persist(new Map(valid.map((c) => [c.obj, c])));
      }),
    warning: () => (loadError ? `customers not loaded: ${loadError.message}` : memoryOnly),
  };
}
