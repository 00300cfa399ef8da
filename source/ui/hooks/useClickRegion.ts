import type { DOMElement } from 'ink';
import { useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { useKeyRouter, type ClickPoint } from '../input-router.js';

export type { ClickPoint } from '../input-router.js';

/** A box on screen: 0-based column and row of its top left cell, and its size in cells. */
export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where an element is on screen, and the part of it that shows (an ancestor may cut it). */
export interface ScreenRect extends Area {
  visible: Area;
}

// yoga-layout's Edge and Display values (ink does not re-export them).
const edge = { left: 0, top: 1, right: 2, bottom: 3 } as const;
const displayNone = 1;

/**
 * Where an Ink element is drawn, in screen cells, as Ink's renderer places it: each yoga node's
 * computed left/top added up from the root (less an ancestor's content offset), cut to every
 * ancestor that hides its overflow (inside its border). Undefined when it is not laid out, not
 * shown (display none, or a parent's clip leaves nothing), or detached. The console draws in the
 * alternate screen with no <Static> output, so the layout's origin is the screen's top left.
 */
export function screenRect(node: DOMElement): ScreenRect | undefined {
  const chain: DOMElement[] = [];
  for (let current: DOMElement | undefined = node; current; current = current.parentNode) chain.unshift(current);
  if (chain[0]?.nodeName !== 'ink-root') return undefined;
  let x = 0;
  let y = 0;
  const clip = { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity };
  for (const element of chain) {
    const yoga = element.yogaNode;
    if (!yoga || yoga.getDisplay() === displayNone) return undefined;
    x += yoga.getComputedLeft();
    y += yoga.getComputedTop();
    if (element === node) break;
    const { overflow, overflowX, overflowY, contentOffsetX, contentOffsetY } = element.style;
    if ((overflowX ?? overflow) === 'hidden') {
      clip.left = Math.max(clip.left, x + yoga.getComputedBorder(edge.left));
      clip.right = Math.min(clip.right, x + yoga.getComputedWidth() - yoga.getComputedBorder(edge.right));
    }
    if ((overflowY ?? overflow) === 'hidden') {
      clip.top = Math.max(clip.top, y + yoga.getComputedBorder(edge.top));
      clip.bottom = Math.min(clip.bottom, y + yoga.getComputedHeight() - yoga.getComputedBorder(edge.bottom));
    }
    x -= offset(contentOffsetX);
    y -= offset(contentOffsetY);
  }
  const yoga = node.yogaNode!;
  const left = Math.max(x, clip.left);
  const top = Math.max(y, clip.top);
  const right = Math.min(x + yoga.getComputedWidth(), clip.right);
  const bottom = Math.min(y + yoga.getComputedHeight(), clip.bottom);
  if (right <= left || bottom <= top) return undefined;
  return { x, y, width: yoga.getComputedWidth(), height: yoga.getComputedHeight(), visible: { x: left, y: top, width: right - left, height: bottom - top } };
}

/** The point relative to the element's top left when the screen cell (x, y) is in its visible part. */
export function pointIn(rect: ScreenRect | undefined, x: number, y: number): ClickPoint | undefined {
  if (!rect) return undefined;
  const { visible } = rect;
  if (x < visible.x || y < visible.y || x >= visible.x + visible.width || y >= visible.y + visible.height) return undefined;
  return { column: x - rect.x, row: y - rect.y };
}

const offset = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0);

export interface ClickRegionOptions {
  /** An inactive region takes no clicks (a pane that is not shown or not on top). Default true. */
  active?: boolean;
}

/**
 * Makes the Ink `<Box ref={ref}>` take left clicks while the component is mounted and `active`:
 * a press inside the box calls `onClick({ column, row })`, 0-based from the box's top left cell
 * (row 0 is the box's first line, borders and padding included). Where regions overlap, the one
 * registered last (an overlay opened over a pane) gets the click; the others do not hear it.
 */
export function useClickRegion(ref: RefObject<DOMElement | null>, onClick: (at: ClickPoint) => void, options: ClickRegionOptions = {}): void {
  const router = useKeyRouter();
  const [seq] = useState(() => router.nextSeq());
  const latest = useRef(onClick);
  useLayoutEffect(() => { latest.current = onClick; });
  const active = options.active ?? true;
  useLayoutEffect(() => {
    if (!active) return undefined;
    return router.addRegion({
      seq,
      hit: (x, y) => pointIn(ref.current ? screenRect(ref.current) : undefined, x, y),
      onClick: (at) => latest.current(at),
    });
  }, [router, active, seq, ref]);
}
