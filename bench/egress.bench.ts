// What the egress proxy costs, in one run against a network namespace this bench creates (no traffic
// leaves the host): a 50 MB download by curl inside a session (through the runtime's relay and the
// session's proxy) against the same download by curl on the host straight to the server (ratio of
// speeds, goal ≥ 0.8); the set-up of a small request through the proxy against a direct one (curl's own
// time_total, p50 difference, goal ≤ 2 ms); and web_fetch of a 200 KB HTML page as Markdown (p50 of
// the whole call, goal ≤ 100 ms). Needs root, bwrap and iproute2.
// The bulk bytes go through the kernel's splice(2) (the sandbox's relay, and the proxy past
// network.spliceAfterBytes): the CPU of those forwarders (python3 processes: the proxy's are this
// process's children, the relay lives in the sandbox) is reported beside the service's own. The same
// download and set-up with every byte copied through JavaScript at both hops (network.spliceAfterBytes
// 0: a second service) is the baseline the splice is measured against, in the same run.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callTool, fmt, percentile, startServer } from './lib.js';
import { childrenCpuMs, relaysCpuMs } from './splice-cpu.js';
import { startInternet, unavailable } from '../test/network/internet.js';

const MB = 1024 * 1024;
const DOWNLOAD_BYTES = Number(process.env.BENCH_EGRESS_BYTES ?? 50 * MB);
const DOWNLOADS = Number(process.env.BENCH_EGRESS_DOWNLOADS ?? 3);
const SMALL = Number(process.env.BENCH_EGRESS_SMALL ?? 40);
const FETCHES = Number(process.env.BENCH_EGRESS_FETCHES ?? 30);

const why = unavailable();
if (why) {
  console.log(`egress bench skipped: ${why}`);
  process.exit(0);
}

const net = await startInternet();
const config = path.join(tmpdir(), `toolgate-bench-egress-${process.pid}.json`);
writeFileSync(
  config,
  JSON.stringify({ network: { openRanges: [`${net.address}/32`], hostsFile: net.hostsFile } }),
);
const server = await startServer({ TOOLGATE_CONFIG: config, TOOLGATE_SANDBOX: 'bwrap' });
// The same service with the proxy copying every byte itself: the baseline of the splice.
const copyConfig = path.join(tmpdir(), `toolgate-bench-egress-copy-${process.pid}.json`);
writeFileSync(
  copyConfig,
  JSON.stringify({
    network: { openRanges: [`${net.address}/32`], hostsFile: net.hostsFile, spliceAfterBytes: 0 },
  }),
);
const copyServer = await startServer({ TOOLGATE_CONFIG: copyConfig, TOOLGATE_SANDBOX: 'bwrap' });
try {
  const copySession = await copyServer.session({ profile: 'full' });
  const session = await server.session({
    profile: 'full',
    files: { 'ca.pem': readFileSync(net.caPem, 'utf8') },
  });
  const inSession = async (command: string) =>
    String(
      (await callTool(server.url, session, 'run_command', { command, timeout_ms: 600_000 })).data.stdout,
    );
  const onHost = (args: string[]) => execFileSync('/usr/bin/curl', args, { encoding: 'utf8' });
  const big = `/big?bytes=${DOWNLOAD_BYTES}`;

  // Interleaved, so a busy moment of the machine hits both sides alike.
  const proxied: number[] = [];
  const direct: number[] = [];
  // HTTPS too: the common case (package registries), a CONNECT tunnel the proxy copies as bytes.
  const proxiedTls: number[] = [];
  const directTls: number[] = [];
  // The proxy runs in this process: its CPU time per proxied MB does not depend on how busy the machine is.
  let proxyCpuMs = 0;
  let forwardersCpuMs = 0;
  let relayCpuMs = 0;
  const copied: number[] = [];
  const curlBig = `curl -sS -o /dev/null -w '%{speed_download}' 'http://allowed.test${big}'`;
  for (let i = 0; i < DOWNLOADS; i++) {
    const cpu = process.cpuUsage();
    const children = childrenCpuMs();
    const relays = relaysCpuMs();
    proxied.push(Number(await inSession(curlBig)));
    const used = process.cpuUsage(cpu);
    proxyCpuMs += (used.user + used.system) / 1000;
    forwardersCpuMs += childrenCpuMs() - children;
    relayCpuMs += relaysCpuMs() - relays;
    copied.push(
      Number(
        (
          await callTool(copyServer.url, copySession, 'run_command', {
            command: curlBig,
            timeout_ms: 600_000,
          })
        ).data.stdout,
      ),
    );
    direct.push(
      Number(
        onHost([
          '-sS',
          '--noproxy',
          '*',
          '-o',
          '/dev/null',
          '-w',
          '%{speed_download}',
          `http://${net.address}${big}`,
        ]),
      ),
    );
    proxiedTls.push(
      Number(
        await inSession(
          `curl -sS --cacert /workspace/ca.pem -o /dev/null -w '%{speed_download}' 'https://allowed.test${big}'`,
        ),
      ),
    );
    directTls.push(
      Number(
        onHost([
          '-sS',
          '--noproxy',
          '*',
          '--cacert',
          net.caPem,
          '--resolve',
          `allowed.test:443:${net.address}`,
          '-o',
          '/dev/null',
          '-w',
          '%{speed_download}',
          `https://allowed.test${big}`,
        ]),
      ),
    );
  }
  const loop = (url: string, extra = '') =>
    `for i in $(seq ${SMALL}); do curl -sS ${extra} -o /dev/null -w '%{time_total}\\n' '${url}'; done`;
  const smallProxied = (await inSession(loop('http://allowed.test/hello'))).trim().split('\n').map(Number);
  const smallCopied = String(
    (
      await callTool(copyServer.url, copySession, 'run_command', {
        command: loop('http://allowed.test/hello'),
        timeout_ms: 600_000,
      })
    ).data.stdout,
  )
    .trim()
    .split('\n')
    .map(Number);
  const smallDirect = execFileSync('/bin/sh', ['-c', loop(`http://${net.address}/hello`, "--noproxy '*'")], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .map(Number);

  const fetches: number[] = [];
  const page = 'http://allowed.test/article.html?bytes=200000';
  await callTool(server.url, session, 'web_fetch', { url: page });
  for (let i = 0; i < FETCHES; i++) {
    const started = performance.now();
    const result = await callTool(server.url, session, 'web_fetch', { url: page });
    fetches.push(performance.now() - started);
    if (!String(result.data.content).includes('every connection is audited'))
      throw new Error('web_fetch returned no article');
  }

  const p50 = (values: number[]) => percentile(values, 50);
  const speed = (bytesPerSecond: number) => `${fmt(bytesPerSecond / MB, 0)} MB/s`;
  const ratio = p50(proxied) / p50(direct);
  const overheadMs = (p50(smallProxied) - p50(smallDirect)) * 1000;
  console.log(`${DOWNLOAD_BYTES / MB} MB download, ${DOWNLOADS} each, interleaved, p50:`);
  console.log(`  through the proxy (curl in a session): ${speed(p50(proxied))}`);
  console.log(`  direct (curl on the host)            : ${speed(p50(direct))}`);
  console.log(`  ratio ${fmt(ratio)} (goal >= 0.8)`);
  console.log(
    `  https (a CONNECT tunnel): ${speed(p50(proxiedTls))} vs ${speed(p50(directTls))}, ratio ${fmt(p50(proxiedTls) / p50(directTls))}`,
  );
  console.log(
    `  every byte copied through JavaScript (spliceAfterBytes 0: relay and proxy): ${speed(p50(copied))}, ratio ${fmt(p50(copied) / p50(direct))}`,
  );
  const perMb = (ms: number) => fmt(ms / ((DOWNLOADS * DOWNLOAD_BYTES) / MB));
  console.log(
    `  CPU per MB: the service process (the proxy, and the call around it) ${perMb(proxyCpuMs)} ms, ` +
      `its splice forwarders ${perMb(forwardersCpuMs)} ms, the sandbox's splice relay ${perMb(relayCpuMs)} ms (10 ms ticks)`,
  );
  console.log(
    `small request set-up (curl time_total, ${SMALL} each): proxy ${fmt(p50(smallProxied) * 1000)} ms, ` +
      `direct ${fmt(p50(smallDirect) * 1000)} ms, overhead p50 ${fmt(overheadMs)} ms (goal <= 2); ` +
      `copied through JavaScript: overhead p50 ${fmt((p50(smallCopied) - p50(smallDirect)) * 1000)} ms`,
  );
  console.log(
    `web_fetch of a 200 KB HTML page as Markdown (${FETCHES} calls): p50 ${fmt(p50(fetches))} ms, ` +
      `p95 ${fmt(percentile(fetches, 95))} ms (goal p50 <= 100)`,
  );
  if (ratio < 0.8 || overheadMs > 2 || p50(fetches) > 100) process.exitCode = 1;
} finally {
  await copyServer.close();
  rmSync(copyConfig, { force: true });
  await server.close();
  net.close();
  rmSync(config, { force: true });
}
