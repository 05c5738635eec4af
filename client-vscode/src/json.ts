/** Reading untyped JSON, and errors in words. */
import { plainMessage } from './safeText';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The message of an error, or the value itself in words (escaped and bounded: it may quote a version). */
export function errorText(err: unknown): string {
  return plainMessage(err instanceof Error ? err.message : String(err));
}
