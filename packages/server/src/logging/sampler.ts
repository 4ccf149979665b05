/**
 * Refusal log lines sampled per client: a sender of junk (a scanner, a flood of forged
 * notifications) gets a few lines a window, then one line saying how many more were left out,
 * so it cannot fill the merchant's logs. Every event is still emitted; only the log is sampled.
 *
 * Pure apart from its own table of clients (`admit` takes the time): table-tested.
 */

export interface SampleSettings {
  /** Lines logged per client per window. */
  readonly perWindow: number;
  readonly windowMs: number;
  /** Clients remembered at once; past it the oldest window is forgotten. */
  readonly maxClients: number;
}

export const REFUSAL_SAMPLING: SampleSettings = { perWindow: 5, windowMs: 60_000, maxClients: 10_000 };

/** Whether to log this line; `skipped`: lines left out for this client in its window that ended. */
export interface SampleVerdict {
  readonly log: boolean;
  readonly skipped: number;
}

export class LogSampler {
  private readonly clients = new Map<string, { start: number; logged: number; skipped: number }>();

  constructor(private readonly settings: SampleSettings = REFUSAL_SAMPLING) {}

  admit(client: string, nowMs: number): SampleVerdict {
    let entry = this.clients.get(client);
    let skipped = 0;
    if (entry && nowMs - entry.start >= this.settings.windowMs) {
      skipped = entry.skipped;
      this.clients.delete(client);
      entry = undefined;
    }
    if (!entry) {
      if (this.clients.size >= this.settings.maxClients) this.clients.delete(this.clients.keys().next().value!);
      entry = { start: nowMs, logged: 0, skipped: 0 };
      this.clients.set(client, entry);
    }
    if (entry.logged < this.settings.perWindow) {
      entry.logged += 1;
      return { log: true, skipped };
    }
    entry.skipped += 1;
    return { log: false, skipped };
  }
}
