/**
 * The order lifecycle as data: every state an order can be in, every move it can make, what
 * makes it move, and what each move emits and starts. `lifecycle.ts` is the only code that
 * writes an order's state, and it asks this table before every compare-and-set; the README prints
 * the table (`transitionTableMarkdown()`), and a test keeps the two the same.
 *
 * Pure: no store, no events. Table-tested in `test/transitions.test.ts`.
 */
import type { OrderStatus } from '../store/schema.ts';

/** A final state the gateway can confirm. */
export type FinalStatus = 'paid' | 'expired' | 'failed';

/** What the router learnt that moves an order. */
export type Cause =
  /** The order was stored, before the gateway is called (so a notification never finds it missing). */
  | 'stored'
  /** The gateway accepted the create, or a query after an uncertain create found it. */
  | 'registered'
  /** The gateway certainly did not take the order: it refused it, or said NOTEXIST after the create window. */
  | 'refused'
  /** The gateway, asked by the router itself, confirmed this final state. */
  | 'confirmed';

export interface Transition {
  readonly from: OrderStatus | null;
  readonly to: OrderStatus;
  readonly cause: Cause;
  /** Every move emits `order.transition`; a move to `paid` also starts `onPaid`. */
  readonly startsOnPaid: boolean;
}

const move = (from: OrderStatus | null, to: OrderStatus, cause: Cause): Transition => ({ from, to, cause, startsOnPaid: to === 'paid' });

/**
 * Every allowed move. Paid wins over expired and failed (money that arrived is never refused);
 * nothing leaves `paid`; `pending` is never re-entered.
 */
export const TRANSITIONS: readonly Transition[] = [
  move(null, 'creating', 'stored'),
  move('creating', 'pending', 'registered'),
  move('creating', 'failed', 'refused'),
  move('creating', 'paid', 'confirmed'),
  move('creating', 'expired', 'confirmed'),
  move('creating', 'failed', 'confirmed'),
  move('pending', 'paid', 'confirmed'),
  move('pending', 'expired', 'confirmed'),
  move('pending', 'failed', 'confirmed'),
  move('expired', 'paid', 'confirmed'),
  move('failed', 'paid', 'confirmed'),
];

/** The move, if the table allows it. */
export function findTransition(from: OrderStatus | null, to: OrderStatus, cause: Cause): Transition | undefined {
  return TRANSITIONS.find((transition) => transition.from === from && transition.to === to && transition.cause === cause);
}

/** The states `cause` may move an order out of to reach `to`: the WHERE of the compare-and-set. */
export function allowedFrom(to: OrderStatus, cause: Cause): readonly OrderStatus[] {
  const from: OrderStatus[] = [];
  for (const transition of TRANSITIONS) {
    if (transition.to === to && transition.cause === cause && transition.from !== null) from.push(transition.from);
  }
  return from;
}

/** States no move leaves. */
export function isTerminal(status: OrderStatus): boolean {
  return !TRANSITIONS.some((transition) => transition.from === status);
}

/** States in which the customer may still pay the order: at most one per purchase. */
export const PAYABLE_STATES: readonly OrderStatus[] = ['creating', 'pending'];

const CAUSE_TEXT: Record<Cause, string> = {
  stored: 'stored, before the gateway is called',
  registered: 'the gateway accepted the create (or a query found it)',
  refused: 'the gateway certainly did not take it',
  confirmed: "the gateway's signed answer to our own query",
};

/** The table as the README prints it. */
export function transitionTableMarkdown(): string {
  const rows = TRANSITIONS.map((transition) => {
    const from = transition.from === null ? '(new)' : `\`${transition.from}\``;
    const then = transition.startsOnPaid ? '`order.transition`, then `onPaid`' : '`order.transition`';
    return `| ${from} | \`${transition.to}\` | ${CAUSE_TEXT[transition.cause]} | ${then} |`;
  });
  return ['| From | To | When | Emits, starts |', '|---|---|---|---|', ...rows].join('\n');
}
