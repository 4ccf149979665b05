/**
 * `interpretQuery`: what one `/gateway/query` result says about the order we hold. The table is
 * the mismatch policy, written once: only a verified answer about this very order (orderNum,
 * platOrderNum when we know it, payMoney) is ever applied.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { QuerySuccess } from '@tombolbayar/protocol';
import { PayButtonError } from '../src/errors.ts';
import type { CallResult } from '../src/gateway/client.ts';
import { finalStatusOf, interpretQuery, type Confirmation, type ExpectedOrder } from '../src/orders/confirm.ts';

const held: ExpectedOrder = { orderNum: 'PBORDER0000000001', payMoney: '150000', platOrderNum: 'PLAT000000000000000000001' };
const creating: ExpectedOrder = { ...held, platOrderNum: null };

function answer(overrides: Partial<QuerySuccess> = {}): CallResult<QuerySuccess> {
  return {
    ok: true,
    value: {
      platRespCode: 'SUCCESS', platRespMessage: 'Request Transaction Success', platSign: 'x',
      platOrderNum: held.platOrderNum!, orderNum: held.orderNum, status: 'PAID', method: 'VA_BCA', name: 'Budi', email: 'budi@example.com',
      payMoney: '150000', payFee: '4000', productDetail: 'Kopi', vaNumber: '39010123', createTime: '20261123100000', expireTime: '20261123110000', paidTime: '20261123103000',
      ...overrides,
    } as QuerySuccess,
  };
}

function failure(outcome: Extract<CallResult<QuerySuccess>, { ok: false }>['outcome']): CallResult<QuerySuccess> {
  return { ok: false, outcome, error: new PayButtonError('gateway_unavailable', 'the gateway could not be reached') };
}

const kindOf = (confirmation: Confirmation): string =>
  confirmation.kind === 'undetermined' ? `undetermined:${confirmation.reason}` : confirmation.kind === 'confirmed' ? `confirmed:${confirmation.status}` : confirmation.kind;

describe('interpretQuery', () => {
  const table: Array<[string, ExpectedOrder, CallResult<QuerySuccess>, string]> = [
    ['a verified PAID about this order', held, answer(), 'confirmed:PAID'],
    ['still PENDING', held, answer({ status: 'PENDING', paidTime: undefined }), 'confirmed:PENDING'],
    ['EXPIRED', held, answer({ status: 'EXPIRED', paidTime: undefined }), 'confirmed:EXPIRED'],
    ['an order still creating adopts the gateway\'s platOrderNum', creating, answer(), 'confirmed:PAID'],
    ['another amount: never applied', held, answer({ payMoney: '1500' }), 'undetermined:mismatch'],
    ['another platOrderNum than the one stored', held, answer({ platOrderNum: 'PLATOTHER00000000000000001' }), 'undetermined:mismatch'],
    ['an answer about another order', held, answer({ orderNum: 'PBOTHER' }), 'undetermined:mismatch'],
    ['signed NOTEXIST', held, failure({ kind: 'result', code: 'NOTEXIST' }), 'not_found'],
    ['UNKNOWN', held, failure({ kind: 'result', code: 'UNKNOWN' }), 'undetermined:unreachable'],
    ['a timeout', held, failure({ kind: 'timeout', maybeReceived: true }), 'undetermined:unreachable'],
    ['a network error', held, failure({ kind: 'network', maybeReceived: false }), 'undetermined:unreachable'],
    ['an answer that does not verify', held, failure({ kind: 'invalid_response' }), 'undetermined:unreachable'],
    ['HTTP 503', held, failure({ kind: 'http', status: 503, retryAfterMs: 2_000 }), 'undetermined:unreachable'],
  ];
  for (const [name, expected, result, outcome] of table) {
    test(name, () => assert.equal(kindOf(interpretQuery(expected, result)), outcome));
  }

  test('confirmed facts come from the answer, dates parsed', () => {
    const confirmation = interpretQuery(creating, answer());
    assert.equal(confirmation.kind, 'confirmed');
    if (confirmation.kind !== 'confirmed') return;
    assert.equal(confirmation.facts.platOrderNum, held.platOrderNum);
    assert.equal(confirmation.facts.vaNumber, '39010123');
    assert.ok(confirmation.facts.paidAt instanceof Date);
    assert.ok(confirmation.facts.expiresAt instanceof Date);
  });

  test('Retry-After is passed on', () => {
    const confirmation = interpretQuery(held, failure({ kind: 'http', status: 503, retryAfterMs: 2_000 }));
    assert.equal(confirmation.kind === 'undetermined' ? confirmation.retryAfterMs : undefined, 2_000);
  });

  test('gateway states map to order states once', () => {
    assert.deepEqual(['PENDING', 'PAID', 'EXPIRED', 'FAILED'].map((status) => finalStatusOf(status as QuerySuccess['status'])), [undefined, 'paid', 'expired', 'failed']);
  });
});
