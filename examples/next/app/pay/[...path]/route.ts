import { payButtonNext } from '@tombolbayar/server/next';
import { getPay } from '../../../lib/pay';

export const runtime = 'nodejs';
export const { GET, POST, OPTIONS } = payButtonNext(getPay);
