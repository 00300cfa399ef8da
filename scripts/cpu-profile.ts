// Reading V8 CPU profiles (`node --cpu-prof`): shared by scripts/profile-top.ts and scripts/flame-graph.ts.
import fs from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export function readProfile(file: string): Profile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
}

/** A span of a profile's clock (µs, V8's monotonic timestamps: threads of one process share it). */
export interface Window { fromUs: number; toUs: number }

/** Sampled µs per node id (the time each node was the top of the stack), within `window` if given. */
export function selfTimes(profile: Profile, window?: Window): Map<number, number> {
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  return selfUs;
}

/**
 * The `seconds`-long span with the most non-idle samples: a benchmark's measured round, without the
 * start-up before it or the stop after it.
 */
export function busiestWindow(profile: Profile, seconds: number): Window {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  const times: number[] = [];
  const busy: number[] = [];
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    times.push(at);
    busy.push(idle.has(id) ? 0 : (profile.timeDeltas[index] ?? 0));
  });
  const spanUs = seconds * 1e6;
  let best = { fromUs: profile.startTime, toUs: profile.startTime + spanUs };
  let bestBusy = -1;
  let sum = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    sum += busy[end]!;
    while (times[end]! - times[start]! > spanUs) sum -= busy[start++]!;
    if (sum > bestBusy) {
      bestBusy = sum;
      best = { fromUs: times[start]!, toUs: times[start]! + spanUs };
    }
  }
  return best;
}

/** Where a frame's code lives: a package under node_modules, a project file, node's own, or V8's. */
export function packageOf(url: string): string {
  if (!url) return '(native / V8)';
  const at = url.lastIndexOf('node_modules/');
  if (at >= 0) {
    const parts = url.slice(at + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return 'node (core)';
  const dist = /\/(?:dist|source)\/(.+)$/.exec(url);
  return dist ? `switchboard ${dist[1]!.split('/')[0]}/` : url;
}

/** A frame's file, shortened to what follows node_modules/ or dist/ (source/). */
export function shortUrl(url: string): string {
  return url.replace(/^.*node_modules\//, '').replace(/^.*\/(dist|source)\//, '');
}

/** `function file:line`, or the function alone for V8's own frames. */
export function frameLabel(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = shortUrl(url);
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
}
