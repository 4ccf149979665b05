/**
 * `@tombolbayar/server/node` (`payButtonNode`) on a plain `node:http` server, as the README's recipe
 * mounts it: the plug-in's paths answered, other paths passed to `next` (or 404 without one), a
 * client that abandons its body half-way costs a closed stream and no crash, and anything but
 * `createPayButton()`'s handler refused with the field named.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPayButton, PayButtonError, type PayButtonHandler } from '../src/index.ts';
import { payButtonNode } from '../src/adapters/node.ts';
import { validOptions } from './support/options.ts';

let dir: string;
let pay: PayButtonHandler<IncomingMessage>;
let withNext: Server;
let bare: Server;
const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tb-node-adapter-'));
  pay = createPayButton<IncomingMessage>({ ...validOptions(dir), publicUrl: 'http://127.0.0.1:3000' } as never);
  const routes = payButtonNode(pay);
  withNext = http.createServer((req, res) => routes(req, res, () => res.end('the shop')));
  bare = http.createServer(routes);
  await Promise.all([listen(withNext), listen(bare)]);
});

after(async () => {
  withNext.close();
  bare.close();
  await pay.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('payButtonNode()', () => {
  test('serves the element script under the mount path', async () => {
    const response = await fetch(`${urlOf(withNext)}/pay/pay-button.js`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /javascript/);
  });

  test('passes any other path to next, and answers 404 without one', async () => {
    assert.equal(await (await fetch(`${urlOf(withNext)}/`)).text(), 'the shop');
    assert.equal((await fetch(`${urlOf(bare)}/elsewhere`)).status, 404);
  });

  test('a notification whose client leaves half-way through its body crashes nothing', async () => {
    const { port } = bare.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write('POST /pay/notify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    socket.destroy();
    await new Promise((resolve) => socket.once('close', resolve));
    // The server still answers: the abandoned body ended a stream, not the process.
    assert.equal((await fetch(`${urlOf(bare)}/pay/pay-button.js`)).status, 200);
  });

  test('refuses anything but createPayButton()\'s handler, naming the field', () => {
    assert.throws(() => payButtonNode({ fetch: async () => new Response() } as never), (error: unknown) =>
      error instanceof PayButtonError && error.code === 'config_invalid' && /payButtonNode\(\): pay:/.test(error.message));
  });
});
