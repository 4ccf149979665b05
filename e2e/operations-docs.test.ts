/**
 * Issue 34's operations documents hold together: docs/operations/metrics.md is the list of metric
 * names (following the naming rules), and the alert rules and the Grafana dashboard load (the
 * structure Prometheus and Grafana require), parse as PromQL by Prometheus's own grammar, and use
 * only metrics and labels of that list, each alert with its section in the runbook. No browser, no
 * server: it reads files. (The integrator's check against the live registries comes on top.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { anchorOf, checkPromQL, headingAnchors, parseMetricList, type MetricInfo } from './operations-docs-support.ts';

const read = (file: string): string => readFileSync(new URL(`../docs/operations/${file}`, import.meta.url), 'utf8');
const metricsMd = read('metrics.md');
const runbook = read('README.md');
const metrics = parseMetricList(metricsMd);

/** Every problem of every expression, each prefixed with where it is; asserted empty. */
function promqlProblems(where: string, expr: string, used: Set<string>): string[] {
  const { problems, names } = checkPromQL(expr, metrics);
  names.forEach((name) => used.add(name));
  return problems.map((problem) => `${where}: ${problem}`);
}

describe('metrics.md: the list of metric names', () => {
  it('lists the gateway and the plug-in metrics, each under its own heading and prefix', () => {
    assert.ok(metrics.size >= 25, `only ${metrics.size} metrics parsed from metrics.md`);
    for (const metric of metrics.values()) {
      const prefix = metric.section === 'Gateway metrics' ? 'tombolbayar_gateway_' : metric.section === 'Plug-in metrics' ? 'tombolbayar_plugin_' : undefined;
      assert.ok(prefix, `${metric.name} is in a table outside "Gateway metrics" and "Plug-in metrics"`);
      assert.ok(metric.name.startsWith(prefix), `${metric.name} is under "${metric.section}" but lacks ${prefix}`);
    }
  });

  it('follows the naming rules: snake_case, _total only on counters, a unit on histograms, labels of low cardinality', () => {
    const forbidden = /order_?num|plat_?order|reference|e_?mail|phone|name|url|query|^ip$|address|client/;
    for (const { name, type, labels } of metrics.values()) {
      assert.match(name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${name} is not snake_case`);
      assert.equal(name.endsWith('_total'), type === 'counter', `${name}: _total is for counters, and every counter ends in it`);
      if (type === 'histogram') assert.match(name, /_(seconds|bytes)$/, `${name}: a histogram ends in its unit`);
      assert.doesNotMatch(name, /_(bucket|count|sum)$/, `${name}: that suffix belongs to a histogram's series`);
      for (const label of labels.keys()) {
        assert.match(label, /^[a-z][a-z0-9_]*$/, `${name}: label ${label} is not snake_case`);
        assert.doesNotMatch(label, forbidden, `${name}: label ${label} would carry personal or unbounded values`);
        assert.ok(!['job', 'instance', 'le'].includes(label), `${name}: ${label} is Prometheus's own label`);
      }
    }
  });
});

const duration = /^(0|(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?)$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const rule = z.strictObject({
  alert: z.string().regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/),
  expr: z.string().min(1),
  for: z.string().regex(duration).refine((value) => value !== ''),
  keep_firing_for: z.string().regex(duration).optional(),
  labels: z.record(z.string().regex(labelName), z.string()).and(z.object({ severity: z.enum(['warning', 'critical']) })),
  annotations: z
    .record(z.string().regex(labelName), z.string())
    .and(z.object({ summary: z.string().min(1), description: z.string().min(1), runbook_url: z.url() })),
});
const ruleFile = z.strictObject({
  groups: z
    .array(z.strictObject({ name: z.string().min(1), interval: z.string().regex(duration).optional(), rules: z.array(rule).min(1) }))
    .min(1),
});

/** A schema's verdict on a file, as its own test; later tests read the value (empty when it did not parse). */
function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string, empty: T): T {
  const result = schema.safeParse(value);
  it(`has the structure ${what} requires`, () => assert.ok(result.success, result.error && z.prettifyError(result.error)));
  return result.success ? result.data : empty;
}

describe('alerts.yml: Prometheus alerting rules', () => {
  const file = parsed(ruleFile, parseYaml(read('alerts.yml')), 'Prometheus', { groups: [] });
  const rules = file.groups.flatMap((group) => group.rules);

  it('has groups with unique names and alerts with unique names', () => {
    const groups = file.groups.map((group) => group.name);
    assert.deepEqual([...new Set(groups)], groups, 'group names repeat');
    const alerts = rules.map((each) => each.alert);
    assert.deepEqual([...new Set(alerts)], alerts, 'alert names repeat');
  });

  it('points every alert at its section of docs/operations/README.md, and every alert section at an alert', () => {
    const anchors = headingAnchors(runbook);
    for (const { alert, annotations } of rules) {
      const url = new URL(annotations.runbook_url);
      assert.match(url.pathname, /\/docs\/operations\/README\.md$/, `${alert}: runbook_url is not the runbook`);
      assert.equal(url.hash, `#${anchorOf(alert)}`, `${alert}: runbook_url's anchor is not the alert's own section`);
      assert.ok(anchors.has(url.hash.slice(1)), `${alert}: README.md has no heading for ${url.hash}`);
    }
    const alertSections = runbook.split('\n').filter((line) => line.startsWith('### Tombolbayar')).map((line) => line.slice(4).trim());
    assert.deepEqual([...alertSections].sort(), rules.map((each) => each.alert).sort(), 'the runbook sections and the alerts differ');
  });

  it('parses every expression as PromQL over the listed metrics, counters through rate()/increase()', () => {
    const used = new Set<string>();
    const problems = rules.flatMap(({ alert, expr }) => promqlProblems(alert, expr, used));
    assert.deepEqual(problems, []);
    assert.ok(used.size > 0);
  });

  it('covers what issue 34 asks alerts for', () => {
    const exprs = rules.map((each) => each.expr).join('\n');
    for (const needed of [
      'notification_retry_lag_seconds_bucket', 'notification_oldest_undelivered_age_seconds', 'notification_queue_depth',
      'notifications_given_up_total', 'fulfilment_runs_total{outcome="failed"}', 'outbox_lease_losses_total',
      'gateway_requests_shed_total', 'plugin_requests_shed_total', 'outcome="5xx"', 'outcome=~"timeout|network_error"',
      'gateway_db_pool_connections{state="waiting"}', 'plugin_db_pool_connections{state="waiting"}', 'duplicate_payments_total',
    ]) {
      assert.ok(exprs.includes(needed), `no alert reads ${needed}`);
    }
    assert.match(exprs, /outcome=~"unrecorded\|lease_lost"/);
  });
});

const DATASOURCE = '${DS_PROMETHEUS}';
const datasource = z.object({ type: z.literal('prometheus'), uid: z.literal(DATASOURCE) });
const gridPos = z
  .object({ x: z.int().min(0), y: z.int().min(0), w: z.int().min(1).max(24), h: z.int().min(1) })
  .refine((pos) => pos.x + pos.w <= 24, 'a panel reaches past the 24 columns');
const common = { id: z.int().positive(), title: z.string().min(1), gridPos };
const rowPanel = z.object({ ...common, type: z.literal('row'), collapsed: z.literal(false), panels: z.array(z.unknown()).length(0) });
const dataPanel = z.object({
  ...common,
  type: z.enum(['timeseries', 'stat', 'gauge', 'bargauge', 'table', 'heatmap']),
  datasource,
  targets: z.array(z.object({ refId: z.string().min(1), expr: z.string().min(1), datasource: datasource.optional() })).min(1),
});
const variable = z.object({ name: z.string().regex(/^\w+$/), type: z.string(), query: z.unknown().optional(), datasource: datasource.optional() });
const dashboardSchema = z.object({
  title: z.string().min(1),
  uid: z.string().regex(/^[a-zA-Z0-9_-]{1,40}$/),
  schemaVersion: z.number().int().min(39),
  __inputs: z.array(z.object({ name: z.string(), type: z.string(), pluginId: z.string() })).optional(),
  templating: z.object({ list: z.array(variable) }),
  panels: z.array(z.union([rowPanel, dataPanel])).min(1),
});

/** What Grafana does to a query before Prometheus sees it: its interval macros and `$var`s. */
function interpolate(expr: string, variables: ReadonlySet<string>, where: string): string {
  return expr.replace(/\$__(rate_interval|interval|range)\b/g, '5m').replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced?: string, bare?: string) => {
    const name = (braced ?? bare)!;
    assert.ok(variables.has(name), `${where}: $${name} is not a variable of the dashboard`);
    return 'x';
  });
}

describe('dashboard.json: a Grafana dashboard', () => {
  const dashboard = parsed(dashboardSchema, JSON.parse(read('dashboard.json')), 'Grafana', { title: '', uid: '', schemaVersion: 0, templating: { list: [] }, panels: [] });
  const variables = new Set(dashboard.templating.list.map((each) => each.name));
  const dataPanels = dashboard.panels.filter((panel) => panel.type !== 'row') as z.infer<typeof dataPanel>[];

  it('declares the Prometheus data source every panel and query refers to', () => {
    const declared = dashboard.templating.list.find((each) => each.name === 'DS_PROMETHEUS');
    assert.ok(declared?.type === 'datasource' && declared.query === 'prometheus', 'no DS_PROMETHEUS data source variable');
    assert.ok(dashboard.__inputs?.some((input) => input.name === 'DS_PROMETHEUS' && input.type === 'datasource' && input.pluginId === 'prometheus'), 'no DS_PROMETHEUS input for import');
    for (const each of dashboard.templating.list.filter((item) => item.type === 'query')) assert.deepEqual(each.datasource, { type: 'prometheus', uid: DATASOURCE }, `variable ${each.name}`);
  });

  it('has unique panel ids, unique refIds per panel, and panels that do not overlap', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    assert.deepEqual([...new Set(ids)], ids, 'panel ids repeat');
    for (const panel of dataPanels) {
      const refIds = panel.targets.map((target) => target.refId);
      assert.deepEqual([...new Set(refIds)], refIds, `${panel.title}: refIds repeat`);
    }
    const boxes = dashboard.panels.map((panel) => ({ title: panel.title, ...panel.gridPos }));
    for (const [index, a] of boxes.entries()) {
      for (const b of boxes.slice(index + 1)) {
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        assert.ok(!overlap, `"${a.title}" and "${b.title}" overlap`);
      }
    }
  });

  it('has rows for both processes: orders and payments, delivery, onPaid, shedding and latency, database', () => {
    const rows = dashboard.panels.filter((panel) => panel.type === 'row').map((panel) => panel.title);
    for (const needed of [/^Gateway: orders/, /^Gateway: notification delivery/, /^Gateway: shedding and latency/, /^Gateway: database/, /^Plug-in: orders/, /^Plug-in: onPaid/, /^Plug-in: shedding and latency/, /^Plug-in: database/]) {
      assert.ok(rows.some((title) => needed.test(title)), `no row ${needed}`);
    }
  });

  it('parses every query as PromQL over the listed metrics, and shows every listed metric', () => {
    const used = new Set<string>();
    const problems = dataPanels.flatMap((panel) =>
      panel.targets.flatMap((target) => {
        const where = `panel "${panel.title}" ${target.refId}`;
        return promqlProblems(where, interpolate(target.expr, variables, where), used);
      }),
    );
    for (const each of dashboard.templating.list) {
      const query = typeof each.query === 'object' && each.query !== null ? (each.query as { query?: unknown }).query : each.query;
      const metric = typeof query === 'string' ? /^label_values\((\w+),\s*\w+\)$/.exec(query)?.[1] : undefined;
      if (each.type === 'query') assert.ok(metric && metrics.has(metric), `variable ${each.name}: ${String(query)} is not label_values of a listed metric`);
    }
    assert.deepEqual(problems, []);
    const shown = new Set([...used].map((name) => name.replace(/_(bucket|count|sum)$/, '')).filter((name) => metrics.has(name)));
    const missing = [...metrics.values()].filter((metric: MetricInfo) => !shown.has(metric.name) && !used.has(metric.name)).map((metric) => metric.name);
    assert.deepEqual(missing, [], 'metrics of metrics.md no panel shows');
  });
});
