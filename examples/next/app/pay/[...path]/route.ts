import { payButtonNext } from '@tombolbayar/server/next';
import { getPay } from '../../../lib/pay';

export const runtime = 'nodejs';
// The client's address, for the per-client limit on order creation: TRUSTED_PROXIES=1 behind one
// proxy of yours that appends to X-Forwarded-For (nginx, a load balancer, Vercel). Unset, every
// customer shares one bucket: fine on a laptop, and the log says so once.
const trustedProxies = process.env.TRUSTED_PROXIES;
export const { GET, POST, OPTIONS } = payButtonNext(getPay, trustedProxies ? { clientAddress: { trustedProxies: Number(trustedProxies) } } : {});
