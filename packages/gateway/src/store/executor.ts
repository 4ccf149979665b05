import type { Kysely, Transaction } from 'kysely';
import type { GatewayDatabase } from './schema.ts';

/** Either the database or an open transaction: every store function runs inside whichever it is given. */
export type Executor = Kysely<GatewayDatabase> | Transaction<GatewayDatabase>;
