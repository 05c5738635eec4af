/** Reading untyped JSON, and errors in words. */

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The message of an error, or the value itself in words. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
