/** Something `h` can put inside an element; null, undefined and false are left out. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

type Handler = (event: Event) => void;
/** Attributes, properties (`value`, `checked`) and `on…` listeners of an element built by `h`. */
export type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;

/**
 * Builds an element. Text goes in as text nodes (never parsed as HTML), so data
 * from the API cannot inject markup; `style` is never set because the CSP forbids
 * inline style — classes from console.css do the styling.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) setAttr(el, name, value);
  append(el, children);
  return el;
}

function setAttr(el: HTMLElement, name: string, value: Attrs[string]): void {
  if (value === null || value === undefined || value === false) return;
  if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
  else if (name === 'value' || name === 'checked') (el as unknown as Record<string, unknown>)[name] = value;
  else el.setAttribute(name === 'className' ? 'class' : name, value === true ? '' : String(value));
}

/** Appends children (flattening arrays, skipping empty ones). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A labelled form control: `<label>` wrapping the text and the control, so clicking the text focuses it. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLLabelElement {
  return h(
    'label',
    { class: 'field' },
    h('span', { class: 'field-label' }, label),
    control,
    hint ? h('small', null, hint) : null,
  );
}

/** A `<table>` with a header row, or a note when there are no rows. */
export function table(headers: readonly string[], rows: readonly Child[][], empty = 'Nothing yet.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headers.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((cells) =>
          h(
            'tr',
            null,
            cells.map((c) => h('td', null, c)),
          ),
        ),
      ),
    ),
  );
}

/** A button that runs `action`, disabled while it runs so a double click sends one request. */
export function actionButton(label: string, action: () => Promise<void>, attrs: Attrs = {}): HTMLButtonElement {
  const button = h('button', { type: 'button', ...attrs }, label);
  button.addEventListener('click', () => {
    button.disabled = true;
    void action().finally(() => {
      button.disabled = false;
    });
  });
  return button;
}

/** The value of a named control inside a form. */
export function valueOf(form: HTMLFormElement, name: string): string {
  const el = form.elements.namedItem(name);
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement
    ? el.value.trim()
    : '';
}
