import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the calling thread, alone, a nice value (Linux: setpriority with a thread's id affects
 * that thread only; /proc/thread-self names it). Raising one's own nice value needs no privilege.
 * Elsewhere, or if the kernel refuses, nothing changes: returns false.
 */
export function lowerThreadPriority(niceness: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
