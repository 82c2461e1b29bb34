/**
 * A static demo token for the "Try a sample" button: RS256, kid `demo-sample-2024`, the spec's
 * claims (flow, obj, sub, iat, exp), issued 2024-06-20 with a 5-minute lifetime, so it is long
 * expired and the checks show a real failure. Its public JWK comes with it so the signature check
 * can pass. The private key was thrown away after signing; this is demo input, not a credential.
 */
export const SAMPLE_TOKEN =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6ImRlbW8tc2FtcGxlLTIwMjQiLCJ0eXAiOiJKV1QifQ.' +
  'eyJmbG93Ijoic2lnbi1pbiIsIm9iaiI6IkRFODkzNzA0MDA0NDA1MzIwMTMwMDAiLCJzdWIiOiJpbnRlZ3JhdGlvbi5lbmdpbmVlckBiYW5rLmV4YW1wbGUiLCJpYXQiOjE3MTg4NzA0MDAsImV4cCI6MTcxODg3MDcwMH0.' +
  'dzSLxUOSQICRLWIWzYVn6CiIMFZ9xMHLaFG5HBEpOGBFiKGBmyYCZL72qKItz-Tyn7ytqlJ1BYkLyzpzfAssYltLLkaDOx7QXZSEXl5HDXkayh-B6T9GEn2oI1dX0oxrfWqM2BHdv9HuUu6GQDMUjovhtZB_G9W95B7s8rahyeTNGU1-UUzjiU84dtlUmUb1Z1HulpXmsLgXVAzyzcimSh2X7yFZjs6KuUyYpFU8kGcF8ZixqjC8f0G5DGoFvmedU4qQfJq8f0NcDjnYXyjjuVgzK7me48JPrgHrUd2ZFzk3pOxU8ciuQDVMb3uVaWVXdN7ZCjniffNJnO835sVQlg';

export const SAMPLE_JWK = {
  alg: 'RS256',
  e: 'AQAB',
  kid: 'demo-sample-2024',
  kty: 'RSA',
  n: 'oz9HR6insul2ONU6QvmiJZXvlXebL3mCntwJnvZVqcQHVfDm7FtUQxmEYAtIZ69OJynv0GzSP3yzUToODC9zZhHMtBgz69fqR3h03lY6FkPb18sKcQjOVCB5Q0okmNDLclu84hTtyrUQ95S5OfkudZOHoIGxET9oqGT9tZ_oA-EQqIrSWy4mrbIHP0GPUx51mSiRDpU1rGWnU3_awLK-TL4v0o-FxlpuM7WrcHWDKL2FKVeB42i4F2lMBQG-rpdQ6JOmXb6WXAc3-bu4mPqasTFB_dV9KCrPQIofN6vdxG1lyMymxACdtcv6gGEZAOUmt-F-nWnU97gGmp5GVahBwQ',
  use: 'sig',
} as const;

export const SAMPLE_OBJ = 'DE89370400440532013000';
export const SAMPLE_SUB = 'integration.engineer@bank.example';
