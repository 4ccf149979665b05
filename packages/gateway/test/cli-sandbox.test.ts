/**
 * The CLI's sandbox verbs against a real sandbox process, as a developer runs them in a second
 * terminal: `pay|expire|fail NUMBER`, `deliveries [--follow]`, `resend ID`; their errors (nothing
 * running, not a sandbox, unknown order or notification, usage); and pretty logs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { main } from '../src/cli.ts';
import { merchantClient } from './support/client.ts';
import { cliArgs, runCli, startGatewayProcess, type GatewayProcess } from './support/cli-process.ts';
import { tempDir } from './support/engines.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';
import { freePort } from '@tombolbayar/test-support/network';

const CODE = 'M-CLI-0001';

describe('sandbox verbs of the CLI', () => {
  let dir: string;
  let gateway: GatewayProcess;
  let receiver: Receiver;
  let client: ReturnType<typeof merchantClient>;
  const cli = (...args: string[]) => runCli([...args, '--url', gateway.url]);
  const createVa = async () => (await client.createVa({ notifyUrl: receiver.url })).body as Record<string, string>;
  const statusOf = async (platOrderNum: string) =>
    ((await (await fetch(`${gateway.url}/sandbox/orders/${platOrderNum}`)).json()) as { order: { status: string } }).order.status;

  before(async () => {
    dir = tempDir('gw-cli-sandbox-');
    const created = await main(['merchant', 'create', CODE, '--data', dir], { out: () => {}, err: () => {}, env: {} });
    assert.equal(created, 0);
    receiver = await startReceiver();
    gateway = await startGatewayProcess(['--sandbox', '--data', dir, '--time-scale', '0.001']);
    client = merchantClient(gateway.url, { merchantCode: CODE, privateKey: readFileSync(join(dir, 'merchants', `${CODE}-private.pem`), 'utf8') });
  });
  after(async () => {
    await gateway?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('pay by VA number, expire by orderNum, fail by platOrderNum; a second pay is refused', async () => {
    const paid = await createVa();
    const answer = await cli('pay', paid.vaNumber!);
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, new RegExp(`Order ${paid.orderNum} \\(platOrderNum ${paid.platOrderNum}, ${CODE}, VA_BCA ${paid.vaNumber}\\) is now PAID`));
    assert.ok(answer.stdout.includes(`${gateway.url}/sandbox/dashboard/orders/${paid.platOrderNum}`));
    assert.equal(await statusOf(paid.platOrderNum!), 'PAID');

    const expired = await createVa();
    assert.equal((await cli('expire', expired.orderNum!)).code, 0);
    assert.equal(await statusOf(expired.platOrderNum!), 'EXPIRED');
    const failed = await createVa();
    assert.equal((await cli('fail', failed.platOrderNum!)).code, 0);
    assert.equal(await statusOf(failed.platOrderNum!), 'FAILED');

    const again = await cli('pay', paid.orderNum!);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /tombolbayar-gateway: the order is PAID, not PENDING/);
    const unknown = await cli('pay', 'NO-SUCH-ORDER');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no order has the number NO-SUCH-ORDER \(tried orderNum, platOrderNum and VA number\)/);
  });

  test('pay --method chooses the method of a link that has none', async () => {
    const link = (await client.createLink()).body as Record<string, string>;
    const refused = await cli('pay', link.platOrderNum!);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /method: the order has no payment method yet/);
    const badMethod = await cli('pay', link.platOrderNum!, '--method', 'BITCOIN');
    assert.equal(badMethod.code, 1);
    assert.match(badMethod.stderr, /method: must be null or one of VA_BCA/);
    const paid = await cli('pay', link.platOrderNum!, '--method', 'QRIS');
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, /QRIS .* is now PAID/);
  });

  test('deliveries lists notifications with their attempts; resend sends one again', async () => {
    const order = await createVa();
    assert.equal((await cli('pay', order.orderNum!)).code, 0);
    const listed = await eventually(async () => {
      const answer = await cli('deliveries');
      return answer.stdout.includes(`PAID ${order.orderNum}`) && /attempt 1: HTTP 200, acknowledged/.test(answer.stdout) ? answer : undefined;
    }, 30_000, 'the delivery and its attempt listed');
    assert.equal(listed.code, 0);
    const id = new RegExp(`  (\\S+)  PAID ${order.orderNum}`).exec(listed.stdout)?.[1];
    assert.ok(id, listed.stdout);
    const resent = await cli('resend', id);
    assert.equal(resent.code, 0, resent.stderr);
    assert.match(resent.stdout, new RegExp(`Notification ${id} \\(PAID ${order.orderNum}\\) is queued again for ${receiver.url}`));
    await eventually(async () => ((await cli('deliveries')).stdout.includes(`${id}  attempt 2: HTTP 200`) ? true : undefined), 30_000, 'the second attempt');
    const unknown = await cli('resend', 'no-such-id');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no notification has the id no-such-id/);
  });

  test('deliveries --follow prints new notifications and attempts as they happen, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, cliArgs(['deliveries', '--follow', '--url', gateway.url]), { stdio: 'pipe', env: { ...process.env, DATABASE_URL: '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await eventually(async () => (output.includes('Following new notifications') ? true : undefined), 30_000, 'follow to start');
      const order = await createVa();
      assert.equal((await cli('pay', order.vaNumber!)).code, 0);
      await eventually(async () => (new RegExp(`PAID ${order.orderNum}[^\\n]*\\n[^\\n]*attempt 1: HTTP 200, acknowledged`).test(output) ? true : undefined), 30_000, `the new attempt in:\n${output}`);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });

  test('clear errors: nothing running, usage', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const down = await runCli(['pay', '123', '--url', url]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`no gateway answers at ${url}; start one with: tombolbayar-gateway --sandbox`));
    for (const [args, message] of [
      [['pay'], /pay needs an order/],
      [['resend'], /resend needs a notification id/],
      [['expire', 'X', '--method', 'QRIS'], /--method is for pay only/],
      [['deliveries', 'extra'], /unexpected argument "extra"/],
      [['pay', 'X', '--url', 'ftp://x'], /--url must be an absolute http or https URL/],
    ] as const) {
      const answer = await runCli(args);
      assert.equal(answer.code, 2, args.join(' '));
      assert.match(answer.stderr, message);
    }
    const help = await runCli(['--help']);
    for (const word of ['pay NUMBER', 'expire NUMBER', 'fail NUMBER', 'deliveries [--follow]', 'resend ID', '--url URL', '--log-format']) assert.ok(help.stdout.includes(word), word);
  });
});

test('a gateway that is not a sandbox says so; pretty logs read as lines', async () => {
  const dir = tempDir('gw-cli-prod-');
  const production = await startGatewayProcess(['--data', dir, '--log-level', 'info', '--log-format', 'pretty']);
  try {
    const answer = await runCli(['deliveries', '--url', production.url]);
    assert.equal(answer.code, 1);
    assert.match(answer.stderr, new RegExp(`the gateway at ${production.url} is not in sandbox mode; start it with --sandbox`));
    await eventually(async () => (/\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway listening\n\s+url: "http/.test(production.output()) ? true : undefined), 10_000, 'a pretty line');
    assert.doesNotMatch(production.output(), /"level":30/);
  } finally {
    await production.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
