import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatDateTime, formatRupiah, parseDateTime, parseRupiah, toRupiahString } from '../src/formats.ts';

describe('dateTime (Asia/Jakarta, UTC+7)', () => {
  it('formats an instant in Jakarta time', () => {
    assert.equal(formatDateTime(Date.UTC(2026, 10, 22, 7, 30, 0)), '20261122143000');
    assert.equal(formatDateTime(new Date(Date.UTC(2026, 11, 31, 17, 0, 1))), '20270101000001');
  });
  it('parses back to the same instant', () => {
    assert.equal(parseDateTime('20261122143000')?.toISOString(), '2026-11-22T07:30:00.000Z');
  });
  it('refuses shapes and dates that are not real', () => {
    for (const bad of ['2026112214300', '202611221430000', '2026-11-22 14:30', '20260230120000', '20261122250000', '19691231235959', '２０２６１１２２１４３０００']) {
      assert.equal(parseDateTime(bad), undefined, bad);
    }
    assert.ok(parseDateTime('20280229000000'));
  });
  it('round-trips every second-aligned instant', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 4_102_444_800 }), (seconds) => {
      return parseDateTime(formatDateTime(seconds * 1000))?.getTime() === seconds * 1000;
    }));
  });
  it('defaults to now', () => {
    const now = formatDateTime();
    assert.ok(Math.abs(parseDateTime(now)!.getTime() - Date.now()) < 2000);
  });
});

describe('rupiah', () => {
  it('parses whole positive amounts only', () => {
    assert.equal(parseRupiah('150000'), 150000);
    for (const bad of ['0', '', '-1', '1.5', '01', '1e3', ' 1', '1 000', '1.000', '9999999999999']) assert.equal(parseRupiah(bad), undefined, bad);
  });
  it('displays as Indonesians write it', () => {
    assert.equal(formatRupiah(150000), 'Rp 150.000');
    assert.equal(formatRupiah('4000'), 'Rp 4.000');
    assert.equal(formatRupiah(999), 'Rp 999');
    assert.equal(formatRupiah(1234567890), 'Rp 1.234.567.890');
    assert.equal(formatRupiah(0), 'Rp 0');
    assert.throws(() => formatRupiah(1.5), RangeError);
  });
  it('writes integers back to the wire', () => {
    assert.equal(toRupiahString(150000), '150000');
    assert.throws(() => toRupiahString(1.5), RangeError);
    assert.throws(() => toRupiahString(-1), RangeError);
  });
});
