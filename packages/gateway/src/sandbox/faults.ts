/**
 * Fault injection for merchants' own tests (sandbox only): what a real gateway sometimes does,
 * on demand. A rule covers one order or every order of a merchant; an order's rule replaces the
 * merchant's rule section by section (`notifications`, `create`).
 *
 * - `notifications.duplicate`: every notification is delivered twice (two outbox rows).
 * - `notifications.delayMs`: the first attempt waits this long (gateway clock).
 * - `notifications.drop`: the notification is logged as `dropped` and never sent (resend works).
 * - `create.respond: "UNKNOWN"`: the create answers UNKNOWN; `create.orderCreated` (default true)
 *   says whether the order was stored anyway, as after a timeout on the gateway's side.
 * - `create.delayMs`: the create's answer is held back this long, after the order is stored.
 */
import { z } from 'zod';

export const MAX_CREATE_DELAY_MS = 120_000;
export const MAX_NOTIFICATION_DELAY_MS = 7 * 24 * 3_600_000;

/**
 * Every rule carries its own message (the sandbox API's texts name the field, contain no `"`,
 * echo nothing: `input.ts`); `is required` never applies, every setting being optional.
 */
const BOOLEAN_RULE = 'must be true or false';
const flag = () => z.boolean({ error: BOOLEAN_RULE });
const delay = (max: number) => {
  const message = `must be a whole number of milliseconds from 0 to ${max}`;
  return z.number({ error: message }).int({ error: message }).min(0, { error: message }).max(max, { error: message });
};

export const notificationFaultsSchema = z.strictObject({
  duplicate: flag().optional(),
  delayMs: delay(MAX_NOTIFICATION_DELAY_MS).optional(),
  drop: flag().optional(),
});

export const createFaultsSchema = z.strictObject({
  respond: z.literal('UNKNOWN', { error: 'must be UNKNOWN' }).optional(),
  orderCreated: flag().optional(),
  delayMs: delay(MAX_CREATE_DELAY_MS).optional(),
});

export const faultSettingsSchema = z.strictObject({ notifications: notificationFaultsSchema.optional(), create: createFaultsSchema.optional() });

export type NotificationFaults = z.infer<typeof notificationFaultsSchema>;
export type CreateFaults = z.infer<typeof createFaultsSchema>;
export type FaultSettings = z.infer<typeof faultSettingsSchema>;

/** A stored rule that no longer parses (written by a newer version) is ignored, not fatal. */
function asSettings(value: unknown): FaultSettings {
  const parsed = faultSettingsSchema.safeParse(value);
  return parsed.success ? parsed.data : {};
}

/** The faults that apply, the order's rule winning over the merchant's, per section. */
export function effectiveFaults(rules: { order?: unknown; merchant?: unknown }): FaultSettings {
  const order = asSettings(rules.order);
  const merchant = asSettings(rules.merchant);
  const notifications = order.notifications ?? merchant.notifications;
  const create = order.create ?? merchant.create;
  return { ...(notifications ? { notifications } : {}), ...(create ? { create } : {}) };
}
