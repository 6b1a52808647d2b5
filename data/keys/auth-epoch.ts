/**
 * A per-state counter of changes to who may call the API (keys revoked, rotated
 * or created, an account's plan, a plan's scopes). Code that makes such a change
 * bumps it after committing; the principal and plan caches of the same process
 * compare it on every request, which costs nothing, and so see the change at
 * once. Other processes (cluster mode) learn of it from the table fingerprint.
 */
const epochs = new WeakMap<object, number>();

/** Records that keys, accounts or plans of `state` changed. */
export function authChanged(state: object): void {
  epochs.set(state, (epochs.get(state) ?? 0) + 1);
}

/** The current change count of `state`. */
export function authEpoch(state: object): number {
  return epochs.get(state) ?? 0;
}
