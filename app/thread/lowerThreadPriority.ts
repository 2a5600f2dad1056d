import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Raises the calling thread's nice value, alone, by `niceness` over what it runs at (a process
 * started under `nice` keeps its place: never raises the thread's priority). Linux: setpriority
 * with a thread's id affects that thread only; /proc/thread-self names it. Raising one's own nice
 * value needs no privilege. Elsewhere, or if the kernel refuses, nothing changes: returns false.
 */
export function lowerThreadPriority(niceness: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, getPriority(tid) + niceness));
    return true;
  } catch {
    return false;
  }
}
