/**
 * The front page's "Figures" card: the gateway's key figures as label and number pairs (a grid of
 * two columns or more: page.css `.dash-figures`), and a link to all of them at `/metrics`. With
 * `metrics: false` there is nothing to read, and the card says so.
 */
import { html, type SafeHtml } from '../../page/html.ts';
import type { Figures } from './figures.ts';
import type { FiguresMessages } from './figures-messages.ts';

/** Where the gateway serves its Registry (observability/metrics-route.ts). */
export const METRICS_PATH = '/metrics';

export function renderFiguresCard(words: FiguresMessages, figures: Figures | undefined): SafeHtml {
  const heading = html`<h2 id="figures-heading">${words.heading}</h2>`;
  if (!figures) return html`<section class="card" aria-labelledby="figures-heading">${heading}<p>${words.off}</p></section>`;
  const count = words.count;
  const rows: ReadonlyArray<readonly [string, string]> = [
    [words.ordersCreated, count(figures.ordersCreated)],
    [words.paid, count(figures.paid)],
    [words.expired, count(figures.expired)],
    [words.failed, count(figures.failed)],
    [words.queued, count(figures.queued)],
    [words.oldestUndelivered, figures.queued === 0 ? words.none : words.age(figures.oldestUndeliveredSeconds)],
    [words.attemptsDelivered, count(figures.attemptsDelivered)],
    [words.attemptsFailed, count(figures.attemptsFailed)],
    [words.givenUp, count(figures.givenUp)],
    [words.shed, count(figures.shed)],
  ];
  const items = rows.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`);
  return html`<section class="card" aria-labelledby="figures-heading">
${heading}
<p class="muted">${words.intro}</p>
<dl class="dash-figures">${items}</dl>
<p>${words.allMetrics} <a href="${METRICS_PATH}">${METRICS_PATH}</a> ${words.whoMayRead}</p>
</section>`;
}
