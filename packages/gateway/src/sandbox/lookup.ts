/**
 * Finding orders by the number a person has at hand (the sandbox dashboard's search, its "pay by
 * number", and the CLI's `pay|expire|fail NUMBER`): the platform number, the merchant's orderNum
 * or the VA number / payment code. Expiry is applied to what is found, as on every read.
 */
import { z } from 'zod';
import type { DomainContext } from '../domain/context.ts';
import { readOrder } from '../domain/transitions.ts';
import type { Order } from '../domain/types.ts';
import { findOrdersByAnyNumber, listRecentOrders } from '../store/orders.ts';
import { rule } from './input.ts';

export const MAX_LOOKUP_TERM = 64;
const NUMBER_RULE = `must be 1 to ${MAX_LOOKUP_TERM} printable characters`;

/** A number to look up: trimmed, printable ASCII (every number the gateway issues or stores is). */
export const lookupTermField = z
  .string({ error: rule(NUMBER_RULE) })
  .transform((value) => value.trim())
  .pipe(z.string().regex(new RegExp(`^[\\x21-\\x7e]{1,${MAX_LOOKUP_TERM}}$`), { error: NUMBER_RULE }));

export const lookupQuerySchema = z.strictObject({ number: lookupTermField });

/** How many orders a lookup or the recent list answers at most. */
export const LOOKUP_LIMIT = 50;

async function withExpiry(context: DomainContext, orders: readonly Order[]): Promise<Order[]> {
  const read = await Promise.all(orders.map((order) => readOrder(context, order.platOrderNum)));
  return read.filter((order): order is Order => order !== undefined);
}

/** Every order `term` names, newest first. */
export async function findOrdersByNumber(context: DomainContext, term: string): Promise<Order[]> {
  return withExpiry(context, await findOrdersByAnyNumber(context.database.db, term, LOOKUP_LIMIT));
}

/** The orders whose VA number or payment code is `number` (unique by the schema: zero or one). */
export async function findOrderByPaymentNumber(context: DomainContext, number: string): Promise<Order | undefined> {
  return (await findOrdersByNumber(context, number)).find((order) => order.vaNumber === number);
}

export async function recentOrders(context: DomainContext): Promise<Order[]> {
  return withExpiry(context, await listRecentOrders(context.database.db, LOOKUP_LIMIT));
}
