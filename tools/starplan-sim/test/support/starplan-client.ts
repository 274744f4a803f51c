/** Reads StarPlan answers the way a consumer must: charset from Content-Type, then unwrap `[[...]]`. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RECORDED_DIR = fileURLToPath(new URL('../../fixtures/recorded', import.meta.url));

export function charsetOf(contentType: string | null): string {
  return /charset=([^;]+)/i.exec(contentType ?? '')?.[1]?.trim().toLowerCase() ?? 'utf-8';
}

/** ISO-8859-1 is decoded byte for byte (TextDecoder would treat the label as windows-1252). */
export function decodeBytes(bytes: Uint8Array, contentType: string | null): string {
  const charset = charsetOf(contentType);
  if (charset === 'iso-8859-1' || charset === 'latin1') return Buffer.from(bytes).toString('latin1');
  return new TextDecoder(charset, { fatal: true }).decode(bytes);
}

export async function decodeResponse(response: Response): Promise<string> {
  return decodeBytes(new Uint8Array(await response.arrayBuffer()), response.headers.get('content-type'));
}

export type Unwrapped = { items: Record<string, unknown>[] } | { error: string };

export function unwrap(payload: unknown): Unwrapped {
  if (!Array.isArray(payload)) throw new Error('not an array');
  const [first, second] = payload as unknown[];
  if (first === '' && Array.isArray(second)) return { error: String((second[0] as { error: unknown }).error) };
  if (!Array.isArray(first)) throw new Error('not wrapped twice');
  return { items: first as Record<string, unknown>[] };
}

export async function fetchJson(baseUrl: string, query: string): Promise<{ response: Response; body: Unwrapped }> {
  const response = await fetch(`${baseUrl}/json?${query}`);
  return { response, body: unwrap(JSON.parse(await decodeResponse(response))) };
}

export async function fetchItems(baseUrl: string, query: string): Promise<Record<string, unknown>[]> {
  const { body } = await fetchJson(baseUrl, query);
  if ('error' in body) throw new Error(`${query}: ${body.error}`);
  return body.items;
}

/** A recorded answer, sent again as the real server does: ISO-8859-1 bytes with that charset declared. */
export function recordedAsServed(file: string): { bytes: Uint8Array; contentType: string } {
  const text = readFileSync(`${RECORDED_DIR}/${file}`, 'utf8');
  return { bytes: Buffer.from(text, 'latin1'), contentType: 'application/json; charset=ISO-8859-1' };
}

/** Field names and JSON types of an item, nested arrays described by their first element. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shapeOf(field)]));
  }
  return typeof value;
}
