/**
 * Keep-alive connections for the worker's deliveries, with the address policy exactly as strong as
 * a fresh connection's. Every attempt still resolves the host and checks every address
 * (`resolve.ts`); the pool is keyed by the URL's origin, the policy mode and that checked set of
 * addresses, so an attempt can only be handed a socket that was opened, through the pinned lookup,
 * to an address of the very set this attempt's own check just passed. When DNS answers
 * differently, the key differs and a new connection is made (and checked). The socket's peer is
 * compared with the set again before a reused socket carries a request (`isCheckedPeer`).
 *
 * Idle sockets are unreferenced, closed after `IDLE_MS` (or earlier when the server's
 * `Keep-Alive: timeout=` hint says so, Node's agent) and all closed by `close()`.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';

/** Below the 5 s keep-alive timeout of Node's own HTTP server, the most common receiver here. */
export const IDLE_MS = 4_000;
/** Origins whose agents are kept at most; the oldest idle ones go first. */
const MAX_AGENTS = 128;
const MAX_FREE_SOCKETS_PER_ORIGIN = 16;

export interface DeliveryConnections {
  /** The agent for `target` once `addresses` passed the policy in this mode. */
  agentFor(target: URL, addresses: readonly LookupAddress[], mode: DeliveryMode): http.Agent;
  /** Close every pooled socket (in-flight ones included) and forget the agents. */
  close(): void;
}

/** The policy `addresses` were checked under: an agent is never shared across the two. */
export interface DeliveryMode {
  readonly allowPrivateNetworks: boolean;
}

function keyOf(target: URL, addresses: readonly LookupAddress[], { allowPrivateNetworks }: DeliveryMode): string {
  const set = addresses.map((a) => `${a.family}/${a.address}`).sort().join(',');
  return `${target.protocol}//${target.host}|${allowPrivateNetworks ? 'private-allowed' : 'public-only'}|${set}`;
}

/**
 * An address in one form, as ipaddr.js writes it (IPv4-mapped `::ffff:1.2.3.4` as `1.2.3.4`,
 * IPv6 compressed and lower-case, no zone): how a socket may report its peer. null when not an IP.
 */
function canonical(address: string): string | null {
  const bare = address.replace(/%.*$/, '');
  return isIP(bare) === 0 ? null : ipaddr.process(bare).toString();
}

/** True when a socket's peer is one of the checked addresses (a reused socket must be). */
export function isCheckedPeer(socket: Socket, addresses: readonly LookupAddress[]): boolean {
  const peer = typeof socket.remoteAddress === 'string' ? canonical(socket.remoteAddress) : null;
  return peer !== null && addresses.some((a) => canonical(a.address) === peer);
}

/**
 * An agent whose pooled sockets all went to `checked`: one more look at the peer before a socket
 * is handed out again (a socket that fails it is closed, and the attempt connects afresh).
 */
function checkedAgent(protocol: string, checked: readonly LookupAddress[], options: https.AgentOptions): http.Agent {
  const Base = protocol === 'https:' ? https.Agent : http.Agent;
  return new (class extends Base {
    override reuseSocket(socket: Duplex, request: http.ClientRequest): void {
      super.reuseSocket(socket, request);
      if (!isCheckedPeer(socket as Socket, checked)) socket.destroy();
    }
  })(options);
}

export function createDeliveryConnections(): DeliveryConnections {
  const agents = new Map<string, http.Agent>();
  const options = { keepAlive: true, timeout: IDLE_MS, maxFreeSockets: MAX_FREE_SOCKETS_PER_ORIGIN, scheduling: 'lifo' as const };

  function evictIdle(): void {
    for (const [key, agent] of agents) {
      if (agents.size <= MAX_AGENTS) return;
      if (Object.keys(agent.sockets).length > 0 || Object.keys(agent.requests).length > 0) continue;
      agent.destroy();
      agents.delete(key);
    }
  }

  return {
    agentFor(target, addresses, mode) {
      const key = keyOf(target, addresses, mode);
      let agent = agents.get(key);
      if (agent) {
        agents.delete(key); // most recently used last
      } else {
        agent = checkedAgent(target.protocol, [...addresses], options);
      }
      agents.set(key, agent);
      if (agents.size > MAX_AGENTS) evictIdle();
      return agent;
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
