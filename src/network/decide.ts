// One egress decision: may this session open a connection to host:port, and to which address. The name
// is checked against the policy, resolved, and every address it has checked against the blocked ranges;
// the connection then goes to the address checked here, never to a second lookup of the name (a DNS
// server that answers differently the second time gains nothing). Only a name the policy could allow is
// looked up at all (a lookup is a query some DNS server sees: a sandbox could spell data into the names
// it asks for), and a refusal names the rule, never the address a name resolved to (an internal DNS
// answer is not the session's to learn).
import { nameListed, nameRefusal, addressAllowed, type EffectivePolicy } from './policy.js';
import type { AddressRules } from './ranges.js';
import type { Resolver } from './resolver.js';

export type Decision =
  | { readonly allowed: true; readonly address: string; readonly family: 4 | 6 }
  | { readonly allowed: false; readonly reason: string };

export async function decide(
  rules: AddressRules,
  resolver: Resolver,
  policy: EffectivePolicy,
  host: string,
  port: number,
): Promise<Decision> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { allowed: false, reason: 'invalid port' };
  const refused = nameRefusal(policy, host);
  if (refused !== undefined) return { allowed: false, reason: refused };
  const addresses = await resolver.resolve(host);
  if (addresses.length === 0) return { allowed: false, reason: 'the name does not resolve' };
  // Any blocked address refuses the name: a name with a public and a private address is a rebinding
  // attempt, or a misconfiguration the session should not lean on.
  for (const address of addresses) {
    const verdict = rules.check(address);
    if (verdict.blocked) {
      const literal = addresses.length === 1 && address.toString() === host.replace(/^\[|\]$/g, '');
      return {
        allowed: false,
        reason: literal ? verdict.reason! : `it resolves to a blocked address: ${verdict.reason!}`,
      };
    }
  }
  const usable = nameListed(policy, host) ? addresses : addresses.filter((a) => addressAllowed(policy, a));
  const chosen = usable[0];
  if (!chosen) return { allowed: false, reason: "not in the session's allow-list" };
  return { allowed: true, address: chosen.toString(), family: chosen.kind() === 'ipv4' ? 4 : 6 };
}
