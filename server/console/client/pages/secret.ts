import { h } from '../dom.js';
import { message } from '../view.js';

/**
 * A secret shown once (a new API key, a webhook signing secret) with a Copy
 * button. The value is in a read-only field so it can also be selected by hand
 * where the clipboard API is refused.
 */
export function secretPanel(title: string, secret: string, note: string): HTMLElement {
  const status = h('span', { role: 'status', class: 'sub' });
  const input = h('input', {
    type: 'text',
    readonly: true,
    value: secret,
    class: 'secret',
    'aria-label': title,
    spellcheck: 'false',
  });
  const copy = h('button', { type: 'button', class: 'primary' }, 'Copy');
  copy.addEventListener('click', () => {
    input.select();
    navigator.clipboard.writeText(secret).then(
      () => {
        status.textContent = 'Copied.';
      },
      () => {
        status.textContent = 'Copy refused by the browser: the text is selected, press Ctrl+C.';
      },
    );
  });
  return h(
    'section',
    { class: 'card secret-panel', 'aria-label': title },
    h('h2', null, title),
    message('info', note),
    h('div', { class: 'row' }, input, copy, status),
  );
}
