/**
 * Tests never leave the machine (issue 12): once installed, no socket of this process can connect
 * anywhere but 127.0.0.0/8 or ::1, whatever a test (or a bug in the code under test) asks for.
 *
 * Plain JavaScript on purpose: the CLI's child processes in tests run compiled code without tsx,
 * and load this file with `node --import .../loopback-guard-preload.mjs`. The typed entry for test
 * files is `network.ts`, which re-exports it.
 *
 * How: `net.Socket.prototype.connect` (which plain, TLS, HTTP and database sockets all go through)
 * is wrapped. A literal address outside loopback is refused before anything is sent; a host name
 * gets a lookup that refuses any answer outside loopback, so the socket never connects to it.
 * `dns.lookup` (and `dns.promises.lookup`) refuse such answers too, for code that resolves first
 * and connects later (the gateway's delivery does), and never ask real DNS for any name but
 * `localhost` (answered from the hosts file): a test that needs a name uses a fake resolver.
 * Every connection attempt is recorded.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

/** The error code of a refusal: a name no resolver or kernel uses. */
export const NON_LOOPBACK_CODE = 'ETESTNONLOOPBACK';

/** True for 127.0.0.0/8 and ::1, the only places a test may connect to. */
export function isLoopbackAddress(address) {
  if (typeof address !== 'string') return false;
  if (net.isIPv4(address)) return address.split('.')[0] === '127';
  if (!net.isIPv6(address)) return false;
  const bare = address.split('%')[0].toLowerCase();
  return bare === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(bare);
}

function refusal(what) {
  const error = new Error(`${what} is outside the loopback network; tests never leave the machine`);
  error.code = NON_LOOPBACK_CODE;
  return error;
}

/** Wrap a `dns.lookup`-shaped function so that an answer outside loopback becomes an error. */
export function loopbackOnly(lookup) {
  return function guardedLookup(hostname, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    lookup(hostname, opts, (error, address, family) => {
      if (error) return callback(error, address, family);
      const answers = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const outside = answers.find((entry) => !isLoopbackAddress(entry));
      if (outside !== undefined || answers.length === 0) {
        state.refused.push({ host: String(hostname), address: String(outside) });
        return callback(refusal(`${hostname} resolves to ${outside}, which`), opts.all ? [] : undefined, 0);
      }
      callback(null, address, family);
    });
  };
}

const state = {
  installed: false,
  /** Every connection attempt: the address and port the socket was about to connect to. */
  attempts: [],
  /** Everything refused: literal addresses and lookup answers outside loopback. */
  refused: [],
};

/**
 * Install the guard in this process (idempotent). Returns the live record of attempts and refusals.
 */
export function installLoopbackGuard() {
  if (state.installed) return state;
  state.installed = true;
  const originalLookup = dns.lookup;
  const originalPromisesLookup = dns.promises.lookup;
  const isLocalName = (hostname) => net.isIP(hostname) !== 0 || /^(.+\.)?localhost\.?$/i.test(String(hostname));
  /** The system resolver for literals and localhost only: no DNS query ever leaves the machine. */
  const localLookup = (hostname, options, callback) => {
    if (isLocalName(hostname)) return originalLookup(hostname, options, callback);
    state.refused.push({ host: String(hostname), address: '(not resolved)' });
    process.nextTick(() => callback(refusal(`the name ${hostname} (real DNS)`), options.all ? [] : undefined, 0));
  };
  const originalConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const normalized = Array.isArray(args[0]) ? args[0] : net._normalizeArgs(args);
    const [options = {}, callback] = normalized;
    this.on('connectionAttempt', (address, port) => state.attempts.push({ address, port }));
    if (options.path) return originalConnect.call(this, options, callback); // a local socket file
    const host = options.host ?? 'localhost';
    if (net.isIP(host) !== 0) {
      if (isLoopbackAddress(host)) return originalConnect.call(this, options, callback);
      state.refused.push({ host, address: host });
      process.nextTick(() => this.destroy(refusal(host)));
      return this;
    }
    const lookup = loopbackOnly(options.lookup ?? localLookup);
    return originalConnect.call(this, { ...options, lookup }, callback);
  };
  dns.lookup = loopbackOnly(localLookup);
  dns.promises.lookup = async (hostname, options) => {
    if (!isLocalName(hostname)) throw refusal(`the name ${hostname} (real DNS)`);
    const answer = await originalPromisesLookup(hostname, options);
    const answers = Array.isArray(answer) ? answer.map((entry) => entry.address) : [answer.address];
    const outside = answers.find((entry) => !isLoopbackAddress(entry));
    if (outside !== undefined) {
      state.refused.push({ host: String(hostname), address: outside });
      throw refusal(`${hostname} resolves to ${outside}, which`);
    }
    return answer;
  };
  // ES module imports of node:dns (`import { lookup } from 'node:dns'`) see the guarded functions.
  syncBuiltinESMExports();
  return state;
}
