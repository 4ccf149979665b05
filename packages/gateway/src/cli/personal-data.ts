/**
 * `tombolbayar-gateway personal-data erase|export --email … --phone … --order …`: a person's data
 * across every merchant, on the store itself (the same `--data` / `--database-url` as the
 * server), so it works in production mode and while the server runs (SQLite in WAL mode waits for
 * the server's writes; PostgreSQL as any client). Prints the report as JSON; exits 0, or 3 when
 * some orders were refused (still pending), so a script can tell.
 */
import { erasePersonalData, exportPersonalData } from '../privacy/personal-data.ts';
import { parsePersonQuery } from '../privacy/query.ts';
import { openStore } from '../store/open.ts';
import { UsageError, type CliConfig, type Command } from './args.ts';
import { databaseConfigOf, type Output } from './commands.ts';

const FLAG = { email: '--email', phone: '--phone', orderNum: '--order' } as const;

export async function personalDataCommand(config: CliConfig, command: Extract<Command, { kind: 'personal-data' }>, out: Output): Promise<number> {
  const parsed = parsePersonQuery(command.query);
  if (!parsed.ok) throw new UsageError(`personal-data ${command.action}: ${FLAG[parsed.field as keyof typeof FLAG] ?? parsed.field} ${parsed.message}`);
  const database = await openStore(databaseConfigOf(config));
  try {
    if (command.action === 'export') {
      out(JSON.stringify({ orders: await exportPersonalData(database, parsed.query) }, null, 2));
      return 0;
    }
    const report = await erasePersonalData(database, parsed.query, Date.now());
    out(JSON.stringify(report, null, 2));
    return report.refused.length > 0 ? 3 : 0;
  } finally {
    await database.close();
  }
}
