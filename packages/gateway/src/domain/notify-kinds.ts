/**
 * Which final states a merchant is notified of. The family notifies a paid order only, and
 * handlers written for it acknowledge nothing else (so a FAILED or EXPIRED notification would be
 * retried to its end and fill the delivery log with failures): `paid` alone is the default, and
 * `failed` and `expired` are sent only to a merchant that asked for them. `paid` is always in the
 * set: a merchant never told of its payments has nothing to settle an order on but polling.
 * Pure; the merchants table stores the set as JSON (`store/merchants.ts`).
 */
import type { FinalStatus } from './types.ts';

export const NOTIFICATION_KINDS = ['paid', 'failed', 'expired'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What a new merchant gets: what the family sends. */
export const DEFAULT_NOTIFICATION_KINDS: readonly NotificationKind[] = ['paid'];

const KIND_OF: Readonly<Record<FinalStatus, NotificationKind>> = { PAID: 'paid', FAILED: 'failed', EXPIRED: 'expired' };

/** The kind a notification of this final state is. */
export const kindOf = (event: FinalStatus): NotificationKind => KIND_OF[event];

export const NOTIFY_RULE = `must list paid and any of failed, expired (e.g. paid,failed,expired)`;

export type KindsParse = { readonly ok: true; readonly value: readonly NotificationKind[] } | { readonly ok: false; readonly message: string };

/**
 * A list as a person or a program gives it (`paid,failed` or `['paid', 'expired']`, any case,
 * spaces and repeats ignored) as the canonical set in `NOTIFICATION_KINDS` order; `message` names
 * the rule (echoing at most 20 letters of an unknown word).
 */
export function parseNotificationKinds(input: string | readonly unknown[]): KindsParse {
  const words = typeof input === 'string' ? input.split(',') : input;
  const chosen = new Set<NotificationKind>();
  for (const word of words) {
    if (typeof word !== 'string') return { ok: false, message: NOTIFY_RULE };
    const kind = word.trim().toLowerCase();
    if (kind === '') continue;
    if (!(NOTIFICATION_KINDS as readonly string[]).includes(kind)) return { ok: false, message: `${NOTIFY_RULE}; ${kind.slice(0, 20).replace(/[^a-z0-9_-]/g, '?')} is not one` };
    chosen.add(kind as NotificationKind);
  }
  if (!chosen.has('paid')) return { ok: false, message: NOTIFY_RULE };
  return { ok: true, value: NOTIFICATION_KINDS.filter((kind) => chosen.has(kind)) };
}

/** The stored JSON text of a set, read back; anything unreadable is the default (never more). */
export function kindsFromStored(text: string | null | undefined): readonly NotificationKind[] {
  if (!text) return DEFAULT_NOTIFICATION_KINDS;
  try {
    const parsed = parseNotificationKinds(JSON.parse(text) as unknown[]);
    return parsed.ok ? parsed.value : DEFAULT_NOTIFICATION_KINDS;
  } catch {
    return DEFAULT_NOTIFICATION_KINDS;
  }
}
