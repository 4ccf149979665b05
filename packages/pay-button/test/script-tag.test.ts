/**
 * The built script-tag files (dist/, built by `npm test` before the tests; pay-button.js loads its
 * chunks from beside it) on pages that hold nothing but `<script type="module" src>` and the tag, with and without a strict
 * Content-Security-Policy (`script-src 'self'`, no unsafe-inline, no unsafe-eval).
 */
import { expect, fixture, html } from '@open-wc/testing';
import { Recorder, uniqueItem, waitUntil } from './helpers.ts';

/**
 * Loads a page in an iframe and returns its document once the tag is defined there, and (on the
 * CSP page) the violations recorded since the page started: test/fixtures/csp-violations.js
 * listens before the script under test loads, so a violation during the first render counts too.
 */
async function load(src: string, tag = 'pay-button'): Promise<{ frame: HTMLIFrameElement; doc: Document; violations: () => string[] }> {
  const frame = await fixture<HTMLIFrameElement>(html`<iframe src=${src} style="width: 400px; height: 300px"></iframe>`);
  await waitUntil(() => frame.contentWindow?.customElements?.get(tag), `<${tag}> was never defined by ${src}`, { timeout: 8000 });
  const doc = frame.contentDocument!;
  const violations = () => (frame.contentWindow as Window & { cspViolations?: string[] }).cspViolations ?? ['no recorder on this page'];
  return { frame, doc, violations };
}

async function payThrough(doc: Document): Promise<CustomEvent> {
  const el = doc.querySelector('pay-button')!;
  const rec = new Recorder(el as HTMLElement);
  await waitUntil(() => el.shadowRoot?.querySelector('button'), 'never rendered');
  el.shadowRoot!.querySelector('button')!.click();
  return rec.settle();
}

describe('the script-tag file', () => {
  it('works from a plain page with nothing but the script tag and the element', async () => {
    const item = uniqueItem('autopay');
    const { doc } = await load(`/pages/plain.html?item=${item}`);
    const scripts = [...doc.querySelectorAll('script')].map((s) => [s.type, new URL(s.src).pathname]);
    expect(scripts).to.deep.equal([['module', '/packages/pay-button/dist/pay-button.js']]);
    expect(doc.body.children).to.have.length(1);
    const end = await payThrough(doc);
    expect(end.type).to.equal('pay-success');
    expect(doc.querySelector('pay-button')!.getAttribute('state')).to.equal('paid');
  });

  it('is one module with Lit inside: no static import, and only its own chunks, beside it, named by their content, loaded when needed', async () => {
    const source = await (await fetch('/packages/pay-button/dist/pay-button.js')).text();
    expect(source).not.to.match(/\bimport\s*[{*"'`]|\bfrom\s*["'`]|\brequire\(/);
    // The attempt's requests (after the first render) and the Indonesian strings (for an element that speaks it).
    const chunks = [...source.matchAll(/\bimport\(["'`]([^"'`]*)["'`]\)/g)].map((m) => m[1]!).sort();
    expect(chunks).to.have.length(2);
    expect(chunks[0]).to.match(/^\.\/pay-button-attempt-io-[\w-]{8,}\.js$/);
    expect(chunks[1]).to.match(/^\.\/pay-button-strings-id-[\w-]{8,}\.js$/);
    // Exactly the chunks the build lists for the plug-in to serve (with a year's immutable cache).
    const { chunks: listed } = (await (await fetch('/packages/pay-button/dist/script-chunks.json')).json()) as { chunks: string[] };
    expect(chunks).to.deep.equal(listed.map((name) => `./${name}`));
    expect(source).not.to.match(/\beval\(|new Function\(/);
  });

  it('the CSP page records violations from its start (the check the next tests rely on)', async () => {
    const { doc, violations } = await load(`/pages/csp.html?item=${uniqueItem()}&probe=1`);
    // The probe's inline script was blocked, and the recorder saw it.
    await waitUntil(() => violations().length, 'the blocked inline script was never reported');
    expect((doc.defaultView as Window & { inlineRan?: boolean }).inlineRan).to.be.undefined;
    expect(violations()).to.deep.equal(['script-src-elem inline']);
  });

  it('works on a page with a strict Content-Security-Policy, without a single violation', async () => {
    const item = uniqueItem('autopay');
    const head = await fetch(`/pages/csp.html?item=${item}`);
    const csp = head.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'");
    expect(csp).not.to.include('unsafe');

    const { doc, violations } = await load(`/pages/csp.html?item=${item}`);
    const el = doc.querySelector('pay-button')!;
    await waitUntil(() => el.shadowRoot?.querySelector('button'), 'never rendered');
    // Its styles apply under the policy (44 px target, themed background).
    const style = doc.defaultView!.getComputedStyle(el.shadowRoot!.querySelector('button')!);
    expect(parseFloat(style.minHeight)).to.equal(44);
    expect(style.backgroundColor).to.equal('rgb(11, 95, 255)');

    const end = await payThrough(doc);
    expect(end.type).to.equal('pay-success');
    expect(violations()).to.deep.equal([]);
  });

  it('pay-va.js adds <pay-va> on top of pay-button.js, under the same strict policy', async () => {
    const { doc, violations } = await load(`/pages/csp.html?tag=pay-va&item=${uniqueItem()}`, 'pay-va');
    expect(doc.defaultView!.customElements.get('pay-button')).to.exist;
    const el = doc.querySelector('pay-va')!;
    const rec = new Recorder(el as HTMLElement);
    await waitUntil(() => el.shadowRoot?.querySelector('button'), 'never rendered');
    el.shadowRoot!.querySelector('button')!.click();
    await rec.next('pay-open');
    await waitUntil(() => el.shadowRoot!.querySelector('[part=number]'), 'no number shown');
    expect(el.shadowRoot!.querySelector('[part=method]')!.textContent).to.equal('BCA Virtual Account');
    expect(violations()).to.deep.equal([]);
  });
});
