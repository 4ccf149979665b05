/**
 * Readers for the operations documents' test: the metric list of docs/operations/metrics.md (the
 * project's source of truth for metric names) and a PromQL checker built on Prometheus's own
 * grammar (`@prometheus-io/lezer-promql`), so an expression that Prometheus or Grafana would refuse,
 * or that names a metric or label the processes do not export, fails here rather than on an
 * operator's screen.
 */
import { parser } from '@prometheus-io/lezer-promql';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface LabelInfo {
  /** The values listed in backticks. */
  readonly values: ReadonlySet<string>;
  /** True when the list may grow (it says `…`, or gives no values): values are then not checked. */
  readonly open: boolean;
}

export interface MetricInfo {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: ReadonlyMap<string, LabelInfo>;
  /** The `## ` heading the row is under. */
  readonly section: string;
}

const cellsOf = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** `` `endpoint`: `prepaidOrder`, `pay`; `method`: the method code … `` → label name → values. */
export function parseLabelCell(cell: string): Map<string, LabelInfo> {
  const labels = new Map<string, LabelInfo>();
  if (cell === '—' || cell === '-' || cell === '') return labels;
  for (const segment of cell.split(';').map((part) => part.trim())) {
    const match = /^`([^`]+)`(?::\s*(.*))?$/.exec(segment);
    if (!match) throw new Error(`label cell segment not understood: ${segment}`);
    const description = match[2] ?? '';
    const values = new Set([...description.matchAll(/`([^`]+)`/g)].map((found) => found[1]!));
    labels.set(match[1]!, { values, open: description.includes('…') || values.size === 0 });
  }
  return labels;
}

/** Every row of metrics.md's tables whose first cell is a backticked metric name. */
export function parseMetricList(markdown: string): Map<string, MetricInfo> {
  const metrics = new Map<string, MetricInfo>();
  let section = '';
  for (const line of markdown.split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!line.startsWith('|')) continue;
    const [first, type, labels] = cellsOf(line);
    const name = /^`([a-zA-Z_:][a-zA-Z0-9_:]*)`$/.exec(first ?? '')?.[1];
    if (!name) continue;
    if (type !== 'counter' && type !== 'gauge' && type !== 'histogram') throw new Error(`${name}: type ${type} is not counter, gauge or histogram`);
    if (metrics.has(name)) throw new Error(`${name} is listed twice`);
    metrics.set(name, { name, type, labels: parseLabelCell(labels ?? ''), section });
  }
  return metrics;
}

const HISTOGRAM_SERIES = /^(.*)_(bucket|count|sum)$/;
/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = new Set(['job', 'instance']);
const RATE_FUNCTIONS = new Set(['rate', 'increase', 'irate']);

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

interface Series {
  readonly metric: MetricInfo;
  /** `bucket`, `count`, `sum` for a histogram's series; undefined for the metric itself. */
  readonly part?: string;
}

function seriesOf(name: string, metrics: ReadonlyMap<string, MetricInfo>): Series | undefined {
  const direct = metrics.get(name);
  if (direct) return direct.type === 'histogram' ? undefined : { metric: direct };
  const split = HISTOGRAM_SERIES.exec(name);
  const base = split ? metrics.get(split[1]!) : undefined;
  return base?.type === 'histogram' ? { metric: base, part: split![2]! } : undefined;
}

const children = (node: SyntaxNode): SyntaxNode[] => {
  const found: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) found.push(child);
  return found;
};
const childNamed = (node: SyntaxNode, name: string): SyntaxNode | undefined => children(node).find((child) => child.name === name);
const functionName = (call: SyntaxNode, text: string): string | undefined => {
  const identifier = childNamed(call, 'FunctionIdentifier');
  return identifier && text.slice(identifier.from, identifier.to);
};
const ancestors = (node: SyntaxNode): SyntaxNode[] => {
  const found: SyntaxNode[] = [];
  for (let parent = node.parent; parent; parent = parent.parent) found.push(parent);
  return found;
};
/** `by (a, b)` of an aggregation, or undefined without `by` (`without`, or no modifier). */
function groupedBy(aggregate: SyntaxNode, text: string): string[] | undefined {
  const modifier = childNamed(aggregate, 'AggregateModifier');
  if (!modifier || !childNamed(modifier, 'By')) return undefined;
  const grouping = childNamed(modifier, 'GroupingLabels');
  return grouping ? children(grouping).filter((child) => child.name === 'LabelName').map((label) => text.slice(label.from, label.to)) : [];
}

/**
 * Everything wrong with one PromQL expression, as sentences (empty when it is fine): syntax errors,
 * metric names not in the list, counters and histogram series read without rate()/increase(), gauges
 * read with them, buckets outside histogram_quantile() or aggregated without `le`, labels the
 * metric does not have, and values a closed label never takes.
 */
export function checkPromQL(expr: string, metrics: ReadonlyMap<string, MetricInfo>): { problems: string[]; names: string[] } {
  const problems: string[] = [];
  const names: string[] = [];
  const tree = parser.parse(expr);
  tree.iterate({
    enter(ref) {
      if (ref.type.isError) problems.push(`syntax error at ${ref.from}: ${JSON.stringify(expr.slice(Math.max(0, ref.from - 20), ref.to + 20))}`);
    },
  });
  const selectors: SyntaxNode[] = [];
  const aggregates: SyntaxNode[] = [];
  tree.iterate({
    enter(ref) {
      if (ref.name === 'VectorSelector') selectors.push(ref.node);
      if (ref.name === 'AggregateExpr') aggregates.push(ref.node);
    },
  });
  const knownLabelsInside = new Map<SyntaxNode, Set<string>>();
  for (const selector of selectors) {
    const identifier = childNamed(selector, 'Identifier');
    if (!identifier) {
      problems.push(`a selector without a metric name: ${expr.slice(selector.from, selector.to)}`);
      continue;
    }
    const name = expr.slice(identifier.from, identifier.to);
    names.push(name);
    const series = seriesOf(name, metrics);
    if (!series) {
      problems.push(`${name} is not a metric of metrics.md (or a _bucket/_count/_sum of a histogram there)`);
      continue;
    }
    const up = ancestors(selector);
    const rated = up[0]?.name === 'MatrixSelector' && up[1]?.name === 'FunctionCallBody' && up[2]?.name === 'FunctionCall' && RATE_FUNCTIONS.has(functionName(up[2], expr) ?? '');
    const cumulative = series.metric.type === 'counter' || series.part !== undefined;
    if (cumulative && !rated) problems.push(`${name} is cumulative: read it through rate(), irate() or increase()`);
    if (!cumulative && up.some((node) => node.name === 'FunctionCall' && RATE_FUNCTIONS.has(functionName(node, expr) ?? ''))) problems.push(`${name} is a gauge: rate()/increase() of it means nothing`);
    const labels = new Set([...series.metric.labels.keys(), ...TARGET_LABELS, ...(series.part === 'bucket' ? ['le'] : [])]);
    if (series.part === 'bucket') checkBucket(name, up, expr, problems);
    for (const node of up.filter((ancestor) => ancestor.name === 'AggregateExpr')) {
      const inside = knownLabelsInside.get(node) ?? new Set<string>();
      labels.forEach((label) => inside.add(label));
      knownLabelsInside.set(node, inside);
    }
    checkMatchers(name, series.metric, labels, selector, expr, problems);
  }
  for (const aggregate of aggregates) {
    const known = knownLabelsInside.get(aggregate) ?? new Set(TARGET_LABELS);
    for (const label of groupedBy(aggregate, expr) ?? []) {
      if (!known.has(label)) problems.push(`by (${label}): no metric inside ${expr.slice(aggregate.from, aggregate.to)} has that label`);
    }
  }
  return { problems, names };
}

function checkBucket(name: string, up: SyntaxNode[], expr: string, problems: string[]): void {
  const quantile = up.findIndex((node) => node.name === 'FunctionCall' && functionName(node, expr) === 'histogram_quantile');
  if (quantile < 0) {
    problems.push(`${name} is read outside histogram_quantile()`);
    return;
  }
  for (const aggregate of up.slice(0, quantile).filter((node) => node.name === 'AggregateExpr')) {
    if (!groupedBy(aggregate, expr)?.includes('le')) problems.push(`${name}: an aggregation inside histogram_quantile() drops \`le\` (use \`by (…, le)\`)`);
  }
}

function checkMatchers(name: string, metric: MetricInfo, labels: ReadonlySet<string>, selector: SyntaxNode, expr: string, problems: string[]): void {
  const matchers = childNamed(selector, 'LabelMatchers');
  for (const matcher of matchers ? children(matchers) : []) {
    if (matcher.name !== 'UnquotedLabelMatcher') {
      problems.push(`${name}: write label matchers as label="value" (${expr.slice(matcher.from, matcher.to)})`);
      continue;
    }
    const labelNode = childNamed(matcher, 'LabelName');
    const op = childNamed(matcher, 'MatchOp');
    const valueNode = childNamed(matcher, 'StringLiteral');
    if (!labelNode || !op || !valueNode) continue;
    const label = expr.slice(labelNode.from, labelNode.to);
    if (!labels.has(label)) {
      problems.push(`${name} has no label ${label}`);
      continue;
    }
    const info = metric.labels.get(label);
    const value = expr.slice(valueNode.from + 1, valueNode.to - 1);
    const positive = op.firstChild?.name === 'EqlSingle' || op.firstChild?.name === 'EqlRegex';
    if (!info || info.open || !positive || !/^[a-z0-9_]+(\|[a-z0-9_]+)*$/.test(value)) continue;
    for (const alternative of value.split('|')) {
      if (!info.values.has(alternative)) problems.push(`${name}{${label}}: metrics.md lists no value ${alternative}`);
    }
  }
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

export function headingAnchors(markdown: string): Set<string> {
  return new Set(
    markdown
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => anchorOf(line.replace(/^#+ /, ''))),
  );
}
