// CPU of the egress path's splice forwarders (src/lib/splice-forwarder.ts), which are processes of
// their own and so escape process.cpuUsage(): those this process started are its children, counted in
// its cutime/cstime once reaped. From /proc, in clock ticks (10 ms each): good for totals over seconds
// of transfer.
import { readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
const statFields = (pid: string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** CPU ms of this process's reaped children (the proxy's forwarders, once they have exited). */
export function childrenCpuMs(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
