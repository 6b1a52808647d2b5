import type { SecretRef, ValueOrSecret } from './sources-schema.js';

/** A secret the sources file names is not in the environment; the message names the variable, never a value. */
export class SecretMissingError extends Error {
  override name = 'SecretMissingError';
}

/**
 * Resolves a source's secrets from the environment (through the config's
 * `secretEnv`, the one place it is read) and remembers every value it handed out,
 * so that any text leaving the source — an error, a log line, a run record — can
 * be scrubbed of them, in plain, URL-encoded and Base64 forms.
 */
export class SourceSecrets {
  private readonly values = new Set<string>();

  constructor(
    private readonly source: string,
    private readonly env: (name: string) => string | undefined,
  ) {}

  /** The secret's value; a missing or empty variable stops the run, naming the variable. */
  secret(ref: SecretRef): string {
    const value = this.env(ref.env);
    if (value === undefined || value === '') {
      throw new SecretMissingError(
        `source ${this.source}: the environment variable ${ref.env} is not set (the sources file names it for a secret)`,
      );
    }
    this.remember(value);
    return value;
  }

  /** A header or query value: plain as written, or a secret by reference. */
  value(v: ValueOrSecret): string {
    return typeof v === 'object' ? this.secret(v) : String(v);
  }

  /** Also scrub a value derived from secrets (a Basic credential). */
  remember(value: string): void {
    if (value.length < 4) return; // too short to scrub without mangling ordinary text; documented
    this.values.add(value);
    this.values.add(encodeURIComponent(value));
    this.values.add(Buffer.from(value).toString('base64'));
  }

  /** The error with its message and stack scrubbed (a logger prints the stack), for rethrowing. */
  scrub(error: unknown): unknown {
    if (!(error instanceof Error)) return new Error(this.redact(String(error)));
    error.message = this.redact(error.message);
    if (error.stack) error.stack = this.redact(error.stack);
    return error;
  }

  /** The text with every known secret replaced by `***`. */
  redact(text: string): string {
    let out = text;
    for (const v of this.values) out = out.split(v).join('***');
    return out;
  }
}
