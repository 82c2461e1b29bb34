/**
 * What the rest of the core needs from the vault: seal a secret into an opaque string that is
 * safe to write to the data directory, and open it again. The vault (keychain-backed or
 * passphrase-backed) implements it; without a vault there is no sealer, and callers keep secrets
 * in memory only, saying so (DESIGN.md "Secrets": never a silent plaintext fallback).
 */
export interface SecretSealer {
  readonly kind: 'keychain' | 'passphrase';
  /** `aad` binds the sealed blob to its purpose (e.g. "sandbox-key:<kid>"); open() must be given the same. */
  seal(plaintext: Uint8Array, aad: string): Promise<string>;
  open(sealed: string, aad: string): Promise<Uint8Array>;
}
