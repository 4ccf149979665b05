/** Pages for requests that show no order: unknown order (404), bad input (400), cross-site POST (403), fault (500). */
import { html } from '../html.ts';
import type { Locale } from '../i18n.ts';
import type { RenderContext } from './context.ts';
import { renderDocument } from './layout.ts';

export type ErrorKind = 'not-found' | 'bad-request' | 'forbidden' | 'internal';

export interface ErrorPageInput {
  readonly kind: ErrorKind;
  /** For `bad-request`: one line per problem, naming the field (`orderNum: is required`). */
  readonly problems?: readonly string[];
  /** The same page in another language, when it can be fetched again with GET. */
  readonly languageHref?: (locale: Locale) => string;
}

export function renderErrorPage(input: ErrorPageInput, ctx: RenderContext): string {
  const { t } = ctx;
  const texts: Record<ErrorKind, readonly [string, string]> = {
    'not-found': [t.notFoundHeading, t.notFoundBody],
    'bad-request': [t.badRequestHeading, t.badRequestBody],
    forbidden: [t.forbiddenHeading, t.forbiddenBody],
    internal: [t.errorHeading, t.errorBody],
  };
  const [heading, body] = texts[input.kind];
  const problems = input.problems?.length
    ? html`<ul class="problems">${input.problems.map((problem) => html`<li>${problem}</li>`)}</ul>`
    : '';
  return renderDocument(ctx, {
    title: heading,
    ...(input.languageHref ? { languageHref: input.languageHref } : {}),
    body: html`<section class="card outcome outcome-error" aria-labelledby="error-heading">
<h1 id="error-heading">${heading}</h1>
<p>${body}</p>
${problems}
</section>`,
  });
}
