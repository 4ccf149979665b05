/**
 * What the browser is told when `quote()` throws: `NotForSaleError` is the typed way (422 with its
 * message); an error with a 4xx `status`/`statusCode`, as `http-errors` makes them, keeps its
 * status and shows its message only when `expose` is true; anything else is a 500 saying nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NotForSaleError } from '../src/adapters/express.ts';
import { quoteHttpRefusal } from '../src/quote.ts';
import { startHarness, type Harness } from './support/harness.ts';

/** An error shaped as `http-errors` builds it: `status`, `statusCode`, and `expose` true below 500. */
function httpError(status: number, message: string, expose = status < 500): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose });
}

describe('quoteHttpRefusal', () => {
  const cases: Array<[string, unknown, ReturnType<typeof quoteHttpRefusal>]> = [
    ['http-errors 403, exposed', httpError(403, 'Members only'), { status: 403, message: 'Members only' }],
    ['statusCode alone', Object.assign(new Error('Sold out'), { statusCode: 409, expose: true }), { status: 409, message: 'Sold out' }],
    ['4xx without expose: the status text only', Object.assign(new Error('user 42 banned in table acl_rules'), { status: 403 }), { status: 403, message: 'Forbidden' }],
    ['expose false: the status text only', httpError(401, 'token abc expired', false), { status: 401, message: 'Unauthorized' }],
    ['an empty exposed message: the status text', httpError(404, ' '), { status: 404, message: 'Not Found' }],
    ['5xx stays a failure', httpError(503, 'db down'), undefined],
    ['3xx is not a refusal', httpError(302, 'moved'), undefined],
    ['a status as a string is not the convention', Object.assign(new Error('x'), { status: '400', expose: true }), undefined],
    ['a fractional status', Object.assign(new Error('x'), { status: 400.5, expose: true }), undefined],
    ['a plain Error', new Error('boom'), undefined],
    ['a thrown string', 'nope', undefined],
    ['null', null, undefined],
  ];
  for (const [name, thrown, expected] of cases) {
    test(name, () => assert.deepEqual(quoteHttpRefusal(thrown), expected));
  }

  test('a long exposed message is cut at 500 characters', () => {
    assert.equal(quoteHttpRefusal(httpError(400, 'x'.repeat(2_000)))!.message.length, 500);
  });
});

describe('POST /links when quote() throws', () => {
  let shop: Harness;
  const thrown: Record<string, unknown> = {
    members: httpError(403, 'Sign in to buy this item.'),
    secret: Object.assign(new Error('SELECT * FROM prices failed for tenant 7'), { status: 400 }),
    limited: httpError(429, 'Too many carts, wait a minute.'),
    broken: httpError(503, 'pricing service down'),
    bug: new TypeError("Cannot read properties of undefined (reading 'price')"),
    gone: new NotForSaleError('This ticket is sold out.'),
  };
  before(async () => {
    shop = await startHarness({
      options: {
        quote: (_req, body) => {
          throw thrown[String(body.item)];
        },
      },
    });
  });
  after(async () => {
    await shop.close();
  });

  const expectations: Array<[string, number, { code: string; message: string; retryable: boolean }]> = [
    ['members', 403, { code: 'quote_refused', message: 'Sign in to buy this item.', retryable: false }],
    ['secret', 400, { code: 'quote_refused', message: 'Bad Request', retryable: false }],
    ['limited', 429, { code: 'quote_refused', message: 'Too many carts, wait a minute.', retryable: true }],
    ['broken', 500, { code: 'quote_failed', message: 'The order could not be priced. Please try again later.', retryable: false }],
    ['bug', 500, { code: 'quote_failed', message: 'The order could not be priced. Please try again later.', retryable: false }],
    ['gone', 422, { code: 'not_for_sale', message: 'This ticket is sold out.', retryable: false }],
  ];
  for (const [item, status, error] of expectations) {
    test(`${item}: ${status} ${error.code}`, async () => {
      const answer = await shop.createLink({ item });
      assert.equal(answer.status, status, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { error });
    });
  }

  test('no order is stored for a refused quote', async () => {
    const answer = await shop.createLink({ item: 'members' });
    assert.equal(answer.status, 403);
    assert.equal(shop.eventsNamed('order.transition').length, 0);
  });
});
