import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCallbackUrl } from '../src/notify/delivery/index.ts';

const production = { production: true };
const sandbox = { production: false };

describe('checkCallbackUrl in production mode', () => {
  const accepted = [
    'https://shop.example.com/notify',
    'https://shop.example.com:8443/pay/notify?merchant=7#frag',
    'https://8.8.8.8/notify',
    'https://[2606:4700:4700::1111]/notify',
    'https://bücher.example/notify',
    'HTTPS://SHOP.EXAMPLE.COM/notify',
  ];
  for (const url of accepted) {
    it(`accepts ${url}`, () => assert.deepEqual(checkCallbackUrl(url, production), { ok: true }));
  }

  const refusedWith: ReadonlyArray<readonly [string, string]> = [
    ['/notify', 'must be an absolute URL'],
    ['shop.example.com/notify', 'must be an absolute URL'],
    ['', 'must be an absolute URL'],
    ['ftp://shop.example.com/notify', 'must use http or https'],
    ['javascript:alert(1)', 'must use http or https'],
    ['file:///etc/passwd', 'must use http or https'],
    ['http://shop.example.com/notify', 'must use https in production mode'],
    ['https://user:pass@shop.example.com/notify', 'must not contain a user name or password'],
    ['https://shop.example.com@127.0.0.1/', 'must not contain a user name or password'],
    ['https://127.0.0.1/', 'must not point to an address in the loopback range (127.0.0.1)'],
    ['https://169.254.169.254/latest/meta-data/', 'must not point to an address in the link-local range (169.254.169.254)'],
    ['https://localhost/notify', 'must not be the special-use host name localhost'],
    ['https://metadata.google.internal/', 'must not be a host name in the special-use domain internal'],
  ];
  for (const [url, reason] of refusedWith) {
    it(`refuses ${url || '(empty)'}: ${reason}`, () => assert.deepEqual(checkCallbackUrl(url, production), { ok: false, reason }));
  }

  // The SSRF corpus, as far as the URL alone can tell. Names that need DNS are caught at connect time.
  const corpus = [
    'https://127.0.0.1/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://0177.0.0.1/',
    'https://2130706433/',
    'https://127.0.0.1./',
    'https://%31%32%37.0.0.1/',
    'https://①②⑦.0.0.1/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://169.254.169.254/',
    'https://0.0.0.0/',
    'https://0/',
    'https://[::]/',
    'https://[::1]/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://100.64.0.1/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://example.com@127.0.0.1/',
    'https://127.0.0.1#@example.com',
    'https://127.0.0.1\\@example.com/',
    'https://127.0.0.1:443\\@example.com/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://foo.localhost/',
    'https://printer.local/',
    'https://metadata/',
  ];
  for (const url of corpus) {
    it(`refuses the SSRF form ${url}`, () => {
      const result = checkCallbackUrl(url, production);
      assert.equal(result.ok, false);
    });
  }
});

describe('checkCallbackUrl in sandbox mode', () => {
  for (const url of [
    'http://127.0.0.1:3000/notify',
    'http://localhost:4000/pay/notify',
    'http://[::1]:3000/notify',
    'http://10.0.0.5/notify',
    'https://shop.example.com/notify',
  ]) {
    it(`accepts ${url}`, () => assert.deepEqual(checkCallbackUrl(url, sandbox), { ok: true }));
  }
  for (const [url, reason] of [
    ['ftp://127.0.0.1/notify', 'must use http or https'],
    ['http://user@127.0.0.1:3000/notify', 'must not contain a user name or password'],
    ['notify', 'must be an absolute URL'],
  ] as const) {
    it(`still refuses ${url}`, () => assert.deepEqual(checkCallbackUrl(url, sandbox), { ok: false, reason }));
  }
});
