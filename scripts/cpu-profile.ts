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

/** Sampled µs per node id (the time each node was the top of the stack). */
export function selfTimes(profile: Profile): Map<number, number> {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  return selfUs;
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
