import type { DeliverExtra } from '../delivery/types.js';

/** Objects and arrays substituted into a template are JSON cut at this length. */
export const VALUE_JSON_CHARS = 2000;
/** `{__raw__}`: the whole payload as JSON, cut here (spec 2.9, 8). */
export const RAW_CHARS = 4000;

const placeholder = /\{([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)\}/g;
const forbidden = new Set(['__proto__', 'constructor', 'prototype']);

type Lookup = { found: true; value: unknown } | { found: false };

/** A template split once into text and placeholders (`path` null for `{__raw__}`). */
export type CompiledTemplate = ReadonlyArray<string | { whole: string; path: string[] | null }>;

export function compileTemplate(template: string): CompiledTemplate {
  const parts: Array<CompiledTemplate[number]> = [];
  let last = 0;
  for (const match of template.matchAll(placeholder)) {
    if (match.index > last) parts.push(template.slice(last, match.index));
    parts.push({ whole: match[0], path: match[1] === '__raw__' ? null : match[1]!.split('.') });
    last = match.index + match[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}

/**
 * Renders a route template against a payload (spec 2.9). Pure and single-pass: text that a
 * substitution brings in is never expanded again. `{a.b.0.c}` walks own properties and array
 * indexes; a path that does not resolve stays exactly as written; no other syntax exists.
 */
export function renderTemplate(template: string | CompiledTemplate, payload: unknown): string {
  let out = '';
  for (const part of typeof template === 'string' ? compileTemplate(template) : template) {
    if (typeof part === 'string') out += part;
    else if (part.path === null) out += JSON.stringify(payload).slice(0, RAW_CHARS);
    else {
      const lookup = resolvePath(payload, part.path);
      out += lookup.found ? display(lookup.value) : part.whole;
    }
  }
  return out;
}

/** The prompt of a run: the template rendered, or the whole payload as indented JSON without one. */
export function renderPrompt(template: string | CompiledTemplate | undefined, payload: unknown): string {
  return template === undefined ? JSON.stringify(payload, undefined, 2) : renderTemplate(template, payload);
}

/** Route templates compiled once each (a route's prompt is the same string on every request). */
export function createTemplateCache(limit = 256) {
  const compiled = new Map<string, CompiledTemplate>();
  return (template: string): CompiledTemplate => {
    let found = compiled.get(template);
    if (!found) {
      if (compiled.size >= limit) compiled.clear(); // routes were replaced many times: start over
      found = compileTemplate(template);
      compiled.set(template, found);
    }
    return found;
  };
}

/**
 * `deliver_extra` string values are templates too (e.g. `pr_number: "{number}"`). Types pass through:
 * numbers and booleans stay as written, and a value that is exactly one placeholder takes the type of
 * a number or boolean it resolves to (`"{number}"` -> 42).
 */
export function renderExtra(extra: DeliverExtra, payload: unknown): DeliverExtra {
  if (!hasKeys(extra)) return {}; // most routes have none: no entries copied, mapped and rebuilt per request
  return Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, typeof value === 'string' ? renderExtraValue(value, payload) : value]));
}

function hasKeys(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

function renderExtraValue(template: string, payload: unknown): string | number | boolean {
  const single = /^\{([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)\}$/.exec(template);
  if (single && single[1] !== '__raw__') {
    const lookup = resolvePath(payload, single[1]!.split('.'));
    if (lookup.found && (typeof lookup.value === 'number' || typeof lookup.value === 'boolean')) return lookup.value;
  }
  return renderTemplate(template, payload);
}

function resolvePath(root: unknown, segments: string[]): Lookup {
  let current = root;
  for (const segment of segments) {
    if (forbidden.has(segment)) return { found: false };
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment) || Number(segment) >= current.length) return { found: false };
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false };
    }
  }
  return current === undefined ? { found: false } : { found: true, value: current };
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value).slice(0, VALUE_JSON_CHARS);
  return String(value);
}
