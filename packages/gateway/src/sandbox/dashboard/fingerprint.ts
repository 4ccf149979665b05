/**
 * What an order page shows of its notifications, in one string: the page renders it, its script
 * computes it again from `GET /sandbox/deliveries?platOrderNum=` and reloads when it differs (a
 * new notification, a new attempt, a new state). Pure and dependency-free: bundled for browsers.
 */
export interface DeliveryShape {
  readonly id: string;
  readonly state: string;
  readonly attempts: readonly unknown[];
}

export function deliveriesFingerprint(deliveries: readonly DeliveryShape[]): string {
  return deliveries.map((delivery) => `${delivery.id}:${delivery.state}:${delivery.attempts.length}`).join(',');
}
