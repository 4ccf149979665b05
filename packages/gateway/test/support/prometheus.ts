/** Reading a Prometheus text exposition in tests: samples by name and labels. */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels (`le` aside), or 0 when absent. */
export function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  const found = samples.find((s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}

/** Whether any sample of `name` exists. */
export const has = (samples: readonly Sample[], name: string) => samples.some((s) => s.name === name);
