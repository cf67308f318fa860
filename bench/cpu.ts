import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user and system) a process has used so far, all its threads together (PGlite's
 * too): /proc/<pid>/stat's utime and stime, in clock ticks (100 a second on Linux). The CPU a
 * server spends per answer depends far less on what else the machine runs than its req/s does.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis, from the state (field 3): utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
