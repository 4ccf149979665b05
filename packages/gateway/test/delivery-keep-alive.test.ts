/**
 * The worker's keep-alive connections (delivery/connections.ts): attempts to one destination share
 * a connection, yet every attempt is still resolved and checked, and a pooled socket only ever
 * serves the address set the attempt's own check passed. Servers on 127.0.0.1 and 127.0.0.2 only.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { isCheckedPeer } from '../src/notify/delivery/connections.ts';
import { createDeliveryConnections, deliverNotification } from '../src/notify/delivery/index.ts';

const fields = { code: '00', orderNum: 'ORD-1', platSign: 'abc' };
const closers: Array<() => void> = [];
after(() => closers.forEach((close) => close()));

interface Counted {
  readonly port: number;
  connections: number;
  requests: number;
}

async function server(host: string, port = 0): Promise<Counted> {
  const counted = { port: 0, connections: 0, requests: 0 };
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      counted.requests += 1;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('SUCCESS');
    });
  });
  srv.on('connection', () => (counted.connections += 1));
  await new Promise<void>((resolve) => srv.listen(port, host, resolve));
  counted.port = (srv.address() as AddressInfo).port;
  closers.push(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return counted;
}

/** A resolver answering `shop.test` with whatever `answer` holds at the time of the call. */
function zone(answer: { address: string }): { lookup: LookupFunction; calls: () => number } {
  let calls = 0;
  const lookup: LookupFunction = (hostname, _options, callback) => {
    calls += 1;
    if (hostname !== 'shop.test' && hostname !== answer.address) {
      return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    }
    callback(null, [{ address: answer.address, family: 4 } satisfies LookupAddress]);
  };
  return { lookup, calls: () => calls };
}

describe('keep-alive delivery connections', () => {
  it('attempts to one destination share a connection, and each is still resolved', async () => {
    const merchant = await server('127.0.0.1');
    const dns = zone({ address: '127.0.0.1' });
    const connections = createDeliveryConnections();
    try {
      for (let i = 0; i < 5; i++) {
        const result = await deliverNotification(`http://shop.test:${merchant.port}/notify`, fields, { allowPrivateNetworks: true, lookup: dns.lookup, connections });
        assert.equal(result.acknowledged, true, result.detail);
      }
    } finally {
      connections.close();
    }
    assert.equal(merchant.requests, 5);
    assert.equal(merchant.connections, 1, 'one connection carried every attempt');
    assert.equal(dns.calls(), 5, 'every attempt resolved its destination');
  });

  it('a new DNS answer never gets a socket opened to the old address', async () => {
    const first = await server('127.0.0.1');
    const second = await server('127.0.0.2', first.port);
    const answer = { address: '127.0.0.1' };
    const dns = zone(answer);
    const connections = createDeliveryConnections();
    const url = `http://shop.test:${first.port}/notify`;
    try {
      assert.equal((await deliverNotification(url, fields, { allowPrivateNetworks: true, lookup: dns.lookup, connections })).acknowledged, true);
      answer.address = '127.0.0.2';
      assert.equal((await deliverNotification(url, fields, { allowPrivateNetworks: true, lookup: dns.lookup, connections })).acknowledged, true);
    } finally {
      connections.close();
    }
    assert.deepEqual([first.requests, second.requests], [1, 1], 'the second attempt went to the address its own lookup answered');
    assert.equal(second.connections, 1);
  });

  it('production mode refuses a destination a sandbox attempt left a pooled connection to', async () => {
    const merchant = await server('127.0.0.1');
    const dns = zone({ address: '127.0.0.1' });
    const connections = createDeliveryConnections();
    const url = `http://shop.test:${merchant.port}/notify`;
    try {
      assert.equal((await deliverNotification(url, fields, { allowPrivateNetworks: true, lookup: dns.lookup, connections })).acknowledged, true);
      const refused = await deliverNotification(url, fields, { allowPrivateNetworks: false, lookup: dns.lookup, connections });
      assert.equal(refused.errorClass, 'refused-address', refused.detail);
    } finally {
      connections.close();
    }
    assert.equal(merchant.requests, 1, 'the refused attempt sent nothing');
  });

  it('a pooled connection the server drops as the next POST arrives is replaced, the attempt still acknowledged', async () => {
    // As a server whose idle timeout ends just when the attempt reuses the connection.
    let connections = 0;
    let answered = 0;
    const srv = http.createServer((req, res) => {
      const socket = req.socket as typeof req.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return socket.destroy();
      req.resume();
      req.on('end', () => {
        answered += 1;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('SUCCESS');
      });
    });
    srv.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      srv.closeAllConnections();
      srv.close();
    });
    const dns = zone({ address: '127.0.0.1' });
    const pool = createDeliveryConnections();
    const url = `http://shop.test:${(srv.address() as AddressInfo).port}/notify`;
    try {
      for (let i = 0; i < 2; i++) {
        const result = await deliverNotification(url, fields, { allowPrivateNetworks: true, lookup: dns.lookup, connections: pool });
        assert.equal(result.acknowledged, true, result.detail);
      }
    } finally {
      pool.close();
    }
    assert.deepEqual([answered, connections], [2, 2], 'the second POST was made again on a connection of its own');
  });
});

describe('isCheckedPeer', () => {
  const table: ReadonlyArray<readonly [peer: string | undefined, checked: readonly string[], expected: boolean]> = [
    ['127.0.0.1', ['127.0.0.1'], true],
    ['::ffff:127.0.0.1', ['127.0.0.1'], true],
    ['127.0.0.1', ['::ffff:127.0.0.1'], true],
    ['::1', ['::1'], true],
    ['FE80::1%eth0', ['fe80::1'], true],
    ['2001:db8:0:0:0:0:0:1', ['2001:db8::1'], true],
    ['::1', ['127.0.0.1'], false],
    ['1.2.3.4', ['1.2.3.5'], false],
    [undefined, ['1.2.3.4'], false],
    ['not-an-address', ['not-an-address'], false],
  ];
  for (const [peer, checked, expected] of table) {
    it(`${peer ?? '(no peer)'} against ${checked.join(', ')}: ${expected ? 'same' : 'refused'}`, () => {
      const addresses: LookupAddress[] = checked.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      assert.equal(isCheckedPeer({ remoteAddress: peer } as Socket, addresses), expected);
    });
  }
});
