import { h, replace } from '../dom.js';
import { errorText, heading, message } from '../view.js';

/**
 * Sign-in by pasting an API key. The key is checked with GET /v1/account before
 * anything else; nothing is sent anywhere but this origin's /v1.
 */
export function signInPage(
  root: HTMLElement,
  refused: string | null,
  signIn: (key: string, remember: boolean) => Promise<void>,
): void {
  const slot = h('div', { class: 'slot' }, refused ? message('error', refused) : null);
  const key = h('input', {
    id: 'api-key',
    name: 'key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'cds_…',
  });
  const remember = h('input', { id: 'remember', name: 'remember', type: 'checkbox', checked: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card sign-in', 'aria-labelledby': 'sign-in-title' },
    h('label', { for: 'api-key' }, 'API key'),
    key,
    h('label', { class: 'check' }, remember, ' Keep me signed in in this tab (until it closes)'),
    submit,
    slot,
    h(
      'p',
      { class: 'hint' },
      "The key stays in this browser tab: in memory, and in this tab's session storage if ticked. ",
      'No cookie is set. Sign out forgets it. Keys are made with ',
      h('code', null, 'cds keys create'),
      ' or on the Keys page.',
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    signIn(key.value.trim(), remember.checked)
      .catch((error: unknown) => replace(slot, message('error', errorText(error))))
      .finally(() => {
        submit.disabled = false;
      });
  });
  replace(root, heading('Sign in'), form);
  const h1 = root.querySelector('h1');
  if (h1) h1.id = 'sign-in-title';
  key.focus();
}
