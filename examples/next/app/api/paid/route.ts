// What onPaid recorded, for the page (and the example's test) to show.
import { paidOrders } from '../../../lib/paid-orders';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ orders: paidOrders() });
}
