// CPU of the egress path's splice forwarders (src/network/splice-forwarder.ts), which are processes of
// their own and so escape process.cpuUsage(): the proxy's per-connection forwarders are this process's
// children (counted in cutime/cstime once reaped), the relays are long-lived (read while they run).
// From /proc, in clock ticks (10 ms each): good for totals over seconds of transfer.
import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
const statFields = (pid: string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** CPU ms of this process's reaped children (the proxy's forwarders, once they have exited). */
export function childrenCpuMs(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** CPU ms used so far by the running splice relays (`python3 … relay <socket>`), the sandboxes' too. */
export function relaysCpuMs(): number {
  let ms = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[argv.indexOf('-c') + 2] !== 'relay') continue;
      const fields = statFields(pid);
      ms += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // Gone meanwhile.
    }
  }
  return ms;
}
