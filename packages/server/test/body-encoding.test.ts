/**
 * The body readers and `Content-Encoding` over real HTTP: `/notify`'s reader takes what the
 * family's gateways may send (`Content-Encoding: UTF-8`, gzip, deflate) within its limit counted
 * after inflating, and refuses anything else naming the header; the browser routes' reader stays
 * identity-only.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import { UNSUPPORTED_CONTENT_ENCODING } from '@tombolbayar/protocol';
import express from 'express';
import { PayButtonError } from '../src/errors.ts';
import { toRequest } from '../src/adapters/node-request.ts';
import { readJsonBody } from '../src/http/body.ts';
import { NotifyBodyError, readNotifyFields } from '../src/http/notify-body.ts';

const LIMIT = 4096;
const FIELDS = { code: '00', msg: 'SUCCESS', name: 'Budi Santoso — 北京 kopi', orderNum: 'ORD-1', payMoney: '150000' };
const FORM = new URLSearchParams(FIELDS).toString();

let server: Server;
let base: string;

before(async () => {
  const app = express();
  app.post('/notify', async (req, res) => {
    try {
      res.json({ fields: await readNotifyFields(toRequest(req), LIMIT) });
    } catch (error) {
      if (error instanceof NotifyBodyError) res.status(error.httpStatus).json({ message: error.message });
      else throw error;
    }
  });
  app.post('/notify16k', async (req, res) => {
    try {
      res.json({ fields: await readNotifyFields(toRequest(req), 16 * 1024) });
    } catch (error) {
      if (error instanceof NotifyBodyError) res.status(error.httpStatus).json({ message: error.message });
      else throw error;
    }
  });
  app.post('/json', async (req, res) => {
    try {
      res.json({ body: await readJsonBody(toRequest(req), LIMIT) });
    } catch (error) {
      if (error instanceof PayButtonError) res.status(error.httpStatus).json({ message: error.message });
      else throw error;
    }
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function post(path: string, body: Buffer | string, headers: Record<string, string>) {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as { fields?: Record<string, string>; message?: string } };
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('POST /notify: Content-Encoding read liberally', () => {
  test('a character set named as the encoding reads as no encoding, in any spelling', async () => {
    const plain = await post('/notify', FORM, form);
    assert.deepEqual(plain, { status: 200, body: { fields: FIELDS } });
    for (const name of ['UTF-8', 'utf-8', 'utf8', 'Utf-8', 'UTF8', 'identity']) {
      assert.deepEqual(await post('/notify', FORM, { ...form, 'content-encoding': name }), plain, name);
    }
  });

  test('gzip and deflate bodies are inflated', async () => {
    assert.deepEqual((await post('/notify', gzipSync(FORM), { ...form, 'content-encoding': 'gzip' })).body.fields, FIELDS);
    assert.deepEqual((await post('/notify', deflateSync(FORM), { ...form, 'content-encoding': 'Deflate' })).body.fields, FIELDS);
  });

  test('the limit counts inflated bytes: a small gzip of a large body is 413', async () => {
    const bomb = gzipSync(`${FORM}&pad=${'a'.repeat(LIMIT * 50)}`);
    assert.ok(bomb.length < LIMIT, 'the compressed body alone is under the limit');
    const answer = await post('/notify', bomb, { ...form, 'content-encoding': 'gzip' });
    assert.equal(answer.status, 413);
    assert.match(answer.body.message!, new RegExp(`larger than ${LIMIT} bytes`));
  });

  test('a small body that inflates far (within the limit) is 413 before it is decoded; a real one that compresses well passes', async () => {
    // 16 KB of Latin-1 in about a hundred bytes: the work a stranger could ask for with a tiny gzip.
    const bomb = gzipSync(Buffer.concat([Buffer.from(`${FORM}&pad=`), Buffer.alloc(15 * 1024, 0xe9)]), { level: 9 });
    assert.ok(bomb.length < 200, `${bomb.length} bytes`);
    const answer = await post('/notify16k', bomb, { ...form, 'content-encoding': 'gzip' });
    assert.equal(answer.status, 413);
    assert.match(answer.body.message!, /inflates to more than 32 times its compressed size/);
    // A 12 KB notification of ordinary text, compressed as gzip does it, is read.
    const words = Array.from({ length: 1_500 }, (_, i) => `kopi${(i * 7919) % 1000}`).join(' ');
    const large = { ...FIELDS, note: words.slice(0, 12 * 1024) };
    const body = gzipSync(new URLSearchParams(large).toString());
    const read = await post('/notify16k', body, { ...form, 'content-encoding': 'gzip' });
    assert.equal(read.status, 200, JSON.stringify(read.body).slice(0, 200));
    assert.deepEqual(read.body.fields, large);
  });

  test('any other encoding is 415 naming the header; a body that does not inflate is 400', async () => {
    for (const name of ['br', 'compress', 'latin1', 'gzip, deflate', 'UTF-16']) {
      const answer = await post('/notify', FORM, { ...form, 'content-encoding': name });
      assert.equal(answer.status, 415, name);
      // A fixed message: it names the header and repeats nothing of the request.
      assert.equal(answer.body.message, UNSUPPORTED_CONTENT_ENCODING, name);
    }
    const broken = await post('/notify', Buffer.from('not gzip at all'), { ...form, 'content-encoding': 'gzip' });
    assert.equal(broken.status, 400);
    assert.match(broken.body.message!, /does not inflate/);
  });
});

describe('browser routes stay identity-only', () => {
  test('a gzip JSON body is 415; a UTF-8 name as the encoding too', async () => {
    const gzip = await post('/json', gzipSync('{"item":"kopi"}'), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.deepEqual([gzip.status, gzip.body.message], [415, 'Content-Encoding: is not accepted; send the body uncompressed.']);
    const named = await post('/json', '{"item":"kopi"}', { 'content-type': 'application/json', 'content-encoding': 'UTF-8' });
    assert.equal(named.status, 415);
    const plain = await post('/json', '{"item":"kopi"}', { 'content-type': 'application/json' });
    assert.deepEqual(plain, { status: 200, body: { body: { item: 'kopi' } } });
  });
});
