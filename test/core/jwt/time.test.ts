import { describe, expect, it } from 'vitest';
import {
  describeClaimTime,
  formatDuration,
  isoOrNull,
  relativeTo,
  timeUnit,
} from '../../../electron/core/jwt/time';

describe('time wording', () => {
  it('words durations at the precision a person needs', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(180)).toBe('3 min');
    expect(formatDuration(270)).toBe('4 min 30 s');
    expect(formatDuration(1500)).toBe('25 min');
    expect(formatDuration(3900)).toBe('1 h 5 min');
    expect(formatDuration(7200)).toBe('2 h');
    expect(formatDuration(5 * 86400)).toBe('5 days');
    expect(formatDuration(-180)).toBe('3 min');
  });

  it('words a claim relative to now in its own verb', () => {
    expect(describeClaimTime('exp', -180)).toBe('expired 3 min ago');
    expect(describeClaimTime('exp', 240)).toBe('expires in 4 min');
    expect(describeClaimTime('iat', -120)).toBe('issued 2 min ago');
    expect(describeClaimTime('iat', 300)).toBe('issued in 5 min');
    expect(describeClaimTime('nbf', 60)).toBe('becomes valid in 1 min');
    expect(describeClaimTime('exp', 0)).toBe('expires now');
    expect(relativeTo(-30)).toBe('30 s ago');
  });

  it('takes values above 1e11 as milliseconds', () => {
    expect(timeUnit(1_768_478_400)).toBe('s');
    expect(timeUnit(1_768_478_400_000)).toBe('ms');
  });

  it('gives null for instants no Date can hold', () => {
    expect(isoOrNull(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(isoOrNull(1e300)).toBeNull();
  });
});
