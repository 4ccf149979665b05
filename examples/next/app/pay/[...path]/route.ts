// Every route of the plug-in under /pay: the element's script, payment links, order status, the
// gateway's notifications and the customer's return page.
import { payButtonRoutes } from '@tombolbayar/express/next';
import { getPay } from '../../../lib/pay';

export const runtime = 'nodejs';
export const { GET, POST, OPTIONS } = payButtonRoutes(getPay);
