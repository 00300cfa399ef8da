import { describe, expect, it } from 'vitest';
import type { Profile } from '../../scripts/cpu-profile.js';
import { flameGraphSvg, frameTree } from '../../scripts/flame-graph.js';

/** root -> handle (app) -> { parse (app), writev (node core) } twice over (V8 splits a call site), plus idle and GC. */
const profile: Profile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3, 4, 7] },
    { id: 2, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    { id: 3, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    { id: 4, callFrame: { functionName: 'handle', url: 'file:///app/dist/webhooks/server.js', lineNumber: 9 }, children: [5, 6] },
    { id: 5, callFrame: { functionName: 'parse', url: 'file:///app/dist/webhooks/request.js', lineNumber: 0 } },
    { id: 6, callFrame: { functionName: 'writev', url: 'node:net', lineNumber: 4 } },
    { id: 7, callFrame: { functionName: 'handle', url: 'file:///app/dist/webhooks/server.js', lineNumber: 9 }, children: [8] },
    { id: 8, callFrame: { functionName: 'parse', url: 'file:///app/dist/webhooks/request.js', lineNumber: 0 } },
  ],
  // 1 ms per sample: idle 50, GC 10, handle itself 5 + 5, parse 20 + 10, writev 20.
  samples: [...Array(50).fill(2), ...Array(10).fill(3), ...Array(5).fill(4), ...Array(5).fill(7), ...Array(20).fill(5), ...Array(10).fill(8), ...Array(20).fill(6)],
  timeDeltas: Array(120).fill(1000),
  startTime: 0,
  endTime: 120_000,
};

describe('scripts/flame-graph', () => {
  it('merges one function called from one place, leaves idle out, and counts time inclusively', () => {
    const tree = frameTree(profile);
    expect(tree.us).toBe(70_000);
    expect(tree.children.map((frame) => [frame.label, frame.us])).toEqual([['(garbage collector)', 10_000], ['handle webhooks/server.js:10', 60_000]]);
    const handle = tree.children[1]!;
    expect(handle.children.map((frame) => [frame.label, frame.pkg, frame.us])).toEqual([
      ['parse webhooks/request.js:1', 'switchboard webhooks/', 30_000], ['writev node:net:5', 'node (core)', 20_000],
    ]);
    expect(frameTree(profile, { idle: true }).us).toBe(120_000);
  });

  it('draws each frame as wide as its share of the CPU, callers below callees', () => {
    const svg = flameGraphSvg(profile, { title: 'test <profile>', width: 720 });
    const box = (label: string) => {
      const match = new RegExp(`<title>${label.replace(/[().]/g, '\\$&')} [^<]*</title><rect x="([\\d.]+)" y="(\\d+)" width="([\\d.]+)"`).exec(svg);
      if (!match) throw new Error(`no box for ${label}`);
      return { x: Number(match[1]), y: Number(match[2]), width: Number(match[3]) };
    };
    const inner = 700; // 720 less the padding on both sides
    expect(box('all').width).toBeCloseTo(inner, 1);
    expect(box('handle webhooks/server.js:10').width).toBeCloseTo((inner * 60) / 70, 1);
    expect(box('parse webhooks/request.js:1').width).toBeCloseTo((inner * 30) / 70, 1);
    expect(box('writev node:net:5').x).toBeCloseTo(box('parse webhooks/request.js:1').x + (inner * 30) / 70, 1);
    expect(box('parse webhooks/request.js:1').y).toBeLessThan(box('handle webhooks/server.js:10').y);
    expect(svg).toContain('test &#60;profile&#62;');
    expect(svg).toContain('60.0 ms, 85.71%');
    expect(svg).not.toContain('(idle)');
  });
});
