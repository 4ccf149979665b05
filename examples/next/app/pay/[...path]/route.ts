import { payButtonRoutes } from '@tombolbayar/express/next';
import { getPay } from '../../../lib/pay';

export const runtime = 'nodejs';
export const { GET, POST, OPTIONS } = payButtonRoutes(getPay);
