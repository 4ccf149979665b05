/**
 * Named leases: one process at a time runs a background job across every gateway process sharing
 * the store (the personal-data retention pass). Taken when free or run out, renewed by its holder.
 */
import type { Executor } from './executor.ts';

/** Hold the lease `name` for `owner` until `until` (epoch ms); true when `owner` holds it now. */
export async function claimLease(db: Executor, name: string, owner: string, now: number, until: number): Promise<boolean> {
  await db.insertInto('leases').values({ name, owner, expires_at: until }).onConflict((conflict) => conflict.column('name').doNothing()).execute();
  const result = await db
    .updateTable('leases')
    .set({ owner, expires_at: until })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('owner', '=', owner), eb('expires_at', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0n) === 1;
}

/** Give the lease up (at close), so another process takes over at once. */
export async function releaseLease(db: Executor, name: string, owner: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', owner).execute();
}
