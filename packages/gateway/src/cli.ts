/**
 * `tombolbayar-gateway`: start the gateway, or run one of its one-shot commands. `main` returns the
 * exit code of a one-shot command, or undefined while the server runs (it exits on SIGTERM/SIGINT
 * after a graceful shutdown).
 */
import type { Gateway } from './gateway.ts';
import { parseCli, UsageError, type CliConfig } from './cli/args.ts';
import type { Output } from './cli/commands.ts';
import { HELP } from './cli/help.ts';
import { SandboxCommandError } from './cli/sandbox-client.ts';
import { GatewayConfigError } from './options.ts';

const VERSION = '0.1.0';

async function serve(config: CliConfig, out: Output): Promise<Gateway> {
  // Loaded on demand: `--help` and the one-shot commands start faster without the server.
  const [{ createGateway }, { createLogger }, { databaseOptionOf }, { loadOrCreatePlatformKey, readMerchantKeys }] = await Promise.all([
    import('./gateway.ts'),
    import('./logger.ts'),
    import('./cli/commands.ts'),
    import('./cli/key-files.ts'),
  ]);
  const platform = loadOrCreatePlatformKey({ dataDir: config.dataDir, ...(config.platformKeyFile ? { platformKeyFile: config.platformKeyFile } : {}) });
  const gateway = createGateway({
    database: databaseOptionOf(config),
    dataDir: config.dataDir,
    platformPrivateKey: platform.privateKeyPem,
    merchants: readMerchantKeys(config.merchants),
    sandbox: config.sandbox,
    timeScale: config.timeScale,
    logger: createLogger({
      ...(config.logLevel ? { level: config.logLevel } : {}),
      pretty: config.logFormat ? config.logFormat === 'pretty' : process.stdout.isTTY === true,
    }),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    ...(config.retentionDays !== undefined ? { personalData: { retentionDays: config.retentionDays } } : {}),
    metrics: config.metricsToken ? { token: config.metricsToken } : {},
  });
  try {
    const { url } = await gateway.listen(config.port, config.host);
    out(`tombolbayar-gateway listening on ${url}${config.sandbox ? ' (sandbox)' : ''}`);
    out(`metrics: ${url}/metrics (${config.metricsToken ? 'loopback, or Authorization: Bearer <--metrics-token>' : 'loopback only; --metrics-token to allow more'})`);
    if (platform.created) out(`Generated the platform key: ${platform.file}`);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  return gateway;
}

/** `pay|expire|fail`, `deliveries`, `resend`: HTTP calls to the running sandbox at `--url`. */
async function runSandboxVerb(config: CliConfig, command: Extract<CliConfig['command'], { kind: 'simulate' | 'deliveries' | 'resend' }>, out: Output) {
  const [{ sandboxClient }, verbs] = await Promise.all([import('./cli/sandbox-client.ts'), import('./cli/sandbox-commands.ts')]);
  const client = sandboxClient(config.url);
  if (command.kind === 'simulate') return verbs.simulate(client, command.action, command.number, command.method, out);
  if (command.kind === 'resend') return verbs.resend(client, command.id, out);
  // --follow runs until Ctrl-C or SIGTERM, then exits 0.
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await verbs.deliveries(client, { follow: command.follow, stop: stop.signal }, out);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function stopOnSignals(gateway: Gateway): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal while shutting down: stop waiting.
      process.exit(1);
    }
    stopping = true;
    gateway.logger.info({ signal }, 'shutting down');
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

export interface CliIo {
  readonly out?: Output;
  readonly err?: Output;
  /** Where `DATABASE_URL` and `PORT` are read from; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

export async function main(argv: readonly string[], io: CliIo = {}): Promise<number | undefined> {
  const out = io.out ?? ((line: string) => console.log(line));
  const err = io.err ?? ((line: string) => console.error(line));
  let config: CliConfig;
  try {
    config = parseCli(argv, io.env ?? process.env);
    switch (config.command.kind) {
      case 'help':
        out(HELP.trimEnd());
        return 0;
      case 'version':
        out(VERSION);
        return 0;
      case 'platform-key':
        (await import('./cli/commands.ts')).printPlatformKey(config, out);
        return 0;
      case 'merchant-list':
        await (await import('./cli/commands.ts')).printMerchants(config, out);
        return 0;
      case 'merchant-create':
        await (await import('./cli/commands.ts')).createMerchant(config, config.command, out);
        return 0;
      case 'merchant-update':
        await (await import('./cli/commands.ts')).updateMerchant(config, config.command, out);
        return 0;
      case 'merchant-brand':
        await (await import('./cli/commands.ts')).brandMerchant(config, config.command, out);
        return 0;
      case 'personal-data':
        return await (await import('./cli/personal-data.ts')).personalDataCommand(config, config.command, out);
      case 'simulate':
      case 'deliveries':
      case 'resend':
        await runSandboxVerb(config, config.command, out);
        return 0;
      case 'serve':
        stopOnSignals(await serve(config, out));
        return undefined;
    }
  } catch (error) {
    if (error instanceof SandboxCommandError) {
      err(`tombolbayar-gateway: ${(error as Error).message}`);
      return 1;
    }
    if (error instanceof UsageError || error instanceof GatewayConfigError) {
      err(`tombolbayar-gateway: ${error.message}`);
      err('Run tombolbayar-gateway --help for usage.');
      return 2;
    }
    const code = (error as { code?: string }).code;
    err(`tombolbayar-gateway: ${(error as Error).message ?? String(error)}${code ? ` (${code})` : ''}`);
    return 1;
  }
}
