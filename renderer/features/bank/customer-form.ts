import type { Customer } from '../../../electron/contract/schemas/bank';

/** Spec 4.3: external_id is at most 500 symbols (counted as characters, not UTF-16 units). */
export const EXTERNAL_ID_MAX = 500;

export const CUSTOMER_FIELDS = [
  'obj',
  'sub',
  'external_id',
  'phone',
  'key',
  'first_name',
  'last_name',
  'email',
] as const;
export type CustomerField = (typeof CUSTOMER_FIELDS)[number];
export type CustomerValues = Record<CustomerField, string>;

export const EMPTY_CUSTOMER: CustomerValues = {
  obj: '',
  sub: '',
  external_id: '',
  phone: '',
  key: '',
  first_name: '',
  last_name: '',
  email: '',
};

export function symbols(s: string): number {
  return [...s].length;
}

/** Problems by field, as the user types (the core checks again and may refuse more). */
export function validateCustomer(v: CustomerValues): Partial<Record<CustomerField, string>> {
  const out: Partial<Record<CustomerField, string>> = {};
  if (!v.obj.trim()) out.obj = 'obj is required (the account or phone the service sends as obj)';
  if (!v.external_id.trim()) out.external_id = 'external_id is required';
  else if (symbols(v.external_id) > EXTERNAL_ID_MAX)
    out.external_id = `external_id is ${symbols(v.external_id)} symbols; at most ${EXTERNAL_ID_MAX}`;
  if (!v.phone.trim()) out.phone = 'phone is required';
  if (!v.key) out.key = 'key is required (the stored one is never shown: enter it again to save)';
  if (v.email && !/^[^@\s]+@[^@\s]+$/.test(v.email.trim())) out.email = 'not an email address';
  return out;
}

/** The contract's input: optional fields left out when empty. */
export function toCustomer(v: CustomerValues): Customer {
  const optional = (s: string) => (s.trim() ? s.trim() : undefined);
  const c: Customer = { obj: v.obj.trim(), external_id: v.external_id, phone: v.phone.trim(), key: v.key };
  const sub = optional(v.sub);
  const first = optional(v.first_name);
  const last = optional(v.last_name);
  const email = optional(v.email);
  if (sub) c.sub = sub;
  if (first) c.first_name = first;
  if (last) c.last_name = last;
  if (email) c.email = email;
  return c;
}
