/**
 * What the terminal says for a refused origin (`originAdvice`): the option to change and the exact
 * value, decided by where the refused page is, table-tested.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originAdvice } from '../src/http/guards.ts';

const cases: Array<{ name: string; refused: string; reachedAt: string; publicUrl: string; allowed: string[]; says: RegExp }> = [
  {
    name: 'a moved PORT: the page is on the host this server was reached at, so publicUrl is wrong',
    refused: 'http://localhost:4000', reachedAt: 'http://localhost:4000/pay/links', publicUrl: 'http://localhost:3000', allowed: ['http://localhost:3000'],
    says: /This server was reached at http:\/\/localhost:4000 but publicUrl is http:\/\/localhost:3000: if that page is the shop's, set publicUrl: 'http:\/\/localhost:4000' \(PUBLIC_URL in the examples\)/,
  },
  {
    name: 'behind an https proxy with an http publicUrl: the same host, so publicUrl',
    refused: 'https://shop.example', reachedAt: 'http://shop.example/pay/links', publicUrl: 'http://shop.example', allowed: ['http://shop.example'],
    says: /set publicUrl: 'https:\/\/shop\.example'/,
  },
  {
    name: 'www beside the bare domain: allowedOrigins, keeping the ones already there',
    refused: 'https://www.shop.example', reachedAt: 'https://shop.example/pay/links', publicUrl: 'https://shop.example', allowed: ['https://shop.example', 'https://checkout.shop.example'],
    says: /If pages on https:\/\/www\.shop\.example are the shop's, add it: allowedOrigins: \['https:\/\/checkout\.shop\.example', 'https:\/\/www\.shop\.example'\]/,
  },
  {
    name: 'a front end on another port of the same machine: allowedOrigins',
    refused: 'http://localhost:5173', reachedAt: 'http://localhost:3000/pay/links', publicUrl: 'http://localhost:3000', allowed: ['http://localhost:3000'],
    says: /add it: allowedOrigins: \['http:\/\/localhost:5173'\]/,
  },
];

for (const c of cases) {
  test(`originAdvice: ${c.name}`, () => {
    const line = originAdvice(c.refused, c.reachedAt, new URL(c.publicUrl), c.allowed);
    assert.match(line, c.says);
    assert.match(line, new RegExp(`^refused a request from a page on ${c.refused.replace(/[.:/]/g, '\\$&')}: allowed origins are ${c.allowed.join(', ').replace(/[.:/]/g, '\\$&')}\\.`));
    assert.match(line, /If not, ignore this: any site can send such a request\.$/);
  });
}
