/// <reference lib="dom" />
/**
 * Copy buttons: hidden in the HTML (they need JS), revealed here. Uses the async clipboard API,
 * and falls back to selecting the text and `execCommand('copy')` where it is missing (plain-http
 * pages are not a secure context). The result is announced in the polite status region next to it.
 */

function announce(button: HTMLButtonElement, message: string): void {
  const region = button.closest('.copyable')?.querySelector<HTMLElement>('.copy-status');
  if (!region) return;
  region.textContent = message;
  window.setTimeout(() => {
    if (region.textContent === message) region.textContent = '';
  }, 4000);
}

function selectValue(button: HTMLButtonElement): boolean {
  const code = button.closest('.copyable')?.querySelector('.code');
  const selection = window.getSelection();
  if (!code || !selection) return false;
  const range = document.createRange();
  range.selectNodeContents(code);
  selection.removeAllRanges();
  selection.addRange(range);
  return true;
}

async function copyText(button: HTMLButtonElement, text: string): Promise<boolean> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused or no focus: try the older way below.
    }
  }
  const field = document.createElement('textarea');
  field.value = text;
  field.setAttribute('readonly', '');
  field.className = 'offscreen';
  document.body.append(field);
  field.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  field.remove();
  button.focus();
  return ok;
}

export function setUpCopyButtons(root: ParentNode): void {
  for (const button of root.querySelectorAll<HTMLButtonElement>('button.copy[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const ok = await copyText(button, button.dataset.copy ?? '');
      if (ok) {
        button.classList.add('copied');
        announce(button, button.dataset.copied ?? 'Copied');
        window.setTimeout(() => button.classList.remove('copied'), 4000);
      } else {
        selectValue(button);
        announce(button, button.dataset.copyFailed ?? 'Select the text and copy it.');
      }
    });
  }
}
