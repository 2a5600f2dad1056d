import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids made
 * close in time sort close together, so the indexes they key (event ids, new stream names) grow
 * at their right edge: a commit touches a few index pages instead of one random page per row,
 * which is most of what a batched commit writes and fsyncs once the log is large.
 */
export function timeOrderedUuid(nowMs: number = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out += HEX[b[i]!]!;
    if (i === 3 || i === 5 || i === 7 || i === 9) out += '-';
  }
  return out;
}
