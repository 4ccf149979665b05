/** Key pairs for the tests, made once per test process (1024-bit, the family's norm). */
import { generateKeyPair, type PemKeyPair } from '@tombolbayar/protocol/node';

let merchant: PemKeyPair | undefined;
let platform: PemKeyPair | undefined;
let stranger: PemKeyPair | undefined;

/** The merchant's key pair: the router signs with its private half, the gateway knows the public one. */
export const merchantKeys = (): PemKeyPair => (merchant ??= generateKeyPair(1024));
/** The platform's key pair: the gateway signs with it, the router verifies with the public half. */
export const platformKeys = (): PemKeyPair => (platform ??= generateKeyPair(1024));
/** Someone else's keys, for forgeries. */
export const strangerKeys = (): PemKeyPair => (stranger ??= generateKeyPair(1024));

export const MERCHANT_CODE = 'MERCH-TEST-01';
