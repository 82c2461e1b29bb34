/**
 * The scenario runner's service side (DESIGN.md "Scenarios": "a fresh X-Session-ID signed by the
 * runner's own keys, served on the runner's JWKS"): the conformance suite's keys and JWKS server,
 * so a step and a conformance case send the same tokens. A `rotated` step publishes one more key
 * for the rest of the run, as the suite's rotation case does.
 *
 * Threat model: the keys live in this process's memory for one run and are never written
 * anywhere (DESIGN.md "Secrets"); the JWKS server is loopback only and serves public keys.
 */
import { equalsJudge, keySetFromJwks, verifyToken, type EngineVerdict } from '../jwt';
import {
  generateRunnerKey,
  serviceClaims,
  signRs256,
  startJwksServer,
  type JwksServer,
  type RunnerKey,
} from '../conformance';

/** The runner's keys for one run (or several, one after another). */
export interface ScenarioKeys {
  readonly jwksUrl: string;
  readonly jwks: JwksServer;
  readonly first: RunnerKey;
  /** Never published: "another key", "unknown kid". */
  readonly stranger: RunnerKey;
  readonly published: RunnerKey[];
  now: () => number;
  close(): Promise<void>;
}

/**
 * Generates the first and the stranger key and serves the JWKS on 127.0.0.1:`port` (0: any).
 *
 * @example
 * const keys = await startScenarioKeys(7303);
 * console.log(`the bank under test trusts ${keys.jwksUrl}`);
 */
export async function startScenarioKeys(port: number, now: () => number = Date.now): Promise<ScenarioKeys> {
  const [first, stranger] = await Promise.all([generateRunnerKey(), generateRunnerKey()]);
  const published = [first];
  const jwks = await startJwksServer({ port, keys: () => published.map((k) => k.jwk), now });
  return { jwksUrl: jwks.url, jwks, first, stranger, published, now, close: () => jwks.close() };
}

/** A new key published beside the others (a `rotated` token). */
export async function rotateKey(keys: ScenarioKeys): Promise<RunnerKey> {
  const rotated = await generateRunnerKey();
  keys.published.push(rotated);
  return rotated;
}

/** A valid service token (spec 2.4) for obj/sub, signed now by `key`. */
export function freshToken(
  keys: ScenarioKeys,
  obj: string,
  sub: string,
  key: RunnerKey = keys.first,
): string {
  return signRs256(key.privateKey, key.kid, serviceClaims(obj, sub, Math.floor(keys.now() / 1000)));
}

/**
 * What the one token engine says of `token` with the runner's published keys and this customer:
 * a flawed step's token must fail it (else the step proves nothing), a valid one must pass.
 */
export function rulesVerdict(
  keys: ScenarioKeys,
  token: string | null,
  obj: string,
  sub: string,
): Promise<EngineVerdict> {
  return verifyToken({
    token: token ?? undefined,
    header: 'X-Session-ID',
    keys: {
      kind: 'set',
      set: keySetFromJwks({ keys: keys.published.map((k) => ({ ...k.jwk })) }, { source: 'jwks' }),
    },
    nowSeconds: keys.now() / 1000,
    obj: equalsJudge('obj', obj),
    sub: equalsJudge('sub', sub),
    mode: 'first-failure',
  });
}
