/**
 * The delivered body `{type, timestamp, data}`. Built from the stored JSON text as
 * is, so every retry of a delivery sends (and signs) byte-identical bodies.
 */
export function deliveryBody(type: string, createdAt: Date, payloadJson: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(createdAt.toISOString())},"data":${payloadJson}}`;
}

/** The secrets that sign now: the current one, and the previous one while its grace period lasts. */
export function signingSecrets(
  secret: string,
  previous: string | null,
  previousExpiresAt: Date | null,
  now: number,
): string[] {
  return previous && previousExpiresAt && previousExpiresAt.getTime() > now ? [secret, previous] : [secret];
}
