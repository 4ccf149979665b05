import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLoopbackAddress, metricsAccess, METRICS_REFUSALS, type MetricsRequestFacts } from '../src/index.ts';

describe('metricsAccess: who may read the metrics', () => {
  const withToken = metricsAccess('s3cret-token');
  const withoutToken = metricsAccess(undefined);
  const request = (facts: Partial<MetricsRequestFacts>): MetricsRequestFacts => ({ authorization: null, forwarded: false, peerAddress: '127.0.0.1', ...facts });
  const table: Array<[string, ReturnType<typeof metricsAccess>, Partial<MetricsRequestFacts>, string | undefined]> = [
    ['loopback, nothing forwarded', withoutToken, {}, undefined],
    ['IPv6 loopback', withoutToken, { peerAddress: '::1' }, undefined],
    ['IPv4-mapped loopback', withoutToken, { peerAddress: '::ffff:127.0.0.9' }, undefined],
    ['through a proxy on this host', withoutToken, { forwarded: true }, 'forwarded'],
    ['another machine', withoutToken, { peerAddress: '203.0.113.9' }, 'not_loopback'],
    ['a peer the runtime does not give', withoutToken, { peerAddress: undefined }, 'peer_unknown'],
    ['a token sent where none is configured', withoutToken, { authorization: 'Bearer x' }, 'no_token_configured'],
    ['the token, from anywhere, through a proxy', withToken, { authorization: 'Bearer s3cret-token', forwarded: true, peerAddress: '203.0.113.9' }, undefined],
    ['the token, any case of the scheme', withToken, { authorization: 'bearer s3cret-token', peerAddress: '203.0.113.9' }, undefined],
    ['a wrong token, even from loopback', withToken, { authorization: 'Bearer s3cret-tokem' }, 'wrong_token'],
    ['a prefix of the token', withToken, { authorization: 'Bearer s3cret' }, 'wrong_token'],
    ['another scheme', withToken, { authorization: 'Basic czNjcmV0LXRva2Vu' }, 'wrong_token'],
    ['an empty Authorization', withToken, { authorization: '' }, 'wrong_token'],
  ];
  for (const [name, rule, facts, expected] of table) test(name, () => assert.equal(rule(request(facts)), expected));

  test('no refusal message holds the token', () => {
    for (const message of Object.values(METRICS_REFUSALS)) assert.ok(!message.includes('s3cret'));
  });

  test('loopback addresses', () => {
    for (const address of ['127.0.0.1', '127.255.0.3', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopbackAddress(address), true, address);
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '128.0.0.1', '::2', '', undefined, '127.0.0.1.evil']) assert.equal(isLoopbackAddress(address), false, String(address));
  });
});
