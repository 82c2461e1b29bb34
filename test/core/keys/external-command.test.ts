/**
 * Issue 29 item 3: the signing command's template is stored in the profile, so a template that
 * would hold a secret is refused (naming where, never echoing it) with a pointer to the tool's
 * own credential store; and a template the console could not use (no input, unknown
 * placeholders, shell operators with no shell to run them) is refused before anything runs.
 */
import { describe, expect, it } from 'vitest';
import type { ConsoleError } from '../../../electron/contract/errors';
import {
  fillTemplate,
  parseSignCommand,
  templateSecretProblem,
} from '../../../electron/core/keys/external-command';
import { decodeSignature } from '../../../electron/core/keys/external-signer';

const PKCS11 =
  'pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --token-label bank --login --pin env:HSM_PIN --sign --id 01 -m SHA256-RSA-PKCS -i {in} -o {out}';

/** The refusal of parseSignCommand(line), or null when it was accepted. */
function refusal(line: string): ConsoleError | null {
  try {
    parseSignCommand(line);
    return null;
  } catch (err) {
    return err as ConsoleError;
  }
}

describe('signing command templates', () => {
  it('accepts the recipes of docs/keys-held-elsewhere.md, credentials left to each tool', () => {
    const recipes = [
      PKCS11,
      'aws kms sign --key-id arn:aws:kms:eu-central-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab --message fileb://{in} --message-type RAW --signing-algorithm RSASSA_PKCS1_V1_5_SHA_256 --output text --query Signature',
      'gcloud kms asymmetric-sign --location europe-west3 --keyring bank --key jwt-signing --version 1 --digest-algorithm sha256 --input-file {in} --signature-file {out}',
      'az keyvault key sign --vault-name bank-kv --name jwt-signing --version 78deebed173b48e48f55abf87ed4cf71 --algorithm RS256 --digest {digest_base64} --query signature --output tsv',
      'vault write -field=signature transit/sign/bank-jwt/sha2-256 signature_algorithm=pkcs1v15 input={in_base64}',
    ];
    for (const line of recipes) expect(refusal(line), line).toBeNull();
    expect(parseSignCommand(PKCS11)).toContain('env:HSM_PIN');
  });

  it.each([
    ['pkcs11-tool --login --pin 1234 --sign -i {in} -o {out}', 'word 4 is a literal value of --pin'],
    ['pkcs11-tool --login --pin=1234 --sign -i {in} -o {out}', 'word 3 is a literal value of --pin'],
    ['pkcs11-tool --login -p 1234 --sign -i {in} -o {out}', 'word 4 is a literal value of -p'],
    ['vault write transit/sign/k input={in_base64} token=hvs.CAESIJ3kq0b1', 'sets token to a literal value'],
    ['env VAULT_TOKEN=s.abcdefghijklmnop vault write transit/sign/k input={in_base64}', 'sets VAULT_TOKEN'],
    ['signer --access-key AKIAIOSFODNN7EXAMPLE -i {in}', 'literal value of --access-key'],
    ['signer --key AKIAIOSFODNN7EXAMPLE -i {in}', 'an AWS access key id'],
    ['signer -H "Authorization: Bearer abcdefghijkl" -i {in}', 'a bearer token'],
    ['signer --cred=kP9vQ2xR7mT4nW8sL3jH6bF1cY5aZ0eD -i {in}', 'a long random-looking literal'],
    ['signer --auth eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln -i {in}', 'a JWT'],
  ])('refuses %s', (line, where) => {
    const err = refusal(line);
    expect(err).toMatchObject({ code: 'BAD_ARGUMENT', details: { field: 'sign_command' } });
    expect(err?.message).toContain(where);
    expect(err?.message).toMatch(
      /pkcs11-tool --pin env:VAR .*aws configure.*gcloud auth login, az login, vault login/,
    );
    // The secret itself is never repeated.
    for (const secret of [
      '1234',
      'hvs.CAES',
      'abcdefghijklmnop',
      'AKIAIOSFODNN7EXAMPLE',
      'kP9vQ2xR7mT4',
      'eyJhbGci',
    ])
      expect(err?.message).not.toContain(secret);
  });

  it('lets a value say where the secret is: env:, file:, @file', () => {
    expect(templateSecretProblem(['pkcs11-tool', '--pin', 'env:HSM_PIN'])).toBeNull();
    expect(templateSecretProblem(['openssl', 'pkeyutl', '-passin', 'file:/run/secrets/pin'])).toBeNull();
    expect(templateSecretProblem(['vault', 'write', 'token=@/run/secrets/vault'])).toBeNull();
    expect(
      templateSecretProblem(['pkcs11-tool', '--token-label', 'bank-production-hsm-slot-0001']),
    ).toBeNull();
  });

  it.each([
    ['', 'the signing command is empty'],
    ['pkcs11-tool --sign -o {out}', 'never says what to sign'],
    ['pkcs11-tool --sign -i {input} -o {out}', 'unknown placeholder {input}'],
    ['sh -c "sign {in}" | base64 -d > {out}', 'runs without a shell, so "|"'],
    ["pkcs11-tool -i '{in}", 'does not parse: unterminated single quote'],
    ['{in} --sign', 'cannot be a placeholder'],
  ])('refuses a template it could not use: %j', (line, message) => {
    expect(refusal(line)?.message).toContain(message);
  });

  it('fills placeholders inside words, and reads signatures raw, base64, base64url or as Vault prints them', () => {
    expect(
      fillTemplate(['tool', '--in={in}', '{alg}', 'input={in_base64}'], {
        in: '/t/in',
        out: '/t/out',
        alg: 'PS256',
        in_base64: 'aGk=',
        digest_base64: 'x',
      }),
    ).toEqual(['tool', '--in=/t/in', 'PS256', 'input=aGk=']);
    const sig = Buffer.alloc(256, 7);
    expect(decodeSignature(sig, 256)).toEqual(sig);
    expect(decodeSignature(Buffer.from(`${sig.toString('base64')}\n`), 256)).toEqual(sig);
    expect(decodeSignature(Buffer.from(sig.toString('base64url')), 256)).toEqual(sig);
    expect(decodeSignature(Buffer.from(`vault:v3:${sig.toString('base64')}`), 256)).toEqual(sig);
    expect(decodeSignature(Buffer.from(sig.toString('base64').slice(4)), 256)).toBeNull();
    expect(decodeSignature(Buffer.from('not a signature'), 256)).toBeNull();
  });
});
