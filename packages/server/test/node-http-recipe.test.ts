/**
 * The README's `node:http` recipe, run as a merchant would copy it (issue 31): taken word for word
 * from the README, with one `await` of the merchant's own before the plug-in sees the request (a
 * session lookup), which is what let a cancelled body crash a recipe that built a Web `Request`
 * itself (`ERR_INVALID_STATE`). Oversized bodies
 * to `/notify` and `/links`, and a client that goes away mid-body, are refused; the server stays
 * up and keeps answering.
 *
 * Runs the built package (`npm run build`), as an installed one would be.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { waitFor } from './support/harness.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './support/keys.ts';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The recipe as the README shows it. */
function recipe(): string {
  const readme = readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8');
  const start = readme.indexOf('With plain `node:http`, the plug-in and a store driver');
  assert.ok(start > 0, 'the README has the node:http recipe');
  const code = readme.slice(start).match(/```js\n([\s\S]*?)```/);
  assert.ok(code, 'the recipe is a js block');
  return code[1]!;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A request whose body is `size` bytes, or one that stops after `size` and is left hanging up. */
function rawPost(port: number, path: string, size: number, headers: Record<string, string>, hangUpAfter?: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => {});
    const head = Object.entries({ host: `127.0.0.1:${port}`, 'content-length': String(size), ...headers }).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}connection: close\r\n\r\n`);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < (hangUpAfter ?? size)) {
        const piece = chunk.subarray(0, Math.min(chunk.length, (hangUpAfter ?? size) - sent));
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
      if (hangUpAfter !== undefined) socket.destroy();
    };
    pump();
  });
}

describe("the README's node:http recipe, with an await before the plug-in", () => {
  let dir: string;
  let child: ChildProcess;
  let output = '';
  let port: number;

  before(async () => {
    const source = `const sessionLookup = () => new Promise((resolve) => setImmediate(resolve)); // the merchant's own await: the body arrives meanwhile\n${recipe().replace(
      '(req, res) => payRoutes(req, res,',
      'async (req, res) => (await sessionLookup(), payRoutes)(req, res,',
    )}`;
    assert.match(source, /await sessionLookup\(\), payRoutes/, 'the await went in before the plug-in');
    // Inside the package, so `@tombolbayar/server` resolves as an installed package would.
    dir = mkdtempSync(join(PACKAGE_DIR, '.recipe-'));
    writeFileSync(join(dir, 'server.mjs'), source);
    port = await freePort();
    child = spawn(process.execPath, ['server.mjs'], {
      cwd: dir,
      env: {
        ...process.env, PORT: String(port), MERCHANT_CODE, MERCHANT_PRIVATE_KEY: merchantKeys().privateKey, PLATFORM_PUBLIC_KEY: platformKeys().publicKey,
        GATEWAY_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes(`shop on http://127.0.0.1:${port}`) || child.exitCode !== null, 'the recipe listening', 30_000);
    assert.equal(child.exitCode, null, output);
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses oversized and abandoned bodies and stays up', async () => {
    const notify = await rawPost(port, '/pay/notify', 4 * 1024 * 1024, { 'content-type': 'application/x-www-form-urlencoded' });
    assert.match(notify, /^HTTP\/1\.1 413/, notify.slice(0, 200));
    const links = await rawPost(port, '/pay/links', 4 * 1024 * 1024, { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` });
    assert.match(links, /^HTTP\/1\.1 413/, links.slice(0, 200));
    // Chunked, with no length to refuse up front: cut off by the limit while it streams. The server
    // answers 413 and closes with the rest of the body unread, which makes the kernel reset the
    // connection; on a busy machine that reset can reach the client before it read the 413. Either
    // way the body was refused part way: the client could not send it all.
    const chunked = await new Promise<{ status: number; reset: boolean; sentAll: boolean }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      let reset = false;
      let sentAll = false;
      socket.on('data', (data) => (answer += data.toString()));
      socket.on('close', () => resolve({ status: Number(answer.split(' ')[1]), reset, sentAll }));
      socket.on('error', (error: NodeJS.ErrnoException) => (reset = error.code === 'ECONNRESET' || error.code === 'EPIPE'));
      socket.write(`POST /pay/notify HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\ncontent-type: application/x-www-form-urlencoded\r\nconnection: close\r\n\r\n`);
      const piece = `4000\r\n${'a'.repeat(0x4000)}\r\n`;
      let rounds = 0;
      const pump = (): void => {
        // A client that reads answers as they come stops sending once refused.
        while (rounds < 256 && !socket.destroyed && answer === '') {
          rounds += 1;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
        if (!socket.destroyed && answer === '') {
          sentAll = true;
          socket.end('0\r\n\r\n');
        }
      };
      pump();
    });
    assert.ok(chunked.status === 413 || (Number.isNaN(chunked.status) && chunked.reset), JSON.stringify(chunked));
    assert.equal(chunked.sentAll && chunked.status !== 413, false, 'the 4 MB body was not taken whole');
    // A client that hangs up halfway through its body.
    await rawPost(port, '/pay/notify', 64 * 1024, { 'content-type': 'application/x-www-form-urlencoded' }, 8 * 1024);

    // A body within the limit is read whole: a notification with a bad signature is refused as such.
    const forged = await fetch(`http://127.0.0.1:${port}/pay/notify`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderNum: 'PB1', platOrderNum: 'P1', payMoney: '1000', code: '00', status: 'SUCCESS', platSign: 'AAAA' }),
    });
    assert.equal(forged.status, 401, await forged.text());

    const script = await fetch(`http://127.0.0.1:${port}/pay/pay-button.js`);
    assert.equal(script.status, 200);
    await script.arrayBuffer();
    assert.equal(child.exitCode, null, `the process is still up\n${output}`);
    assert.doesNotMatch(output, /ERR_INVALID_STATE|Uncaught|TypeError/, output);
  });
});
