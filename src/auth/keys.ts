import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// Key format (decisions.md): sl_live_<id>_<secret>. <id> is 8 base62 characters; <secret> is 32
// random base62 characters (about 190 bits) followed by a 6-character base62 CRC32 of everything
// before it in the key, so a mistyped or truncated key is rejected without a database round trip.

export const KEY_PREFIX = 'sl_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 8;
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${RANDOM_LENGTH},}[0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

function checksum(text: string): string {
  let n = crc32(text);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export interface ParsedKey {
  keyId: string;
  secret: string;
}

/** A fresh key. The caller stores `keyId` and the hash of `secret`, and shows `key` once. */
export function generateKey(): ParsedKey & { key: string } {
  const keyId = randomBase62(ID_LENGTH);
  const body = `${KEY_PREFIX}${keyId}_${randomBase62(RANDOM_LENGTH)}`;
  const key = body + checksum(body);
  return { key, keyId, secret: key.slice(KEY_PREFIX.length + ID_LENGTH + 1) };
}

/** Splits a presented key, or returns undefined when its shape or checksum is wrong. */
export function parseKey(raw: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(raw);
  if (!match) return undefined;
  const body = raw.slice(0, -CHECKSUM_LENGTH);
  if (checksum(body) !== raw.slice(-CHECKSUM_LENGTH)) return undefined;
  return { keyId: match[1] as string, secret: match[2] as string };
}

export function hashSecret(secret: string, pepper: string | undefined): string {
  return pepper
    ? createHmac('sha256', pepper).update(secret).digest('hex')
    : createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, storedHash: string, pepper: string | undefined): boolean {
  const presented = Buffer.from(hashSecret(secret, pepper), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
