// The egress decision as a table: allow-list matching (names, wildcards, ranges), the blocked ranges
// after resolution (through a hosts file: every name here is in it, so no DNS query leaves the host),
// operator-opened ranges, and narrowing a profile's
// policy for a session (never widening it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/network/decide.js';
import { effectivePolicy, narrowPolicy } from '../../src/network/policy.js';
import { AddressRules } from '../../src/network/ranges.js';
import { Resolver } from '../../src/network/resolver.js';
import type { NetworkPolicy } from '../../src/config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'toolgate-policy-'));
const hosts = path.join(dir, 'hosts');
writeFileSync(
  hosts,
  [
    '93.184.215.14 example.org www.example.com api.example.com',
    '127.0.0.1 rebind.example.org',
    '93.184.215.15 twofaced.example.org',
    '10.0.0.7 twofaced.example.org',
    '10.20.0.5 mirror.internal',
    '93.184.216.34 example.com evil-example.com',
    '2606:2800:21f:cb07::1 v6.example.org',
    '::ffff:169.254.169.254 mapped.example.org',
  ].join('\n'),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resolver = new Resolver(hosts);
const rules = new AddressRules(['10.20.0.0/16']);
const check = (policy: NetworkPolicy, host: string, port = 443) =>
  decide(rules, resolver, effectivePolicy(policy), host, port);

const allowlist: NetworkPolicy = {
  mode: 'allowlist',
  allow: ['example.org', '*.example.com', '93.184.215.0/24'],
};

/** A listed name that resolves to loopback (DNS rebinding). */
const rebindListed: NetworkPolicy = { mode: 'allowlist', allow: ['rebind.example.org'] };

describe('egress decisions', () => {
  it.each([
    // [policy, host, allowed, reason or address]
    [allowlist, 'example.org', true, '93.184.215.14'],
    [allowlist, 'EXAMPLE.org.', true, '93.184.215.14'],
    [allowlist, 'api.example.com', true, '93.184.215.14'],
    [allowlist, 'example.com', false, "not in the session's allow-list"],
    [allowlist, 'evil-example.com', false, "not in the session's allow-list"],
    [allowlist, '93.184.215.99', true, '93.184.215.99'],
    [allowlist, '93.184.216.1', false, "not in the session's allow-list"],
    [rebindListed, 'rebind.example.org', false, 'it resolves to a blocked address: loopback 127.0.0.0/8'],
    [
      { mode: 'open' },
      'twofaced.example.org',
      false,
      'it resolves to a blocked address: private range 10.0.0.0/8',
    ],
    [{ mode: 'open' }, 'mapped.example.org', false, 'link-local range (cloud metadata) 169.254.0.0/16'],
    [{ mode: 'open' }, '::ffff:127.0.0.1', false, 'loopback 127.0.0.0/8'],
    [{ mode: 'open' }, '0.0.0.0', false, 'this-network range 0.0.0.0/8'],
    [{ mode: 'open' }, '100.64.1.1', false, 'shared (carrier-grade NAT) range 100.64.0.0/10'],
    [{ mode: 'open' }, '172.31.255.255', false, 'private range 172.16.0.0/12'],
    [{ mode: 'open' }, '224.0.0.251', false, 'multicast range 224.0.0.0/4'],
    [{ mode: 'open' }, 'fe80::1', false, 'link-local range fe80::/10'],
    [{ mode: 'open' }, 'fd12::1', false, 'private (unique local) range fc00::/7'],
    [{ mode: 'open' }, 'v6.example.org', true, '2606:2800:21f:cb07::1'],
    [{ mode: 'open' }, 'mirror.internal', true, '10.20.0.5'],
    [{ mode: 'open' }, '10.21.0.5', false, 'private range 10.0.0.0/8'],
    [{ mode: 'off' }, 'example.org', false, 'the network is off for this session'],
  ] as const)('%j → %s: %s (%s)', async (policy, host, allowed, expected) => {
    const decision = await check(policy as NetworkPolicy, host);
    expect(decision.allowed).toBe(allowed);
    if (decision.allowed) expect(decision.address).toBe(expected);
    else expect(decision.reason).toContain(expected);
  });

  it('looks up only names the policy could allow: a range on the list is for addresses given literally', async () => {
    // The resolver as it is, with the names it is asked for written down: a name it is asked for is a
    // DNS query some server sees, and a sandbox could spell data into the names it asks for.
    class WatchedResolver extends Resolver {
      readonly asked: string[] = [];
      override resolve(host: string) {
        this.asked.push(host);
        return super.resolve(host);
      }
    }
    const watched = new WatchedResolver(hosts);
    const decideWith = (policy: NetworkPolicy, host: string) =>
      decide(rules, watched, effectivePolicy(policy), host, 443);
    for (const name of ['c2VjcmV0.exfil.example.net', 'example.com', 'twofaced.example.org']) {
      expect(await decideWith(allowlist, name)).toEqual({
        allowed: false,
        reason: "not in the session's allow-list",
      });
    }
    expect(watched.asked).toEqual([]);
    // A literal address in a listed range needs no lookup either; a listed name is looked up.
    expect(await decideWith(allowlist, '93.184.215.99')).toMatchObject({ allowed: true });
    expect(await decideWith(allowlist, 'api.example.com')).toMatchObject({ allowed: true });
    expect(watched.asked).toEqual(['93.184.215.99', 'api.example.com']);
  });

  it('names the rule, never the address a name resolved to, when refusing it', async () => {
    for (const [policy, host, hidden] of [
      [rebindListed, 'rebind.example.org', '127.0.0.1'],
      [{ mode: 'open' }, 'twofaced.example.org', '10.0.0.7'],
      [{ mode: 'open' }, 'mapped.example.org', '169.254.169.254'],
    ] as const) {
      const decision = await check(policy as NetworkPolicy, host);
      expect(decision.allowed).toBe(false);
      if (!decision.allowed) expect(decision.reason).not.toContain(hidden);
    }
  });

  it('refuses a port outside 1-65535', async () => {
    expect(await check({ mode: 'open' }, 'example.org', 0)).toEqual({
      allowed: false,
      reason: 'invalid port',
    });
  });
});

describe('narrowing a profile policy for a session', () => {
  const profile: NetworkPolicy = { mode: 'allowlist', allow: ['*.example.com', 'example.org', '10.0.0.0/8'] };
  it.each([
    [{ mode: 'off' }, { mode: 'off' }],
    [
      { mode: 'allowlist', allow: ['api.example.com'] },
      { mode: 'allowlist', allow: ['api.example.com'] },
    ],
    [
      { mode: 'allowlist', allow: ['*.a.example.com', '10.1.0.0/16'] },
      { mode: 'allowlist', allow: ['*.a.example.com', '10.1.0.0/16'] },
    ],
    [{ mode: 'allowlist' }, profile],
    [{ mode: 'open' }, 'mode "open" is wider than the profile\'s "allowlist"'],
    [{ mode: 'allowlist', allow: ['example.com'] }, '"example.com" is not within the profile\'s allow-list'],
    [{ mode: 'allowlist', allow: ['*.com'] }, 'a wildcard is "*." followed by a domain with a dot'],
    [{ mode: 'allowlist', allow: ['0.0.0.0/0'] }, '"0.0.0.0/0" is not within the profile\'s allow-list'],
    [{ mode: 'allowlist', allow: ['exa mple.org'] }, 'is neither a host name'],
  ] as const)('%j → %j', (requested, expected) => {
    const result = narrowPolicy(profile, requested as NetworkPolicy);
    if (typeof expected === 'string') expect(result).toEqual(expect.stringContaining(expected));
    else expect(result).toEqual(expected);
  });

  it('an open profile may be narrowed to any allow-list, an off one to nothing more', () => {
    expect(narrowPolicy({ mode: 'open' }, { mode: 'allowlist', allow: ['x.org'] })).toEqual({
      mode: 'allowlist',
      allow: ['x.org'],
    });
    expect(narrowPolicy({ mode: 'off' }, { mode: 'allowlist', allow: [] })).toContain('wider');
  });
});
