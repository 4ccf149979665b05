/** Open a database and bring its schema up to date: what the gateway and the CLI call at start. */
import { ensureSchema, openDatabase, type Database, type DatabaseConfig } from './database.ts';
import { migrateToLatest } from './migrations.ts';

export async function openStore(config: DatabaseConfig): Promise<Database> {
  const database = openDatabase(config);
  try {
    if (config.kind === 'postgres') await ensureSchema(database, config.schema);
    await migrateToLatest(database.db, database.engine);
    return database;
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}
